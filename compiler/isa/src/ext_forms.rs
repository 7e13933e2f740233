//! Which DPP16, DPP8 and SDWA forms an opcode has, as llvm-mc 22 reads them: those its
//! disassembler decodes (`Opcode::flags` FLAG_DPP16/FLAG_DPP8/FLAG_SDWA, probed per opcode by
//! the autogen generator, autogen/gen/src/isa/forms.rs). Its assembler refuses the others ("dpp
//! variant of this instruction is not supported"): `v_fmac_dx9_zero_f32_dpp`, gfx11
//! `v_readlane_b32_e64_dpp`, `v_fmamk_f32_dpp`. One rule for the assembler and the builder, which
//! refuse such a form, and for the disassembler, which prints such a word as `.long`.

use baregpu_autogen::isa::{FLAG_DPP16, FLAG_DPP8, FLAG_SDWA};

use crate::inst::Instruction;
use crate::operand::is_gfx9;
use crate::Arch;

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
    // DPP16 and SDWA forms to llvm-mc 22; gfx11+ `v_nop`, `v_pipeflush` and `v_illegal` none.
    if is_gfx9(i.arch) && !op.operands.iter().any(|o| o.name == "src0") {
        return None;
    }
    (op.flags & flag == 0).then(|| format!("{}: llvm-mc 22 has no {form} form of this instruction", op.mnemonic))
}

/// Why a source of `i`, a gfx11 VOP3 DPP16/DPP8 instruction, is not one llvm-mc 22 reads there
/// (see [`src1_refusal`]); `None` for every other case.
pub(crate) fn src_refusal(i: &Instruction) -> Option<String> {
    src1_refusal(i, i.field("src1")?)
}

/// Why `code` cannot be src1 of `i` (a started or filled instruction): on gfx1100 a VOP3 DPP16/
/// DPP8 src1 is a VGPR (`v_add_f32_e64_dpp v1, v2, s3` and `…, v2, 1.0` are refused; gfx12 takes
/// them), and so is a VOP3P one (`v_dot2_f32_f16 … s40, v56 dpp8:[…]`). src2 takes scalars and
/// inline constants on both.
pub(crate) fn src1_refusal(i: &Instruction, code: u32) -> Option<String> {
    let f = i.format();
    if code >= 256 || i.arch != Arch::Gfx1100 || !matches!(f.parent, Some("VOP3" | "VOP3SD" | "VOP3P")) {
        return None;
    }
    if !f.name.ends_with("_DPP16") && !f.name.ends_with("_DPP8") {
        return None;
    }
    // VOP1 opcodes in VOP3 have a src1 field but no such operand.
    let op = i.opcode();
    if !op.operands.iter().any(|o| o.name == "src1") {
        return None;
    }
    Some(format!(
        "src1 of {}_e64_dpp must be a VGPR on gfx1100 (llvm-mc 22 refuses scalars and constants there)",
        op.mnemonic.trim_end_matches("_e64")
    ))
}
