//! The constant of the 16-bit `v_fmamk`/`v_fmaak` (gfx9 `v_madmk`/`v_madak`) opcodes is read as
//! 16 bits: llvm-mc 22 refuses one that is no 16-bit value (-32768..65535; "invalid operand for
//! instruction") rather than drop its high bits, as it does for a 16-bit source (asm::parser).
//! The disassembler prints such words as `.long` (disasm::raw).

use baregpu_autogen::isa::FLAG_LITERAL;

use crate::inst::Instruction;
use crate::operand::{literal_too_wide, reads_16bit_literal};
use crate::tables::FLAG_LIT16;

/// Whether the rule applies to `i`'s opcode (asm::rules keeps it per candidate).
pub(crate) fn applies(i: &Instruction) -> bool {
    i.opcode().flags & FLAG_LITERAL != 0
}

/// Refuses a constant that is no 16-bit value where the opcode reads 16 bits of it.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    let op = i.opcode();
    let Some(k) = i.literal.filter(|&l| applies(i) && literal_too_wide(l)) else {
        return Ok(());
    };
    // The constant takes src0's type (crate::src_type).
    let m = i.mnemonic();
    let ty = crate::src_type::src_val_type(i.arch, m, 0, 1);
    let halves = crate::src_type::halves_read_32bit(i.arch, m, 0);
    if reads_16bit_literal(ty, op.flags & FLAG_LIT16 != 0, false, halves) {
        return Err(format!("{m}: the constant 0x{k:x} does not fit its 16 bits (llvm-mc takes -32768..65535)"));
    }
    Ok(())
}
