//! User-mode queues of the emulated KFD: what CREATE_QUEUE accepted, with every address a
//! command processor needs, both as GPU addresses and as the emulator's host addresses.

use super::EmuKfd;

/// Bytes of a process's doorbell window per GPU (two pages of 64-bit doorbells on SOC15).
pub const DOORBELL_PROCESS_SLICE: u64 = 0x2000;
/// Queues per process, and doorbells per window.
pub const MAX_QUEUES_PER_PROCESS: u32 = 1024;
/// Distance between the two doorbell halves (KFD_QUEUE_DOORBELL_MIRROR_OFFSET).
pub const DOORBELL_MIRROR_OFFSET: u32 = 512;
/// Doorbell ids reserved for SDMA, IH and VCN (AMDGPU_*_DOORBELL64 first/last non-CP), and
/// their mirror.
pub const NON_CP_DOORBELLS: std::ops::RangeInclusive<u32> = 0x100..=0x18f;
/// First SDMA doorbell and the stride between engines (AMDGPU_VEGA20_DOORBELL_sDMA_ENGINE*).
pub const SDMA_DOORBELL_BASE: u32 = 0x100;
pub const SDMA_DOORBELL_STRIDE: u32 = 0xa;

/// mmap offset kinds of /dev/kfd (bits 62..63) and the GPU id field (bits 46..61).
pub const KFD_MMAP_TYPE_SHIFT: u32 = 62;
pub const KFD_MMAP_TYPE_DOORBELL: u64 = 3 << KFD_MMAP_TYPE_SHIFT;
pub const KFD_MMAP_TYPE_EVENTS: u64 = 2 << KFD_MMAP_TYPE_SHIFT;
pub const KFD_MMAP_TYPE_RESERVED_MEM: u64 = 1 << KFD_MMAP_TYPE_SHIFT;
pub const KFD_MMAP_TYPE_MMIO: u64 = 0;
pub const KFD_MMAP_GPU_ID_SHIFT: u32 = 46;
pub const KFD_MMAP_GPU_ID_MASK: u64 = 0xffff << KFD_MMAP_GPU_ID_SHIFT;

pub fn kfd_mmap_gpu_id(gpu_id: u32) -> u64 {
    ((gpu_id as u64) << KFD_MMAP_GPU_ID_SHIFT) & KFD_MMAP_GPU_ID_MASK
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueueKind {
    /// A PM4 compute ring; the read/write pointers count dwords.
    Compute,
    /// An AQL compute queue; the pointers count 64-byte packets.
    ComputeAql,
    /// An SDMA ring; the pointers count bytes.
    Sdma,
    /// An SDMA queue on an XGMI engine.
    SdmaXgmi,
}

impl QueueKind {
    pub fn is_sdma(self) -> bool {
        matches!(self, QueueKind::Sdma | QueueKind::SdmaXgmi)
    }
}

/// A live queue, with the GPU addresses CREATE_QUEUE gave and the emulator's host addresses of
/// the same memory. Touch the shared words with [`super::memory::read_u64`] and
/// [`super::memory::write_u64`] (or atomics) only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmuQueue {
    pub queue_id: u32,
    pub gpu_id: u32,
    pub kind: QueueKind,
    pub ring_va: u64,
    pub ring_size: u64,
    pub ring_host: usize,
    /// Where the engine publishes how far it has read.
    pub read_ptr_va: u64,
    pub read_ptr_host: usize,
    /// Where the host publishes how far it has written.
    pub write_ptr_va: u64,
    pub write_ptr_host: usize,
    pub eop_va: u64,
    pub eop_size: u64,
    pub ctx_save_restore_va: u64,
    pub ctx_save_restore_size: u32,
    pub ctl_stack_size: u32,
    /// Index of the queue's 64-bit doorbell in its GPU's doorbell window.
    pub doorbell_id: u32,
    /// The `doorbell_offset` CREATE_QUEUE returned (the /dev/kfd mmap offset of the window
    /// plus the doorbell's byte offset in it).
    pub doorbell_offset: u64,
    /// The emulator's address of the doorbell: the same memory the driver's doorbell mapping
    /// writes.
    pub doorbell_host: usize,
    pub priority: u32,
    pub percentage: u32,
    /// The XCC a PM4 queue targets (bits 8..15 of queue_percentage).
    pub pm4_target_xcc: u32,
    /// SDMA engine and queue on it (SDMA queues).
    pub sdma_engine: u32,
    pub sdma_queue: u32,
    /// Allocation handles the queue holds (ring, pointer pages, EOP, CWSR).
    pub(crate) buffers: Vec<u64>,
}

/// Told when queues come and go: where command processors start and stop. Called without the
/// emulator's lock held, after CREATE_QUEUE succeeded and before DESTROY_QUEUE returns (stop
/// using the queue's memory before returning from `queue_destroyed`, as the kernel preempts a
/// queue before it frees anything).
pub trait QueueObserver: Send + Sync {
    fn queue_created(&self, kfd: &EmuKfd, queue: &EmuQueue);
    fn queue_destroyed(&self, kfd: &EmuKfd, queue: &EmuQueue);
    /// The process wrote queue `queue_id`'s doorbell (through `Os::ring_doorbell`; called
    /// without the emulator's lock).
    fn doorbell_rung(&self, queue_id: u32) {
        let _ = queue_id;
    }
}
