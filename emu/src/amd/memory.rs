//! Memory of the emulated GPUs. Every buffer object (VRAM, GTT, the doorbell and MMIO pages) is
//! a range of one shared-memory file (a memfd), so the driver's CPU mapping (the render-node
//! mmap, placed with MAP_FIXED at the allocation's VA) and the emulator's own view of the same
//! range are the same physical pages. USERPTR allocations are the caller's memory itself.

use baregpu_drivers::os::{Fd, HostOs, MapFlags, Os, Prot};
use std::fmt;

pub const PAGE: u64 = 4096;

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

/// The backing file: ranges are handed out once and never reused, so a stale CPU mapping of a
/// freed buffer can only ever see zeroes, never another buffer.
pub(crate) struct Arena {
    fd: i32,
    next: u64,
    host: HostOs,
}

impl Arena {
    pub(crate) fn new() -> std::io::Result<Arena> {
        // SAFETY: plain system call with a static NUL-terminated name.
        let fd = unsafe { libc::memfd_create(c"baregpu-emu-vram".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Arena { fd, next: 0, host: HostOs::new() })
    }

    /// A fresh range of `size` bytes (page-aligned); the file grows to hold it.
    pub(crate) fn take(&mut self, size: u64) -> Result<u64, i32> {
        let off = self.next;
        let end = off.checked_add(size.div_ceil(PAGE) * PAGE).ok_or(libc::ENOMEM)?;
        // SAFETY: ftruncate on our own memfd.
        if unsafe { libc::ftruncate(self.fd, end as libc::off_t) } < 0 {
            return Err(libc::ENOMEM);
        }
        self.next = end;
        Ok(off)
    }

    /// Map `len` bytes at file offset `off`: anywhere, or exactly at `fixed`.
    pub(crate) fn map(&self, off: u64, len: u64, prot: Prot, fixed: Option<usize>) -> Result<usize, i32> {
        let mut flags = MapFlags::SHARED;
        if fixed.is_some() {
            flags |= MapFlags::FIXED;
        }
        self.host
            .mmap(fixed.unwrap_or(0), len as usize, prot, flags, Some(Fd(self.fd)), off)
            .map_err(|e| e.errno().unwrap_or(libc::ENOMEM))
    }

    pub(crate) fn unmap(&self, addr: usize, len: u64) {
        if let Err(e) = self.host.munmap(addr, len as usize) {
            log::warn!("emulated KFD: dropping its view at {addr:#x}: {e}");
        }
    }

    /// Give the memory of a freed range back to the host (it reads as zeroes afterwards).
    pub(crate) fn release(&self, off: u64, len: u64) {
        // SAFETY: fallocate on our own memfd.
        let r = unsafe {
            libc::fallocate(
                self.fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                off as libc::off_t,
                len as libc::off_t,
            )
        };
        if r < 0 {
            log::debug!("emulated KFD: punching {len:#x} bytes at {off:#x}: {}", std::io::Error::last_os_error());
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: we own this fd and close it once.
        unsafe { libc::close(self.fd) };
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
