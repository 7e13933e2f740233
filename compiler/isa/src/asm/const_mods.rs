//! Source modifiers written on a constant where the encoding has no modifier bits for that
//! source (VOP1/VOP2/VOPC): llvm-mc 22 folds them into the constant and writes plain bits, so
//! `v_add_f32_e32 v8, neg(1.5), v40` is `v_add_f32_e32 v8, 0xbfc00000, v40`, and `-|-2.0|` is the
//! inline -2.0. neg flips the sign bit and abs clears it: of the f64 value for a float, of the
//! 16-bit (f16, bf16, packed f16) or 32-bit pattern for an integer; f64 sources take no integer
//! with modifiers. On gfx9, `sext` on a constant of an integer source that has an SDWA form
//! leaves the constant as written. One rule for `fill`, which encodes the folded constant, and
//! for the read-back, which compares the line's constant with it; only lines with modifiers on
//! a constant come here.

use super::parser::{start, Ext};
use super::value::{f16_bits, value, Val};
use crate::inst::Instruction;
use crate::operand::{is_gfx9, src_index, src_val_type, ValType};
use crate::tables::takes_mods;
use baregpu_autogen::isa::FLAG_LITERAL;

/// The source modifiers written on an operand.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mods {
    pub neg: bool,
    pub abs: bool,
    pub sext: bool,
}

/// The plain constant (as text) that `inner`, an operand without its modifiers `m`, becomes in
/// source `si` of `i`; `None` where the modifiers stay: the encoding has bits for them, the
/// operand is no constant, or llvm-mc refuses them there (the caller then refuses the line).
#[cold]
pub(crate) fn folded(i: &Instruction, si: usize, inner: &str, m: Mods) -> Option<String> {
    if si > 1 || !matches!(i.format().name, "VOP1" | "VOP2" | "VOPC") {
        return None;
    }
    // llvm-mc takes no modifiers on v_fmamk/v_fmaak-style opcodes (a constant of their own).
    if i.opcode().flags & FLAG_LITERAL != 0 {
        return None;
    }
    let float_src = takes_mods(i.opcode(), si);
    if m.sext {
        // gfx9 v_pk_fmac_f16's SDWA form reads sext on its f16 sources as well.
        let int_src = !float_src || super::modifier::pk_fmac_drops_mods(i);
        let int_src = int_src && !m.neg && !m.abs && is_gfx9(i.arch) && has_sdwa(i);
        return (int_src && constant(inner)).then(|| inner.to_string());
    }
    if !float_src || !e64_takes_mods(i, si) {
        return None;
    }
    match inner.strip_prefix("lit(").and_then(|x| x.strip_suffix(')')) {
        Some(x) => sign_ops(i, si, x.trim(), m).map(|t| format!("lit({t})")),
        None => sign_ops(i, si, inner, m),
    }
}

/// Why llvm-mc 22 refuses `inner` with neg/abs (`neg_abs`) in source `si` of `i` where the
/// modifier bits stay: an integer literal (no inline constant) in a 64-bit float source, which
/// it has no rule to apply them to (`v_add_f64 v[8:9], neg(65), v[40:41]`).
#[cold]
pub(crate) fn refusal(i: &Instruction, si: usize, inner: &str, neg_abs: bool) -> Option<&'static str> {
    let literal = matches!(value(inner), Val::Int(v) if !(-16..=64).contains(&v));
    let d = i.operands().iter().find(|o| src_index(o.name) == Some(si)).map_or(1, |o| u32::from(o.dwords).max(1));
    (neg_abs && literal && src_val_type(i.arch, i.mnemonic(), si, d) == ValType::F64)
        .then_some("neg/abs on an integer literal in a 64-bit float source (llvm-mc refuses it)")
}

/// Whether the 64-bit form of `i`'s opcode takes neg/abs on source `si`: llvm-mc 22 reads them
/// on a 32-bit encoding's constant only then. gfx11 `v_dot2acc_f32_f16` and `v_pk_fmac_f16`
/// have no such form (`v_pk_fmac_f16 v8, |1.0|, v40` is refused there, folded on gfx9), and
/// `v_cvt_f64_i32_e64` takes none on its integer source.
fn e64_takes_mods(i: &Instruction, si: usize) -> bool {
    // An opcode without a 64-bit form has no `_e32` suffix in the tables.
    let Some(base) = i.mnemonic().strip_suffix("_e32") else { return false };
    let t = crate::tables::Tables::get(i.arch);
    let e64 = t.by_mnemonic.get(format!("{base}_e64").as_str());
    e64.is_some_and(|ops| ops.iter().any(|&o| takes_mods(t.op(o), si)))
}

/// Whether `s` is a number (or `lit(...)` of one), not a register or a name.
fn constant(s: &str) -> bool {
    let s = s.strip_prefix("lit(").and_then(|x| x.strip_suffix(')')).map_or(s, str::trim);
    matches!(value(s), Val::Int(_) | Val::Float(_))
}

/// Whether `i`'s opcode has an SDWA form llvm-mc 22 takes, with `sext`: llvm-mc reads `sext`
/// only on the sources of such opcodes (`v_readfirstlane_b32 s1, sext(65)` and
/// `v_cvt_f32_fp8_e32 v8, sext(65)` are refused, `asm::sdwa_dst`).
fn has_sdwa(i: &Instruction) -> bool {
    super::sdwa_dst::takes_sext(i.mnemonic())
        && start(i.arch, i.op, Ext::Sdwa).is_some_and(|s| crate::ext_forms::refusal(&s).is_none())
}

/// neg/abs applied to the constant `x`'s sign bit in source `si` of `i`, as text.
fn sign_ops(i: &Instruction, si: usize, x: &str, m: Mods) -> Option<String> {
    let d = i.operands().iter().find(|o| src_index(o.name) == Some(si)).map_or(1, |o| u32::from(o.dwords).max(1));
    let ty = src_val_type(i.arch, i.mnemonic(), si, d);
    match value(x) {
        // A float the source's type cannot hold llvm-mc refuses, with modifiers or without.
        Val::Float(f) if !fits(ty, f) => None,
        Val::Float(f) => {
            let f = if m.abs { f.abs() } else { f };
            let f = if m.neg { -f } else { f };
            // Debug prints the shortest text that reads back as the same f64.
            Some(format!("{f:?}"))
        }
        Val::Int(v) => {
            // (sign bit, the pattern's bits, the integers the source takes)
            // Packed halves (`v_pk_fmac_f16`, `v_dot2c_f32_f16`) take a 32-bit integer and flip
            // bit 15 of it.
            let halves = crate::src_type::halves_read_32bit(i.arch, i.mnemonic(), si);
            let (sign, mask, lo, hi) = match ty {
                ValType::PkF16 | ValType::F16 | ValType::Bf16 if halves => {
                    (1 << 15, u32::MAX, i64::from(i32::MIN), i64::from(u32::MAX))
                }
                ValType::PkF16 => (1 << 15, u32::MAX, i64::from(i32::MIN), i64::from(u32::MAX)),
                ValType::F16 | ValType::Bf16 | ValType::B16 => (1 << 15, 0xffff, -0x8000, 0xffff),
                ValType::F32 | ValType::B32 => (1 << 31, u32::MAX, i64::from(i32::MIN), i64::from(u32::MAX)),
                ValType::F64 | ValType::B64 => return None,
            };
            if !(lo..=hi).contains(&v) {
                return None;
            }
            let mut b = v as u32 & mask;
            if m.abs {
                b &= !sign;
            }
            if m.neg {
                b ^= sign;
            }
            Some(format!("{b:#x}"))
        }
        _ => None,
    }
}

/// Whether llvm-mc takes the float `f` in a source of type `ty` (`float_lit`'s rounding).
fn fits(ty: ValType, f: f64) -> bool {
    match ty {
        ValType::F64 | ValType::B64 => f.is_finite(),
        ValType::F16 | ValType::PkF16 | ValType::B16 => f16_bits(f).is_some(),
        ValType::Bf16 => super::float_lit::bf16_bits(f).is_some(),
        ValType::F32 | ValType::B32 => super::float_lit::f32_bits(f).is_some(),
    }
}

/// Whether a literal is a negative integer in an f16 or bf16 source that reads a 16-bit literal
/// (not packed `halves`): llvm-mc 22 writes its low 16 bits (`-65` is the literal 0xffbf, in
/// gfx950 `v_cvt_f32_bf16` and gfx12 `v_dot2_bf16_bf16`'s src2 too), where an integer source
/// gets the 32-bit pattern. `ty` and `halves` are asked only for such a literal.
pub(crate) fn f16_low_half(lit: u32, ty: impl FnOnce() -> ValType, halves: impl FnOnce() -> bool) -> bool {
    lit >= 0xffff_8000 && matches!(ty(), ValType::F16 | ValType::Bf16) && !halves()
}

/// Whether the written integer `w` and the decoded literal `g` of source `si` of `i` are one
/// value by [`f16_low_half`] (the literal's low 16 bits).
pub(crate) fn same_f16_low_half(i: &Instruction, si: usize, w: i64, g: i64) -> bool {
    let ty = || src_val_type(i.arch, i.mnemonic(), si, 1);
    let halves = || crate::src_type::halves_read_32bit(i.arch, i.mnemonic(), si);
    (-0x8000..-16).contains(&w) && g == w & 0xffff && f16_low_half(w as u32, ty, halves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Arch;

    fn inst(arch: Arch, line: &str) -> Instruction {
        crate::asm::assemble_inst(arch, line, 1, 1).expect(line)
    }

    const NEG: Mods = Mods { neg: true, abs: false, sext: false };
    const ABS: Mods = Mods { neg: false, abs: true, sext: false };
    const BOTH: Mods = Mods { neg: true, abs: true, sext: false };
    const SEXT: Mods = Mods { neg: false, abs: false, sext: true };

    #[test]
    fn sign_bits_by_type() {
        let f32 = inst(Arch::Gfx942, "v_add_f32_e32 v8, v1, v40");
        assert_eq!(folded(&f32, 0, "1.5", NEG).as_deref(), Some("-1.5"));
        assert_eq!(folded(&f32, 0, "-2.0", BOTH).as_deref(), Some("-2.0"));
        assert_eq!(folded(&f32, 0, "0x12345678", BOTH).as_deref(), Some("0x92345678"));
        assert_eq!(folded(&f32, 0, "-1", NEG).as_deref(), Some("0x7fffffff"));
        assert_eq!(folded(&f32, 0, "-65", ABS).as_deref(), Some("0x7fffffbf"));
        assert_eq!(folded(&f32, 0, "lit(1.0)", NEG).as_deref(), Some("lit(-1.0)"));
        assert_eq!(folded(&f32, 0, "0x100000000", NEG), None);
        assert_eq!(folded(&f32, 0, "s1", NEG), None);
        assert_eq!(folded(&f32, 0, "1.0e40", NEG), None);
        let f16 = inst(Arch::Gfx1100, "v_add_f16_e32 v8, v1, v40");
        assert_eq!(folded(&f16, 0, "0x1234", NEG).as_deref(), Some("0x9234"));
        assert_eq!(folded(&f16, 0, "-1", NEG).as_deref(), Some("0x7fff"));
        assert_eq!(folded(&f16, 0, "0x12345", NEG), None);
        assert_eq!(folded(&f16, 0, "1.0e10", NEG), None);
        let fmamk = inst(Arch::Gfx942, "v_fmamk_f32 v8, v1, 0x1234, v40");
        assert_eq!(folded(&fmamk, 0, "1.0", NEG), None);
        let halves = inst(Arch::Gfx942, "v_pk_fmac_f16_e32 v8, v1, v40");
        assert_eq!(folded(&halves, 0, "0x12345678", NEG).as_deref(), Some("0x1234d678"));
        assert_eq!(folded(&halves, 0, "-1", NEG).as_deref(), Some("0xffff7fff"));
        let f64 = inst(Arch::Gfx942, "v_rcp_f64_e32 v[8:9], v[2:3]");
        assert_eq!(folded(&f64, 0, "1.5", NEG).as_deref(), Some("-1.5"));
        assert_eq!(folded(&f64, 0, "0x3ff80000", NEG), None);
        // No 64-bit form with modifiers on that source: llvm-mc refuses them.
        let no_e64 = inst(Arch::Gfx1100, "v_pk_fmac_f16 v8, v1, v40");
        assert_eq!(folded(&no_e64, 0, "1.0", ABS), None);
        let int_e64 = inst(Arch::Gfx1100, "v_cvt_f64_i32_e32 v[8:9], v1");
        assert_eq!(folded(&int_e64, 0, "1.5", ABS), None);
        // A 64-bit encoding keeps its modifier bits.
        let e64 = inst(Arch::Gfx1100, "v_add_f32_e64 v8, v1, v40");
        assert_eq!(folded(&e64, 0, "1.5", NEG), None);
    }

    #[test]
    fn sext_on_gfx9_integer_sources() {
        let i32src = inst(Arch::Gfx942, "v_cvt_f32_i32_e32 v8, v1");
        assert_eq!(folded(&i32src, 0, "65", SEXT).as_deref(), Some("65"));
        assert_eq!(folded(&i32src, 0, "v1", SEXT), None);
        let no_sdwa = inst(Arch::Gfx942, "v_readfirstlane_b32 s1, v1");
        assert_eq!(folded(&no_sdwa, 0, "65", SEXT), None);
        let float = inst(Arch::Gfx942, "v_add_f32_e32 v8, v1, v40");
        assert_eq!(folded(&float, 0, "65", SEXT), None);
        let gfx11 = inst(Arch::Gfx1100, "v_cvt_f32_i32_e32 v8, v1");
        assert_eq!(folded(&gfx11, 0, "65", SEXT), None);
    }

    #[test]
    fn f16_negative_integers() {
        assert!(f16_low_half(0xffff_ffbf, || ValType::F16, || false));
        assert!(!f16_low_half(0xffff_ffbf, || ValType::F16, || true));
        assert!(f16_low_half(0xffff_ffbf, || ValType::Bf16, || false));
        assert!(!f16_low_half(0xffff_ffbf, || ValType::Bf16, || true));
        assert!(!f16_low_half(0xffff_ffbf, || ValType::B16, || false));
        assert!(!f16_low_half(0xffff_ffbf, || ValType::F32, || false));
        assert!(!f16_low_half(0x1234, || ValType::F16, || false));
    }
}
