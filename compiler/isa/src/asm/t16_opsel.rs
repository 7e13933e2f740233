//! gfx11/gfx12 true16 VOP3 and VINTERP: an `op_sel` list beside 16-bit register halves. llvm-mc
//! 22 checks a nonzero list against every `.l`/`.h` operand (sources, then the destination) and
//! refuses a mismatch with "op_sel operand conflicts with 16-bit operand suffix"
//! (`v_add_f16_e64 v1.l, v2.l, v3.l op_sel:[1,0,0]`); an all-zero list it skips, and the `.h`
//! halves set their bits (`v_add_f16_e64 v1.h, v2.l, v3.l op_sel:[0,0,0]` is `op_sel:[0,0,1]`).
//! A line that writes a 16-bit VGPR operand as a whole register (`v2`) is llvm-mc's fake16 form,
//! which has no op_sel for some opcodes (`v_add_f16_e64 v1, v2, v3 op_sel:[0,0,0]`; the
//! generated `modifiers` table, `NAME_OP_SEL_WHOLE`).

use super::lexer::Tok;
use super::parser::{err, PErr};
use crate::inst::Instruction;

/// The halves a line writes: `halves` holds the `opsel` field bits of the operands written with
/// `.l` or `.h`, `high` those written `.h`; `whole` the operand positions written as a whole VGPR.
#[derive(Clone, Copy, Default)]
pub(super) struct Halves {
    pub halves: u32,
    pub high: u32,
    pub whole: u32,
}

/// Refuses `i`'s `op_sel` token where it conflicts with the halves written, or where `i`'s
/// fake16 form takes none.
pub(super) fn check(i: &Instruction, h: Halves, mods: &[Tok]) -> Result<(), PErr> {
    let Some(t) = mods.iter().find(|t| t.text.starts_with("op_sel:")) else { return Ok(()) };
    // The true16 operand positions are looked up only for a line with op_sel.
    let whole = h.whole & u32::from(crate::t16::mask(i.arch, i.opcode())) != 0;
    if whole && crate::modifiers::whole_op_sel_refused(i) {
        return err(
            t,
            format!(
                "'{}': {} with a whole register in a 16-bit operand takes no op_sel (llvm-mc 22 reads its fake16 form; write .l/.h)",
                t.text,
                i.mnemonic()
            ),
        );
    }
    let (halves, high) = (h.halves, h.high);
    if halves == 0 {
        return Ok(());
    }
    let Some((b, n)) = super::modifier::list_bits(&t.text["op_sel:".len()..]) else { return Ok(()) };
    let list = super::modifier::op_sel_field(i, b, n);
    if b != 0 && (list ^ high) & halves != 0 {
        return err(t, format!("'{}': op_sel operand conflicts with 16-bit operand suffix (llvm-mc 22)", t.text));
    }
    Ok(())
}
