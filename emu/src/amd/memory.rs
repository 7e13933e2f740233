//! Memory of the emulated AMD GPUs. Every buffer object (VRAM, GTT, the doorbell and MMIO pages)
//! is a range of the machine's arena (`emu::os::arena`), so the driver's CPU mapping (the
//! render-node mmap, placed with MAP_FIXED at the allocation's VA) and the emulator's own view of
//! the same range are the same physical pages. USERPTR allocations are the caller's memory itself.

pub(crate) use crate::os::arena::Arena;
pub use crate::os::arena::PAGE;
use std::fmt;

/// Where amdgpu starts its fake mmap offsets for buffer objects (DRM_FILE_PAGE_OFFSET_START).
pub const DRM_MMAP_BASE: u64 = 0x1_0000_0000;

/// The memory domain of an allocation, as ALLOC_MEMORY_OF_GPU's flags chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemDomain {
    Vram,
    Gtt,
    Userptr,
    /// The process's doorbell page of a GPU, mapped into its VM.
    Doorbell,
    /// The HDP flush page.
    MmioRemap,
}

/// One live allocation (buffer object) of the emulated KFD.
#[derive(Clone, PartialEq, Eq)]
pub struct Allocation {
    pub handle: u64,
    /// The GPU whose memory it is (the `gpu_id` of ALLOC_MEMORY_OF_GPU).
    pub gpu_id: u32,
    /// GPU virtual address and size (page-aligned).
    pub va: u64,
    pub size: u64,
    pub domain: MemDomain,
    /// The ALLOC_MEMORY_OF_GPU flags.
    pub flags: u32,
    /// Where the emulator reaches the bytes in this process: its own view of the backing
    /// memory (or the caller's memory for USERPTR). Access it with volatile or atomic
    /// operations only: the driver and the GPU share it.
    pub host_addr: usize,
    /// The mmap offset ALLOC returned (a render-node cookie, or the USERPTR address).
    pub mmap_offset: u64,
    /// GPUs whose VM maps it.
    pub mapped_on: Vec<u32>,
    /// Queues that use it as a ring, pointer page, EOP or CWSR buffer.
    pub queue_refs: u32,
    /// Its range in the backing file (not for USERPTR).
    pub(crate) backing: Option<u64>,
    /// Whether the emulator's view is a mapping it must drop (not the caller's memory, not a
    /// shared page it does not own).
    pub(crate) owns_view: bool,
}

impl fmt::Debug for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Allocation")
            .field("handle", &format_args!("{:#x}", self.handle))
            .field("gpu_id", &self.gpu_id)
            .field("va", &format_args!("{:#x}", self.va))
            .field("size", &format_args!("{:#x}", self.size))
            .field("domain", &self.domain)
            .field("host_addr", &format_args!("{:#x}", self.host_addr))
            .field("mapped_on", &self.mapped_on)
            .field("queue_refs", &self.queue_refs)
            .finish()
    }
}

impl Allocation {
    pub fn end(&self) -> u64 {
        self.va + self.size
    }

    pub fn contains(&self, va: u64) -> bool {
        va >= self.va && va < self.end()
    }

    /// Whether `va..va+len` lies inside it.
    pub fn contains_range(&self, va: u64, len: u64) -> bool {
        va >= self.va && va.checked_add(len).is_some_and(|e| e <= self.end())
    }

    /// The emulator's address of GPU address `va`, if it is inside.
    pub fn host_ptr(&self, va: u64) -> Option<*mut u8> {
        self.contains(va).then(|| (self.host_addr + (va - self.va) as usize) as *mut u8)
    }

    pub fn is_mapped_on(&self, gpu_id: u32) -> bool {
        self.mapped_on.contains(&gpu_id)
    }
}

/// Access to host memory the GPU shares (rings, pointers, doorbells, signals): volatile 64-bit
/// reads and writes at an emulator address from an [`Allocation`] or a queue.
///
/// # Safety
/// `addr` must be a live, 8-byte aligned address of emulated memory.
pub unsafe fn read_u64(addr: usize) -> u64 {
    // SAFETY: the caller's contract.
    unsafe { (*(addr as *const std::sync::atomic::AtomicU64)).load(std::sync::atomic::Ordering::Acquire) }
}

/// # Safety
/// `addr` must be a live, 8-byte aligned address of emulated memory.
pub unsafe fn write_u64(addr: usize, v: u64) {
    // SAFETY: the caller's contract.
    unsafe { (*(addr as *const std::sync::atomic::AtomicU64)).store(v, std::sync::atomic::Ordering::Release) }
}
