//! Host↔device copies for memory the CPU cannot map (VRAM beyond the BAR): through a pinned host
//! staging buffer and the SDMA engine, in chunks; CPU-visible memory is copied directly.

use super::device::{AmdDevice, Buffer};
use crate::Result;

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
        let staging = self.alloc_host(STAGING_BYTES.min(data.len().max(1) as u64))?;
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
        let staging = self.alloc_host(STAGING_BYTES.min(out.len().max(1) as u64))?;
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
}
