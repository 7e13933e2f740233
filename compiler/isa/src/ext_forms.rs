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
    // DPP16 and SDWA forms to llvm-mc 22, gfx9 `v_clrexcp` none (`v_clrexcp_dpp` is refused);
    // gfx11+ `v_nop`, `v_pipeflush` and `v_illegal` none.
    if is_gfx9(i.arch) && !op.operands.iter().any(|o| o.name == "src0") {
        return (op.mnemonic != "v_nop")
            .then(|| format!("{}: llvm-mc 22 has no {form} form of this instruction", op.mnemonic));
    }
    (op.flags & flag == 0).then(|| format!("{}: llvm-mc 22 has no {form} form of this instruction", op.mnemonic))
}

/// Why a source of `i`, a VOP3/VOP3P DPP16/DPP8 instruction, is not one llvm-mc 22 reads there
/// (see [`dpp_src_refusal`]), with the source's name; `None` for every other case.
pub(crate) fn src_refusal(i: &Instruction) -> Option<(&'static str, String)> {
    ["src1", "src2"].into_iter().find_map(|n| Some((n, dpp_src_refusal(i, n, i.field(n)?)?)))
}

/// Why `code` cannot be source `field` of `i` (a started or filled instruction), as llvm-mc 22
/// reads 64-bit DPP forms (checked per case with llvm-mc 22):
/// - on gfx1100 a VOP3 or VOP3P DPP src1 is a VGPR (`v_add_f32_e64_dpp v1, v2, s3` and `…, v2,
///   1.0` are refused; gfx12 takes them);
/// - a v_fma_mix* DPP src1 is a VGPR on both; a gfx12 v_dot4_f32_{fp8,bf8}_* DPP src1 and src2
///   are VGPRs ("invalid operand for instruction").
///
/// Other src2 take scalars and inline constants on both.
pub(crate) fn dpp_src_refusal(i: &Instruction, field: &str, code: u32) -> Option<String> {
    let f = i.format();
    if code >= 256 || !f.name.ends_with("_DPP16") && !f.name.ends_with("_DPP8") {
        return None;
    }
    let op = i.opcode();
    // VOP1 opcodes in VOP3 have a src1 field but no such operand.
    if !op.operands.iter().any(|o| o.name == field) {
        return None;
    }
    let m = op.mnemonic.trim_end_matches("_e64");
    let gfx11 = i.arch == Arch::Gfx1100;
    let vgpr_only = match (f.parent, field) {
        (Some("VOP3" | "VOP3SD"), "src1") => gfx11,
        (Some("VOP3P"), "src1") => gfx11 || m.starts_with("v_fma_mix") || m.starts_with("v_dot4_f32_"),
        (Some("VOP3P"), "src2") => m.starts_with("v_dot4_f32_"),
        _ => false,
    };
    vgpr_only.then(|| {
        let on = if gfx11 && field == "src1" { " on gfx1100" } else { "" };
        format!("{field} of {m}_e64_dpp must be a VGPR{on} (llvm-mc 22 refuses scalars and constants there)")
    })
}
