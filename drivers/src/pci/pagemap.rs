//! DMA memory for a device driven from userspace: anonymous shared memory, faulted in and locked
//! so that its pages stay where they are, with the bus address of every page. Without an IOMMU
//! (sysfs, VFIO no-IOMMU) the bus address is the physical one, from /proc/self/pagemap; with
//! one, VFIO maps the pages at addresses it chooses and hands them in.

use super::{DmaMemory, DMA_PAGE};
use crate::os::{MapFlags, OpenFlags, Os, Prot};
use crate::{Error, Result};
use std::path::Path;
use std::sync::Arc;

pub const PAGEMAP: &str = "/proc/self/pagemap";

/// The default huge page (x86-64, arm64 with 4 KiB pages): the most a contiguous allocation can be.
pub const HUGE_PAGE: u64 = 2 << 20;

/// pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst).
const PM_PRESENT: u64 = 1 << 63;
const PM_PFN_MASK: u64 = (1 << 55) - 1;

/// Anonymous memory mapped shared, populated and locked: the CPU side of every DMA buffer.
pub struct Pinned {
    os: Arc<dyn Os>,
    addr: usize,
    len: usize,
}

impl std::fmt::Debug for Pinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pinned {:#x} bytes at {:#x}", self.len, self.addr)
    }
}

impl Pinned {
    /// `size` bytes (a multiple of [`DMA_PAGE`]); in one huge page when `contiguous` and larger
    /// than a page, as only a huge page is physically contiguous by construction.
    pub fn alloc(os: Arc<dyn Os>, size: u64, contiguous: bool) -> Result<Self> {
        if size == 0 || !size.is_multiple_of(DMA_PAGE) {
            return Err(Error::Unsupported(format!("DMA memory of {size:#x} bytes: not a positive multiple of 4 KiB")));
        }
        let huge = contiguous && size > DMA_PAGE;
        if huge && size > HUGE_PAGE {
            return Err(Error::Unsupported(format!(
                "contiguous DMA memory of {size:#x} bytes: at most one 2 MiB huge page can be promised"
            )));
        }
        let len = if huge { HUGE_PAGE } else { size } as usize;
        let mut flags = MapFlags::SHARED | MapFlags::ANONYMOUS | MapFlags::POPULATE | MapFlags::LOCKED;
        if huge {
            flags |= MapFlags::HUGETLB;
        }
        let addr = os.mmap(0, len, Prot::READ | Prot::WRITE, flags, None, 0).map_err(|e| explain_map_error(e, huge))?;
        Ok(Pinned { os, addr, len })
    }

    pub fn addr(&self) -> usize {
        self.addr
    }

    pub fn len(&self) -> u64 {
        self.len as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Err(e) = self.os.munmap(self.addr, self.len) {
            log::warn!("DMA memory: {e}");
        }
    }
}

/// Say what an mmap of pinned memory lacked.
fn explain_map_error(e: Error, huge: bool) -> Error {
    let why = match e.errno() {
        Some(libc::ENOMEM) if huge => {
            "no free 2 MiB huge page for contiguous DMA memory; reserve some as root: echo 16 > /proc/sys/vm/nr_hugepages"
        }
        Some(libc::EAGAIN | libc::ENOMEM | libc::EPERM) => {
            "locked DMA memory exceeds `ulimit -l`; run as root or with CAP_IPC_LOCK, or raise the memlock limit"
        }
        _ => return e,
    };
    Error::Unsupported(format!("{e}: {why}"))
}

/// The physical address of each [`DMA_PAGE`] of `[addr, addr+len)` from /proc/self/pagemap (read
/// through `os`). The pages must be resident (populated and locked).
pub fn physical_pages(os: &dyn Os, addr: usize, len: usize) -> Result<Vec<u64>> {
    let path = Path::new(PAGEMAP);
    let pages = len.div_ceil(DMA_PAGE as usize);
    let first = (addr / DMA_PAGE as usize) as u64;
    let fd = os.open(path, OpenFlags::READ | OpenFlags::CLOEXEC)?;
    let mut raw = vec![0u8; pages * 8];
    let read = os.pread(fd, &mut raw, first * 8);
    os.close(fd)?;
    if read? != raw.len() {
        return Err(Error::malformed(path, format!("short read of the entries of {pages} pages at {addr:#x}")));
    }
    raw.chunks_exact(8)
        .enumerate()
        .map(|(i, e)| {
            let entry = u64::from_le_bytes(e.try_into().expect("8 bytes"));
            let va = addr + i * DMA_PAGE as usize;
            if entry & PM_PRESENT == 0 {
                return Err(Error::malformed(path, format!("page at {va:#x} is not resident")));
            }
            match entry & PM_PFN_MASK {
                // The kernel hides PFNs from processes without CAP_SYS_ADMIN.
                0 => Err(Error::Unsupported(format!(
                    "{PAGEMAP} shows no physical addresses (page frame 0): DMA without an IOMMU needs CAP_SYS_ADMIN; {}",
                    super::scan::PRIVILEGES
                ))),
                pfn => Ok(pfn * DMA_PAGE),
            }
        })
        .collect()
}

/// Pinned memory with the bus address of each page, and what to undo before it is unmapped (a
/// VFIO IOMMU mapping).
pub struct DmaBuffer {
    /// Undone before `pinned` is unmapped: the device must lose access first.
    release: Option<Box<dyn FnOnce() + Send + Sync>>,
    pinned: Pinned,
    bus: Vec<u64>,
}

impl std::fmt::Debug for DmaBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DMA {:?}, bus {:#x}..", self.pinned, self.bus.first().copied().unwrap_or(0))
    }
}

impl DmaBuffer {
    /// `size` bytes with their physical addresses (no IOMMU: sysfs and VFIO no-IOMMU mode).
    pub fn physical(os: Arc<dyn Os>, size: u64, contiguous: bool) -> Result<Self> {
        let pinned = Pinned::alloc(os.clone(), size, contiguous)?;
        let mut bus = physical_pages(&*os, pinned.addr, size as usize)?;
        if contiguous && bus.windows(2).any(|w| w[1] != w[0] + DMA_PAGE) {
            return Err(Error::Protocol(format!("contiguous DMA memory of {size:#x} bytes came back in pieces")));
        }
        bus.truncate((size / DMA_PAGE) as usize);
        Ok(DmaBuffer { release: None, pinned, bus })
    }

    /// Pinned memory whose bus addresses another mechanism assigned (an IOMMU mapping), undone
    /// by `release` before the memory is unmapped.
    pub fn mapped(pinned: Pinned, bus: Vec<u64>, release: Box<dyn FnOnce() + Send + Sync>) -> Self {
        DmaBuffer { release: Some(release), pinned, bus }
    }

    fn check(&self, offset: u64, len: usize) -> Result<*mut u8> {
        match offset.checked_add(len as u64) {
            Some(end) if end <= self.size() => Ok((self.pinned.addr + offset as usize) as *mut u8),
            _ => Err(super::bar_map::out_of_range("DMA memory", offset, len, self.size())),
        }
    }
}

impl Drop for DmaBuffer {
    fn drop(&mut self) {
        if let Some(release) = self.release.take() {
            release();
        }
    }
}

impl DmaMemory for DmaBuffer {
    fn size(&self) -> u64 {
        self.bus.len() as u64 * DMA_PAGE
    }

    fn bus_pages(&self) -> &[u64] {
        &self.bus
    }

    fn cpu_ptr(&self) -> Option<*mut u8> {
        Some(self.pinned.addr as *mut u8)
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let p = self.check(offset, buf.len())?;
        for (i, b) in buf.iter_mut().enumerate() {
            // SAFETY: `check` proved [p, p+len) lies in the live mapping; volatile because the
            // device may write the memory concurrently.
            *b = unsafe { std::ptr::read_volatile(p.add(i)) };
        }
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        let p = self.check(offset, data.len())?;
        for (i, &b) in data.iter().enumerate() {
            // SAFETY: as in read; the mapping is writable.
            unsafe { std::ptr::write_volatile(p.add(i), b) };
        }
        Ok(())
    }
}

// SAFETY: the memory is shared with a device by design; every access through this type is a
// volatile access of its own, and the Os handle is Send + Sync.
unsafe impl Send for Pinned {}
// SAFETY: as above.
unsafe impl Sync for Pinned {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::HostOs;

    /// A fake /proc/self/pagemap under `root` with `entries` from virtual page `first` on.
    fn fake_pagemap(root: &Path, first: u64, entries: &[u64]) {
        std::fs::create_dir_all(root.join("proc/self")).unwrap();
        let mut bytes = vec![0u8; (first as usize + entries.len()) * 8];
        for (i, e) in entries.iter().enumerate() {
            bytes[(first as usize + i) * 8..][..8].copy_from_slice(&e.to_le_bytes());
        }
        std::fs::write(root.join("proc/self/pagemap"), bytes).unwrap();
    }

    #[test]
    fn bus_addresses_are_the_page_frames_of_pagemap() {
        let dir = tempfile::tempdir().unwrap();
        // Bits 55-62 (soft-dirty, exclusive, file) are not part of the frame number.
        fake_pagemap(dir.path(), 0x100, &[PM_PRESENT | 1 << 61 | 1 << 55 | 0x12345, PM_PRESENT | 0x7]);
        let os = HostOs::with_root(dir.path());
        assert_eq!(physical_pages(&os, 0x10_0000, 0x2000).unwrap(), vec![0x1234_5000, 0x7000]);
    }

    #[test]
    fn hidden_frames_and_absent_pages_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        fake_pagemap(dir.path(), 0x100, &[PM_PRESENT, 0x55]);
        let os = HostOs::with_root(dir.path());
        let hidden = physical_pages(&os, 0x10_0000, 0x1000).unwrap_err().to_string();
        assert!(hidden.contains("needs CAP_SYS_ADMIN") && hidden.contains("run as root"), "{hidden}");
        let absent = physical_pages(&os, 0x10_1000, 0x1000).unwrap_err().to_string();
        assert!(absent.contains("page at 0x101000 is not resident"), "{absent}");
        let short = physical_pages(&os, 0x10_1000, 0x2000).unwrap_err().to_string();
        assert!(short.contains("short read"), "{short}");
    }

    #[test]
    fn sizes_are_checked_before_anything_is_mapped() {
        let os: Arc<dyn Os> = Arc::new(HostOs::new());
        for (size, contiguous, want) in [
            (0, false, "not a positive multiple of 4 KiB"),
            (0x1800, false, "not a positive multiple of 4 KiB"),
            (4 << 20, true, "at most one 2 MiB huge page"),
        ] {
            let err = Pinned::alloc(os.clone(), size, contiguous).unwrap_err().to_string();
            assert!(err.contains(want), "{size:#x}: {err}");
        }
    }

    #[test]
    fn pinned_memory_on_this_machine_has_frames_or_says_what_it_lacks() {
        let os: Arc<dyn Os> = Arc::new(HostOs::new());
        match DmaBuffer::physical(os, 0x3000, false) {
            Ok(dma) => {
                assert_eq!((dma.size(), dma.bus_pages().len()), (0x3000, 3));
                assert!(dma.bus_pages().iter().all(|&b| b != 0 && b % DMA_PAGE == 0), "{:x?}", dma.bus_pages());
                dma.write(0x2ffc, &[1, 2, 3, 4]).unwrap();
                let mut back = [0u8; 4];
                dma.read(0x2ffc, &mut back).unwrap();
                assert_eq!(back, [1, 2, 3, 4]);
                assert!(dma.write(0x2ffd, &[0; 4]).is_err());
            }
            // A container without CAP_SYS_ADMIN (or a memlock limit) gets the explanation.
            Err(e) => assert!(e.to_string().contains("CAP_"), "{e}"),
        }
    }
}
