//! Which source modifiers a VALU source takes, as llvm-mc 22 reads them: `-x`/`|x|` where its
//! disassembler prints the neg/abs bits (`tables::takes_mods`, probed per opcode and source by
//! the autogen generator), SDWA's `sext(x)` on the other sources (integer ones: llvm-mc refuses
//! sext on a float source and neg/abs on an integer one). One rule for the assembler and the
//! builder, which refuse such a modifier, and for the disassembler, which prints a word with such
//! a bit set as `.long` (no line writes it).

use crate::disasm::valu::{shape, Ext, Shape};
use crate::inst::Instruction;
use crate::operand::is_gfx9;
use crate::tables::{takes_mods, FLAG_NO_MODS_SHIFT};
use baregpu_autogen::isa::Opcode;

/// Why source `si` (0..=2) of `op` cannot take the modifiers given (`sdwa`: an SDWA source,
/// where sext is encodable), or `None` where it takes them.
pub(crate) fn refusal(op: &Opcode, si: usize, neg: bool, abs: bool, sext: bool, sdwa: bool) -> Option<String> {
    let float = takes_mods(op, si);
    let m = op.mnemonic;
    if (neg || abs) && !float {
        let what = if neg { "-x" } else { "|x|" };
        return Some(format!("{what}: source {si} of {m} takes no neg/abs (llvm-mc refuses them on this source)"));
    }
    if sext && sdwa && float {
        return Some(format!(
            "sext: source {si} of {m} is a float source (llvm-mc takes sext on integer sources only)"
        ));
    }
    if sext && sdwa && !crate::asm::sdwa_dst::takes_sext(m) {
        return Some(format!("sext: llvm-mc's SDWA form of {m} takes no sext"));
    }
    None
}

/// Whether the word sets a neg, abs or sext bit [`refusal`] refuses, or a VOP3/VOP3P/VINTERP
/// modifier bit llvm-mc's assembler writes for no line (`isa::modifiers`): no line writes it.
pub(crate) fn refused_bits(i: &Instruction) -> bool {
    if crate::modifiers::refused(i) {
        return true;
    }
    let op = i.opcode();
    // The common case, cheaply (the assembler asks for every VALU line it reads back): every
    // source takes neg/abs, and there is no SDWA sext (gfx11+, or no SDWA word).
    if op.flags >> FLAG_NO_MODS_SHIFT & 7 == 0 && !(is_gfx9(i.arch) && i.format().name.ends_with("_SDWA")) {
        return false;
    }
    let (s, ext) = shape(i);
    match (s, ext) {
        // gfx950 v_bitop3 keeps its truth table in the neg/abs bits.
        (Shape::Vop3, _) if i.mnemonic().starts_with("v_bitop3") => false,
        // Probed opcodes: the assembler's table (above) judges their neg/abs bits.
        (Shape::Vop3, _) if crate::modifiers::probed(i.arch, i.op) => false,
        (Shape::Vop3, _) => {
            // Two field reads, and none of the per-source tests where no bit is set.
            let (neg, abs) = (i.f("neg"), i.f("abs"));
            (neg | abs) != 0
                && (0..3).any(|si| refusal(op, si, neg >> si & 1 != 0, abs >> si & 1 != 0, false, false).is_some())
        }
        (Shape::E32, Ext::Dpp16 | Ext::Sdwa) => (0..2).any(|si| {
            let [neg, abs, sext] = E32_MODS[si].map(|f| i.f(f) != 0);
            refusal(op, si, neg, abs, sext, ext == Ext::Sdwa).is_some()
        }),
        _ => false,
    }
}

/// The DPP16/SDWA dword's neg, abs and sext fields of src0 and src1.
const E32_MODS: [[&str; 3]; 2] = [["src0_neg", "src0_abs", "src0_sext"], ["src1_neg", "src1_abs", "src1_sext"]];
