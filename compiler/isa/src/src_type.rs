//! The value type llvm-mc 22 reads a VALU/SALU source as: which bit patterns it folds into an
//! inline constant (`0x3800` is 0.5 for an f16 source, a literal for an f32 one) and how a float
//! token becomes literal bits. The rules follow llvm-mc's per-operand types, probed on all four
//! targets with `0x3800`, `0x3f000000`, `0x3f00`, `0x38003800` in every source of every VALU
//! opcode of the golden vectors.

use crate::operand::{is_gfx9, ValType};
use crate::Arch;
use baregpu_autogen::isa::{src_types, SrcType};

/// Per mnemonic (without its encoding suffix, sorted), the types of src0..src2.
type Table = &'static [(&'static str, [Option<SrcType>; 3])];

fn table(arch: Arch) -> Table {
    match arch {
        Arch::Gfx1100 => src_types::GFX1100,
        Arch::Gfx1201 => src_types::GFX1201,
        Arch::Gfx942 => src_types::GFX942,
        Arch::Gfx950 => src_types::GFX950,
    }
}

/// The value type of source `src` (0 = src0) of `mnemonic` (with or without its encoding
/// suffix), `dwords` wide, as llvm-mc 22 reads it (generated table `src_types`). A source the
/// table does not hold (a VGPR-only one, an unknown mnemonic) is read as a 32- or 64-bit one.
pub fn src_val_type(arch: Arch, mnemonic: &str, src: usize, dwords: u32) -> ValType {
    let t = table(arch);
    let base = base_name(mnemonic);
    let found = t.binary_search_by(|(m, _)| (*m).cmp(base)).ok().and_then(|i| t[i].1.get(src).copied().flatten());
    match found {
        Some(ty) => val_type(ty),
        None if dwords >= 2 => ValType::B64,
        None => ValType::F32,
    }
}

fn val_type(t: SrcType) -> ValType {
    match t {
        SrcType::B16 => ValType::B16,
        SrcType::F16 => ValType::F16,
        SrcType::Bf16 => ValType::Bf16,
        SrcType::PkF16 => ValType::PkF16,
        SrcType::F32 => ValType::F32,
        SrcType::B64 => ValType::B64,
        SrcType::F64 => ValType::F64,
    }
}

/// gfx12 SALU instructions whose sources are f16 to llvm-mc 22 (it folds `0x3800` into 0.5 there).
const SALU_F16: [&str; 8] = [
    "s_add_f16",
    "s_sub_f16",
    "s_mul_f16",
    "s_fmac_f16",
    "s_max_num_f16",
    "s_min_num_f16",
    "s_maximum_f16",
    "s_minimum_f16",
];

/// The value type of source `src` (0 = src0) of `mnemonic`, `dwords` wide.
pub fn name_rule_type(arch: Arch, mnemonic: &str, src: usize, dwords: u32) -> ValType {
    if dwords >= 2 && mnemonic.contains("f64") {
        return ValType::F64;
    }
    if dwords >= 2 {
        return ValType::B64;
    }
    if mnemonic.starts_with("s_") {
        // gfx12 SALU: only the SOP2 f16 arithmetic takes f16 sources; to llvm-mc 22 the SOP1/SOPC
        // "f16" sources are 32-bit (`s_cmp_lt_f16 0x3800, s2` keeps the literal, `s_ceil_f16 s5,
        // 0x3f000000` is 0.5).
        return if SALU_F16.contains(&mnemonic) { ValType::F16 } else { ValType::F32 };
    }
    let base = base_name(mnemonic);
    if base == "v_pk_fmac_f16" && !is_gfx9(arch) {
        // gfx11+ VOP2 packed math: an inline constant fills both halves, so 0.5 alone is a
        // literal (gfx9 reads it as f16).
        return ValType::PkF16;
    }
    if let Some(rest) = base.strip_prefix("v_cvt_") {
        return cvt_type(arch, rest, src);
    }
    if let Some(rest) = base.strip_prefix("v_dot2c_").or_else(|| base.strip_prefix("v_dot2_")) {
        // v_dot2_<acc>_<in>: src0/src1 of the input type, src2 (the accumulator) of the result's.
        if let Some((acc, input @ ("f16" | "bf16"))) = rest.split_once('_') {
            return type_token(if src >= 2 { acc } else { input }, false).unwrap_or(ValType::F32);
        }
    }
    if is_gfx9(arch) && src == 1 && base.starts_with("v_cmp") && base.contains("_class_") {
        // The class mask is a 32-bit integer.
        return ValType::F32;
    }
    if base.contains("_bf16") {
        // bf16 sources (VOPD v_dual_dot2acc_f32_bf16...): `0x3f00` is 0.5, `0x3800` a literal.
        return ValType::Bf16;
    }
    if base.contains("f16") || base.contains("_mix") {
        // Mixed-precision sources take f16 literals and inline-constant patterns (llvm-mc 22:
        // `v_fma_mix_f32 v0, 1.5, ...` writes 0x3e00, `0x3c00` is the constant 1.0).
        ValType::F16
    } else {
        ValType::F32
    }
}

/// The mnemonic without its encoding suffix.
fn base_name(m: &str) -> &str {
    ["_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"].iter().find_map(|s| m.strip_suffix(s)).unwrap_or(m)
}

/// Conversions `v_cvt_[scalef32_][sr_][pk_]<dst>_<src>`: src0 is of the last type named; the
/// scale and seed operands are 32-bit, as is src1 of a two-source pack of 32-bit values.
fn cvt_type(arch: Arch, rest: &str, src: usize) -> ValType {
    let last = rest.rsplit('_').next().unwrap_or(rest);
    // gfx11+ v_cvt_pk_f32_fp8/bf8 read a 16-bit pair of bytes, typed f16 by llvm-mc.
    let pair16 = !is_gfx9(arch) && rest.starts_with("pk_f32_");
    let t = type_token(last, pair16).unwrap_or(ValType::F32);
    if src == 0 || !rest.starts_with("scalef32") && t == ValType::F16 && !rest.starts_with("sr_") {
        t
    } else {
        ValType::F32
    }
}

/// The value type of a type name in a mnemonic (`f16`, `bf16`, `i16`, `f32`...).
fn type_token(t: &str, pair16: bool) -> Option<ValType> {
    Some(match t {
        "f16" => ValType::F16,
        "bf16" => ValType::Bf16,
        "i16" | "u16" => ValType::B16,
        "fp8" | "bf8" if pair16 => ValType::F16,
        "f32" | "i32" | "u32" | "fp8" | "bf8" | "fp4" | "fp6" | "bf6" => ValType::F32,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One-off: the generated table against the name rules, for every probed source.
    #[test]
    fn table_matches_name_rules() {
        let mut diffs = Vec::new();
        for arch in Arch::ALL {
            let tab = baregpu_autogen::isa::ARCHS.iter().find(|a| a.name == arch.name()).unwrap();
            for (m, tys) in table(arch) {
                for (src, ty) in tys.iter().enumerate() {
                    let Some(ty) = ty else { continue };
                    let dw: Vec<u8> = tab
                        .opcodes
                        .iter()
                        .filter(|o| base_name(o.mnemonic) == *m)
                        .flat_map(|o| o.operands.iter())
                        .filter(|o| {
                            matches!(
                                (o.name, src),
                                ("src0" | "ssrc0" | "src0x" | "src0y", 0) | ("src1" | "ssrc1", 1) | ("src2", 2)
                            )
                        })
                        .map(|o| o.dwords)
                        .collect();
                    let d = u32::from(dw.iter().copied().max().unwrap_or(1));
                    let old = name_rule_type(arch, m, src, d);
                    let new = val_type(*ty);
                    let same = old == new || matches!((old, new), (ValType::B32, ValType::F32));
                    if !same {
                        diffs.push(format!("{} {m} src{src} dw{d:?}{dw:?}: name rule {old:?}, table {new:?}", arch.name()));
                    }
                }
            }
        }
        std::fs::write("/tmp/srctypegen/diffs.txt", diffs.join("\n")).unwrap();
        assert!(diffs.is_empty(), "{} disagreements", diffs.len());
    }

    #[test]
    fn probed_types() {
        let g12 = Arch::Gfx1201;
        let g9 = Arch::Gfx950;
        assert_eq!(src_val_type(g12, "v_cvt_f16_f32_e32", 0, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_cvt_f32_f16_e64", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "v_cvt_f16_u16_e32", 0, 1), ValType::B16);
        assert_eq!(src_val_type(g12, "v_cvt_pk_f32_fp8_e32", 0, 1), ValType::F16);
        assert_eq!(src_val_type(Arch::Gfx942, "v_cvt_pk_f32_fp8", 0, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_cvt_pk_rtz_f16_f32_e64", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_cvt_pknorm_i16_f16", 1, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "v_dot2_f32_f16", 2, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_dot2_f32_bf16", 0, 1), ValType::Bf16);
        assert_eq!(src_val_type(g12, "v_dot2_f16_f16", 2, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "v_dual_dot2acc_f32_bf16", 0, 1), ValType::Bf16);
        assert_eq!(src_val_type(g12, "v_pk_fmac_f16", 0, 1), ValType::PkF16);
        assert_eq!(src_val_type(Arch::Gfx942, "v_pk_fmac_f16_e32", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g9, "v_cvt_scalef32_pk_fp8_f16", 0, 1), ValType::F16);
        assert_eq!(src_val_type(g9, "v_cvt_scalef32_pk_fp8_f16", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g9, "v_cvt_scalef32_sr_fp8_f16", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g9, "v_cvt_sr_f16_f32", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g9, "v_cmp_class_f16_e64", 1, 1), ValType::F32);
        assert_eq!(src_val_type(g9, "v_add_f16_e64", 1, 1), ValType::F16);
        assert_eq!(src_val_type(g12, "s_cmp_lt_f16", 0, 1), ValType::F32);
        assert_eq!(src_val_type(g12, "v_add_f64_e64", 0, 2), ValType::F64);
    }
}
