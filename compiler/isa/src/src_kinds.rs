//! Which kinds of operand (vector register, scalar register, inline constant, literal) each
//! source of an opcode takes, as llvm-mc 22 decides: the generated table
//! `baregpu_autogen::isa::src_kinds` (probed per opcode, source and encoding by the autogen
//! generator, autogen/gen/src/isa/src_kinds.rs). A 9-bit source field could hold any kind, but
//! llvm-mc refuses an SGPR in `v_readfirstlane_b32`'s src0, a VGPR in `v_readlane_b32`'s lane
//! select, a literal in `s_setpc_b64`, a constant in a VINTERP source.
//!
//! One rule for the assembler (a candidate with such a source is refused), the builder (the
//! same, through the general fill: such opcodes get no fast plan) and the disassembler (a word
//! with such a source prints as `.long`, since no line writes it).

use std::collections::HashMap;
use std::sync::OnceLock;

use baregpu_autogen::isa::sources::source_index;
use baregpu_autogen::isa::src_kinds_bits::{ALL, I, L, M, S, V};
use baregpu_autogen::isa::{src_kinds as gen, FormatRole, OperandKind};

use crate::inst::Instruction;
use crate::tables::Tables;
use crate::Arch;

/// Per opcode index of `arch`, the kinds of src0..src2, or `None` where every source takes
/// every kind (most opcodes).
fn masks(arch: Arch) -> &'static [Option<[u8; 4]>] {
    static M: [OnceLock<Vec<Option<[u8; 4]>>>; 4] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
    M[arch as usize].get_or_init(|| {
        let list = match arch {
            Arch::Gfx1100 => gen::GFX1100,
            Arch::Gfx1201 => gen::GFX1201,
            Arch::Gfx942 => gen::GFX942,
            Arch::Gfx950 => gen::GFX950,
        };
        let by_name: HashMap<&str, [u8; 4]> = list.iter().copied().collect();
        Tables::get(arch).table.opcodes.iter().map(|o| by_name.get(o.mnemonic).copied()).collect()
    })
}

/// Whether some source of opcode `op` (an index into `arch`'s table) refuses a kind.
pub(crate) fn restricted(arch: Arch, op: u32) -> bool {
    masks(arch).get(op as usize).is_some_and(Option::is_some)
}

/// The kind of a source code (0..=511): 256 and up a vector register, 255 a literal, the inline
/// integers and floats, and every other code a scalar value (SGPRs, vcc, m0, exec, `src_*`).
fn kind_of(code: u32) -> u8 {
    match code {
        256.. => V,
        255 => L,
        128..=208 | 240..=248 => I,
        _ => S,
    }
}

/// What a mask takes, as words: "a VGPR or an SGPR".
fn describe(mask: u8) -> String {
    let names = [(V, "a VGPR"), (S, "an SGPR"), (I, "an inline constant"), (L, "a literal")];
    let taken: Vec<&str> = names.iter().filter(|(b, _)| mask & b != 0).map(|(_, n)| *n).collect();
    if taken.is_empty() {
        "no operand llvm-mc 22 writes correctly".into()
    } else {
        taken.join(" or ")
    }
}

/// Why `code` cannot be source `field` of `i` (a started or filled instruction), or its scalar
/// destination (`vdst`/`sdst`: m0 where the opcode refuses it); `None` where it can. DPP and
/// SDWA forms are not probed and keep their own rules (isa::ext_forms).
pub(crate) fn refusal(i: &Instruction, field: &str, code: u32) -> Option<String> {
    let mask = masks(i.arch).get(i.op as usize).copied().flatten()?;
    if matches!(field, "vdst" | "sdst") {
        let m0 = if crate::operand::is_gfx9(i.arch) { 124 } else { 125 };
        return (mask[3] & M == 0 && mask[3] != ALL && code == m0)
            .then(|| format!("{}'s destination cannot be m0 (llvm-mc 22 refuses it)", i.mnemonic()));
    }
    let src = source_index(field).filter(|&s| s < 3)?;
    let m = mask[src];
    if m == ALL || m & kind_of(code) != 0 || i.format().role == FormatRole::Modifier {
        return None;
    }
    Some(format!("{}'s src{src} takes only {} (llvm-mc 22 refuses the rest)", i.mnemonic(), describe(m)))
}

/// The first operand of `i` (by table name) that holds a kind its opcode refuses there, and
/// why: no line writes such a word.
pub(crate) fn first_refusal(i: &Instruction) -> Option<(&'static str, String)> {
    if !restricted(i.arch, i.op) {
        return None;
    }
    Tables::get(i.arch).operands[i.op as usize].iter().find_map(|o| {
        let operand = matches!(o.kind, OperandKind::Vsrc | OperandKind::Ssrc | OperandKind::Agpr)
            || matches!(o.name, "vdst" | "sdst");
        let e = refusal(i, o.name, i.field(o.name).filter(|_| operand)?)?;
        Some((o.name, e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(arch: Arch, m: &str) -> u32 {
        Tables::get(arch).by_mnemonic[m][0]
    }

    #[test]
    fn probed_kinds() {
        let mask = |arch, m| masks(arch)[op(arch, m) as usize];
        assert_eq!(mask(Arch::Gfx942, "v_readfirstlane_b32"), Some([V, ALL, ALL, S]));
        assert_eq!(mask(Arch::Gfx1100, "v_readlane_b32"), Some([V, S | I, ALL, S]));
        assert_eq!(mask(Arch::Gfx1201, "v_interp_p10_f32"), Some([V, V, V, ALL]));
        assert_eq!(mask(Arch::Gfx950, "s_setpc_b64").map(|m| m[0] & (S | I | L)), Some(S));
        assert_eq!(mask(Arch::Gfx942, "v_add_f32_e32"), None);
        assert!(!restricted(Arch::Gfx1100, op(Arch::Gfx1100, "v_mov_b32_e32")));
    }

    #[test]
    fn kinds_of_codes() {
        assert_eq!(
            [kind_of(5), kind_of(124), kind_of(129), kind_of(242), kind_of(255), kind_of(300)],
            [S, S, I, I, L, V]
        );
        assert_eq!(describe(V | S), "a VGPR or an SGPR");
    }
}
