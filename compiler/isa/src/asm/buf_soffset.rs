//! A buffer instruction's `soffset` takes no literal: llvm-mc 22 refuses one ("invalid operand
//! for instruction") on gfx11 MUBUF/MTBUF and gfx9, though its disassembler reads a literal
//! dword after a word whose soffset is 255 (and prints text its assembler refuses). One rule for
//! the assembler, which refuses the line, and the disassembler, which prints such a word as
//! `.long`. Inline constants (`64`, `1.0`) are taken. gfx12 VBUFFER's 7-bit field has no 255.

use crate::inst::Instruction;

/// The literal's source code.
const LITERAL: u32 = 255;

/// Whether field `field` of a `fname` instruction is a buffer soffset.
fn is_buf_soffset(fname: &str, field: &str) -> bool {
    field == "soffset" && matches!(fname, "MUBUF" | "MTBUF")
}

/// Why `code` cannot be written to field `field` of a `fname` instruction (`s`: its text).
pub(crate) fn refusal(fname: &str, field: &str, code: u32, s: &str) -> Option<String> {
    (code == LITERAL && is_buf_soffset(fname, field))
        .then(|| format!("'{s}': a {fname} soffset takes no literal (an SGPR or an inline constant)"))
}

/// Whether `i` is a buffer instruction whose soffset holds a literal: no line writes it.
pub(crate) fn refused(i: &Instruction) -> bool {
    let f = i.format().name;
    is_buf_soffset(f, "soffset") && i.field("soffset") == Some(LITERAL)
}
