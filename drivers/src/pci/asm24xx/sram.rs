//! The bridge's SRAM as the device's DMA memory: the only memory outside VRAM the GPU can
//! reach through the bridge (PCIe 0x200000 up). Allocations are whole 16 KiB engine slots.
//! Host writes go through the SRAM engine (arm, bulk OUT) in pipelined chunks, several in
//! flight, and are proven landed once per write by an in-stream sentinel: a sentinel sector
//! queued after the data in the same stream, read back before the write returns (the engine
//! lands a stream in order, so the sentinel landing proves every chunk before it). Reads arm the
//! engine for a read and take the sectors on bulk IN, pipelined the same way.

use super::link::{Link, ENGINE_CHUNK};
use super::protocol::{SECTOR, SENTINEL_TAG, SRAM_PCIE, SRAM_SIZE, SRAM_SLOT};
use crate::pci::{DmaMemory, DMA_PAGE};
use crate::{Error, Result};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

const SLOTS: usize = (SRAM_SIZE / SRAM_SLOT) as usize;
/// The last slot holds the sentinel sector; the others are the pool.
const SENTINEL_SLOT: u64 = SLOTS as u64 - 1;
/// Bytes the pool hands out.
pub const POOL_SIZE: u64 = SENTINEL_SLOT * SRAM_SLOT;

/// Which slots are taken.
#[derive(Debug)]
pub struct SramPool {
    link: Link,
    used: Mutex<[bool; SLOTS]>,
    seq: AtomicU32,
}

impl SramPool {
    pub fn new(link: Link) -> Arc<SramPool> {
        Arc::new(SramPool { link, used: Mutex::new([false; SLOTS]), seq: AtomicU32::new(0) })
    }

    /// `size` bytes (a multiple of [`DMA_PAGE`]) in consecutive slots, contiguous on the bus.
    pub fn alloc(self: &Arc<Self>, size: u64) -> Result<SramDma> {
        let name = self.link.name();
        if size == 0 || !size.is_multiple_of(DMA_PAGE) {
            return Err(Error::Unsupported(format!(
                "{name}: DMA size {size:#x} is not a non-zero multiple of {DMA_PAGE:#x}"
            )));
        }
        let need = size.div_ceil(SRAM_SLOT) as usize;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let free = |s: usize| used[s..s + need].iter().all(|u| !u);
        let first = (0..=(SENTINEL_SLOT as usize).saturating_sub(need))
            .find(|&s| s + need <= SENTINEL_SLOT as usize && free(s));
        let Some(first) = first else {
            return Err(Error::Unsupported(format!(
                "{name}: no {size:#x} bytes left in the bridge's {POOL_SIZE:#x}-byte SRAM pool (the only memory \
                 outside VRAM the GPU reaches over the bridge)"
            )));
        };
        used[first..first + need].iter_mut().for_each(|u| *u = true);
        let base = first as u64 * SRAM_SLOT;
        let pages = (0..size / DMA_PAGE).map(|i| SRAM_PCIE + base + i * DMA_PAGE).collect();
        Ok(SramDma { pool: self.clone(), first: first as u64, slots: need, size, pages })
    }

    fn free(&self, first: u64, slots: usize) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        used[first as usize..first as usize + slots].iter_mut().for_each(|u| *u = false);
    }

    /// Writes `data` at SRAM byte `start`, then proves it landed with the sentinel. Bytes of
    /// the first and last sector the write only partly covers are read first and kept.
    fn write(&self, start: u64, data: &[u8]) -> Result<()> {
        let link = &self.link;
        let slot = start / SRAM_SLOT;
        let (lo, hi) = (slot * SRAM_SLOT, (start + data.len() as u64).next_multiple_of(SECTOR));
        let mut image = vec![0u8; (hi - lo) as usize];
        let _wire = link.lock();
        if start != lo || start + data.len() as u64 != hi {
            link.engine_read_pipelined(slot, &mut image)?;
        }
        image[(start - lo) as usize..][..data.len()].copy_from_slice(data);
        // The engine lands data in order: the sentinel sector after the data proves the data.
        let seq = self.seq.fetch_add(1, Ordering::Relaxed) & 0xff_ffff;
        let sentinel = SENTINEL_TAG | seq;
        let mut sector = [0u8; SECTOR as usize];
        sector[SECTOR as usize - 4..].copy_from_slice(&sentinel.to_le_bytes());
        let chunks = image.chunks(ENGINE_CHUNK).enumerate();
        let pieces = chunks.map(|(i, c)| (slot + (i * ENGINE_CHUNK) as u64 / SRAM_SLOT, c));
        link.engine_write_pipelined(pieces.chain([(SENTINEL_SLOT, &sector[..])]))?;
        link.engine_read(SENTINEL_SLOT, &mut sector)?;
        let back = u32::from_le_bytes(sector[SECTOR as usize - 4..].try_into().unwrap_or_default());
        if back != sentinel {
            return Err(Error::Protocol(format!(
                "{}: SRAM write of {} bytes at {start:#x}: the sentinel reads {back:#010x}, not {sentinel:#010x} \
                 (the data did not land)",
                link.name(),
                data.len()
            )));
        }
        Ok(())
    }

    fn read(&self, start: u64, buf: &mut [u8]) -> Result<()> {
        let slot = start / SRAM_SLOT;
        let (lo, hi) = (slot * SRAM_SLOT, (start + buf.len() as u64).next_multiple_of(SECTOR));
        let mut image = vec![0u8; (hi - lo) as usize];
        let _wire = self.link.lock();
        self.link.engine_read_pipelined(slot, &mut image)?;
        buf.copy_from_slice(&image[(start - lo) as usize..][..buf.len()]);
        Ok(())
    }
}

/// One allocation of the pool.
#[derive(Debug)]
pub struct SramDma {
    pool: Arc<SramPool>,
    first: u64,
    slots: usize,
    size: u64,
    pages: Vec<u64>,
}

impl SramDma {
    fn check(&self, op: &str, offset: u64, len: usize) -> Result<u64> {
        match offset.checked_add(len as u64) {
            Some(end) if end <= self.size => Ok(self.first * SRAM_SLOT + offset),
            _ => Err(Error::sys(
                format!("{}: SRAM {op} of {len} bytes at {offset:#x}", self.pool.link.name()),
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("past the allocation's {:#x} bytes", self.size),
                ),
            )),
        }
    }
}

impl DmaMemory for SramDma {
    fn size(&self) -> u64 {
        self.size
    }

    fn bus_pages(&self) -> &[u64] {
        &self.pages
    }

    fn cpu_ptr(&self) -> Option<*mut u8> {
        None
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let start = self.check("read", offset, buf.len())?;
        if buf.is_empty() {
            return Ok(());
        }
        self.pool.read(start, buf)
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        let start = self.check("write", offset, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        self.pool.write(start, data)
    }
}

impl Drop for SramDma {
    fn drop(&mut self) {
        self.pool.free(self.first, self.slots);
    }
}
