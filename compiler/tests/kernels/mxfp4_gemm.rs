//! The gfx950 MXFP4 GEMM kernels: every tile builds, loads with the runtime's loader, and
//! llvm-objdump-22 reads back exactly the builder's instructions with the FP4 formats set;
//! llvm-mc-22 assembles that disassembly to the same bytes (where the LLVM tools are installed;
//! skipped with a reason otherwise). Prints the instruction counts per tile.

use std::io::Write;
use std::process::{Command, Stdio};

use baregpu_compiler::isa::{decode_all, disassemble, Arch};
use baregpu_compiler::kernels::mxfp4_gemm::{self, Mem, Tile, KERNARG_BYTES};
use baregpu_runtime::program::CodeObject;

fn tool(name: &str) -> bool {
    match Command::new(name).arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            println!("skipped: {name} is not installed");
            false
        }
    }
}

fn run(cmd: &mut Command, stdin: &[u8]) -> Vec<u8> {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn tmp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("mxfp4-gemm-test-{}-{name}", std::process::id()))
}

#[test]
fn every_tile_builds_with_its_counts() {
    for (t, mem) in Tile::ALL.into_iter().flat_map(|t| Mem::ALL.map(|m| (t, m))) {
        let b = mxfp4_gemm::build_with(t, mem).unwrap();
        let (c, l) = (b.counts(), b.loop_counts());
        println!(
            "{} {}: {} instructions ({} bytes), {} VGPRs {} AGPRs; kernel: {} MFMA {} loads {} stores {} waits; \
             per K step: {} MFMA {} loads {} waits {} SALU",
            t.name(),
            mem.name(),
            c.total,
            c.bytes,
            b.builder.usage().vgprs,
            b.builder.usage().agprs,
            c.mfma,
            c.loads,
            c.stores,
            c.waits,
            l.mfma / 4,
            l.loads as f64 / 4.0,
            l.waits / 4,
            l.salu as f64 / 4.0
        );
        assert_eq!(l.mfma as u32, 4 * t.mfmas_per_step());
        // One wait for the step's loads (and with A in the LDS one for its LDS reads) per step.
        assert_eq!(l.waits, if mem == Mem::Lds { 8 } else { 4 });
        assert_eq!(b.builder.usage().agprs, 4 * t.mfmas_per_step());
        assert!(b.builder.usage().vgprs <= 256);
        assert_eq!(b.code.len(), b.builder.size());
    }
}

#[test]
fn the_code_object_loads_with_the_runtime() {
    let elf = mxfp4_gemm::code_object(&Tile::ALL, Mem::Buffer).unwrap();
    let co = CodeObject::parse(&elf).unwrap();
    assert_eq!(co.arch, "gfx950");
    for t in Tile::ALL {
        let k = co.kernel(&t.kernel_name()).unwrap();
        let code = mxfp4_gemm::build_with(t, Mem::Buffer).unwrap().code;
        let at = k.entry_offset as usize;
        assert!(co.image[at..at + code.len()] == code[..], "{}: the loaded image is not the builder's code", t.name());
        assert_eq!(k.meta.wavefront_size, 64);
        assert_eq!(k.meta.kernarg_segment_size, KERNARG_BYTES);
        assert_eq!(k.meta.max_flat_workgroup_size, 256);
        assert_eq!(k.meta.group_segment_fixed_size, 0);
        // Staging A through the LDS takes two steps of A: 2 x tile_m/16 KiB.
        let lds = CodeObject::parse(&mxfp4_gemm::code_object(&[t], Mem::Lds).unwrap()).unwrap();
        let lk = lds.kernel(&t.kernel_name()).unwrap();
        assert_eq!(lk.meta.group_segment_fixed_size, 2 * t.m() / 16 * 1024);
        let names: Vec<_> = k.meta.args.iter().filter(|a| a.is_explicit()).map(|a| a.name.clone().unwrap()).collect();
        assert_eq!(names, ["C", "A", "B", "scale_A", "scale_B", "M", "N", "K"]);
        // Arch VGPRs rounded to 4, then the AGPRs.
        let vgprs = mxfp4_gemm::build_with(t, Mem::Buffer).unwrap().builder.usage().vgprs;
        assert_eq!(k.meta.vgpr_count, vgprs.div_ceil(4) * 4 + 4 * t.mfmas_per_step(), "{}", t.name());
    }
}

#[test]
fn every_mfma_is_fp4_with_its_scale_bytes() {
    for (t, mem) in Tile::ALL.into_iter().flat_map(|t| Mem::ALL.map(|m| (t, m))) {
        let b = mxfp4_gemm::build_with(t, mem).unwrap();
        let insts = decode_all(Arch::Gfx950, &b.code).unwrap();
        let mut seen = 0;
        for (_, i) in &insts {
            if i.mnemonic().starts_with("v_mfma") {
                assert_eq!((i.f("cbsz"), i.f("blgp")), (4, 4), "{}", disassemble(i));
                let text = disassemble(i);
                assert!(text.contains("a[") && text.contains("cbsz:4 blgp:4"), "{text}");
                seen += 1;
            }
        }
        assert_eq!(seen, 4 * t.mfmas_per_step() as usize);
    }
}

#[test]
fn llvm_reads_back_the_builders_code() {
    if !tool("llvm-objdump-22") || !tool("llvm-mc-22") {
        return;
    }
    for mem in Mem::ALL {
        llvm_reads_back(mem);
    }
}

fn llvm_reads_back(mem: Mem) {
    let path = tmp(&format!("all-{}.hsaco", mem.name()));
    std::fs::write(&path, mxfp4_gemm::code_object(&Tile::ALL, mem).unwrap()).unwrap();
    let out = run(Command::new("llvm-objdump-22").args(["-d", "--mcpu=gfx950", "--no-show-raw-insn"]).arg(&path), b"");
    let _ = std::fs::remove_file(&path);
    let out = String::from_utf8(out).unwrap();
    assert!(!out.contains("<unknown>"));
    for t in Tile::ALL {
        let name = t.kernel_name();
        let b = mxfp4_gemm::build_with(t, mem).unwrap();
        let body = out.split(&format!("<{name}>:")).nth(1).unwrap();
        let lines: Vec<&str> = body
            .lines()
            .map(|l| l.split("//").next().unwrap().trim())
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && l.contains('_'))
            .take(b.builder.len())
            .collect();
        let mnemonics: Vec<&str> = lines.iter().map(|l| l.split_whitespace().next().unwrap()).collect();
        let ours: Vec<&str> = b.builder.instructions().iter().map(|i| i.inst.mnemonic()).collect();
        assert_eq!(mnemonics, ours, "{name}");
        let mfma = lines.iter().filter(|l| l.starts_with("v_mfma_scale")).count();
        assert_eq!(mfma, 4 * t.mfmas_per_step() as usize);
        assert!(lines.iter().filter(|l| l.starts_with("v_mfma")).all(|l| l.contains("cbsz:4 blgp:4")), "{name}");
        // llvm-mc assembles objdump's text of the MFMAs (cbsz/blgp, op_sel bytes) to our bytes.
        let text: String = lines.iter().filter(|l| l.starts_with("v_mfma")).map(|l| format!("{l}\n")).collect();
        let asm = String::from_utf8(run(
            Command::new("llvm-mc-22").args(["-arch=amdgcn", "-mcpu=gfx950", "-show-encoding"]),
            text.as_bytes(),
        ))
        .unwrap();
        let theirs: Vec<u8> = asm
            .lines()
            .filter_map(|l| l.split("encoding: [").nth(1))
            .flat_map(|e| {
                e.trim_end_matches(']')
                    .split(',')
                    .map(|x| u8::from_str_radix(x.trim_start_matches("0x"), 16).unwrap())
                    .collect::<Vec<_>>()
            })
            .collect();
        let ours: Vec<u8> = b
            .builder
            .instructions()
            .iter()
            .filter(|e| e.inst.mnemonic().starts_with("v_mfma"))
            .flat_map(|e| b.code[e.at..e.at + e.inst.size()].to_vec())
            .collect();
        assert_eq!(theirs, ours, "{name}");
    }
}
