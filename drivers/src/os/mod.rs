//! The OS boundary. Driver code reaches the kernel only through [`Os`], so that an emulated
//! kernel (the `emu` crate) or the [`recording`] double can stand in for the real one: the same
//! request numbers and `#[repr(C)]` argument bytes go through either.

mod host;
pub mod recording;

pub use host::HostOs;

use crate::Result;
use std::path::{Path, PathBuf};

/// An open file of the OS behind the boundary. Only meaningful to the `Os` that returned it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fd(pub i32);

bitflags::bitflags! {
    /// How a file is opened.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct OpenFlags: u32 {
        const READ = 1 << 0;
        const WRITE = 1 << 1;
        /// Close on exec: driver files never leak into child processes.
        const CLOEXEC = 1 << 2;
    }

    /// Page protection of a mapping. Empty is PROT_NONE (a reservation).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Prot: u32 {
        const READ = 1 << 0;
        const WRITE = 1 << 1;
        const EXEC = 1 << 2;
    }

    /// Kind of a mapping.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct MapFlags: u32 {
        const SHARED = 1 << 0;
        const PRIVATE = 1 << 1;
        /// Place it exactly at the given address, replacing what was there (a reservation).
        const FIXED = 1 << 2;
        const ANONYMOUS = 1 << 3;
        /// Do not commit swap for it: large address-space reservations.
        const NORESERVE = 1 << 4;
        /// Fault every page in now (DMA memory must have its pages before the bus addresses
        /// are looked up).
        const POPULATE = 1 << 5;
        /// Keep the pages resident (DMA memory: a page the kernel swaps out or migrates would
        /// leave the device writing to someone else's memory).
        const LOCKED = 1 << 6;
        /// Back it with huge pages of the default size (physically contiguous DMA memory).
        const HUGETLB = 1 << 7;
    }
}

/// The kernel as driver code sees it.
pub trait Os: Send + Sync {
    /// Whole contents of a (small, text) file such as a sysfs attribute.
    fn read_to_string(&self, path: &Path) -> Result<String>;
    /// Names of the entries of a directory, sorted, without `.` and `..`.
    fn read_dir(&self, path: &Path) -> Result<Vec<String>>;
    /// Whether a path exists (a device node, a sysfs directory).
    fn exists(&self, path: &Path) -> bool;

    /// Open a device node (/dev/kfd, a render node, /dev/nvidiactl).
    fn open(&self, path: &Path, flags: OpenFlags) -> Result<Fd>;
    fn close(&self, fd: Fd) -> Result<()>;
    /// Issue `request` with `arg` as the argument struct's bytes, which the kernel may rewrite.
    /// Returns the ioctl's non-negative result.
    fn ioctl(&self, fd: Fd, request: u32, arg: &mut [u8]) -> Result<i32>;
    /// Map `len` bytes. `addr` is a hint, or the exact place with [`MapFlags::FIXED`]; `fd` is
    /// `None` for anonymous memory. Returns the address of the mapping.
    fn mmap(&self, addr: usize, len: usize, prot: Prot, flags: MapFlags, fd: Option<Fd>, offset: u64) -> Result<usize>;
    fn munmap(&self, addr: usize, len: usize) -> Result<()>;
    /// A new eventfd with the given initial count (interrupt delivery for VFIO and emulators).
    fn eventfd(&self, initial: u32) -> Result<Fd>;

    /// poll(2) of one file for input (POLLIN or POLLPRI), for at most `timeout`: whether it
    /// became ready. How the host sleeps on an RM event file.
    fn poll_in(&self, fd: Fd, timeout: std::time::Duration) -> Result<bool> {
        let _ = (fd, timeout);
        Err(crate::Error::Unsupported("poll(2) is not available through this OS".into()))
    }

    /// Write `data` to an existing file in one write(2): a sysfs attribute such as a PCI
    /// device's `enable`, `resource0_resize` or a driver's `unbind`.
    fn write_file(&self, path: &Path, data: &str) -> Result<()> {
        let _ = data;
        Err(unsupported("writing files", path))
    }

    /// The target of a symbolic link (a sysfs device's `driver` or `iommu_group`).
    fn read_link(&self, path: &Path) -> Result<PathBuf> {
        Err(unsupported("reading links", path))
    }

    /// pread(2): read up to `buf.len()` bytes at `offset` of an open file (PCI config space, a
    /// VFIO region, /proc/self/pagemap). Returns how many were read; fewer at the end of the file.
    fn pread(&self, fd: Fd, buf: &mut [u8], offset: u64) -> Result<usize> {
        let _ = (fd, buf, offset);
        Err(crate::Error::Unsupported("pread(2) is not available through this OS".into()))
    }

    /// pwrite(2): write `data` at `offset` of an open file. Returns how many bytes were written.
    fn pwrite(&self, fd: Fd, data: &[u8], offset: u64) -> Result<usize> {
        let _ = (fd, data, offset);
        Err(crate::Error::Unsupported("pwrite(2) is not available through this OS".into()))
    }

    /// Read (and so reset) an eventfd's count; call it after [`Os::poll_in`] said it is ready.
    fn read_eventfd(&self, fd: Fd) -> Result<u64> {
        let _ = fd;
        Err(crate::Error::Unsupported("reading an eventfd is not available through this OS".into()))
    }

    /// Take an exclusive advisory lock (flock) on `path`, creating the file if needed, without
    /// waiting: `Ok(Some(fd))` holds it until the fd is closed, `Ok(None)` when another open file
    /// holds it (another process driving the same device).
    fn try_lock(&self, path: &Path) -> Result<Option<Fd>> {
        Err(unsupported("locking files", path))
    }

    /// An ioctl whose argument is a plain integer rather than a pointer (VFIO_SET_IOMMU,
    /// VFIO_CHECK_EXTENSION). Returns the ioctl's non-negative result.
    fn ioctl_int(&self, fd: Fd, request: u32, value: u64) -> Result<i32> {
        let _ = (fd, value);
        Err(crate::Error::Unsupported(format!(
            "ioctl {request:#010x} with an integer argument is not available through this OS"
        )))
    }

    /// An ioctl whose non-negative result is a new file descriptor (VFIO_GROUP_GET_DEVICE_FD):
    /// the new file is this OS's to track and close, named `what` in errors.
    fn ioctl_new_fd(&self, fd: Fd, request: u32, arg: &mut [u8], what: &Path) -> Result<Fd> {
        let _ = (fd, request, arg);
        Err(unsupported("ioctls that open files", what))
    }

    /// Ring a doorbell: store `value` into the doorbell register at `addr`, in a doorbell window
    /// this OS mapped. On hardware the store itself wakes the engine; an emulated device also
    /// wakes the engine thread behind the doorbell here, as it cannot see a plain store.
    ///
    /// # Safety
    /// `addr` is aligned for the value's width and lies inside a doorbell mapping returned by
    /// this OS's `mmap` that is still mapped.
    unsafe fn ring_doorbell(&self, addr: usize, value: DoorbellValue) {
        // SAFETY: the caller's contract.
        unsafe { value.store(addr) }
    }
}

fn unsupported(what: &str, path: &Path) -> crate::Error {
    crate::Error::Unsupported(format!("{}: {what} is not available through this OS", path.display()))
}

/// What a doorbell write stores: doorbell registers are 32-bit (NVIDIA's work-submit token)
/// or 64-bit (AMD's queue write pointer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoorbellValue {
    U32(u32),
    U64(u64),
}

impl DoorbellValue {
    /// The volatile store of a device register.
    ///
    /// # Safety
    /// `addr` is aligned for the width and writable.
    pub unsafe fn store(self, addr: usize) {
        // SAFETY: the caller's contract; volatile because the register is device memory.
        unsafe {
            match self {
                DoorbellValue::U32(v) => std::ptr::write_volatile(addr as *mut u32, v),
                DoorbellValue::U64(v) => std::ptr::write_volatile(addr as *mut u64, v),
            }
        }
    }
}
