//! The bridge's side of drained windows ([`crate::pci::drained`], hcq.md §6.3): chunks go into
//! two alternating SRAM windows through the engine (arm, queued bulk OUT), each image closed by
//! its sentinel; before a window is refilled its previous bulk transfer is taken back and the
//! drain fence (XDATA 0xA800, which the GPU writes at PCIe 0x820800) is read until it shows that
//! chunk drained. The fence page is mapped for the GPU as DMA memory over the controller's
//! `sys_buf` (PCIe 0x820000), read and written through XDATA.

use super::link::Link;
use super::pipe::Pipe;
use super::protocol::*;
use super::Asm24xx;
use crate::pci::drained::{image, image_len, DrainedWindows};
use crate::pci::{DmaMemory, DMA_PAGE};
use crate::{Error, Result};
use std::time::{Duration, Instant};

/// The first and the longest pause between two reads of a fence that has not moved yet.
const FIRST_PAUSE: Duration = Duration::from_micros(20);
const LONGEST_PAUSE: Duration = Duration::from_millis(1);

/// The controller's `sys_buf` page as DMA memory (what the GPU's fence write targets).
#[derive(Debug)]
pub struct SysBufPage {
    link: Link,
    pages: [u64; 1],
}

impl SysBufPage {
    fn check(&self, offset: u64, len: usize) -> Result<u16> {
        match offset.checked_add(len as u64) {
            Some(end) if end <= SYS_BUF_SIZE => Ok(XDATA_SYS_BUF + offset as u16),
            _ => Err(Error::sys(
                format!("{}: sys_buf access of {len} bytes at {offset:#x}", self.link.name()),
                std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("past its {SYS_BUF_SIZE:#x} bytes")),
            )),
        }
    }
}

impl DmaMemory for SysBufPage {
    fn size(&self) -> u64 {
        DMA_PAGE
    }

    fn bus_pages(&self) -> &[u64] {
        &self.pages
    }

    fn cpu_ptr(&self) -> Option<*mut u8> {
        None
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let at = self.check(offset, buf.len())?;
        let _wire = self.link.lock();
        self.link.xdata_read(at, buf)
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        let at = self.check(offset, data.len())?;
        let _wire = self.link.lock();
        self.link.xdata_write(at, data)
    }
}

impl Asm24xx {
    /// The engine slot of the window at byte `offset` of `staging` spanning `window` bytes:
    /// it must lie in the SRAM, contiguous, on slot boundaries.
    fn window_slot(&self, staging: &dyn DmaMemory, offset: u64, window: u64) -> Result<u64> {
        let pages = staging.bus_pages();
        let (first, n) = ((offset / DMA_PAGE) as usize, (window / DMA_PAGE) as usize);
        let span = pages.get(first..first + n).filter(|s| !s.is_empty());
        let bus = span.map(|s| s[0]).unwrap_or(0);
        let contiguous = span.is_some_and(|s| s.iter().enumerate().all(|(i, &p)| p == bus + i as u64 * DMA_PAGE));
        let inside = bus >= SRAM_PCIE && bus + window <= SRAM_PCIE + SRAM_SIZE;
        if !contiguous || !inside || !(bus - SRAM_PCIE).is_multiple_of(SRAM_SLOT) || !window.is_multiple_of(SRAM_SLOT) {
            return Err(Error::Unsupported(format!(
                "{}: a window of {window:#x} bytes at {offset:#x} of DMA memory is not whole SRAM slots of the bridge",
                self.name
            )));
        }
        Ok((bus - SRAM_PCIE) / SRAM_SLOT)
    }

    /// How long [`DrainedWindows::stream`] waits for the GPU to drain a window (tests shorten it).
    pub fn set_drain_timeout(&self, timeout: Duration) {
        *self.drain_timeout.lock().unwrap_or_else(|e| e.into_inner()) = timeout;
    }
}

impl DrainedWindows for Asm24xx {
    fn fence_page(&self) -> Result<(Box<dyn DmaMemory>, u64)> {
        let page = SysBufPage { link: self.link.clone(), pages: [SYS_BUF_PCIE] };
        Ok((Box::new(page), FENCE_PCIE - SYS_BUF_PCIE))
    }

    fn fence(&self) -> Result<u64> {
        let _wire = self.link.lock();
        self.link.fence()
    }

    fn window_align(&self) -> u64 {
        SRAM_SLOT
    }

    fn stream(
        &self,
        staging: &dyn DmaMemory,
        windows: [u64; 2],
        window: u64,
        first: u64,
        chunks: &[&[u8]],
    ) -> Result<()> {
        let slots = [self.window_slot(staging, windows[0], window)?, self.window_slot(staging, windows[1], window)?];
        if slots[0].abs_diff(slots[1]) * SRAM_SLOT < window {
            return Err(Error::Unsupported(format!("{}: the two SRAM windows overlap", self.name)));
        }
        if let Some(c) = chunks.iter().find(|c| image_len(c.len() as u64) > window) {
            return Err(Error::Unsupported(format!(
                "{}: a chunk of {} bytes and its sentinel do not fit a {window:#x}-byte window",
                self.name,
                c.len()
            )));
        }
        let timeout = *self.drain_timeout.lock().unwrap_or_else(|e| e.into_inner());
        let _wire = self.link.lock();
        self.link.stream_windows(slots, first, chunks, timeout)
    }
}

impl Link {
    /// The host loop of [`DrainedWindows::stream`] over engine slots `slots`.
    fn stream_windows(&self, slots: [u64; 2], first: u64, chunks: &[&[u8]], timeout: Duration) -> Result<()> {
        // At most one bulk transfer per window in flight (one at depth 1): a window's next
        // image goes out only after its last one is back and the fence says it was drained.
        let mut pipe = Pipe::new(self, EP_OUT, self.depth().min(2));
        let mut drained = first;
        for (i, chunk) in chunks.iter().enumerate() {
            let seq = first + i as u64;
            if pipe.full() {
                pipe.take_oldest()?;
            }
            if i >= 2 && drained < seq - 1 {
                // Chunks up to seq - 1 are out: the fence can read seq at most.
                drained = self.wait_drain(seq - 1, seq, timeout)?;
            }
            let image = image(chunk, seq);
            let slot = slots[i % 2];
            self.engine_arm(false, image.len() as u64 / SECTOR, slot)?;
            let what = format!("SRAM window write of chunk {seq} ({} bytes) at slot {slot}", chunk.len());
            pipe.submit_out((), what, image)?;
        }
        pipe.finish(|(), _| ())?;
        let last = first + chunks.len() as u64;
        self.wait_drain(last, last, timeout).map(drop)
    }

    /// Reads the drain fence until it reaches `want`; its value then. A fence that cannot
    /// move (the PCIe link down) or does not within `timeout` is an error.
    ///
    /// A read beyond `most` (one past the last chunk queued) is torn, not drained: the bridge
    /// copies the fence out of XDATA byte by byte while the GPU's write may land, and a mix of
    /// the old bytes and the new ones across a carry (0x00ff -> 0x0100 read as 0x01ff) reads
    /// at least 255 too high, never just above the true value. It is read again.
    fn wait_drain(&self, want: u64, most: u64, timeout: Duration) -> Result<u64> {
        let start = Instant::now();
        let mut pause = FIRST_PAUSE;
        loop {
            let fence = self.fence()?;
            if (want..=most).contains(&fence) {
                return Ok(fence);
            }
            let what = if fence > most {
                format!("waiting for the drain fence to reach {want} (it reads {fence}, beyond the last chunk queued, {most})")
            } else {
                format!("waiting for the drain fence to reach {want} (it reads {fence})")
            };
            match self.ltssm()? {
                LTSSM_L0 => {}
                s => {
                    return Err(Error::Protocol(format!(
                        "{}: {what}: the PCIe link is down (LTSSM {s:#04x}); replug the enclosure or power-cycle \
                         the GPU",
                        self.name()
                    )))
                }
            }
            if start.elapsed() >= timeout {
                return Err(Error::Protocol(format!(
                    "{}: {what}: the GPU did not drain the SRAM window within {timeout:?} (is the copy engine \
                     running the drain program?)",
                    self.name()
                )));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(LONGEST_PAUSE);
        }
    }
}
