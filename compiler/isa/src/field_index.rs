//! A format's fields by name through a small open-addressed hash table: the assembler, its
//! verification and the disassembler look fields up by name many times per instruction, and a
//! linear scan over a format's fields cost about a tenth of assembling a line.

use baregpu_autogen::isa::{Field, Format};

/// Slots per format; a format with more than [`MAX_INDEXED`] fields keeps the linear scan.
const SLOTS: usize = 64;
const MAX_INDEXED: usize = SLOTS / 2;

/// One format's fields, and slot -> field index + 1 (0: empty); no slots for a format too
/// large to index.
#[derive(Clone, Debug)]
pub struct FieldIndex {
    fields: &'static [Field],
    slots: Option<[u8; SLOTS]>,
}

/// The first slot of a name: its length and three of its bytes (field names are short ASCII
/// identifiers that often share a prefix or a suffix, rarely all four).
#[inline(always)]
fn slot(n: &[u8]) -> usize {
    let (first, last, mid) = (n[0] as usize, n[n.len() - 1] as usize, n[n.len() / 2] as usize);
    let h = n.len().wrapping_mul(0x9e37) ^ first.wrapping_mul(0x2f) ^ last.wrapping_mul(0x1f3) ^ mid.wrapping_mul(0x61);
    (h ^ h >> 6) % SLOTS
}

/// The names compared in line: a call to memcmp for names this short costs more. Most names
/// asked for are the tables' own strings, so the same address answers first.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || a.iter().zip(b).all(|(p, q)| p == q))
}

impl FieldIndex {
    pub fn build(f: &'static Format) -> FieldIndex {
        if f.fields.len() > MAX_INDEXED {
            return FieldIndex { fields: f.fields, slots: None };
        }
        let mut slots = [0u8; SLOTS];
        for (k, fd) in f.fields.iter().enumerate() {
            let n = fd.name.as_bytes();
            // A nameless field or a repeated name is never found by name here: the scan finds
            // the first of a repeated name, so only the first is entered.
            if n.is_empty() || f.fields[..k].iter().any(|e| e.name == fd.name) {
                continue;
            }
            let mut s = slot(n);
            while slots[s] != 0 {
                s = (s + 1) % SLOTS;
            }
            // At most MAX_INDEXED (32) fields, so k + 1 fits a byte and a free slot exists.
            slots[s] = k as u8 + 1;
        }
        FieldIndex { fields: f.fields, slots: Some(slots) }
    }

    /// The field named `name`; the same answer as [`crate::inst::find_field`] on the format
    /// this index was built from (the first field of that name).
    #[inline(always)]
    pub fn find(&self, name: &str) -> Option<&'static Field> {
        let (fields, n) = (self.fields, name.as_bytes());
        // No field is found by an empty name (as `find_field` has it).
        if n.is_empty() {
            return None;
        }
        let Some(slots) = &self.slots else { return fields.iter().find(|f| f.name == name) };
        let mut s = slot(n);
        // The table is at most half full, so an empty slot ends every probe.
        loop {
            let k = slots[s] as usize;
            if k == 0 {
                return None;
            }
            let fd = &fields[k - 1];
            if same(fd.name.as_bytes(), n) {
                return Some(fd);
            }
            s = (s + 1) % SLOTS;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::Tables;
    use crate::Arch;

    /// Every name of every format, and names no format has, give the linear scan's answer.
    #[test]
    fn same_answers_as_the_scan() {
        let absent = ["", "x", "src9", "opsel_hi3", "vdst_", "neg_lo", "acc", "dpp_ctrl", "op_sel"];
        for arch in Arch::ALL {
            let t = Tables::get(arch);
            let mut indexed = 0;
            for f in t.table.formats {
                let ix = FieldIndex::build(f);
                indexed += usize::from(ix.slots.is_some());
                for name in f.fields.iter().map(|x| x.name).chain(absent) {
                    let (a, b) = (ix.find(name), crate::inst::find_field(f, name));
                    assert_eq!(a.map(|x| x as *const Field), b.map(|x| x as *const Field), "{} {name}", f.name);
                }
            }
            assert!(indexed * 10 > t.table.formats.len() * 9, "{}: few formats indexed", arch.name());
        }
    }
}
