//! Host→device copies for a device whose GPU reaches host data only through a few windows of
//! the device's own DMA memory (the ASM24xx bridge's SRAM, hcq.md §6.3). The host streams
//! chunks into two alternating windows, each chunk's image closed by a sentinel dword the GPU
//! polls for (in-stream proof that the chunk landed); the GPU copies the window out and then
//! writes the chunk's sequence number plus one to a drain fence; the host refills a window only
//! once the fence says the chunk before in it was drained (proof that the GPU is done with it).
//! Neither side assumes any timing of the other. The GPU's part (poll, copy, fence write) is
//! the caller's to submit; [`DrainedWindows`] is the host's part.

use super::DmaMemory;
use crate::Result;

/// Sentinel dwords: this tag plus the low 24 bits of the chunk's sequence number.
pub const SENTINEL_TAG: u32 = 0x5100_0000;
/// A chunk's image is whole units of this many bytes (the bridge engine's sector).
pub const IMAGE_UNIT: u64 = 512;

/// The sentinel that closes chunk `seq`.
pub fn sentinel(seq: u64) -> u32 {
    SENTINEL_TAG | (seq as u32 & 0xff_ffff)
}

/// Bytes of the image of a chunk of `payload` bytes: the payload, padding, and the sentinel in
/// the last dword.
pub fn image_len(payload: u64) -> u64 {
    (payload + 4).next_multiple_of(IMAGE_UNIT)
}

/// The image of chunk `seq` holding `payload`.
pub fn image(payload: &[u8], seq: u64) -> Vec<u8> {
    let mut image = vec![0u8; image_len(payload.len() as u64) as usize];
    image[..payload.len()].copy_from_slice(payload);
    let end = image.len();
    image[end - 4..].copy_from_slice(&sentinel(seq).to_le_bytes());
    image
}

/// The host's side of drained windows (see the module doc).
pub trait DrainedWindows: Send + Sync {
    /// The page that holds the drain fence (a u64 the GPU writes), as DMA memory the caller
    /// maps for the GPU, and the fence's byte offset in it.
    fn fence_page(&self) -> Result<(Box<dyn DmaMemory>, u64)>;
    /// The fence's value now.
    fn fence(&self) -> Result<u64>;
    /// Windows start at, and span, multiples of this many bytes of the DMA memory.
    fn window_align(&self) -> u64;
    /// Streams chunk `i` of `chunks` into window `i % 2` (byte offsets `windows` of `staging`,
    /// `window` bytes each) as its [`image`] of sequence number `first + i`. Chunk `i` reuses a
    /// window only once the fence reads at least `first + i - 1` (chunk `i - 2` drained);
    /// returns once it reads `first + chunks.len()`. A fence that stops moving is an error
    /// (naming the link where the GPU fell off it), never a hang.
    fn stream(
        &self,
        staging: &dyn DmaMemory,
        windows: [u64; 2],
        window: u64,
        first: u64,
        chunks: &[&[u8]],
    ) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_end_in_the_sentinel_of_their_sequence_number() {
        assert_eq!(image_len(0), 512);
        assert_eq!(image_len(508), 512);
        assert_eq!(image_len(509), 1024);
        let im = image(&[1, 2, 3], 0x0123_4567);
        assert_eq!(im.len(), 512);
        assert_eq!(&im[..4], &[1, 2, 3, 0]);
        assert_eq!(u32::from_le_bytes(im[508..].try_into().unwrap()), 0x5123_4567);
    }
}
