//! Scalar ALU immediates llvm-mc 22 refuses, or writes as other bits than the line says (checked
//! with llvm-mc 22 on all four targets):
//! - `s_cmpk_*_u32` takes an unsigned 16-bit constant (`s_cmpk_eq_u32 s16, -7` is refused);
//! - of the SOPP instructions without operands only `s_endpgm` takes a value, 0..65535
//!   (`s_endpgm -1`, `s_barrier 1` are refused): a word of another with its immediate set is one
//!   llvm-mc does not decode, and the disassembler prints it as `.long` (disasm::raw);
//! - (a float in a 64-bit scalar source: asm::float_lit, as for VALU sources;)
//! - a float in `s_setreg_imm32_b32`'s 32-bit value: llvm-mc writes the low 32 bits of its f64
//!   (`1.5` is 0, `1.0e10` is 0x20000000), so the line is refused.

use super::value::{value, Val};
use crate::inst::Instruction;

/// Whether `s` says a float (`1.5`, `lit(1.5)`).
fn float_of(s: &str) -> Option<f64> {
    let inner = s.strip_prefix("lit(").and_then(|x| x.strip_suffix(')')).map_or(s, str::trim);
    match value(inner) {
        Val::Float(f) => Some(f),
        _ => None,
    }
}

/// Refuses a float in a SOPK instruction's 32-bit literal (`s_setreg_imm32_b32`'s, the only
/// one; gfx12's SOP2 `s_fmamk_f32`/`s_fmaak_f32` constants are f32 and take floats).
pub(crate) fn int_literal_refusal(fname: &str, s: &str) -> Option<String> {
    (fname == "SOPK" && float_of(s).is_some())
        .then(|| format!("'{s}': llvm-mc 22 writes the low 32 bits of the f64 here, not the float; write the bits"))
}

/// Whether `m` is a SOPK compare of unsigned values (`s_cmpk_*_u32`).
pub(crate) fn unsigned_sopk(m: &str) -> bool {
    m.starts_with("s_cmpk_") && m.ends_with("_u32")
}

/// Refuses a SOPK constant outside the opcode's range: unsigned for the `_u32` compares.
pub(crate) fn sopk_refusal(m: &str, v: i64, text: &str) -> Option<String> {
    (unsigned_sopk(m) && v < 0).then(|| format!("immediate {text} out of range: {m} takes 0..65535"))
}

/// The value a SOPP instruction without operands takes (`s_endpgm`'s 0..65535), or why not.
pub(crate) fn bare_sopp_value(m: &str, text: &str, v: Option<i64>) -> Result<u32, String> {
    match v {
        Some(v) if m == "s_endpgm" && (0..=0xffff).contains(&v) => Ok(v as u32),
        Some(_) if m == "s_endpgm" => Err(format!("immediate {text} out of range: s_endpgm takes 0..65535")),
        Some(_) => Err(format!("{m} takes no operand")),
        None => Err(format!("bad immediate '{text}'")),
    }
}

/// Whether `i` is a SOPP instruction without operands, other than `s_endpgm`, whose immediate is
/// set: no line writes it.
pub(crate) fn bare_sopp_refused(i: &Instruction) -> bool {
    i.format().name == "SOPP" && i.mnemonic() != "s_endpgm" && i.operands().is_empty() && i.f("simm16") != 0
}
