//! `tfe` on a gfx11/gfx12 buffer store: llvm-mc 22 refuses it ("TFE modifier has no meaning for
//! store instructions") though its disassembler prints such a word with `tfe`. One definition for
//! the assembler, the builder and the disassembler, which prints such a word as `.long`
//! (disasm::raw). gfx9 stores have no `tfe` field to set.

use crate::inst::Instruction;

/// Whether the rule applies to `i`'s opcode and format: a buffer store (asm::rules keeps it per
/// candidate).
pub(crate) fn applies(i: &Instruction) -> bool {
    matches!(i.format().name, "MUBUF" | "MTBUF" | "VBUFFER") && crate::substr::has(i.mnemonic(), "_store")
}

/// Refuses a buffer store with its `tfe` bit set.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    if applies(i) && i.field("tfe") == Some(1) {
        return Err(format!("tfe means nothing on a store: llvm-mc 22 refuses it on {}", i.mnemonic()));
    }
    Ok(())
}
