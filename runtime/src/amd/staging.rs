//! Host↔device copies for memory the CPU cannot map (VRAM beyond the BAR): through a pinned host
//! staging buffer and the SDMA engine, in chunks; CPU-visible memory is copied directly. Where
//! the GPU reaches host memory only through a small DMA pool (a USB bridge's SRAM), the staging
//! buffer comes from the pool (what the bridge moves fastest), else from host-visible VRAM; and
//! where the GPU must drain the pool's windows itself, copies in go through [`super::drained`].

use super::device::{AmdDevice, Buffer};
use super::iface::MemKind;
use crate::Result;
use baregpu_drivers::va_window::Placement;

/// Bytes moved per staging round trip.
pub const STAGING_BYTES: u64 = 2 << 20;

impl AmdDevice {
    /// Device memory the CPU does not map: reach it with [`AmdDevice::copy_in`]/[`copy_out`].
    ///
    /// [`copy_out`]: AmdDevice::copy_out
    pub fn alloc_vram(&self, size: u64) -> Result<Buffer> {
        self.alloc_kind(size, super::iface::MemKind::Vram { cpu_visible: false })
    }

    /// Copy host bytes into any buffer, ordered after earlier work on the device.
    pub fn copy_in(&self, dst: &Buffer, offset: u64, data: &[u8]) -> Result<()> {
        if dst.host_visible() {
            self.synchronize()?;
            return self.write(dst, offset, data);
        }
        self.check_span(dst, offset, data.len() as u64)?;
        if let Some(d) = self.backend().iface.drained() {
            return self.copy_in_drained(d, dst, offset, data);
        }
        let staging = self.staging(data.len())?;
        let chunk = staging.size() as usize;
        let result = (|| {
            for (i, piece) in data.chunks(chunk).enumerate() {
                // The previous piece's copy must be done before the staging buffer is refilled.
                self.synchronize()?;
                self.write(&staging, 0, piece)?;
                self.copy(dst, offset + (i * chunk) as u64, &staging, 0, piece.len() as u64)?;
            }
            self.synchronize()
        })();
        self.free(staging)?;
        result
    }

    /// Copy a buffer's bytes to the host after all earlier work on the device.
    pub fn copy_out(&self, src: &Buffer, offset: u64, out: &mut [u8]) -> Result<()> {
        self.synchronize()?;
        if src.host_visible() {
            return self.read(src, offset, out);
        }
        self.check_span(src, offset, out.len() as u64)?;
        let staging = self.staging(out.len())?;
        let chunk = staging.size() as usize;
        let result = (|| {
            for (i, piece) in out.chunks_mut(chunk).enumerate() {
                self.copy(&staging, 0, src, offset + (i * chunk) as u64, piece.len() as u64)?;
                self.synchronize()?;
                self.read(&staging, 0, piece)?;
            }
            Ok(())
        })();
        self.free(staging)?;
        result
    }

    /// A staging buffer for a copy of `bytes`: from the device's DMA pool where it has one (and
    /// room in it), host memory otherwise.
    fn staging(&self, bytes: usize) -> Result<Buffer> {
        let want = STAGING_BYTES.min(bytes.max(1) as u64);
        let iface = &self.backend().iface;
        if let Some(pool) = iface.dma_pool() {
            match iface.alloc(want.min(pool), MemKind::Host, Placement::Internal) {
                Ok(mem) => return Ok(Buffer { mem }),
                Err(e) => log::debug!("{}: staging outside the DMA pool: {e}", self.label),
            }
        }
        self.alloc_host(want)
    }
}
