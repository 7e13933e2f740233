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

use baregpu_autogen::isa::sources::source_index;
use baregpu_autogen::isa::src_kinds_bits::{ALL, E, I, L, M, S, V};
use baregpu_autogen::isa::{src_kinds as gen, FormatRole, OperandKind};

use crate::inst::Instruction;
use crate::op_table::PerArch;
use crate::tables::Tables;
use crate::Arch;

/// Per opcode index of `arch`, the kinds of src0..src2, or `None` where every source takes
/// every kind (most opcodes).
fn masks(arch: Arch) -> &'static [Option<[u8; 4]>] {
    static M: PerArch<[u8; 4]> = PerArch::new();
    M.get(
        arch,
        |_| true,
        || {
            let list = match arch {
                Arch::Gfx1100 => gen::GFX1100,
                Arch::Gfx1201 => gen::GFX1201,
                Arch::Gfx942 => gen::GFX942,
                Arch::Gfx950 => gen::GFX950,
            };
            list.iter().copied().collect()
        },
    )
}

/// Whether some source of opcode `op` (an index into `arch`'s table) refuses a kind.
pub(crate) fn restricted(arch: Arch, op: u32) -> bool {
    masks(arch).get(op as usize).is_some_and(Option::is_some)
}

/// The kind of a source code (0..=511): 256 and up a vector register, 255 a literal, the inline
/// integers and floats, and every other code a scalar value (SGPRs, vcc, m0, exec, `src_*`).
pub(crate) fn kind_of(code: u32) -> u8 {
    match code {
        256.. => V,
        255 => L,
        128..=208 | 240..=248 => I,
        _ => S,
    }
}

/// m0's code in a scalar operand of `arch`.
fn m0_code(arch: Arch) -> u32 {
    if crate::operand::is_gfx9(arch) {
        124
    } else {
        125
    }
}

/// What a mask takes, as words: "a VGPR or an SGPR".
pub(crate) fn describe(mask: u8) -> String {
    let names = [(V, "a VGPR"), (S, "an SGPR"), (M, "m0"), (I, "an inline constant"), (L, "a literal")];
    let taken: Vec<&str> = names.iter().filter(|(b, _)| mask & b != 0).map(|(_, n)| *n).collect();
    if taken.is_empty() {
        "no operand llvm-mc 22 writes correctly".into()
    } else {
        taken.join(" or ")
    }
}

/// Why `code` cannot be source `field` of `i` (a started or filled instruction), or its scalar
/// destination (`vdst`/`sdst`: m0 or exec where the opcode refuses it); `None` where it can. SDWA
/// forms are not probed; DPP forms have their own table (isa::dpp_kinds).
pub(crate) fn refusal(i: &Instruction, field: &str, code: u32) -> Option<String> {
    let mask = masks(i.arch).get(i.op as usize).copied().flatten()?;
    if matches!(field, "vdst" | "sdst") {
        return dst_refusal(i, mask[3], code);
    }
    let src = source_index(field).filter(|&s| s < 3)?;
    let m = mask[src];
    // M in a source: m0 taken where no other scalar register is (gfx12 `s_get_barrier_state`).
    let m0 = code == m0_code(i.arch) && m & M != 0;
    if m == ALL || m & kind_of(code) != 0 || m0 || i.format().role == FormatRole::Modifier {
        return None;
    }
    Some(format!("{}'s src{src} takes only {} (llvm-mc 22 refuses the rest)", i.mnemonic(), describe(m)))
}

/// Why `code` cannot be the scalar destination of `i`, whose destination takes `mask`.
fn dst_refusal(i: &Instruction, mask: u8, code: u32) -> Option<String> {
    let m0 = m0_code(i.arch);
    // exec_lo and exec_hi have the same codes on every architecture here.
    let name = match code {
        _ if mask == ALL => return None,
        c if c == m0 && mask & M == 0 => "m0",
        126 | 127 if mask & E == 0 => "exec",
        _ => return None,
    };
    Some(format!("{}'s destination cannot be {name} (llvm-mc 22 refuses it)", i.mnemonic()))
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
        assert_eq!(mask(Arch::Gfx942, "v_readfirstlane_b32"), Some([V, ALL, ALL, S | E]));
        assert_eq!(mask(Arch::Gfx1201, "v_s_exp_f32"), Some([ALL, ALL, ALL, S | M]));
        assert_eq!(mask(Arch::Gfx1201, "s_get_barrier_state"), Some([V | I | M, ALL, ALL, ALL]));
        assert_eq!(mask(Arch::Gfx1100, "v_readlane_b32"), Some([V, S | I, ALL, S | E]));
        assert_eq!(mask(Arch::Gfx1201, "v_interp_p10_f32"), Some([V, V, V, ALL]));
        assert_eq!(mask(Arch::Gfx950, "s_setpc_b64").map(|m| m[0] & (S | I | L)), Some(S));
        assert_eq!(mask(Arch::Gfx942, "v_add_f32_e32"), None);
        assert!(!restricted(Arch::Gfx1100, op(Arch::Gfx1100, "v_mov_b32_e32")));
    }

    /// Words llvm-mc 22 prints as lines it refuses (gfx12 `v_s_exp_f32 exec_lo, s1`,
    /// `s_get_barrier_state s3, s5`) print as `.long`; m0 there reads back.
    #[test]
    fn refused_words_print_as_long() {
        let text = |b: &[u8]| crate::disassemble(&crate::decode::decode(Arch::Gfx1201, b).expect("decodes"));
        assert!(text(&[0x7e, 0x00, 0x80, 0xd6, 0x01, 0x00, 0x00, 0x00]).starts_with(".long"));
        assert!(text(&[0x05, 0x50, 0x83, 0xbe]).starts_with(".long"));
        assert!(text(&[0x7c, 0x50, 0x83, 0xbe]).starts_with(".long"), "null: llvm-mc reads it as 20");
        assert_eq!(text(&[0x7d, 0x50, 0x83, 0xbe]), "s_get_barrier_state s3, m0");
        assert_eq!(text(&[0x6b, 0x00, 0x80, 0xd6, 0x01, 0x00, 0x00, 0x00]), "v_s_exp_f32 vcc_hi, s1");
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
