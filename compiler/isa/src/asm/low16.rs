//! 16-bit sources where llvm-mc 22 takes any 32-bit integer and keeps its low 16 bits, which are
//! all the hardware reads: gfx11+ `v_ldexp_f16`'s exponent (src1: `0xaf123456` is written as the
//! literal `0x3456`, `0x10040` as the inline constant 64) and gfx950
//! `v_cvt_scalef32_sr_{fp8,bf8}_{f16,bf16}`'s src0 (`0x13f80` is the bf16 constant 1.0).

use super::operand::parse_int;
use super::value::Val;
use crate::inst::Instruction;
use crate::operand::{is_gfx9, literal_inline_code, ValType, INLINE_FLOATS};
use crate::Arch;

/// The value type of source `src` of `i` when it is such a source.
pub(crate) fn low16(i: &Instruction, src: Option<usize>) -> Option<ValType> {
    let m = i.mnemonic();
    match src {
        Some(1) if !is_gfx9(i.arch) && m.starts_with("v_ldexp_f16") => Some(ValType::F16),
        Some(0) if i.arch == Arch::Gfx950 && m.starts_with("v_cvt_scalef32_sr_") && !m.contains("_pk_") => {
            match m.rsplit('_').next() {
                Some("f16") => Some(ValType::F16),
                Some("bf16") => Some(ValType::Bf16),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The source code (and literal) of an integer written there: its low 16 bits as an inline
/// integer when they are one as a signed half, else as the bits of a float inline constant of
/// type `ty`, else a literal holding them.
pub(super) fn code(ty: ValType, s: &str) -> Option<(u32, Option<u32>)> {
    let v = parse_int(s).filter(|v| (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(v))?;
    let low = v as u32 & 0xffff;
    let signed = i32::from(low as u16 as i16);
    Some(match signed {
        n @ 0..=64 => (128 + n as u32, None),
        n @ -16..=-1 => ((192 - n) as u32, None),
        _ => match literal_inline_code(low, ty) {
            Some(k) => (k, None),
            None => (255, Some(low)),
        },
    })
}

/// Whether a written integer and the decoded one are the same exponent (equal low 16 bits).
pub(super) fn same(written: i64, decoded: i64) -> bool {
    (written as u32 & 0xffff) == (decoded as u32 & 0xffff)
}

/// [`same`] for two operand values of type `ty`: integers, `lit(...)` of one, or a float inline
/// constant (by its bits in `ty`); `None` for other values.
pub(super) fn same_vals(ty: ValType, written: &Val, decoded: &Val) -> Option<bool> {
    let int = |v: &Val| match v {
        Val::Int(n) => Some(*n),
        Val::Call("lit", x) => parse_int(x),
        Val::Float(f) => INLINE_FLOATS
            .iter()
            .find(|k| k.value == *f || k.text.parse() == Ok(*f))
            .map(|k| i64::from(if ty == ValType::Bf16 { k.bf16 } else { k.f16 })),
        _ => None,
    };
    Some(same(int(written)?, int(decoded)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_half() {
        let f16 = ValType::F16;
        assert_eq!(code(f16, "0xaf123456"), Some((255, Some(0x3456))));
        assert_eq!(code(f16, "-0x1234"), Some((255, Some(0xedcc))));
        assert_eq!(code(f16, "0x10040"), Some((128 + 64, None)));
        assert_eq!(code(f16, "0xffffffff"), Some((193, None)));
        assert_eq!(code(f16, "0x3c00"), Some((242, None)));
        assert_eq!(code(ValType::Bf16, "0x13f80"), Some((242, None)));
        assert_eq!(code(f16, "0x123456789"), None);
        assert!(same(0xaf123456, 0x3456) && !same(0x3456, 0x3457));
    }
}
