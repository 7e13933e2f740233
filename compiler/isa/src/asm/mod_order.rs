//! The order of a VALU instruction's trailing modifiers: llvm-mc 22 reads an instruction's
//! optional operands in the order of its assembly string only, whatever their values, and each
//! once. It refuses `v_add_f32_e64 v1, v2, v3 mul:2 clamp` ("invalid operand for instruction"),
//! `v_pk_add_i16 v1, v2, v3 op_sel_hi:[0,0] op_sel:[0,0,1]` ("not a valid operand") and
//! `v_interp_p10_f32 v1, v2, v3, v4 wait_exp:0 clamp`. The verifier compares the order of
//! the modifiers a candidate's bits say; this rule also covers those written at their default
//! or that write no bit (an `op_sel` entry past the sources), which no decoded text shows.
//!
//! Every VALU format's order (checked with llvm-mc 22 per format, gfx9 to gfx12) is one
//! sequence of the one below; VINTERP alone puts `clamp` first. Buffer, FLAT and DS
//! instructions have theirs too (`format`, `idxen`, `offen`, `offset`, then the cache policy,
//! whose names come in any order; `gds` after `offset`); where `tfe` and `lds` go is not held
//! here.

use super::lexer::Tok;
use super::parser::{err, PErr};
use crate::inst::Instruction;

/// The place of modifier `name` in llvm-mc 22's order (names of one place: one of them at most
/// is written); `None` for names the order does not hold. A `match`: this runs on every
/// candidate of a line with two modifiers or more.
fn place(name: &str) -> Option<u8> {
    Some(match name {
        "bitop3" => 0,
        "op_sel" => 1,
        "op_sel_hi" => 2,
        "index_key" => 3,
        "neg_lo" => 4,
        "neg_hi" => 5,
        "clamp" => 6,
        "mul" | "div" => 7,
        "dpp8" | "quad_perm" | "row_shl" | "row_shr" | "row_ror" | "wave_shl" | "wave_rol" | "wave_shr"
        | "wave_ror" | "row_mirror" | "row_half_mirror" | "row_bcast" | "row_share" | "row_xmask" | "row_newbcast" => 8,
        "row_mask" => 9,
        "bank_mask" => 10,
        "bound_ctrl" => 11,
        "fi" => 12,
        "dst_sel" => 13,
        "dst_unused" => 14,
        "src0_sel" => 15,
        "src1_sel" => 16,
        "cbsz" => 17,
        "abid" => 18,
        "blgp" | "neg" => 19,
        "format" => 20,
        "idxen" => 21,
        "offen" => 22,
        "offset" | "offset0" => 23,
        "offset1" => 24,
        "gds" => 25,
        // The cache policy: its names in any order (llvm-mc reads them as one operand).
        "glc" | "slc" | "dlc" | "sc0" | "sc1" | "nt" | "th" | "scope" | "noglc" | "noslc" | "nodlc" | "nosc0"
        | "nosc1" | "nont" => CPOL,
        _ => return None,
    })
}

/// The cache policy's place.
const CPOL: u8 = 26;

/// VINTERP's order (`v_interp_p10_f16_f32 v1, v2.l, v3, v4.l clamp op_sel:[0,0,0,0] wait_exp:1`).
fn vinterp_place(name: &str) -> Option<u8> {
    match name {
        "clamp" => Some(0),
        "op_sel" => Some(1),
        "wait_exp" => Some(2),
        _ => None,
    }
}

/// Refuses the first modifier of `mods` that comes after one llvm-mc reads later, or repeats
/// one.
pub(super) fn check(i: &Instruction, mods: &[Tok]) -> Result<(), PErr> {
    // One modifier has no order (most lines have none or one).
    if mods.len() < 2 {
        return Ok(());
    }
    let place = if i.format().name == "VINTERP" { vinterp_place } else { place };
    let mut last: Option<(u8, &Tok)> = None;
    for t in mods {
        let name = super::value::split_colon(t.text).map_or(t.text, |(n, _)| n);
        let Some(p) = place(name) else { continue };
        if let Some((q, prev)) = last {
            if p == q && p != CPOL {
                return err(t, format!("'{}' after '{}': llvm-mc 22 takes this modifier once", t.text, prev.text));
            }
            if p < q {
                let m = i.mnemonic();
                return err(
                    t,
                    format!("'{}' after '{}': llvm-mc 22 takes {m}'s modifiers in a fixed order", t.text, prev.text),
                );
            }
        }
        last = Some((p, t));
    }
    Ok(())
}
