//! A two-level segregated-fit allocator over an abstract address range. It only hands out
//! addresses; it never touches the memory. Allocation and free are O(log n): free blocks sit in
//! size classes found through two bitmaps, and neighbours are found in an ordered map so frees
//! coalesce.

use std::collections::{BTreeMap, BTreeSet};

/// Second-level classes per power of two.
const SL_BITS: u32 = 4;
const SL_COUNT: usize = 1 << SL_BITS;
const FL_COUNT: usize = 64;

#[derive(Debug, Clone, Copy)]
struct Block {
    size: u64,
    free: bool,
}

#[derive(Debug)]
pub struct Tlsf {
    base: u64,
    size: u64,
    /// Every block, free or used, by start address.
    blocks: BTreeMap<u64, Block>,
    /// Free block starts per (first-level, second-level) class.
    classes: Vec<[BTreeSet<u64>; SL_COUNT]>,
    fl_bitmap: u64,
    sl_bitmap: [u16; FL_COUNT],
    in_use: u64,
}

/// Size class of a block of `size` bytes (size > 0).
fn class_of(size: u64) -> (usize, usize) {
    let fl = 63 - size.leading_zeros();
    let sl = if fl < SL_BITS {
        size as usize & (SL_COUNT - 1)
    } else {
        ((size >> (fl - SL_BITS)) as usize) & (SL_COUNT - 1)
    };
    (fl as usize, sl)
}

impl Tlsf {
    /// Manage `[base, base + size)`.
    pub fn new(base: u64, size: u64) -> Self {
        let mut t = Tlsf {
            base,
            size,
            blocks: BTreeMap::new(),
            classes: (0..FL_COUNT).map(|_| Default::default()).collect(),
            fl_bitmap: 0,
            sl_bitmap: [0; FL_COUNT],
            in_use: 0,
        };
        if size > 0 {
            t.insert_free(base, size);
        }
        t
    }

    pub fn base(&self) -> u64 {
        self.base
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes handed out and not yet freed.
    pub fn in_use(&self) -> u64 {
        self.in_use
    }

    fn insert_free(&mut self, start: u64, size: u64) {
        self.blocks.insert(start, Block { size, free: true });
        let (fl, sl) = class_of(size);
        self.classes[fl][sl].insert(start);
        self.fl_bitmap |= 1 << fl;
        self.sl_bitmap[fl] |= 1 << sl;
    }

    fn remove_free(&mut self, start: u64, size: u64) {
        let (fl, sl) = class_of(size);
        self.classes[fl][sl].remove(&start);
        if self.classes[fl][sl].is_empty() {
            self.sl_bitmap[fl] &= !(1 << sl);
            if self.sl_bitmap[fl] == 0 {
                self.fl_bitmap &= !(1 << fl);
            }
        }
    }

    /// A free block from the first non-empty class at or above (fl, sl).
    fn find_class(&self, fl: usize, sl: usize) -> Option<u64> {
        let sl_map = self.sl_bitmap[fl] & (u16::MAX << sl);
        let (fl, sl_map) = if sl_map != 0 {
            (fl, sl_map)
        } else {
            let fl_map = self.fl_bitmap & (u64::MAX.checked_shl(fl as u32 + 1).unwrap_or(0));
            if fl_map == 0 {
                return None;
            }
            let fl = fl_map.trailing_zeros() as usize;
            (fl, self.sl_bitmap[fl])
        };
        let sl = sl_map.trailing_zeros() as usize;
        self.classes[fl][sl].first().copied()
    }

    /// The first free block that holds `size` bytes at an `align`-aligned address, scanning
    /// classes upwards from the one `size` falls in. Only used when the fast path fails.
    fn scan_fit(&self, size: u64, align: u64) -> Option<u64> {
        let (fl0, sl0) = class_of(size);
        for fl in fl0..FL_COUNT {
            if self.fl_bitmap & (1 << fl) == 0 {
                continue;
            }
            let first_sl = if fl == fl0 { sl0 } else { 0 };
            for sl in first_sl..SL_COUNT {
                for &start in &self.classes[fl][sl] {
                    let aligned = start.div_ceil(align) * align;
                    if aligned + size <= start + self.blocks[&start].size {
                        return Some(start);
                    }
                }
            }
        }
        None
    }

    /// Allocate `size` bytes aligned to `align` (a power of two). `None` when no free block fits.
    pub fn alloc(&mut self, size: u64, align: u64) -> Option<u64> {
        assert!(align.is_power_of_two(), "alignment {align} is not a power of two");
        if size == 0 || size > self.size {
            return None;
        }
        // Worst case the block starts one byte past an aligned address.
        let need = size.checked_add(align - 1)?;
        // Round up to the next class boundary so that every block of the class found fits.
        let (fl, _) = class_of(need);
        let round = if fl as u32 >= SL_BITS { (1u64 << (fl as u32 - SL_BITS)) - 1 } else { 0 };
        let search = need.checked_add(round).unwrap_or(need);
        let (sfl, ssl) = class_of(search);
        let start = match self.find_class(sfl, ssl) {
            Some(s) => s,
            // Rounding for the worst case can overshoot every class while a smaller block still
            // fits (an aligned one, or one just big enough): look at the candidates one by one.
            None => self.scan_fit(size, align)?,
        };
        let block = self.blocks[&start];
        self.remove_free(start, block.size);
        self.blocks.remove(&start);
        let aligned = start.div_ceil(align) * align;
        let front = aligned - start;
        let back = block.size - front - size;
        if front > 0 {
            self.insert_free(start, front);
        }
        if back > 0 {
            self.insert_free(aligned + size, back);
        }
        self.blocks.insert(aligned, Block { size, free: false });
        self.in_use += size;
        Some(aligned)
    }

    /// Return an allocation. Freeing an address that is not a live allocation is an error, not
    /// a corruption.
    pub fn free(&mut self, addr: u64) -> Result<(), String> {
        let block = match self.blocks.get(&addr) {
            Some(b) if !b.free => *b,
            _ => return Err(format!("{addr:#x} is not an allocation of this address space")),
        };
        self.blocks.remove(&addr);
        self.in_use -= block.size;
        let (mut start, mut size) = (addr, block.size);
        if let Some((&next, &nb)) = self.blocks.range(addr + size..).next() {
            if nb.free && next == addr + size {
                self.remove_free(next, nb.size);
                self.blocks.remove(&next);
                size += nb.size;
            }
        }
        if let Some((&prev, &pb)) = self.blocks.range(..addr).next_back() {
            if pb.free && prev + pb.size == addr {
                self.remove_free(prev, pb.size);
                self.blocks.remove(&prev);
                start = prev;
                size += pb.size;
            }
        }
        self.insert_free(start, size);
        Ok(())
    }

    /// Size of the allocation at `addr`.
    pub fn size_of(&self, addr: u64) -> Option<u64> {
        self.blocks.get(&addr).filter(|b| !b.free).map(|b| b.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_disjoint_and_coalesce_back() {
        let mut t = Tlsf::new(0x1000, 1 << 20);
        let a = t.alloc(100, 256).unwrap();
        let b = t.alloc(4096, 4096).unwrap();
        let c = t.alloc(1, 1).unwrap();
        assert_eq!(a % 256, 0);
        assert_eq!(b % 4096, 0);
        let mut spans = [(a, 100), (b, 4096), (c, 1)];
        spans.sort();
        for w in spans.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0, "{spans:x?} overlap");
        }
        assert_eq!(t.in_use(), 4197);
        for x in [b, a, c] {
            t.free(x).unwrap();
        }
        assert_eq!(t.in_use(), 0);
        assert_eq!(t.blocks.len(), 1, "free blocks did not coalesce: {:?}", t.blocks);
        // The whole space is one block again.
        assert_eq!(t.alloc(1 << 20, 1), Some(0x1000));
    }

    #[test]
    fn exhaustion_is_none_and_bad_frees_are_errors() {
        let mut t = Tlsf::new(0, 4096);
        assert_eq!(t.alloc(4097, 1), None);
        let a = t.alloc(4096, 4096).unwrap();
        assert_eq!(t.alloc(1, 1), None);
        assert!(t.free(a + 1).is_err());
        t.free(a).unwrap();
        assert!(t.free(a).is_err(), "double free accepted");
    }

    #[test]
    fn random_workload_keeps_invariants() {
        // xorshift: deterministic, no dependency.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let space = 64 << 20;
        let mut t = Tlsf::new(1 << 40, space);
        let mut live: Vec<(u64, u64)> = Vec::new();
        for _ in 0..20_000 {
            if live.is_empty() || rnd() % 3 != 0 {
                let size = 1 + rnd() % (256 << 10);
                let align = 1 << (rnd() % 17);
                if let Some(a) = t.alloc(size, align) {
                    assert_eq!(a % align, 0);
                    assert!(a >= t.base() && a + size <= t.base() + space);
                    live.push((a, size));
                }
            } else {
                let i = (rnd() as usize) % live.len();
                let (a, _) = live.swap_remove(i);
                t.free(a).unwrap();
            }
            assert_eq!(t.in_use(), live.iter().map(|l| l.1).sum::<u64>());
        }
        live.sort();
        for w in live.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0);
        }
        for (a, _) in live {
            t.free(a).unwrap();
        }
        assert_eq!(t.blocks.len(), 1);
    }
}
