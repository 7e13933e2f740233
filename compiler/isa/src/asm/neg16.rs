//! Negative integers in gfx9's 16-bit integer sources of 32-bit encodings (`FLAG_LIT16`:
//! `v_add_u16_e32 v8, -65, v40`, `v_cvt_f16_u16_e32`): llvm-mc 22 writes the literal as the
//! sign-extended dword (0xffffffbf) and prints that word back as `0xffbf`, which it assembles to
//! 0x0000ffbf. So such a word prints as the negative number, which both assemblers read back to
//! the same bytes; any other literal with high bits stays `.long` (no line writes it). f16
//! sources keep the low half instead (`asm::const_mods::f16_low_half`).

use crate::inst::Instruction;
use crate::operand::{is_gfx9, src_index, src_val_type, ValType};
use crate::tables::FLAG_LIT16;
use baregpu_autogen::isa::OperandKind;

/// The literal of `i` as the negative 16-bit integer a line writes it with, where it is one.
pub(crate) fn signed_literal(i: &Instruction) -> Option<i32> {
    let l = i.literal.filter(|&l| l >= 0xffff_8000)?;
    if !is_gfx9(i.arch) || i.opcode().flags & FLAG_LIT16 == 0 {
        return None;
    }
    // The source holding the literal code is a 16-bit integer one.
    let int16 = i.operands().iter().any(|o| {
        let si = src_index(o.name);
        matches!(o.kind, OperandKind::Ssrc | OperandKind::Vsrc)
            && i.field_def(o.name).is_some_and(|f| f.hi - f.lo == 8)
            && i.field(o.name) == Some(255)
            && si.is_some_and(|si| src_val_type(i.arch, i.mnemonic(), si, 1) == ValType::B16)
    });
    int16.then_some(l as i32)
}

/// The text of that literal: the number, or `lit(N)` where N is an inline constant (-16..-1).
pub(crate) fn text(n: i32) -> String {
    if n >= -16 {
        format!("lit({n})")
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Arch;

    fn decode(arch: Arch, bytes: &[u8]) -> Instruction {
        crate::decode::decode(arch, bytes).expect("decodes")
    }

    /// llvm-mc 22's bytes for `v_add_u16_e32 v8, -65, v40` and `v_add_f16_e32 v8, 0xffbf, v40`.
    #[test]
    fn sign_extended_u16_literal() {
        let u16 = decode(Arch::Gfx942, &[0xff, 0x50, 0x10, 0x4c, 0xbf, 0xff, 0xff, 0xff]);
        assert_eq!(signed_literal(&u16), Some(-65));
        let low = decode(Arch::Gfx942, &[0xff, 0x50, 0x10, 0x4c, 0xbf, 0xff, 0x00, 0x00]);
        assert_eq!(signed_literal(&low), None);
        let wide = decode(Arch::Gfx942, &[0xff, 0x50, 0x10, 0x4c, 0xbf, 0xff, 0xfe, 0xff]);
        assert_eq!(signed_literal(&wide), None);
        let f16 = decode(Arch::Gfx942, &[0xff, 0x50, 0x10, 0x3e, 0xbf, 0xff, 0xff, 0xff]);
        assert_eq!(signed_literal(&f16), None);
        assert_eq!(text(-65), "-65");
        // The word prints as the number, which reads back to the same bytes (llvm-mc 22 too).
        let bytes = [0xff, 0x50, 0x10, 0x4c, 0x00, 0x80, 0xff, 0xff];
        let line = crate::disassemble(&decode(Arch::Gfx942, &bytes));
        assert_eq!(line, "v_add_u16_e32 v8, -32768, v40");
        assert_eq!(crate::assemble(Arch::Gfx942, &line).expect("assembles"), bytes);
        assert_eq!(text(-16), "lit(-16)");
    }
}
