//! A source with bad lines: every bad line is reported (up to 20) with its line and column, in
//! source order, and no bytes come back.

use baregpu_isa::asm::MAX_ERRORS;
use baregpu_isa::{assemble, IsaError};

fn positions(e: &IsaError) -> Vec<(usize, usize)> {
    match e {
        IsaError::Asm { line, col, .. } => vec![(*line, *col)],
        IsaError::AsmMany(v) => v.iter().flat_map(positions).collect(),
        e => panic!("not an assembler error: {e}"),
    }
}

#[test]
fn every_bad_line_is_reported() {
    let src = "s_nop 0\n  v_bogus v0\ns_mov_b32 s0, s1\ns_mov_b32 s0, v_x\nlabel:\n  s_branch nowhere\n";
    let e = assemble(baregpu_isa::Arch::Gfx1100, src).unwrap_err();
    assert_eq!(positions(&e), vec![(2, 3), (4, 15), (6, 12)], "{e}");
    let text = e.to_string();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.lines().all(|l| l.split(':').take(2).all(|n| n.parse::<usize>().is_ok())), "{text}");
    assert!(text.contains("undefined label 'nowhere'"), "{text}");
}

#[test]
fn one_bad_line_is_a_single_error() {
    let e = assemble(baregpu_isa::Arch::Gfx1100, "s_nop 0\nv_bogus v0\n").unwrap_err();
    assert!(matches!(e, IsaError::Asm { line: 2, col: 1, .. }), "{e}");
}

#[test]
fn at_most_twenty_errors() {
    let src = "v_bogus v0\n".repeat(100);
    let e = assemble(baregpu_isa::Arch::Gfx942, &src).unwrap_err();
    let p = positions(&e);
    assert_eq!(p.len(), MAX_ERRORS);
    assert_eq!(p.first(), Some(&(1, 1)));
    assert_eq!(p.last(), Some(&(MAX_ERRORS, 1)));
}

#[test]
fn a_label_defined_twice_is_reported_with_the_other_errors() {
    let src = "a:\ns_nop 0\na:\nv_bogus\n";
    let e = assemble(baregpu_isa::Arch::Gfx1201, src).unwrap_err();
    assert_eq!(positions(&e), vec![(3, 1), (4, 1)], "{e}");
}

/// Matrix sources llvm-mc 22 refuses (gfx942/gfx950): SGPRs, special registers and literals in
/// A, B and C, anything but a VGPR as SMFMAC's index or a scaled MFMA's scale; each refused at the
/// operand with a message that names it. An inline constant as C is taken.
#[test]
fn matrix_sources_llvm_mc_refuses_are_refused() {
    use baregpu_isa::Arch::{Gfx942, Gfx950};
    let bad: [(baregpu_isa::Arch, &str, usize, &str); 9] = [
        (Gfx942, "v_mfma_f32_4x4x1f32 a[0:3], v0, v1, s[0:3]", 37, "C matrix"),
        (Gfx950, "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], s[0:15]", 48, "C matrix"),
        (Gfx950, "v_mfma_f32_16x16x32_bf16 v[0:3], v[0:3], v[0:3], s[0:3]", 50, "C matrix"),
        (Gfx942, "v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 0x12345", 37, "C matrix"),
        (Gfx942, "v_mfma_f32_4x4x1f32 a[0:3], v0, v1, vcc", 37, "C matrix"),
        (Gfx942, "v_mfma_f32_4x4x1f32 a[0:3], s0, v1, a[0:3]", 29, "A matrix"),
        (Gfx942, "v_mfma_f32_4x4x1f32 a[0:3], v0, 2, a[0:3]", 33, "B matrix"),
        (Gfx942, "v_smfmac_f32_16x16x32_f16 v[0:3], v[0:1], v[2:5], s0", 51, "sparsity index"),
        (Gfx950, "v_mfma_scale_f32_16x16x128_f8f6f4 v[8:11], v[24:31], v[40:47], v[56:59], s20, v21", 74, "scale"),
    ];
    for (arch, line, col, what) in bad {
        let e = assemble(arch, line).unwrap_err();
        assert_eq!(positions(&e), vec![(1, col)], "{line}: {e}");
        assert!(e.to_string().contains(what), "{line}: {e}");
    }
    // llvm-mc's bytes for an inline constant as C.
    let ok = assemble(Gfx942, "v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 1.0").unwrap();
    assert_eq!(ok, [0x00, 0x80, 0xc2, 0xd3, 0x00, 0x03, 0xca, 0x03]);
}
