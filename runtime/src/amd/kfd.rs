//! [`AmdIface`] over KFD: memory, queues and events through /dev/kfd ioctls
//! ([`baregpu_drivers::amd::kfd`]), the host's sleep on KFD events (queue event, memory fault,
//! hardware exception), and the HDP flush registers from the render node's IP discovery in sysfs.
//! The same code drives a real GPU (host OS) and the emulated one (the emulated KFD behind the
//! same OS boundary).

use super::hdp::{self, HdpFlush};
use super::iface::{AmdIface, GpuInfo, HwQueue, Memory, QueueBacking, Stopped, Wake};
use crate::Result;
use baregpu_drivers::amd::kfd::{EventKind, Kfd, KfdDevice, KfdEvent, KfdMemory, KfdQueue, MemKind, QueueKind};
use baregpu_drivers::amd::topology::KfdGpu;
use baregpu_drivers::os::Os;
use baregpu_drivers::va_window::Placement;
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

/// Bytes of the process's KFD event page.
const EVENT_PAGE: u64 = 0x8000;
/// The longest single WAIT_EVENTS: a wait re-checks its signal at least this often.
const MAX_SLEEP_MS: u128 = 200;

/// One GPU opened through KFD, with the events a host sleeps on.
pub struct KfdIface {
    pub(crate) dev: KfdDevice,
    info: GpuInfo,
    hdp: Option<HdpFlush>,
    wake: Wake,
    /// Queue event, memory fault, hardware exception; empty once closed.
    events: Vec<KfdEvent>,
}

impl KfdIface {
    /// Open `gpu` on the KFD behind `os` (`label` names it in errors) and create its events.
    pub fn open(os: Arc<dyn Os>, gpu: KfdGpu, label: &str) -> Result<KfdIface> {
        let hdp = hdp::discover(&*os, gpu.render_minor);
        let kfd = Kfd::open(os)?;
        let dev = KfdDevice::open(kfd, gpu)?.named(label);
        let info = GpuInfo {
            arch: dev.gpu.arch.clone(),
            xccs: dev.gpu.num_xcc,
            compute_units: dev.gpu.compute_units,
            lds_bytes: dev.props.get("lds_size_in_kb").unwrap_or(64) as u32 * 1024,
            scratch_slots_per_cu: dev.props.get("max_slots_scratch_cu").unwrap_or(32).max(1),
        };
        // In the process's one event page, shared by the devices of one KFD.
        let (queue_event, mailbox) = dev.create_mailbox_event(EVENT_PAGE)?;
        // Auto-reset: a fault is reported to one wait, not to every wait after recovery.
        let fault_event = dev.create_event(EventKind::MemoryFault, true, None)?;
        let hw_event = dev.create_event(EventKind::HwException, true, None)?;
        let wake = Wake { mailbox, event: queue_event.id };
        Ok(KfdIface { dev, info, hdp, wake, events: vec![queue_event, fault_event, hw_event] })
    }

    pub fn device(&self) -> &KfdDevice {
        &self.dev
    }
}

/// Wrong-interface memory or queues: a bug in the caller, reported rather than leaked silently.
fn foreign(what: &str) -> crate::Error {
    crate::Error::Driver(baregpu_drivers::Error::Protocol(format!("{what} of another device interface given to KFD")))
}

impl QueueBacking for KfdQueue {
    fn ring_doorbell(&self, write_ptr: u64) {
        KfdQueue::ring_doorbell(self, write_ptr)
    }
}

impl AmdIface for KfdIface {
    fn kind(&self) -> &'static str {
        "kfd"
    }

    fn info(&self) -> &GpuInfo {
        &self.info
    }

    fn alloc(&self, size: u64, kind: MemKind, placement: Placement) -> Result<Memory> {
        let m = match placement {
            Placement::User => self.dev.alloc(size, kind)?,
            Placement::Internal => self.dev.alloc_internal(size, kind)?,
        };
        Ok(Memory::new(m.va, m.size, m.kind, m.cpu_mapped, m))
    }

    fn free(&self, mem: Memory) -> Result<()> {
        let m = mem.into_backing::<KfdMemory>().map_err(|_| foreign("memory"))?;
        Ok(self.dev.free(m)?)
    }

    fn map_for_peer(&self, mem: &Memory, peer: &dyn AmdIface) -> std::result::Result<(), String> {
        let m = mem.backing::<KfdMemory>().ok_or("the memory is not KFD memory")?;
        let peer = peer.as_any().downcast_ref::<KfdIface>().ok_or("the peer is not opened through KFD")?;
        self.dev.map_for_peer(m, &peer.dev).map_err(|e| e.to_string())
    }

    fn create_queue(&self, kind: QueueKind, ring_bytes: u64) -> Result<HwQueue> {
        let q = self.dev.create_queue(kind, ring_bytes)?;
        let read_ptrs = q.read_ptrs().collect();
        Ok(HwQueue::new(q.id, q.kind, q.ring.va, q.ring_bytes, q.pointers.va, read_ptrs, q.write_ptr, q))
    }

    fn destroy_queue(&self, q: HwQueue) -> Result<()> {
        let q = q.into_backing::<KfdQueue>().map_err(|_| foreign("a queue"))?;
        Ok(self.dev.destroy_queue(q)?)
    }

    fn hdp(&self) -> Option<HdpFlush> {
        self.hdp
    }

    fn wake(&self) -> Option<Wake> {
        Some(self.wake)
    }

    /// WAIT_EVENTS on the queue, memory-fault and hardware-exception events.
    fn sleep(&self, d: Duration) -> std::result::Result<(), Stopped> {
        let ms = d.as_millis().clamp(1, MAX_SLEEP_MS) as u32;
        let stop = |why: String, engine_reset| Err(Stopped { why, engine_reset });
        let out = match self.dev.kfd().wait_events(&self.events, ms) {
            Ok(out) => out,
            Err(e) => return stop(format!("waiting on KFD events: {e}"), false),
        };
        match (out.memory_fault, out.hw_exception) {
            (Some(f), _) => stop(f.to_string(), false),
            (_, Some(h)) => stop(h.to_string(), true),
            _ => Ok(()),
        }
    }

    fn queue_exception(&self, id: u32) -> Option<String> {
        self.dev.queue_exception(id).map(|e| e.to_string())
    }

    /// KFD reset the engine and evicted the queues itself: destroying and creating them again
    /// is all there is to do.
    fn recover(&self) -> Result<bool> {
        Ok(true)
    }

    /// Destroy the events, so that an emulated KFD (or a long-lived process sharing /dev/kfd)
    /// sees a clean state; the kernel would also reclaim them when the file closes.
    fn close(&mut self) {
        for e in self.events.drain(..) {
            let _ = self.dev.destroy_event(e);
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
