//! [`AmdIface`] over the userspace PCI driver (AM): no kernel driver, so no events. Memory is
//! placed as the hardware wants it (amd.md §7.6): rings, signals and read/write pointers in
//! system memory, code and device buffers in VRAM through the BAR (physically contiguous, so
//! one BAR window maps it), all of it in system memory where the BAR does not cover VRAM.
//! Queues are programmed into the HQD/SDMA registers by the driver, doorbells are BAR2 writes,
//! and a host's sleep polls: a short sleep with backoff, then the IH ring, where a VM fault or
//! an SQ error becomes the runtime's fault. There is no CWSR area on AM.
//!
//! The driver is reached through [`AmDriver`], what the runtime needs of
//! `baregpu_drivers::amd::am::AmDevice`; [`super::am_device`] implements it over AmDevice,
//! mapping every allocation at its CPU address (`AmDevice::alloc_at_cpu`) so the one-address
//! rule holds. On a chip of several XCCs (gfx942) a compute ring runs on every XCC's HQD, one
//! read pointer each. Still missing:
//! - the HDP flush pair from the discovery table's NBIO bases ([`super::hdp::for_block`]) once
//!   the emulated command processor answers it at those bases.

use super::hdp::HdpFlush;
use super::iface::{AmdIface, GpuInfo, HwQueue, MemKind, Memory, QueueBacking, QueueKind, Stopped, Wake};
use crate::Result;
use baregpu_autogen::amd::hsa::amd_queue_t;
use baregpu_drivers::va_window::Placement;
use std::any::Any;
use std::mem::offset_of;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where an allocation goes on AM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// Pinned system memory the GPU reaches by DMA (snooped, uncached).
    System,
    /// VRAM; `contiguous` where the CPU maps it through one BAR window.
    Vram { contiguous: bool },
}

/// amd.md §7.6's rule: system memory for host and uncached memory, and for CPU-visible memory
/// where the BAR does not cover VRAM; VRAM otherwise.
pub fn place(kind: MemKind, large_bar: bool) -> Where {
    match kind {
        MemKind::Host | MemKind::Uncached => Where::System,
        MemKind::Vram { cpu_visible: true } if !large_bar => Where::System,
        MemKind::Vram { cpu_visible } => Where::Vram { contiguous: cpu_visible },
    }
}

/// An allocation of the driver, mapped for the GPU at `va`, which is also its CPU address
/// where `cpu_mapped` (the runtime's one-address rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverAlloc {
    pub va: u64,
    pub size: u64,
    pub cpu_mapped: bool,
    /// The driver's name for it (what [`AmDriver::free`] takes).
    pub token: u64,
}

/// What the IH ring reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AmFault {
    /// A GPU page fault (UTCL2) at `va`.
    Memory { va: u64, write: bool },
    /// Anything else that stops a queue (an SQ error: illegal instruction, memory violation, a
    /// bad opcode): the driver's description.
    Engine(String),
}

/// What the runtime needs of the AM driver. One device, used from several threads: the
/// implementation serializes its register accesses itself.
pub trait AmDriver: Send + Sync + 'static {
    fn info(&self) -> GpuInfo;
    /// Whether BAR0 covers all of VRAM (a resizable BAR).
    fn large_bar(&self) -> bool;
    fn alloc(&self, size: u64, place: Where) -> Result<DriverAlloc>;
    fn free(&self, token: u64) -> Result<()>;
    /// Program a queue over a ring at `ring_va` of `ring_bytes` whose read pointer the engine
    /// writes to `rptr_va` and whose write pointer it polls at `wptr_va`; its handle.
    fn create_queue(&self, kind: QueueKind, ring_va: u64, ring_bytes: u64, rptr_va: u64, wptr_va: u64) -> Result<u32>;
    /// Dequeue it (a hung queue included) so its memory can be freed.
    fn destroy_queue(&self, handle: u32) -> Result<()>;
    /// The queue's doorbell in BAR2 gets `wptr`.
    fn ring_doorbell(&self, handle: u32, wptr: u64);
    /// Drain the IH ring: the first fault it holds, if any.
    fn poll_faults(&self) -> Result<Option<AmFault>>;
    fn hdp(&self) -> Option<HdpFlush>;
    /// Bring the engines back after a fault or hang, with no queue mapped; `Ok(false)` where
    /// the device must be reopened.
    fn reset(&self) -> Result<bool>;
    /// Dequeue what is left and mark the session closed (the next open may boot partly).
    /// Memory stays mapped and [`AmDriver::free`] keeps working until the driver is dropped.
    fn close(&self);
}

/// The longest single sleep between two polls of the IH ring.
const MAX_SLEEP: Duration = Duration::from_millis(2);

/// One GPU through the AM driver.
pub struct AmIface {
    drv: Arc<dyn AmDriver>,
    info: GpuInfo,
    large_bar: bool,
    /// The current backoff of the polling sleep (reset when a wait starts afresh).
    backoff: Mutex<Duration>,
}

/// A queue's record: the driver's handle, and the memory AM took for it (the ring and the
/// pointer page), freed when the queue is destroyed.
struct AmQueue {
    drv: Arc<dyn AmDriver>,
    handle: u32,
    ring: DriverAlloc,
    pointers: DriverAlloc,
}

impl QueueBacking for AmQueue {
    fn ring_doorbell(&self, write_ptr: u64) {
        self.drv.ring_doorbell(self.handle, write_ptr)
    }
}

impl AmIface {
    pub fn new(drv: Arc<dyn AmDriver>) -> AmIface {
        AmIface { info: drv.info(), large_bar: drv.large_bar(), drv, backoff: Mutex::new(Duration::from_micros(50)) }
    }

    fn queue_memory(&self, ring_bytes: u64) -> Result<(DriverAlloc, DriverAlloc)> {
        let ring = self.drv.alloc(ring_bytes, Where::System)?;
        match self.drv.alloc(0x1000, Where::System) {
            Ok(p) => Ok((ring, p)),
            Err(e) => {
                let _ = self.drv.free(ring.token);
                Err(e)
            }
        }
    }
}

fn foreign(what: &str) -> crate::Error {
    crate::Error::Driver(baregpu_drivers::Error::Protocol(format!("{what} of another device interface given to AM")))
}

impl AmdIface for AmIface {
    fn kind(&self) -> &'static str {
        "am"
    }

    fn info(&self) -> &GpuInfo {
        &self.info
    }

    fn alloc(&self, size: u64, kind: MemKind, _placement: Placement) -> Result<Memory> {
        if size == 0 {
            return Err(crate::Error::Driver(baregpu_drivers::Error::Protocol("AM: a zero-byte allocation".into())));
        }
        let a = self.drv.alloc(size, place(kind, self.large_bar))?;
        Ok(Memory::new(a.va, a.size, kind, a.cpu_mapped, a))
    }

    fn free(&self, mem: Memory) -> Result<()> {
        let a = mem.into_backing::<DriverAlloc>().map_err(|_| foreign("memory"))?;
        self.drv.free(a.token)
    }

    fn map_for_peer(&self, _mem: &Memory, _peer: &dyn AmdIface) -> std::result::Result<(), String> {
        Err("AM does not map memory for a second GPU yet".into())
    }

    /// The ring and its pointer page in system memory (amd_queue_t-shaped: read pointer at
    /// `read_dispatch_id`, write pointer at `write_dispatch_id`), then the driver programs it.
    fn create_queue(&self, kind: QueueKind, ring_bytes: u64) -> Result<HwQueue> {
        let (ring, pointers) = self.queue_memory(ring_bytes)?;
        let rptr = pointers.va + offset_of!(amd_queue_t, read_dispatch_id) as u64;
        let wptr = pointers.va + offset_of!(amd_queue_t, write_dispatch_id) as u64;
        let handle = match self.drv.create_queue(kind, ring.va, ring_bytes, rptr, wptr) {
            Ok(h) => h,
            Err(e) => {
                let _ = self.drv.free(ring.token);
                let _ = self.drv.free(pointers.token);
                return Err(e);
            }
        };
        let q = AmQueue { drv: self.drv.clone(), handle, ring, pointers };
        // The driver maps a compute ring on every XCC's HQD, XCC `x` reporting its read pointer
        // 8 bytes after XCC `x - 1`'s (as KFD's queues do); SDMA has one engine reading.
        let xccs = if kind == QueueKind::Compute { self.info.xccs.max(1) } else { 1 };
        let read_ptrs = (0..u64::from(xccs)).map(|x| rptr + 8 * x).collect();
        Ok(HwQueue::new(handle, kind, ring.va, ring_bytes, pointers.va, read_ptrs, wptr, q))
    }

    fn destroy_queue(&self, q: HwQueue) -> Result<()> {
        let q = q.into_backing::<AmQueue>().map_err(|_| foreign("a queue"))?;
        // A queue the driver could not dequeue may still read its memory: leak it then.
        self.drv.destroy_queue(q.handle)?;
        let ring = self.drv.free(q.ring.token);
        let ptrs = self.drv.free(q.pointers.token);
        ring.and(ptrs)
    }

    fn hdp(&self) -> Option<HdpFlush> {
        self.drv.hdp()
    }

    /// No events: host waits poll.
    fn wake(&self) -> Option<Wake> {
        None
    }

    /// Sleep a little (doubling up to [`MAX_SLEEP`], never past `d`), then poll the IH ring.
    fn sleep(&self, d: Duration) -> std::result::Result<(), Stopped> {
        let step = {
            let mut b = self.backoff.lock().unwrap_or_else(|e| e.into_inner());
            let step = (*b).min(d);
            *b = (*b * 2).min(MAX_SLEEP);
            step
        };
        std::thread::sleep(step);
        match self.drv.poll_faults() {
            Ok(None) => Ok(()),
            Ok(Some(AmFault::Memory { va, write })) => Err(Stopped {
                why: format!(
                    "memory fault at VA {va:#x} ({} of a page not mapped)",
                    if write { "write" } else { "read" }
                ),
                engine_reset: false,
            }),
            Ok(Some(AmFault::Engine(why))) => Err(Stopped { why, engine_reset: true }),
            Err(e) => Err(Stopped { why: format!("polling the IH ring: {e}"), engine_reset: false }),
        }
    }

    fn queue_exception(&self, _id: u32) -> Option<String> {
        None
    }

    fn recover(&self) -> Result<bool> {
        *self.backoff.lock().unwrap_or_else(|e| e.into_inner()) = Duration::from_micros(50);
        self.drv.reset()
    }

    fn close(&mut self) {
        self.drv.close()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
#[path = "am_tests.rs"]
mod tests;
