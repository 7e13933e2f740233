//! Which of the whole-instruction rules that end `fill` can refuse a candidate. Each rule's own
//! `applies` reads only the candidate's opcode and format, so the answer is worked out once per
//! candidate (kept with it in the candidate cache) rather than on every line; the rules' `check`
//! functions, which the builder and the disassembler call, ask `applies` themselves.

use baregpu_autogen::isa::{Operand, OperandKind};

use crate::inst::Instruction;

/// A set of rules, one bit each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules(u8);

const MFMA_OVERLAP: u8 = 1;
const K16: u8 = 1 << 1;
const WAITCNT_NULL: u8 = 1 << 2;
const SMEM: u8 = 1 << 3;
const GWS: u8 = 1 << 4;
const STORE_TFE: u8 = 1 << 5;
const GPR_IDX_MODE: u8 = 1 << 6;

impl Rules {
    /// Every rule (each check still asks whether it applies).
    pub const ALL: Rules = Rules(u8::MAX);

    /// The rules that apply to `i`'s opcode and format.
    pub fn of(i: &Instruction) -> Rules {
        let bits = [
            (super::mfma_overlap::applies(i), MFMA_OVERLAP),
            (super::k16::applies(i), K16),
            (super::waitcnt_null::applies(i), WAITCNT_NULL),
            (super::smem_rules::applies(i), SMEM),
            (super::gws::applies(i), GWS),
            (super::store_tfe::applies(i), STORE_TFE),
            (super::gpr_idx_mode::applies(i), GPR_IDX_MODE),
        ];
        Rules(bits.iter().filter(|(on, _)| *on).fold(0, |a, (_, b)| a | b))
    }

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// Runs the rules of `rules` on the filled `i`, whose operands as the line gave them are `ops`;
/// an error carries the index in `ops` of the operand it blames (`None`: the line).
pub fn check(i: &Instruction, rules: Rules, ops: &[Operand]) -> Result<(), (Option<usize>, String)> {
    let at = |k: Option<usize>| move |e: String| (k, e);
    if rules.has(MFMA_OVERLAP) {
        super::mfma_overlap::check(i).map_err(at(ops.iter().position(|o| o.name == "src2")))?;
    }
    if rules.has(K16) {
        super::k16::check(i).map_err(at(ops.iter().position(|o| o.kind == OperandKind::Imm)))?;
    }
    if rules.has(WAITCNT_NULL) {
        super::waitcnt_null::check(i).map_err(at(Some(0)))?;
    }
    if rules.has(SMEM) {
        super::smem_rules::check(i).map_err(at(Some(0)))?;
    }
    if rules.has(GWS) {
        super::gws::check(i).map_err(at(Some(0)))?;
    }
    if rules.has(STORE_TFE) {
        super::store_tfe::check(i).map_err(at(Some(0)))?;
    }
    if rules.has(GPR_IDX_MODE) {
        super::gpr_idx_mode::check(i).map_err(at(Some(ops.len().saturating_sub(1))))?;
    }
    Ok(())
}
