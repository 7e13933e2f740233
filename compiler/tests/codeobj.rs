//! The code-object writer against the ELF it produces, against LLVM 22's tools where they are
//! installed, and against clang-built fixtures (tests/fixtures/codeobj, rebuilt by its build.sh).

use std::path::PathBuf;
use std::process::Command;

use baregpu_compiler::codeobj::metadata::{MapLookup, Value};
use baregpu_compiler::codeobj::{
    metadata, write_code_object, write_code_object_with, AddressSpace, ArgAccess, ArgKind, CodeObjectError,
    CodeObjectOptions, HiddenArg, Kernel, KernelArg, KernelDescriptor, KernelResources, TargetFeature, UserSgprs,
    WaveSize,
};
use baregpu_compiler::isa::Arch;
use object::read::elf::ElfFile64;
use object::{Endianness, FileFlags, Object, ObjectSection, ObjectSegment, ObjectSymbol, SectionKind, SymbolKind};

/// gfx1100: `out[tid.x] = in[tid.x] + 1.0`, out = kernarg[0], in = kernarg[8]
/// (llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx1100 -show-encoding).
const GFX1100_CODE: &[u8] = &[
    0x00, 0x00, 0x08, 0xf4, 0x00, 0x00, 0x00, 0xf8, // s_load_b128 s[0:3], s[0:1], 0x0
    0x82, 0x00, 0x00, 0x30, // v_lshlrev_b32_e32 v0, 2, v0
    0x07, 0xfc, 0x89, 0xbf, // s_waitcnt lgkmcnt(0)
    0x00, 0x00, 0x52, 0xdc, 0x00, 0x00, 0x02, 0x01, // global_load_b32 v1, v0, s[2:3]
    0xf7, 0x03, 0x89, 0xbf, // s_waitcnt vmcnt(0)
    0xf2, 0x02, 0x02, 0x06, // v_add_f32_e32 v1, 1.0, v1
    0x00, 0x00, 0x6a, 0xdc, 0x00, 0x01, 0x00, 0x00, // global_store_b32 v0, v1, s[0:1]
    0x00, 0x00, 0xb0, 0xbf, // s_endpgm
];

/// gfx1201: the same kernel (llvm-mc-22 -mcpu=gfx1201).
const GFX1201_CODE: &[u8] = &[
    0x00, 0x40, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8, // s_load_b128 s[0:3], s[0:1], 0x0
    0x82, 0x00, 0x00, 0x30, // v_lshlrev_b32_e32 v0, 2, v0
    0x00, 0x00, 0xc7, 0xbf, // s_wait_kmcnt 0x0
    0x02, 0x00, 0x05, 0xee, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // global_load_b32 v1, v0, s[2:3]
    0x00, 0x00, 0xc0, 0xbf, // s_wait_loadcnt 0x0
    0xf2, 0x02, 0x02, 0x06, // v_add_f32_e32 v1, 1.0, v1
    0x00, 0x80, 0x06, 0xee, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, // global_store_b32 v0, v1, s[0:1]
    0x00, 0x00, 0xb0, 0xbf, // s_endpgm
];

/// gfx942 and gfx950: the same kernel (llvm-mc-22 -mcpu=gfx942; identical for gfx950).
const CDNA_CODE: &[u8] = &[
    0x00, 0x00, 0x0a, 0xc0, 0x00, 0x00, 0x00, 0x00, // s_load_dwordx4 s[0:3], s[0:1], 0x0
    0x82, 0x00, 0x00, 0x24, // v_lshlrev_b32_e32 v0, 2, v0
    0x7f, 0xc0, 0x8c, 0xbf, // s_waitcnt lgkmcnt(0)
    0x00, 0x80, 0x50, 0xdc, 0x00, 0x00, 0x02, 0x01, // global_load_dword v1, v0, s[2:3]
    0x70, 0x0f, 0x8c, 0xbf, // s_waitcnt vmcnt(0)
    0xf2, 0x02, 0x02, 0x02, // v_add_f32_e32 v1, 1.0, v1
    0x00, 0x80, 0x70, 0xdc, 0x00, 0x01, 0x00, 0x00, // global_store_dword v0, v1, s[0:1]
    0x00, 0x00, 0x81, 0xbf, // s_endpgm
];

/// What the writer must produce for the two test kernels on one architecture.
struct Expect {
    arch: Arch,
    code: &'static [u8],
    e_flags: u32,
    target: &'static str,
    /// Disassembly lines llvm-objdump must show.
    disasm: [&'static str; 3],
    /// [rsrc1, rsrc2, rsrc3, kernel_code_properties] of `add_one` and `add_one_3d`.
    words: [[u32; 4]; 2],
}

// The words follow the rules verified against clang (see `descriptor_words_match_clang_fixtures`):
// gfx1100 wave32 pads the user SGPRs to 15 (+ workgroup id x = 16); 44 code bytes = 1 prefetch line;
// CDNA: 10 SGPRs (4 + VCC/FLAT_SCRATCH/XNACK_MASK) = SGPR granule 1.
const EXPECT: [Expect; 4] = [
    Expect {
        arch: Arch::Gfx1100,
        code: GFX1100_CODE,
        e_flags: 0x041,
        target: "amdgcn-amd-amdhsa--gfx1100",
        // llvm-objdump prints a zero SMEM offset as `null` on gfx11.
        disasm: ["s_load_b128 s[0:3], s[0:1], null", "global_store_b32 v0, v1, s[0:1]", "s_endpgm"],
        words: [[0xe0af_0000, 0x9e, 0x10, 0x408], [0xe0af_0000, 0x1384, 0x10, 0x008]],
    },
    Expect {
        arch: Arch::Gfx1201,
        code: GFX1201_CODE,
        e_flags: 0x04e,
        target: "amdgcn-amd-amdhsa--gfx1201",
        disasm: ["s_load_b128 s[0:3], s[0:1], 0x0", "s_wait_loadcnt 0x0", "global_store_b32 v0, v1, s[0:1]"],
        words: [[0xe00f_0000, 0x84, 0x10, 0x408], [0xe00f_0000, 0x1384, 0x10, 0x008]],
    },
    Expect {
        arch: Arch::Gfx942,
        code: CDNA_CODE,
        e_flags: 0x54c,
        target: "amdgcn-amd-amdhsa--gfx942",
        disasm: ["s_load_dwordx4 s[0:3], s[0:1], 0x0", "global_load_dword v1, v0, s[2:3]", "s_endpgm"],
        words: [[0x00af_0040, 0x84, 0x0, 0x008], [0x00af_0040, 0x1384, 0x0, 0x008]],
    },
    Expect {
        arch: Arch::Gfx950,
        code: CDNA_CODE,
        e_flags: 0x54f,
        target: "amdgcn-amd-amdhsa--gfx950",
        disasm: ["s_load_dwordx4 s[0:3], s[0:1], 0x0", "v_add_f32_e32 v1, 1.0, v1", "s_endpgm"],
        words: [[0x00af_0040, 0x84, 0x0, 0x008], [0x00af_0040, 0x1384, 0x0, 0x008]],
    },
];

/// `add_one` (defaults) and `add_one_3d` (wave64, 3-D ids, 4 KiB of LDS), same machine code.
fn test_kernels(arch: Arch, code: &[u8]) -> Vec<Kernel> {
    let args = vec![
        KernelArg::global_buffer("out", 0).with_type_name("float*"),
        KernelArg::global_buffer("in", 8).with_type_name("float*").with_const(true),
    ];
    let mut a = Kernel::new(arch, "add_one", code.to_vec()).with_args(args.clone());
    a.resources.vgpr_count = 2;
    a.resources.sgpr_count = KernelResources::sgpr_count_for(arch, 4, false);
    let mut b = Kernel::new(arch, "add_one_3d", code.to_vec()).with_args(args);
    b.resources = KernelResources {
        wave_size: WaveSize::Wave64,
        lds_bytes: 4096,
        workgroup_id: [true; 3],
        workitem_id_dims: 3,
        ..a.resources.clone()
    };
    b.max_flat_workgroup_size = 256;
    vec![a, b]
}

fn parse(bytes: &[u8]) -> ElfFile64<'_, Endianness> {
    ElfFile64::<Endianness>::parse(bytes).expect("the writer's output parses as ELF64")
}

fn section_bytes<'a>(obj: &ElfFile64<'a, Endianness>, name: &str) -> (u64, &'a [u8]) {
    let s = obj.section_by_name(name).unwrap_or_else(|| panic!("no {name} section"));
    (s.address(), s.data().unwrap())
}

/// Bytes at a virtual address inside a named section.
fn bytes_at<'a>(obj: &ElfFile64<'a, Endianness>, section: &str, addr: u64, len: usize) -> &'a [u8] {
    let (base, data) = section_bytes(obj, section);
    let start = (addr - base) as usize;
    &data[start..start + len]
}

/// One whole MessagePack value, with nothing after it.
fn decode(mut bytes: &[u8]) -> Value {
    let doc = rmpv::decode::read_value(&mut bytes).expect("metadata decodes");
    assert!(bytes.is_empty(), "{} bytes after the metadata map", bytes.len());
    doc
}

fn metadata_of(obj: &ElfFile64<'_, Endianness>) -> (Vec<u8>, Value) {
    let (_, notes) = section_bytes(obj, ".note");
    let desc = metadata::find_metadata(notes).expect("NT_AMDGPU_METADATA note").to_vec();
    let doc = decode(&desc);
    (desc, doc)
}

fn kernels_of(doc: &Value) -> &[Value] {
    doc.get("amdhsa.kernels").and_then(Value::as_array).map(Vec::as_slice).expect("amdhsa.kernels")
}

fn uint(v: &Value, key: &str) -> u32 {
    v.get(key).and_then(Value::as_u64).unwrap_or_else(|| panic!("{key} missing")) as u32
}

#[test]
fn elf_structure_per_arch() {
    for e in &EXPECT {
        let kernels = test_kernels(e.arch, e.code);
        let bytes = write_code_object(e.arch, &kernels).unwrap();
        let obj = parse(&bytes);
        let arch = e.arch.name();

        // Header.
        assert_eq!(&bytes[..8], b"\x7fELF\x02\x01\x01\x40", "{arch}: ident (ELF64, LE, OS ABI AMDGPU_HSA)");
        assert_eq!(bytes[8], 3, "{arch}: ABI version (code object v5)");
        assert_eq!(u16::from_le_bytes([bytes[16], bytes[17]]), object::elf::ET_DYN, "{arch}: e_type");
        assert_eq!(u16::from_le_bytes([bytes[18], bytes[19]]), 224, "{arch}: e_machine");
        match obj.flags() {
            FileFlags::Elf { os_abi, abi_version, e_flags } => {
                assert_eq!((os_abi, abi_version, e_flags), (64, 3, e.e_flags), "{arch}");
            }
            other => panic!("{arch}: {other:?}"),
        }

        // Sections.
        let text = obj.section_by_name(".text").unwrap();
        assert_eq!(text.align(), 256, "{arch}");
        assert_eq!(text.address() % 256, 0, "{arch}");
        assert_eq!(text.kind(), SectionKind::Text, "{arch}");
        let rodata = obj.section_by_name(".rodata").unwrap();
        assert_eq!(rodata.align(), 64, "{arch}");
        assert_eq!(rodata.size(), 128, "{arch}");
        for name in [".note", ".dynsym", ".hash", ".dynstr", ".dynamic", ".symtab", ".strtab", ".shstrtab"] {
            assert!(obj.section_by_name(name).is_some(), "{arch}: {name} missing");
        }
        // The executable LOAD segment holds .text; addresses equal file offsets.
        let exec = obj
            .segments()
            .find(|s| matches!(s.flags(), object::SegmentFlags::Elf { p_flags } if p_flags & object::elf::PF_X != 0))
            .expect("an executable segment");
        assert_eq!((exec.address(), exec.size()), (text.address(), text.size()), "{arch}");
        assert_eq!(exec.file_range(), (text.address(), text.size()), "{arch}");

        // Symbols and descriptors.
        for (i, k) in kernels.iter().enumerate() {
            let func = obj.dynamic_symbols().find(|s| s.name() == Ok(k.name.as_str())).expect("kernel symbol");
            let kd_name = format!("{}.kd", k.name);
            let kd_sym = obj.dynamic_symbols().find(|s| s.name() == Ok(kd_name.as_str())).expect(".kd symbol");
            assert_eq!(func.kind(), SymbolKind::Text, "{arch} {}", k.name);
            assert_eq!(func.size(), k.code.len() as u64);
            assert_eq!(func.address() % 256, 0, "{arch}: entry alignment");
            assert_eq!(func.section_index(), Some(text.index()));
            assert_eq!(kd_sym.kind(), SymbolKind::Data);
            assert_eq!(kd_sym.size(), 64);
            assert_eq!(kd_sym.address() % 64, 0);
            assert_eq!(kd_sym.section_index(), Some(rodata.index()));
            assert!(obj.symbols().any(|s| s.name() == Ok(kd_name.as_str())), "{arch}: .symtab has {kd_name}");
            assert_eq!(bytes_at(&obj, ".text", func.address(), k.code.len()), k.code.as_slice());

            let kd = KernelDescriptor::from_bytes(bytes_at(&obj, ".rodata", kd_sym.address(), 64)).unwrap();
            assert_eq!(
                kd.kernel_code_entry_byte_offset,
                func.address() as i64 - kd_sym.address() as i64,
                "{arch}: entry offset"
            );
            assert_eq!(kd.group_segment_fixed_size, k.resources.lds_bytes);
            assert_eq!(kd.private_segment_fixed_size, 0);
            assert_eq!(kd.kernarg_size, 16);
            let words =
                [kd.compute_pgm_rsrc1, kd.compute_pgm_rsrc2, kd.compute_pgm_rsrc3, kd.kernel_code_properties.into()];
            assert_eq!(words, e.words[i], "{arch} {}: [rsrc1, rsrc2, rsrc3, kernel_code_properties]", k.name);
        }

        // Metadata.
        let (_, doc) = metadata_of(&obj);
        assert_eq!(doc.keys(), ["amdhsa.kernels", "amdhsa.target", "amdhsa.version"]);
        assert_eq!(doc.get("amdhsa.target").and_then(Value::as_str), Some(e.target));
        assert_eq!(doc.get("amdhsa.version"), Some(&Value::Array(vec![Value::from(1u32), Value::from(2u32)])));
        let md = kernels_of(&doc);
        assert_eq!(md.len(), 2);
        let cdna = matches!(e.arch, Arch::Gfx942 | Arch::Gfx950);
        for (m, k) in md.iter().zip(&kernels) {
            assert_eq!(m.get(".name").and_then(Value::as_str), Some(k.name.as_str()));
            assert_eq!(m.get(".symbol").and_then(Value::as_str), Some(format!("{}.kd", k.name).as_str()));
            assert_eq!(uint(m, ".kernarg_segment_size"), 16);
            assert_eq!(uint(m, ".kernarg_segment_align"), 8);
            assert_eq!(uint(m, ".group_segment_fixed_size"), k.resources.lds_bytes);
            assert_eq!(uint(m, ".private_segment_fixed_size"), 0);
            assert_eq!(uint(m, ".sgpr_count"), if cdna { 10 } else { 4 });
            assert_eq!(uint(m, ".vgpr_count"), 2);
            assert_eq!(uint(m, ".wavefront_size"), k.resources.wave_size.lanes());
            assert_eq!(uint(m, ".max_flat_workgroup_size"), k.max_flat_workgroup_size);
            assert_eq!(uint(m, ".sgpr_spill_count"), 0);
            assert_eq!(uint(m, ".vgpr_spill_count"), 0);
            assert_eq!(m.get(".uses_dynamic_stack"), Some(&Value::Boolean(false)));
            assert_eq!(m.get(".agpr_count").is_some(), cdna, "{arch}: .agpr_count only on CDNA");
            assert_eq!(m.get(".workgroup_processor_mode").is_some(), !cdna);
            let args = m.get(".args").and_then(Value::as_array).unwrap();
            assert_eq!(args.len(), 2);
            assert_eq!(args[1].get(".name").and_then(Value::as_str), Some("in"));
            assert_eq!(uint(&args[1], ".offset"), 8);
            assert_eq!(uint(&args[1], ".size"), 8);
            assert_eq!(args[1].get(".value_kind").and_then(Value::as_str), Some("global_buffer"));
            assert_eq!(args[1].get(".address_space").and_then(Value::as_str), Some("global"));
            assert_eq!(args[1].get(".type_name").and_then(Value::as_str), Some("float*"));
            assert_eq!(args[1].get(".is_const"), Some(&Value::Boolean(true)));
        }
    }
}

/// Runs an LLVM tool if it is installed: `None` (after printing why) if it is not.
fn run_tool(tool: &str, args: &[&str], file: &std::path::Path) -> Option<(String, String)> {
    match Command::new(tool).arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => {
            println!("skipped: {tool} is not installed");
            return None;
        }
    }
    let out = Command::new(tool).args(args).arg(file).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{tool} {args:?} failed:\n{stderr}");
    Some((stdout, stderr))
}

fn temp_object(tag: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("baregpu-codeobj-{}-{tag}.hsaco", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn llvm_readelf_reads_the_object() {
    for e in &EXPECT {
        let arch = e.arch.name();
        let path =
            temp_object(&format!("readelf-{arch}"), &write_code_object(e.arch, &test_kernels(e.arch, e.code)).unwrap());
        let Some((notes, stderr)) = run_tool("llvm-readelf-22", &["--notes"], &path) else { return };
        assert!(stderr.is_empty(), "{arch}: llvm-readelf warned:\n{stderr}");
        for needle in [
            "NT_AMDGPU_METADATA".to_string(),
            format!("amdhsa.target:   {}", e.target),
            ".name:           add_one_3d".to_string(),
            ".symbol:         add_one.kd".to_string(),
            ".group_segment_fixed_size: 4096".to_string(),
            ".value_kind:     global_buffer".to_string(),
        ] {
            assert!(notes.contains(&needle), "{arch}: `{needle}` not in\n{notes}");
        }
        let (all, stderr) = run_tool("llvm-readelf-22", &["-a"], &path).unwrap();
        assert!(stderr.is_empty(), "{arch}: llvm-readelf -a warned:\n{stderr}");
        assert!(all.contains(&format!("Flags:                             {:#x}, {arch}", e.e_flags)), "{all}");
        assert!(
            all.contains("EM_AMDGPU")
                && all.contains("AMDGPU - HSA")
                && all.contains("ABI Version:                       3")
        );
        assert!(all.contains("OBJECT  GLOBAL PROTECTED   5 add_one.kd"), "{all}");
        std::fs::remove_file(&path).ok();
    }
}

#[test]
fn llvm_objdump_disassembles_the_object() {
    for e in &EXPECT {
        let arch = e.arch.name();
        let path =
            temp_object(&format!("objdump-{arch}"), &write_code_object(e.arch, &test_kernels(e.arch, e.code)).unwrap());
        let mcpu = format!("--mcpu={arch}");
        let Some((dis, stderr)) = run_tool("llvm-objdump-22", &["-d", &mcpu], &path) else { return };
        assert!(stderr.is_empty(), "{arch}: llvm-objdump warned:\n{stderr}");
        assert!(dis.contains("<add_one>:") && dis.contains("<add_one_3d>:"), "{arch}:\n{dis}");
        for insn in e.disasm {
            assert!(dis.contains(insn), "{arch}: `{insn}` not in\n{dis}");
        }
        assert!(!dis.contains("<unknown>"), "{arch}: undecodable bytes\n{dis}");
        std::fs::remove_file(&path).ok();
    }
}

/// The clang-built fixture of an architecture.
fn fixture(arch: Arch) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/codeobj")
        .join(format!("{}.hsaco", arch.name()));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (rebuild with build.sh)", path.display()))
}

fn hidden_kind(kind: &str) -> Option<HiddenArg> {
    use HiddenArg::*;
    [
        BlockCountX,
        BlockCountY,
        BlockCountZ,
        GroupSizeX,
        GroupSizeY,
        GroupSizeZ,
        RemainderX,
        RemainderY,
        RemainderZ,
        GlobalOffsetX,
        GlobalOffsetY,
        GlobalOffsetZ,
        GridDims,
        PrintfBuffer,
        HostcallBuffer,
        DefaultQueue,
        CompletionAction,
        MultigridSyncArg,
        HeapV1,
        DynamicLdsSize,
        PrivateBase,
        SharedBase,
        QueuePtr,
        None,
    ]
    .into_iter()
    .find(|h| h.value_kind() == kind)
}

fn arg_from_metadata(m: &Value) -> KernelArg {
    let s = |key| m.get(key).and_then(Value::as_str).map(str::to_string);
    let flag = |key| m.get(key).and_then(Value::as_bool).unwrap_or(false);
    let kind = match s(".value_kind").unwrap().as_str() {
        "by_value" => ArgKind::ByValue,
        "global_buffer" => ArgKind::GlobalBuffer {
            address_space: match s(".address_space").unwrap().as_str() {
                "global" => AddressSpace::Global,
                "constant" => AddressSpace::Constant,
                other => panic!("address space {other}"),
            },
            access: s(".access").map(|a| match a.as_str() {
                "read_only" => ArgAccess::ReadOnly,
                "write_only" => ArgAccess::WriteOnly,
                _ => ArgAccess::ReadWrite,
            }),
        },
        other => ArgKind::Hidden(hidden_kind(other).unwrap_or_else(|| panic!("value kind {other}"))),
    };
    KernelArg {
        name: s(".name"),
        type_name: s(".type_name"),
        offset: uint(m, ".offset"),
        size: uint(m, ".size"),
        kind,
        is_const: flag(".is_const"),
        is_restrict: flag(".is_restrict"),
        is_volatile: flag(".is_volatile"),
    }
}

/// A kernel with the resources clang reported in its metadata, plus the inputs its source uses
/// (kernels.cl): the metadata does not list those.
fn kernel_from_metadata(arch: Arch, m: &Value, code: &[u8]) -> Kernel {
    let name = m.get(".name").and_then(Value::as_str).unwrap();
    let mut k = Kernel::new(arch, name, code.to_vec());
    let r = &mut k.resources;
    r.wave_size = if uint(m, ".wavefront_size") == 64 { WaveSize::Wave64 } else { WaveSize::Wave32 };
    r.agpr_count = m.get(".agpr_count").and_then(Value::as_u64).unwrap_or(0) as u32;
    // `.vgpr_count` is the unified count on CDNA: arch VGPRs rounded to 4, plus the AGPRs.
    r.vgpr_count = uint(m, ".vgpr_count") - r.agpr_count;
    r.sgpr_count = uint(m, ".sgpr_count");
    r.lds_bytes = uint(m, ".group_segment_fixed_size");
    r.private_bytes = uint(m, ".private_segment_fixed_size");
    r.sgpr_spill_count = uint(m, ".sgpr_spill_count");
    r.vgpr_spill_count = uint(m, ".vgpr_spill_count");
    r.uses_dynamic_stack = m.get(".uses_dynamic_stack").and_then(Value::as_bool).unwrap();
    if let Some(wgp) = m.get(".workgroup_processor_mode").and_then(Value::as_u64) {
        r.wgp_mode = wgp != 0;
    }
    match name.trim_end_matches("_w64") {
        "add1" | "scratch" | "acc" | "acc_wide" => {}
        "lds3d" => {
            r.workgroup_id = [true; 3];
            r.workitem_id_dims = 3;
        }
        "ptrs" => {
            r.user_sgprs = UserSgprs { dispatch_ptr: true, queue_ptr: true, kernarg_segment_ptr: true, ..r.user_sgprs }
        }
        other => panic!("fixture kernel {other} is not described in this test"),
    }
    k.args = m.get(".args").and_then(Value::as_array).unwrap().iter().map(arg_from_metadata).collect();
    k.kernarg_segment_size = uint(m, ".kernarg_segment_size");
    k.kernarg_segment_align = uint(m, ".kernarg_segment_align");
    k.max_flat_workgroup_size = uint(m, ".max_flat_workgroup_size");
    k.reqd_workgroup_size = m.get(".reqd_workgroup_size").and_then(Value::as_array).map(|v| {
        let d = |i: usize| v[i].as_u64().unwrap() as u32;
        [d(0), d(1), d(2)]
    });
    if let Some(lang) = m.get(".language").and_then(Value::as_str) {
        let v = m.get(".language_version").and_then(Value::as_array).unwrap();
        k.language = Some((lang.to_string(), [v[0].as_u64().unwrap() as u32, v[1].as_u64().unwrap() as u32]));
    }
    k
}

#[test]
fn descriptor_words_match_clang_fixtures() {
    for arch in Arch::ALL {
        let an = arch.name();
        let clang_bytes = fixture(arch);
        let clang = parse(&clang_bytes);
        let (clang_desc, clang_doc) = metadata_of(&clang);
        let md = kernels_of(&clang_doc);
        assert!(md.len() >= 4, "{an}: fixture kernels");

        let kernels: Vec<Kernel> = md
            .iter()
            .map(|m| {
                let name = m.get(".name").and_then(Value::as_str).unwrap();
                let f = clang.dynamic_symbols().find(|s| s.name() == Ok(name)).unwrap();
                kernel_from_metadata(arch, m, bytes_at(&clang, ".text", f.address(), f.size() as usize))
            })
            .collect();
        let ours_bytes = write_code_object(arch, &kernels).unwrap();
        let ours = parse(&ours_bytes);

        for k in &kernels {
            let kd_name = format!("{}.kd", k.name);
            let kd_of = |obj: &ElfFile64<'_, Endianness>| {
                let s = obj.dynamic_symbols().find(|s| s.name() == Ok(kd_name.as_str())).unwrap();
                KernelDescriptor::from_bytes(bytes_at(obj, ".rodata", s.address(), 64)).unwrap()
            };
            let (theirs, mine) = (kd_of(&clang), kd_of(&ours));
            let words = |kd: &KernelDescriptor| {
                [kd.compute_pgm_rsrc1, kd.compute_pgm_rsrc2, kd.compute_pgm_rsrc3, kd.kernel_code_properties.into()]
            };
            assert_eq!(
                words(&mine),
                words(&theirs),
                "{an} {}: [rsrc1, rsrc2, rsrc3, kernel_code_properties] differ from clang's",
                k.name
            );
            let sizes = |kd: &KernelDescriptor| {
                (kd.group_segment_fixed_size, kd.private_segment_fixed_size, kd.kernarg_size, kd.kernarg_preload)
            };
            assert_eq!(sizes(&mine), sizes(&theirs), "{an} {}", k.name);
        }

        // The whole metadata note, byte for byte.
        let (our_desc, _) = metadata_of(&ours);
        if our_desc != clang_desc {
            let (a, b) = (decode(&our_desc), clang_doc);
            panic!("{an}: metadata differs from clang's\nours:  {a:?}\nclang: {b:?}");
        }
        // Same ELF identity as clang's.
        assert_eq!(ours.flags(), clang.flags(), "{an}: e_ident / e_flags");
    }
}

#[test]
fn hidden_args_v5_match_clang_layout() {
    let clang_bytes = fixture(Arch::Gfx942);
    let clang = parse(&clang_bytes);
    let (_, doc) = metadata_of(&clang);
    let ptrs = kernels_of(&doc).iter().find(|k| k.get(".name").and_then(Value::as_str) == Some("ptrs")).unwrap();
    let clang_args: Vec<KernelArg> =
        ptrs.get(".args").and_then(Value::as_array).unwrap().iter().skip(1).map(arg_from_metadata).collect();
    assert_eq!(clang_args, baregpu_compiler::codeobj::hidden_args_v5(8));
    assert_eq!(uint(ptrs, ".kernarg_segment_size"), 8 + baregpu_compiler::codeobj::HIDDEN_ARGS_V5_SIZE);
}

#[test]
fn target_features() {
    let opts = CodeObjectOptions { xnack: TargetFeature::Off, sramecc: TargetFeature::On };
    let bytes = write_code_object_with(Arch::Gfx942, &opts, &test_kernels(Arch::Gfx942, CDNA_CODE)).unwrap();
    let obj = parse(&bytes);
    // clang-22 -mcpu=gfx942:sramecc+:xnack- gives e_flags 0xe4c.
    assert!(matches!(obj.flags(), FileFlags::Elf { e_flags: 0xe4c, .. }));
    let (_, doc) = metadata_of(&obj);
    assert_eq!(doc.get("amdhsa.target").and_then(Value::as_str), Some("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"));

    let opts = CodeObjectOptions { xnack: TargetFeature::On, ..CodeObjectOptions::default() };
    let err = write_code_object_with(Arch::Gfx1100, &opts, &test_kernels(Arch::Gfx1100, GFX1100_CODE)).unwrap_err();
    assert_eq!(err, CodeObjectError::UnsupportedTargetFeature { arch: "gfx1100", feature: "xnack" });
}

#[test]
fn gfx1100_wave32_pads_user_sgprs() {
    let [a, b] = <[Kernel; 2]>::try_from(test_kernels(Arch::Gfx1100, GFX1100_CODE)).unwrap();
    assert_eq!(a.user_sgpr_count(Arch::Gfx1100), 15);
    assert_eq!(b.user_sgpr_count(Arch::Gfx1100), 2, "wave64 is not padded");
    assert_eq!(a.user_sgpr_count(Arch::Gfx1201), 2, "gfx12 is not padded");
    let mut c = a.clone();
    c.resources.user_sgpr_count = Some(4);
    assert_eq!(c.user_sgpr_count(Arch::Gfx1100), 4, "an explicit count wins");
}

/// Writes one modified `add_one` for gfx1100 and returns the error.
fn bad(arch: Arch, f: impl FnOnce(&mut Kernel)) -> CodeObjectError {
    let code = if matches!(arch, Arch::Gfx942 | Arch::Gfx950) { CDNA_CODE } else { GFX1100_CODE };
    let mut k = test_kernels(arch, code).remove(0);
    f(&mut k);
    write_code_object(arch, &[k]).expect_err("bad input must be rejected")
}

#[test]
fn bad_input_is_a_typed_error() {
    use CodeObjectError as E;
    let g11 = Arch::Gfx1100;

    let e = bad(g11, |k| k.name = "add\0one".into());
    assert!(matches!(e, E::InvalidName { .. }) && e.to_string().contains("NUL"), "{e}");
    assert!(matches!(bad(g11, |k| k.name.clear()), E::InvalidName { .. }));
    let e = bad(g11, |k| k.code.clear());
    assert_eq!(e, E::EmptyCode { kernel: "add_one".into() });
    assert_eq!(e.to_string(), "kernel `add_one`: machine code is empty");
    assert!(matches!(bad(g11, |k| k.code.push(0)), E::MisalignedCode { len: 45, .. }));

    let e = bad(g11, |k| k.resources.vgpr_count = 300);
    assert!(matches!(e, E::RegisterLimit { what: "VGPR", count: 300, limit: 256, .. }), "{e}");
    assert_eq!(e.to_string(), "kernel `add_one`: VGPR count 300 exceeds the gfx1100 limit of 256");
    assert!(matches!(bad(g11, |k| k.resources.agpr_count = 4), E::Unsupported { .. }));
    let e = bad(Arch::Gfx942, |k| {
        k.resources.vgpr_count = 256;
        k.resources.agpr_count = 257;
    });
    assert!(matches!(e, E::RegisterLimit { what: "AGPR", .. }), "{e}");
    assert!(matches!(bad(Arch::Gfx942, |k| k.resources.sgpr_count = 109), E::RegisterLimit { what: "SGPR", .. }));
    let e = bad(Arch::Gfx942, |k| k.resources.lds_bytes = 65536 + 4);
    assert!(matches!(e, E::LdsLimit { limit: 65536, .. }), "{e}");
    // gfx950 has 160 KiB.
    let mut k = test_kernels(Arch::Gfx950, CDNA_CODE).remove(0);
    k.resources.lds_bytes = 160 * 1024;
    write_code_object(Arch::Gfx950, &[k]).unwrap();

    // Scratch per work-item: LLVM's stack frame limits (the largest TMPRING_SIZE.WAVESIZE).
    for (arch, wave, limit) in [
        (g11, WaveSize::Wave32, 262_136),
        (g11, WaveSize::Wave64, 131_068),
        (Arch::Gfx1201, WaveSize::Wave32, 2_097_144),
        (Arch::Gfx942, WaveSize::Wave64, 131_056),
    ] {
        let code = match arch {
            Arch::Gfx1100 => GFX1100_CODE,
            Arch::Gfx1201 => GFX1201_CODE,
            _ => CDNA_CODE,
        };
        let mut k = test_kernels(arch, code).remove(0);
        k.resources.wave_size = wave;
        k.resources.private_bytes = limit;
        write_code_object(arch, &[k.clone()]).unwrap();
        k.resources.private_bytes = limit + 1;
        let e = write_code_object(arch, &[k]).unwrap_err();
        assert!(matches!(e, E::InvalidField { field: "private_segment_fixed_size", .. }), "{e}");
    }
    let e = bad(g11, |k| k.resources.private_bytes = 1_048_576);
    assert_eq!(
        e.to_string(),
        "kernel `add_one`: invalid private_segment_fixed_size: 1048576 bytes of scratch per work-item exceed \
         gfx1100's 262136 (wave32)"
    );

    let e = bad(Arch::Gfx942, |k| k.resources.wave_size = WaveSize::Wave32);
    assert_eq!(e.to_string(), "kernel `add_one`: wave32 is not supported on gfx942");
    assert!(matches!(bad(Arch::Gfx1201, |k| k.resources.ieee_mode = true), E::Unsupported { .. }));
    assert!(matches!(bad(g11, |k| k.resources.tg_split = true), E::Unsupported { .. }));
    assert!(matches!(bad(g11, |k| k.resources.user_sgprs.flat_scratch_init = true), E::Unsupported { .. }));
    assert!(matches!(bad(g11, |k| k.resources.user_sgpr_count = Some(1)), E::UserSgprCount { count: 1, .. }));
    assert!(matches!(bad(g11, |k| k.resources.user_sgpr_count = Some(17)), E::UserSgprCount { count: 17, .. }));
    assert!(matches!(bad(g11, |k| k.resources.workitem_id_dims = 4), E::InvalidField { .. }));
    assert!(matches!(bad(g11, |k| k.kernarg_segment_align = 12), E::InvalidField { .. }));
    assert!(matches!(bad(g11, |k| k.resources.inst_pref_size = Some(64)), E::InvalidField { .. }));
    let e = bad(g11, |k| k.reqd_workgroup_size = Some([64, 32, 1]));
    assert!(matches!(e, E::InvalidField { field: "reqd_workgroup_size", .. }), "{e}");

    let e = bad(g11, |k| k.args[1].offset = 4);
    assert!(
        matches!(e, E::ArgOverlap { index: 1, other: 0, start: 4, end: 12, other_start: 0, other_end: 8, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("argument 1 (`in`)"), "{e}");
    let e = bad(g11, |k| k.kernarg_segment_size = 12);
    assert!(matches!(e, E::ArgOutOfBounds { index: 1, offset: 8, size: 8, segment_size: 12, .. }), "{e}");
    let e = bad(g11, |k| k.args[0].offset = u32::MAX);
    assert!(matches!(e, E::ArgOutOfBounds { index: 0, .. }), "{e}");
    assert!(matches!(bad(g11, |k| k.args[0].size = 0), E::InvalidArg { index: 0, .. }));
    assert!(matches!(bad(g11, |k| k.args[0].name = Some("o\0ut".into())), E::InvalidArg { .. }));

    let k = test_kernels(g11, GFX1100_CODE).remove(0);
    assert_eq!(write_code_object(g11, &[k.clone(), k]), Err(E::DuplicateKernel("add_one".into())));
    assert_eq!(write_code_object(g11, &[]), Err(E::NoKernels { arch: "gfx1100" }));
}

#[test]
fn single_kernel_minimal_object() {
    // One s_endpgm kernel with no arguments: still a complete, parseable object.
    let k = Kernel::new(Arch::Gfx1201, "nop", vec![0x00, 0x00, 0xb0, 0xbf]);
    let bytes = write_code_object(Arch::Gfx1201, &[k]).unwrap();
    let obj = parse(&bytes);
    let kd = obj.dynamic_symbols().find(|s| s.name() == Ok("nop.kd")).unwrap();
    let kd = KernelDescriptor::from_bytes(bytes_at(&obj, ".rodata", kd.address(), 64)).unwrap();
    assert_eq!(kd.kernarg_size, 0);
    assert!(kd.kernel_code_entry_byte_offset > 0, "code follows the descriptors");
    let (_, doc) = metadata_of(&obj);
    let m = &kernels_of(&doc)[0];
    assert_eq!(m.get(".args"), Some(&Value::Array(vec![])));
    assert_eq!(uint(m, ".kernarg_segment_align"), 4);
}

#[test]
fn runtime_loader_loads_the_object() {
    // The project's own loader (baregpu_runtime::program) must find every kernel through `NAME.kd`.
    for e in &EXPECT {
        let arch = e.arch.name();
        let kernels = test_kernels(e.arch, e.code);
        let bytes = write_code_object(e.arch, &kernels).unwrap();
        let co = baregpu_runtime::program::CodeObject::parse(&bytes).unwrap_or_else(|err| panic!("{arch}: {err}"));
        assert_eq!((co.arch.as_str(), co.version, co.target.as_str()), (arch, 5, e.target));
        assert!(co.relocs.is_empty(), "{arch}: no relocations needed");
        let obj = parse(&bytes);
        for k in &kernels {
            let loaded = co.kernel(&k.name).unwrap();
            let func = obj.dynamic_symbols().find(|s| s.name() == Ok(k.name.as_str())).unwrap();
            assert_eq!(loaded.entry_offset, func.address(), "{arch} {}", k.name);
            assert_eq!(loaded.entry_offset % 256, 0);
            let entry = loaded.entry_offset as usize;
            assert_eq!(&co.image[entry..entry + k.code.len()], k.code.as_slice());
            assert_eq!(loaded.meta.args.len(), 2);
            assert_eq!(loaded.meta.kernarg_segment_size, 16);
            assert_eq!(loaded.meta.group_segment_fixed_size, k.resources.lds_bytes);
            assert_eq!(loaded.meta.wavefront_size, k.resources.wave_size.lanes());
        }
    }
}
