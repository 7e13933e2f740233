//! What the AMD backend asks of the driver beneath it, as ONE interface: memory (allocate, free,
//! map for a peer GPU), the compute and SDMA hardware queues (ring, read/write pointer words,
//! doorbell), the host's sleep between signal polls with the faults it reports, what a queue's
//! waves raised, recovery and close. Two drivers implement it: KFD (the kernel's /dev/kfd, see
//! [`super::kfd`]) and AM (the userspace PCI driver). Everything above it (PM4 and SDMA encoding,
//! rings, scratch, the XCC barrier, the runtime core) is the same code on both.
//!
//! The contract every implementation keeps:
//! - Memory has ONE address: the GPU virtual address, through which the host reaches memory
//!   that is `cpu_mapped` via the interface's [`AmdIface::port`]: as the CPU address where the
//!   port is local, by calls where it is a link (a GPU behind a network or USB link).
//! - A [`HwQueue`]'s ring, read pointers and write pointer stay mapped until
//!   [`AmdIface::destroy_queue`]; the engine wraps at `ring_bytes` (a power of two); PM4 read
//!   pointers count dwords, SDMA ones bytes, either monotonic or wrapped to the ring.
//! - [`AmdIface::sleep`] returns within about the time it is given, and reports a memory fault
//!   or an engine reset the device raised as [`Stopped`]; it never blocks for good.
//! - [`AmdIface::close`] gives back what the interface holds for the device's life (KFD: its
//!   events) but keeps memory working: the core frees the signal page and argument ring after it.

use super::hdp::HdpFlush;
use crate::Result;
use baregpu_drivers::va_window::Placement;
use std::any::Any;
use std::fmt;
use std::time::Duration;

pub use baregpu_drivers::amd::kfd::{MemKind, QueueKind};

/// What the runtime needs to know of the GPU behind an interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    /// LLVM target name: `gfx1100`.
    pub arch: String,
    /// XCCs that execute a compute ring (1 but on multi-XCC CDNA parts).
    pub xccs: u32,
    /// Compute units across all XCCs.
    pub compute_units: u32,
    /// LDS bytes a workgroup may use.
    pub lds_bytes: u32,
    /// Scratch wave slots per compute unit (the scratch buffer is sized by them).
    pub scratch_slots_per_cu: u64,
}

/// Where a signal with an interrupt writes to wake a sleeping host: a mailbox slot and the
/// event id written into it (and raised as the interrupt's context).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wake {
    pub mailbox: u64,
    pub event: u32,
}

/// One allocation of an interface. Freed (only) through the interface that made it.
pub struct Memory {
    /// The GPU virtual address, which is also the CPU address when `cpu_mapped` and the
    /// interface's port is local.
    pub va: u64,
    /// Bytes, rounded up to the interface's page.
    pub size: u64,
    pub kind: MemKind,
    /// The host can read and write `va..va + size` (through the interface's port).
    pub cpu_mapped: bool,
    /// The implementation's own record of the allocation.
    backing: Box<dyn Any + Send + Sync>,
}

impl Memory {
    pub fn new(va: u64, size: u64, kind: MemKind, cpu_mapped: bool, backing: impl Any + Send + Sync) -> Memory {
        Memory { va, size, kind, cpu_mapped, backing: Box::new(backing) }
    }

    /// The implementation's record, where it is a `T`.
    pub fn backing<T: Any>(&self) -> Option<&T> {
        self.backing.downcast_ref()
    }

    /// The implementation's record, or the memory back where it is not a `T` (memory of
    /// another interface).
    pub fn into_backing<T: Any>(self) -> std::result::Result<T, Memory> {
        let Memory { va, size, kind, cpu_mapped, backing } = self;
        backing.downcast().map(|b| *b).map_err(|backing| Memory { va, size, kind, cpu_mapped, backing })
    }
}

impl fmt::Debug for Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Memory")
            .field("va", &format_args!("{:#x}", self.va))
            .field("size", &format_args!("{:#x}", self.size))
            .field("kind", &self.kind)
            .field("cpu_mapped", &self.cpu_mapped)
            .finish_non_exhaustive()
    }
}

/// Any `'static` value as `Any`, by reference and boxed: what lets a queue's record go back to
/// the interface that made it.
pub trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// The implementation's side of a queue: how its doorbell is rung (it is also the
/// implementation's own record of the queue).
pub trait QueueBacking: AsAny + Send + Sync {
    /// Tell the engine (every XCC's, where several run the ring) that the write pointer is now
    /// `write_ptr`. Called after the write pointer's store and a fence.
    fn ring_doorbell(&self, write_ptr: u64);
}

/// A live hardware queue. Destroyed (only) through the interface that made it.
pub struct HwQueue {
    /// The interface's id of the queue (KFD queue id; AM: the HQD or SDMA queue).
    pub id: u32,
    pub kind: QueueKind,
    /// The ring's GPU (and CPU) address.
    pub ring_va: u64,
    /// Where the engine wraps; a power of two (the allocation may be larger).
    pub ring_bytes: u64,
    /// The `amd_queue_t`-shaped page of the queue: what a kernel's queue pointer points at.
    pub queue_va: u64,
    /// Where each XCC's engine reports how far it read (one entry but on multi-XCC rings).
    pub read_ptrs: Vec<u64>,
    /// Where the runtime publishes how far it wrote (64-bit).
    pub write_ptr: u64,
    backing: Box<dyn QueueBacking>,
}

impl HwQueue {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: u32,
        kind: QueueKind,
        ring_va: u64,
        ring_bytes: u64,
        queue_va: u64,
        read_ptrs: Vec<u64>,
        write_ptr: u64,
        backing: impl QueueBacking,
    ) -> HwQueue {
        HwQueue { id, kind, ring_va, ring_bytes, queue_va, read_ptrs, write_ptr, backing: Box::new(backing) }
    }

    /// See [`QueueBacking::ring_doorbell`].
    pub fn ring_doorbell(&self, write_ptr: u64) {
        self.backing.ring_doorbell(write_ptr)
    }

    /// How many XCCs execute the ring.
    pub fn xccs(&self) -> u32 {
        self.read_ptrs.len() as u32
    }

    /// The implementation's record, or the queue back where it is not a `T`.
    pub fn into_backing<T: Any>(self) -> std::result::Result<T, HwQueue> {
        let HwQueue { id, kind, ring_va, ring_bytes, queue_va, read_ptrs, write_ptr, backing } = self;
        // Checked through a reference first, so that a record of another type stays whole.
        // (`&*backing`: the boxed value's own type, not the Box's.)
        if !AsAny::as_any(&*backing).is::<T>() {
            return Err(HwQueue { id, kind, ring_va, ring_bytes, queue_va, read_ptrs, write_ptr, backing });
        }
        Ok(*AsAny::into_any(backing).downcast::<T>().expect("checked above"))
    }

    /// The implementation's record, where it is a `T`.
    pub fn backing<T: Any>(&self) -> Option<&T> {
        AsAny::as_any(&*self.backing).downcast_ref()
    }
}

impl fmt::Debug for HwQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HwQueue")
            .field("id", &self.id)
            .field("kind", &self.kind)
            .field("ring_va", &format_args!("{:#x}", self.ring_va))
            .field("ring_bytes", &format_args!("{:#x}", self.ring_bytes))
            .field("read_ptrs", &self.read_ptrs)
            .field("write_ptr", &format_args!("{:#x}", self.write_ptr))
            .finish_non_exhaustive()
    }
}

/// Why a host's sleep ended early: the device reported a fault or reset an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// The report: `memory fault at VA 0x… (page not present)`.
    pub why: String,
    /// An engine was reset: the compute queue's exception ([`AmdIface::queue_exception`]) may
    /// say what its waves did.
    pub engine_reset: bool,
}

/// The driver beneath the AMD backend: see the module doc.
pub trait AmdIface: Send + Sync + 'static {
    /// `kfd` or `am`: what logs and errors call the path.
    fn kind(&self) -> &'static str;
    fn info(&self) -> &GpuInfo;

    /// `size` bytes (rounded up to pages) of `kind`, mapped for this GPU; `placement` keeps the
    /// runtime's own memory apart from the user's buffers.
    fn alloc(&self, size: u64, kind: MemKind, placement: Placement) -> Result<Memory>;
    /// Unmap (from this GPU and every peer it was mapped for) and free.
    fn free(&self, mem: Memory) -> Result<()>;
    /// Map `mem` for `peer`'s GPU too, at the same address, until it is freed; why not where
    /// the two GPUs cannot share it.
    fn map_for_peer(&self, mem: &Memory, peer: &dyn AmdIface) -> std::result::Result<(), String>;

    /// A queue of `kind` over a ring of `ring_bytes` (a power of two), running on every XCC.
    fn create_queue(&self, kind: QueueKind, ring_bytes: u64) -> Result<HwQueue>;
    /// Stop the queue, then free its memory.
    fn destroy_queue(&self, q: HwQueue) -> Result<()>;

    /// The HDP flush register pair, where the interface knows it.
    fn hdp(&self) -> Option<HdpFlush>;
    /// How the host reaches the interface's CPU-visible memory: at its address in this process
    /// (KFD, AM on a local GPU), or by calls over a link (AM on a GPU behind one); see
    /// [`crate::port`].
    fn port(&self) -> crate::port::Port {
        crate::port::Port::Local
    }
    /// `None` where the GPU reaches any host memory; else the bytes of the small DMA pool it
    /// has instead (a USB bridge's SRAM): [`MemKind::Host`] memory allocated with
    /// [`Placement::Internal`] (the runtime's copy staging) comes from it, the rest from VRAM.
    fn dma_pool(&self) -> Option<u64> {
        None
    }
    /// Where host data reaches the GPU only through windows of the DMA pool that the GPU
    /// drains (a USB bridge's SRAM): the host's side of copies into VRAM.
    fn drained(&self) -> Option<&dyn super::drained::DrainedIface> {
        None
    }
    /// Where an interrupting signal wakes a sleeping host; `None` where host waits only poll.
    fn wake(&self) -> Option<Wake>;
    /// Sleep up to about `d` (or until woken), then report what the device raised meanwhile.
    fn sleep(&self, d: Duration) -> std::result::Result<(), Stopped>;
    /// What queue `id`'s waves raised (a trap, an illegal instruction), if the driver says.
    fn queue_exception(&self, id: u32) -> Option<String>;
    /// After the queues were destroyed and before they are created again: whatever else a
    /// fault or hang left (`Ok(false)` where the device must be reopened).
    fn recover(&self) -> Result<bool>;
    /// Give back what the interface holds for the device's life; memory keeps working.
    fn close(&mut self);

    /// The implementation itself (for a peer's downcast, and for `kfd_device()`).
    fn as_any(&self) -> &dyn Any;
}
