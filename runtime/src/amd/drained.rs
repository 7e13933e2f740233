//! Host→VRAM copies on a device whose GPU reaches host data only through windows it drains
//! (a USB bridge's SRAM, `baregpu_drivers::pci::drained`, hcq.md §6.3). One SDMA program per
//! copy polls each chunk's sentinel in its window, copies the window to the destination and
//! writes the chunk's sequence number plus one to the drain fence; meanwhile the host streams
//! the chunks into two alternating windows and refills one only once the fence says the GPU
//! drained it. The copy is done when the fence reaches the last chunk's: no timing is assumed
//! either way (the sentinel proves the data landed, the fence that the GPU is done with it).

use super::device::{AmdDevice, Buffer};
use crate::Result;
use baregpu_drivers::pci::drained::{image_len, sentinel, IMAGE_UNIT};

/// Bytes of one window: the bridge's SRAM pool holds 496 KiB; the two windows stay allocated
/// for the device's life (mapping them per copy costs more over the link than the copy) and
/// leave room for the staging of copies out.
pub const MAX_WINDOW: u64 = 128 << 10;
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

/// The bytes of a window in whole units of `align`: [`MAX_WINDOW`], or one unit where that is larger.
pub fn window_size(align: u64) -> u64 {
    let align = align.max(IMAGE_UNIT).next_multiple_of(IMAGE_UNIT);
    (MAX_WINDOW / align * align).max(align)
}

/// The two windows of the DMA pool: at `va` and `va + window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Windows {
    pub va: u64,
    pub window: u64,
}

/// What the runtime's copy asks of the interface: the driver's side, and the windows it keeps.
pub trait DrainedIface: DrainedCopy {
    /// Runs `f` on the windows (allocated of the DMA pool on first use, then kept), with every
    /// other drained copy of the device kept out meanwhile (they would share the windows and the
    /// fence's sequence numbers).
    fn with_windows(&self, f: &mut dyn FnMut(Windows) -> Result<()>) -> Result<()>;
}

impl AmdDevice {
    /// Copies `data` to `offset` of `dst` through drained windows (see the module doc).
    pub(super) fn copy_in_drained(&self, d: &dyn DrainedIface, dst: &Buffer, offset: u64, data: &[u8]) -> Result<()> {
        d.with_windows(&mut |w| {
            let fence_va = d.fence_va()?;
            // Earlier work first, so that the drain waits time this copy alone.
            self.synchronize()?;
            let mut first = d.fence()?;
            let mut at = dst.va() + offset;
            let chunks: Vec<&[u8]> = data.chunks((w.window - 4) as usize).collect();
            for batch in chunks.chunks(CHUNKS_PER_PROGRAM) {
                self.submit_drain(at, w, fence_va, first, batch)?;
                d.stream(w.va, [0, w.window], w.window, first, batch)?;
                first += batch.len() as u64;
                at += batch.iter().map(|c| c.len() as u64).sum::<u64>();
            }
            Ok(())
        })
    }

    /// The GPU's side of one batch: per chunk, wait for its sentinel, copy its window to `dst`
    /// onwards, then write its sequence number plus one to the fence (64 bits).
    fn submit_drain(&self, dst: u64, w: Windows, fence_va: u64, first: u64, chunks: &[&[u8]]) -> Result<()> {
        let mut q = self.copy_queue()?;
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal().clone();
        q.wait(&timeline, value - 1);
        let mut at = dst;
        for (i, c) in chunks.iter().enumerate() {
            let seq = first + i as u64;
            let win = w.va + (i % 2) as u64 * w.window;
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
    fn windows_are_whole_units_of_the_alignment() {
        assert_eq!(window_size(0x4000), MAX_WINDOW);
        assert_eq!(window_size(0x5000), 0x1_e000);
        assert_eq!(window_size(0x50000), 0x50000);
        assert_eq!(window_size(0), MAX_WINDOW);
    }
}
