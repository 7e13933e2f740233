//! A test double of a PCI device behind a link: [`Restricted`] wraps a [`PciDevice`] (the
//! emulated PCI GPU) and takes away what a remote or USB transport cannot give. Nothing is
//! CPU-mapped (`bar_ptr` and every DMA allocation's `cpu_ptr` are `None`), so the AM driver
//! and the runtime must reach memory by calls; optionally the device cannot DMA into host
//! memory at large (`dma_pool`: a small pool, as the USB bridge's SRAM, past which `alloc_dma`
//! is refused); and the link can be made to fail after a number of calls, after which every
//! call (BAR, config, DMA memory) errs, as a dropped connection or a bridge that lost the PCIe
//! link does.

use baregpu_drivers::pci::{BarInfo, DmaMemory, PciDevice};
use baregpu_drivers::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What the link counts and when it fails; shared with its DMA allocations.
#[derive(Debug)]
struct LinkState {
    name: String,
    calls: AtomicU64,
    /// The call count from which every call fails (`u64::MAX`: never).
    fail_at: AtomicU64,
    /// The pool's size, where the device cannot DMA into host memory at large.
    pool: Option<u64>,
    pool_used: AtomicU64,
    /// The most of the pool ever in use at once.
    pool_peak: AtomicU64,
}

impl LinkState {
    /// Count a call; an error once the link is down.
    fn call(&self, what: &str) -> Result<()> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let at = self.fail_at.load(Ordering::SeqCst);
        if n < at {
            return Ok(());
        }
        Err(Error::sys(
            format!("{}: {what}", self.name),
            std::io::Error::new(std::io::ErrorKind::ConnectionReset, format!("the link is down (since call {at})")),
        ))
    }
}

/// See the module doc.
#[derive(Debug)]
pub struct Restricted {
    inner: Arc<dyn PciDevice>,
    link: Arc<LinkState>,
}

impl Restricted {
    /// `inner` with nothing CPU-mapped.
    pub fn unmapped(inner: Arc<dyn PciDevice>) -> Arc<Restricted> {
        Self::new(inner, None)
    }

    /// `inner` with nothing CPU-mapped and no DMA into host memory but a pool of `pool` bytes.
    pub fn vram_only(inner: Arc<dyn PciDevice>, pool: u64) -> Arc<Restricted> {
        Self::new(inner, Some(pool))
    }

    fn new(inner: Arc<dyn PciDevice>, pool: Option<u64>) -> Arc<Restricted> {
        let link = LinkState {
            name: format!("{} over a test link", inner.name()),
            calls: AtomicU64::new(0),
            fail_at: AtomicU64::new(u64::MAX),
            pool,
            pool_used: AtomicU64::new(0),
            pool_peak: AtomicU64::new(0),
        };
        Arc::new(Restricted { inner, link: Arc::new(link) })
    }

    /// Calls so far (BAR, config, DMA memory, interrupt waits).
    pub fn calls(&self) -> u64 {
        self.link.calls.load(Ordering::SeqCst)
    }

    /// The link goes down after `n` more calls: every call from then on fails.
    pub fn fail_after(&self, n: u64) {
        self.link.fail_at.store(self.calls().saturating_add(n), Ordering::SeqCst);
    }

    /// Bytes of the DMA pool in use (where there is a pool).
    pub fn pool_used(&self) -> u64 {
        self.link.pool_used.load(Ordering::SeqCst)
    }

    /// The most bytes of the DMA pool ever in use at once.
    pub fn pool_peak(&self) -> u64 {
        self.link.pool_peak.load(Ordering::SeqCst)
    }
}

impl PciDevice for Restricted {
    fn name(&self) -> &str {
        &self.link.name
    }

    fn config_read(&self, offset: u16, buf: &mut [u8]) -> Result<()> {
        self.link.call("config read")?;
        self.inner.config_read(offset, buf)
    }

    fn config_write(&self, offset: u16, data: &[u8]) -> Result<()> {
        self.link.call("config write")?;
        self.inner.config_write(offset, data)
    }

    fn bar(&self, index: u8) -> Option<BarInfo> {
        self.inner.bar(index)
    }

    fn read32(&self, bar: u8, offset: u64) -> Result<u32> {
        self.link.call("read32")?;
        self.inner.read32(bar, offset)
    }

    fn write32(&self, bar: u8, offset: u64, value: u32) -> Result<()> {
        self.link.call("write32")?;
        self.inner.write32(bar, offset, value)
    }

    fn read64(&self, bar: u8, offset: u64) -> Result<u64> {
        self.link.call("read64")?;
        self.inner.read64(bar, offset)
    }

    fn write64(&self, bar: u8, offset: u64, value: u64) -> Result<()> {
        self.link.call("write64")?;
        self.inner.write64(bar, offset, value)
    }

    fn copy_from_bar(&self, bar: u8, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.link.call("copy from a BAR")?;
        self.inner.copy_from_bar(bar, offset, buf)
    }

    fn copy_to_bar(&self, bar: u8, offset: u64, data: &[u8]) -> Result<()> {
        self.link.call("copy to a BAR")?;
        self.inner.copy_to_bar(bar, offset, data)
    }

    /// Nothing is mapped across a link.
    fn bar_ptr(&self, _bar: u8) -> Option<*mut u8> {
        None
    }

    fn alloc_dma(&self, size: u64, contiguous: bool) -> Result<Box<dyn DmaMemory>> {
        self.link.call("DMA allocation")?;
        if let Some(pool) = self.link.pool {
            let used = self.link.pool_used.fetch_add(size, Ordering::SeqCst);
            if used + size > pool {
                self.link.pool_used.fetch_sub(size, Ordering::SeqCst);
                return Err(Error::Unsupported(format!(
                    "{}: no DMA into host memory but a {pool:#x}-byte pool, {used:#x} bytes of it in use: \
                     {size:#x} more refused",
                    self.link.name
                )));
            }
            self.link.pool_peak.fetch_max(used + size, Ordering::SeqCst);
        }
        let inner = match self.inner.alloc_dma(size, contiguous) {
            Ok(m) => m,
            Err(e) => {
                if self.link.pool.is_some() {
                    self.link.pool_used.fetch_sub(size, Ordering::SeqCst);
                }
                return Err(e);
            }
        };
        Ok(Box::new(LinkDma { inner, link: self.link.clone(), pooled: self.link.pool.map(|_| size) }))
    }

    fn dma_pool(&self) -> Option<u64> {
        self.link.pool
    }

    fn wait_interrupt(&self, timeout: Duration) -> Result<bool> {
        self.link.call("interrupt wait")?;
        self.inner.wait_interrupt(timeout)
    }

    fn reset(&self) -> Result<()> {
        self.link.call("reset")?;
        self.inner.reset()
    }
}

/// DMA memory across the link: reached only by calls.
#[derive(Debug)]
struct LinkDma {
    inner: Box<dyn DmaMemory>,
    link: Arc<LinkState>,
    /// Bytes it holds of the pool, where there is one.
    pooled: Option<u64>,
}

impl DmaMemory for LinkDma {
    fn size(&self) -> u64 {
        self.inner.size()
    }

    fn bus_pages(&self) -> &[u64] {
        self.inner.bus_pages()
    }

    fn cpu_ptr(&self) -> Option<*mut u8> {
        None
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.link.call("DMA memory read")?;
        self.inner.read(offset, buf)
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        self.link.call("DMA memory write")?;
        self.inner.write(offset, data)
    }
}

impl Drop for LinkDma {
    fn drop(&mut self) {
        if let Some(n) = self.pooled {
            self.link.pool_used.fetch_sub(n, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::am::EmuPciGpu;
    use crate::rdna::Interpreter;
    use baregpu_drivers::pci::{AMD_BAR_MMIO, AMD_BAR_VRAM, DMA_PAGE};

    fn gpu() -> Arc<dyn PciDevice> {
        EmuPciGpu::new("gfx1100", Arc::new(Interpreter::new("gfx1100"))).unwrap()
    }

    #[test]
    fn nothing_is_mapped_and_memory_is_reached_by_calls() {
        let r = Restricted::unmapped(gpu());
        assert!(r.bar_ptr(AMD_BAR_VRAM).is_none() && r.dma_pool().is_none());
        let dma = r.alloc_dma(DMA_PAGE, false).unwrap();
        assert!(dma.cpu_ptr().is_none());
        dma.write(8, &[1, 2, 3]).unwrap();
        let mut b = [0u8; 3];
        dma.read(8, &mut b).unwrap();
        assert_eq!(b, [1, 2, 3]);
        r.copy_to_bar(AMD_BAR_VRAM, 0x1000, &[9; 16]).unwrap();
        assert_eq!(r.read32(AMD_BAR_VRAM, 0x1004).unwrap(), 0x0909_0909);
        assert_eq!(r.calls(), 5);
    }

    #[test]
    fn the_pool_refuses_what_exceeds_it_and_takes_back_what_is_dropped() {
        let r = Restricted::vram_only(gpu(), 2 * DMA_PAGE);
        assert_eq!(r.dma_pool(), Some(2 * DMA_PAGE));
        let a = r.alloc_dma(DMA_PAGE, false).unwrap();
        let e = r.alloc_dma(2 * DMA_PAGE, false).unwrap_err().to_string();
        assert!(e.contains("no DMA into host memory") && e.contains("over a test link"), "{e}");
        let b = r.alloc_dma(DMA_PAGE, false).unwrap();
        assert_eq!(r.pool_used(), 2 * DMA_PAGE);
        drop((a, b));
        assert_eq!((r.pool_used(), r.pool_peak()), (0, 2 * DMA_PAGE));
        assert!(r.alloc_dma(2 * DMA_PAGE, false).is_ok());
    }

    #[test]
    fn a_failed_link_fails_every_call_from_then_on() {
        let r = Restricted::unmapped(gpu());
        let dma = r.alloc_dma(DMA_PAGE, false).unwrap();
        r.fail_after(1);
        r.read32(AMD_BAR_MMIO, 0).unwrap();
        let e = r.read32(AMD_BAR_MMIO, 0).unwrap_err().to_string();
        assert!(e.contains("emu:gfx1100 over a test link: read32") && e.contains("the link is down"), "{e}");
        assert!(dma.write(0, &[1]).is_err() && r.copy_to_bar(AMD_BAR_VRAM, 0, &[1]).is_err());
    }
}
