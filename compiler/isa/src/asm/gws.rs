//! Global wave sync (`ds_gws_*`) and gfx11 `ds_ordered_count` rules of llvm-mc 22: they require
//! `gds` ("too few operands for instruction" without it; its disassembler refuses the word), and
//! on gfx9 the GWS data VGPR or AGPR is even ("vgpr must be even aligned": gfx90a+ read it as a
//! 64-bit tuple). One rule for the assembler and the disassembler's `.long` test (disasm::raw).

use crate::inst::Instruction;
use crate::operand::is_gfx9;

/// Whether mnemonic `m` requires `gds`.
fn needs_gds(m: &str) -> bool {
    m.starts_with("ds_gws_") || m == "ds_ordered_count"
}

/// Whether the rules apply to `i` (a DS instruction that requires `gds`).
pub(crate) fn applies(i: &Instruction) -> bool {
    i.format().name == "DS" && needs_gds(i.mnemonic())
}

/// Refuses a GWS instruction without `gds`, or with an odd data register on gfx9.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    if !applies(i) {
        return Ok(());
    }
    let m = i.mnemonic();
    if i.field("gds") == Some(0) {
        return Err(format!("{m} requires gds"));
    }
    let data = i.operands().iter().any(|o| o.name == "addr");
    if is_gfx9(i.arch) && data && i.f("addr") & 1 != 0 {
        return Err(format!("{m}: the data register must be even (llvm-mc reads a 64-bit tuple)"));
    }
    Ok(())
}
