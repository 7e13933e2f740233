//! Decoded instructions (`baregpu_isa`) -> the pre-decoded form ([`super::ops`]).

use super::gfx9;
use super::ops::*;
use baregpu_isa::{Arch, Instruction};

/// Apertures the emulated hardware reports (src_shared_base, src_private_base) for flat
/// addressing of LDS and scratch: the KFD's gfx9+ layout.
pub const SHARED_BASE: u64 = 1 << 48;
pub const PRIVATE_BASE: u64 = 2 << 48;
pub const APERTURE_SIZE: u64 = 1 << 32;

fn inline_float(v: u32, ty: Ty) -> u64 {
    let i = (v - 240) as usize;
    const F32: [u32; 9] = [
        0x3f00_0000,
        0xbf00_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x4000_0000,
        0xc000_0000,
        0x4080_0000,
        0xc080_0000,
        0x3e22_f983,
    ];
    const F64: [u64; 9] = [
        0x3fe0_0000_0000_0000,
        0xbfe0_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0xbff0_0000_0000_0000,
        0x4000_0000_0000_0000,
        0xc000_0000_0000_0000,
        0x4010_0000_0000_0000,
        0xc010_0000_0000_0000,
        0x3fc4_5f30_6dc9_c882,
    ];
    const F16: [u16; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
    match ty {
        Ty::F64 | Ty::B64 => F64[i],
        Ty::F16 | Ty::B16 => F16[i] as u64,
        _ => F32[i] as u64,
    }
}

/// A scalar source field (8 or 9 bits, < 256) as a typed scalar source.
pub fn ssrc(v: u32, ty: Ty, lit: Option<u32>) -> Result<Ss, String> {
    let wide = ty.is64();
    Ok(match v {
        0..=127 => Ss::R(v as u8),
        128..=208 => {
            let i = if v <= 192 { v as i64 - 128 } else { 192 - v as i64 };
            Ss::K(if wide {
                i as u64
            } else if ty.is16() {
                (i as u64) & 0xffff
            } else {
                (i as u32) as u64
            })
        }
        235 => Ss::K(if wide { SHARED_BASE } else { SHARED_BASE >> 32 }),
        236 => Ss::K(if wide { SHARED_BASE + APERTURE_SIZE - 1 } else { (SHARED_BASE + APERTURE_SIZE - 1) >> 32 }),
        237 => Ss::K(if wide { PRIVATE_BASE } else { PRIVATE_BASE >> 32 }),
        238 => Ss::K(if wide { PRIVATE_BASE + APERTURE_SIZE - 1 } else { (PRIVATE_BASE + APERTURE_SIZE - 1) >> 32 }),
        240..=248 => Ss::K(inline_float(v, ty)),
        251 => Ss::Vccz,
        252 => Ss::Execz,
        253 => Ss::Scc,
        255 => {
            let l = lit.ok_or("literal missing")?;
            Ss::K(match ty {
                Ty::F64 => (l as u64) << 32,
                Ty::F16 | Ty::B16 => (l & 0xffff) as u64,
                _ => l as u64,
            })
        }
        _ => return Err(format!("source operand {v} not supported")),
    })
}

pub fn vsrc(v: u32, ty: Ty, lit: Option<u32>) -> Result<Vs, String> {
    if v >= 256 {
        Ok(Vs::V((v - 256) as u16))
    } else {
        Ok(Vs::S(ssrc(v, ty, lit)?))
    }
}

fn sext(v: u32, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v as u64) << s) as i64 >> s
}

fn base(m: &str) -> &str {
    m.strip_suffix("_e32").or_else(|| m.strip_suffix("_e64")).unwrap_or(m)
}

/// What a VALU mnemonic means: operation, source types, destination type.
fn valu_sig(m: &str) -> Option<(VOp, [Ty; 3], Ty)> {
    use Ty::*;
    use VOp as V;
    let b3 = [B32; 3];
    let f3 = [F32; 3];
    let h3 = [F16; 3];
    let d3 = [F64; 3];
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
        "v_pk_fma_f16" => (V::PkFmaF16, h3, B32),
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

fn cmp_sig(m: &str) -> Option<(CmpOp, CmpTy, bool)> {
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

fn cmp_src_ty(t: CmpTy) -> Ty {
    match t {
        CmpTy::F16 => Ty::F16,
        CmpTy::F32 => Ty::F32,
        CmpTy::F64 => Ty::F64,
        CmpTy::I16 | CmpTy::U16 => Ty::B16,
        CmpTy::I32 | CmpTy::U32 => Ty::B32,
        CmpTy::I64 | CmpTy::U64 => Ty::B64,
    }
}

const NULL: u8 = 124;
const VCC: u8 = 106;

pub(super) fn blank(op: VOp, tys: [Ty; 3], dty: Ty) -> Valu {
    Valu {
        op,
        cmp: (CmpOp::F, CmpTy::U32),
        dst: 0,
        sdst: NULL,
        src: [Vs::S(Ss::K(0)); 3],
        nsrc: 0,
        tys,
        dty,
        neg: 0,
        abs: 0,
        opsel: 0,
        opsel_hi: 0,
        clamp: false,
        omod: 0,
        cmpx: false,
        dpp: Dpp::None,
        imm: 0,
    }
}

/// Number of sources an operation reads (before implicit operands are added).
fn arity(op: VOp) -> u8 {
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
        | Bcnt16 => 1,
        Add3 | LshlAdd | AddLshl | LshlOr | AndOr | Or3 | Xor3 | Xad | BfeU | BfeI | Bfi | Alignbit | Alignbyte
        | Perm | MadU24 | MadI24 | Min3I | Max3I | Med3I | Min3U | Max3U | Med3U | Cndmask | SadU32 | CndmaskB16
        | MadU16 | AddCoCi | SubCoCi | SubrevCoCi | MadU64U32 | MadI64I32 | FmaF32 | FmaLegacyF32 | DivFixupF32
        | DivFmasF32 | DivScaleF32 | Med3F32 | Min3F32 | Max3F32 | FmaF16 | DivFixupF16 | Med3F16 | Min3F16
        | Max3F16 | FmaMixF32 | FmaMixLoF16 | FmaMixHiF16 | FmaF64 | DivScaleF64 | DivFmasF64 | DivFixupF64
        | Permlane16 | PermlaneX16 | PkFmaF16 | PkMadU16 | PkMadI16 | Dot2F32F16 | LshlAddU64 | Bitop3 => 3,
        _ => 2,
    }
}

/// The pre-decoded form of one instruction; `Err` names what is not supported.
pub fn lower(arch: Arch, i: &Instruction, pc: u64, resolve: &dyn Fn(u64) -> Tgt) -> Result<Op, String> {
    let gfx9 = gfx9::is_gfx9(arch);
    let canonical;
    let i = if gfx9 {
        canonical = gfx9::canonical_sgprs(i);
        &canonical
    } else {
        i
    };
    let m = i.mnemonic();
    let fmt = i.format();
    // VOP3SD's DPP forms are modifiers of the VOP3SD layout: their encoding is VOP3.
    let enc = match fmt.parent {
        Some("VOP3SD") => "VOP3",
        Some(p) => p,
        None => fmt.name,
    };
    let lit = i.literal;
    let next = pc + i.size() as u64;
    let gfx12 = arch == Arch::Gfx1201;
    let unsupported = || format!("{m}: not supported");
    if let Some(op) = gfx9
        .then(|| {
            gfx9::lower_accvgpr(m, i, lit)
                .or_else(|| gfx9::lower_pk_f32(m, i, lit))
                .or_else(|| gfx9::lower_gpr_idx(m, i, lit))
                .or_else(|| super::mfma::lower(m, i, lit))
        })
        .flatten()
    {
        return op;
    }
    match enc {
        "SOPP" => {
            let imm = i.f("simm16");
            let tgt = || resolve(next.wrapping_add((sext(imm, 16) * 4) as u64));
            Ok(match m {
                "s_endpgm" | "s_endpgm_saved" | "s_endpgm_ordered_ps_done" => Op::End,
                "s_branch" => Op::Branch(tgt()),
                "s_cbranch_scc0" => Op::CBranch(Cond::Scc0, tgt()),
                "s_cbranch_scc1" => Op::CBranch(Cond::Scc1, tgt()),
                "s_cbranch_vccz" => Op::CBranch(Cond::Vccz, tgt()),
                "s_cbranch_vccnz" => Op::CBranch(Cond::Vccnz, tgt()),
                "s_cbranch_execz" => Op::CBranch(Cond::Execz, tgt()),
                "s_cbranch_execnz" => Op::CBranch(Cond::Execnz, tgt()),
                "s_barrier" | "s_barrier_wait" => Op::Barrier,
                "s_trap" => Op::Trap,
                m if m.starts_with("s_wait")
                    || m.starts_with("s_nop")
                    || m.starts_with("s_delay_alu")
                    || m.starts_with("s_clause")
                    || m.starts_with("s_sendmsg")
                    || m.starts_with("s_set_inst_prefetch")
                    || m.starts_with("s_inst_prefetch")
                    || m == "s_barrier_signal"
                    || m == "s_sleep"
                    || m == "s_icache_inv"
                    || m == "s_code_end"
                    || m == "s_setprio"
                    || m == "s_sethalt"
                    || m == "s_denorm_mode"
                    || m == "s_round_mode"
                    || m == "s_ttracedata"
                    || m == "s_singleuse_vdst"
                    || m == "s_version" =>
                {
                    Op::Nop
                }
                _ => return Err(unsupported()),
            })
        }
        "SOP1" | "SOP2" | "SOPC" | "SOPK" => lower_salu(m, enc, i, lit, next, resolve, gfx12),
        "SMEM" => {
            let (n, buffer) = match m {
                "s_load_b32" | "s_load_dword" => (1, false),
                "s_load_b64" | "s_load_dwordx2" => (2, false),
                "s_load_b96" => (3, false),
                "s_load_b128" | "s_load_dwordx4" => (4, false),
                "s_load_b256" | "s_load_dwordx8" => (8, false),
                "s_load_b512" | "s_load_dwordx16" => (16, false),
                "s_buffer_load_b32" => (1, true),
                "s_buffer_load_b64" => (2, true),
                "s_buffer_load_b96" => (3, true),
                "s_buffer_load_b128" => (4, true),
                "s_buffer_load_b256" => (8, true),
                "s_buffer_load_b512" => (16, true),
                // gfx12 sub-dword scalar loads: one SGPR, zero- or sign-extended.
                "s_load_u8" => (SMEM_U8, false),
                "s_load_i8" => (SMEM_I8, false),
                "s_load_u16" => (SMEM_U16, false),
                "s_load_i16" => (SMEM_I16, false),
                "s_buffer_load_u8" => (SMEM_U8, true),
                "s_buffer_load_i8" => (SMEM_I8, true),
                "s_buffer_load_u16" => (SMEM_U16, true),
                "s_buffer_load_i16" => (SMEM_I16, true),
                m if m.starts_with("s_dcache") || m.starts_with("s_gl1_inv") || m.starts_with("s_prefetch") => {
                    return Ok(Op::Nop)
                }
                _ => return Err(unsupported()),
            };
            let bits = if gfx12 { 24 } else { 21 };
            let soff = i.f("soffset");
            let (off, soff) = if gfx9 {
                gfx9::smem_offsets(i)?
            } else {
                (sext(i.f("offset"), bits), if soff == NULL as u32 { Ss::K(0) } else { ssrc(soff, Ty::B32, lit)? })
            };
            Ok(Op::Smem { dst: i.f("sdata") as u8, n, base: (i.f("sbase") * 2) as u8, off, soff, buffer })
        }
        "GLOBAL" | "FLAT" | "SCRATCH" => lower_vmem(m, enc, i, gfx12, gfx9),
        "DS" => lower_ds(m, i, gfx9),
        "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3P" => lower_valu(arch, m, enc, fmt.name, i, lit),
        // Cache invalidations: the emulator has no caches to invalidate.
        "MUBUF" if m == "buffer_gl0_inv" || m == "buffer_gl1_inv" => Ok(Op::Nop),
        _ => Err(unsupported()),
    }
}

fn lower_salu(
    m: &str,
    enc: &str,
    i: &Instruction,
    lit: Option<u32>,
    next: u64,
    resolve: &dyn Fn(u64) -> Tgt,
    gfx12: bool,
) -> Result<Op, String> {
    use SOp as S;
    let unsupported = || format!("{m}: not supported");
    let sdst = i.f("sdst") as u8;
    match m {
        "s_getpc_b64" => return Ok(Op::GetPc { dst: sdst }),
        "s_setpc_b64" => return Ok(Op::SetPc { src: i.f("ssrc0") as u8 }),
        "s_swappc_b64" => return Ok(Op::SwapPc { dst: sdst, src: i.f("ssrc0") as u8 }),
        "s_call_b64" => {
            let imm = i.f("simm16");
            return Ok(Op::CallImm { dst: sdst, tgt: resolve(next.wrapping_add((sext(imm, 16) * 4) as u64)) });
        }
        "s_barrier_signal" | "s_barrier_signal_isfirst" | "s_barrier_init" | "s_barrier_join" | "s_wakeup_barrier" => {
            return Ok(Op::Nop)
        }
        "s_waitcnt_vscnt"
        | "s_waitcnt_vmcnt"
        | "s_waitcnt_expcnt"
        | "s_waitcnt_lgkmcnt"
        | "s_version"
        | "s_subvector_loop_begin"
        | "s_subvector_loop_end" => return Ok(Op::Nop),
        _ => {}
    }
    // (op, a width, b width)
    let (op, a64, b64): (SOp, bool, bool) = match m {
        "s_add_u32" | "s_add_co_u32" => (S::AddU32, false, false),
        "s_sub_u32" | "s_sub_co_u32" => (S::SubU32, false, false),
        "s_add_i32" | "s_add_co_i32" => (S::AddI32, false, false),
        "s_sub_i32" | "s_sub_co_i32" => (S::SubI32, false, false),
        "s_addc_u32" | "s_add_co_ci_u32" => (S::AddcU32, false, false),
        "s_subb_u32" | "s_sub_co_ci_u32" => (S::SubbU32, false, false),
        "s_min_i32" => (S::MinI32, false, false),
        "s_min_u32" => (S::MinU32, false, false),
        "s_max_i32" => (S::MaxI32, false, false),
        "s_max_u32" => (S::MaxU32, false, false),
        "s_cselect_b32" => (S::Cselect32, false, false),
        "s_cselect_b64" => (S::Cselect64, true, true),
        "s_and_b32" => (S::And32, false, false),
        "s_and_b64" => (S::And64, true, true),
        "s_or_b32" => (S::Or32, false, false),
        "s_or_b64" => (S::Or64, true, true),
        "s_xor_b32" => (S::Xor32, false, false),
        "s_xor_b64" => (S::Xor64, true, true),
        "s_andn2_b32" | "s_and_not1_b32" => (S::Andn232, false, false),
        "s_andn2_b64" | "s_and_not1_b64" => (S::Andn264, true, true),
        "s_orn2_b32" | "s_or_not1_b32" => (S::Orn232, false, false),
        "s_orn2_b64" | "s_or_not1_b64" => (S::Orn264, true, true),
        "s_nand_b32" => (S::Nand32, false, false),
        "s_nand_b64" => (S::Nand64, true, true),
        "s_nor_b32" => (S::Nor32, false, false),
        "s_nor_b64" => (S::Nor64, true, true),
        "s_xnor_b32" => (S::Xnor32, false, false),
        "s_xnor_b64" => (S::Xnor64, true, true),
        "s_lshl_b32" => (S::Lshl32, false, false),
        "s_lshl_b64" => (S::Lshl64, true, false),
        "s_lshr_b32" => (S::Lshr32, false, false),
        "s_lshr_b64" => (S::Lshr64, true, false),
        "s_ashr_i32" => (S::Ashr32, false, false),
        "s_ashr_i64" => (S::Ashr64, true, false),
        "s_bfm_b32" => (S::Bfm32, false, false),
        "s_bfm_b64" => (S::Bfm64, false, false),
        "s_mul_i32" => (S::MulI32, false, false),
        "s_bfe_u32" => (S::BfeU32, false, false),
        "s_bfe_i32" => (S::BfeI32, false, false),
        "s_bfe_u64" => (S::BfeU64, true, false),
        "s_bfe_i64" => (S::BfeI64, true, false),
        "s_absdiff_i32" => (S::AbsdiffI32, false, false),
        "s_lshl1_add_u32" => (S::Lshl1Add, false, false),
        "s_lshl2_add_u32" => (S::Lshl2Add, false, false),
        "s_lshl3_add_u32" => (S::Lshl3Add, false, false),
        "s_lshl4_add_u32" => (S::Lshl4Add, false, false),
        "s_pack_ll_b32_b16" => (S::PackLl, false, false),
        "s_pack_lh_b32_b16" => (S::PackLh, false, false),
        "s_pack_hh_b32_b16" => (S::PackHh, false, false),
        "s_pack_hl_b32_b16" => (S::PackHl, false, false),
        "s_mul_hi_u32" => (S::MulHiU32, false, false),
        "s_mul_hi_i32" => (S::MulHiI32, false, false),
        "s_add_nc_u64" => (S::AddU64, true, true),
        "s_sub_nc_u64" => (S::SubU64, true, true),
        "s_mul_u64" => (S::MulU64, true, true),
        "s_add_f32" => (S::AddF32, false, false),
        "s_sub_f32" => (S::SubF32, false, false),
        "s_mul_f32" => (S::MulF32, false, false),
        "s_min_f32" | "s_min_num_f32" => (S::MinF32, false, false),
        "s_max_f32" | "s_max_num_f32" => (S::MaxF32, false, false),
        "s_fmac_f32" => (S::FmacF32, false, false),
        "s_cvt_pk_rtz_f16_f32" => (S::CvtPkRtz, false, false),
        "s_mov_b32" => (S::Mov32, false, false),
        "s_mov_b64" => (S::Mov64, true, true),
        "s_cmov_b32" => (S::Cmov32, false, false),
        "s_cmov_b64" => (S::Cmov64, true, true),
        "s_not_b32" => (S::Not32, false, false),
        "s_not_b64" => (S::Not64, true, true),
        "s_wqm_b32" => (S::Wqm32, false, false),
        "s_wqm_b64" => (S::Wqm64, true, true),
        "s_brev_b32" => (S::Brev32, false, false),
        "s_brev_b64" => (S::Brev64, true, true),
        "s_bcnt0_i32_b32" => (S::Bcnt0_32, false, false),
        "s_bcnt0_i32_b64" => (S::Bcnt0_64, true, true),
        "s_bcnt1_i32_b32" => (S::Bcnt1_32, false, false),
        "s_bcnt1_i32_b64" => (S::Bcnt1_64, true, true),
        "s_ctz_i32_b32" | "s_ff1_i32_b32" => (S::Ctz32, false, false),
        "s_ctz_i32_b64" | "s_ff1_i32_b64" => (S::Ctz64, true, true),
        "s_clz_i32_u32" | "s_flbit_i32_b32" => (S::Clz32, false, false),
        "s_clz_i32_u64" | "s_flbit_i32_b64" => (S::Clz64, true, true),
        "s_cls_i32" | "s_flbit_i32" => (S::Cls32, false, false),
        "s_cls_i32_i64" | "s_flbit_i32_i64" => (S::Cls64, true, true),
        "s_sext_i32_i8" => (S::Sext8, false, false),
        "s_sext_i32_i16" => (S::Sext16, false, false),
        "s_bitset0_b32" => (S::Bitset0_32, false, false),
        "s_bitset0_b64" => (S::Bitset0_64, false, false),
        "s_bitset1_b32" => (S::Bitset1_32, false, false),
        "s_bitset1_b64" => (S::Bitset1_64, false, false),
        "s_abs_i32" => (S::AbsI32, false, false),
        "s_quadmask_b32" => (S::Quadmask32, false, false),
        "s_quadmask_b64" => (S::Quadmask64, true, true),
        "s_and_saveexec_b32" => (S::AndSaveexec, false, false),
        "s_and_saveexec_b64" => (S::AndSaveexec, true, true),
        "s_or_saveexec_b32" => (S::OrSaveexec, false, false),
        "s_or_saveexec_b64" => (S::OrSaveexec, true, true),
        "s_xor_saveexec_b32" => (S::XorSaveexec, false, false),
        "s_xor_saveexec_b64" => (S::XorSaveexec, true, true),
        "s_andn1_saveexec_b32" | "s_and_not0_saveexec_b32" => (S::AndNot0Saveexec, false, false),
        "s_andn1_saveexec_b64" | "s_and_not0_saveexec_b64" => (S::AndNot0Saveexec, true, true),
        "s_andn2_saveexec_b32" | "s_and_not1_saveexec_b32" => (S::AndNot1Saveexec, false, false),
        "s_andn2_saveexec_b64" | "s_and_not1_saveexec_b64" => (S::AndNot1Saveexec, true, true),
        "s_orn1_saveexec_b32" | "s_or_not0_saveexec_b32" => (S::OrNot0Saveexec, false, false),
        "s_orn1_saveexec_b64" | "s_or_not0_saveexec_b64" => (S::OrNot0Saveexec, true, true),
        "s_orn2_saveexec_b32" | "s_or_not1_saveexec_b32" => (S::OrNot1Saveexec, false, false),
        "s_orn2_saveexec_b64" | "s_or_not1_saveexec_b64" => (S::OrNot1Saveexec, true, true),
        "s_nand_saveexec_b32" => (S::NandSaveexec, false, false),
        "s_nand_saveexec_b64" => (S::NandSaveexec, true, true),
        "s_nor_saveexec_b32" => (S::NorSaveexec, false, false),
        "s_nor_saveexec_b64" => (S::NorSaveexec, true, true),
        "s_xnor_saveexec_b32" => (S::XnorSaveexec, false, false),
        "s_xnor_saveexec_b64" => (S::XnorSaveexec, true, true),
        "s_andn1_wrexec_b32" | "s_and_not0_wrexec_b32" => (S::AndNot0Wrexec, false, false),
        "s_andn1_wrexec_b64" | "s_and_not0_wrexec_b64" => (S::AndNot0Wrexec, true, true),
        "s_andn2_wrexec_b32" | "s_and_not1_wrexec_b32" => (S::AndNot1Wrexec, false, false),
        "s_andn2_wrexec_b64" | "s_and_not1_wrexec_b64" => (S::AndNot1Wrexec, true, true),
        "s_cvt_f32_i32" => (S::CvtF32I32, false, false),
        "s_cvt_f32_u32" => (S::CvtF32U32, false, false),
        "s_cvt_i32_f32" => (S::CvtI32F32, false, false),
        "s_cvt_u32_f32" => (S::CvtU32F32, false, false),
        "s_ceil_f32" => (S::CeilF32, false, false),
        "s_floor_f32" => (S::FloorF32, false, false),
        "s_trunc_f32" => (S::TruncF32, false, false),
        "s_rndne_f32" => (S::RndneF32, false, false),
        "s_cvt_f32_f16" => (S::CvtF32F16, false, false),
        "s_cvt_f16_f32" => (S::CvtF16F32, false, false),
        "s_cvt_hi_f32_f16" => (S::CvtHiF32F16, false, false),
        "s_cmp_eq_i32" | "s_cmpk_eq_i32" => (S::CmpEqI32, false, false),
        "s_cmp_lg_i32" | "s_cmpk_lg_i32" => (S::CmpLgI32, false, false),
        "s_cmp_gt_i32" | "s_cmpk_gt_i32" => (S::CmpGtI32, false, false),
        "s_cmp_ge_i32" | "s_cmpk_ge_i32" => (S::CmpGeI32, false, false),
        "s_cmp_lt_i32" | "s_cmpk_lt_i32" => (S::CmpLtI32, false, false),
        "s_cmp_le_i32" | "s_cmpk_le_i32" => (S::CmpLeI32, false, false),
        "s_cmp_eq_u32" | "s_cmpk_eq_u32" => (S::CmpEqU32, false, false),
        "s_cmp_lg_u32" | "s_cmpk_lg_u32" => (S::CmpLgU32, false, false),
        "s_cmp_gt_u32" | "s_cmpk_gt_u32" => (S::CmpGtU32, false, false),
        "s_cmp_ge_u32" | "s_cmpk_ge_u32" => (S::CmpGeU32, false, false),
        "s_cmp_lt_u32" | "s_cmpk_lt_u32" => (S::CmpLtU32, false, false),
        "s_cmp_le_u32" | "s_cmpk_le_u32" => (S::CmpLeU32, false, false),
        "s_cmp_eq_u64" => (S::CmpEqU64, true, true),
        "s_cmp_lg_u64" => (S::CmpLgU64, true, true),
        "s_bitcmp0_b32" => (S::Bitcmp0_32, false, false),
        "s_bitcmp1_b32" => (S::Bitcmp1_32, false, false),
        "s_bitcmp0_b64" => (S::Bitcmp0_64, true, false),
        "s_bitcmp1_b64" => (S::Bitcmp1_64, true, false),
        "s_cmp_lt_f32" => (S::CmpLtF32, false, false),
        "s_cmp_eq_f32" => (S::CmpEqF32, false, false),
        "s_cmp_le_f32" => (S::CmpLeF32, false, false),
        "s_cmp_gt_f32" => (S::CmpGtF32, false, false),
        "s_cmp_lg_f32" => (S::CmpLgF32, false, false),
        "s_cmp_ge_f32" => (S::CmpGeF32, false, false),
        "s_cmp_o_f32" => (S::CmpOF32, false, false),
        "s_cmp_u_f32" => (S::CmpUF32, false, false),
        "s_cmp_nge_f32" => (S::CmpNgeF32, false, false),
        "s_cmp_nlg_f32" => (S::CmpNlgF32, false, false),
        "s_cmp_ngt_f32" => (S::CmpNgtF32, false, false),
        "s_cmp_nle_f32" => (S::CmpNleF32, false, false),
        "s_cmp_neq_f32" => (S::CmpNeqF32, false, false),
        "s_cmp_nlt_f32" => (S::CmpNltF32, false, false),
        "s_movk_i32" => (S::Movk, false, false),
        "s_cmovk_i32" => (S::Cmovk, false, false),
        "s_addk_i32" | "s_addk_co_i32" => (S::Addk, false, false),
        "s_mulk_i32" => (S::Mulk, false, false),
        "s_getreg_b32" => (S::Getreg, false, false),
        "s_setreg_b32" => (S::Setreg, false, false),
        "s_setreg_imm32_b32" => (S::SetregImm, false, false),
        "s_sendmsg_rtn_b32" | "s_sendmsg_rtn_b64" => (S::SendmsgRtn, false, false),
        _ => return Err(unsupported()),
    };
    let _ = gfx12;
    let ty = |w: bool| if w { Ty::B64 } else { Ty::B32 };
    let (a, b) = match enc {
        "SOPK" => {
            let imm = i.f("simm16");
            let k = match op {
                S::CmpEqU32 | S::CmpLgU32 | S::CmpGtU32 | S::CmpGeU32 | S::CmpLtU32 | S::CmpLeU32 => imm as u64,
                S::Getreg | S::Setreg | S::SetregImm => imm as u64,
                _ => sext(imm, 16) as u32 as u64,
            };
            match op {
                // s_cmpk: sdst field is the compared register.
                S::CmpEqI32
                | S::CmpLgI32
                | S::CmpGtI32
                | S::CmpGeI32
                | S::CmpLtI32
                | S::CmpLeI32
                | S::CmpEqU32
                | S::CmpLgU32
                | S::CmpGtU32
                | S::CmpGeU32
                | S::CmpLtU32
                | S::CmpLeU32
                | S::Addk
                | S::Mulk
                | S::Setreg => (Ss::R(sdst), Ss::K(k)),
                S::SetregImm => (Ss::K(lit.unwrap_or(0) as u64), Ss::K(k)),
                _ => (Ss::K(k), Ss::K(0)),
            }
        }
        "SOP1" => {
            let s0 = i.f("ssrc0");
            // Bitset: the source is the bit index, the destination is read-modify-written.
            (ssrc(s0, ty(a64), lit)?, Ss::R(sdst))
        }
        _ => (ssrc(i.f("ssrc0"), ty(a64), lit)?, ssrc(i.f("ssrc1"), ty(b64), lit)?),
    };
    let dst = if enc == "SOPC" { NULL } else { sdst };
    Ok(Op::Salu { op, dst, a, b, wide: a64 })
}

fn lower_vmem(m: &str, enc: &str, i: &Instruction, gfx12: bool, gfx9: bool) -> Result<Op, String> {
    let unsupported = || format!("{m}: not supported");
    let kind = match enc {
        "GLOBAL" => MemKind::Global,
        "FLAT" => MemKind::Flat,
        _ => MemKind::Scratch,
    };
    let name = m.split_once('_').map(|x| x.1).unwrap_or("");
    let op = match name {
        "load_u8" | "load_ubyte" => MemOp::Load { bytes: 1, sign: false, d16: 0 },
        "load_i8" | "load_sbyte" => MemOp::Load { bytes: 1, sign: true, d16: 0 },
        "load_u16" | "load_ushort" => MemOp::Load { bytes: 2, sign: false, d16: 0 },
        "load_i16" | "load_sshort" => MemOp::Load { bytes: 2, sign: true, d16: 0 },
        "load_b32" | "load_dword" => MemOp::Load { bytes: 4, sign: false, d16: 0 },
        "load_b64" | "load_dwordx2" => MemOp::Load { bytes: 8, sign: false, d16: 0 },
        "load_b96" | "load_dwordx3" => MemOp::Load { bytes: 12, sign: false, d16: 0 },
        "load_b128" | "load_dwordx4" => MemOp::Load { bytes: 16, sign: false, d16: 0 },
        "load_d16_u8" => MemOp::Load { bytes: 1, sign: false, d16: 1 },
        "load_d16_i8" => MemOp::Load { bytes: 1, sign: true, d16: 1 },
        "load_d16_b16" => MemOp::Load { bytes: 2, sign: false, d16: 1 },
        "load_d16_hi_u8" => MemOp::Load { bytes: 1, sign: false, d16: 2 },
        "load_d16_hi_i8" => MemOp::Load { bytes: 1, sign: true, d16: 2 },
        "load_d16_hi_b16" => MemOp::Load { bytes: 2, sign: false, d16: 2 },
        "store_b8" | "store_byte" => MemOp::Store { bytes: 1, d16hi: false },
        "store_b16" | "store_short" => MemOp::Store { bytes: 2, d16hi: false },
        "store_d16_hi_b8" | "store_byte_d16_hi" => MemOp::Store { bytes: 1, d16hi: true },
        "store_d16_hi_b16" | "store_short_d16_hi" => MemOp::Store { bytes: 2, d16hi: true },
        "store_b32" | "store_dword" => MemOp::Store { bytes: 4, d16hi: false },
        "store_b64" | "store_dwordx2" => MemOp::Store { bytes: 8, d16hi: false },
        "store_b96" | "store_dwordx3" => MemOp::Store { bytes: 12, d16hi: false },
        "store_b128" | "store_dwordx4" => MemOp::Store { bytes: 16, d16hi: false },
        "inv" | "wb" | "wbinv" => return Ok(Op::Nop),
        n if n.starts_with("atomic_") => {
            let a = &n[7..];
            let (op, wide) = atomic_op(a).ok_or_else(unsupported)?;
            // gfx12: scope_th holds SCOPE in its low two bits and TH above; TH_ATOMIC_RETURN = 1.
            // gfx940+: GLC is named SC0.
            let ret = if gfx12 {
                (i.f("scope_th") >> 2) & 1 != 0
            } else {
                i.field("glc").or(i.field("sc0")).unwrap_or(0) != 0
            };
            MemOp::Atomic { op, wide, ret }
        }
        _ => return Err(unsupported()),
    };
    let (vdst, data, addr) =
        if gfx12 { (i.f("vdst"), i.f("vsrc"), i.f("vaddr")) } else { (i.f("vdst"), i.f("data"), i.f("addr")) };
    let saddr = i.f("saddr");
    let saddr = if saddr == NULL as u32 || saddr == 0x7f { None } else { Some(saddr as u8) };
    let off_bits = if gfx12 { 24 } else { 13 };
    let use_vaddr = match kind {
        MemKind::Scratch => i.f("sve") != 0,
        _ => true,
    };
    // gfx90a+: the data and destination registers are AGPRs when `acc` is set.
    let acc = if gfx9 && gfx9::acc_fields(i) { gfx9::ACC } else { 0 };
    Ok(Op::Mem(VMem {
        kind,
        op,
        vdst: vdst as u16 + acc,
        data: data as u16 + acc,
        addr: addr as u16,
        saddr,
        use_vaddr,
        offset: sext(i.f("offset"), off_bits) as i32,
    }))
}

fn atomic_op(a: &str) -> Option<(AtomicOp, bool)> {
    use AtomicOp as A;
    let (base, wide) = if let Some(b) = a.strip_suffix("_x2") { (b, true) } else { (a, a.ends_with("64")) };
    let op = match base.trim_end_matches("_rtn") {
        "swap_b32" | "swap" | "swap_b64" | "storexchg_rtn_b32" | "storexchg_rtn_b64" | "wrxchg_rtn_b32" => A::Swap,
        "cmpswap_b32" | "cmpswap" | "cmpswap_b64" | "cmpstore_b32" | "cmpstore_rtn_b32" | "cmpstore_b64" => A::Cmpswap,
        "add_u32" | "add" | "add_u64" => A::Add,
        "sub_u32" | "sub" | "sub_u64" => A::Sub,
        "min_i32" | "smin" | "min_i64" => A::Smin,
        "min_u32" | "umin" | "min_u64" => A::Umin,
        "max_i32" | "smax" | "max_i64" => A::Smax,
        "max_u32" | "umax" | "max_u64" => A::Umax,
        "and_b32" | "and" | "and_b64" => A::And,
        "or_b32" | "or" | "or_b64" => A::Or,
        "xor_b32" | "xor" | "xor_b64" => A::Xor,
        "inc_u32" | "inc" | "inc_u64" => A::Inc,
        "dec_u32" | "dec" | "dec_u64" => A::Dec,
        "add_f32" => A::AddF32,
        "min_f32" | "fmin" | "min_num_f32" => A::MinF32,
        "max_f32" | "fmax" | "max_num_f32" => A::MaxF32,
        "add_f64" => A::AddF64,
        "min_f64" | "min_num_f64" => A::MinF64,
        "max_f64" | "max_num_f64" => A::MaxF64,
        "cond_sub_u32" => A::CondSub,
        "sub_clamp_u32" => A::SubClamp,
        _ => return None,
    };
    Some((op, wide))
}

fn lower_ds(m: &str, i: &Instruction, gfx9: bool) -> Result<Op, String> {
    let unsupported = || format!("{m}: not supported");
    let name = &m[3..];
    let o0 = i.f("offset0");
    let o1 = i.f("offset1");
    let single = o0 | (o1 << 8);
    let mut off0 = single;
    let mut off1 = 0;
    let op = match name {
        "load_u8" | "read_u8" => DsOp::Load { bytes: 1, sign: false, d16: 0 },
        "load_i8" | "read_i8" => DsOp::Load { bytes: 1, sign: true, d16: 0 },
        "load_u16" | "read_u16" => DsOp::Load { bytes: 2, sign: false, d16: 0 },
        "load_i16" | "read_i16" => DsOp::Load { bytes: 2, sign: true, d16: 0 },
        "load_b32" | "read_b32" => DsOp::Load { bytes: 4, sign: false, d16: 0 },
        "load_b64" | "read_b64" => DsOp::Load { bytes: 8, sign: false, d16: 0 },
        "load_b96" | "read_b96" => DsOp::Load { bytes: 12, sign: false, d16: 0 },
        "load_b128" | "read_b128" => DsOp::Load { bytes: 16, sign: false, d16: 0 },
        "load_u8_d16" | "read_u8_d16" => DsOp::Load { bytes: 1, sign: false, d16: 1 },
        "load_u8_d16_hi" | "read_u8_d16_hi" => DsOp::Load { bytes: 1, sign: false, d16: 2 },
        "load_i8_d16" | "read_i8_d16" => DsOp::Load { bytes: 1, sign: true, d16: 1 },
        "load_i8_d16_hi" | "read_i8_d16_hi" => DsOp::Load { bytes: 1, sign: true, d16: 2 },
        "load_u16_d16" | "read_u16_d16" => DsOp::Load { bytes: 2, sign: false, d16: 1 },
        "load_u16_d16_hi" | "read_u16_d16_hi" => DsOp::Load { bytes: 2, sign: false, d16: 2 },
        "write_b8_d16_hi" => DsOp::Store { bytes: 1, d16hi: true },
        "write_b16_d16_hi" => DsOp::Store { bytes: 2, d16hi: true },
        "store_b8" | "write_b8" => DsOp::Store { bytes: 1, d16hi: false },
        "store_b16" | "write_b16" => DsOp::Store { bytes: 2, d16hi: false },
        "store_b8_d16_hi" => DsOp::Store { bytes: 1, d16hi: true },
        "store_b16_d16_hi" => DsOp::Store { bytes: 2, d16hi: true },
        "store_b32" | "write_b32" => DsOp::Store { bytes: 4, d16hi: false },
        "store_b64" | "write_b64" => DsOp::Store { bytes: 8, d16hi: false },
        "store_b96" | "write_b96" => DsOp::Store { bytes: 12, d16hi: false },
        "store_b128" | "write_b128" => DsOp::Store { bytes: 16, d16hi: false },
        "load_2addr_b32"
        | "load_2addr_stride64_b32"
        | "load_2addr_b64"
        | "load_2addr_stride64_b64"
        | "read2_b32"
        | "read2st64_b32"
        | "read2_b64"
        | "read2st64_b64" => {
            let bytes = if name.ends_with("b64") { 8 } else { 4 };
            let mul = bytes as u32 * if name.contains("stride64") || name.contains("st64") { 64 } else { 1 };
            off0 = o0 * mul;
            off1 = o1 * mul;
            DsOp::Load2 { bytes }
        }
        "store_2addr_b32"
        | "store_2addr_stride64_b32"
        | "store_2addr_b64"
        | "store_2addr_stride64_b64"
        | "write2_b32"
        | "write2st64_b32"
        | "write2_b64"
        | "write2st64_b64" => {
            let bytes = if name.ends_with("b64") { 8 } else { 4 };
            let mul = bytes as u32 * if name.contains("stride64") || name.contains("st64") { 64 } else { 1 };
            off0 = o0 * mul;
            off1 = o1 * mul;
            DsOp::Store2 { bytes }
        }
        "nop" => DsOp::Nop,
        "bpermute_b32" => DsOp::Bpermute,
        "permute_b32" => DsOp::Permute,
        "swizzle_b32" => DsOp::Swizzle,
        n => {
            let (ret, a) = match n.strip_suffix("_rtn_b32").or_else(|| n.strip_suffix("_rtn_b64")) {
                Some(_) => (true, n.replacen("_rtn", "", 1)),
                None => (n.contains("_rtn_"), n.replace("_rtn_", "_")),
            };
            let (op, wide) = atomic_op(&a).ok_or_else(unsupported)?;
            DsOp::Atomic { op, wide, ret }
        }
    };
    // gfx90a+: the data and destination registers are AGPRs when `acc` is set.
    let acc = if gfx9 && gfx9::acc_fields(i) { gfx9::ACC } else { 0 };
    Ok(Op::Ds(Ds {
        op,
        vdst: i.f("vdst") as u16 + acc,
        addr: i.f("addr") as u16,
        data0: i.f("data0") as u16 + acc,
        data1: i.f("data1") as u16 + acc,
        off0,
        off1,
    }))
}

fn lower_valu(arch: Arch, m: &str, enc: &str, layout: &str, i: &Instruction, lit: Option<u32>) -> Result<Op, String> {
    let unsupported = || format!("{m}: not supported");
    let b = base(m);
    let e32 = matches!(enc, "VOP1" | "VOP2" | "VOPC");
    if b == "v_nop" || b == "v_pipeflush" {
        return Ok(Op::Nop);
    }
    if let Some(op) = b.strip_prefix("v_s_") {
        // gfx12 scalar transcendentals: VOP3 with an SGPR in the vdst field and scalar sources.
        let vector = format!("v_{op}");
        return match lower_valu(arch, &vector, enc, layout, i, lit)? {
            Op::Valu(v) if enc == "VOP3" && arity(v.op) == 1 => Ok(Op::ScalarValu(v)),
            _ => Err(unsupported()),
        };
    }
    let mut v = if let Some((c, t, x)) = cmp_sig(b) {
        let st = cmp_src_ty(t);
        let mut v = blank(VOp::Cmp, [st, if c == CmpOp::Class { Ty::B32 } else { st }, Ty::B32], Ty::Mask);
        v.cmp = (c, t);
        v.cmpx = x;
        v.nsrc = 2;
        v
    } else {
        let (op, tys, dty) = valu_sig(b).ok_or_else(unsupported)?;
        let mut v = blank(op, tys, dty);
        v.nsrc = arity(op);
        v
    };
    let t16 = |field: u32, ty: Ty| -> (u32, bool) {
        // 16-bit operands of 32-bit encodings: VGPR bit 7 selects the high half.
        if e32 && ty.is16() {
            (field & !0x80, field & 0x80 != 0)
        } else {
            (field, false)
        }
    };
    match enc {
        "VOP1" | "VOP2" | "VOPC" => {
            let s0 = i.f("src0");
            let (s0, h0) = if s0 >= 256 {
                let (r, h) = t16(s0 - 256, v.tys[0]);
                (r + 256, h)
            } else {
                (s0, false)
            };
            if !layout.ends_with("_DPP16") && !layout.ends_with("_DPP8") {
                v.src[0] = vsrc(s0, v.tys[0], lit)?;
            }
            v.opsel |= h0 as u8;
            if enc != "VOP1" {
                let (r, h) = t16(i.f("vsrc1"), v.tys[1]);
                v.src[1] = Vs::V(r as u16);
                v.opsel |= (h as u8) << 1;
            }
            if enc == "VOPC" {
                v.dst = VCC as u16;
            } else {
                let (r, h) = t16(i.f("vdst"), v.dty);
                v.dst = r as u16;
                v.opsel |= (h as u8) << 3;
            }
            // DPP: the source register is in the modifier dword.
            if layout.ends_with("_DPP16") {
                let (r, h) = t16(i.f("dpp_src0"), v.tys[0]);
                v.src[0] = Vs::V(r as u16);
                v.opsel = (v.opsel & !1) | h as u8;
                v.neg |= i.f("src0_neg") as u8 | (i.f("src1_neg") as u8) << 1;
                v.abs |= i.f("src0_abs") as u8 | (i.f("src1_abs") as u8) << 1;
                v.dpp = Dpp::D16 {
                    ctrl: i.f("dpp_ctrl") as u16,
                    row_mask: i.f("row_mask") as u8,
                    bank_mask: i.f("bank_mask") as u8,
                    bound_ctrl: i.f("bound_ctrl") != 0,
                    fi: i.f("fi") != 0,
                };
            } else if layout.ends_with("_DPP8") {
                let (r, h) = t16(i.f("dpp_src0"), v.tys[0]);
                v.src[0] = Vs::V(r as u16);
                v.opsel = (v.opsel & !1) | h as u8;
                v.dpp = Dpp::D8 { sel: i.f("lane_sel"), fi: s0 == 234 };
            }
            // Implicit operands of the 32-bit forms.
            match (v.op, b) {
                (VOp::Cndmask | VOp::CndmaskB16, _) => v.src[2] = Vs::S(Ss::R(VCC)),
                (VOp::AddCoCi | VOp::SubCoCi | VOp::SubrevCoCi, _) => {
                    v.src[2] = Vs::S(Ss::R(VCC));
                    v.sdst = VCC;
                }
                (VOp::AddCo | VOp::SubCo | VOp::SubrevCo, _) => v.sdst = VCC,
                (VOp::FmaF32 | VOp::FmaF16 | VOp::FmaF64 | VOp::FmaLegacyF32, _)
                    if b.starts_with("v_fmac") || b.starts_with("v_mac") =>
                {
                    v.src[2] = Vs::V(v.dst);
                    if v.dty.is16() {
                        v.opsel |= (v.opsel >> 3 & 1) << 2;
                    }
                }
                (VOp::FmaF32 | VOp::FmaF16, _) if b.ends_with("mk_f32") || b.ends_with("mk_f16") => {
                    // d = s0 * K + s1
                    v.src[2] = v.src[1];
                    v.src[1] = Vs::S(Ss::K(lit.ok_or("literal missing")? as u64 & mask_of(v.tys[1])));
                    v.opsel = (v.opsel & !0b110) | ((v.opsel & 2) << 1);
                }
                (VOp::FmaF32 | VOp::FmaF16, _) if b.ends_with("ak_f32") || b.ends_with("ak_f16") => {
                    v.src[2] = Vs::S(Ss::K(lit.ok_or("literal missing")? as u64 & mask_of(v.tys[2])));
                }
                (VOp::ReadFirstLane, _) => {}
                _ => {}
            }
            if v.nsrc == 3 && matches!(v.op, VOp::FmaF32 | VOp::FmaF16 | VOp::FmaF64 | VOp::FmaLegacyF32) {
                // fine
            } else if v.nsrc == 3
                && !matches!(v.op, VOp::Cndmask | VOp::CndmaskB16 | VOp::AddCoCi | VOp::SubCoCi | VOp::SubrevCoCi)
            {
                return Err(unsupported());
            }
        }
        "VOP3" | "VOP3P" => {
            let vdst = i.f("vdst");
            v.dst = vdst as u16;
            let dpp = layout.ends_with("_DPP16") || layout.ends_with("_DPP8");
            for k in 0..3 {
                let f = ["src0", "src1", "src2"][k];
                let s = i.f(f);
                let ty = v.tys[k];
                if k == 0 && dpp {
                    continue;
                }
                v.src[k] = vsrc(s, ty, lit)?;
            }
            v.neg = i.f("neg") as u8;
            v.clamp = i.f("clamp") != 0;
            if enc == "VOP3" {
                v.omod = i.f("omod") as u8;
                if layout.starts_with("VOP3SD") {
                    v.sdst = i.f("sdst") as u8;
                } else {
                    v.abs = i.f("abs") as u8;
                    v.opsel = i.f("opsel") as u8;
                }
            } else {
                v.opsel = i.f("opsel") as u8;
                v.opsel_hi = (i.f("opsel_hi") | i.f("opsel_hi2") << 2) as u8;
                v.abs = i.f("neg_hi") as u8; // fma_mix: neg_hi is abs
                if !matches!(v.op, VOp::FmaMixF32 | VOp::FmaMixLoF16 | VOp::FmaMixHiF16) && !super::exec::packed(v.op) {
                    return Err(unsupported());
                }
            }
            if layout.ends_with("_DPP16") {
                v.src[0] = Vs::V(i.f("dpp_src0") as u16);
                v.dpp = Dpp::D16 {
                    ctrl: i.f("dpp_ctrl") as u16,
                    row_mask: i.f("row_mask") as u8,
                    bank_mask: i.f("bank_mask") as u8,
                    bound_ctrl: i.f("bound_ctrl") != 0,
                    fi: i.f("fi") != 0,
                };
            } else if layout.ends_with("_DPP8") {
                v.src[0] = Vs::V(i.f("dpp_src0") as u16);
                v.dpp = Dpp::D8 { sel: i.f("lane_sel"), fi: i.f("src0") == 234 };
            }
            if b.starts_with("v_fmac") || b.starts_with("v_mac") {
                v.src[2] = Vs::V(v.dst);
            }
        }
        _ => return Err(unsupported()),
    }
    if v.op == VOp::Bitop3 {
        // gfx950: the truth table sits in the NEG (bits 2:0), ABS (5:3) and OMOD (7:6) fields.
        v.imm = (i.f("neg") | i.f("abs") << 3 | i.f("omod") << 6) as u8;
        (v.neg, v.abs, v.omod) = (0, 0, 0);
    }
    if v.op == VOp::Cmp && enc != "VOPC" {
        // VOP3 compares: vdst is the SGPR destination.
        v.dst = i.f("vdst") as u16;
    }
    // v_cmpx writes EXEC; on gfx9 also the compare's SGPR destination (VCC for e32).
    if v.cmpx && !gfx9::is_gfx9(arch) {
        v.dst = 126;
    }
    let _ = arch;
    Ok(Op::Valu(v))
}

fn mask_of(ty: Ty) -> u64 {
    if ty.is16() {
        0xffff
    } else {
        0xffff_ffff
    }
}

/// Whether a first dword is VOPD (which the opcode tables do not list), and its size in bytes.
pub fn vopd_size(w0: u32, w1: u32) -> Option<usize> {
    if w0 & 0xfc00_0000 != 0xc800_0000 {
        return None;
    }
    let opx = (w0 >> 22) & 0xf;
    let opy = (w0 >> 17) & 0x1f;
    let lit = (w0 & 0x1ff) == 255 || (w1 & 0x1ff) == 255 || matches!(opx, 1 | 2) || matches!(opy, 1 | 2);
    Some(if lit { 12 } else { 8 })
}

/// VOPD: two VOP2-like operations, decoded here from the raw dwords.
pub fn lower_vopd(w0: u32, w1: u32, lit: Option<u32>) -> Result<Op, String> {
    let opx = (w0 >> 22) & 0xf;
    let opy = (w0 >> 17) & 0x1f;
    let src0x = w0 & 0x1ff;
    let vsrc1x = (w0 >> 9) & 0xff;
    let src0y = w1 & 0x1ff;
    let vsrc1y = (w1 >> 9) & 0xff;
    let vdstx = (w1 >> 24) & 0xff;
    let vdsty = (((w1 >> 17) & 0x7f) << 1) | ((vdstx & 1) ^ 1);
    let one = |op: u32, s0: u32, s1: u32, d: u32| -> Result<Valu, String> {
        let (vop, name) = match op {
            0 => (VOp::FmaF32, "v_dual_fmac_f32"),
            1 => (VOp::FmaF32, "v_dual_fmaak_f32"),
            2 => (VOp::FmaF32, "v_dual_fmamk_f32"),
            3 => (VOp::MulF32, "v_dual_mul_f32"),
            4 => (VOp::AddF32, "v_dual_add_f32"),
            5 => (VOp::SubF32, "v_dual_sub_f32"),
            6 => (VOp::SubrevF32, "v_dual_subrev_f32"),
            7 => (VOp::MulLegacyF32, "v_dual_mul_dx9_zero_f32"),
            8 => (VOp::Mov, "v_dual_mov_b32"),
            9 => (VOp::Cndmask, "v_dual_cndmask_b32"),
            10 => (VOp::MaxF32, "v_dual_max_f32"),
            11 => (VOp::MinF32, "v_dual_min_f32"),
            16 => (VOp::AddU32, "v_dual_add_nc_u32"),
            17 => (VOp::LshlRev, "v_dual_lshlrev_b32"),
            18 => (VOp::And, "v_dual_and_b32"),
            _ => return Err(format!("v_dual opcode {op}: not supported")),
        };
        let ty = if matches!(vop, VOp::Mov | VOp::Cndmask | VOp::AddU32 | VOp::LshlRev | VOp::And) {
            Ty::B32
        } else {
            Ty::F32
        };
        let mut v = blank(vop, [ty, ty, Ty::Mask], ty);
        v.dst = d as u16;
        v.src[0] = vsrc(s0, ty, lit)?;
        v.src[1] = Vs::V(s1 as u16);
        v.nsrc = if vop == VOp::Mov { 1 } else { 2 };
        match op {
            0 => {
                v.src[2] = Vs::V(d as u16);
                v.nsrc = 3;
            }
            1 => {
                v.src[2] = Vs::S(Ss::K(lit.unwrap_or(0) as u64));
                v.nsrc = 3;
            }
            2 => {
                v.src[2] = v.src[1];
                v.src[1] = Vs::S(Ss::K(lit.unwrap_or(0) as u64));
                v.nsrc = 3;
            }
            9 => {
                v.src[2] = Vs::S(Ss::R(VCC));
                v.nsrc = 3;
            }
            _ => {}
        }
        let _ = name;
        Ok(v)
    };
    let x = one(opx, src0x, vsrc1x, vdstx)?;
    let y = one(opy, src0y, vsrc1y, vdsty)?;
    Ok(Op::Vopd(Box::new([x, y])))
}
