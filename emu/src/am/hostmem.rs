//! Host memory standing in for the emulated GPU's VRAM and for DMA-able system memory: an
//! anonymous mapping reserved without backing (the kernel gives it pages on first touch, so
//! a 512 MiB VRAM costs what the driver writes, not 512 MiB). Accesses are bounds-checked
//! copies; words the GPU and host share go through volatile or atomic accesses.

use baregpu_drivers::os::{HostOs, MapFlags, Os, Prot};
use baregpu_drivers::{Error, Result};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// `len` bytes of lazily backed host memory, unmapped when dropped.
#[derive(Debug)]
pub(crate) struct HostMem {
    addr: usize,
    len: usize,
}

fn flags() -> MapFlags {
    MapFlags::PRIVATE | MapFlags::ANONYMOUS | MapFlags::NORESERVE
}

impl HostMem {
    pub fn new(len: u64) -> Result<HostMem> {
        let len = usize::try_from(len).map_err(|_| Error::Unsupported(format!("{len:#x} bytes of host memory")))?;
        let addr = HostOs::new().mmap(0, len.max(1), Prot::READ | Prot::WRITE, flags(), None, 0)?;
        Ok(HostMem { addr, len })
    }

    pub fn addr(&self) -> usize {
        self.addr
    }

    pub fn len(&self) -> u64 {
        self.len as u64
    }

    /// Give the pages back to the host: the range stays mapped (a stale pointer reads zeroes
    /// instead of faulting the emulator) but holds no memory.
    pub fn discard(&self) {
        let r = HostOs::new().mmap(
            self.addr,
            self.len.max(1),
            Prot::READ | Prot::WRITE,
            flags() | MapFlags::FIXED,
            None,
            0,
        );
        if let Err(e) = r {
            log::warn!("emulated PCI GPU: discarding {:#x} bytes at {:#x}: {e}", self.len, self.addr);
        }
    }

    /// The host address of `[off, off + len)`, when it lies inside.
    pub fn at(&self, off: u64, len: u64) -> Option<usize> {
        let end = off.checked_add(len)?;
        (end <= self.len as u64).then(|| self.addr + off as usize)
    }

    pub fn read(&self, off: u64, buf: &mut [u8]) -> bool {
        let Some(p) = self.at(off, buf.len() as u64) else { return false };
        // SAFETY: `at` checked that the range lies inside our live mapping; raw copy, no
        // reference into memory the GPU threads also write.
        unsafe { std::ptr::copy(p as *const u8, buf.as_mut_ptr(), buf.len()) };
        true
    }

    pub fn write(&self, off: u64, data: &[u8]) -> bool {
        let Some(p) = self.at(off, data.len() as u64) else { return false };
        // SAFETY: as read.
        unsafe { std::ptr::copy(data.as_ptr(), p as *mut u8, data.len()) };
        true
    }

    pub fn read_u32(&self, off: u64) -> Option<u32> {
        let p = self.at(off, 4)?;
        // SAFETY: inside the mapping; atomic when aligned, else an unaligned plain read.
        Some(unsafe {
            if p.is_multiple_of(4) {
                (*(p as *const AtomicU32)).load(Ordering::Acquire)
            } else {
                std::ptr::read_unaligned(p as *const u32)
            }
        })
    }

    pub fn write_u32(&self, off: u64, v: u32) -> bool {
        let Some(p) = self.at(off, 4) else { return false };
        // SAFETY: as read_u32.
        unsafe {
            if p.is_multiple_of(4) {
                (*(p as *const AtomicU32)).store(v, Ordering::Release)
            } else {
                std::ptr::write_unaligned(p as *mut u32, v)
            }
        }
        true
    }

    pub fn read_u64(&self, off: u64) -> Option<u64> {
        let p = self.at(off, 8)?;
        // SAFETY: as read_u32.
        Some(unsafe {
            if p.is_multiple_of(8) {
                (*(p as *const AtomicU64)).load(Ordering::Acquire)
            } else {
                std::ptr::read_unaligned(p as *const u64)
            }
        })
    }

    pub fn write_u64(&self, off: u64, v: u64) -> bool {
        let Some(p) = self.at(off, 8) else { return false };
        // SAFETY: as read_u32.
        unsafe {
            if p.is_multiple_of(8) {
                (*(p as *const AtomicU64)).store(v, Ordering::Release)
            } else {
                std::ptr::write_unaligned(p as *mut u64, v)
            }
        }
        true
    }
}

impl Drop for HostMem {
    fn drop(&mut self) {
        if let Err(e) = HostOs::new().munmap(self.addr, self.len.max(1)) {
            log::warn!("emulated PCI GPU: unmapping {:#x} bytes at {:#x}: {e}", self.len, self.addr);
        }
    }
}
