//! The `isa_alias` generator: the mnemonic aliases and deprecated names llvm-mc 22 accepts for
//! each architecture, each with the name llvm-mc prints for it (`s_add_u32` -> `s_add_co_u32` on
//! gfx1201, `v_accvgpr_read` -> `v_accvgpr_read_b32` on gfx942).
//!
//! Input: `alias_candidates.txt` (pairs `alias canonical`, for any architecture) and the golden
//! vectors `tests/isa/golden/<arch>.txt` (operands known to be valid for each mnemonic). For every
//! pair and architecture, the operands of every golden line of either name (on any architecture,
//! with the `_e32`/`_e64`/`_dpp`/`_sdwa` suffixes) are written after both names and assembled by
//! llvm-mc. A pair is kept when at least one operand set assembles under both names to the same
//! bytes, none assembles to different bytes, and the alias is not a name llvm-mc prints itself.
//!
//! Output: `src/isa/aliases.rs`, one table per architecture sorted by alias.

use super::llvm;
use super::{ARCHS, LLVM_INPUT};
use crate::inputs::Inputs;
use crate::{banner, Generated};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

const CANDIDATES: &str = include_str!("alias_candidates.txt");

/// The suffixes that name an encoding; the alias keeps them (`s_andn2_b32_e32` is not a thing, but
/// `v_add_u32_e64` on gfx1100 is `v_add_nc_u32_e64`).
const SUFFIXES: &[&str] = &["", "_e32", "_e64", "_dpp", "_sdwa", "_e64_dpp"];

/// Operand sets tried per golden mnemonic and architecture (the golden order: templates first).
const OPS_PER_MNEMONIC: usize = 3;

/// Golden lines per architecture: mnemonic -> the operand text of its first lines.
type Golden = BTreeMap<String, Vec<String>>;

fn candidates() -> Result<Vec<(&'static str, &'static str)>, String> {
    let mut out = Vec::new();
    for (n, line) in CANDIDATES.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut w = line.split_whitespace();
        match (w.next(), w.next(), w.next()) {
            (Some(a), Some(c), None) => out.push((a, c)),
            _ => return Err(format!("alias_candidates.txt:{}: want `alias canonical`", n + 1)),
        }
    }
    Ok(out)
}

fn read_golden(arch: &str) -> Result<Golden, String> {
    let mut g = Golden::new();
    for asm in super::golden::read_texts(arch)? {
        let (m, ops) = asm.split_once(' ').unwrap_or((&asm, ""));
        let v = g.entry(m.to_string()).or_default();
        let ops = if ops.is_empty() { String::new() } else { format!(" {ops}") };
        if v.len() < OPS_PER_MNEMONIC && !v.contains(&ops) {
            v.push(ops);
        }
    }
    Ok(g)
}

/// The (suffix, operands) sets to try for a pair: those of either name on any architecture.
fn operand_sets(golden: &[Golden], alias: &str, canonical: &str) -> BTreeSet<(&'static str, String)> {
    let mut sets = BTreeSet::new();
    for g in golden {
        for suffix in SUFFIXES {
            for name in [alias, canonical] {
                for ops in g.get(&format!("{name}{suffix}")).into_iter().flatten() {
                    sets.insert((*suffix, ops.clone()));
                }
            }
        }
    }
    sets
}

/// The pairs llvm-mc confirms on one architecture, sorted by alias.
fn confirm(
    arch: &str,
    own: &Golden,
    golden: &[Golden],
    pairs: &[(&'static str, &'static str)],
) -> Result<Vec<(String, String)>, String> {
    // Lines 2k and 2k+1: the alias and the canonical name with the same operands.
    let mut lines = Vec::new();
    let mut owner = Vec::new();
    for (i, (alias, canonical)) in pairs.iter().enumerate() {
        for (suffix, ops) in operand_sets(golden, alias, canonical) {
            lines.push(format!("{alias}{suffix}{ops}"));
            lines.push(format!("{canonical}{suffix}{ops}"));
            owner.push(i);
        }
    }
    let out = llvm::assemble(arch, &lines)?;
    let (mut same, mut differ) = (vec![0usize; pairs.len()], vec![false; pairs.len()]);
    // A name the disassembler prints on this architecture is no alias here. (The assembler may
    // echo an alias: gfx9 `v_mul_lo_i32` is an instruction of its own in LLVM, with the encoding
    // of `v_mul_lo_u32`, which is what the disassembler prints.)
    let prints_itself: Vec<bool> =
        pairs.iter().map(|(alias, _)| SUFFIXES.iter().any(|s| own.contains_key(&format!("{alias}{s}")))).collect();
    for (k, &i) in owner.iter().enumerate() {
        let (Some(a), Some(c)) = (&out[2 * k], &out[2 * k + 1]) else { continue };
        if a.bytes == c.bytes {
            same[i] += 1;
        } else {
            differ[i] = true;
        }
    }
    let confirmed: Vec<(&str, &str)> =
        (0..pairs.len()).filter(|&i| same[i] > 0 && !differ[i] && !prints_itself[i]).map(|i| pairs[i]).collect();
    // A canonical name that is itself an alias here (`buffer_atomic_csub` -> `buffer_atomic_csub_u32`
    // -> `buffer_atomic_sub_clamp_u32` on gfx1201) resolves to the end of the chain.
    let next: BTreeMap<&str, &str> = confirmed.iter().copied().collect();
    let mut kept: Vec<(String, String)> = Vec::new();
    for &(alias, canonical) in &confirmed {
        let mut c = canonical;
        for _ in 0..4 {
            c = next.get(c).copied().unwrap_or(c);
        }
        kept.push((alias.to_string(), c.to_string()));
    }
    kept.sort();
    kept.dedup();
    for w in kept.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(format!("{arch}: alias {} confirmed for both {} and {}", w[0].0, w[0].1, w[1].1));
        }
    }
    Ok(kept)
}

pub fn generate(_inputs: &Inputs) -> Result<Vec<Generated>, String> {
    llvm::check_version()?;
    let pairs = candidates()?;
    let golden: Vec<Golden> = ARCHS.iter().map(|a| read_golden(a)).collect::<Result<_, _>>()?;
    let (g, p) = (&golden, &pairs);
    let tables = llvm::per_arch("isa_alias", ARCHS, |k, a| confirm(a, &g[k], g, p))?;
    let mut s = banner("isa_alias", &[&LLVM_INPUT]);
    s.push_str(
        "//! Mnemonic aliases and deprecated names llvm-mc 22 accepts, per architecture: (alias, the name\n\
         //! llvm-mc prints), sorted by alias. Candidates: autogen/gen/src/isa/alias_candidates.txt; each\n\
         //! pair kept was assembled by llvm-mc under both names to the same bytes.\n\n",
    );
    for (arch, table) in ARCHS.iter().zip(tables) {
        let _ = writeln!(s, "/// {} aliases of {arch}.", table.len());
        let _ = writeln!(s, "pub static {}: &[(&str, &str)] = &[", arch.to_uppercase());
        for (alias, canonical) in &table {
            let _ = writeln!(s, "    ({alias:?}, {canonical:?}),");
        }
        s.push_str("];\n\n");
    }
    s.pop();
    Ok(vec![Generated { path: PathBuf::from("src/isa/aliases.rs"), text: s }])
}
