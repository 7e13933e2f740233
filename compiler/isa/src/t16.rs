//! Which operands llvm-mc 22 prints as 16-bit register halves (`v1.l`, `v1.h`) on gfx11 (true16).
//! Facts observed from llvm-mc (the golden vectors): base mnemonic (without `_e32`/`_e64`/`_dpp`) ->
//! bit mask over the operand positions.

use baregpu_autogen::isa::Opcode;

use crate::Arch;

static GFX11: &[(&str, u8)] = &[
    ("v_add_f16", 0b111),
    ("v_add_nc_i16", 0b111),
    ("v_add_nc_u16", 0b111),
    ("v_alignbit_b32", 0b1000),
    ("v_alignbyte_b32", 0b1000),
    ("v_and_b16", 0b111),
    ("v_ashrrev_i16", 0b111),
    ("v_ceil_f16", 0b11),
    ("v_cmp_class_f16", 0b110),
    ("v_cmp_eq_f16", 0b110),
    ("v_cmp_eq_i16", 0b110),
    ("v_cmp_eq_u16", 0b110),
    ("v_cmp_f_f16", 0b110),
    ("v_cmp_ge_f16", 0b110),
    ("v_cmp_ge_i16", 0b110),
    ("v_cmp_ge_u16", 0b110),
    ("v_cmp_gt_f16", 0b110),
    ("v_cmp_gt_i16", 0b110),
    ("v_cmp_gt_u16", 0b110),
    ("v_cmp_le_f16", 0b110),
    ("v_cmp_le_i16", 0b110),
    ("v_cmp_le_u16", 0b110),
    ("v_cmp_lg_f16", 0b110),
    ("v_cmp_lt_f16", 0b110),
    ("v_cmp_lt_i16", 0b110),
    ("v_cmp_lt_u16", 0b110),
    ("v_cmp_ne_i16", 0b110),
    ("v_cmp_ne_u16", 0b110),
    ("v_cmp_neq_f16", 0b110),
    ("v_cmp_nge_f16", 0b110),
    ("v_cmp_ngt_f16", 0b110),
    ("v_cmp_nle_f16", 0b110),
    ("v_cmp_nlg_f16", 0b110),
    ("v_cmp_nlt_f16", 0b110),
    ("v_cmp_o_f16", 0b110),
    ("v_cmp_t_f16", 0b110),
    ("v_cmp_u_f16", 0b110),
    ("v_cmpx_class_f16", 0b11),
    ("v_cmpx_eq_f16", 0b11),
    ("v_cmpx_eq_i16", 0b11),
    ("v_cmpx_eq_u16", 0b11),
    ("v_cmpx_f_f16", 0b11),
    ("v_cmpx_ge_f16", 0b11),
    ("v_cmpx_ge_i16", 0b11),
    ("v_cmpx_ge_u16", 0b11),
    ("v_cmpx_gt_f16", 0b11),
    ("v_cmpx_gt_i16", 0b11),
    ("v_cmpx_gt_u16", 0b11),
    ("v_cmpx_le_f16", 0b11),
    ("v_cmpx_le_i16", 0b11),
    ("v_cmpx_le_u16", 0b11),
    ("v_cmpx_lg_f16", 0b11),
    ("v_cmpx_lt_f16", 0b11),
    ("v_cmpx_lt_i16", 0b11),
    ("v_cmpx_lt_u16", 0b11),
    ("v_cmpx_ne_i16", 0b11),
    ("v_cmpx_ne_u16", 0b11),
    ("v_cmpx_neq_f16", 0b11),
    ("v_cmpx_nge_f16", 0b11),
    ("v_cmpx_ngt_f16", 0b11),
    ("v_cmpx_nle_f16", 0b11),
    ("v_cmpx_nlg_f16", 0b11),
    ("v_cmpx_nlt_f16", 0b11),
    ("v_cmpx_o_f16", 0b11),
    ("v_cmpx_t_f16", 0b11),
    ("v_cmpx_u_f16", 0b11),
    ("v_cos_f16", 0b11),
    ("v_cvt_f16_f32", 0b01),
    ("v_cvt_f16_i16", 0b11),
    ("v_cvt_f16_u16", 0b11),
    ("v_cvt_f32_f16", 0b10),
    ("v_cvt_i16_f16", 0b11),
    ("v_cvt_i32_i16", 0b10),
    ("v_cvt_norm_i16_f16", 0b11),
    ("v_cvt_norm_u16_f16", 0b11),
    ("v_cvt_pk_norm_i16_f16", 0b110),
    ("v_cvt_pk_norm_u16_f16", 0b110),
    ("v_cvt_u16_f16", 0b11),
    ("v_cvt_u32_u16", 0b10),
    ("v_div_fixup_f16", 0b1111),
    ("v_dot2_bf16_bf16", 0b1001),
    ("v_dot2_f16_f16", 0b1001),
    ("v_exp_f16", 0b11),
    ("v_floor_f16", 0b11),
    ("v_fma_f16", 0b1111),
    ("v_fmac_f16", 0b111),
    ("v_fract_f16", 0b11),
    ("v_frexp_exp_i16_f16", 0b11),
    ("v_frexp_mant_f16", 0b11),
    ("v_interp_p10_f16_f32", 0b1010),
    ("v_interp_p10_rtz_f16_f32", 0b1010),
    ("v_interp_p2_f16_f32", 0b11),
    ("v_interp_p2_rtz_f16_f32", 0b11),
    ("v_ldexp_f16", 0b111),
    ("v_log_f16", 0b11),
    ("v_lshlrev_b16", 0b111),
    ("v_lshrrev_b16", 0b111),
    ("v_mad_i16", 0b1111),
    ("v_mad_i32_i16", 0b110),
    ("v_mad_u16", 0b1111),
    ("v_mad_u32_u16", 0b110),
    ("v_max3_f16", 0b1111),
    ("v_max3_i16", 0b1111),
    ("v_max3_u16", 0b1111),
    ("v_max_f16", 0b111),
    ("v_max_i16", 0b111),
    ("v_max_u16", 0b111),
    ("v_maxmin_f16", 0b1111),
    ("v_med3_f16", 0b1111),
    ("v_med3_i16", 0b1111),
    ("v_med3_u16", 0b1111),
    ("v_min3_f16", 0b1111),
    ("v_min3_i16", 0b1111),
    ("v_min3_u16", 0b1111),
    ("v_min_f16", 0b111),
    ("v_min_i16", 0b111),
    ("v_min_u16", 0b111),
    ("v_minmax_f16", 0b1111),
    ("v_mov_b16", 0b11),
    ("v_mul_f16", 0b111),
    ("v_mul_lo_u16", 0b111),
    ("v_not_b16", 0b11),
    ("v_or_b16", 0b111),
    ("v_pack_b32_f16", 0b110),
    ("v_rcp_f16", 0b11),
    ("v_rndne_f16", 0b11),
    ("v_rsq_f16", 0b11),
    ("v_sat_pk_u8_i16", 0b01),
    ("v_sin_f16", 0b11),
    ("v_sqrt_f16", 0b11),
    ("v_sub_f16", 0b111),
    ("v_sub_nc_i16", 0b111),
    ("v_sub_nc_u16", 0b111),
    ("v_subrev_f16", 0b111),
    ("v_swap_b16", 0b11),
    ("v_trunc_f16", 0b11),
    ("v_xor_b16", 0b111),
];

/// The base mnemonic: without `_e32`, `_e64`, `_dpp`, `_sdwa`.
pub fn base(m: &str) -> &str {
    let mut m = m;
    for s in ["_dpp", "_sdwa", "_e32", "_e64"] {
        if let Some(x) = m.strip_suffix(s) {
            m = x;
        }
    }
    m
}

/// The true16 operand mask of an opcode.
pub fn mask(arch: Arch, op: &Opcode) -> u8 {
    if arch != Arch::Gfx1100 {
        return 0;
    }
    let b = base(op.mnemonic);
    GFX11.binary_search_by(|(k, _)| k.cmp(&b)).map(|i| GFX11[i].1).unwrap_or(0)
}

/// gfx1201 (fake16 in llvm-mc 22): the operands that are 16-bit in the same positions as on
/// gfx11, which the 32-bit encodings (VOP1/VOP2/VOPC and their DPP) address as v0..v127 only.
pub fn lo128_mask(arch: Arch, op: &Opcode) -> u8 {
    if arch != Arch::Gfx1201 {
        return 0;
    }
    let b = base(op.mnemonic);
    GFX11.binary_search_by(|(k, _)| k.cmp(&b)).map(|i| GFX11[i].1).unwrap_or(0)
}

/// Whether a VGPR operand `k` of `op` in format `fname` ending below register `end` breaks the
/// v0..v127 limit of [`lo128_mask`] (the assembler refuses such a line; the disassembler prints
/// such a word as data).
pub fn lo128_breaks(arch: Arch, fname: &str, op: &Opcode, k: usize, end: u32) -> bool {
    end > 128 && fname.starts_with("VOP") && !fname.starts_with("VOP3") && lo128_mask(arch, op) >> k & 1 != 0
}
