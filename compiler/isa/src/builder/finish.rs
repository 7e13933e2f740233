//! Finishing the code: the words as bytes, every branch patched with its label's offset.

use baregpu_autogen::isa::Field;

use super::label::branch_offset;
use super::{Builder, LITERAL};
use crate::error::{IsaError, Result};
use crate::inst::{set, Instruction};

impl Builder {
    /// Item `n` as an instruction (no VOPD Y opcode: for branches only).
    fn item_inst(&self, n: usize) -> Instruction {
        let it = &self.items[n];
        let (w, nd) = (it.word as usize, it.ndwords as usize);
        let mut words = [0; 4];
        words[..nd].copy_from_slice(&self.code[w..w + nd]);
        let literal = (it.flags & LITERAL != 0).then(|| self.code[w + nd]);
        Instruction { words, op: it.op, op_y: None, literal, fmt: it.fmt, ndwords: it.ndwords, arch: self.arch }
    }

    /// Instruction `n`, a branch to label `l`, with its offset patched (a branch is no VOPD
    /// pair: nothing kept aside to look up).
    pub(super) fn patched(&self, n: usize, l: u32) -> Result<Instruction> {
        let mut inst = self.item_inst(n);
        // The mnemonic is looked up for a message only.
        let why =
            |inst: &Instruction, e: String| IsaError::Encode(format!("instruction {n} ({}): {e}", inst.mnemonic()));
        let Some(def) = self.labels.get(l as usize) else {
            return Err(why(&inst, format!("label {l} is not from this builder")));
        };
        let Some((target, _)) = def.at else {
            return Err(why(&inst, format!("label '{}' is never bound", self.def_name(def))));
        };
        let w = self.items[n].word as usize;
        let d = branch_offset(w * 4, inst.size(), target).map_err(|e| why(&inst, e))?;
        if !inst.set_field("simm16", d as u16 as u32) {
            return Err(why(&inst, "no simm16 field".into()));
        }
        Ok(inst)
    }

    /// [`Builder::patched`]'s words where all goes well, with the branch format's `simm16`
    /// field given; `None` for anything else ([`Builder::patched`] then says what is wrong).
    fn patched_words(&self, n: usize, l: u32, simm16: &Field) -> Option<[u32; 4]> {
        let it = &self.items[n];
        let (target, _) = self.labels.get(l as usize)?.at?;
        let (w, nd) = (it.word as usize, it.ndwords as usize);
        let size = (nd + usize::from(it.flags & LITERAL != 0)) * 4;
        let d = branch_offset(w * 4, size, target).ok()?;
        let mut words = [0; 4];
        words[..nd].copy_from_slice(&self.code[w..w + nd]);
        set(&mut words, simm16, d as u16 as u32).then_some(words)
    }

    /// The code: every branch patched with its label's offset. Errors: the first recorded error,
    /// an unbound label, a branch out of range.
    pub fn finish(&self) -> Result<Vec<u8>> {
        if let Some(e) = &self.first_error {
            return Err(e.clone());
        }
        // The bytes are written once; the branches are patched in them.
        // Zeroed, then filled four bytes at a time (a byte-wise iterator is several times slower).
        let mut out = vec![0u8; self.code.len() * 4];
        for (b, w) in out.chunks_exact_mut(4).zip(&self.code) {
            b.copy_from_slice(&w.to_le_bytes());
        }
        // The `simm16` field of the last branch format: a kernel's branches share a format or
        // two, and looking the field up by name per branch was most of a branch's cost.
        let mut simm16: Option<(u16, &'static Field)> = None;
        for &(n, l) in &self.branches {
            let (n, fmt) = (n as usize, self.items[n as usize].fmt);
            let field = match simm16 {
                Some((f, field)) if f == fmt => Some(field),
                _ => self.item_inst(n).field_def("simm16"),
            };
            simm16 = field.map(|f| (fmt, f));
            let words = match field.and_then(|f| self.patched_words(n, l, f)) {
                Some(w) => w,
                None => self.patched(n, l)?.words,
            };
            let it = &self.items[n];
            let at = it.word as usize * 4;
            for (k, w) in words[..it.ndwords as usize].iter().enumerate() {
                out[at + 4 * k..at + 4 * k + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        Ok(out)
    }
}
