//! The typed instruction value.

use baregpu_autogen::isa::{Field, Format, Opcode};

use crate::tables::Tables;
use crate::Arch;

/// One decoded (or assembled) instruction: its opcode entry, the format its fields are read with,
/// the raw dwords (without literal) and the literal dword when present.
// repr(C), the small fields last and together: the decoder writes them side by side, and a
// caller copying the value reads them back in wide loads (with Rust's layout the copy stalled on
// store forwarding, halving decode throughput in the bench).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Instruction {
    /// The instruction's dwords without literal; `ndwords` of them are meaningful.
    pub words: [u32; 4],
    /// Index of the opcode in the architecture's table.
    pub op: u32,
    /// VOPD: index of the Y opcode.
    pub op_y: Option<u32>,
    /// The 32-bit literal that follows the instruction, when one does.
    pub literal: Option<u32>,
    /// Index of the format (layout or modifier) whose fields describe the dwords.
    pub fmt: u16,
    pub ndwords: u8,
    pub arch: Arch,
}

impl Instruction {
    pub fn tables(&self) -> &'static Tables {
        Tables::get(self.arch)
    }
    pub fn opcode(&self) -> &'static Opcode {
        self.tables().op(self.op)
    }
    pub fn opcode_y(&self) -> Option<&'static Opcode> {
        self.op_y.map(|i| self.tables().op(i))
    }
    /// The operands in assembly order (table gaps filled).
    pub fn operands(&self) -> &'static [baregpu_autogen::isa::Operand] {
        &self.tables().operands[self.op as usize]
    }
    pub fn mnemonic(&self) -> &'static str {
        self.opcode().mnemonic
    }
    /// The format whose fields describe the dwords (VOP3SD, VOP1_DPP16...).
    pub fn format(&self) -> &'static Format {
        self.tables().format(self.fmt)
    }
    /// Size in bytes, literal included.
    pub fn size(&self) -> usize {
        self.ndwords as usize * 4 + if self.literal.is_some() { 4 } else { 0 }
    }
    /// A field by name, through the format's hash index (this lookup is on every operand and
    /// modifier the assembler and disassembler handle).
    // Always in line: a literal name's slot and comparison then fold to constants.
    #[inline(always)]
    pub fn field_def(&self, name: &str) -> Option<&'static Field> {
        self.tables().field_index[self.fmt as usize].find(name)
    }
    /// A field's value, or `None` if the format has no such field.
    #[inline(always)]
    pub fn field(&self, name: &str) -> Option<u32> {
        self.field_def(name).map(|f| get(&self.words, f))
    }
    /// A field's value, 0 if absent.
    #[inline(always)]
    pub fn f(&self, name: &str) -> u32 {
        self.field(name).unwrap_or(0)
    }
    /// Sets a field; returns false if the format has no such field or the value does not fit.
    #[inline(always)]
    pub fn set_field(&mut self, name: &str, value: u32) -> bool {
        match self.field_def(name) {
            Some(f) => set(&mut self.words, f, value),
            None => false,
        }
    }
    /// The instruction's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.size());
        self.encode_into(&mut v);
        v
    }
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        for w in &self.words[..self.ndwords as usize] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        if let Some(l) = self.literal {
            out.extend_from_slice(&l.to_le_bytes());
        }
    }
}

/// A format's field by name; compares lengths and end bytes before the names (this lookup is
/// on every operand of every instruction the assembler and disassembler handle).
#[inline]
pub fn find_field(f: &'static Format, name: &str) -> Option<&'static Field> {
    let n = name.as_bytes();
    let (Some(&first), Some(&last)) = (n.first(), n.last()) else { return None };
    // The bytes compared in line: a call to memcmp for names this short costs more than the
    // comparison.
    f.fields.iter().find(|x| {
        let b = x.name.as_bytes();
        b.len() == n.len() && b[0] == first && b[b.len() - 1] == last && b.iter().zip(n).all(|(p, q)| p == q)
    })
}

/// A field's value in little-endian dwords.
#[inline]
pub fn get(words: &[u32; 4], f: &Field) -> u32 {
    let (lo, hi) = (f.lo as u32, f.hi as u32);
    let w = (lo / 32) as usize;
    let width = hi - lo + 1;
    let sh = lo % 32;
    let mut v = (words[w] as u64) >> sh;
    if sh + width > 32 && w + 1 < 4 {
        v |= (words[w + 1] as u64) << (32 - sh);
    }
    (v & ((1u64 << width) - 1)) as u32
}

/// Sets a field; false if the value does not fit.
#[inline]
pub fn set(words: &mut [u32; 4], f: &Field, value: u32) -> bool {
    let (lo, hi) = (f.lo as u32, f.hi as u32);
    let width = hi + 1 - lo;
    if width < 32 && value >> width != 0 || hi >= 128 {
        return false;
    }
    // The field spans at most two dwords: mask it into both halves of a 64-bit window.
    let w = (lo / 32) as usize;
    let sh = lo % 32;
    let mask = (u64::MAX >> (64 - width)) << sh;
    let v = (value as u64) << sh;
    let next = w + 1 < 4;
    let cur = words[w] as u64 | if next { (words[w + 1] as u64) << 32 } else { 0 };
    let new = (cur & !mask) | (v & mask);
    words[w] = new as u32;
    if next {
        words[w + 1] = (new >> 32) as u32;
    } else if new >> 32 != 0 {
        return false;
    }
    true
}
