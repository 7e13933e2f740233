//! Floats and `lit(X)` written where a source's literal goes: their bits in the operand's
//! type, and the refusal of a float in a 16-bit integer source.

use baregpu_autogen::isa::Opcode;

use super::operand::parse_int;
use crate::operand::ValType;
use crate::tables::FLAG_LIT16;

/// Whether `s` may read as a float (`value::value` gives `Val::Float` only for such text): a
/// number with a point or an exponent.
pub(super) fn may_be_float(s: &str) -> bool {
    let b = s.as_bytes();
    b.first().is_some_and(|&c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'(' | b'~'))
        && b.iter().any(|&c| matches!(c, b'.' | b'e' | b'E'))
}

/// The bits of `lit(X)`'s X: an integer (32-bit, two's complement if negative) or a float in
/// the operand's type.
pub(super) fn literal_bits(ty: ValType, x: &str) -> Option<u32> {
    match parse_int(x) {
        Some(v) if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v) => Some(v as u32),
        Some(_) => None,
        None => super::float_lit::literal(ty, x),
    }
}

/// The refusal of a float that is no inline constant in a 16-bit integer source: llvm-mc 22
/// writes its f32 bits as the literal, and the operand reads only their low half (it prints
/// `v_cvt_f16_u16 v8, 1.5` back as `v_cvt_f16_u16 v8, 0x0`), so the bytes do not say 1.5.
/// A 16-bit integer source is one typed B16, or a 32-bit-typed source of an opcode whose
/// literal llvm-mc reads as 16 bits (FLAG_LIT16, gfx9's v_add_u16 ...).
pub(super) fn float_in_int16(opc: &Opcode, ty: ValType, s: &str) -> Option<String> {
    let int16 = ty == ValType::B16 || opc.flags & FLAG_LIT16 != 0 && ty == ValType::F32;
    let bits = match super::value::value(s) {
        super::value::Val::Float(f) if int16 => (f as f32).to_bits(),
        _ => return None,
    };
    Some(format!(
        "'{s}' in a 16-bit integer operand: llvm-mc writes its f32 bits {bits:#x}, of which the operand reads {:#x}",
        bits & 0xffff
    ))
}
