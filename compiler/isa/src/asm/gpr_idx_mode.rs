//! gfx9's `s_set_gpr_idx_on` and `s_set_gpr_idx_mode` take a 4-bit mode (`gpr_idx(...)` or 0..15):
//! llvm-mc 22 refuses a larger value ("only 4-bit values are legal") though its disassembler
//! prints one. The disassembler prints such words as `.long` (disasm::raw).

use crate::inst::Instruction;

/// Refuses a VGPR-indexing mode above 15.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    let field = match i.mnemonic() {
        "s_set_gpr_idx_on" => "ssrc1",
        "s_set_gpr_idx_mode" => "simm16",
        _ => return Ok(()),
    };
    if i.field(field).is_some_and(|v| v > 0xf) {
        return Err(format!("{}: the mode is 4 bits (gpr_idx(...) or 0..15)", i.mnemonic()));
    }
    Ok(())
}
