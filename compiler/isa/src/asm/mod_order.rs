//! The order of a VALU instruction's trailing modifiers: llvm-mc 22 reads an instruction's
//! optional operands in the order of its assembly string only, whatever their values, and each
//! once. It refuses `v_add_f32_e64 v1, v2, v3 mul:2 clamp` ("invalid operand for instruction"),
//! `v_pk_add_i16 v1, v2, v3 op_sel_hi:[0,0] op_sel:[0,0,1]` ("not a valid operand") and
//! `v_interp_p10_f32 v1, v2, v3, v4 wait_exp:0 clamp`. The verifier compares the order of
//! the modifiers a candidate's bits say; this rule also covers those written at their default
//! or that write no bit (an `op_sel` entry past the sources), which no decoded text shows.
//!
//! Every VALU format's order (checked with llvm-mc 22 per format, gfx9 to gfx12) is one
//! sequence of the list below; VINTERP alone puts `clamp` first. Buffer, FLAT and DS
//! instructions have theirs too (`format`, `idxen`, `offen`, `offset`, then the cache policy,
//! whose names come in any order; `gds` after `offset`); where `tfe` and `lds` go is not held
//! here.

use super::lexer::Tok;
use super::parser::{err, PErr};
use crate::inst::Instruction;

/// llvm-mc 22's order; the names of one row share a place (one of them at most is written).
const ORDER: &[&[&str]] = &[
    &["bitop3"],
    &["op_sel"],
    &["op_sel_hi"],
    &["index_key"],
    &["neg_lo"],
    &["neg_hi"],
    &["clamp"],
    &["mul", "div"],
    &[
        "dpp8",
        "quad_perm",
        "row_shl",
        "row_shr",
        "row_ror",
        "wave_shl",
        "wave_rol",
        "wave_shr",
        "wave_ror",
        "row_mirror",
        "row_half_mirror",
        "row_bcast",
        "row_share",
        "row_xmask",
        "row_newbcast",
    ],
    &["row_mask"],
    &["bank_mask"],
    &["bound_ctrl"],
    &["fi"],
    &["dst_sel"],
    &["dst_unused"],
    &["src0_sel"],
    &["src1_sel"],
    &["cbsz"],
    &["abid"],
    &["blgp", "neg"],
    &["format"],
    &["idxen"],
    &["offen"],
    &["offset", "offset0"],
    &["offset1"],
    &["gds"],
    CPOL,
];

/// The cache policy: one place, its names in any order (llvm-mc reads them as one operand).
const CPOL: &[&str] =
    &["glc", "slc", "dlc", "sc0", "sc1", "nt", "th", "scope", "noglc", "noslc", "nodlc", "nosc0", "nosc1", "nont"];

/// VINTERP's order (`v_interp_p10_f16_f32 v1, v2.l, v3, v4.l clamp op_sel:[0,0,0,0] wait_exp:1`).
const VINTERP: &[&[&str]] = &[&["clamp"], &["op_sel"], &["wait_exp"]];

/// The place of modifier `name` in `i`'s order and the names sharing it; `None` for names the
/// order does not hold.
fn place(i: &Instruction, name: &str) -> Option<(usize, &'static [&'static str])> {
    let order = if i.format().name == "VINTERP" { VINTERP } else { ORDER };
    order.iter().position(|row| row.contains(&name)).map(|p| (p, order[p]))
}

/// Refuses the first modifier of `mods` that comes after one llvm-mc reads later, or repeats
/// one.
pub(super) fn check(i: &Instruction, mods: &[Tok]) -> Result<(), PErr> {
    // One modifier has no order (most lines have none or one).
    if mods.len() < 2 {
        return Ok(());
    }
    let mut last: Option<(usize, &Tok)> = None;
    for t in mods {
        let name = super::value::split_colon(t.text).map_or(t.text, |(n, _)| n);
        let Some((p, row)) = place(i, name) else { continue };
        if let Some((q, prev)) = last {
            if p == q && row != CPOL {
                return err(t, format!("'{}' after '{}': llvm-mc 22 takes this modifier once", t.text, prev.text));
            }
            if p < q {
                return err(
                    t,
                    format!(
                        "'{}' after '{}': llvm-mc 22 takes {}'s modifiers in a fixed order",
                        t.text,
                        prev.text,
                        i.mnemonic()
                    ),
                );
            }
        }
        last = Some((p, t));
    }
    Ok(())
}
