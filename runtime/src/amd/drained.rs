//! Host→VRAM copies on a device whose GPU reaches host data only through windows it drains
//! (a USB bridge's SRAM, `baregpu_drivers::pci::drained`, hcq.md §6.3). One SDMA program per
//! copy polls each chunk's sentinel in its window, copies the window to the destination and
//! writes the chunk's sequence number plus one to the drain fence; meanwhile the host streams
//! the chunks into two alternating windows and refills one only once the fence says the GPU
//! drained it. The copy is done when the fence reaches the last chunk's: no timing is assumed
//! either way (the sentinel proves the data landed, the fence that the GPU is done with it).

use super::device::{AmdDevice, Buffer};
use super::iface::MemKind;
use crate::Result;
use baregpu_drivers::pci::drained::{image_len, sentinel, IMAGE_UNIT};
use baregpu_drivers::va_window::Placement;

/// Most bytes of one window: the bridge's SRAM pool holds 496 KiB, and two such windows leave
/// room for a staging buffer of a copy the other way.
pub const MAX_WINDOW: u64 = 192 << 10;
/// Most chunks one SDMA program covers (about 80 bytes of commands a chunk; the ring is 256 KiB).
const CHUNKS_PER_PROGRAM: usize = 512;

/// The environment variable that turns drained windows off (`0`): copies in then stage through
/// one SRAM buffer, written and proven by the host and copied by the GPU piece by piece (the
/// way to compare the two, or to fall back where a bridge's firmware does not take them).
pub const DRAINED_ENV: &str = "BAREGPU_USB_DRAINED";

/// Whether [`DRAINED_ENV`] leaves drained windows on (anything but `0`).
pub fn enabled_by_env() -> bool {
    std::env::var(DRAINED_ENV).map_or(true, |v| v.trim() != "0")
}

/// The host's side of drained windows, as a driver interface offers it.
pub trait DrainedCopy: Send + Sync {
    /// The GPU address of the drain fence (a u64 the GPU writes), mapped on first use.
    fn fence_va(&self) -> Result<u64>;
    /// The fence's value now.
    fn fence(&self) -> Result<u64>;
    /// Windows start at, and span, multiples of this many bytes of the staging memory.
    fn window_align(&self) -> u64;
    /// Streams `chunks` into the windows at byte offsets `windows` of the DMA-pool allocation
    /// at `staging_va` (see `DrainedWindows::stream`): returns once the GPU drained them all.
    fn stream(&self, staging_va: u64, windows: [u64; 2], window: u64, first: u64, chunks: &[&[u8]]) -> Result<()>;
}

/// The window size for a copy of `bytes`: what its one image needs, at most [`MAX_WINDOW`],
/// in whole units of `align`.
pub fn window_for(bytes: u64, align: u64) -> u64 {
    let align = align.max(IMAGE_UNIT).next_multiple_of(IMAGE_UNIT);
    let most = (MAX_WINDOW / align * align).max(align);
    image_len(bytes).next_multiple_of(align).min(most)
}

impl AmdDevice {
    /// Copies `data` to `offset` of `dst` through drained windows (see the module doc).
    pub(super) fn copy_in_drained(&self, d: &dyn DrainedCopy, dst: &Buffer, offset: u64, data: &[u8]) -> Result<()> {
        let window = window_for(data.len() as u64, d.window_align());
        let iface = &self.backend().iface;
        let staging = Buffer { mem: iface.alloc(2 * window, MemKind::Host, Placement::Internal)? };
        let result = (|| {
            let fence_va = d.fence_va()?;
            // Earlier work first, so that the drain waits time this copy alone.
            self.synchronize()?;
            let mut first = d.fence()?;
            let mut at = dst.va() + offset;
            let chunks: Vec<&[u8]> = data.chunks((window - 4) as usize).collect();
            for batch in chunks.chunks(CHUNKS_PER_PROGRAM) {
                self.submit_drain(at, staging.va(), window, fence_va, first, batch)?;
                d.stream(staging.va(), [0, window], window, first, batch)?;
                first += batch.len() as u64;
                at += batch.iter().map(|c| c.len() as u64).sum::<u64>();
            }
            Ok(())
        })();
        // The copy's own error first: freeing over a link that failed fails too.
        let freed = self.free(staging);
        result.and(freed)
    }

    /// The GPU's side of one batch: per chunk, wait for its sentinel, copy its window to `dst`
    /// onwards, then write its sequence number plus one to the fence (64 bits).
    fn submit_drain(
        &self,
        dst: u64,
        staging: u64,
        window: u64,
        fence_va: u64,
        first: u64,
        chunks: &[&[u8]],
    ) -> Result<()> {
        let mut q = self.copy_queue()?;
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal().clone();
        q.wait(&timeline, value - 1);
        let mut at = dst;
        for (i, c) in chunks.iter().enumerate() {
            let seq = first + i as u64;
            let win = staging + (i % 2) as u64 * window;
            q.encoder().q.poll_eq(win + image_len(c.len() as u64) - 4, sentinel(seq), u32::MAX);
            q.copy(at, win, c.len() as u64);
            let drained = seq + 1;
            q.encoder().q.write(fence_va, &[drained as u32, (drained >> 32) as u32]);
            at += c.len() as u64;
        }
        q.signal(&timeline, value);
        q.submit().map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_fit_the_copy_in_whole_slots_up_to_the_most() {
        assert_eq!(window_for(100, 0x4000), 0x4000);
        assert_eq!(window_for(0x4000 - 4, 0x4000), 0x4000);
        assert_eq!(window_for(0x4000 - 3, 0x4000), 0x8000);
        assert_eq!(window_for(64 << 20, 0x4000), MAX_WINDOW);
        assert_eq!(window_for(64 << 20, 0x50000), 0x50000);
        assert_eq!(window_for(10, 0), 512);
    }
}
