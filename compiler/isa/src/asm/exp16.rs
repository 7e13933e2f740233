//! gfx11+ `v_ldexp_f16`'s exponent (src1, a 16-bit integer): llvm-mc 22 takes any 32-bit integer
//! there and keeps its low 16 bits, which are all the hardware reads (`0xaf123456` is written as
//! the literal `0x3456`, `0x10040` as the inline constant 64).

use super::operand::parse_int;
use super::value::Val;
use crate::inst::Instruction;
use crate::operand::{is_gfx9, literal_inline_code, ValType};

/// Whether source `src` of `i` is that exponent.
pub(super) fn is_exp16(i: &Instruction, src: Option<usize>) -> bool {
    src == Some(1) && !is_gfx9(i.arch) && i.mnemonic().starts_with("v_ldexp_f16")
}

/// The source code (and literal) of an integer written there: its low 16 bits as an inline
/// integer when they are one as a signed half, else as an f16 inline constant's bits, else a
/// literal holding them.
pub(super) fn code(s: &str) -> Option<(u32, Option<u32>)> {
    let v = parse_int(s).filter(|v| (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(v))?;
    let low = v as u32 & 0xffff;
    let signed = i32::from(low as u16 as i16);
    Some(match signed {
        n @ 0..=64 => (128 + n as u32, None),
        n @ -16..=-1 => ((192 - n) as u32, None),
        _ => match literal_inline_code(low, ValType::F16) {
            Some(k) => (k, None),
            None => (255, Some(low)),
        },
    })
}

/// Whether a written integer and the decoded one are the same exponent (equal low 16 bits).
pub(super) fn same(written: i64, decoded: i64) -> bool {
    (written as u32 & 0xffff) == (decoded as u32 & 0xffff)
}

/// [`same`] for two operand values, integers or `lit(...)` of one; `None` for other values.
pub(super) fn same_vals(written: &Val, decoded: &Val) -> Option<bool> {
    let int = |v: &Val| match v {
        Val::Int(n) => Some(*n),
        Val::Call("lit", x) => parse_int(x),
        _ => None,
    };
    Some(same(int(written)?, int(decoded)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_half() {
        assert_eq!(code("0xaf123456"), Some((255, Some(0x3456))));
        assert_eq!(code("-0x1234"), Some((255, Some(0xedcc))));
        assert_eq!(code("0x10040"), Some((128 + 64, None)));
        assert_eq!(code("0xffffffff"), Some((193, None)));
        assert_eq!(code("0x3c00"), Some((242, None)));
        assert_eq!(code("0x123456789"), None);
        assert!(same(0xaf123456, 0x3456) && !same(0x3456, 0x3457));
    }
}
