//! Typed instruction -> llvm-mc 22 text.

pub mod image;
pub mod mem;
mod raw;
mod salu;
pub(crate) mod unwritten;
pub(crate) mod valu;

pub(crate) use valu::tied_dst_half;
pub use valu::{byte_sel, byte_sel_opsel, has_dst, sdwa_has_dst_sel, vop3_opsel_len};

use crate::inst::Instruction;
use crate::operand::{float_text, reg_range, src, sreg_text, Src, ValType};
use crate::Arch;

/// The instruction's text as llvm-mc 22 prints it.
pub fn disassemble(i: &Instruction) -> String {
    let text = symbolic(i);
    if raw::unencodable(i, &text) {
        return raw::text(i, &text);
    }
    text
}

/// The instruction's text, whether or not an assembler reads it back.
fn symbolic(i: &Instruction) -> String {
    let f = i.format();
    let base = f.parent.unwrap_or(f.name);
    let fam = match f.name {
        "VOP3SD" | "MFMA" | "WMMA" | "VOPD_Y" | "VOP3PX2" => f.name,
        _ => base,
    };
    match fam {
        "SOP1" | "SOP2" | "SOPC" | "SOPK" | "SOPP" => salu::text(i),
        "SMEM" | "DS" | "FLAT" | "GLOBAL" | "SCRATCH" | "MUBUF" | "MTBUF" | "VBUFFER" | "LDSDIR" | "EXP" => {
            mem::text(i)
        }
        "MIMG" | "VIMAGE" | "VSAMPLE" => image::text(i),
        _ => valu::text(i),
    }
}

/// Appends the instruction's text (as [`disassemble`] returns it) to `out`.
pub fn disassemble_into(i: &Instruction, out: &mut String) {
    out.push_str(&disassemble(i));
}

/// Text of a source operand value (scalar or vector source field), without modifiers.
pub(crate) fn src_text(arch: Arch, v: u32, dwords: u32, ty: ValType, literal: Option<u32>) -> String {
    match src(arch, v as u16) {
        Src::Vgpr(n) => reg_range("v", n as u32, dwords),
        Src::Int(n) => n.to_string(),
        Src::Float(x) => float_text(x, ty).to_string(),
        Src::Literal => match literal {
            // Bits an inline constant also holds: `lit(...)` keeps them a literal when assembled.
            Some(l) if crate::operand::literal_inline_code(l, ty).is_some() => format!("lit(0x{l:x})"),
            Some(l) => format!("0x{l:x}"),
            None => "0x0".into(),
        },
        _ => sreg_text(arch, v as u16, dwords).unwrap_or_else(|| format!("{v}")),
    }
}
