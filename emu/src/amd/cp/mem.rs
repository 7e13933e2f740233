//! GPU memory as one GPU's command processor reaches it: every access is translated through
//! the allocations mapped on that GPU (the bounds check), and what falls outside becomes a
//! memory fault with the first address that is not mapped. Shared words are read and written
//! with volatile or atomic accesses only.

use super::CpHost;
use super::Stop;
use crate::amd::dispatch::GpuMemory;
use crate::memory_wait::Writes;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// A cached view of what GPU `gpu_id` maps, rebuilt when the host's memory epoch says
/// allocations or mappings changed (so a freed buffer faults at once), and on a miss. Every
/// write through it tells the machine's [`Writes`] (memory waits of other queues look again).
pub(crate) struct GpuView {
    gpu_id: u32,
    snap: GpuMemory,
    epoch: u64,
    writes: Arc<Writes>,
}

impl GpuView {
    pub fn new(host: &dyn CpHost, gpu_id: u32, writes: Arc<Writes>) -> GpuView {
        let epoch = host.memory_epoch();
        GpuView { gpu_id, snap: host.memory(gpu_id), epoch, writes }
    }

    /// Memory changed behind the view's back (a dispatch): wake the machine's memory waits.
    pub fn wrote(&self) {
        self.writes.wrote();
    }

    pub fn refresh(&mut self, host: &dyn CpHost) {
        // Read the epoch first: a change while snapshotting makes the next check rebuild again.
        self.epoch = host.memory_epoch();
        self.snap = host.memory(self.gpu_id);
    }

    fn current(&mut self, host: &dyn CpHost) {
        if host.memory_epoch() != self.epoch {
            self.refresh(host);
        }
    }

    /// The current mappings (what a dispatch gets).
    pub fn fresh(&mut self, host: &dyn CpHost) -> &GpuMemory {
        self.current(host);
        &self.snap
    }

    /// The emulator's address of `[va, va + len)`, or the fault.
    pub fn host(
        &mut self,
        host: &dyn CpHost,
        va: u64,
        len: u64,
        write: bool,
        what: &dyn std::fmt::Display,
    ) -> Result<*mut u8, Stop> {
        self.current(host);
        if let Some(p) = self.snap.translate(va, len) {
            return Ok(p);
        }
        self.refresh(host);
        if let Some(p) = self.snap.translate(va, len) {
            return Ok(p);
        }
        // The first byte that is not mapped: `va` itself, or the end of the allocation holding it.
        let at = host.fault_va(self.gpu_id, va);
        Err(Stop::Fault { va: at, write, what: format!("{what} ({len} bytes at VA {va:#x})") })
    }

    pub fn read_u32(&mut self, host: &dyn CpHost, va: u64, what: &dyn std::fmt::Display) -> Result<u32, Stop> {
        let p = self.host(host, va, 4, false, what)?;
        // SAFETY: translated, so inside a live mapping of at least 4 bytes; atomic when aligned.
        Ok(unsafe {
            if (p as usize).is_multiple_of(4) {
                (*(p as *const AtomicU32)).load(Ordering::Acquire)
            } else {
                std::ptr::read_unaligned(p as *const u32)
            }
        })
    }

    pub fn read_u64(&mut self, host: &dyn CpHost, va: u64, what: &dyn std::fmt::Display) -> Result<u64, Stop> {
        let p = self.host(host, va, 8, false, what)?;
        // SAFETY: as read_u32.
        Ok(unsafe {
            if (p as usize).is_multiple_of(8) {
                (*(p as *const AtomicU64)).load(Ordering::Acquire)
            } else {
                std::ptr::read_unaligned(p as *const u64)
            }
        })
    }

    pub fn write_u32(&mut self, host: &dyn CpHost, va: u64, v: u32, what: &dyn std::fmt::Display) -> Result<(), Stop> {
        let p = self.host(host, va, 4, true, what)?;
        // SAFETY: as read_u32.
        unsafe {
            if (p as usize).is_multiple_of(4) {
                (*(p as *const AtomicU32)).store(v, Ordering::Release)
            } else {
                std::ptr::write_unaligned(p as *mut u32, v)
            }
        }
        self.writes.wrote();
        Ok(())
    }

    /// An atomic add to the aligned 32-bit word at `va` (ATOMIC_MEM); returns the old value.
    pub fn add_u32(&mut self, host: &dyn CpHost, va: u64, v: u32, what: &dyn std::fmt::Display) -> Result<u32, Stop> {
        let p = self.host(host, va, 4, true, what)?;
        // SAFETY: translated, so inside a live mapping of at least 4 bytes; the decoder clears
        // the address's low two bits, so the word is aligned.
        let old = unsafe { (*(p as *const AtomicU32)).fetch_add(v, Ordering::AcqRel) };
        self.writes.wrote();
        Ok(old)
    }

    pub fn write_u64(&mut self, host: &dyn CpHost, va: u64, v: u64, what: &dyn std::fmt::Display) -> Result<(), Stop> {
        let p = self.host(host, va, 8, true, what)?;
        // SAFETY: as read_u32.
        unsafe {
            if (p as usize).is_multiple_of(8) {
                (*(p as *const AtomicU64)).store(v, Ordering::Release)
            } else {
                std::ptr::write_unaligned(p as *mut u64, v)
            }
        }
        self.writes.wrote();
        Ok(())
    }

    /// `n` dwords at `va` (an indirect buffer), copied out.
    pub fn read_words(
        &mut self,
        host: &dyn CpHost,
        va: u64,
        n: u32,
        what: &dyn std::fmt::Display,
    ) -> Result<Vec<u32>, Stop> {
        let p = self.host(host, va, n as u64 * 4, false, what)? as *const u32;
        // SAFETY: the whole range was translated; volatile reads of memory the host may write.
        Ok((0..n as usize).map(|i| unsafe { std::ptr::read_volatile(p.add(i)) }).collect())
    }

    /// A DMA copy of `bytes` (the ranges may overlap, as memmove).
    pub fn copy(
        &mut self,
        host: &dyn CpHost,
        dst: u64,
        src: u64,
        bytes: u64,
        what: &dyn std::fmt::Display,
    ) -> Result<(), Stop> {
        let s = self.host(host, src, bytes, false, what)?;
        let d = self.host(host, dst, bytes, true, what)?;
        // SAFETY: both ranges were translated into live mappings; raw pointers only, no references
        // into the shared memory.
        unsafe { std::ptr::copy(s, d, bytes as usize) };
        self.writes.wrote();
        Ok(())
    }
}
