//! Hardware queues through KFD: the ring, the read/write-pointer page, and for compute queues the
//! EOP buffer and the context save/restore area; then CREATE_QUEUE and the doorbell.

use super::cwsr::queue_buffer_sizes;
use super::device::KfdDevice;
use super::ioctl::kfd_call;
use super::memory::{KfdMemory, MemKind};
use crate::os::{DoorbellValue, MapFlags, Os, Prot};
use crate::{Error, Result};
use baregpu_autogen::amd::hsa::amd_queue_t;
use baregpu_autogen::amd::kfd as abi;
use std::mem::offset_of;
use std::sync::Arc;

/// Bytes of the doorbell window mapped from /dev/kfd per device.
pub const DOORBELL_PAGE: u64 = 0x2000;
/// Default queue priority (0..=15); ROCr's normal priority.
const PRIORITY: u32 = 7;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    /// A PM4 compute queue.
    Compute,
    /// An SDMA copy queue.
    Sdma,
}

/// On a node of several XCCs, a KFD compute queue of PM4 runs on one XCC (the one in bits 8..15
/// of `queue_percentage`, KFD's `pm4_target_xcc`; the MQD leaves the dispatch chunk size at 0
/// for PM4). So that every XCC executes the ring, a compute queue there is one KFD queue per
/// XCC over the same ring, write pointer, EOP and CWSR buffers, each with its own read pointer
/// and doorbell, as tinygrad's ops_amd.py drives an MI300X. This is the queue of XCC 1 and up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XccQueue {
    pub xcc: u32,
    pub id: u32,
    pub read_ptr: u64,
    pub doorbell: u64,
}

/// A live queue. Destroy it with [`KfdDevice::destroy_queue`].
pub struct KfdQueue {
    pub id: u32,
    pub kind: QueueKind,
    pub ring: KfdMemory,
    /// The ring size given to CREATE_QUEUE; the allocation itself is rounded up to pages.
    pub ring_bytes: u64,
    /// The page that holds the read and write pointers (laid out as an `amd_queue_t`).
    pub pointers: KfdMemory,
    pub eop: Option<KfdMemory>,
    pub cwsr: Option<KfdMemory>,
    /// Where the CP writes how far it has read (dwords for PM4, bytes for SDMA).
    pub read_ptr: u64,
    /// Where we publish how far we have written.
    pub write_ptr: u64,
    /// The 64-bit doorbell register, in the mapped doorbell page.
    pub doorbell: u64,
    /// The queues of the other XCCs over the same ring (none on a single-XCC node).
    pub peers: Vec<XccQueue>,
    /// The OS the doorbell is rung through (see [`KfdQueue::ring_doorbell`]).
    os: Arc<dyn Os>,
}

impl std::fmt::Debug for KfdQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KfdQueue")
            .field("id", &self.id)
            .field("kind", &self.kind)
            .field("ring", &self.ring)
            .field("ring_bytes", &self.ring_bytes)
            .field("read_ptr", &self.read_ptr)
            .field("write_ptr", &self.write_ptr)
            .field("doorbell", &self.doorbell)
            .field("peers", &self.peers)
            .finish_non_exhaustive()
    }
}

impl KfdQueue {
    /// Ring the queue's doorbell with `write_ptr` (the value just published at `write_ptr`):
    /// the engine wakes and reads the ring up to it. Call it after the write pointer's store
    /// and a fence.
    pub fn ring_doorbell(&self, write_ptr: u64) {
        for bell in std::iter::once(self.doorbell).chain(self.peers.iter().map(|p| p.doorbell)) {
            // SAFETY: every doorbell is an 8-byte aligned register of the doorbell window mapped
            // from this queue's /dev/kfd (through `os`), which stays mapped while the device
            // lives, and the device outlives its queues.
            unsafe { self.os.ring_doorbell(bell as usize, DoorbellValue::U64(write_ptr)) }
        }
    }

    /// Where each XCC's CP reports how far it read (one address on a single-XCC node).
    pub fn read_ptrs(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::once(self.read_ptr).chain(self.peers.iter().map(|p| p.read_ptr))
    }

    /// How many XCCs execute the ring.
    pub fn xccs(&self) -> u32 {
        1 + self.peers.len() as u32
    }
}

/// The device's mapping of its doorbell window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DoorbellPage {
    /// The mmap offset of the window on /dev/kfd.
    pub offset: u64,
    /// Where it is mapped.
    pub addr: u64,
}

impl KfdDevice {
    /// Create a queue of `kind` with a ring of `ring_bytes` (a power of two ≥ 1 KiB).
    pub fn create_queue(&self, kind: QueueKind, ring_bytes: u64) -> Result<KfdQueue> {
        if !ring_bytes.is_power_of_two()
            || ring_bytes < abi::KFD_MIN_QUEUE_RING_SIZE as u64
            || ring_bytes > u32::MAX as u64
        {
            return Err(Error::Protocol(format!(
                "{}: ring of {ring_bytes:#x} bytes: must be a power of two from 1 KiB to 2 GiB",
                self.name()
            )));
        }
        let mut held: Vec<KfdMemory> = Vec::new();
        let result = self.create_queue_inner(kind, ring_bytes, &mut held);
        if result.is_err() {
            for m in held {
                if let Err(e) = self.free(m) {
                    log::warn!("{}: freeing after a failed CREATE_QUEUE: {e}", self.name());
                }
            }
        }
        result
    }

    fn create_queue_inner(&self, kind: QueueKind, ring_bytes: u64, held: &mut Vec<KfdMemory>) -> Result<KfdQueue> {
        let mut a = abi::kfd_ioctl_create_queue_args {
            ring_size: ring_bytes as u32,
            gpu_id: self.gpu.gpu_id,
            queue_percentage: abi::KFD_MAX_QUEUE_PERCENTAGE,
            queue_priority: PRIORITY,
            ..Default::default()
        };
        let ring = self.alloc_internal(ring_bytes, MemKind::Uncached)?;
        a.ring_base_address = ring.va;
        held.push(ring);
        let pointers = self.alloc_internal(0x1000, MemKind::Uncached)?;
        a.read_pointer_address = pointers.va + offset_of!(amd_queue_t, read_dispatch_id) as u64;
        a.write_pointer_address = pointers.va + offset_of!(amd_queue_t, write_dispatch_id) as u64;
        held.push(pointers);
        match kind {
            QueueKind::Sdma => a.queue_type = abi::KFD_IOC_QUEUE_TYPE_SDMA,
            QueueKind::Compute => {
                a.queue_type = abi::KFD_IOC_QUEUE_TYPE_COMPUTE;
                let sizes = queue_buffer_sizes(&self.props).ok_or_else(|| {
                    Error::Protocol(format!("{}: topology lacks what CWSR sizing needs", self.name()))
                })?;
                let eop = self.alloc_internal(sizes.eop, MemKind::Vram { cpu_visible: false })?;
                a.eop_buffer_address = eop.va;
                a.eop_buffer_size = sizes.eop;
                held.push(eop);
                let cwsr = self.alloc_internal(sizes.cwsr_alloc, MemKind::Vram { cpu_visible: false })?;
                a.ctx_save_restore_address = cwsr.va;
                a.ctx_save_restore_size = sizes.ctx_save_restore as u32;
                a.ctl_stack_size = sizes.ctl_stack as u32;
                held.push(cwsr);
            }
        }
        let xccs = if kind == QueueKind::Compute { self.gpu.num_xcc.max(1) } else { 1 };
        let mut made: Vec<XccQueue> = Vec::new();
        for xcc in 0..xccs {
            let made_one = self.create_xcc_queue(&mut a, xcc);
            match made_one {
                Ok(q) => made.push(q),
                Err(e) => {
                    for q in made {
                        let mut d = abi::kfd_ioctl_destroy_queue_args { queue_id: q.id, pad: 0 };
                        let _ = kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_DESTROY_QUEUE, &mut d);
                    }
                    return Err(e);
                }
            }
        }
        let first = made.remove(0);
        let mut it = std::mem::take(held).into_iter();
        let (ring, pointers) = (it.next().expect("ring"), it.next().expect("pointers"));
        let (eop, cwsr) = (it.next(), it.next());
        log::debug!("{}: {kind:?} queue {} with a {ring_bytes:#x}-byte ring on {xccs} XCCs", self.name(), first.id);
        Ok(KfdQueue {
            id: first.id,
            kind,
            ring_bytes,
            read_ptr: first.read_ptr,
            write_ptr: a.write_pointer_address,
            doorbell: first.doorbell,
            peers: made,
            os: self.kfd.os.clone(),
            ring,
            pointers,
            eop,
            cwsr,
        })
    }

    /// CREATE_QUEUE for XCC `xcc` of the ring `a` describes: its own read pointer (8 bytes
    /// apart in the pointer page) and `pm4_target_xcc`.
    fn create_xcc_queue(&self, a: &mut abi::kfd_ioctl_create_queue_args, xcc: u32) -> Result<XccQueue> {
        let base = a.read_pointer_address - 8 * (a.queue_percentage >> 8) as u64;
        a.read_pointer_address = base + 8 * xcc as u64;
        a.queue_percentage = abi::KFD_MAX_QUEUE_PERCENTAGE | xcc << 8;
        kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_CREATE_QUEUE, a)?;
        match self.doorbell_page(a.doorbell_offset) {
            Ok(page) => Ok(XccQueue {
                xcc,
                id: a.queue_id,
                read_ptr: a.read_pointer_address,
                doorbell: page.addr + (a.doorbell_offset - page.offset),
            }),
            Err(e) => {
                let mut d = abi::kfd_ioctl_destroy_queue_args { queue_id: a.queue_id, pad: 0 };
                let _ = kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_DESTROY_QUEUE, &mut d);
                Err(e)
            }
        }
    }

    /// Map the doorbell window that holds `doorbell_offset` (once per device).
    fn doorbell_page(&self, doorbell_offset: u64) -> Result<DoorbellPage> {
        let mut page = self.doorbells.lock().unwrap_or_else(|e| e.into_inner());
        let offset = doorbell_offset & !(DOORBELL_PAGE - 1);
        if let Some(p) = *page {
            if p.offset != offset {
                return Err(Error::Protocol(format!(
                    "{}: doorbell offset {doorbell_offset:#x} outside the mapped window at {:#x}",
                    self.name(),
                    p.offset
                )));
            }
            return Ok(p);
        }
        let addr = self.os().mmap(
            0,
            DOORBELL_PAGE as usize,
            Prot::READ | Prot::WRITE,
            MapFlags::SHARED,
            Some(self.kfd.fd),
            offset,
        )? as u64;
        let p = DoorbellPage { offset, addr };
        *page = Some(p);
        Ok(p)
    }

    /// Destroy the queue, then free its buffers.
    pub fn destroy_queue(&self, q: KfdQueue) -> Result<()> {
        // If a queue could not be destroyed its CP may still use the buffers: leaking them is
        // the safe choice.
        for id in q.peers.iter().map(|p| p.id).chain([q.id]) {
            let mut d = abi::kfd_ioctl_destroy_queue_args { queue_id: id, pad: 0 };
            kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_DESTROY_QUEUE, &mut d)?;
        }
        let mut first_err = Ok(());
        for m in [Some(q.ring), Some(q.pointers), q.eop, q.cwsr].into_iter().flatten() {
            if let Err(e) = self.free(m) {
                if first_err.is_ok() {
                    first_err = Err(e);
                }
            }
        }
        first_err
    }
}
