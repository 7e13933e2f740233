//! Context 0's page table as the driver builds it: 4 KiB tables in VRAM created on demand,
//! leaves written with the generation's [`PteLayout`], the largest leaf each piece of a range
//! allows (1 GiB, 2 MiB or 4 KiB) with its span as the fragment hint. Index = `va − va_start` (see
//! [`super::gmc`]). Mapping an entry twice is an error, never a silent overwrite.

use super::pagetable::{entry_span, fragment, index, Entry, PteFlags, PteLayout, LEVELS, TABLE_BYTES};
use super::vram::{RangeAllocator, VramIo};
use crate::{Error, Result};

/// Where the tables' memory comes from and goes to.
pub trait TableMemory {
    /// A zeroed 4 KiB table; its VRAM offset.
    fn alloc_table(&mut self) -> Result<u64>;
    fn read_entry(&self, pa: u64) -> Result<u64>;
    fn write_entry(&mut self, pa: u64, e: u64) -> Result<()>;
}

/// Tables in VRAM through BAR0, allocated from a VRAM allocator.
pub struct VramTables<'a> {
    pub io: VramIo<'a>,
    pub alloc: &'a mut RangeAllocator,
}

impl TableMemory for VramTables<'_> {
    fn alloc_table(&mut self) -> Result<u64> {
        let pa = self.alloc.alloc(TABLE_BYTES, TABLE_BYTES)?;
        self.io.zero(pa, TABLE_BYTES)?;
        Ok(pa)
    }
    fn read_entry(&self, pa: u64) -> Result<u64> {
        self.io.read64(pa)
    }
    fn write_entry(&mut self, pa: u64, e: u64) -> Result<()> {
        self.io.write64(pa, e)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct PageTable {
    pub layout: PteLayout,
    /// VRAM offset of the root (PDB2).
    pub root: u64,
    pub va_start: u64,
    pub va_end: u64,
}

impl PageTable {
    /// Maps `[va, va + size)` to `[pa, pa + size)` (VRAM offsets, or bus addresses when
    /// `flags.system`). `pa` may jump per page for system memory: `pages` then lists the bus
    /// address of each 4 KiB page and `pa` is ignored.
    pub fn map(
        &self,
        mem: &mut dyn TableMemory,
        va: u64,
        size: u64,
        pa: u64,
        flags: PteFlags,
        pages: Option<&[u64]>,
    ) -> Result<()> {
        if va < self.va_start || va.checked_add(size).is_none_or(|e| e - 1 > self.va_end) || (va | size) & 0xfff != 0 {
            return Err(Error::Protocol(format!(
                "map of {size:#x} bytes at VA {va:#x}: outside [{:#x}, {:#x}] or not page aligned",
                self.va_start, self.va_end
            )));
        }
        let mut off = 0;
        while off < size {
            let (cur_pa, contiguous) = match pages {
                Some(p) => {
                    let i = (off >> 12) as usize;
                    let run = p[i..].windows(2).take_while(|w| w[1] == w[0] + 0x1000).count() as u64 + 1;
                    (p[i], run << 12)
                }
                None => (pa + off, size - off),
            };
            let rel = va + off - self.va_start;
            // The largest leaf both addresses are aligned to and the rest of the run fills.
            let level = (1..LEVELS)
                .find(|&l| {
                    let span = entry_span(l);
                    rel.is_multiple_of(span) && cur_pa.is_multiple_of(span) && contiguous.min(size - off) >= span
                })
                .unwrap_or(LEVELS - 1);
            let span = entry_span(level);
            // A leaf's fragment is its own span (every PTE of a fragment must carry the same
            // value, so 4 KiB runs get none rather than a per-page guess).
            let frag = fragment(rel, cur_pa, span);
            self.set_leaf(mem, rel, level, self.layout.leaf(level, cur_pa, flags, frag))?;
            off += span;
        }
        Ok(())
    }

    /// Clears the leaves of `[va, va + size)` (tables stay).
    pub fn unmap(&self, mem: &mut dyn TableMemory, va: u64, size: u64) -> Result<()> {
        let mut off = 0;
        while off < size {
            let rel = va + off - self.va_start;
            let (pa, level) = self.find_leaf(mem, rel)?;
            mem.write_entry(pa, 0)?;
            off += entry_span(level);
        }
        Ok(())
    }

    fn set_leaf(&self, mem: &mut dyn TableMemory, rel: u64, level: usize, e: u64) -> Result<()> {
        let mut table = self.root;
        for l in 0..level {
            let at = table + index(rel, l) * 8;
            match self.layout.decode(l, mem.read_entry(at)?) {
                Entry::Table { pa } => table = pa,
                Entry::Invalid => {
                    let t = mem.alloc_table()?;
                    mem.write_entry(at, self.layout.table(t))?;
                    table = t;
                }
                Entry::Leaf { .. } => return Err(self.double(rel)),
            }
        }
        let at = table + index(rel, level) * 8;
        if mem.read_entry(at)? != 0 {
            return Err(self.double(rel));
        }
        mem.write_entry(at, e)
    }

    fn find_leaf(&self, mem: &dyn TableMemory, rel: u64) -> Result<(u64, usize)> {
        let mut table = self.root;
        for l in 0..LEVELS {
            let at = table + index(rel, l) * 8;
            match self.layout.decode(l, mem.read_entry(at)?) {
                Entry::Table { pa } => table = pa,
                Entry::Leaf { .. } => return Ok((at, l)),
                Entry::Invalid => break,
            }
        }
        Err(Error::Protocol(format!("unmap of VA {:#x}, which is not mapped", rel + self.va_start)))
    }

    fn double(&self, rel: u64) -> Error {
        Error::Protocol(format!("VA {:#x} is already mapped", rel + self.va_start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::am::pagetable::{walk, PtGeneration};
    use std::collections::HashMap;

    #[derive(Default)]
    struct MapMem {
        m: HashMap<u64, u64>,
        next: u64,
    }
    impl TableMemory for MapMem {
        fn alloc_table(&mut self) -> Result<u64> {
            self.next += TABLE_BYTES;
            Ok(0x100_0000 + self.next)
        }
        fn read_entry(&self, pa: u64) -> Result<u64> {
            Ok(*self.m.get(&pa).unwrap_or(&0))
        }
        fn write_entry(&mut self, pa: u64, e: u64) -> Result<()> {
            self.m.insert(pa, e);
            Ok(())
        }
    }

    #[test]
    fn mapped_ranges_walk_back_to_their_addresses_with_huge_leaves_where_aligned() {
        let layout = PtGeneration::Gfx11.layout();
        let mut mem = MapMem::default();
        let root = mem.alloc_table().unwrap();
        let pt = PageTable { layout, root, va_start: 0x7f00_0000_0000, va_end: 0x7fff_ffff_ffff };
        let va = pt.va_start + 0x20_0000;
        pt.map(&mut mem, va, 0x40_3000, 0x80_0000, PteFlags::VRAM, None).unwrap();
        let tables_before = mem.next;
        let read = |a: u64| Ok(*mem.m.get(&a).unwrap_or(&0));
        for off in [0, 0x1234, 0x20_0000, 0x40_0000, 0x40_2fff] {
            let t = walk(&layout, root, va + off - pt.va_start, read).unwrap().unwrap();
            assert_eq!(t.pa, 0x80_0000 + off, "{off:#x}");
        }
        // Two 2 MiB leaves, then three 4 KiB ones (one PTB): PDB1, PDB0 and one PTB created.
        assert_eq!(tables_before / TABLE_BYTES, 1 + 3);
        // System pages that are not contiguous map page by page.
        let pages = [0x1_0000_0000u64, 0x1_0000_5000, 0x1_0000_6000];
        pt.map(&mut mem, pt.va_start + 0x100_0000, 0x3000, 0, PteFlags::SYSTEM_UC, Some(&pages)).unwrap();
        let read = |a: u64| Ok(*mem.m.get(&a).unwrap_or(&0));
        let t = walk(&layout, root, 0x100_1010, read).unwrap().unwrap();
        assert_eq!((t.pa, t.flags.system), (0x1_0000_5010, true));
        let e = pt.map(&mut mem, va, 0x1000, 0, PteFlags::VRAM, None).unwrap_err().to_string();
        assert!(e.contains("already mapped"), "{e}");
        pt.unmap(&mut mem, va, 0x40_3000).unwrap();
        let read = |a: u64| Ok(*mem.m.get(&a).unwrap_or(&0));
        assert!(walk(&layout, root, va - pt.va_start, read).unwrap().is_err());
        assert!(pt.map(&mut mem, 0x1000, 0x1000, 0, PteFlags::VRAM, None).is_err());
    }
}
