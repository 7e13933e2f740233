//! DMA-able system memory of the emulated PCI GPU: host memory with fake but consistent bus
//! addresses. The GPU MMU resolves a PTE with the SYSTEM bit (and the PSP an address outside
//! VRAM) back to the host bytes through [`DmaMap`]. Allocations get bus addresses from
//! [`DMA_BUS_BASE`] up with a guard page between them, so a DMA that runs off one buffer
//! faults instead of reaching the next.

use super::hostmem::HostMem;
use baregpu_drivers::pci::{DmaMemory, DMA_PAGE};
use baregpu_drivers::{Error, Result};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The first fake bus address (bit 46: inside the 48 address bits a PTE holds, far from VRAM's
/// MC range).
pub const DMA_BUS_BASE: u64 = 0x4000_0000_0000;

#[derive(Debug)]
struct Entry {
    len: u64,
    mem: Arc<HostMem>,
}

#[derive(Debug, Default)]
struct Inner {
    live: BTreeMap<u64, Entry>,
    next: u64,
    /// Freed memory: its pages are given back, but the range stays mapped until the device
    /// goes away, so a queue thread still holding a translation reads zeroes, never a hole.
    retired: Vec<Arc<HostMem>>,
}

/// Every live DMA allocation of one device, by bus address.
#[derive(Debug, Default)]
pub(crate) struct DmaMap {
    inner: Mutex<Inner>,
}

impl DmaMap {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn alloc(self: &Arc<Self>, name: &str, size: u64) -> Result<EmuDma> {
        if size == 0 || !size.is_multiple_of(DMA_PAGE) {
            return Err(Error::Unsupported(format!(
                "{name}: DMA size {size:#x} is not a non-zero multiple of {DMA_PAGE:#x}"
            )));
        }
        let mem = Arc::new(HostMem::new(size)?);
        let mut g = self.lock();
        let bus = DMA_BUS_BASE + g.next;
        g.next += size + DMA_PAGE;
        g.live.insert(bus, Entry { len: size, mem: mem.clone() });
        let pages = (0..size / DMA_PAGE).map(|i| bus + i * DMA_PAGE).collect();
        Ok(EmuDma { map: self.clone(), bus, mem, pages })
    }

    /// Makes `mem` reachable by the GPU's DMA at the fixed bus address `bus` (memory outside
    /// the host's, like a USB bridge's SRAM): it lives as long as the map.
    pub fn map_window(&self, bus: u64, mem: Arc<HostMem>) {
        self.lock().live.insert(bus, Entry { len: mem.len(), mem });
    }

    /// The host address of `[bus, bus + len)` when one live allocation holds all of it.
    pub fn host(&self, bus: u64, len: u64) -> Option<usize> {
        let g = self.lock();
        let (&start, e) = g.live.range(..=bus).next_back()?;
        let off = bus - start;
        (off.checked_add(len)? <= e.len).then(|| e.mem.addr() + off as usize)
    }

    fn free(&self, bus: u64) {
        let mut g = self.lock();
        if let Some(e) = g.live.remove(&bus) {
            e.mem.discard();
            g.retired.push(e.mem);
        }
    }
}

/// One DMA allocation handed to the driver.
#[derive(Debug)]
pub(crate) struct EmuDma {
    map: Arc<DmaMap>,
    bus: u64,
    mem: Arc<HostMem>,
    pages: Vec<u64>,
}

impl DmaMemory for EmuDma {
    fn size(&self) -> u64 {
        self.mem.len()
    }

    fn bus_pages(&self) -> &[u64] {
        &self.pages
    }

    fn cpu_ptr(&self) -> Option<*mut u8> {
        Some(self.mem.addr() as *mut u8)
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        if self.mem.read(offset, buf) {
            return Ok(());
        }
        Err(out_of_range("read", offset, buf.len(), self.mem.len()))
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        if self.mem.write(offset, data) {
            return Ok(());
        }
        Err(out_of_range("write", offset, data.len(), self.mem.len()))
    }
}

fn out_of_range(op: &str, offset: u64, len: usize, size: u64) -> Error {
    Error::sys(
        format!("DMA memory {op} of {len} bytes at {offset:#x}"),
        std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("past the allocation's {size:#x} bytes")),
    )
}

impl Drop for EmuDma {
    fn drop(&mut self) {
        self.map.free(self.bus);
    }
}
