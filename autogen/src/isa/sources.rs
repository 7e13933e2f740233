//! Which operands of an opcode are its sources, and their source indices (0 = src0).
//!
//! Hand-written (NOT generated): the one definition the generator (`line_operands`, for the
//! source-type probes), the ISA crate (`operand::src_index`, source types, modifiers) and the
//! table tests share, so they cannot drift apart.

use super::{Operand, OperandKind};

/// The source index of the operand named `name` (0 = src0), or `None` for operands that are no
/// source. Scalar (`ssrc0`), VOP2 (`vsrc1`) and VOPD (`src0x`, `vsrc1y`) names count as the
/// source they encode; gfx950's MFMA scale sources come after src2, as 3 and 4. The lane
/// selects that the tables keep as a [`split_first`] pair have no name and are numbered by
/// [`source_indices`].
#[inline]
pub fn source_index(name: &str) -> Option<usize> {
    match name {
        "src0" | "ssrc0" | "src0x" | "src0y" => Some(0),
        "src1" | "ssrc1" | "vsrc1" | "vsrc1x" | "vsrc1y" => Some(1),
        "src2" => Some(2),
        "scale_src0" => Some(3),
        "scale_src1" => Some(4),
        _ => None,
    }
}

/// Whether a table entry is the first half of a scalar-only source that llvm-mc's disassembler
/// printed with an invalid-register comment (`v_readlane_b32`'s lane select, gfx12
/// `v_s_exp_f32`'s src0): the tables keep it as two `Special` entries,
/// `vN/*Invalid register` and [`split_second`].
pub fn split_first(o: &Operand) -> bool {
    o.kind == OperandKind::Special && o.name.contains("/*Invalid register")
}

/// Whether a table entry is the second half of a [`split_first`] pair.
pub fn split_second(o: &Operand) -> bool {
    o.kind == OperandKind::Special && o.name.starts_with("operand has")
}

/// The source index of each table entry of an operand list: named sources by [`source_index`],
/// the first half of a split pair numbered after the sources before it, anything else (the
/// second half of a pair included) `None`.
pub fn source_indices(operands: &[Operand]) -> Vec<Option<usize>> {
    let mut next = 0;
    operands
        .iter()
        .map(|o| {
            let src = if split_first(o) { Some(next) } else { source_index(o.name) };
            if let Some(s) = src {
                next = s + 1;
            }
            src
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::ARCHS;

    fn sources(arch: &str, m: &str) -> Vec<Option<usize>> {
        let t = ARCHS.iter().find(|a| a.name == arch).expect("arch");
        source_indices(t.opcodes.iter().find(|o| o.mnemonic == m).expect("opcode").operands)
    }

    #[test]
    fn named_and_split_sources() {
        assert_eq!(sources("gfx942", "v_add_f32_e32"), [None, Some(0), Some(1)]);
        assert_eq!(sources("gfx1100", "s_add_u32"), [None, Some(0), Some(1)]);
        // vdst, src0, then the lane select as a pair: the pair's second half is no source.
        assert_eq!(sources("gfx1100", "v_readlane_b32"), [None, Some(0), Some(1), None]);
        assert_eq!(sources("gfx1201", "v_s_exp_f32"), [None, Some(0), None]);
        assert_eq!(
            sources("gfx950", "v_mfma_scale_f32_16x16x128_f8f6f4"),
            [None, Some(0), Some(1), Some(2), Some(3), Some(4)]
        );
        assert_eq!(source_index("vdst"), None);
        assert_eq!(source_index("vsrc1y"), Some(1));
    }
}
