//! A source with bad lines: every bad line is reported (up to 20) with its line and column, in
//! source order, and no bytes come back.

use baregpu_isa::asm::MAX_ERRORS;
use baregpu_isa::{assemble, Arch, IsaError};

#[path = "asm_errors/refusals.rs"]
mod refusals;

fn positions(e: &IsaError) -> Vec<(usize, usize)> {
    match e {
        IsaError::Asm { line, col, .. } => vec![(*line, *col)],
        IsaError::AsmMany(v) => v.iter().flat_map(positions).collect(),
        e => panic!("not an assembler error: {e}"),
    }
}

/// Each line is refused with one error line, at line 1 and column `col`, whose text holds `what`.
fn refused_at(bad: &[(Arch, &str, usize, &str)]) {
    for &(arch, line, col, what) in bad {
        let e = assemble(arch, line).unwrap_err();
        assert_eq!(positions(&e), vec![(1, col)], "{line}: {e}");
        assert!(e.to_string().contains(what), "{line}: {e}");
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
    }
}

/// Each line is refused with one error line whose text holds `what` (any column).
fn refused_with(bad: &[(Arch, &str)], what: &str) {
    for &(arch, line) in bad {
        let e = assemble(arch, line).expect_err(line);
        assert_eq!(e.to_string().lines().count(), 1, "{line}: {e}");
        assert!(e.to_string().contains(what), "{line}: {e}");
    }
}

/// Each line assembles to the bytes llvm-mc 22 gives it.
fn assembles_to(ok: &[(Arch, &str, &[u8])]) {
    for &(arch, line, bytes) in ok {
        assert_eq!(assemble(arch, line).unwrap(), bytes, "{line}");
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
    refused_at(&bad);
    // llvm-mc's bytes for an inline constant as C.
    let ok = assemble(Gfx942, "v_mfma_f32_4x4x1f32 a[0:3], v0, v1, 1.0").unwrap();
    assert_eq!(ok, [0x00, 0x80, 0xc2, 0xd3, 0x00, 0x03, 0xca, 0x03]);
}

/// Lines llvm-mc 22 accepts but writes to bytes that do not say what the line says (checked with
/// llvm-mc-22 -show-encoding): each is refused at the operand or modifier, with a one-line reason.
/// - a buffer offset above 4095: llvm-mc keeps the low 12 bits (`offset:4096` is written as 0);
/// - `|v|` on VOP3B (v_div_scale) and VINTERP: no abs bits, llvm-mc writes none;
/// - gfx12 non-returning flat/global atomics with th:TH_ATOMIC_RETURN: the returning form with
///   destination v0;
/// - gfx9 v_pk_fmac_f16 op_sel, and sext on its SDWA sources: parsed, no bits written;
/// - gfx9 src_scc (253) as a scratch address: its low 7 bits, 0x7d, are written;
/// - a float that is no inline constant in a 16-bit integer source: its f32 bits, of which the
///   operand reads the low half (0x0 for 1.5).
#[test]
fn lines_llvm_mc_misencodes_are_refused() {
    use baregpu_isa::Arch::{Gfx1100, Gfx1201, Gfx942, Gfx950};
    let bad: [(baregpu_isa::Arch, &str, usize, &str); 21] = [
        (Gfx942, "buffer_load_dword v1, off, s[4:7], s1 offset:4096", 39, "MUBUF offsets are 12 bits (0..4095)"),
        (Gfx1100, "buffer_load_b32 v1, off, s[4:7], s1 offset:65535", 37, "MUBUF offsets are 12 bits (0..4095)"),
        (
            Gfx1100,
            "tbuffer_load_format_x v1, off, s[4:7], s1 format:[BUF_FMT_32_FLOAT] offset:4100",
            69,
            "MTBUF offsets are 12 bits",
        ),
        (Gfx1100, "v_div_scale_f32 v12, s0, |v24|, v40, v56", 26, "no abs bits"),
        (Gfx942, "v_div_scale_f64 v[12:13], s[0:1], v[24:25], |v[40:41]|, v[56:57]", 45, "no abs bits"),
        (Gfx1100, "v_interp_p10_f32 v0, |v1|, v2, v3", 22, "VINTERP encoding has no abs bits"),
        (Gfx1201, "global_atomic_add_u32 v8, v24, s[16:17] th:TH_ATOMIC_RETURN", 41, "returning form's destination"),
        (Gfx1201, "flat_atomic_swap_b32 v[8:9], v24 th:TH_ATOMIC_RETURN", 34, "returning form's destination"),
        (Gfx1201, "flat_atomic_swap_b32 v[8:9], v24 th:TH_ATOMIC_RT_RETURN", 34, "returning form's destination"),
        (Gfx1201, "global_atomic_add_u32 v8, v24, s[16:17] th:1", 41, "returning form's destination"),
        (Gfx942, "v_pk_fmac_f16 v8, v28, v40 op_sel:[1,0,0]", 28, "op_sel is not encodable"),
        (Gfx950, "v_pk_fmac_f16_e64 v12, v24, v40 op_sel:[0,1,0]", 33, "op_sel is not encodable"),
        (Gfx942, "scratch_load_ubyte v56, v8, src_scc offset:4", 29, "does not fit the 7-bit saddr field"),
        (Gfx1100, "v_cvt_f16_u16_e32 v8, 1.5", 23, "reads 0x0"),
        (Gfx942, "v_add_u16 v8, 0.1, v1", 15, "reads 0xcccd"),
        (
            Gfx1201,
            "v_fma_mix_f32_e64_dpp v12, v24, v40, 0x1234 op_sel_hi:[1,1,1] dpp8:[0,1,2,3,4,5,6,7]",
            38,
            "DPP forms take no literal",
        ),
        (
            Gfx942,
            "v_pk_fmac_f16_sdwa v8, v24, sext(v40) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
            29,
            "sext is not encodable",
        ),
        (Gfx942, "s_setreg_imm32_b32 hwreg(HW_REG_TBA_HI, 0, 1), 1.5", 48, "low 32 bits of the f64"),
        (Gfx1201, "s_atc_probe 65, s[20:21], 0x10", 13, "the SMEM size field is 0..31"),
        (Gfx1201, "s_prefetch_data s[20:21], 0x10, null, 32", 39, "the SMEM size field is 0..31"),
        (Gfx1201, "s_buffer_prefetch_data s[20:23], 0x10, null, 65", 46, "the SMEM size field is 0..31"),
    ];
    refused_at(&bad);
    // What llvm-mc writes the same way is taken: a returning atomic written with its destination,
    // the default op_sel, an inline float in a 16-bit integer source.
    let ok = [
        (Gfx1201, "global_atomic_add_u32 v0, v8, v24, s[16:17] th:TH_ATOMIC_RETURN"),
        (Gfx942, "v_pk_fmac_f16_e64 v8, v28, v40 op_sel:[0,0,0]"),
        (Gfx942, "v_cvt_f16_u16_e32 v8, 0.5"),
    ];
    let want: [&[u8]; 3] = [
        &[0x10, 0x40, 0x0d, 0xee, 0x00, 0x00, 0x10, 0x0c, 0x08, 0x00, 0x00, 0x00],
        &[0x08, 0x00, 0x3c, 0xd1, 0x1c, 0x51, 0x02, 0x00],
        &[0xf0, 0x72, 0x10, 0x7e],
    ];
    for ((arch, line), bytes) in ok.iter().zip(want) {
        assert_eq!(assemble(*arch, line).unwrap(), bytes, "{line}");
    }
    // The bits of s_setreg_imm32_b32's value, and the largest gfx12 probe size.
    assembles_to(&[
        (
            Gfx942,
            "s_setreg_imm32_b32 hwreg(HW_REG_TBA_HI, 0, 1), 0x3fc00000",
            &[0x11, 0x00, 0x00, 0xba, 0x00, 0x00, 0xc0, 0x3f],
        ),
        (Gfx1201, "s_atc_probe 31, s[20:21], 0x10", &[0xca, 0x47, 0x04, 0xf4, 0x10, 0x00, 0x00, 0xf8]),
    ]);
}

/// Operands llvm-mc 22 refuses whose words it still decodes (LLVM's disassembler test pages):
/// an interpolation attribute above attr32, and a C matrix that partially overlaps a destination
/// of more than four registers. The same C and attributes that llvm-mc takes are taken, with its
/// bytes: attr32, a C that is the destination, a four-register overlap, and the gfx950
/// `*_f8f6f4` forms, which llvm-mc 22 does not check.
#[test]
fn attributes_and_mfma_c_llvm_mc_refuses_are_refused() {
    use baregpu_isa::Arch::{Gfx1100, Gfx1201, Gfx942, Gfx950};
    let bad = [
        (Gfx1100, "lds_param_load v12, attr33.z wait_vdst:4", 21, "out of bounds interpolation attribute"),
        (Gfx1201, "ds_param_load v1, attr63.w", 19, "out of bounds interpolation attribute"),
        (Gfx942, "v_mfma_f32_32x32x8_bf16 v[0:15], v[2:3], v[4:5], v[2:17]", 50, "C matrix must be the destination"),
        (Gfx942, "v_mfma_i32_32x32x16_i8 a[0:15], v[2:3], v[4:5], a[8:23]", 49, "C matrix must be the destination"),
        (Gfx950, "v_mfma_f64_16x16x4_f64 v[0:7], v[2:3], v[4:5], v[2:9]", 48, "C matrix must be the destination"),
    ];
    refused_at(&bad);
    let ok: [(baregpu_isa::Arch, &str, &[u8]); 5] = [
        (Gfx1100, "lds_param_load v1, attr32.x wait_vdst:4", &[0x01, 0x80, 0x04, 0xce]),
        (
            Gfx942,
            "v_mfma_f32_32x32x8_bf16 a[0:15], v[2:3], v[4:5], a[0:15]",
            &[0x00, 0x80, 0xe0, 0xd3, 0x02, 0x09, 0x02, 0x04],
        ),
        (
            Gfx942,
            "v_mfma_f32_16x16x16_bf16 v[0:3], v[2:3], v[4:5], v[2:5]",
            &[0x00, 0x00, 0xe1, 0xd3, 0x02, 0x09, 0x0a, 0x04],
        ),
        (
            Gfx950,
            "v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[2:17]",
            &[0x00, 0x00, 0xae, 0xd3, 0x10, 0x31, 0x0a, 0x04],
        ),
        (
            Gfx950,
            "v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[2:17], v0, v1",
            &[0x00, 0x00, 0xac, 0xd3, 0x00, 0x03, 0x02, 0x00, 0x00, 0x08, 0xae, 0xd3, 0x10, 0x31, 0x0a, 0x04],
        ),
    ];
    assembles_to(&ok);
}

/// The constant bus, as llvm-mc 22 counts it: one scalar value on gfx9, two on gfx11/gfx12 (one
/// for the 64-bit shifts); a register counts once per width, the literal once, `null` never; the
/// lane mask that VOP2 carry-in, `v_cndmask_b32_e32` and `v_div_fmas` read counts too; VOPD
/// halves share the bus. gfx9 SDWA counts alike (the carry-in `vcc` is wider than a `vcc_lo`
/// source); gfx12 VOP3 DPP takes two scalar sources (src0 is the DPP VGPR); matrix sources
/// refuse every scalar before the bus counts.
#[test]
fn constant_bus_llvm_mc_refuses_is_refused() {
    use baregpu_isa::Arch::{Gfx1100, Gfx1201, Gfx942, Gfx950};
    let bad = [
        (Gfx942, "v_add_f32_e64 v0, s1, s2", 23),
        (Gfx950, "v_cndmask_b32_e64 v1, s0, v2, s[0:1]", 31),
        (Gfx942, "v_addc_co_u32_e32 v5, vcc, s1, v2, vcc", 36),
        (Gfx942, "v_div_fmas_f32 v0, s1, v2, v3", 16),
        (Gfx1100, "v_fma_f32 v0, s1, s2, s3", 23),
        (Gfx1100, "v_fma_f32 v0, s1, 0x1234, s2", 27),
        (Gfx1201, "v_lshlrev_b64 v[0:1], s1, s[2:3]", 27),
        (Gfx1100, "v_dual_add_f32 v255, s105, v2 :: v_dual_cndmask_b32 v6, s1, v3", 53),
        (Gfx1201, "v_dual_fmaak_f32 v255, s1, v2, 0x1234 :: v_dual_add_f32 v6, s2, v3", 57),
        (Gfx942, "v_add_f32_sdwa v0, s0, s1 src0_sel:DWORD src1_sel:DWORD", 24),
        (Gfx950, "v_addc_co_u32_sdwa v0, vcc, s0, v1, vcc src0_sel:DWORD", 37),
        (Gfx942, "v_addc_co_u32_sdwa v0, vcc, v0, s1, vcc src0_sel:DWORD", 37),
        (Gfx942, "v_cndmask_b32_sdwa v0, vcc_lo, v1, vcc src0_sel:WORD_1", 36),
        (Gfx950, "v_cmp_eq_f32_sdwa vcc, exec_lo, s1 src0_sel:DWORD src1_sel:DWORD", 33),
        (Gfx942, "v_cmp_eq_f32_sdwa s[2:3], s0, m0 src0_sel:DWORD src1_sel:DWORD", 31),
    ];
    for (arch, line, col) in bad {
        let e = assemble(arch, line).unwrap_err();
        assert_eq!(positions(&e), vec![(1, col)], "{line}: {e}");
        assert!(e.to_string().contains("the constant bus limit"), "{line}: {e}");
    }
    let matrix = assemble(Gfx950, "v_mfma_f32_16x16x4_f32 v[0:3], s0, s1, v[0:3]").unwrap_err();
    assert!(matrix.to_string().contains("matrix must be in VGPRs"), "{matrix}");
    let ok: [(baregpu_isa::Arch, &str, &[u8]); 15] = [
        (Gfx1100, "buffer_load_b32 v1, off, s[4:7], 1.0", &[0x00, 0x00, 0x50, 0xe0, 0x00, 0x01, 0x01, 0xf2]),
        (Gfx942, "v_add_f32_e64 v0, s1, s1", &[0x00, 0x00, 0x01, 0xd1, 0x01, 0x02, 0x00, 0x00]),
        (Gfx942, "v_add_f64 v[0:1], s[2:3], s[2:3]", &[0x00, 0x00, 0x80, 0xd2, 0x02, 0x04, 0x00, 0x00]),
        (
            Gfx1100,
            "v_fma_f32 v0, s1, 0x1234, 0x1234",
            &[0x00, 0x00, 0x13, 0xd6, 0x01, 0xfe, 0xfd, 0x03, 0x34, 0x12, 0x00, 0x00],
        ),
        (Gfx1100, "v_fma_f32 v0, s1, s2, null", &[0x00, 0x00, 0x13, 0xd6, 0x01, 0x04, 0xf0, 0x01]),
        (Gfx1100, "v_cndmask_b32_e32 v1, vcc_lo, v2, vcc_lo", &[0x6a, 0x04, 0x02, 0x02]),
        (
            Gfx1100,
            "v_dual_add_f32 v255, s105, v2 :: v_dual_cndmask_b32 v6, s105, v3",
            &[0x69, 0x04, 0x12, 0xc9, 0x69, 0x06, 0x06, 0xff],
        ),
        (Gfx942, "v_add_f32_sdwa v0, s0, s0 src0_sel:DWORD src1_sel:DWORD", &[0xf9, 0, 0, 0x02, 0, 0x16, 0x86, 0x86]),
        (
            Gfx950,
            "v_add_f32_sdwa v0, s1, 1.0 src0_sel:DWORD src1_sel:DWORD",
            &[0xf9, 0xe4, 0x01, 0x02, 0x01, 0x16, 0x86, 0x86],
        ),
        (
            Gfx942,
            "v_cmp_eq_f32_sdwa s[2:3], s0, v1 src0_sel:DWORD src1_sel:DWORD",
            &[0xf9, 0x02, 0x84, 0x7c, 0, 0x82, 0x86, 0x06],
        ),
        (Gfx942, "v_cndmask_b32_sdwa v0, v1, v2, vcc src0_sel:WORD_1", &[0xf9, 0x04, 0, 0, 0x01, 0x16, 0x05, 0x06]),
        (
            Gfx950,
            "v_addc_co_u32_sdwa v0, vcc, 1, v1, vcc src0_sel:DWORD",
            &[0xf9, 0x02, 0, 0x38, 0x81, 0x16, 0x86, 0x06],
        ),
        (
            Gfx1201,
            "v_fma_f32_e64_dpp v0, v1, s2, s3 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            &[0, 0, 0x13, 0xd6, 0xfa, 0x04, 0x0c, 0, 0x01, 0xe4, 0, 0xff],
        ),
        (
            Gfx1201,
            "v_add_co_ci_u32_e64_dpp v0, s4, v1, s2, vcc_lo quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            &[0, 0x04, 0x20, 0xd5, 0xfa, 0x04, 0xa8, 0x01, 0x01, 0xe4, 0, 0xff],
        ),
        (
            Gfx1201,
            "v_fma_f32_e64_dpp v0, v1, m0, exec_lo dpp8:[7,6,5,4,3,2,1,0]",
            &[0, 0, 0x13, 0xd6, 0xe9, 0xfa, 0xf8, 0x01, 0x01, 0x77, 0x39, 0x05],
        ),
    ];
    assembles_to(&ok);
}

/// Lines llvm-mc 22 refuses (checked with llvm-mc-22 -show-encoding), refused by ours at the
/// operand with one line that names it and says why:
/// - neg/abs on an integer source (u16, u32, the stochastic-rounding seed of v_cvt_sr_*8_f32);
/// - sext on a float SDWA source;
/// - a 32-bit value that is no 16-bit one (-32768..65535) in a 16-bit source (not packed f16
///   halves, which take a 32-bit literal: `v_dot2acc_f32_f16 v8, 0x12345678, v40`);
/// - a WMMA/SWMMAC source that is not a VGPR (C: or an inline constant);
/// - `nv` on a gfx1201 image ("not supported on this GPU").
#[test]
fn lines_llvm_mc_refuses_are_refused() {
    use baregpu_isa::Arch::{Gfx1100, Gfx1201, Gfx942, Gfx950};
    let bad: [(baregpu_isa::Arch, &str, usize, &str); 47] = [
        (Gfx1100, "v_add_nc_u16 v0, -v1, v2", 18, "source 0 of v_add_nc_u16 takes no neg/abs"),
        (Gfx1100, "v_add_nc_u16_e64_dpp v0, |v1|, v2 quad_perm:[0,1,2,3]", 26, "takes no neg/abs"),
        (Gfx1100, "v_add_nc_u32_e64 v0, -v1, v2", 22, "takes no neg/abs"),
        (Gfx942, "v_add_u16_sdwa v0, -v1, v2 src0_sel:WORD_0", 20, "takes no neg/abs"),
        (Gfx942, "v_add_u16_dpp v0, v1, |v2| quad_perm:[0,1,2,3]", 23, "source 1 of v_add_u16"),
        (Gfx942, "v_add_u32_dpp v0, -v1, v2 quad_perm:[0,1,2,3]", 19, "takes no neg/abs"),
        (Gfx1201, "v_cvt_sr_fp8_f32 v8, v24, |v40|", 27, "source 1 of v_cvt_sr_fp8_f32 takes no neg/abs"),
        (
            Gfx1201,
            "v_cvt_sr_fp8_f32_e64_dpp v8, v24, |v40| quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            35,
            "takes no neg/abs",
        ),
        (Gfx1201, "v_cvt_sr_bf8_f32 v8, v24, -v40", 27, "takes no neg/abs"),
        (Gfx942, "v_add_f16_sdwa v0, sext(v1), v2 src0_sel:WORD_0", 20, "source 0 of v_add_f16"),
        (Gfx942, "v_add_f32_sdwa v0, v1, sext(v2) src1_sel:WORD_0", 24, "is a float source"),
        (Gfx1100, "v_add_nc_u16 v0, 0x12345, v1", 18, "does not fit the 16-bit operand"),
        (Gfx1100, "v_cvt_f16_u16 v0, 0x12345", 19, "does not fit the 16-bit operand"),
        (Gfx1100, "v_add_nc_u16 v0, 0xffff1234, v1", 18, "does not fit the 16-bit operand"),
        (Gfx942, "v_add_u16 v0, 0x12345, v1", 15, "does not fit the 16-bit operand"),
        (Gfx1201, "v_add_nc_i16 v0, v1, -60000", 22, "does not fit the 16-bit operand"),
        (Gfx1100, "v_add_f16 v0, 0x12345, v1", 15, "does not fit the 16-bit operand"),
        (Gfx1201, "v_add_f16 v0, v1, -60000", 19, "does not fit the 16-bit operand"),
        (Gfx1100, "v_dot2_bf16_bf16 v12.l, v24, v40, 0x12345", 35, "does not fit the 16-bit operand"),
        (Gfx1100, "v_wmma_f32_16x16x16_f16 v[8:15], v[24:31], v[40:47], s[56:63]", 54, "C matrix"),
        (Gfx1201, "v_wmma_f32_16x16x16_f16 v[8:15], v[24:27], v[40:43], 0x1234", 54, "C matrix"),
        (Gfx1201, "v_wmma_f32_16x16x16_f16 v[8:15], v[24:27], v[40:43], m0", 54, "C matrix"),
        (Gfx1100, "v_wmma_f32_16x16x16_f16 v[8:15], s[24:31], v[40:47], v[56:63]", 34, "A matrix"),
        (Gfx1201, "v_swmmac_f32_16x16x32_f16 v[8:15], v[24:27], v[40:47], s56", 56, "sparsity index"),
        (Gfx1201, "image_load v8, [v24, v0], s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_2D nv", 65, "nv is not supported"),
        // Scalar and SMEM operands (asm::smem_rules, asm::salu_imm, asm::gws, isa::ext_forms).
        (Gfx1100, "s_buffer_load_b32 s24, s[20:23], -7", 34, "a buffer SMEM offset is 20 bits"),
        (Gfx942, "s_buffer_atomic_add s24, s[20:23], -0x10", 36, "a buffer SMEM offset is 20 bits"),
        (Gfx942, "s_buffer_load_dword s24, s[20:23], s5 offset:-0x10", 39, "a buffer SMEM offset"),
        (Gfx1201, "s_buffer_prefetch_data s[20:23], -7, null, 24", 34, "a buffer SMEM offset is 23 bits"),
        (Gfx942, "s_load_dword s24, s[20:21], 0x100000", 29, "an SMEM offset is 21 bits"),
        (Gfx1100, "s_load_b32 s24, s[20:21], vcc", 27, "'vcc' is 2 dwords"),
        (Gfx942, "s_scratch_load_dword s24, s[20:21], vcc", 37, "'vcc' is 2 dwords"),
        (Gfx1100, "s_buffer_load_b32 m0, s[20:23], 0x10", 19, "no m0 or exec as SMEM data"),
        (Gfx942, "s_buffer_atomic_add exec_lo, s[20:23], 0x10", 21, "no m0 or exec as SMEM data"),
        (Gfx942, "s_memtime exec", 11, "no m0 or exec as SMEM data"),
        (Gfx1100, "s_cmpk_eq_u32 s16, -7", 20, "s_cmpk_eq_u32 takes 0..65535"),
        (Gfx1100, "s_endpgm -1", 10, "s_endpgm takes 0..65535"),
        (Gfx942, "s_endpgm 0x12345678", 10, "s_endpgm takes 0..65535"),
        (Gfx942, "s_barrier 1", 11, "s_barrier takes no operand"),
        (Gfx950, "ds_gws_init v5 offset:4 gds", 13, "the data register must be even"),
        (Gfx942, "ds_gws_init v8 offset:4", 13, "requires gds"),
        (Gfx1100, "ds_gws_sema_v", 14, "requires gds"),
        (Gfx942, "v_nop_e64_dpp quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf", 1, "no VOP3 DPP form"),
        (Gfx942, "v_clrexcp_dpp quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf", 1, "no 32-bit DPP form"),
        (Gfx942, "s_and_b64 s[16:17], 1.5, s[40:41]", 21, "takes no float literal"),
        (Gfx1201, "s_mov_b64 s[16:17], -1.5", 21, "takes no float literal"),
        (Gfx1100, "s_mov_b64 s[16:17], 0.15915494", 21, "takes no float literal"),
    ];
    refused_at(&bad);
    // llvm-mc 22's bytes for what it takes: sext on an integer SDWA source, neg on a float one,
    // 16-bit values at both ends, WMMA C as an inline constant or null.
    let ok: [(baregpu_isa::Arch, &str, &[u8]); 8] = [
        (Gfx1100, "v_dot2acc_f32_f16 v8, 0x12345678, v40", &[0xff, 0x50, 0x10, 0x04, 0x78, 0x56, 0x34, 0x12]),
        (Gfx942, "v_add_u16_sdwa v0, sext(v1), v2 src0_sel:WORD_0", &[0xf9, 0x04, 0x00, 0x4c, 0x01, 0x16, 0x0c, 0x06]),
        (
            Gfx942,
            "v_ldexp_f16_sdwa v1, v2, sext(v3) src1_sel:WORD_1",
            &[0xf9, 0x06, 0x02, 0x66, 0x02, 0x16, 0x06, 0x0d],
        ),
        (Gfx942, "v_cvt_f32_u32_sdwa v1, sext(v2) src0_sel:WORD_1", &[0xf9, 0x0c, 0x02, 0x7e, 0x02, 0x16, 0x0d, 0x00]),
        (
            Gfx1100,
            "v_add_nc_u16 v0, -32768, v1",
            &[0x00, 0x00, 0x03, 0xd7, 0xff, 0x02, 0x02, 0x00, 0x00, 0x80, 0xff, 0xff],
        ),
        (
            Gfx1100,
            "v_add_nc_u16 v0, 65535, v1",
            &[0x00, 0x00, 0x03, 0xd7, 0xff, 0x02, 0x02, 0x00, 0xff, 0xff, 0x00, 0x00],
        ),
        (
            Gfx1100,
            "v_wmma_f32_16x16x16_f16 v[8:15], v[24:31], v[40:47], 1.0",
            &[0x08, 0x40, 0x40, 0xcc, 0x18, 0x51, 0xca, 0x1b],
        ),
        (
            Gfx1201,
            "v_wmma_f32_16x16x16_f16 v[8:15], v[24:27], v[40:43], null",
            &[0x08, 0x40, 0x40, 0xcc, 0x18, 0x51, 0xf2, 0x19],
        ),
    ];
    assembles_to(&ok);
    // What llvm-mc 22 takes beside those: inline floats in 64-bit scalar sources, a float in a
    // 32-bit one, the ends of the ranges, vcc_lo as SMEM data, an even GWS register, v_nop DPP.
    assembles_to(&[
        (Gfx942, "s_mov_b64 s[16:17], 0.5", &[0xf0, 0x01, 0x90, 0xbe]),
        (Gfx942, "s_mov_b64 s[16:17], 0.15915494309189532", &[0xf8, 0x01, 0x90, 0xbe]),
        (Gfx942, "s_lshl_b64 s[16:17], s[2:3], 1.5", &[0x02, 0xff, 0x90, 0x8e, 0x00, 0x00, 0xc0, 0x3f]),
        (Gfx1100, "s_cmpk_eq_u32 s16, 0xffff", &[0xff, 0xff, 0x90, 0xb4]),
        (Gfx1100, "s_endpgm 65535", &[0xff, 0xff, 0xb0, 0xbf]),
        (Gfx942, "s_load_dword s24, s[20:21], -0x100000", &[0x0a, 0x06, 0x02, 0xc0, 0x00, 0x00, 0x10, 0x00]),
        (Gfx1201, "s_buffer_load_b32 s24, s[20:23], 0x7fffff", &[0x0a, 0x06, 0x02, 0xf4, 0xff, 0xff, 0x7f, 0xf8]),
        (Gfx942, "s_load_dword vcc_lo, s[20:21], 0x10", &[0x8a, 0x1a, 0x02, 0xc0, 0x10, 0x00, 0x00, 0x00]),
        (Gfx1100, "s_load_b128 null, s[2:3], s0", &[0x01, 0x1f, 0x08, 0xf4, 0x00, 0x00, 0x00, 0x00]),
        (Gfx950, "ds_gws_init v8 offset:4 gds", &[0x04, 0x00, 0x33, 0xd9, 0x08, 0x00, 0x00, 0x00]),
        (
            Gfx942,
            "v_nop_dpp quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            &[0xfa, 0x00, 0x00, 0x7e, 0x00, 0xe4, 0x00, 0xff],
        ),
    ]);
}

/// Lines llvm-mc 22 refuses that ours took (found by comparing neg/abs/sext, register and
/// literal variants of the golden lines with llvm-mc): a named scalar register of the other
/// size (`vcc` in a 32-bit operand, `m0` in a 64-bit one; gfx9 has no `vcc_lo` lane mask); a
/// DPP16/DPP8/SDWA form the opcode does not have (`isa::ext_forms`, from the generated form
/// flags); `_dpp` on a VOP3-only opcode (it names the 32-bit encoding's DPP form); a gfx1100
/// VOP3 DPP src1 that is not a VGPR; a literal buffer soffset. Such words print as `.long`.
#[test]
fn sizes_and_forms_llvm_mc_refuses_are_refused() {
    use baregpu_isa::Arch::{Gfx1100, Gfx1201, Gfx942};
    let bad: [(baregpu_isa::Arch, &str, usize, &str); 17] = [
        (Gfx942, "v_mul_f32_e32 v8, vcc, v40", 19, "'vcc' is 2 dwords; v_mul_f32_e32 expects 1"),
        (Gfx1100, "s_add_u32 s16, vcc, s40", 16, "'vcc' is 2 dwords"),
        (Gfx942, "v_cvt_i32_f64_e32 v8, m0", 23, "'m0' is 1 dwords; v_cvt_i32_f64_e32 expects 2"),
        (Gfx942, "v_cmp_class_f32_e64 m0, v28, v40", 21, "'m0' is 1 dwords"),
        (Gfx942, "v_cmp_class_f32_e32 vcc_lo, v28, v40", 21, "expected vcc, found 'vcc_lo'"),
        (
            Gfx1100,
            "v_fmac_dx9_zero_f32_dpp v8, v28, v40 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            1,
            "no 32-bit DPP form of v_fmac_dx9_zero_f32",
        ),
        (
            Gfx1100,
            "v_readlane_b32_e64_dpp s8, v24, m0 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            1,
            "no VOP3 DPP form of v_readlane_b32",
        ),
        (
            Gfx942,
            "v_fmamk_f32_dpp v8, v28, 0x40490fdb, v40 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            1,
            "no 32-bit DPP form of v_fmamk_f32",
        ),
        (
            Gfx1100,
            "v_mad_i32_i24_dpp v12, v24, v40, v56 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            1,
            "no 32-bit DPP form",
        ),
        (Gfx1201, "v_xor_b16_dpp v12.l, v24.l, v40.l dpp8:[0,1,2,3,4,5,6,7]", 1, "no 32-bit DPP form of v_xor_b16"),
        (Gfx1100, "v_add_f32_dpp v8, -v28, v40 dpp8:[0,1,2,3,4,5,6,7]", 29, "dpp8"),
        (Gfx1100, "v_add_f32_e64_dpp v1, v2, s3 quad_perm:[0,1,2,3]", 27, "src1 of v_add_f32_e64_dpp must be a VGPR"),
        (Gfx1100, "v_cmp_eq_f32_e64_dpp s5, v2, 1.0 quad_perm:[0,1,2,3]", 30, "must be a VGPR (llvm-mc"),
        (Gfx1201, "v_dot4_f32_fp8_bf8_e64_dpp v0, v1, v2, s3 dpp8:[0,1,2,3,4,5,6,7]", 40, "src2 of"),
        (Gfx1100, "v_add_f32_e64_dpp v1, v2, s3 dpp8:[0,1,2,3,4,5,6,7]", 27, "must be a VGPR"),
        (Gfx1100, "buffer_load_b32 v1, off, s[4:7], 0x1234", 34, "a MUBUF soffset takes no literal"),
        (Gfx942, "buffer_load_dword v1, off, s[4:7], 65", 36, "soffset takes no literal"),
    ];
    refused_at(&bad);
    // llvm-mc 22's bytes for the neighbours it takes: vcc as a 64-bit address, m0 as a wave32
    // lane mask, `_e64_dpp` on a VOP3-only opcode, gfx1100 src2 and gfx1201 src1 scalars in
    // VOP3 DPP, v_nop_dpp.
    let ok: [(baregpu_isa::Arch, &str, &[u8]); 6] = [
        (Gfx1100, "global_atomic_add_f32 v8, v24, vcc offset:4", &[0x04, 0x00, 0x5a, 0xdd, 0x08, 0x18, 0x6a, 0x00]),
        (Gfx1100, "v_cmp_lt_u64_e64 m0, v[28:29], v[40:41]", &[0x7d, 0x00, 0x59, 0xd4, 0x1c, 0x51, 0x02, 0x00]),
        (
            Gfx1100,
            "v_mad_i32_i24_e64_dpp v12, v24, v40, v56 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            &[0x0c, 0x00, 0x0a, 0xd6, 0xfa, 0x50, 0xe2, 0x04, 0x18, 0xe4, 0x00, 0xff],
        ),
        (
            Gfx1100,
            "v_fma_f32_e64_dpp v1, v2, v3, s4 quad_perm:[0,1,2,3]",
            &[0x01, 0x00, 0x13, 0xd6, 0xfa, 0x06, 0x12, 0x00, 0x02, 0xe4, 0x00, 0xff],
        ),
        (
            Gfx1201,
            "v_add_f32_e64_dpp v1, v2, s3 dpp8:[0,1,2,3,4,5,6,7]",
            &[0x01, 0x00, 0x03, 0xd5, 0xe9, 0x06, 0x00, 0x00, 0x02, 0x88, 0xc6, 0xfa],
        ),
        (
            Gfx942,
            "v_nop_dpp quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            &[0xfa, 0x00, 0x00, 0x7e, 0x00, 0xe4, 0x00, 0xff],
        ),
    ];
    assembles_to(&ok);
    // The words of refused lines print as `.long` (llvm-mc prints text it does not read back).
    let words: [&[u8]; 3] = [
        &[0x00, 0x00, 0x50, 0xe0, 0x00, 0x01, 0x01, 0xff, 0x34, 0x12, 0x00, 0x00],
        &[0x01, 0x00, 0x03, 0xd5, 0xe9, 0x06, 0x00, 0x00, 0x02, 0x88, 0xc6, 0xfa],
        &[0xfa, 0x50, 0x10, 0x0c, 0x1c, 0xe4, 0x00, 0xff],
    ];
    for w in words {
        let text = baregpu_isa::disassemble(&baregpu_isa::decode(Gfx1100, w).unwrap());
        assert!(text.starts_with(".long"), "{text}");
        assert_eq!(assemble(Gfx1100, &text).unwrap(), w, "{text}");
    }
}

/// gfx11+ `src_scc` (253, also spelled `scc`) in a 7-bit scalar field (scratch saddr, SMEM
/// soffset, gfx12 VBUFFER soffset): llvm-mc 22 writes its low 7 bits, m0's code, as it does on
/// gfx9; refused alike (asm_spellings.rs held the old acceptance).
#[test]
fn src_scc_in_a_seven_bit_field_is_refused() {
    use baregpu_isa::Arch::{Gfx1100, Gfx1201};
    let bad = [
        (Gfx1100, "scratch_load_u8 v56, v8, src_scc offset:4", 26, "7-bit saddr field (llvm-mc writes 0x7d)"),
        (Gfx1201, "scratch_load_u8 v56, v8, src_scc offset:4", 26, "7-bit saddr field"),
        (Gfx1100, "s_load_b32 s5, s[2:3], src_scc", 24, "7-bit soffset field"),
        (Gfx1201, "buffer_load_b32 v1, off, s[4:7], src_scc", 34, "7-bit soffset field"),
        (Gfx1100, "scratch_load_b32 v1, off, src_scc", 27, "7-bit saddr field"),
        (Gfx1201, "s_load_b32 s5, s[2:3], scc", 24, "7-bit soffset field"),
        (Gfx1201, "scratch_store_b32 off, v1, src_scc offset:4", 28, "7-bit saddr field"),
    ];
    refused_at(&bad);
    // gfx11 MUBUF's soffset has 8 bits: src_scc is written as itself (llvm-mc's bytes).
    let ok = assemble(Gfx1100, "buffer_load_b32 v1, off, s[4:7], src_scc").unwrap();
    assert_eq!(ok, [0x00, 0x00, 0x50, 0xe0, 0x00, 0x01, 0x01, 0xfd]);
}

/// Operands llvm-mc 22 refuses although its disassembler prints them: a gfx11 64-bit DPP src1
/// that is no VGPR (gfx12 takes SGPRs there), a 16-bit fmaak/fmamk constant that is no 16-bit
/// value, a gfx11 `s_waitcnt_*cnt` register other than null, a gfx9 VGPR-indexing mode above 15,
/// a gather4 dmask of more than one channel and an atomic dmask other than 0x1/0x3/0xf. What llvm-mc takes is taken, with its bytes.
#[test]
fn operands_llvm_mc_prints_but_refuses_are_refused() {
    use baregpu_isa::Arch::{Gfx1100, Gfx1201, Gfx942, Gfx950};
    // Where a line has other candidates (the DPP lines' plain VOP3 form, the images' NSA form),
    // their error is the one reported: only the refusal is checked there.
    let bad = [
        (Gfx1100, "v_med3_i32_e64_dpp v8, v24, s40, v56 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf", None),
        (Gfx1100, "v_add_f32_e64_dpp v8, v24, 1.0 dpp8:[0,1,2,3,4,5,6,7]", None),
        (Gfx1100, "v_fmaak_f16 v6, v4, v0, 0x40818", Some("does not fit its 16 bits")),
        (Gfx1201, "v_fmamk_f16 v1, v2, 0x40818, v3", Some("does not fit its 16 bits")),
        (Gfx1100, "s_waitcnt_vmcnt s16, 0x4d1c", Some("must be null")),
        (Gfx942, "s_set_gpr_idx_on s28, 0x28", Some("the mode is 4 bits")),
        (Gfx950, "s_set_gpr_idx_mode 0x801", Some("the mode is 4 bits")),
        (Gfx1100, "image_gather4_lz v[8:11], v[24:25], s[16:23], s[0:3] dmask:0x5 dim:SQ_RSRC_IMG_2D", None),
        (Gfx1100, "image_atomic_and v[8:9], v[24:25], s[16:23] dmask:0x9 dim:SQ_RSRC_IMG_2D", None),
    ];
    for (arch, line, what) in bad {
        let e = assemble(arch, line).unwrap_err();
        assert_eq!(positions(&e).len(), 1, "{line}: {e}");
        assert!(what.is_none_or(|w| e.to_string().contains(w)), "{line}: {e}");
    }
    let ok: [(baregpu_isa::Arch, &str, &[u8]); 7] = [
        (Gfx942, "s_set_gpr_idx_on s28, gpr_idx(SRC0,DST)", &[0x1c, 0x09, 0x11, 0xbf]),
        (Gfx950, "s_set_gpr_idx_mode 15", &[0x0f, 0x00, 0x9d, 0xbf]),
        (
            Gfx1100,
            "v_med3_i32_e64_dpp v8, v24, v40, s56 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            &[0x08, 0x00, 0x20, 0xd6, 0xfa, 0x50, 0xe2, 0x00, 0x18, 0xe4, 0x00, 0xff],
        ),
        (
            Gfx1201,
            "v_add_f32_e64_dpp v8, v24, s40 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
            &[0x08, 0x00, 0x03, 0xd5, 0xfa, 0x50, 0x00, 0x00, 0x18, 0xe4, 0x00, 0xff],
        ),
        (Gfx1201, "v_fmaak_f16 v1, v2, v3, -1", &[0x02, 0x07, 0x02, 0x70, 0xff, 0xff, 0xff, 0xff]),
        (Gfx1100, "s_waitcnt_vmcnt null, 0x4d1c", &[0x1c, 0x4d, 0xfc, 0xbc]),
        (
            Gfx1100,
            "image_atomic_add v[8:9], v[24:25], s[16:23] dmask:0x3 dim:SQ_RSRC_IMG_2D",
            &[0x04, 0x03, 0x30, 0xf0, 0x18, 0x08, 0x04, 0x00],
        ),
    ];
    assembles_to(&ok);
}

/// Modifiers on constants that llvm-mc 22 refuses, though it folds them into the value elsewhere
/// (`asm::const_mods`): on integer sources, v_mov_b32, v_fmamk/v_fmaak and a VGPR-only src1; an
/// integer with modifiers in an f64 source; values that do not fit the source after the fold;
/// DPP and VOPD; `sext` on a float source, on an opcode without an SDWA form, and off gfx9.
#[test]
fn constants_with_modifiers_llvm_mc_refuses_are_refused() {
    use baregpu_isa::Arch::{Gfx1100, Gfx1201, Gfx942, Gfx950};
    let bad: [(baregpu_isa::Arch, &str); 26] = [
        (Gfx1100, "v_add_f64 v[8:9], neg(0x12345678), v[40:41]"),
        (Gfx1201, "v_add_f64 v[8:9], |65|, v[40:41]"),
        (Gfx1100, "v_add_u32_e32 v8, |0x12345678|, v40"),
        (Gfx942, "v_add_u32_e32 v8, |0x12345678|, v40"),
        (Gfx1100, "v_mov_b32_e32 v8, neg(1.5)"),
        (Gfx950, "v_mov_b32_e32 v8, neg(1.5)"),
        (Gfx1100, "v_fmamk_f32 v8, neg(1.5), 0x1234, v40"),
        (Gfx942, "v_fmamk_f32 v8, neg(1.0), 0x1234, v40"),
        (Gfx1201, "v_fmaak_f32 v8, neg(1.5), v40, 0x1234"),
        (Gfx1100, "v_add_f32_e32 v8, v40, neg(1.0)"),
        (Gfx1201, "v_cmp_class_f32_e32 vcc_lo, v40, neg(1.5)"),
        (Gfx942, "v_rcp_f64_e32 v[8:9], neg(0x3ff80000)"),
        (Gfx1100, "v_rcp_f64_e32 v[8:9], neg(0x3ff80000)"),
        (Gfx942, "v_add_f32_e32 v8, neg(0x100000000), v40"),
        (Gfx1100, "v_add_f16_e32 v8, neg(0x12345), v40"),
        (Gfx1201, "v_add_f32_e32 v8, neg(1.0e40), v40"),
        (Gfx1100, "v_add_f16_e32 v8, neg(1.0e10), v40"),
        (Gfx1100, "v_add_f32_dpp v8, neg(1.5), v40 quad_perm:[0,1,2,3]"),
        (Gfx1100, "v_dual_add_f32 v8, neg(1.0), v40 :: v_dual_mul_f32 v9, v2, v3"),
        (Gfx1201, "v_dual_cndmask_b32 v8, neg(1.0), v40 :: v_dual_mul_f32 v9, v2, v3"),
        (Gfx942, "v_add_f32_e32 v8, sext(65), v40"),
        (Gfx942, "v_cndmask_b32_e32 v8, sext(1), v40, vcc"),
        (Gfx942, "v_readfirstlane_b32 s1, sext(65)"),
        (Gfx950, "v_mov_b64_e32 v[8:9], sext(65)"),
        (Gfx942, "v_cmp_f_i16_e32 vcc, sext(0x12345678), v40"),
        (Gfx1100, "v_cvt_f32_i32_e32 v8, sext(65)"),
    ];
    refused_with(&bad, "");
}

/// SMEM `offset:` beside an SGPR soffset is signed: 21 bits on gfx9 and gfx11, 24 on gfx12
/// (ours wrote 21 bits on gfx12, so a gfx12 word's printed offset did not assemble back).
#[test]
fn smem_offsets_take_the_signed_range_of_their_field() {
    assembles_to(&[
        (
            Arch::Gfx1201,
            "s_load_b32 s0, s[24:25], s2 offset:-0x1daee8 scope:SCOPE_SE",
            &[0x0c, 0x00, 0x20, 0xf4, 0x18, 0x51, 0xe2, 0x04],
        ),
        (
            Arch::Gfx1201,
            "s_load_b32 s0, s[24:25], s2 offset:0x7fffff",
            &[0x0c, 0x00, 0x00, 0xf4, 0xff, 0xff, 0x7f, 0x04],
        ),
        (
            Arch::Gfx1201,
            "s_load_b32 s0, s[24:25], s2 offset:-0x800000",
            &[0x0c, 0x00, 0x00, 0xf4, 0x00, 0x00, 0x80, 0x04],
        ),
        (
            Arch::Gfx1100,
            "s_load_b32 s0, s[24:25], s2 offset:-0x100000",
            &[0x0c, 0x00, 0x00, 0xf4, 0x00, 0x00, 0x10, 0x04],
        ),
        (Arch::Gfx942, "s_load_dword s0, s[24:25], s2 offset:-1", &[0x0c, 0x40, 0x02, 0xc0, 0xff, 0xff, 0x1f, 0x04]),
    ]);
    refused_at(&[
        (Arch::Gfx1201, "s_load_b32 s0, s[24:25], s2 offset:0x800000", 29, "SMEM offset is 24 bits"),
        (Arch::Gfx1100, "s_load_b32 s0, s[24:25], s2 offset:0x100000", 29, "SMEM offset is 21 bits"),
        (Arch::Gfx942, "s_load_dword s0, s[24:25], s2 offset:-0x100001", 31, "SMEM offset is 21 bits"),
    ]);
}
