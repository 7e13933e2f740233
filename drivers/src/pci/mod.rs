//! The PCI/MMIO boundary: a PCI function as a userspace driver reaches it — config space, BAR
//! accesses as calls, DMA-able system memory with bus addresses, and interrupts.
//!
//! Implementations: sysfs `resourceN` mappings and VFIO on the host, the emulated PCI GPU (emu
//! crate), and later the USB bridge and the remote client. Register reads have side effects in
//! hardware (a read of an IH or mailbox register can acknowledge it), so the AM driver touches
//! registers only through [`PciDevice`], never through a raw pointer of its own. Every call can
//! fail: across a USB or network link the device can go away in the middle of a boot, and that
//! becomes an error naming the link, not a panic or a hang. Across a link nothing is CPU-mapped
//! ([`PciDevice::bar_ptr`] and [`DmaMemory::cpu_ptr`] are `None`): the driver and the runtime
//! then reach memory by calls; behind a USB bridge the device cannot even DMA into host memory
//! at large ([`PciDevice::dma_pool`]).

pub mod asm24xx;
mod bar_map;
pub mod config;
pub mod drained;
mod open;
pub mod pagemap;
pub mod remote;
pub mod scan;
pub mod sysfs;
pub mod vfio;
mod vfio_abi;
pub mod wait;

pub(crate) use open::explain;
pub use open::{open_host, open_host_with};

use crate::Result;
use std::fmt::Debug;
use std::time::Duration;
pub use wait::{Cmp, Until};

/// BAR indices of an AMD GPU (SOC15 and later): VRAM, doorbells, registers.
pub const AMD_BAR_VRAM: u8 = 0;
pub const AMD_BAR_DOORBELL: u8 = 2;
pub const AMD_BAR_MMIO: u8 = 5;

/// Size of a DMA page: the unit [`DmaMemory::bus_pages`] lists.
pub const DMA_PAGE: u64 = 0x1000;

/// What a BAR is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarInfo {
    /// Bytes the BAR decodes now (after any resize).
    pub size: u64,
    /// The bus address the BAR is assigned (for peer-to-peer and for the GPU's own view of it).
    pub bus_addr: u64,
    /// Whether the BAR is 64-bit prefetchable memory (VRAM) rather than registers.
    pub prefetchable: bool,
}

/// System memory that the device reaches by DMA: pinned, with the bus address of every page.
/// Freed when dropped; the driver must have stopped the device from using it first (page
/// tables unmapped, queues dequeued).
pub trait DmaMemory: Send + Sync + Debug {
    fn size(&self) -> u64;
    /// The bus address of each [`DMA_PAGE`] in order (contiguous when allocated so).
    fn bus_pages(&self) -> &[u64];
    /// The CPU's mapping when the memory is local to this process. Memory the GPU also writes is
    /// touched through it with volatile or atomic accesses only. `None` across a link.
    fn cpu_ptr(&self) -> Option<*mut u8>;
    /// Copy out of the memory (every implementation, local or across a link).
    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
    fn write(&self, offset: u64, data: &[u8]) -> Result<()>;
    /// Wait up to `timeout` until the 64-bit word at `offset` satisfies `until`; the last value
    /// read. Polls [`DmaMemory::read`] here; across a link it runs next to the memory (one
    /// round trip).
    fn wait_u64(&self, offset: u64, until: Until, timeout: Duration) -> Result<u64> {
        let read = || {
            let mut b = [0u8; 8];
            self.read(offset, &mut b).map(|()| u64::from_le_bytes(b))
        };
        wait::poll(read, until, timeout)
    }
}

/// One PCI function.
pub trait PciDevice: Send + Sync + Debug {
    /// What errors name: the BDF (`0000:03:00.0`), or `emu:gfx1100`, or the link and BDF.
    fn name(&self) -> &str;

    fn config_read(&self, offset: u16, buf: &mut [u8]) -> Result<()>;
    fn config_write(&self, offset: u16, data: &[u8]) -> Result<()>;

    /// The BAR at `index`, `None` when the function has none there.
    fn bar(&self, index: u8) -> Option<BarInfo>;

    /// Register-sized accesses at byte `offset` of BAR `bar`. Writes may be posted (batched by a
    /// link); a read flushes every earlier write first, as on PCIe.
    fn read32(&self, bar: u8, offset: u64) -> Result<u32>;
    fn write32(&self, bar: u8, offset: u64, value: u32) -> Result<()>;
    fn read64(&self, bar: u8, offset: u64) -> Result<u64>;
    fn write64(&self, bar: u8, offset: u64, value: u64) -> Result<()>;
    /// Bulk copies (VRAM through BAR0).
    fn copy_from_bar(&self, bar: u8, offset: u64, buf: &mut [u8]) -> Result<()>;
    fn copy_to_bar(&self, bar: u8, offset: u64, data: &[u8]) -> Result<()>;
    /// Wait up to `timeout` until the 64-bit word at `offset` of BAR `bar` satisfies `until`;
    /// the last value read. Polls [`PciDevice::read64`] here; across a link it runs next to the
    /// device (one round trip).
    fn wait_bar_u64(&self, bar: u8, offset: u64, until: Until, timeout: Duration) -> Result<u64> {
        wait::poll(|| self.read64(bar, offset), until, timeout)
    }

    /// The CPU's mapping of a BAR when it is local to this process and mapped whole (VRAM the
    /// runtime writes kernargs and code into). `None` across a link or when only partly mapped.
    fn bar_ptr(&self, bar: u8) -> Option<*mut u8> {
        let _ = bar;
        None
    }

    /// Pinned system memory of `size` bytes (a multiple of [`DMA_PAGE`]), physically contiguous
    /// when `contiguous` (up to what the implementation can promise, else an error).
    fn alloc_dma(&self, size: u64, contiguous: bool) -> Result<Box<dyn DmaMemory>>;

    /// `None` (the default): the device DMAs into any host memory [`PciDevice::alloc_dma`]
    /// gives. `Some(bytes)`: it cannot DMA into host memory at large, only into a small pool of
    /// that many bytes in all (the USB bridge's SRAM), which `alloc_dma` draws from (and refuses
    /// past). The AM driver (whose boot uses VRAM only) and the runtime then place rings,
    /// signals, pointers, kernargs and buffers in VRAM, and use the pool only to stage copies.
    fn dma_pool(&self) -> Option<u64> {
        None
    }

    /// Where host data reaches the GPU only through windows of the device's DMA memory that the
    /// GPU drains (the USB bridge's SRAM): how the host streams into them.
    fn drained_windows(&self) -> Option<&dyn drained::DrainedWindows> {
        None
    }

    /// Wait up to `timeout` for an interrupt (MSI through an eventfd where the implementation has
    /// one). `Ok(true)` when one fired; `Ok(false)` on timeout, and always where interrupts are
    /// polled: the caller then reads the IH ring's write pointer itself.
    fn wait_interrupt(&self, timeout: Duration) -> Result<bool>;

    /// Round trips so far (answers waited for) where the device is behind a link that counts
    /// them (the remote client); `None` elsewhere.
    fn link_round_trips(&self) -> Option<u64> {
        None
    }

    /// A function-level reset, when the implementation can do one.
    fn reset(&self) -> Result<()> {
        Err(crate::Error::Unsupported(format!("{}: no function-level reset", self.name())))
    }
}
