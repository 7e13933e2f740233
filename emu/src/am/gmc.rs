//! The emulated GPU MMU (context 0 of the GC hub, the one the AM driver uses): when the driver
//! invalidates the TLB (INVALIDATE_ENGn_REQ), the 4-level table rooted at
//! CONTEXT0_PAGE_TABLE_BASE_ADDR is walked with the drivers' PTE layout
//! ([`baregpu_drivers::amd::am::pagetable`]) into the translation the command processors and
//! waves use: a [`GpuMemory`] of GPU VA → host bytes (VRAM leaves into the VRAM buffer, SYSTEM
//! leaves into DMA memory by bus address). VA `v` is looked up at `v − PAGE_TABLE_START`, as the
//! GART is. What the table does not map faults (an IH entry, see [`super::ih`]).

use super::dma::DmaMap;
use super::hostmem::HostMem;
use crate::gpu_memory::{GpuMemory, Region};
use baregpu_drivers::amd::am::pagetable::{entry_span, Entry, PteLayout, ENTRIES, LEVELS};

/// Context 0's registers as the walk needs them.
#[derive(Debug, Clone, Copy)]
pub struct Context0 {
    /// CONTEXT0_PAGE_TABLE_BASE_ADDR: the root table's VRAM address with the valid bit.
    pub base: u64,
    /// CONTEXT0_PAGE_TABLE_START_ADDR / END_ADDR, in bytes.
    pub start: u64,
    pub end: u64,
}

/// Walk the whole table into regions of GPU VA (merged where both VA and host are contiguous).
/// A leaf whose memory the emulator cannot reach (past VRAM, a freed DMA buffer) is left out:
/// an access there faults.
pub fn translate(ctx: &Context0, layout: &PteLayout, vram: &HostMem, dma: &DmaMap) -> GpuMemory {
    let mut out: Vec<Region> = Vec::new();
    if ctx.base & 1 == 0 || ctx.end <= ctx.start {
        return GpuMemory::default();
    }
    let root = ctx.base & !0xfff;
    let mut w = Walk { layout, vram, dma, out: &mut out, start: ctx.start, end: ctx.end, budget: 1 << 16 };
    w.table(root, 0, 0);
    GpuMemory::new(out)
}

struct Walk<'a> {
    layout: &'a PteLayout,
    vram: &'a HostMem,
    dma: &'a DmaMap,
    out: &'a mut Vec<Region>,
    start: u64,
    end: u64,
    /// Tables left to read: a table that points at itself cannot make the walk endless.
    budget: u32,
}

impl Walk<'_> {
    fn table(&mut self, pa: u64, level: usize, va_base: u64) {
        if self.budget == 0 || level >= LEVELS {
            return;
        }
        self.budget -= 1;
        let span = entry_span(level);
        for i in 0..ENTRIES {
            let Some(e) = self.vram.read_u64(pa + i * 8) else { return };
            let va = va_base + i * span;
            if self.start + va > self.end {
                return;
            }
            match self.layout.decode(level, e) {
                Entry::Invalid => {}
                Entry::Table { pa } => self.table(pa, level + 1, va),
                Entry::Leaf { pa, flags, .. } => {
                    let host = if flags.system { self.dma.host(pa, span) } else { self.vram.at(pa, span) };
                    if let Some(host) = host {
                        self.push(Region { va: self.start + va, len: span, host });
                    }
                }
            }
        }
    }

    fn push(&mut self, r: Region) {
        if let Some(last) = self.out.last_mut() {
            if last.va + last.len == r.va && last.host + last.len as usize == r.host {
                last.len += r.len;
                return;
            }
        }
        self.out.push(r);
    }
}
