//! Which DPP16, DPP8 and SDWA forms an opcode has, as llvm-mc 22 reads them: those its
//! disassembler decodes (`Opcode::flags` FLAG_DPP16/FLAG_DPP8/FLAG_SDWA, probed per opcode by
//! the autogen generator, autogen/gen/src/isa/forms.rs). Its assembler refuses the others ("dpp
//! variant of this instruction is not supported"): `v_fmac_dx9_zero_f32_dpp`, gfx11
//! `v_readlane_b32_e64_dpp`, `v_fmamk_f32_dpp`. One rule for the assembler and the builder, which
//! refuse such a form, and for the disassembler, which prints such a word as `.long`.

use baregpu_autogen::isa::{FLAG_DPP16, FLAG_DPP8, FLAG_SDWA};

use crate::inst::Instruction;
use crate::operand::is_gfx9;

/// Why `i`'s DPP16, DPP8 or SDWA form is not one llvm-mc 22 has for its opcode; `None` for the
/// forms it has and for every other encoding.
pub(crate) fn refusal(i: &Instruction) -> Option<String> {
    let f = i.format();
    // The generator probes the forms of VOP1, VOP2, VOPC and (gfx11+) VOP3 and VOP3P opcodes only.
    if !matches!(f.parent, Some("VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3SD" | "VOP3P")) {
        return None;
    }
    let (flag, form) = if f.name.ends_with("_DPP16") {
        (FLAG_DPP16, "DPP16")
    } else if f.name.ends_with("_DPP8") {
        (FLAG_DPP8, "DPP8")
    } else if f.name.ends_with("_SDWA") {
        (FLAG_SDWA, "SDWA")
    } else {
        return None;
    };
    let op = i.opcode();
    // It probes with a VGPR in src0, so an opcode without one is not probed: gfx9 `v_nop` has
    // DPP16 and SDWA forms to llvm-mc 22, gfx9 `v_clrexcp` none (`v_clrexcp_dpp` is refused);
    // gfx11+ `v_nop`, `v_pipeflush` and `v_illegal` none.
    if is_gfx9(i.arch) && !op.operands.iter().any(|o| o.name == "src0") {
        return (op.mnemonic != "v_nop")
            .then(|| format!("{}: llvm-mc 22 has no {form} form of this instruction", op.mnemonic));
    }
    (op.flags & flag == 0).then(|| format!("{}: llvm-mc 22 has no {form} form of this instruction", op.mnemonic))
}
