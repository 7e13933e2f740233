//! gfx9's `s_set_gpr_idx_on` and `s_set_gpr_idx_mode` take a 4-bit mode (`gpr_idx(...)` or 0..15):
//! llvm-mc 22 refuses a larger value ("only 4-bit values are legal") though its disassembler
//! prints one. The disassembler prints such words as `.long` (disasm::raw).

use crate::inst::Instruction;

/// The field holding the mode, `None` for an opcode the rule does not apply to.
fn mode_field(i: &Instruction) -> Option<&'static str> {
    match i.mnemonic() {
        "s_set_gpr_idx_on" => Some("ssrc1"),
        "s_set_gpr_idx_mode" => Some("simm16"),
        _ => None,
    }
}

/// Whether the rule applies to `i`'s opcode (asm::rules keeps it per candidate).
pub(crate) fn applies(i: &Instruction) -> bool {
    mode_field(i).is_some()
}

/// Refuses a VGPR-indexing mode above 15.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    let Some(field) = mode_field(i) else { return Ok(()) };
    if i.field(field).is_some_and(|v| v > 0xf) {
        return Err(format!("{}: the mode is 4 bits (gpr_idx(...) or 0..15)", i.mnemonic()));
    }
    Ok(())
}
