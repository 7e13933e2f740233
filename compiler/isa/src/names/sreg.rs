//! Named scalar operands (special registers and named constants of the source fields), both
//! directions: `vcc`, `exec_lo`, `m0`, `null`, `flat_scratch`, `src_shared_base`, ...

use crate::operand::is_gfx9;
use crate::Arch;

/// The encoding of a named scalar operand (a 64-bit pair's name gives its low half's code).
pub fn code(arch: Arch, s: &str) -> Option<u32> {
    let g9 = is_gfx9(arch);
    Some(match s {
        "vcc" | "vcc_lo" => 106,
        "vcc_hi" => 107,
        "exec" | "exec_lo" => 126,
        "exec_hi" => 127,
        "m0" if g9 => 124,
        "m0" => 125,
        "null" if !g9 => 124,
        "flat_scratch" | "flat_scratch_lo" if g9 => 102,
        "flat_scratch_hi" if g9 => 103,
        "xnack_mask" | "xnack_mask_lo" if g9 => 104,
        "xnack_mask_hi" if g9 => 105,
        // llvm-mc also takes the names without `src_` (`vccz` and `execz` only on gfx9).
        "src_shared_base" | "shared_base" => 235,
        "src_shared_limit" | "shared_limit" => 236,
        "src_private_base" | "private_base" => 237,
        "src_private_limit" | "private_limit" => 238,
        "src_pops_exiting_wave_id" | "pops_exiting_wave_id" if g9 => 239,
        "vccz" | "execz" if !g9 => return None,
        "src_vccz" | "vccz" => 251,
        "src_execz" | "execz" => 252,
        "src_scc" | "scc" => 253,
        "src_lds_direct" if g9 => 254,
        _ => return None,
    })
}

/// The size in dwords of a named scalar register: 2 for the pairs (`vcc`, `exec`,
/// `flat_scratch`, `xnack_mask`), 1 for their halves and `m0`; `None` for names of any size
/// (`null`, the `src_*` constants). llvm-mc 22 refuses a name of the other size
/// ("invalid operand for instruction"): `vcc` in a 32-bit source, `m0` in a 64-bit one.
pub fn dwords(s: &str) -> Option<u8> {
    match s {
        "vcc" | "exec" | "flat_scratch" | "xnack_mask" => Some(2),
        "vcc_lo" | "vcc_hi" | "exec_lo" | "exec_hi" | "m0" | "flat_scratch_lo" | "flat_scratch_hi"
        | "xnack_mask_lo" | "xnack_mask_hi" => Some(1),
        _ => None,
    }
}

/// The name of a named constant source code (not registers), as llvm-mc prints it.
pub fn const_name(arch: Arch, v: u32) -> Option<&'static str> {
    let g9 = is_gfx9(arch);
    Some(match v {
        // gfx940+: printed by llvm-mc, though its assembler rejects them there.
        230 if g9 => "src_flat_scratch_base_lo",
        231 if g9 => "src_flat_scratch_base_hi",
        235 => "src_shared_base",
        236 => "src_shared_limit",
        237 => "src_private_base",
        238 => "src_private_limit",
        239 if g9 => "src_pops_exiting_wave_id",
        251 => "src_vccz",
        252 => "src_execz",
        253 => "src_scc",
        254 if g9 => "src_lds_direct",
        _ => return None,
    })
}
