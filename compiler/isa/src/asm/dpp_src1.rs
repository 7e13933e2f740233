//! gfx11's 64-bit DPP forms (VOP3, VOP3SD, VOP3P with `quad_perm`/`row_*`/`dpp8`) read src1 from a
//! VGPR only: llvm-mc 22 refuses an SGPR there ("invalid operand for instruction") and a constant
//! ("src1 immediate operand invalid"); gfx12 takes both. The disassembler prints such words as
//! `.long` (disasm::raw).

use crate::inst::Instruction;
use crate::Arch;

/// Refuses a gfx11 64-bit DPP word whose src1 is not a VGPR.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    if i.arch != Arch::Gfx1100 {
        return Ok(());
    }
    let name = i.format().name;
    if !(name.ends_with("_DPP16") || name.ends_with("_DPP8")) {
        return Ok(());
    }
    // The 9-bit src1 of the 64-bit encodings (the 32-bit DPP forms' vsrc1 is a VGPR field), where
    // the opcode reads one (a one-source opcode leaves the field 0).
    let nine_bit = i.field_def("src1").is_some_and(|f| f.hi - f.lo == 8);
    let reads = i.operands().iter().any(|o| o.name == "src1");
    if nine_bit && reads && i.f("src1") < 256 {
        return Err(format!("{}: src1 of gfx11's 64-bit DPP forms must be a VGPR", i.mnemonic()));
    }
    Ok(())
}
