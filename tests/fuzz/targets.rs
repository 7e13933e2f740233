//! The in-process targets, one test each. Default counts keep the whole binary under a minute on
//! two cores in the test profile; `BAREGPU_FUZZ_ITERS` changes them all.

use baregpu::compiler::codeobj::{metadata::find_metadata, KernelDescriptor};
use baregpu::compiler::isa::{self, Arch};
use baregpu::drivers::amd::decode;
use baregpu::drivers::nv::pushbuf;
use baregpu::emu::nv::ptx::parser as emu_ptx;
use baregpu::runtime::program::cubin::{parse_attributes, Cubin};
use baregpu::runtime::program::ptx::PtxModule;
use baregpu::runtime::program::CodeObject;

use crate::harness::{fuzz, Show};
use crate::mutate::{mutate_bytes, mutate_text, Rng};
use crate::seeds;

fn bytes(max: usize) -> impl Fn(&mut Rng, &[u8], &[Vec<u8>]) -> Vec<u8> {
    move |r, i, o| mutate_bytes(r, i, o, max)
}

fn text(dict: &'static [&'static str]) -> impl Fn(&mut Rng, &[u8], &[Vec<u8>]) -> Vec<u8> {
    move |r, i, o| mutate_text(r, &String::from_utf8_lossy(i), o, dict).into_bytes()
}

#[test]
fn hsaco() {
    fuzz("hsaco", 6000, Show::Hex, &seeds::hsaco(), bytes(4 << 20), |b| {
        if let Ok(co) = CodeObject::parse(b) {
            for k in &co.kernels {
                co.kernel(&k.name).expect("a listed kernel is found");
            }
            let _ = co.relocated(0x7f00_0000_0000);
        }
        // The code-object writer's readers: descriptors and the metadata note.
        let _ = KernelDescriptor::from_bytes(b);
        let _ = find_metadata(b);
    });
}

/// The NT_AMDGPU_METADATA blobs of the code-object fixtures.
fn metadata_blobs() -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for f in seeds::hsaco() {
        let Some(p) = f.windows(8).position(|w| w == b"AMDGPU\0\0") else { continue };
        if p < 12 {
            continue;
        }
        let size = u32::from_le_bytes(f[p - 8..p - 4].try_into().expect("4 bytes")) as usize;
        if let Some(d) = f.get(p + 8..p + 8 + size) {
            v.push(d.to_vec());
        }
    }
    v
}

#[test]
fn msgpack_metadata() {
    fuzz("msgpack", 5000, Show::Hex, &metadata_blobs(), bytes(1 << 20), |b| {
        let _ = baregpu::runtime::program::metadata::parse(b);
    });
}

#[test]
fn cubin() {
    fuzz("cubin", 10000, Show::Hex, &seeds::cubin(), bytes(1 << 20), |b| {
        let _ = parse_attributes(b);
        if let Ok(c) = Cubin::parse(b) {
            for k in &c.kernels {
                c.kernel(&k.name).expect("a listed kernel is found");
                let _ = c.constant_bank0(k, &vec![0u8; k.param_size as usize % 65536]);
                let _ = c.constant_bank0(k, &[1, 2, 3]);
            }
            for s in &c.sections {
                let _ = c.section(&s.name);
            }
            let _ = c.relocated(0x7f00_0000_0000);
        }
    });
}

const PTX_DICT: &[&str] = &[
    ".version",
    "7.8",
    "99.9",
    ".target",
    "sm_90",
    ".address_size",
    "64",
    ".visible",
    ".entry",
    ".func",
    ".param",
    ".u64",
    ".u32",
    ".b32",
    ".f32",
    ".pred",
    ".ptr",
    ".global",
    ".align",
    ".reg",
    ".shared",
    ".local",
    ".const",
    "%r<4294967295>",
    "%rd<2>",
    "%p<1>",
    "ld.param.u64",
    "st.global.f32",
    "mov.u32",
    "%tid.x",
    "%ctaid.x",
    "add.s32",
    "mad.lo.s32",
    "setp.lt.s32",
    "@%p1",
    "bra",
    "$L__BB0_1:",
    "ret;",
    "call",
    ".noreturn",
    ".reqntid",
    ".maxntid",
    "1024,",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "//",
    "/*",
    "*/",
    "\"",
    "0f3F800000",
    "0dFFFFFFFFFFFFFFFF",
    "bar.sync",
    "atom.global.add.u32",
    "cvta.to.global.u64",
];

#[test]
fn ptx() {
    fuzz("ptx", 6000, Show::Text, &seeds::ptx(), text(PTX_DICT), |b| {
        let src = String::from_utf8_lossy(b);
        let _ = emu_ptx::parse(&src);
        if let Ok(m) = PtxModule::parse(&src) {
            for e in &m.entries {
                m.entry(&e.name).expect("a listed entry is found");
                for p in &e.params {
                    let _ = p.describe();
                }
            }
        }
    });
}

const ASM_DICT: &[&str] = &[
    "v_add_f32",
    "v_add_nc_u32_e32",
    "s_load_b64",
    "s_load_dwordx2",
    "global_load_b32",
    "global_store_b32",
    "s_waitcnt",
    "vmcnt(0)",
    "lgkmcnt(0)",
    "s_endpgm",
    "s_branch",
    "label",
    "label:",
    "v_nop",
    "v_illegal",
    "v0",
    "v255",
    "v256",
    "v[0:1]",
    "v[1:2]",
    "v[4294967295:0]",
    "s[0:1]",
    "s[3:4]",
    "s[2:5]",
    "s105",
    "ttmp[2:3]",
    "a[0:3]",
    "vcc",
    "exec",
    "m0",
    "null",
    "off",
    "offset:",
    "offset:4096",
    "glc",
    "dpp8:[0,1,2,3,4,5,6,7]",
    "quad_perm:[0,1,2,3]",
    "row_mask:0xf",
    "sel:",
    "op_sel:[0,1]",
    "neg(",
    "|v1|",
    "-v1",
    "::",
    "v_dual_mov_b32",
    "0.5",
    "1.0",
    "lit(",
    ",",
    ":",
    "[",
    "]",
    "(",
    ")",
    "//",
    ";",
    "/*",
    "*/",
];

#[test]
fn asm() {
    for arch in Arch::ALL {
        let name: &'static str = match arch {
            Arch::Gfx1100 => "asm_gfx1100",
            Arch::Gfx1201 => "asm_gfx1201",
            Arch::Gfx942 => "asm_gfx942",
            Arch::Gfx950 => "asm_gfx950",
        };
        fuzz(name, 6000, Show::Text, &seeds::asm(arch.name()), text(ASM_DICT), |b| {
            let src = String::from_utf8_lossy(b);
            let _ = isa::assemble(arch, &src);
        });
    }
}

#[test]
fn disasm() {
    for arch in Arch::ALL {
        let name: &'static str = match arch {
            Arch::Gfx1100 => "disasm_gfx1100",
            Arch::Gfx1201 => "disasm_gfx1201",
            Arch::Gfx942 => "disasm_gfx942",
            Arch::Gfx950 => "disasm_gfx950",
        };
        let d = isa::Decoder::new(arch);
        fuzz(name, 5000, Show::Hex, &seeds::golden_bytes(arch.name()), bytes(4096), |b| {
            // Decode and print everything that decodes; the text must assemble or fail cleanly.
            let mut at = 0;
            while at < b.len() {
                let Ok(i) = d.decode_at(b, at) else {
                    at += 4;
                    continue;
                };
                assert!(i.size() > 0 && at + i.size() <= b.len(), "{} bytes at {at} of {}", i.size(), b.len());
                let _ = isa::assemble_line(arch, &isa::disassemble(&i));
                at += i.size();
            }
        });
    }
}

/// PM4 and SDMA: the decoder the emulated command processors execute, and its listing.
#[test]
fn decode_amd() {
    let mut all = seeds::pm4();
    all.extend(seeds::sdma());
    for (arch, kind) in [("gfx942", "pm4"), ("gfx1100", "pm4"), ("gfx1201", "pm4")].into_iter().chain([
        ("gfx942", "sdma"),
        ("gfx1100", "sdma"),
        ("gfx1201", "sdma"),
    ]) {
        let seeds: Vec<Vec<u8>> = if kind == "pm4" { seeds::pm4() } else { seeds::sdma() }
            .into_iter()
            .filter(|(a, _)| *a == arch)
            .map(|(_, b)| b)
            .chain(all.iter().map(|(_, b)| b.clone()))
            .collect();
        let name: &'static str = Box::leak(format!("decode_{kind}_{arch}").into_boxed_str());
        fuzz(name, 10000, Show::Hex, &seeds, bytes(1 << 16), |b| {
            if let Ok(p) = decode::decode_bytes(kind, arch, b) {
                let total: usize = p.iter().map(|p| p.dwords).sum();
                assert!(total <= b.len() / 4 + 1, "{total} dwords listed from {} bytes", b.len());
                for p in &p {
                    let _ = p.to_string();
                }
            }
        });
    }
}

/// NVIDIA push buffers: the driver's decoder (`baregpu decode gpfifo`, `BAREGPU_TRACE`), which
/// lists one line per method header and never reads past the words it is given.
#[test]
fn decode_pushbuf() {
    fuzz("decode_gpfifo", 10000, Show::Hex, &[seeds::pushbuf()], bytes(1 << 16), |b| {
        let Ok(words) = decode::words_from_bytes(b) else { return };
        let lines = pushbuf::decode(&words);
        assert!(lines.len() <= words.len(), "{} lines from {} words", lines.len(), words.len());
    });
}
