//! The operands of an opcode as an instruction line writes them, with the source index of each
//! source. The committed tables keep a scalar-only source that llvm-mc's disassembler printed
//! with an invalid-register comment (`v_readlane_b32`'s lane select, `v_writelane_b32`'s two,
//! `v_permlane16_b32`'s src1 and src2, gfx12 `v_s_exp_f32`'s src0) as two `Special` entries,
//! `vN/*Invalid register` and `operand has '...' register class*/`; here each pair is one
//! scalar source again, numbered after the sources before it.

use baregpu_autogen::isa::sources::{source_indices, split_first, split_second};
use baregpu_autogen::isa::{Opcode, OperandKind};

/// One operand of an instruction line.
pub struct LineOperand {
    /// The table's name (the first entry's, for a rejoined pair).
    pub name: &'static str,
    pub kind: OperandKind,
    pub dwords: u8,
    /// Source index (0 = src0; the gfx950 scale sources are 3 and 4), for sources.
    pub source: Option<usize>,
}

/// The operands of `op` as a line writes them.
pub fn line_operands(op: &Opcode) -> Vec<LineOperand> {
    let indices = source_indices(op.operands);
    let mut out = Vec::with_capacity(op.operands.len());
    let mut after_split = false;
    for (o, &source) in op.operands.iter().zip(&indices) {
        // The second half of a pair is part of the source before it.
        if std::mem::replace(&mut after_split, split_first(o)) && split_second(o) {
            continue;
        }
        let kind = if split_first(o) { OperandKind::Ssrc } else { o.kind };
        out.push(LineOperand { name: o.name, kind, dwords: o.dwords, source });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opcode(arch: &str, m: &str) -> &'static Opcode {
        let t = baregpu_autogen::isa::ARCHS.iter().find(|a| a.name == arch).expect("arch");
        t.opcodes.iter().find(|o| o.mnemonic == m).expect("opcode")
    }

    fn sources(arch: &str, m: &str) -> Vec<Option<usize>> {
        line_operands(opcode(arch, m)).iter().map(|o| o.source).collect()
    }

    #[test]
    fn split_sources_are_one_source_again() {
        assert_eq!(sources("gfx1100", "v_readlane_b32"), [None, Some(0), Some(1)]);
        assert_eq!(sources("gfx942", "v_writelane_b32"), [None, Some(0), Some(1)]);
        assert_eq!(sources("gfx1100", "v_permlane16_b32"), [None, Some(0), Some(1), Some(2)]);
        assert_eq!(sources("gfx1201", "v_s_exp_f32"), [None, Some(0)]);
        assert_eq!(
            sources("gfx950", "v_mfma_scale_f32_16x16x128_f8f6f4"),
            [None, Some(0), Some(1), Some(2), Some(3), Some(4)]
        );
        assert_eq!(sources("gfx942", "v_addc_co_u32_e32").len(), opcode("gfx942", "v_addc_co_u32_e32").operands.len());
        assert!(line_operands(opcode("gfx1100", "v_readlane_b32")).iter().all(|o| o.kind != OperandKind::Special));
    }
}
