//! [`AmdIface`] over the userspace PCI driver (AM): no kernel driver, so no events. Memory is
//! placed as the hardware wants it (amd.md §7.6): rings, signals and read/write pointers in
//! system memory, code and device buffers in VRAM through the BAR (physically contiguous, so
//! one BAR window maps it), all of it in system memory where the BAR does not cover VRAM, and
//! all of it in VRAM where the GPU cannot DMA into host memory (a USB bridge: only copy staging
//! comes from its small DMA pool). Queues are programmed into the HQD/SDMA registers by the driver, doorbells are BAR2 writes,
//! and a host's sleep polls: a short sleep with backoff, then the IH ring, where a VM fault or
//! an SQ error becomes the runtime's fault. There is no CWSR area on AM.
//!
//! The driver is reached through [`AmDriver`], what the runtime needs of
//! `baregpu_drivers::amd::am::AmDevice`; [`super::am_device`] implements it over AmDevice,
//! mapping every allocation at its CPU address (`AmDevice::alloc_at_cpu`) so the one-address
//! rule holds; over a link (nothing CPU-mapped), the interface's port is a
//! [`crate::port::Link`] through the driver's calls, and its first failure ends every sleep.
//! On a chip of several XCCs (gfx942) a compute ring runs on every XCC's HQD, one read pointer
//! each. The memory barrier flushes HDP through NBIO's flush pair at the discovery table's
//! NBIO base ([`AmDriver::hdp`]).

use super::drained::{window_size, DrainedCopy, DrainedIface, Windows};
use super::hdp::HdpFlush;
use super::iface::{AmdIface, GpuInfo, HwQueue, MemKind, Memory, QueueBacking, QueueKind, Stopped, Wake};
use crate::port::{Link, LinkMem, Port};
use crate::Result;
use baregpu_autogen::amd::hsa::amd_queue_t;
use baregpu_drivers::pci::Until;
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
/// where the BAR does not cover VRAM; VRAM otherwise. A GPU that cannot DMA into host memory
/// (`!host_dma`: behind a USB bridge) gets everything in VRAM, which the host reaches through
/// the BAR.
pub fn place(kind: MemKind, large_bar: bool, host_dma: bool) -> Where {
    match kind {
        MemKind::Vram { cpu_visible: false } => Where::Vram { contiguous: false },
        _ if !host_dma => Where::Vram { contiguous: true },
        MemKind::Host | MemKind::Uncached => Where::System,
        MemKind::Vram { cpu_visible: true } if !large_bar => Where::System,
        MemKind::Vram { cpu_visible } => Where::Vram { contiguous: cpu_visible },
    }
}

/// An allocation of the driver, mapped for the GPU at `va`. Where `cpu_mapped`, the host
/// reaches it: at `va` in this process where the driver maps its memory there
/// ([`AmDriver::maps_memory`], the runtime's one-address rule), else through
/// [`AmDriver::read`]/[`AmDriver::write`].
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
    /// Whether allocations are mapped in this process at their GPU address (a local GPU); where
    /// not (a GPU behind a link), the runtime reaches them through [`AmDriver::read`] and
    /// [`AmDriver::write`].
    fn maps_memory(&self) -> bool {
        true
    }
    /// `None` where the GPU DMAs into any host memory; else the bytes of the small pool it can
    /// (a USB bridge's SRAM, `PciDevice::dma_pool`): every allocation then goes to VRAM but
    /// staging buffers, which come from the pool.
    fn dma_pool(&self) -> Option<u64> {
        None
    }
    /// What link errors name: the PCI device.
    fn name(&self) -> String {
        "am".into()
    }
    /// Bytes of the allocation that holds `va..va + buf.len()`, where memory is not mapped.
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<()> {
        let _ = buf;
        Err(crate::Error::Driver(baregpu_drivers::Error::Unsupported(format!("AM: no access to {va:#x} by calls"))))
    }
    fn write(&self, va: u64, data: &[u8]) -> Result<()> {
        let _ = data;
        Err(crate::Error::Driver(baregpu_drivers::Error::Unsupported(format!("AM: no access to {va:#x} by calls"))))
    }
    /// Wait up to `timeout` until the 64-bit word at `va` (where memory is not mapped: a
    /// signal) satisfies `until`; the last value read. By default polls [`AmDriver::read`]; a
    /// driver over a link waits next to the device (one round trip).
    fn wait_u64(&self, va: u64, until: Until, timeout: Duration) -> Result<u64> {
        let read = || {
            let mut b = [0u8; 8];
            self.read(va, &mut b).map(|()| u64::from_le_bytes(b))
        };
        baregpu_drivers::pci::wait::poll(read, until, timeout)
    }
    /// Where host data reaches the GPU only through windows of the DMA pool it drains
    /// (`PciDevice::drained_windows`, a USB bridge): their host side.
    fn drained(&self) -> Option<&dyn DrainedCopy> {
        None
    }
    fn alloc(&self, size: u64, place: Where) -> Result<DriverAlloc>;
    fn free(&self, token: u64) -> Result<()>;
    /// Program a queue over a ring at `ring_va` of `ring_bytes` whose read pointer the engine
    /// writes to `rptr_va` and whose write pointer it polls at `wptr_va`; its handle.
    fn create_queue(&self, kind: QueueKind, ring_va: u64, ring_bytes: u64, rptr_va: u64, wptr_va: u64) -> Result<u32>;
    /// Dequeue it (a hung queue included) so its memory can be freed.
    fn destroy_queue(&self, handle: u32) -> Result<()>;
    /// The queue's doorbell in BAR2 gets `wptr`.
    fn ring_doorbell(&self, handle: u32, wptr: u64) -> Result<()>;
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
    /// See [`AmDriver::dma_pool`].
    dma_pool: Option<u64>,
    /// How the host reaches the memory: its address, or the driver's calls over a link.
    port: Port,
    /// The current backoff of the polling sleep (reset when a wait starts afresh).
    backoff: Mutex<Duration>,
    /// The drained windows once allocated (see [`DrainedIface::with_windows`]); the lock keeps
    /// one drained copy at a time.
    windows: Mutex<Option<Windows>>,
}

/// A queue's record: the driver's handle, and the memory AM took for it (the ring and the
/// pointer page), freed when the queue is destroyed.
struct AmQueue {
    drv: Arc<dyn AmDriver>,
    port: Port,
    handle: u32,
    ring: DriverAlloc,
    pointers: DriverAlloc,
}

impl QueueBacking for AmQueue {
    /// A failure is the link's (latched: the next wait reports it) or, locally, logged.
    fn ring_doorbell(&self, write_ptr: u64) {
        if let Err(e) = self.drv.ring_doorbell(self.handle, write_ptr) {
            match &self.port {
                Port::Link(l) => drop(l.fail(format!("ringing a doorbell: {e}"))),
                Port::Local => log::warn!("AM: ringing queue {}'s doorbell: {e}", self.handle),
            }
        }
    }
}

/// The driver's calls as a link's memory.
struct DriverMem(Arc<dyn AmDriver>);

impl LinkMem for DriverMem {
    fn name(&self) -> String {
        self.0.name()
    }
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<()> {
        self.0.read(va, buf)
    }
    fn write(&self, va: u64, data: &[u8]) -> Result<()> {
        self.0.write(va, data)
    }
    fn wait_u64(&self, va: u64, until: Until, timeout: Duration) -> Result<u64> {
        self.0.wait_u64(va, until, timeout)
    }
}

impl AmIface {
    pub fn new(drv: Arc<dyn AmDriver>) -> AmIface {
        let port = match drv.maps_memory() {
            true => Port::Local,
            false => Port::Link(Link::new(Arc::new(DriverMem(drv.clone())))),
        };
        AmIface {
            info: drv.info(),
            large_bar: drv.large_bar(),
            dma_pool: drv.dma_pool(),
            port,
            drv,
            backoff: Mutex::new(Duration::from_micros(50)),
            windows: Mutex::new(None),
        }
    }

    /// VRAM comes back as the last user left it (system memory comes zeroed): a queue's pointer
    /// page with a stale write pointer would run stale commands.
    fn zero_in_vram(&self, a: &DriverAlloc, at: Where) -> Result<()> {
        if at == Where::System {
            return Ok(());
        }
        // SAFETY: the page was just allocated, reached through the port; no engine uses it.
        unsafe { self.port.write(a.va, &vec![0; a.size as usize]) }
    }

    /// Rings and their pointer pages: system memory, or VRAM where the GPU cannot DMA into it.
    fn queue_memory(&self, ring_bytes: u64) -> Result<(DriverAlloc, DriverAlloc)> {
        let at = place(MemKind::Uncached, self.large_bar, self.dma_pool.is_none());
        let ring = self.drv.alloc(ring_bytes, at)?;
        let pointers = match self.drv.alloc(0x1000, at) {
            Ok(p) => p,
            Err(e) => {
                let _ = self.drv.free(ring.token);
                return Err(e);
            }
        };
        if let Err(e) = self.zero_in_vram(&pointers, at) {
            let _ = (self.drv.free(ring.token), self.drv.free(pointers.token));
            return Err(e);
        }
        Ok((ring, pointers))
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

    fn alloc(&self, size: u64, kind: MemKind, placement: Placement) -> Result<Memory> {
        if size == 0 {
            return Err(crate::Error::Driver(baregpu_drivers::Error::Protocol("AM: a zero-byte allocation".into())));
        }
        let at = match (kind, placement) {
            // Staging for copies where the GPU reaches host memory only in a small pool.
            (MemKind::Host, Placement::Internal) if self.dma_pool.is_some() => Where::System,
            _ => place(kind, self.large_bar, self.dma_pool.is_none()),
        };
        let a = self.drv.alloc(size, at)?;
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
        let q = AmQueue { drv: self.drv.clone(), port: self.port.clone(), handle, ring, pointers };
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

    fn port(&self) -> Port {
        self.port.clone()
    }

    fn dma_pool(&self) -> Option<u64> {
        self.dma_pool
    }

    fn drained(&self) -> Option<&dyn DrainedIface> {
        self.drv.drained().map(|_| self as &dyn DrainedIface)
    }

    /// No events: host waits poll.
    fn wake(&self) -> Option<Wake> {
        None
    }

    /// Sleep a little (doubling up to [`MAX_SLEEP`], never past `d`), then poll the IH ring. A
    /// link that failed ends every wait at once.
    fn sleep(&self, d: Duration) -> std::result::Result<(), Stopped> {
        if let Some(why) = self.port.failure() {
            return Err(Stopped { why, engine_reset: false });
        }
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
            Err(e) => {
                let why = format!("polling the IH ring: {e}");
                let why = match &self.port {
                    Port::Link(l) => {
                        l.fail(&why);
                        l.failure().unwrap_or(why)
                    }
                    Port::Local => why,
                };
                Err(Stopped { why, engine_reset: false })
            }
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

/// The driver's drained windows, with a failure latched on the link: a stream that stopped
/// halfway leaves the copy engine polling for a sentinel that will not come, so every later
/// wait ends with the error (the device is reopened, as after any link fault).
impl DrainedCopy for AmIface {
    fn fence_va(&self) -> Result<u64> {
        self.latched(|d| d.fence_va())
    }

    fn fence(&self) -> Result<u64> {
        self.latched(|d| d.fence())
    }

    fn window_align(&self) -> u64 {
        self.drv.drained().map_or(1, |d| d.window_align())
    }

    fn stream(&self, staging_va: u64, windows: [u64; 2], window: u64, first: u64, chunks: &[&[u8]]) -> Result<()> {
        self.latched(|d| d.stream(staging_va, windows, window, first, chunks))
    }
}

/// The windows are one allocation of the DMA pool, kept until the driver drops (with the rest
/// of its memory).
impl DrainedIface for AmIface {
    fn with_windows(&self, f: &mut dyn FnMut(Windows) -> Result<()>) -> Result<()> {
        let mut held = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        let w = match *held {
            Some(w) => w,
            None => {
                let window = window_size(self.window_align());
                let a = self.latched(|_| self.drv.alloc(2 * window, Where::System))?;
                *held.insert(Windows { va: a.va, window })
            }
        };
        f(w)
    }
}

impl AmIface {
    fn latched<T>(&self, f: impl FnOnce(&dyn DrainedCopy) -> Result<T>) -> Result<T> {
        if let Port::Link(l) = &self.port {
            if let Some(e) = l.error() {
                return Err(e);
            }
        }
        let d = self.drv.drained().ok_or_else(|| {
            crate::Error::Driver(baregpu_drivers::Error::Unsupported("AM: the device has no drained windows".into()))
        })?;
        f(d).map_err(|e| match &self.port {
            Port::Link(l) => l.fail(e),
            Port::Local => e,
        })
    }
}

#[cfg(test)]
#[path = "am_tests.rs"]
mod tests;
