//! The hand-written demo kernels (matmul, vector add): their code objects load with the runtime's
//! loader, llvm-objdump-22 disassembles them, and llvm-mc-22 assembles the builder's listing to
//! the very same bytes (where the LLVM tools are installed; skipped with a reason otherwise).

#[path = "kernels/mxfp4_gemm.rs"]
mod mxfp4_gemm;

use std::io::Write;
use std::process::{Command, Stdio};

use baregpu_compiler::isa::builder::Builder;
use baregpu_compiler::isa::{decode_all, disassemble, Arch};
use baregpu_compiler::kernels::{self, KernelError, MATMUL_NAME, VECTOR_ADD_NAME};
use baregpu_runtime::program::kernargs::{self, ArgValue, Launch};
use baregpu_runtime::program::CodeObject;

const RDNA: [Arch; 2] = [Arch::Gfx1100, Arch::Gfx1201];
/// Every architecture the kernels are built for: RDNA (wave32) and CDNA (wave64).
const ALL: [Arch; 4] = [Arch::Gfx1100, Arch::Gfx1201, Arch::Gfx942, Arch::Gfx950];

fn cdna(arch: Arch) -> bool {
    matches!(arch, Arch::Gfx942 | Arch::Gfx950)
}

type Build = fn(Arch) -> Result<Builder, KernelError>;
type Object = fn(Arch) -> Result<Vec<u8>, KernelError>;
const KERNELS: [(&str, Build, Object); 2] = [
    (MATMUL_NAME, kernels::matmul_builder, kernels::matmul_code_object),
    (VECTOR_ADD_NAME, kernels::vector_add_builder, kernels::vector_add_code_object),
];

fn tool(name: &str) -> bool {
    match Command::new(name).arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            println!("skipped: {name} is not installed");
            false
        }
    }
}

fn run(cmd: &mut Command, stdin: &[u8]) -> Result<Vec<u8>, String> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(out.stdout)
}

fn tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("kernels-test-{}-{name}", std::process::id()))
}

/// llvm-mc-22's `.text` for `src` (labels resolved).
fn llvm_mc_text(arch: Arch, src: &str, tag: &str) -> Vec<u8> {
    let (obj, bin) = (tmp(&format!("{tag}.o")), tmp(&format!("{tag}.bin")));
    let mcpu = format!("-mcpu={}", arch.name());
    run(
        Command::new("llvm-mc-22").args(["-triple=amdgcn-amd-amdhsa", &mcpu, "-filetype=obj", "-o"]).arg(&obj),
        src.as_bytes(),
    )
    .unwrap_or_else(|e| panic!("{}: llvm-mc rejected the listing:\n{src}\n{e}", arch.name()));
    run(Command::new("llvm-objcopy-22").args(["-O", "binary", "--only-section=.text"]).arg(&obj).arg(&bin), b"")
        .unwrap();
    let bytes = std::fs::read(&bin).unwrap();
    let _ = std::fs::remove_file(&obj);
    let _ = std::fs::remove_file(&bin);
    bytes
}

#[test]
fn builder_bytes_equal_llvm_mc() {
    if !tool("llvm-mc-22") || !tool("llvm-objcopy-22") {
        return;
    }
    for arch in ALL {
        for (name, build, _) in KERNELS {
            let b = build(arch).unwrap();
            let code = b.finish().unwrap();
            // The suffixed listing (the builder's choices spelled out) and the listing as written
            // (llvm-mc makes the e32/e64 and literal choices itself) must both give our bytes.
            for (tag, listing) in [("listing", b.listing()), ("written", b.listing_as_written())] {
                let want = llvm_mc_text(arch, &listing, &format!("{name}-{}-{tag}", arch.name()));
                if want != code {
                    let first = want.iter().zip(&code).position(|(a, b)| a != b).unwrap_or(want.len().min(code.len()));
                    panic!(
                        "{} {name} ({tag}): builder {} bytes, llvm-mc {} bytes, first difference at byte {first}\n{listing}",
                        arch.name(),
                        code.len(),
                        want.len()
                    );
                }
            }
        }
    }
}

/// The kernels as the text-rendering builder wrote them, before the typed builder replaced it
/// (tests/isa/builder_kernels).
fn old_builder_text(name: &str, arch: Arch) -> String {
    let p = format!("{}/../tests/isa/builder_kernels/{name}.{}.s", env!("CARGO_MANIFEST_DIR"), arch.name());
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn builder_emits_the_existing_kernels_identically() {
    // The typed builder (no text) gives the bytes llvm-mc-22 assembles from the program's text
    // as the old builder wrote it.
    if !tool("llvm-mc-22") || !tool("llvm-objcopy-22") {
        return;
    }
    for arch in RDNA {
        for (name, build, _) in KERNELS {
            let code = build(arch).unwrap().finish().unwrap();
            let text = old_builder_text(name, arch);
            let want = llvm_mc_text(arch, &text, &format!("{name}-{}-old", arch.name()));
            assert_eq!(code.len(), want.len(), "{} {name}", arch.name());
            let first = want.iter().zip(&code).position(|(a, b)| a != b);
            assert_eq!(first, None, "{} {name}: first difference at byte {first:?}\n{text}", arch.name());
        }
    }
}

#[test]
fn code_objects_load_with_the_runtime() {
    for arch in ALL {
        for (name, build, object) in KERNELS {
            let elf = object(arch).unwrap();
            let co = CodeObject::parse(&elf).unwrap_or_else(|e| panic!("{} {name}: {e}", arch.name()));
            assert_eq!(co.arch, arch.name());
            assert_eq!(co.kernels.len(), 1);
            let k = co.kernel(name).unwrap();
            // The loaded image holds the builder's bytes at the entry point.
            let code = build(arch).unwrap().finish().unwrap();
            let at = k.entry_offset as usize;
            assert_eq!(at % 256, 0);
            assert_eq!(&co.image[at..at + code.len()], &code[..], "{} {name}", arch.name());
            assert_eq!(k.meta.wavefront_size, if cdna(arch) { 64 } else { 32 }, "{}", arch.name());
            assert_eq!(k.meta.private_segment_fixed_size, 0);
            let explicit: Vec<_> = k.meta.args.iter().filter(|a| a.is_explicit()).collect();
            if name == MATMUL_NAME {
                assert_eq!(k.meta.group_segment_fixed_size, 2048);
                assert_eq!(k.meta.kernarg_segment_size, 36);
                assert_eq!(k.meta.vgpr_count, 48);
                assert_eq!(k.meta.max_flat_workgroup_size, 256);
                let names: Vec<_> = explicit.iter().map(|a| a.name.clone().unwrap()).collect();
                assert_eq!(names, ["A", "B", "C", "M", "N", "K"]);
                let args = [
                    ArgValue::Pointer(0x1000),
                    ArgValue::Pointer(0x2000),
                    ArgValue::Pointer(0x3000),
                    ArgValue::u32(64),
                    ArgValue::u32(32),
                    ArgValue::u32(48),
                ];
                let ka = kernargs::build(&k.meta, &args, &Launch::new([2, 4, 1], [16, 16, 1])).unwrap();
                assert_eq!(&ka[16..24], &0x3000u64.to_le_bytes());
                assert_eq!(&ka[32..36], &48u32.to_le_bytes());
            } else {
                assert_eq!(k.meta.group_segment_fixed_size, 0);
                assert_eq!(k.meta.kernarg_segment_size, 28);
                assert_eq!(explicit.len(), 4);
                let args = [ArgValue::Pointer(1), ArgValue::Pointer(2), ArgValue::Pointer(3), ArgValue::u32(1000)];
                kernargs::build(&k.meta, &args, &Launch::new([4, 1, 1], [256, 1, 1])).unwrap();
            }
            // The SGPR count covers the hardware-initialised SGPRs (kernarg pointer, workgroup
            // ids after the gfx1100 user-SGPR padding).
            assert!(k.meta.sgpr_count >= if arch == Arch::Gfx1100 { 16 } else { 2 }, "{}", k.meta.sgpr_count);
        }
    }
}

#[test]
fn llvm_objdump_disassembles_the_code_objects() {
    if !tool("llvm-objdump-22") {
        return;
    }
    for arch in ALL {
        for (name, build, object) in KERNELS {
            let path = tmp(&format!("{name}-{}.hsaco", arch.name()));
            std::fs::write(&path, object(arch).unwrap()).unwrap();
            let out =
                run(Command::new("llvm-objdump-22").args(["-d", &format!("--mcpu={}", arch.name())]).arg(&path), b"");
            let syms = run(Command::new("llvm-objdump-22").arg("-t").arg(&path), b"");
            let _ = std::fs::remove_file(&path);
            let out = String::from_utf8(out.unwrap()).unwrap();
            let syms = String::from_utf8(syms.unwrap()).unwrap();
            assert!(syms.contains(&format!(" {name}.kd")), "{syms}");
            assert!(out.contains(&format!("<{name}>:")), "{out}");
            // The instructions objdump lists for the kernel are the builder's, in order.
            let b = build(arch).unwrap();
            let body = out.split(&format!("<{name}>:")).nth(1).unwrap();
            let mnemonics: Vec<&str> = body
                .lines()
                .filter_map(|l| l.split_whitespace().next())
                .filter(|m| m.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && m.contains('_'))
                .take(b.len())
                .collect();
            let ours: Vec<&str> = b.instructions().iter().map(|i| i.inst.mnemonic()).collect();
            assert_eq!(mnemonics, ours, "{} {name}:\n{out}", arch.name());
            assert!(!body.contains("<unknown>"), "{out}");
        }
    }
}

#[test]
fn matmul_structure() {
    for arch in ALL {
        // gfx9 spells the LDS and global accesses ds_read/ds_write and *_dword.
        let (ds_load, ds_store, global) = if cdna(arch) {
            ("ds_read", "ds_write", "global_load_dword")
        } else {
            ("ds_load", "ds_store", "global_load_b32")
        };
        let b = kernels::matmul_builder(arch).unwrap();
        let code = b.finish().unwrap();
        let insts = decode_all(arch, &code).unwrap();
        let text: Vec<String> = insts.iter().map(|(_, i)| disassemble(i)).collect();
        let count = |p: &str| text.iter().filter(|t| t.starts_with(p)).count();
        assert_eq!(count("v_fmac_f32"), 16);
        assert_eq!(count(&format!("{ds_load}_b128")), 4);
        assert_eq!(count(&format!("{ds_load}_b32")), 16);
        assert_eq!(count(&format!("{ds_store}_b32")), 2);
        assert_eq!(count("global_store_"), 1);
        let barriers = if arch == Arch::Gfx1201 { count("s_barrier_wait") } else { count("s_barrier") };
        assert_eq!(barriers, 2);
        // The loop branch goes back to the first global load; the skip branch to the epilogue.
        let loop_at = insts.iter().position(|(_, i)| i.mnemonic() == global).unwrap();
        let branches: Vec<_> = insts.iter().filter(|(_, i)| i.mnemonic() == "s_cbranch_scc1").collect();
        assert_eq!(branches.len(), 2);
        let target = |(at, i): &(usize, baregpu_compiler::isa::Instruction)| {
            (*at as i64 + i.size() as i64 + 4 * (i.f("simm16") as u16 as i16 as i64)) as usize
        };
        assert_eq!(target(branches[1]), insts[loop_at].0);
        let store_at = insts.iter().rposition(|(_, i)| i.mnemonic() == "v_mul_lo_u32").unwrap();
        assert_eq!(target(branches[0]), insts[store_at].0);
        assert_eq!(text.last().unwrap(), "s_endpgm");
        // Workgroup ids: after the padded user SGPRs on gfx1100, after the kernarg pointer on
        // CDNA, ttmp9/ttmp7 on gfx1201.
        let src = b.listing();
        if arch == Arch::Gfx1100 {
            assert!(src.contains("s_lshl_b32 s18, s14, 4") && src.contains("s_lshl_b32 s17, s15, 4"), "{src}");
        } else if cdna(arch) {
            assert!(src.contains("s_lshl_b32 s18, s2, 4") && src.contains("s_lshl_b32 s17, s3, 4"), "{src}");
        } else {
            assert!(src.contains("ttmp9") && src.contains("ttmp7"), "{src}");
        }
    }
}
