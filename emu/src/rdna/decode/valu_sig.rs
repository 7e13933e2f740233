//! What a VALU mnemonic means: operation, operand types, arity; compares.

use super::*;

/// What a VALU mnemonic means: operation, source types, destination type.
pub(super) fn valu_sig(m: &str) -> Option<(VOp, [Ty; 3], Ty)> {
    valu_sig_int(m)
        .or_else(|| valu_sig_f32(m))
        .or_else(|| valu_sig_f16_f64(m))
        .or_else(|| valu_sig_cdna4(m))
        .or_else(|| valu_sig_gfx9(m))
}

/// gfx9's 16-bit operations, signed integer forms and packing conversions (exec/valu_gfx9.rs).
fn valu_sig_gfx9(m: &str) -> Option<(VOp, [Ty; 3], Ty)> {
    use Ty::*;
    use VOp as V;
    let (b3, h3, w3, f3) = ([B32; 3], [F16; 3], [B16; 3], [F32; 3]);
    Some(match m {
        // The MAD forms are not fused (the product rounds first); `legacy`: the pre-gfx9
        // opcodes, which zero the high half (gfx9::zeroes_high16).
        "v_mad_f16" | "v_mac_f16" | "v_madak_f16" | "v_madmk_f16" | "v_mad_legacy_f16" => (V::MadF16, h3, F16),
        "v_fma_legacy_f16" => (V::FmaF16, h3, F16),
        "v_div_fixup_legacy_f16" => (V::DivFixupF16, h3, F16),
        "v_mad_i16" | "v_mad_legacy_i16" => (V::MadI16, w3, B16),
        "v_add_i16" => (V::AddI16, w3, B16),
        "v_sub_i16" => (V::SubI16, w3, B16),
        "v_subrev_u16" => (V::SubrevU16, w3, B16),
        "v_add_i32" => (V::AddI32, b3, B32),
        "v_sub_i32" => (V::SubI32, b3, B32),
        "v_min3_u16" => (V::Min3U16, w3, B16),
        "v_max3_u16" => (V::Max3U16, w3, B16),
        "v_med3_u16" => (V::Med3U16, w3, B16),
        "v_min3_i16" => (V::Min3I16, w3, B16),
        "v_max3_i16" => (V::Max3I16, w3, B16),
        "v_med3_i16" => (V::Med3I16, w3, B16),
        "v_cvt_pk_u8_f32" => (V::CvtPkU8F32, [F32, B32, B32], B32),
        "v_cvt_pknorm_i16_f32" => (V::CvtPknormI16F32, f3, B32),
        "v_cvt_pknorm_u16_f32" => (V::CvtPknormU16F32, f3, B32),
        "v_cvt_pknorm_i16_f16" => (V::CvtPknormI16F16, h3, B32),
        "v_cvt_pknorm_u16_f16" => (V::CvtPknormU16F16, h3, B32),
        "v_cvt_norm_i16_f16" => (V::CvtNormI16F16, h3, B16),
        "v_cvt_norm_u16_f16" => (V::CvtNormU16F16, h3, B16),
        "v_sat_pk_u8_i16" => (V::SatPkU8I16, b3, B16),
        "v_frexp_mant_f16" => (V::FrexpMantF16, h3, F16),
        "v_frexp_exp_i16_f16" => (V::FrexpExpF16, h3, B16),
        "v_sin_f16" => (V::SinF16, h3, F16),
        "v_cos_f16" => (V::CosF16, h3, F16),
        "v_minimum3_f32" => (V::Minimum3F32, f3, F32),
        "v_maximum3_f32" => (V::Maximum3F32, f3, F32),
        "v_pk_minimum3_f16" => (V::PkMinimum3F16, h3, B32),
        "v_pk_maximum3_f16" => (V::PkMaximum3F16, h3, B32),
        "v_bitop3_b16" => (V::Bitop3, w3, B16),
        "v_cvt_off_f32_i4" => (V::CvtOffF32I4, b3, F32),
        // exec/valu_special.rs
        "v_trig_preop_f64" => (V::TrigPreopF64, [F64, B32, B32], F64),
        "v_cubeid_f32" => (V::CubeIdF32, f3, F32),
        "v_cubesc_f32" => (V::CubeScF32, f3, F32),
        "v_cubetc_f32" => (V::CubeTcF32, f3, F32),
        "v_cubema_f32" => (V::CubeMaF32, f3, F32),
        "v_qsad_pk_u16_u8" => (V::QsadPkU16U8, [B64, B32, B64], B64),
        "v_mqsad_pk_u16_u8" => (V::MqsadPkU16U8, [B64, B32, B64], B64),
        // S2 and D are 128 bits: read and written outside the lane model (Wave::mqsad_u32).
        "v_mqsad_u32_u8" => (V::MqsadU32U8, [B64, B32, B32], B64),
        "v_ashr_pk_i8_i32" => (V::AshrPkI8I32, b3, B16),
        "v_ashr_pk_u8_i32" => (V::AshrPkU8I32, b3, B16),
        // D's byte S1[1:0] replaced by S0 as an unsigned byte: v_cvt_pk_u8_f32 with S2 = D
        // (decode/valu.rs).
        "v_cvt_pkaccum_u8_f32" => (V::CvtPkU8F32, [F32, B32, B32], B32),
        _ => return None,
    })
}

/// gfx950's conversions.
fn valu_sig_cdna4(m: &str) -> Option<(VOp, [Ty; 3], Ty)> {
    use Ty::*;
    use VOp as V;
    Some(match m {
        "v_cvt_pk_bf16_f32" => (V::CvtPkBf16F32, [F32; 3], B32),
        // bf16's sign is bit 15, as f16's: the f16 source modifiers apply unchanged.
        "v_cvt_f32_bf16" => (V::CvtF32Bf16, [F16; 3], F32),
        "v_prng_b32" => (V::Prng, [B32; 3], B32),
        // Dot products; the `c` forms accumulate into VDST (decode/valu.rs). bf16's sign is
        // bit 15, as f16's: the f16 source modifiers apply unchanged.
        "v_dot2c_f32_f16" => (V::Dot2F32F16, [F16, F16, F32], F32),
        "v_dot2_f32_bf16" | "v_dot2c_f32_bf16" => (V::Dot2F32Bf16, [F16, F16, F32], F32),
        "v_dot2_i32_i16" | "v_dot2c_i32_i16" => (V::Dot2I32I16, [B32; 3], B32),
        "v_dot2_u32_u16" => (V::Dot2U32U16, [B32; 3], B32),
        "v_dot4_i32_i8" | "v_dot4c_i32_i8" => (V::Dot4I32I8, [B32; 3], B32),
        "v_dot4_u32_u8" => (V::Dot4U32U8, [B32; 3], B32),
        "v_dot8_i32_i4" | "v_dot8c_i32_i4" => (V::Dot8I32I4, [B32; 3], B32),
        "v_dot8_u32_u4" => (V::Dot8U32U4, [B32; 3], B32),
        "v_mad_u32_u16" => (V::MadU32U16, [B16, B16, B32], B32),
        "v_mad_i32_i16" => (V::MadI32I16, [B16, B16, B32], B32),
        _ => return None,
    })
}

/// Integer and bit operations.
fn valu_sig_int(m: &str) -> Option<(VOp, [Ty; 3], Ty)> {
    use Ty::*;
    use VOp as V;
    let b3 = [B32; 3];
    let h3 = [F16; 3];
    Some(match m {
        "v_add_nc_u32" | "v_add_u32" => (V::AddU32, b3, B32),
        "v_sub_nc_u32" | "v_sub_u32" => (V::SubU32, b3, B32),
        "v_subrev_nc_u32" | "v_subrev_u32" => (V::SubrevU32, b3, B32),
        "v_mul_lo_u32" => (V::MulLo, b3, B32),
        "v_mul_hi_u32" => (V::MulHiU, b3, B32),
        "v_mul_hi_i32" => (V::MulHiI, b3, B32),
        "v_mul_u32_u24" => (V::MulU24, b3, B32),
        "v_mul_i32_i24" => (V::MulI24, b3, B32),
        "v_mul_hi_u32_u24" => (V::MulHiU24, b3, B32),
        "v_mul_hi_i32_i24" => (V::MulHiI24, b3, B32),
        "v_lshlrev_b32" => (V::LshlRev, b3, B32),
        "v_lshrrev_b32" => (V::LshrRev, b3, B32),
        "v_ashrrev_i32" => (V::AshrRev, b3, B32),
        "v_and_b32" => (V::And, b3, B32),
        "v_or_b32" => (V::Or, b3, B32),
        "v_xor_b32" => (V::Xor, b3, B32),
        "v_xnor_b32" => (V::Xnor, b3, B32),
        "v_min_i32" => (V::MinI, b3, B32),
        "v_max_i32" => (V::MaxI, b3, B32),
        "v_min_u32" => (V::MinU, b3, B32),
        "v_max_u32" => (V::MaxU, b3, B32),
        "v_bfm_b32" => (V::Bfm, b3, B32),
        "v_bcnt_u32_b32" => (V::Bcnt, b3, B32),
        "v_mbcnt_lo_u32_b32" => (V::MbcntLo, b3, B32),
        "v_mbcnt_hi_u32_b32" => (V::MbcntHi, b3, B32),
        "v_add3_u32" => (V::Add3, b3, B32),
        "v_lshl_add_u32" => (V::LshlAdd, b3, B32),
        "v_add_lshl_u32" => (V::AddLshl, b3, B32),
        "v_lshl_or_b32" => (V::LshlOr, b3, B32),
        "v_and_or_b32" => (V::AndOr, b3, B32),
        "v_or3_b32" => (V::Or3, b3, B32),
        "v_xor3_b32" => (V::Xor3, b3, B32),
        "v_xad_u32" => (V::Xad, b3, B32),
        "v_bfe_u32" => (V::BfeU, b3, B32),
        "v_bfe_i32" => (V::BfeI, b3, B32),
        "v_bfi_b32" => (V::Bfi, b3, B32),
        "v_alignbit_b32" => (V::Alignbit, b3, B32),
        "v_alignbyte_b32" => (V::Alignbyte, b3, B32),
        "v_perm_b32" => (V::Perm, b3, B32),
        "v_mad_u32_u24" => (V::MadU24, b3, B32),
        "v_mad_i32_i24" => (V::MadI24, b3, B32),
        "v_min3_i32" => (V::Min3I, b3, B32),
        "v_max3_i32" => (V::Max3I, b3, B32),
        "v_med3_i32" => (V::Med3I, b3, B32),
        "v_min3_u32" => (V::Min3U, b3, B32),
        "v_max3_u32" => (V::Max3U, b3, B32),
        "v_med3_u32" => (V::Med3U, b3, B32),
        "v_mov_b32" => (V::Mov, b3, B32),
        "v_movreld_b32" => (V::MovRelD, b3, B32),
        "v_movrels_b32" => (V::MovRelS, b3, B32),
        "v_movrelsd_b32" => (V::MovRelSD, b3, B32),
        "v_movrelsd_2_b32" => (V::MovRelSD2, b3, B32),
        "v_not_b32" => (V::Not, b3, B32),
        "v_bfrev_b32" => (V::Bfrev, b3, B32),
        "v_clz_i32_u32" | "v_ffbh_u32" => (V::Clz, b3, B32),
        "v_ctz_i32_b32" | "v_ffbl_b32" => (V::Ctz, b3, B32),
        "v_cls_i32" | "v_ffbh_i32" => (V::Cls, b3, B32),
        "v_cndmask_b32" => (V::Cndmask, [F32, F32, Mask], B32),
        "v_sad_u32" => (V::SadU32, b3, B32),
        "v_sad_u8" => (V::SadU8, b3, B32),
        "v_sad_hi_u8" => (V::SadHiU8, b3, B32),
        "v_sad_u16" => (V::SadU16, b3, B32),
        "v_msad_u8" => (V::MsadU8, b3, B32),
        "v_lerp_u8" => (V::LerpU8, b3, B32),
        "v_mov_b16" => (V::MovB16, [B16; 3], B16),
        "v_cndmask_b16" => (V::CndmaskB16, [F16, F16, Mask], B16),
        "v_add_nc_u16" | "v_add_u16" => (V::AddU16, [B16; 3], B16),
        "v_sub_nc_u16" | "v_sub_u16" => (V::SubU16, [B16; 3], B16),
        "v_add_nc_i16" => (V::AddI16, [B16; 3], B16),
        "v_sub_nc_i16" => (V::SubI16, [B16; 3], B16),
        "v_mul_lo_u16" => (V::MulLoU16, [B16; 3], B16),
        "v_lshlrev_b16" => (V::LshlRevB16, [B16; 3], B16),
        "v_lshrrev_b16" => (V::LshrRevB16, [B16; 3], B16),
        "v_ashrrev_i16" => (V::AshrRevB16, [B16; 3], B16),
        "v_and_b16" => (V::AndB16, [B16; 3], B16),
        "v_or_b16" => (V::OrB16, [B16; 3], B16),
        "v_xor_b16" => (V::XorB16, [B16; 3], B16),
        "v_not_b16" => (V::NotB16, [B16; 3], B16),
        "v_max_u16" => (V::MaxU16, [B16; 3], B16),
        "v_min_u16" => (V::MinU16, [B16; 3], B16),
        "v_max_i16" => (V::MaxI16, [B16; 3], B16),
        "v_min_i16" => (V::MinI16, [B16; 3], B16),
        "v_mad_u16" => (V::MadU16, [B16; 3], B16),
        // The legacy form zeroes the high half unless OPSEL[3] writes it (gfx9::zeroes_high16).
        "v_mad_legacy_u16" => (V::MadU16, [B16; 3], B16),
        "v_pack_b32_f16" => (V::PackB32F16, h3, B32),
        "v_cvt_pk_i16_i32" => (V::CvtPkI16I32, b3, B32),
        "v_cvt_pk_u16_u32" => (V::CvtPkU16U32, b3, B32),
        "v_cvt_i32_i16" => (V::SextI32I16, [B16; 3], B32),
        "v_cvt_u32_u16" => (V::CvtU32U16F16, [B16; 3], B32),
        "v_add_co_u32" => (V::AddCo, b3, B32),
        "v_sub_co_u32" => (V::SubCo, b3, B32),
        "v_subrev_co_u32" => (V::SubrevCo, b3, B32),
        "v_add_co_ci_u32" | "v_addc_co_u32" => (V::AddCoCi, [B32, B32, Mask], B32),
        "v_sub_co_ci_u32" | "v_subb_co_u32" => (V::SubCoCi, [B32, B32, Mask], B32),
        "v_subrev_co_ci_u32" | "v_subbrev_co_u32" => (V::SubrevCoCi, [B32, B32, Mask], B32),
        "v_mad_u64_u32" | "v_mad_co_u64_u32" => (V::MadU64U32, [B32, B32, B64], B64),
        "v_mad_i64_i32" | "v_mad_co_i64_i32" => (V::MadI64I32, [B32, B32, B64], B64),
        "v_lshlrev_b64" => (V::LshlRev64, [B32, B64, B32], B64),
        "v_lshrrev_b64" => (V::LshrRev64, [B32, B64, B32], B64),
        "v_ashrrev_i64" => (V::AshrRev64, [B32, B64, B32], B64),
        "v_add_nc_u64" => (V::AddU64, [B64; 3], B64),
        "v_mov_b64" => (V::Mov64, [B64; 3], B64),
        _ => return None,
    })
}

/// f32 operations and conversions.
fn valu_sig_f32(m: &str) -> Option<(VOp, [Ty; 3], Ty)> {
    use Ty::*;
    use VOp as V;
    let b3 = [B32; 3];
    let f3 = [F32; 3];
    let h3 = [F16; 3];
    Some(match m {
        "v_add_f32" => (V::AddF32, f3, F32),
        "v_sub_f32" => (V::SubF32, f3, F32),
        "v_subrev_f32" => (V::SubrevF32, f3, F32),
        "v_mul_f32" => (V::MulF32, f3, F32),
        "v_mul_legacy_f32" | "v_mul_dx9_zero_f32" => (V::MulLegacyF32, f3, F32),
        "v_min_f32" | "v_min_num_f32" => (V::MinF32, f3, F32),
        "v_max_f32" | "v_max_num_f32" => (V::MaxF32, f3, F32),
        "v_minimum_f32" => (V::MinimumF32, f3, F32),
        "v_maximum_f32" => (V::MaximumF32, f3, F32),
        "v_ldexp_f32" => (V::LdexpF32, [F32, B32, B32], F32),
        "v_fma_f32" | "v_fmac_f32" | "v_fmaak_f32" | "v_fmamk_f32" | "v_mad_f32" | "v_mac_f32" => (V::FmaF32, f3, F32),
        "v_fma_legacy_f32" | "v_fma_dx9_zero_f32" | "v_fmac_legacy_f32" | "v_fmac_dx9_zero_f32" => {
            (V::FmaLegacyF32, f3, F32)
        }
        "v_div_fixup_f32" => (V::DivFixupF32, f3, F32),
        "v_div_fmas_f32" => (V::DivFmasF32, f3, F32),
        "v_div_scale_f32" => (V::DivScaleF32, f3, F32),
        "v_med3_f32" | "v_med3_num_f32" => (V::Med3F32, f3, F32),
        "v_min3_f32" | "v_min3_num_f32" => (V::Min3F32, f3, F32),
        "v_max3_f32" | "v_max3_num_f32" => (V::Max3F32, f3, F32),
        "v_rcp_f32" | "v_rcp_iflag_f32" => (V::RcpF32, f3, F32),
        "v_rsq_f32" => (V::RsqF32, f3, F32),
        "v_sqrt_f32" => (V::SqrtF32, f3, F32),
        "v_exp_f32" => (V::ExpF32, f3, F32),
        "v_log_f32" => (V::LogF32, f3, F32),
        "v_sin_f32" => (V::SinF32, f3, F32),
        "v_cos_f32" => (V::CosF32, f3, F32),
        "v_floor_f32" => (V::FloorF32, f3, F32),
        "v_ceil_f32" => (V::CeilF32, f3, F32),
        "v_trunc_f32" => (V::TruncF32, f3, F32),
        "v_rndne_f32" => (V::RndneF32, f3, F32),
        "v_fract_f32" => (V::FractF32, f3, F32),
        "v_frexp_mant_f32" => (V::FrexpMantF32, f3, F32),
        "v_frexp_exp_i32_f32" => (V::FrexpExpF32, f3, B32),
        "v_cvt_f32_i32" => (V::CvtF32I32, b3, F32),
        "v_cvt_f32_u32" => (V::CvtF32U32, b3, F32),
        "v_cvt_i32_f32" => (V::CvtI32F32, f3, B32),
        "v_cvt_u32_f32" => (V::CvtU32F32, f3, B32),
        "v_cvt_f32_ubyte0" => (V::CvtF32Ubyte0, b3, F32),
        "v_cvt_f32_ubyte1" => (V::CvtF32Ubyte1, b3, F32),
        "v_cvt_f32_ubyte2" => (V::CvtF32Ubyte2, b3, F32),
        "v_cvt_f32_ubyte3" => (V::CvtF32Ubyte3, b3, F32),
        "v_cvt_rpi_i32_f32" | "v_cvt_nearest_i32_f32" => (V::CvtRpiI32F32, f3, B32),
        "v_cvt_flr_i32_f32" | "v_cvt_floor_i32_f32" => (V::CvtFlrI32F32, f3, B32),
        "v_cvt_pk_rtz_f16_f32" | "v_cvt_pkrtz_f16_f32" => (V::CvtPkRtzF16F32, f3, B32),
        "v_cvt_pk_f16_f32" => (V::CvtPkF32ToF16, f3, B32),
        "v_cvt_f32_f16" => (V::CvtF32F16, h3, F32),
        "v_cvt_f16_f32" => (V::CvtF16F32, f3, F16),
        _ => return None,
    })
}

/// f16 and f64 operations, packed math, lane operations.
fn valu_sig_f16_f64(m: &str) -> Option<(VOp, [Ty; 3], Ty)> {
    use Ty::*;
    use VOp as V;
    let b3 = [B32; 3];
    let f3 = [F32; 3];
    let h3 = [F16; 3];
    let d3 = [F64; 3];
    Some(match m {
        "v_add_f16" => (V::AddF16, h3, F16),
        "v_sub_f16" => (V::SubF16, h3, F16),
        "v_subrev_f16" => (V::SubrevF16, h3, F16),
        "v_mul_f16" => (V::MulF16, h3, F16),
        "v_fma_f16" | "v_fmac_f16" | "v_fmaak_f16" | "v_fmamk_f16" => (V::FmaF16, h3, F16),
        "v_max_f16" | "v_max_num_f16" => (V::MaxF16, h3, F16),
        "v_min_f16" | "v_min_num_f16" => (V::MinF16, h3, F16),
        "v_ldexp_f16" => (V::LdexpF16, [F16, B16, B16], F16),
        "v_sqrt_f16" => (V::SqrtF16, h3, F16),
        "v_rcp_f16" => (V::RcpF16, h3, F16),
        "v_rsq_f16" => (V::RsqF16, h3, F16),
        "v_exp_f16" => (V::ExpF16, h3, F16),
        "v_log_f16" => (V::LogF16, h3, F16),
        "v_floor_f16" => (V::FloorF16, h3, F16),
        "v_ceil_f16" => (V::CeilF16, h3, F16),
        "v_trunc_f16" => (V::TruncF16, h3, F16),
        "v_rndne_f16" => (V::RndneF16, h3, F16),
        "v_fract_f16" => (V::FractF16, h3, F16),
        "v_cvt_f16_i16" => (V::CvtF16I16, [B16; 3], F16),
        "v_cvt_f16_u16" => (V::CvtF16U16, [B16; 3], F16),
        "v_cvt_i16_f16" => (V::CvtI16F16, h3, B16),
        "v_cvt_u16_f16" => (V::CvtU16F16, h3, B16),
        "v_cvt_i32_f16" => (V::CvtI32I16F16, h3, B32),
        "v_div_fixup_f16" => (V::DivFixupF16, h3, F16),
        "v_med3_f16" | "v_med3_num_f16" => (V::Med3F16, h3, F16),
        "v_min3_f16" | "v_min3_num_f16" => (V::Min3F16, h3, F16),
        "v_max3_f16" | "v_max3_num_f16" => (V::Max3F16, h3, F16),
        "v_fma_mix_f32" => (V::FmaMixF32, f3, F32),
        "v_fma_mixlo_f16" => (V::FmaMixLoF16, f3, B32),
        "v_fma_mixhi_f16" => (V::FmaMixHiF16, f3, B32),
        "v_add_f64" | "v_add_f64_e32" => (V::AddF64, d3, F64),
        "v_mul_f64" => (V::MulF64, d3, F64),
        "v_fma_f64" | "v_fmac_f64" => (V::FmaF64, d3, F64),
        "v_min_f64" | "v_min_num_f64" => (V::MinF64, d3, F64),
        "v_max_f64" | "v_max_num_f64" => (V::MaxF64, d3, F64),
        "v_minimum_f64" => (V::MinimumF64, d3, F64),
        "v_maximum_f64" => (V::MaximumF64, d3, F64),
        "v_ldexp_f64" => (V::LdexpF64, [F64, B32, B32], F64),
        "v_div_scale_f64" => (V::DivScaleF64, d3, F64),
        "v_div_fmas_f64" => (V::DivFmasF64, d3, F64),
        "v_div_fixup_f64" => (V::DivFixupF64, d3, F64),
        "v_rcp_f64" => (V::RcpF64, d3, F64),
        "v_rsq_f64" => (V::RsqF64, d3, F64),
        "v_sqrt_f64" => (V::SqrtF64, d3, F64),
        "v_floor_f64" => (V::FloorF64, d3, F64),
        "v_ceil_f64" => (V::CeilF64, d3, F64),
        "v_trunc_f64" => (V::TruncF64, d3, F64),
        "v_rndne_f64" => (V::RndneF64, d3, F64),
        "v_fract_f64" => (V::FractF64, d3, F64),
        "v_frexp_mant_f64" => (V::FrexpMantF64, d3, F64),
        "v_frexp_exp_i32_f64" => (V::FrexpExpF64, d3, B32),
        "v_cvt_f64_i32" => (V::CvtF64I32, b3, F64),
        "v_cvt_f64_u32" => (V::CvtF64U32, b3, F64),
        "v_cvt_i32_f64" => (V::CvtI32F64, d3, B32),
        "v_cvt_u32_f64" => (V::CvtU32F64, d3, B32),
        "v_cvt_f64_f32" => (V::CvtF64F32, f3, F64),
        "v_cvt_f32_f64" => (V::CvtF32F64, d3, F32),
        "v_pk_add_f16" => (V::PkAddF16, h3, B32),
        "v_pk_mul_f16" => (V::PkMulF16, h3, B32),
        "v_pk_fma_f16" | "v_pk_fmac_f16" => (V::PkFmaF16, h3, B32),
        "v_pk_max_f16" | "v_pk_max_num_f16" => (V::PkMaxF16, h3, B32),
        "v_pk_min_f16" | "v_pk_min_num_f16" => (V::PkMinF16, h3, B32),
        "v_pk_add_u16" => (V::PkAddU16, [B16; 3], B32),
        "v_pk_sub_u16" => (V::PkSubU16, [B16; 3], B32),
        "v_pk_add_i16" => (V::PkAddI16, [B16; 3], B32),
        "v_pk_sub_i16" => (V::PkSubI16, [B16; 3], B32),
        "v_pk_mul_lo_u16" => (V::PkMulLoU16, [B16; 3], B32),
        "v_pk_lshlrev_b16" => (V::PkLshlrevB16, [B16; 3], B32),
        "v_pk_lshrrev_b16" => (V::PkLshrrevB16, [B16; 3], B32),
        "v_pk_ashrrev_i16" => (V::PkAshrrevI16, [B16; 3], B32),
        "v_pk_max_i16" => (V::PkMaxI16, [B16; 3], B32),
        "v_pk_min_i16" => (V::PkMinI16, [B16; 3], B32),
        "v_pk_max_u16" => (V::PkMaxU16, [B16; 3], B32),
        "v_pk_min_u16" => (V::PkMinU16, [B16; 3], B32),
        "v_pk_mad_u16" => (V::PkMadU16, [B16; 3], B32),
        "v_pk_mad_i16" => (V::PkMadI16, [B16; 3], B32),
        "v_dot2_f32_f16" => (V::Dot2F32F16, [F16, F16, F32], F32),
        "v_readlane_b32" => (V::ReadLane, b3, B32),
        "v_readfirstlane_b32" => (V::ReadFirstLane, b3, B32),
        "v_writelane_b32" => (V::WriteLane, b3, B32),
        "v_permlane16_b32" => (V::Permlane16, b3, B32),
        "v_permlanex16_b32" => (V::PermlaneX16, b3, B32),
        "v_lshl_add_u64" => (V::LshlAddU64, [B64, B32, B64], B64),
        "v_bitop3_b32" => (V::Bitop3, b3, B32),
        _ => return None,
    })
}

pub(super) fn cmp_sig(m: &str) -> Option<(CmpOp, CmpTy, bool)> {
    let (x, rest) =
        if let Some(r) = m.strip_prefix("v_cmpx_") { (true, r) } else { (false, m.strip_prefix("v_cmp_")?) };
    let (c, t) = rest.split_once('_')?;
    let ty = match t {
        "f16" => CmpTy::F16,
        "f32" => CmpTy::F32,
        "f64" => CmpTy::F64,
        "i16" => CmpTy::I16,
        "u16" => CmpTy::U16,
        "i32" => CmpTy::I32,
        "u32" => CmpTy::U32,
        "i64" => CmpTy::I64,
        "u64" => CmpTy::U64,
        _ => return None,
    };
    let op = match c {
        "f" => CmpOp::F,
        "lt" => CmpOp::Lt,
        "eq" => CmpOp::Eq,
        "le" => CmpOp::Le,
        "gt" => CmpOp::Gt,
        "lg" => CmpOp::Lg,
        "ne" => CmpOp::Ne,
        "ge" => CmpOp::Ge,
        "o" => CmpOp::O,
        "u" => CmpOp::U,
        "nge" => CmpOp::Nge,
        "nlg" => CmpOp::Nlg,
        "ngt" => CmpOp::Ngt,
        "nle" => CmpOp::Nle,
        "neq" => CmpOp::Neq,
        "nlt" => CmpOp::Nlt,
        "t" | "tru" => CmpOp::T,
        "class" => CmpOp::Class,
        _ => return None,
    };
    Some((op, ty, x))
}

pub(super) fn cmp_src_ty(t: CmpTy) -> Ty {
    match t {
        CmpTy::F16 => Ty::F16,
        CmpTy::F32 => Ty::F32,
        CmpTy::F64 => Ty::F64,
        CmpTy::I16 | CmpTy::U16 => Ty::B16,
        CmpTy::I32 | CmpTy::U32 => Ty::B32,
        CmpTy::I64 | CmpTy::U64 => Ty::B64,
    }
}

/// Number of sources an operation reads (before implicit operands are added).
pub(super) fn arity(op: VOp) -> u8 {
    use VOp::*;
    match op {
        Mov | MovRelD | MovRelS | MovRelSD | MovRelSD2 | Not | Bfrev | Clz | Ctz | Cls | MovB16 | NotB16
        | SextI32I16 | Mov64 | RcpF32 | RsqF32 | SqrtF32 | ExpF32 | LogF32 | SinF32 | CosF32 | FloorF32 | CeilF32
        | TruncF32 | RndneF32 | FractF32 | FrexpMantF32 | FrexpExpF32 | CvtF32I32 | CvtF32U32 | CvtI32F32
        | CvtU32F32 | CvtF32Ubyte0 | CvtF32Ubyte1 | CvtF32Ubyte2 | CvtF32Ubyte3 | CvtRpiI32F32 | CvtFlrI32F32
        | CvtF32F16 | CvtF16F32 | SqrtF16 | RcpF16 | RsqF16 | ExpF16 | LogF16 | FloorF16 | CeilF16 | TruncF16
        | RndneF16 | FractF16 | CvtF16I16 | CvtF16U16 | CvtI16F16 | CvtU16F16 | CvtI32I16F16 | CvtU32U16F16
        | RcpF64 | RsqF64 | SqrtF64 | FloorF64 | CeilF64 | TruncF64 | RndneF64 | FractF64 | FrexpMantF64
        | FrexpExpF64 | CvtF64I32 | CvtF64U32 | CvtI32F64 | CvtU32F64 | CvtF64F32 | CvtF32F64 | ReadFirstLane
        | Bcnt16 | CvtF32Bf16 | Prng | CvtNormI16F16 | CvtNormU16F16 | SatPkU8I16 | FrexpMantF16 | FrexpExpF16
        | SinF16 | CosF16 | CvtOffF32I4 => 1,
        Add3 | LshlAdd | AddLshl | LshlOr | AndOr | Or3 | Xor3 | Xad | BfeU | BfeI | Bfi | Alignbit | Alignbyte
        | Perm | MadU24 | MadI24 | Min3I | Max3I | Med3I | Min3U | Max3U | Med3U | Cndmask | SadU32 | SadU8
        | SadHiU8 | SadU16 | MsadU8 | LerpU8 | CndmaskB16 | MadU16 | AddCoCi | SubCoCi | SubrevCoCi | MadU64U32
        | MadI64I32 | FmaF32 | FmaLegacyF32 | DivFixupF32 | DivFmasF32 | DivScaleF32 | Med3F32 | Min3F32 | Max3F32
        | FmaF16 | DivFixupF16 | Med3F16 | Min3F16 | Max3F16 | FmaMixF32 | FmaMixLoF16 | FmaMixHiF16 | FmaF64
        | DivScaleF64 | DivFmasF64 | DivFixupF64 | Permlane16 | PermlaneX16 | PkFmaF16 | PkMadU16 | PkMadI16
        | Dot2F32F16 | Dot2F32Bf16 | Dot2I32I16 | Dot2U32U16 | Dot4I32I8 | Dot4U32U8 | Dot8I32I4 | Dot8U32U4
        | LshlAddU64 | Bitop3 | MadU32U16 | MadI32I16 | MadF16 | MadI16 | Min3U16 | Max3U16 | Med3U16 | Min3I16
        | Max3I16 | Med3I16 | CvtPkU8F32 | Minimum3F32 | Maximum3F32 | PkMinimum3F16 | PkMaximum3F16 | CubeIdF32
        | CubeScF32 | CubeTcF32 | CubeMaF32 | QsadPkU16U8 | MqsadPkU16U8 | MqsadU32U8 | AshrPkI8I32 | AshrPkU8I32 => 3,
        _ => 2,
    }
}
