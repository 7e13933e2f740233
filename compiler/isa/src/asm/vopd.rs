//! VOPD (gfx11+ dual issue): `v_dual_X operands :: v_dual_Y operands`, one instruction built
//! from an X opcode (VOPD) and a Y opcode (VOPD_Y) that share the VOPD dwords.

use baregpu_autogen::isa::FLAG_LITERAL;

use super::lexer::{split_line, Line};
use super::parser::{fill, start, Ext, Rules};
use super::value::typed;
use super::verify::agrees_vopd;
use crate::error::{IsaError, Result};
use crate::inst::Instruction;
use crate::tables::Tables;
use crate::Arch;

/// The opcodes of a mnemonic in one VOPD half (format `VOPD` or `VOPD_Y`).
fn half_ops(t: &Tables, m: &str, format: &str) -> Vec<u32> {
    let lower = m.to_ascii_lowercase();
    t.by_mnemonic
        .get(lower.as_str())
        .map(|v| v.iter().copied().filter(|&o| t.op(o).format == format).collect())
        .unwrap_or_default()
}

/// Assembles a VOPD line; `l` is the whole line split as usual (its mnemonic is the X opcode's).
pub fn assemble(arch: Arch, l: &Line, m: &str, text: &str, line: usize) -> Result<Instruction> {
    let t = Tables::get(arch);
    let lead = text.len() - text.trim_start().len();
    let col0 = l.mnemonic.col - lead;
    let k = text.find("::").ok_or_else(|| IsaError::asm(line, l.rest.col, "expected '::'"))?;
    let lx = split_line(&text[..k], col0).ok_or_else(|| IsaError::asm(line, col0, "empty VOPD X half"))?;
    let ly = split_line(&text[k + 2..], col0 + k + 2)
        .ok_or_else(|| IsaError::asm(line, col0 + k + 2, "expected a VOPD Y instruction after '::'"))?;
    let xs = half_ops(t, m, "VOPD");
    if xs.is_empty() {
        return Err(IsaError::asm(line, l.mnemonic.col, format!("'{m}' is not a VOPD X opcode on {}", arch.name())));
    }
    let ys = half_ops(t, ly.mnemonic.text, "VOPD_Y");
    if ys.is_empty() {
        return Err(IsaError::asm(
            line,
            ly.mnemonic.col,
            format!("'{}' is not a VOPD Y opcode on {}", ly.mnemonic.text, arch.name()),
        ));
    }
    let (tx, ty) = (typed(&lx), typed(&ly));
    let mut buf = String::new();
    let mut first_err: Option<(usize, String)> = None;
    let mut mismatch = None;
    for &x in &xs {
        for &y in &ys {
            match build(arch, x, y, &lx, &ly) {
                Ok(i) => {
                    // Before the read-back: a word over the bus limit or with a bank clash
                    // disassembles as `.long` (disasm::unwritten), which never agrees.
                    super::const_bus::check(&i).map_err(|(_, e)| IsaError::asm(line, ly.rest.col, e))?;
                    crate::vopd_banks::check(&i).map_err(|e| IsaError::asm(line, ly.rest.col, e))?;
                    if agrees_vopd(&i, (&lx, &tx), (&ly, &ty), &mut buf) {
                        return Ok(i);
                    }
                    mismatch.get_or_insert_with(|| buf.clone());
                }
                Err(e) => {
                    if first_err.as_ref().is_none_or(|f| e.0 > f.0) {
                        first_err = Some(e);
                    }
                }
            }
        }
    }
    if let Some((col, msg)) = first_err {
        return Err(IsaError::asm(line, col, msg));
    }
    Err(IsaError::asm(
        line,
        l.rest.col,
        format!("cannot encode '{}' (closest encoding decodes as '{}')", text.trim(), mismatch.unwrap_or_default()),
    ))
}

/// Fills the X half, then the Y half through the same dwords (the Y opcode's operand names are
/// VOPD fields too).
fn build(arch: Arch, x: u32, y: u32, lx: &Line, ly: &Line) -> std::result::Result<Instruction, (usize, String)> {
    let t = Tables::get(arch);
    let mut i = start(arch, x, Ext::None).ok_or_else(|| (lx.mnemonic.col, "no VOPD encoding".to_string()))?;
    if !i.set_field("opy", t.op(y).opcode as u32) {
        return Err((ly.mnemonic.col, "bad VOPD Y opcode".into()));
    }
    fill(&mut i, lx, &[], Ext::None, Rules::ALL)?;
    let mut j = Instruction { op: y, ..i };
    if t.op(y).flags & FLAG_LITERAL != 0 && j.literal.is_none() {
        j.literal = Some(0);
    }
    fill(&mut j, ly, &[], Ext::None, Rules::ALL)?;
    Ok(Instruction { op: x, op_y: Some(y), ..j })
}
