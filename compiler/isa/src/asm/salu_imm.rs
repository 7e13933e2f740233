//! Scalar ALU immediates llvm-mc 22 refuses, or writes as other bits than the line says (checked
//! with llvm-mc 22 on all four targets):
//! - `s_cmpk_*_u32` takes an unsigned 16-bit constant (`s_cmpk_eq_u32 s16, -7` is refused);
//! - of the SOPP instructions without operands only `s_endpgm` takes a value, 0..65535
//!   (`s_endpgm -1`, `s_barrier 1` are refused): a word of another with its immediate set is one
//!   llvm-mc does not decode, and the disassembler prints it as `.long` (disasm::raw);
//! - a float in a 64-bit scalar source is an inline constant or refused (`s_and_b64 s[16:17],
//!   1.5, s[40:41]`): the 32-bit literal holds no f64;
//! - a float in `s_setreg_imm32_b32`'s 32-bit value: llvm-mc writes the low 32 bits of its f64
//!   (`1.5` is 0, `1.0e10` is 0x20000000), so the line is refused.

use super::value::{value, Val};
use crate::inst::Instruction;
use crate::operand::ValType;

/// The f64 inline constants of a 64-bit source: ±0.5, ±1.0, ±2.0, ±4.0, 0 and 1/(2π).
fn inline_f64(f: f64) -> bool {
    const INV_2PI: u64 = 0x3fc4_5f30_6dc9_c882;
    // -0.0 is no inline constant (its bits are not 0).
    f.to_bits() == 0 || [0.5, 1.0, 2.0, 4.0].contains(&f.abs()) || f.to_bits() == INV_2PI
}

/// The float `s` says (`1.5`, `lit(1.5)`), and whether it was forced into a literal.
fn float_of(s: &str) -> Option<(f64, bool)> {
    let (inner, lit) = match s.strip_prefix("lit(").and_then(|x| x.strip_suffix(')')) {
        Some(x) => (x.trim(), true),
        None => (s, false),
    };
    match value(inner) {
        Val::Float(f) => Some((f, lit)),
        _ => None,
    }
}

/// Refuses a float that is no inline constant in a 64-bit source (`ty`) of a scalar ALU format.
pub(crate) fn float64_refusal(fname: &str, ty: ValType, s: &str) -> Option<String> {
    if !fname.starts_with("SOP") || !matches!(ty, ValType::B64 | ValType::F64) {
        return None;
    }
    let (f, lit) = float_of(s)?;
    (lit || !inline_f64(f))
        .then(|| format!("'{s}': a 64-bit scalar source takes no float literal (only inline constants)"))
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
