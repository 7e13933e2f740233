//! The typed instruction builder: encodings against llvm-mc-22 (where installed), automatic
//! encoding choice, labels and branch fixups, register checks, resource accounting.

use std::io::Write;
use std::process::{Command, Stdio};

use baregpu_isa::builder::*;
use baregpu_isa::{decode_all, disassemble, ops, Arch};

const LLVM_MC: &str = "llvm-mc-22";

fn run(cmd: &mut Command, stdin: &str) -> Result<Vec<u8>, String> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(out.stdout)
}

/// Assembles `src` with llvm-mc: the bytes of each instruction (branch fixups applied, from the
/// object file's `.text`). `None` (with a printed reason) when llvm-mc is not installed.
fn llvm_mc(arch: Arch, src: &str) -> Option<Result<Vec<Vec<u8>>, String>> {
    if Command::new(LLVM_MC).arg("--version").output().is_err() {
        println!("skipped: {LLVM_MC} is not installed");
        return None;
    }
    let mcpu = format!("-mcpu={}", arch.name());
    let mc = || {
        let mut c = Command::new(LLVM_MC);
        c.args(["-triple=amdgcn-amd-amdhsa", &mcpu]);
        c
    };
    // Per-instruction sizes from -show-encoding (unresolved fixup bytes print as `A`).
    let text = match run(mc().arg("-show-encoding"), src) {
        Ok(t) => String::from_utf8_lossy(&t).into_owned(),
        Err(e) => return Some(Err(e)),
    };
    let sizes: Vec<usize> = text
        .lines()
        .filter_map(|l| l.split_once("encoding: [").map(|(_, e)| e.split(']').next().unwrap().split(',').count()))
        .collect();
    // The bytes from an object file.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir();
    let obj = dir.join(format!("builder-test-{}-{n}.o", std::process::id()));
    let bin = dir.join(format!("builder-test-{}-{n}.bin", std::process::id()));
    let r = run(mc().args(["-filetype=obj", "-o"]).arg(&obj), src).and_then(|_| {
        run(Command::new("llvm-objcopy-22").args(["-O", "binary", "--only-section=.text"]).arg(&obj).arg(&bin), "")
    });
    let bytes = r.and_then(|_| std::fs::read(&bin).map_err(|e| e.to_string()));
    let _ = std::fs::remove_file(&obj);
    let _ = std::fs::remove_file(&bin);
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => return Some(Err(e)),
    };
    if sizes.iter().sum::<usize>() != bytes.len() {
        return Some(Err(format!("sizes {} != .text {}", sizes.iter().sum::<usize>(), bytes.len())));
    }
    let mut at = 0;
    let mut out = Vec::new();
    for s in sizes {
        out.push(bytes[at..at + s].to_vec());
        at += s;
    }
    Some(Ok(out))
}

/// Compares each builder instruction with llvm-mc (the as-written text, so that llvm-mc makes
/// the automatic choices itself, and the suffixed text), and the whole `finish()` output with
/// llvm-mc's concatenation. Returns false when llvm-mc is missing.
fn check_against_llvm(b: &Builder) -> bool {
    let code = b.finish().unwrap_or_else(|e| panic!("{}: {e}", b.arch().name()));
    assert_eq!(code.len(), b.size());
    for listing in [b.listing_as_written(), b.listing()] {
        let Some(r) = llvm_mc(b.arch(), &listing) else { return false };
        let enc = r.unwrap_or_else(|e| panic!("{}: llvm-mc rejected:\n{listing}\n{e}", b.arch().name()));
        assert_eq!(enc.len(), b.len(), "{}: instruction count\n{listing}", b.arch().name());
        let mut at = 0;
        for (it, want) in b.instructions().iter().zip(&enc) {
            let got = &code[at..at + it.inst.size()];
            assert_eq!(got, &want[..], "{}: '{}'", b.arch().name(), disassemble(&it.inst));
            at += it.inst.size();
        }
        assert_eq!(code, enc.concat());
    }
    true
}

#[path = "builder/programs.rs"]
mod programs;
use programs::*;

#[test]
fn symbolic_operands_match_llvm_mc() {
    for arch in Arch::ALL {
        let mut b = Builder::new(arch);
        symbolic_operands(&mut b);
        assert!(b.error().is_none(), "{}: {:?}", arch.name(), b.error());
        assert!(b.len() > 20);
        if !check_against_llvm(&b) {
            return;
        }
    }
    // The names are the architecture's: HW_REG_HW_ID1 is 23 on gfx11+.
    let mut b = Builder::new(Arch::Gfx1100);
    b.s_getreg_b32(s(0), hwreg("HW_REG_HW_ID1"));
    assert_eq!(b.instructions()[0].inst.f("simm16") & 0x3f, 23);
}

#[test]
fn symbolic_and_f64_operand_errors() {
    let cases: Vec<(Arch, &str, Vec<Operand>, &[&str])> = vec![
        (
            Arch::Gfx1100,
            "s_getreg_b32",
            ops![s(0), hwreg("HW_REG_NOPE")].to_vec(),
            &["operand 2", "HW_REG_NOPE", "gfx1100"],
        ),
        (Arch::Gfx942, "s_getreg_b32", ops![s(0), hwreg_bits("HW_REG_MODE", 0, 33)].to_vec(), &["operand 2", "size"]),
        (Arch::Gfx942, "s_getreg_b32", ops![s(0), hwreg_bits("HW_REG_MODE", 32, 1)].to_vec(), &["offset"]),
        (Arch::Gfx1100, "s_sendmsg", ops![sendmsg("MSG_GS")].to_vec(), &["MSG_GS", "not a message"]),
        (Arch::Gfx942, "s_sendmsg", ops![sendmsg_op("MSG_GS", "GS_OP_BAD", 0)].to_vec(), &["GS_OP_BAD"]),
        (Arch::Gfx942, "s_sendmsg", ops![sendmsg_op("MSG_GS", "GS_OP_EMIT", 4)].to_vec(), &["out of range"]),
        (Arch::Gfx1100, "s_nop", ops![hwreg("HW_REG_MODE")].to_vec(), &["immediate is required"]),
        // f64 literals: 32 bits, the high half; gfx9 VOP3 takes none; no 64-bit literals.
        (Arch::Gfx1100, "v_add_f64", ops![v(0..2), 1.1f64, v(2..4)].to_vec(), &["operand 2", "low half"]),
        (Arch::Gfx942, "v_add_f64", ops![v(0..2), 1.5f64, v(2..4)].to_vec(), &["operand 2", "no literal"]),
        (Arch::Gfx1201, "s_mov_b64", ops![s(0..2), 1i64 << 33].to_vec(), &["operand 2", "32 bits"]),
        (Arch::Gfx1100, "v_add_f32", ops![v(0), 1.5f64, v(2)].to_vec(), &["f64", "32-bit operand"]),
        // LDS parameters: attr0..attr63, channels x..w.
        (Arch::Gfx1100, "lds_param_load", ops![v(0), attr(33, 'x')].to_vec(), &["operand 2", "attr0..attr32"]),
        (Arch::Gfx1100, "lds_param_load", ops![v(0), attr(1, 'q')].to_vec(), &["operand 2", "channel"]),
        (Arch::Gfx1100, "lds_param_load", ops![v(0), v(1)].to_vec(), &["operand 2", "LDS parameter"]),
    ];
    for (arch, m, o, want) in cases {
        let mut b = Builder::new(arch);
        let e = b.try_op(m, &o).unwrap_err().to_string();
        for w in want {
            assert!(e.contains(w), "{} {m}: '{e}' should say '{w}'", arch.name());
        }
        assert_eq!(b.len(), 0);
    }
}

/// What the MXFP4 GEMM for gfx950 emits (buffer loads straight to LDS, LDS reads, scaled MFMAs
/// accumulating in AGPRs or VGPRs, bf16 packing, the scalar bookkeeping); the gfx942 subset too.
fn mxfp4_gemm(b: &mut Builder) {
    let lds_dma = [flag(Flag::Offen), flag(Flag::Lds)];
    b.op_mods("buffer_load_dword", ops![v(1), s(4..8), s(9)], &lds_dma);
    b.op_mods("buffer_load_ushort", ops![v(1), s(4..8), 0], &lds_dma);
    b.op_mods("buffer_load_dword", ops![off(), s(4..8), s(8)], &[offset(16), flag(Flag::Lds)]);
    b.mods([flag(Flag::Offen), offset(64)]).buffer_store_dwordx4(v(0..4), v(4), s(4..8), 0);
    b.mods([flag(Flag::Idxen), offset(4)]).buffer_load_dword(v(0), v(1), s(4..8), 0);
    b.mods([flag(Flag::Offen), offset(4095)]).buffer_load_dword(v(0), v(1), s(4..8), s(3));
    b.mods([offset(4095)]).buffer_load_dword(v(0), off(), s(4..8), 0);
    b.mods([flag(Flag::Offen), flag(Flag::Sc0), flag(Flag::Nt)]).buffer_load_dwordx4(v(0..4), v(1), s(4..8), 0);
    b.mods([offset(512)]).ds_read_b128(v(0..4), v(4));
    b.mods([offset(65520)]).ds_write_b128(v(4), v(0..4));
    b.v_accvgpr_read_b32(v(0), a(1));
    b.v_accvgpr_write_b32(a(255), v(0));
    b.s_waitcnt(vmcnt(0).lgkmcnt(0));
    b.s_waitcnt(vmcnt(3));
    b.s_waitcnt(lgkmcnt(1));
    b.s_setprio(3);
    b.s_barrier();
    b.s_nop(7);
    b.v_readfirstlane_b32(s(0), v(1));
    b.s_load_dwordx2(s(0..2), s(2..4), 0x10);
    b.s_load_dwordx4(s(4..8), s(2..4), 0);
    b.s_load_dwordx8(s(8..16), s(2..4), 0x20);
    if b.arch() != Arch::Gfx950 {
        return;
    }
    b.op_mods("buffer_load_dwordx4", ops![v(1), s(4..8), 0], &lds_dma);
    // A/B of 8 (fp8/bf8), 6 (fp6/bf6) or 4 (fp4) registers as cbsz/blgp say; AGPR or VGPR
    // accumulators; op_sel/op_sel_hi of the scale operands.
    b.v_mfma_scale_f32_16x16x128_f8f6f4(v(0..4), v(4..12), v(12..20), v(0..4), v(20), v(21));
    b.mods([op_sel(&[1, 0, 0]), op_sel_hi(&[0, 1, 0])]).v_mfma_scale_f32_16x16x128_f8f6f4(
        a(0..4),
        v(4..12),
        v(12..20),
        a(0..4),
        v(20),
        v(21),
    );
    b.mods([cbsz(4), blgp(4)]).v_mfma_scale_f32_16x16x128_f8f6f4(a(0..4), v(4..8), v(12..16), a(0..4), v(20), v(21));
    b.mods([cbsz(2), blgp(3)]).v_mfma_scale_f32_16x16x128_f8f6f4(
        a(252..256),
        v(4..10),
        v(12..18),
        a(0..4),
        v(254),
        v(255),
    );
    b.mods([op_sel_hi(&[1, 1])]).v_mfma_scale_f32_16x16x128_f8f6f4(v(0..4), a(4..12), a(12..20), v(0..4), v(20), v(21));
    b.v_mfma_f32_16x16x32_bf16(v(0..4), v(4..8), v(8..12), v(0..4));
    b.mods([cbsz(1), abid(1), blgp(2)]).v_mfma_f32_16x16x32_bf16(a(0..4), v(4..8), v(8..12), a(0..4));
    b.v_cvt_pk_bf16_f32(v(0), v(1), v(2));
    b.v_cvt_pk_bf16_f32(v(0), s(1), 1.0f32);
}

fn build(arch: Arch) -> Builder {
    let mut b = Builder::new(arch);
    match arch {
        Arch::Gfx1100 => {
            rdna_common(&mut b);
            gfx1100_only(&mut b);
        }
        Arch::Gfx1201 => {
            rdna_common(&mut b);
            gfx1201_only(&mut b);
        }
        Arch::Gfx942 => {
            cdna(&mut b);
            mxfp4_gemm(&mut b);
        }
        Arch::Gfx950 => {
            cdna(&mut b);
            gfx950_only(&mut b);
            mxfp4_gemm(&mut b);
        }
    }
    b
}

#[test]
fn instructions_match_llvm_mc() {
    for arch in Arch::ALL {
        let b = build(arch);
        assert!(b.len() >= 30, "{}: {} instructions", arch.name(), b.len());
        if !check_against_llvm(&b) {
            return;
        }
    }
}

#[test]
fn mxfp4_gemm_instructions_are_built() {
    // The set the llvm-mc comparison above covers (instructions_match_llvm_mc), present in full.
    let mut b = Builder::new(Arch::Gfx950);
    mxfp4_gemm(&mut b);
    assert!(b.error().is_none(), "{:?}", b.error());
    let names: Vec<&str> = b.instructions().iter().map(|i| i.inst.mnemonic()).collect();
    for want in [
        "v_mfma_scale_f32_16x16x128_f8f6f4",
        "v_mfma_f32_16x16x32_bf16",
        "buffer_load_dwordx4",
        "buffer_load_dword",
        "buffer_store_dwordx4",
        "ds_read_b128",
        "ds_write_b128",
        "v_cvt_pk_bf16_f32",
        "v_accvgpr_read_b32",
        "v_accvgpr_write_b32",
        "s_waitcnt",
        "s_setprio",
        "s_barrier",
        "s_nop",
        "v_readfirstlane_b32",
        "s_load_dwordx2",
        "s_load_dwordx4",
        "s_load_dwordx8",
    ] {
        assert!(names.contains(&want), "{want} missing: {names:?}");
    }
    // The LDS-DMA loads have no data operand; their text says `lds`.
    let text = b.listing();
    assert_eq!(text.matches(" lds\n").count(), 4, "{text}");
    // gfx942 has no 128-bit LDS DMA (llvm-mc rejects it too).
    let mut b = Builder::new(Arch::Gfx942);
    assert!(b.try_op_mods("buffer_load_dwordx4", &ops![v(1), s(4..8), 0], &lds_dma_mods()).is_err());
    assert!(b.try_op_mods("buffer_load_dword", &ops![v(1), s(4..8), 0], &lds_dma_mods()).is_ok());
}

fn lds_dma_mods() -> [Mod; 2] {
    [flag(Flag::Offen), flag(Flag::Lds)]
}

#[test]
fn mxfp4_operand_errors() {
    let scale = "v_mfma_scale_f32_16x16x128_f8f6f4";
    let cases: [(Vec<Operand>, Vec<Mod>, &[&str]); 5] = [
        // fp4 A (cbsz:4) is 4 registers, not 8.
        (ops![v(0..4), v(4..12), v(12..20), v(0..4), v(20), v(21)].to_vec(), vec![cbsz(4)], &["operand 2", "takes 4"]),
        (ops![v(0..4), v(4..12), v(12..16), v(0..4), v(20), v(21)].to_vec(), vec![], &["operand 3", "takes 8"]),
        // One acc_cd bit for the destination and src2.
        (ops![v(0..4), v(4..12), v(12..20), a(0..4), v(20), v(21)].to_vec(), vec![], &["operand 4", "acc_cd"]),
        (ops![v(0..4), v(4..12), v(12..20), v(0..4), v(20), v(21)].to_vec(), vec![cbsz(5)], &["cbsz:5"]),
        (ops![v(0..4), v(4..12), v(12..20), v(0..4), v(20), v(21)].to_vec(), vec![cbsz(8)], &["cbsz", "3 bits"]),
    ];
    for (o, m, want) in cases {
        let mut b = Builder::new(Arch::Gfx950);
        let e = b.try_op_mods(scale, &o, &m).unwrap_err().to_string();
        for w in want {
            assert!(e.contains(w), "'{e}' should say '{w}'");
        }
        assert_eq!(b.len(), 0);
    }
    // An LDS-DMA load given a data operand: the lds form has three.
    let mut b = Builder::new(Arch::Gfx950);
    let e = b
        .try_op_mods("buffer_load_dword", &ops![v(0), v(1), s(4..8), 0], &[flag(Flag::Offen), flag(Flag::Lds)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 expected"), "{e}");
}

#[test]
fn builder_bytes_decode_back_to_the_instructions() {
    // Independent of llvm-mc: the decoder reads the builder's bytes back as the instructions it
    // encoded (same opcode, same words, same literal, same offsets).
    for arch in Arch::ALL {
        let b = build(arch);
        let code = b.finish().unwrap();
        let insts = decode_all(arch, &code).unwrap();
        assert_eq!(insts.len(), b.len());
        for ((at, i), it) in insts.iter().zip(b.instructions()) {
            assert_eq!(*at, it.at);
            assert_eq!(i.op, it.inst.op, "{}: {}", arch.name(), disassemble(i));
            assert_eq!(i.encode(), it.inst.encode(), "{}: {}", arch.name(), disassemble(i));
        }
    }
}

#[test]
fn automatic_encoding_choice() {
    let mut b = Builder::new(Arch::Gfx1100);
    assert_eq!(b.try_op("v_add_f32", &ops![v(1), v(2), v(3)]).unwrap(), 4);
    assert_eq!(b.try_op("v_add_f32", &ops![v(1), v(2), s(3)]).unwrap(), 8);
    assert_eq!(b.try_op("v_add_f32", &ops![v(1), 0.5f32, v(3)]).unwrap(), 4);
    assert_eq!(b.try_op("v_add_f32", &ops![v(1), 0.25f32, v(3)]).unwrap(), 8);
    assert_eq!(b.try_op("v_add_f32", &ops![v(1), v(3), 0.25f32]).unwrap(), 12);
    assert_eq!(b.try_op_mods("v_add_f32", &ops![v(1), v(2), v(3)], &[clamp()]).unwrap(), 8);
    assert_eq!(b.try_op("v_add_f32_e64", &ops![v(1), v(2), v(3)]).unwrap(), 8);
    assert_eq!(b.try_op("s_mov_b32", &ops![s(0), 64]).unwrap(), 4);
    assert_eq!(b.try_op("s_mov_b32", &ops![s(0), 65]).unwrap(), 8);
    assert_eq!(b.try_op("s_mov_b32", &ops![s(0), -16]).unwrap(), 4);
    assert_eq!(b.try_op("s_mov_b32", &ops![s(0), -17]).unwrap(), 8);
    let t: Vec<&str> = b.instructions().iter().map(|i| i.inst.mnemonic()).collect();
    assert_eq!(
        t[..7],
        [
            "v_add_f32_e32",
            "v_add_f32_e64",
            "v_add_f32_e32",
            "v_add_f32_e32",
            "v_add_f32_e64",
            "v_add_f32_e64",
            "v_add_f32_e64"
        ]
    );
    assert_eq!(b.size(), 4 + 8 + 4 + 8 + 12 + 8 + 8 + 4 + 8 + 4 + 8);
    assert_eq!(b.finish().unwrap().len(), b.size());
}

#[test]
fn labels_and_fixups() {
    for arch in [Arch::Gfx1100, Arch::Gfx1201, Arch::Gfx942] {
        let mut b = Builder::new(arch);
        let done = b.label("done");
        let top = b.here("top");
        let add = if arch == Arch::Gfx1201 { "s_add_co_i32" } else { "s_add_i32" };
        b.op(add, ops![s(4), s(4), -1])
            .s_cmp_eq_u32(s(4), 0)
            .s_cbranch_scc1(done) // forward
            .s_mov_b32(s(5), 0x1234_5678) // 8 bytes
            .s_branch(top) // backward
            .bind(done)
            .s_endpgm();
        // A second label with the same name gets a unique one.
        let other = b.label("top");
        assert_eq!(b.label_name(other), Some("top_1"));
        let code = b.finish().unwrap();
        // s_cbranch_scc1 at 8: next 12, target 24 -> +3 dwords; s_branch at 20: next 24 -> -6.
        assert_eq!(u16::from_le_bytes([code[8], code[9]]), 3);
        assert_eq!(u16::from_le_bytes([code[20], code[21]]) as i16, -6);
        check_against_llvm(&b);
    }
}

#[test]
fn branch_out_of_range_is_an_error() {
    let mut b = Builder::new(Arch::Gfx1100);
    let far = b.label("far");
    b.s_branch(far);
    for _ in 0..32767 {
        b.s_nop(0);
    }
    b.bind(far);
    assert!(b.finish().is_ok(), "32767 dwords is in range");
    b.s_nop(0);
    let mut b2 = b.clone();
    let far2 = b2.label("far2");
    b2.s_branch(far2);
    for _ in 0..32768 {
        b2.s_nop(0);
    }
    b2.bind(far2);
    let e = b2.finish().unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
    // Backward: -32768 is fine, -32769 is not.
    let mut b3 = Builder::new(Arch::Gfx1100);
    let back = b3.here("back");
    for _ in 0..32767 {
        b3.s_nop(0);
    }
    b3.s_branch(back);
    assert!(b3.finish().is_ok());
    let mut b4 = Builder::new(Arch::Gfx1100);
    let back = b4.here("back");
    for _ in 0..32768 {
        b4.s_nop(0);
    }
    b4.s_branch(back);
    assert!(b4.finish().unwrap_err().to_string().contains("out of range"));
}

#[test]
fn label_errors() {
    let mut b = Builder::new(Arch::Gfx1100);
    let l = b.here("x");
    assert!(b.try_bind(l).unwrap_err().to_string().contains("bound twice"));
    let u = b.label("never");
    b.s_branch(u);
    assert!(b.finish().unwrap_err().to_string().contains("never bound"));
    let mut b = Builder::new(Arch::Gfx1100);
    let l = b.here("x");
    assert!(b.try_op("s_mov_b32", &ops![s(0), l]).is_err());
    assert!(b.try_op("v_add_f32", &ops![v(0), v(1), l]).is_err());
    // A label from another builder.
    let mut other = Builder::new(Arch::Gfx1100);
    other.label("a");
    other.label("b");
    let foreign = other.label("c");
    assert!(b.try_op("s_branch", &ops![foreign]).is_err());
    assert!(b.try_bind(foreign).is_err());
}

#[test]
fn bad_registers_and_operands_are_errors() {
    let cases: Vec<(Arch, &str, Vec<Operand>)> = vec![
        (Arch::Gfx1100, "v_mov_b32", ops![v(256), 0].to_vec()),
        (Arch::Gfx1100, "v_mov_b32", ops![v(-1), 0].to_vec()),
        (Arch::Gfx1100, "v_mov_b32", ops![v(0), v(255..257)].to_vec()),
        (Arch::Gfx1100, "s_mov_b32", ops![s(106), 0].to_vec()),
        (Arch::Gfx942, "s_mov_b32", ops![s(102), 0].to_vec()),
        (Arch::Gfx1100, "s_mov_b64", ops![s(4..4), 0].to_vec()),
        (Arch::Gfx1100, "v_accvgpr_read_b32", ops![v(0), a(0)].to_vec()),
        (Arch::Gfx1201, "v_mov_b32", ops![v(0), a(1)].to_vec()),
        (Arch::Gfx942, "v_accvgpr_read_b32", ops![v(0), a(256)].to_vec()),
        (Arch::Gfx1100, "s_mov_b32", ops![ttmp(16), 0].to_vec()),
        (Arch::Gfx942, "s_mov_b32", ops![null(), 0].to_vec()),
        (Arch::Gfx1100, "s_mov_b32", ops![s(0), 1i64 << 33].to_vec()),
        // Bad operand kinds.
        (Arch::Gfx1100, "s_mov_b32", ops![v(0), 0].to_vec()),
        (Arch::Gfx1100, "v_add_f32", ops![s(0), v(1), v(2)].to_vec()),
        (Arch::Gfx1100, "s_load_b32", ops![s(0), v(0..2), 0].to_vec()),
        (Arch::Gfx1100, "global_load_b32", ops![s(1), v(2..4), off()].to_vec()),
        (Arch::Gfx1100, "s_load_b256", ops![s(1..9), s(0..2), 0].to_vec()), // misaligned
        (Arch::Gfx1201, "s_load_b96", ops![s(2..5), s(0..2), 0].to_vec()),
        (Arch::Gfx1100, "s_mov_b64", ops![s(1..3), 0].to_vec()),
        (Arch::Gfx942, "global_load_dwordx2", ops![v(1..3), v(4..6), off()].to_vec()),
        (Arch::Gfx1100, "v_add_f32", ops![v(0), v(1)].to_vec()),
        (Arch::Gfx1100, "v_add_f32", ops![v(0), v(1), v(2), v(3)].to_vec()),
        (Arch::Gfx1100, "v_mov_b32", ops![v(1).h(), v(2..4)].to_vec()),
        (Arch::Gfx1100, "v_no_such_op", ops![v(0)].to_vec()),
        (Arch::Gfx1100, "", ops![].to_vec()),
        (Arch::Gfx1100, "s_endpgm; s_nop", ops![].to_vec()),
        (Arch::Gfx1100, "s_waitcnt", ops![vmcnt(64)].to_vec()),
        (Arch::Gfx942, "s_waitcnt", ops![lgkmcnt(16)].to_vec()),
        (Arch::Gfx1100, "s_waitcnt", ops![v(0)].to_vec()),
        (Arch::Gfx1100, "s_nop", ops![65536].to_vec()),
        (Arch::Gfx1100, "s_mov_b32", ops![s(0), off()].to_vec()),
        (Arch::Gfx1100, "v_add_f32", ops![v(0), 1.5f32, 2.5f32].to_vec()), // two literals
        (Arch::Gfx942, "v_add_f32_e64", ops![v(0), v(1), 0x1234].to_vec()), // gfx9 VOP3: no literal
        (Arch::Gfx942, "v_fma_f32", ops![v(0), s(1), s(2), v(3)].to_vec()), // constant bus (gfx9: one)
        // The carry-in VCC counts on the bus too (as llvm-mc 22 counts it).
        (Arch::Gfx942, "v_addc_co_u32", ops![v(5), vcc(), s(1), v(2), vcc()].to_vec()),
        (Arch::Gfx1100, "v_ashrrev_i64", ops![v(0..2), s(0), s(100..102)].to_vec()), // 64-bit shifts: one
        (Arch::Gfx1100, "v_mov_b32", ops![v(0), v(1).h()].to_vec()),                 // not a 16-bit operand
        (Arch::Gfx1100, "v_mov_b32", ops![v(0), 0.5f32.to_bits() as i64 + (1 << 40)].to_vec()),
        // Kinds llvm-mc 22 refuses in a source or destination (the generated src_kinds table).
        (Arch::Gfx942, "v_readfirstlane_b32", ops![s(8), s(5)].to_vec()),
        (Arch::Gfx1100, "v_readlane_b32", ops![s(8), v(24), v(5)].to_vec()),
        (Arch::Gfx1100, "v_readfirstlane_b32", ops![m0(), v(28)].to_vec()),
        (Arch::Gfx1201, "v_interp_p10_f32", ops![v(12), s(5), v(40), v(56)].to_vec()),
        (Arch::Gfx942, "s_setpc_b64", ops![0x1234].to_vec()),
        (Arch::Gfx1201, "v_s_exp_f32", ops![exec_lo(), s(1)].to_vec()),
        (Arch::Gfx1201, "s_get_barrier_state", ops![s(3), s(5)].to_vec()),
        (Arch::Gfx1201, "s_barrier_signal", ops![null()].to_vec()),
        // gfx9 v_fmamk_f32: the constant K counts on the bus (llvm-mc 22 refuses it).
        (Arch::Gfx942, "v_fmamk_f32", ops![v(8), s(5), 0x40490fdb, v(40)].to_vec()),
    ];
    for (arch, m, o) in cases {
        let mut b = Builder::new(arch);
        let r = b.try_op(m, &o);
        assert!(r.is_err(), "{}: {m} {o:?} should fail", arch.name());
        assert_eq!(b.len(), 0);
        assert_eq!(b.size(), 0);
        // The chained form records it for finish().
        b.op(m, o);
        assert!(b.finish().is_err());
    }
    let mut b = Builder::new(Arch::Gfx1100);
    assert!(b.try_op_mods("v_add_f32", &ops![v(0), v(1), v(2)], &[offset(4)]).is_err());
    assert!(b.try_op_mods("s_endpgm", &[], &[clamp()]).is_err());
    assert!(b.try_op_mods("ds_load_b32", &ops![v(0), v(1)], &[offset(65536)]).is_err());
    // Modifiers llvm-mc 22's assembler refuses on the opcode (the generated modifiers table),
    // while what it takes still builds.
    let mut b = Builder::new(Arch::Gfx942);
    assert!(b.try_op_mods("v_add_f32_e64", &ops![v(8), v(24), v(40)], &[op_sel(&[1, 0, 0])]).is_err());
    assert!(b.try_op_mods("v_cmp_class_f32_e64", &ops![s(12..14), v(24), v(40)], &[clamp()]).is_err());
    assert_eq!(b.try_op_mods("v_add_f32_e64", &ops![v(8), v(24), v(40)], &[clamp()]).unwrap(), 8);
    let mut b = Builder::new(Arch::Gfx950);
    assert!(b.try_op_mods("v_dot2_f32_f16", &ops![v(8), v(24), v(40), v(56)], &[op_sel_hi(&[0, 0, 0])]).is_err());
    assert!(b.try_op("v_readlane_b32", &ops![s(8), v(24), neg(s(7))]).is_err());
    // MFMA modifiers llvm-mc 22 refuses on the opcode: blgp on an SMFMAC, abid on an _f8f6f4.
    let smfmac = ops![v(12..16), v(24..26), v(40..44), v(56)];
    assert!(b.try_op_mods("v_smfmac_f32_16x16x32_f16", &smfmac, &[blgp(1)]).is_err());
    assert_eq!(b.try_op_mods("v_smfmac_f32_16x16x32_f16", &smfmac, &[abid(1)]).unwrap(), 8);
    let f8 = ops![v(12..16), v(24..32), v(40..48), v(56..60)];
    assert!(b.try_op_mods("v_mfma_f32_16x16x128_f8f6f4", &f8, &[abid(1)]).is_err());
    assert_eq!(b.try_op_mods("v_mfma_f32_16x16x128_f8f6f4", &f8, &[cbsz(1)]).unwrap(), 8);
    let mut b = Builder::new(Arch::Gfx1100);
    assert!(b.try_op("v_readlane_b32", &ops![s(8), v(24), neg(s(7))]).is_err());
    assert_eq!(b.try_op("v_readlane_b32", &ops![s(8), v(24), s(7)]).unwrap(), 8);
    // gfx9 SDWA: two SGPR sources, or an SGPR and the carry-in VCC, are over the bus.
    let mut b = Builder::new(Arch::Gfx942);
    assert!(b.try_op_mods("v_add_f32", &ops![v(0), s(0), s(1)], &[sdwa_form()]).is_err());
    assert!(b.try_op_mods("v_addc_co_u32", &ops![v(0), vcc(), s(0), v(1), vcc()], &[sdwa_form()]).is_err());
    assert_eq!(b.try_op_mods("v_add_f32", &ops![v(0), s(0), s(0)], &[sdwa_form()]).unwrap(), 8);
    // gfx9 fp8/bf8 SDWA forms have no destination selector (asm::sdwa_dst).
    assert!(b.try_op_mods("v_cvt_f32_fp8", &ops![v(8), v(24)], &[dst_sel(SdwaSel::Dword)]).is_err());
    assert_eq!(b.try_op_mods("v_cvt_f32_fp8", &ops![v(8), v(24)], &[src0_sel(SdwaSel::Byte1)]).unwrap(), 8);
    assert_eq!(b.try_op("s_endpgm", &[]).unwrap(), 4);
    // The kinds those sources take.
    let mut b = Builder::new(Arch::Gfx1100);
    assert_eq!(b.try_op("v_readfirstlane_b32", &ops![s(8), v(28)]).unwrap(), 4);
    assert_eq!(b.try_op("v_readlane_b32", &ops![s(8), v(24), s(5)]).unwrap(), 8);
}

#[test]
fn errors_name_the_operand_and_why() {
    let mut b = Builder::new(Arch::Gfx1100);
    let cases: [(&str, Vec<Operand>, &[&str]); 5] = [
        ("s_mov_b32", ops![v(0), 0].to_vec(), &["operand 1", "v0", "scalar"]),
        ("s_mov_b32", ops![s(0), 1i64 << 33].to_vec(), &["operand 2", "32 bits"]),
        ("s_load_b256", ops![s(1..9), s(0..2), 0].to_vec(), &["operand 1", "aligned"]),
        ("v_add_f32", ops![s(0), v(1), v(2)].to_vec(), &["operand 1", "s0", "vector register"]),
        ("s_nop", ops![1 << 16].to_vec(), &["operand 1", "16 bits"]),
    ];
    for (m, o, want) in cases {
        let e = b.try_op(m, &o).unwrap_err().to_string();
        for w in want {
            assert!(e.contains(w), "{m}: '{e}' should say '{w}'");
        }
    }
    let e = b.try_op("v_no_such_op", &[]).unwrap_err().to_string();
    assert!(e.contains("unknown instruction 'v_no_such_op'"), "{e}");
    let e = b.try_op("v_accvgpr_read_b32", &ops![v(0), a(0)]).unwrap_err().to_string();
    assert!(e.contains("not an instruction of gfx1100"), "{e}");
}

#[test]
fn resource_tracking() {
    let mut b = Builder::new(Arch::Gfx1100);
    b.v_mov_b32(v(7), s(20)).global_load_b128(v(40..44), v(2..4), off());
    assert_eq!(b.usage(), ResourceUsage { vgprs: 44, sgprs: 21, agprs: 0, vcc: false });
    b.v_cmp_gt_u32(vcc_lo(), 0, v(1));
    assert!(b.usage().vcc);
    b.s_load_b256(s(24..32), s(0..2), 0);
    assert_eq!(b.usage().sgprs, 32);
    b.tracker_mut().reserve_sgprs(40);
    b.tracker_mut().reserve_vgprs(2);
    assert_eq!(b.usage().sgprs, 40);
    assert_eq!(b.usage().vgprs, 44);
    // Failed instructions do not count.
    assert!(b.try_op("v_mov_b32", &ops![v(100), s(0..2)]).is_err());
    assert_eq!(b.usage().vgprs, 44);
    let mut c = Builder::new(Arch::Gfx942);
    c.v_accvgpr_write_b32(a(9), v(1));
    assert_eq!(c.usage().agprs, 10);
    assert_eq!(c.usage().vgprs, 2);
}

#[test]
fn register_syntax() {
    assert_eq!(s(3).to_string(), "s3");
    assert_eq!(s(2..4).to_string(), "s[2:3]");
    assert_eq!(s(2..=3).to_string(), "s[2:3]");
    assert_eq!(v_range(0, 2).to_string(), "v[0:1]");
    assert_eq!(s_range(8, 4).to_string(), "s[8:11]");
    assert_eq!(a(0..4).to_string(), "a[0:3]");
    assert_eq!(ttmp(7).to_string(), "ttmp7");
    assert_eq!(v(1).h().to_string(), "v1.h");
    assert_eq!(v(4..8).at(1).to_string(), "v5");
    assert_eq!(s(4..12).sub(2, 2).to_string(), "s[6:7]");
    assert_eq!(vcc_lo().name(), "vcc_lo");
}

/// One refused operand list: architecture, mnemonic, operands, modifiers, words of the error.
type Refused = (Arch, &'static str, Vec<Operand>, Vec<Mod>, &'static [&'static str]);

/// Operands llvm-mc 22 refuses, refused by the builder with the assembler's rules (the rows of
/// asm_errors.rs `lines_llvm_mc_refuses_are_refused`): neg on an integer source, sext on a float
/// SDWA source, a 32-bit integer for a 16-bit source, an SGPR as a WMMA matrix.
#[test]
fn operands_llvm_mc_refuses_are_refused() {
    let cases: Vec<Refused> = vec![
        (Arch::Gfx1100, "v_add_nc_u16", ops![v(0), neg(v(1)), v(2)].to_vec(), vec![], &["operand 2", "no neg/abs"]),
        (Arch::Gfx942, "v_add_u32", ops![v(0), neg(v(1)), v(2)].to_vec(), vec![], &["operand 2", "no neg/abs"]),
        (
            Arch::Gfx942,
            "v_add_f16",
            ops![v(0), sext(v(1)), v(2)].to_vec(),
            vec![src0_sel(SdwaSel::Word0)],
            &["operand 2", "float source"],
        ),
        (Arch::Gfx1100, "v_add_nc_u16", ops![v(0), 0x12345, v(1)].to_vec(), vec![], &["operand 2", "16-bit operand"]),
        (Arch::Gfx1201, "s_cmp_le_f16", ops![s(8), 0x12345678].to_vec(), vec![], &["operand 2", "16-bit operand"]),
        (Arch::Gfx1201, "s_add_f16", ops![s(8), s(1), 0x12345678].to_vec(), vec![], &["operand 3", "16-bit operand"]),
        (Arch::Gfx1100, "v_add_f16", ops![v(0), 0x12345, v(1)].to_vec(), vec![], &["operand 2", "16-bit operand"]),
        (
            Arch::Gfx1100,
            "v_wmma_f32_16x16x16_f16",
            ops![v(8..16), v(24..32), v(40..48), s(56..64)].to_vec(),
            vec![],
            &["operand 4", "C matrix"],
        ),
        // Scalar rules (asm::smem_rules, asm::salu_imm, asm::gws).
        (
            Arch::Gfx1100,
            "s_buffer_load_b32",
            ops![s(24), s(20..24), -7].to_vec(),
            vec![],
            &["operand 3", "buffer SMEM"],
        ),
        (Arch::Gfx942, "s_load_dword", ops![s(24), s(20..22), 0x100000].to_vec(), vec![], &["operand 3", "21 bits"]),
        (Arch::Gfx1100, "s_load_b32", ops![m0(), s(20..22), 0x10].to_vec(), vec![], &["no m0 or exec"]),
        (Arch::Gfx942, "s_memtime", ops![exec()].to_vec(), vec![], &["no m0 or exec"]),
        (Arch::Gfx942, "s_mov_b64", ops![s(16..18), 1.5f64].to_vec(), vec![], &["operand 2", "only inline floats"]),
        (Arch::Gfx1201, "s_and_b64", ops![s(16..18), 1.5f32, s(40..42)].to_vec(), vec![], &["operand 2", "inline"]),
        (Arch::Gfx950, "ds_gws_init", ops![v(5)].to_vec(), vec![offset(4)], &["must be even"]),
        (Arch::Gfx1100, "s_cmpk_eq_u32", ops![s(16), -7].to_vec(), vec![], &["operand 2", "takes 0..65535"]),
    ];
    for (arch, m, o, mods, want) in cases {
        let mut b = Builder::new(arch);
        let e = b.try_op_mods(m, &o, &mods).unwrap_err().to_string();
        for w in want {
            assert!(e.contains(w), "{} {m}: '{e}' should say '{w}'", arch.name());
        }
        assert_eq!(b.len(), 0);
    }
    // What llvm-mc takes: a 16-bit value at either end, a 32-bit literal in a packed source.
    let mut b = Builder::new(Arch::Gfx1100);
    b.op("v_add_nc_u16", ops![v(0), -32768, v(1)]);
    b.op("v_pk_max_f16", ops![v(0), v(0), 0x12345678]);
    b.op("v_dot2acc_f32_f16", ops![v(8), 0x12345678, v(40)]);
    assert_eq!(b.len(), 3);
    // llvm-mc 22's bytes: an inline f64 in a 64-bit scalar source, GWS with its gds bit.
    let mut b = Builder::new(Arch::Gfx942);
    b.op("s_mov_b64", ops![s(16..18), 0.5f64]);
    b.op_mods("ds_gws_init", ops![v(8)], &[offset(4)]);
    b.op("s_cmpk_eq_u32", ops![s(16), 0xffff]);
    let want = [0xf0, 0x01, 0x90, 0xbe, 0x04, 0x00, 0x33, 0xd9, 0x08, 0x00, 0x00, 0x00, 0xff, 0xff, 0x10, 0xb4];
    assert_eq!(b.finish().unwrap(), want);
}
