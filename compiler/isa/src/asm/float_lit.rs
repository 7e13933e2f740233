//! A float token written where a literal goes, as llvm-mc 22 takes it. It rounds the value to the
//! nearest (ties to even) in the source's float width and refuses it when that overflows or
//! underflows (a result below the smallest normal that is inexact): `1.0e40` and `1.0e-40` in an
//! f32 (or any 32-bit) source, `65520.0` in an f16 one. bf16 sources are range-checked as f16
//! (llvm-mc picks the semantics by operand size) but written as bf16 bits (`1.1` is 0x3f8d).
//! A 64-bit float source takes any float (the literal is the f64's high half); a 64-bit integer
//! source takes none that is no inline constant (`v_cmp_lt_i64 vcc, 1.5, v[0:1]`, `s_and_b64`).
//! Inline constants (`0.5`, `-4.0`) never come here: they have codes of their own.

use super::value::{value, Val};
use crate::operand::ValType;

/// Why llvm-mc rounding a float to a narrower format refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refused {
    Overflow,
    Underflow,
}

/// `f` (finite) rounded to nearest-even into an IEEE binary format with `man` fraction bits and
/// exponent bias `bias`, as its bits.
fn round_to(f: f64, man: u32, bias: i32) -> Result<u64, Refused> {
    let b = f.to_bits();
    let sign = (b >> 63) << (man + exp_bits(bias));
    let e = ((b >> 52) & 0x7ff) as i32;
    let frac = b & ((1 << 52) - 1);
    if e == 0 && frac == 0 {
        return Ok(sign);
    }
    if e == 0x7ff {
        return Err(Refused::Overflow);
    }
    // The value is m * 2^(exp - 52), m with its implicit bit (f64 subnormals: exponent -1022).
    let (m, exp) = if e == 0 { (frac, -1022) } else { (frac | 1 << 52, e - 1023) };
    // Target exponent: the value's own, or the format's smallest normal one for subnormals.
    let te = exp.max(1 - bias);
    let shift = (52 - man as i32 + te - exp) as u32;
    let (mut q, inexact) = if shift >= 64 {
        (0, true)
    } else {
        let q = m >> shift;
        let rem = m & ((1u64 << shift) - 1);
        let half = if shift == 0 { 0 } else { 1u64 << (shift - 1) };
        let up = shift > 0 && (rem > half || rem == half && q & 1 == 1);
        (q + u64::from(up), rem != 0)
    };
    let mut te = te;
    if q >> (man + 1) != 0 {
        q >>= 1;
        te += 1;
    }
    if te > bias {
        return Err(Refused::Overflow);
    }
    let normal = q >> man != 0;
    if !normal && inexact {
        return Err(Refused::Underflow);
    }
    let biased = if normal { (te + bias) as u64 } else { 0 };
    Ok(sign | biased << man | (q & ((1 << man) - 1)))
}

/// The exponent width of a format with bias `bias` (15 → 5, 127 → 8).
fn exp_bits(bias: i32) -> u32 {
    (bias + 1).trailing_zeros() + 1
}

/// IEEE half bits of `f`, rounded, or `None` where llvm-mc refuses it.
pub fn f16_bits(f: f64) -> Option<u16> {
    round_to(f, 10, 15).ok().map(|b| b as u16)
}

/// bf16 bits of `f`, rounded, where llvm-mc takes it for a bf16 source (in f16's range).
pub(super) fn bf16_bits(f: f64) -> Option<u16> {
    f16_bits(f)?;
    round_to(f, 7, 127).ok().map(|b| b as u16)
}

/// f32 bits of `f`, rounded, or `None` where llvm-mc refuses it.
pub(super) fn f32_bits(f: f64) -> Option<u32> {
    round_to(f, 23, 127).ok().map(|b| b as u32)
}

/// Whether the floats `x` and `y` round to the same bits in f32, f16 or bf16: a written float
/// that rounds onto an inline constant is that constant (`1.001` in a bf16 source is the inline
/// 1.0, as llvm-mc writes it); the fill picks the source's own width.
pub(super) fn same_rounded(x: f64, y: f64) -> bool {
    let same = |a: Option<u32>, b: Option<u32>| a.is_some() && a == b;
    same(f32_bits(x), f32_bits(y))
        || same(f16_bits(x).map(u32::from), f16_bits(y).map(u32::from))
        || same(bf16_bits(x).map(u32::from), bf16_bits(y).map(u32::from))
}

/// Whether the float token `s` is the inline constant 1/(2π) in a source of type `ty`: it must
/// round onto that constant in the source's own width (llvm-mc 22 reads `0.15915494` as the
/// inline constant in 16- and 32-bit sources but as the literal 0x3fc45f30 in an f64 source,
/// and `0.1592` as the constant only in f16 ones).
pub(super) fn is_inv_2pi(ty: ValType, s: &str) -> bool {
    const INV_2PI: f64 = 0.15915494309189532;
    let Val::Float(f) = value(s) else { return true };
    match ty {
        ValType::F64 | ValType::B64 => f == INV_2PI,
        ValType::F16 | ValType::PkF16 => f16_bits(f) == f16_bits(INV_2PI),
        // bf16 and 16-bit integer sources compare in f32, as llvm-mc does (`0.1592` is a
        // literal there, `0.15915494` the constant).
        ValType::F32 | ValType::B32 | ValType::Bf16 | ValType::B16 => f32_bits(f) == f32_bits(INV_2PI),
    }
}

/// The literal bits of the float token `s` in a source of type `ty`; `None` for no float, or
/// one llvm-mc refuses there ([`refusal`] says why).
pub(super) fn literal(ty: ValType, s: &str) -> Option<u32> {
    let Val::Float(f) = value(s) else { return None };
    match ty {
        ValType::F64 => Some((f.to_bits() >> 32) as u32),
        ValType::B64 => None,
        ValType::F16 | ValType::PkF16 => f16_bits(f).map(u32::from),
        ValType::Bf16 => bf16_bits(f).map(u32::from),
        ValType::F32 | ValType::B32 | ValType::B16 => f32_bits(f),
    }
}

/// Why llvm-mc 22 refuses the float token `s` as a literal of type `ty`; `None` where it takes
/// it, or `s` is no float.
pub(super) fn refusal(ty: ValType, s: &str) -> Option<String> {
    let Val::Float(f) = value(s) else { return None };
    if literal(ty, s).is_some() {
        return None;
    }
    Some(match ty {
        ValType::B64 => format!("'{s}' in a 64-bit integer operand: llvm-mc takes no float literal there"),
        _ => {
            let width = if matches!(ty, ValType::F32 | ValType::B32 | ValType::B16) { "f32" } else { "f16" };
            let why = if f.abs() > 1.0 { "overflows" } else { "underflows" };
            format!("'{s}' {why} {width} (llvm-mc refuses it)")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values checked with llvm-mc 22 by hand (gfx942/gfx950 `v_add_f32_e32`, `v_add_f16_e32`,
    /// `v_cvt_f32_bf16_e32`, `v_cmp_lt_i64_e32`).
    #[test]
    fn llvm_mc_rounding() {
        assert_eq!(f32_bits(1.5), Some(0x3fc0_0000));
        assert_eq!(f32_bits(3.4028235e38), Some(0x7f7f_ffff));
        assert_eq!(f32_bits(3.40282357e38), None);
        assert_eq!(f32_bits(1.0e40), None);
        assert_eq!(f32_bits(-1.0e40), None);
        assert_eq!(f32_bits(1.0e-40), None);
        assert_eq!(f32_bits(1.0e-50), None);
        assert_eq!(f32_bits(1.401298464324817e-45), Some(1));
        assert_eq!(f32_bits(-0.0), Some(0x8000_0000));
        assert_eq!(f16_bits(100.0), Some(0x5640));
        assert_eq!(f16_bits(-2.0), Some(0xc000));
        assert_eq!(f16_bits(65504.0), Some(0x7bff));
        assert_eq!(f16_bits(65520.0), None);
        assert_eq!(f16_bits(1.00048828125), Some(0x3c00));
        assert_eq!(f16_bits(1.0e-8), None);
        assert_eq!(f16_bits(5.960464477539063e-8), Some(1));
        assert_eq!(bf16_bits(1.1), Some(0x3f8d));
        assert_eq!(bf16_bits(-1.1), Some(0xbf8d));
        assert_eq!(bf16_bits(1.005859375), Some(0x3f81));
        assert_eq!(bf16_bits(65504.0), Some(0x4780));
        assert_eq!(bf16_bits(1.0e5), None);
        assert_eq!(bf16_bits(1.0e-5), None);
        assert_eq!(bf16_bits(6.103515625e-05), Some(0x3880));
    }

    #[test]
    fn literals_by_type() {
        assert_eq!(literal(ValType::F64, "1.5"), Some(0x3ff8_0000));
        assert_eq!(literal(ValType::B64, "1.5"), None);
        assert_eq!(literal(ValType::B32, "1.5"), Some(0x3fc0_0000));
        assert_eq!(literal(ValType::F32, "65"), None);
        assert!(refusal(ValType::B64, "1.5").is_some_and(|e| e.contains("64-bit integer")));
        assert!(refusal(ValType::F32, "1.0e40").is_some_and(|e| e.contains("overflows f32")));
        assert!(refusal(ValType::Bf16, "1.0e-5").is_some_and(|e| e.contains("underflows f16")));
        assert_eq!(refusal(ValType::F32, "1.5"), None);
        assert_eq!(refusal(ValType::F32, "s1"), None);
        assert!(same_rounded(1.00000000001, 1.0) && same_rounded(1.001, 1.0));
        // llvm-mc 22: `0.15915494` is inline in f32/f16, a literal in f64; `0.1592` only in f16.
        assert!(is_inv_2pi(ValType::F32, "0.15915494") && is_inv_2pi(ValType::F16, "0.1592"));
        assert!(!is_inv_2pi(ValType::F64, "0.15915494") && !is_inv_2pi(ValType::F32, "0.1592"));
        assert!(is_inv_2pi(ValType::F64, "0.15915494309189532") && !is_inv_2pi(ValType::B64, "0.1592"));
        assert!(!is_inv_2pi(ValType::Bf16, "0.1592") && !is_inv_2pi(ValType::B16, "0.1592"));
        assert!(!same_rounded(1.1, 1.0) && !same_rounded(1.0e40, 1.0e40 * 2.0));
    }
}
