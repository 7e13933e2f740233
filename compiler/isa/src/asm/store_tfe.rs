//! `tfe` on a gfx11/gfx12 buffer store: llvm-mc 22 refuses it ("TFE modifier has no meaning for
//! store instructions") though its disassembler prints such a word with `tfe`. One definition for
//! the assembler, the builder and the disassembler, which prints such a word as `.long`
//! (disasm::raw). gfx9 stores have no `tfe` field to set.

use crate::inst::Instruction;

/// Refuses a buffer store with its `tfe` bit set.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    let buf = matches!(i.format().name, "MUBUF" | "MTBUF" | "VBUFFER");
    if buf && i.field("tfe") == Some(1) && i.mnemonic().contains("_store") {
        return Err(format!("tfe means nothing on a store: llvm-mc 22 refuses it on {}", i.mnemonic()));
    }
    Ok(())
}
