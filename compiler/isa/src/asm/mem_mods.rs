//! Which memory modifier names an opcode takes at all, as llvm-mc 22 reads them: a name the
//! opcode's syntax has no operand for is refused whatever its value (`offset:0` included), although
//! the encoding has the field. Checked with llvm-mc 22 per opcode family (golden lines with each
//! modifier added), gfx9 to gfx12:
//! - DS: two-address opcodes take `offset0`/`offset1` and no `offset`; the others `offset` only
//!   (`ds_store_2addr_b32 v8, v24, v40 offset:0`, `ds_load_b128 v[56:59], v8 offset1:0`);
//! - buffer and FLAT opcodes without operands (gfx9 `buffer_inv`, `buffer_wbl2`; gfx11
//!   `buffer_gl0_inv`, `buffer_gl1_inv`; gfx12 `global_inv`, `global_wb`, `global_wbinv`) take
//!   the cache policy only: `sc0`/`sc1` on gfx9, `th`/`scope` on gfx12, nothing on gfx11. gfx9
//!   `nt` there is taken and dropped by llvm-mc (it writes no bit), so it is refused;
//! - SMEM: the cache policy only where the opcode has data (`s_atc_probe`, `s_dcache_discard`,
//!   gfx12 `s_prefetch_*`, `s_memtime` have none), `offset:` only where it has a base;
//! - `ds_nop` takes no modifier, and gfx11 `ds_permute_b32`,
//!   `ds_bpermute_b32` and `ds_bvh_stack*` no `gds`;
//! - gfx11/gfx12 buffer opcodes take no `lds` (the LDS loads are their own mnemonics).
//!
//! Runs once per modifier of a memory candidate; a DS line pays a substring test.

use crate::inst::Instruction;
use crate::operand::is_gfx9;

/// Why llvm-mc 22 refuses modifier `name` on `i` whatever its value; `None` where it takes it.
pub(super) fn refusal(i: &Instruction, name: &str) -> Option<String> {
    let cpol = matches!(name, "glc" | "slc" | "dlc" | "sc0" | "sc1" | "nt" | "th" | "scope" | "nv");
    let addr = matches!(name, "offset" | "offset0" | "offset1" | "offen" | "idxen" | "lds" | "tfe" | "gds" | "format");
    if !cpol && !addr {
        return None;
    }
    // llvm-mc's own operand list (`Instruction::operands` fills gaps: gfx11 `s_atc_probe`'s
    // probe value reads as `sdata` there).
    let ops = i.opcode().operands;
    let refused = match i.format().name {
        "DS" => match name {
            // `ds_nop`; the GWS opcodes without operands take `offset` and `gds`.
            _ if ops.is_empty() && !i.mnemonic().starts_with("ds_gws") => true,
            "offset" => crate::disasm::mem::two_offsets(i.mnemonic()),
            "offset0" | "offset1" => !crate::disasm::mem::two_offsets(i.mnemonic()),
            "gds" => !is_gfx9(i.arch) && gfx11_no_gds(i.mnemonic()),
            _ => false,
        },
        "SMEM" => {
            let has = |n: &str| ops.iter().any(|o| o.name == n);
            (cpol && !has("sdata")) || (name == "offset" && !has("sbase"))
        }
        "MUBUF" | "MTBUF" | "VBUFFER" | "FLAT" | "GLOBAL" | "SCRATCH" => {
            let bare = ops.is_empty() && !matches!(name, "sc0" | "sc1" | "th" | "scope");
            bare || (name == "lds" && !is_gfx9(i.arch))
        }
        _ => false,
    };
    refused.then(|| {
        let m = i.mnemonic();
        if name == "nt" && ops.is_empty() {
            format!("'nt' on {m}: llvm-mc 22 takes it and writes no bit")
        } else {
            format!("{m} has no '{name}' operand (llvm-mc 22 refuses it whatever its value)")
        }
    })
}

/// gfx11 DS opcodes with no `gds` operand (the others take it).
fn gfx11_no_gds(m: &str) -> bool {
    matches!(m, "ds_permute_b32" | "ds_bpermute_b32") || m.starts_with("ds_bvh_stack")
}

/// The fields of memory words that one modifier each writes, with its name.
const FIELDS: [(&str, &str); 13] = [
    ("offset", "offset"),
    ("offen", "offen"),
    ("idxen", "idxen"),
    ("lds", "lds"),
    ("tfe", "tfe"),
    ("gds", "gds"),
    ("glc", "glc"),
    ("slc", "slc"),
    ("dlc", "dlc"),
    ("sc0", "sc0"),
    ("sc1", "sc1"),
    ("nt", "nt"),
    ("scope_th", "th"),
];

/// Whether a decoded word sets a field that only a modifier [`refusal`] refuses writes: its text
/// would not read back, so it prints as `.long` (disasm::unwritten::unwritten_field).
pub(crate) fn word_refused(i: &Instruction) -> bool {
    let fname = i.format().name;
    if !matches!(fname, "DS" | "SMEM" | "MUBUF" | "MTBUF" | "VBUFFER" | "FLAT" | "GLOBAL" | "SCRATCH") {
        return false;
    }
    let set = |f: &str| i.field(f).is_some_and(|v| v != 0);
    let ops = i.opcode().operands;
    // Opcodes with their operands take every modifier but `gds` (gfx11 DS), `lds` (gfx11+) and
    // the SMEM ones: a word of theirs pays one or two field reads (this runs per decoded line).
    let has = |n: &str| ops.iter().any(|o| o.name == n);
    let full = ops.is_empty() || fname == "SMEM" && !(has("sdata") && has("sbase"));
    if !full {
        return match fname {
            "DS" => set("gds") && refusal(i, "gds").is_some(),
            "SMEM" => false,
            _ => !is_gfx9(i.arch) && set("lds") && refusal(i, "lds").is_some(),
        };
    }
    if fname == "DS" {
        // `offset` writes both offset fields of a one-address opcode.
        let name = if crate::disasm::mem::two_offsets(i.mnemonic()) { "offset0" } else { "offset" };
        return (set("offset0") || set("offset1")) && refusal(i, name).is_some()
            || set("gds") && refusal(i, "gds").is_some();
    }
    // A field an operand writes (SMEM `offset`) is no modifier's.
    FIELDS.iter().any(|&(f, name)| set(f) && !has(f) && refusal(i, name).is_some())
}

/// Whether a DS opcode takes no offset in either spelling (`ds_nop`): the builder's fast path
/// then leaves an offset to the general fill, which refuses it.
pub(crate) fn ds_no_offset(i: &Instruction) -> bool {
    refusal(i, "offset").is_some() && refusal(i, "offset0").is_some()
}
