//! Which kinds of operand (VGPR, SGPR, inline constant) src1 and src2 of a gfx11/gfx12
//! VOP3/VOP3P DPP16 or DPP8 form take, as llvm-mc 22 decides: the generated table
//! `baregpu_autogen::isa::dpp_kinds` (probed per opcode, form and source by the autogen
//! generator, autogen/gen/src/isa/dpp_kinds.rs). On gfx1100 every such src1 is a VGPR; on both,
//! `v_fma_mix*` src1 and gfx12 `v_dot4_f32_{fp8,bf8}_*` src1/src2 are VGPRs.
//!
//! One rule for the assembler (such a source is refused), the builder (the same) and the
//! disassembler (such a word prints as `.long`, since no line writes it). Literals are another
//! rule's (no DPP form takes one).

use std::collections::HashMap;

use baregpu_autogen::isa::dpp_kinds as gen;
use baregpu_autogen::isa::sources::source_index;
#[cfg(test)]
use baregpu_autogen::isa::src_kinds_bits::L;
use baregpu_autogen::isa::src_kinds_bits::{ALL, I, S, V};

use crate::inst::Instruction;
use crate::op_table::PerArch;
use crate::src_kinds::{describe, kind_of};
use crate::Arch;

/// The kinds of src0..src2 of one opcode's DPP16 and DPP8 forms.
type Forms = [[u8; 3]; 2];

/// Per opcode index of `arch`, the kinds of its DPP16 and DPP8 sources, or `None` where every
/// source of both takes every kind.
fn masks(arch: Arch) -> &'static [Option<Forms>] {
    static M: PerArch<Forms> = PerArch::new();
    M.get(
        arch,
        |_| true,
        || {
            let list = match arch {
                Arch::Gfx1100 => gen::GFX1100,
                Arch::Gfx1201 => gen::GFX1201,
                Arch::Gfx942 | Arch::Gfx950 => &[],
            };
            let mut by_name: HashMap<&str, Forms> = HashMap::new();
            for &(m, dpp8, k) in list {
                by_name.entry(m).or_insert([[ALL; 3]; 2])[usize::from(dpp8)] = k;
            }
            by_name
        },
    )
}

/// Why `code` cannot be source `field` of `i` (a started or filled instruction) in its DPP16 or
/// DPP8 form; `None` where it can, and for every other form.
pub(crate) fn refusal(i: &Instruction, field: &str, code: u32) -> Option<String> {
    let forms = masks(i.arch).get(i.op as usize).copied().flatten()?;
    let f = i.format();
    let form = if f.name.ends_with("_DPP16") {
        0
    } else if f.name.ends_with("_DPP8") {
        1
    } else {
        return None;
    };
    let src = source_index(field).filter(|&s| s < 3)?;
    let m = forms[form][src];
    if m == ALL || m & kind_of(code) != 0 {
        return None;
    }
    let op = i.opcode();
    let name = op.mnemonic.trim_end_matches("_e64");
    let takes = describe(m & (V | S | I));
    Some(format!("{field} of {name}_e64_dpp must be {takes} (llvm-mc 22 refuses the rest)"))
}

/// The first of src1 and src2 of `i` that holds a kind its DPP form refuses, and why.
pub(crate) fn first_refusal(i: &Instruction) -> Option<(&'static str, String)> {
    masks(i.arch).get(i.op as usize).copied().flatten()?;
    ["src1", "src2"].into_iter().find_map(|n| Some((n, refusal(i, n, i.field(n)?)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::Tables;
    use baregpu_autogen::isa::{OperandKind, FLAG_DPP16, FLAG_DPP8};

    /// Every gfx1100 VOP3-family opcode with a DPP form and a src1 operand has its src1 probed:
    /// llvm-mc 22 takes only a VGPR there (an opcode the probe missed would take anything).
    #[test]
    fn gfx1100_vop3_dpp_src1_is_a_vgpr() {
        let t = Tables::get(Arch::Gfx1100);
        let mut n = 0;
        for (k, op) in t.table.opcodes.iter().enumerate() {
            let vop3 = matches!(op.format, "VOP3" | "VOP3SD" | "VOP3P");
            let src1 = op.operands.iter().any(|o| o.name == "src1" && o.kind == OperandKind::Vsrc);
            if !vop3 || !src1 || op.flags & (FLAG_DPP16 | FLAG_DPP8) == 0 {
                continue;
            }
            let forms = masks(Arch::Gfx1100)[k].unwrap_or_else(|| panic!("{} not probed", op.mnemonic));
            for (form, flag) in [FLAG_DPP16, FLAG_DPP8].into_iter().enumerate() {
                if op.flags & flag != 0 {
                    assert_eq!(forms[form][1] & (V | S | I), V, "{} form {form}", op.mnemonic);
                    n += 1;
                }
            }
        }
        assert!(n > 400, "{n} forms");
    }

    /// llvm-mc 22's gfx1201 bytes for `v_add_f32_e64_dpp v1, v2, s3 quad_perm:[0,1,2,3]`: a
    /// gfx1100 word no gfx1100 line writes (it prints as `.long` there).
    #[test]
    fn scalar_src1_words() {
        let w = [0x01, 0x00, 0x03, 0xd5, 0xfa, 0x06, 0x00, 0x00, 0x02, 0xe4, 0x00, 0xff];
        let text = |a| crate::disassemble(&crate::decode::decode(a, &w).expect("decodes"));
        assert!(text(Arch::Gfx1100).starts_with(".long"));
        assert!(text(Arch::Gfx1201).starts_with("v_add_f32_e64_dpp v1, v2, s3"));
    }

    #[test]
    fn gfx1201_vgpr_only_sources() {
        let t = Tables::get(Arch::Gfx1201);
        let op = |m: &str| t.by_mnemonic[m][0] as usize;
        let m = masks(Arch::Gfx1201);
        assert_eq!(m[op("v_dot4_f32_fp8_bf8")].map(|f| f[1][1..].to_vec()), Some(vec![V | L, V | L]));
        assert_eq!(m[op("v_fma_mix_f32")].map(|f| f[0][1..].to_vec()), Some(vec![V | L, ALL]));
        assert_eq!(m[op("v_add_f32_e64")], None);
    }
}
