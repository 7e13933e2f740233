//! A BAR mapped whole into this process (a sysfs `resourceN` file or a VFIO region), with the
//! register and copy accesses of [`super::PciDevice`] checked against its size: an offset past the
//! BAR is an error naming the device and BAR, never a stray access.

use crate::os::{Fd, MapFlags, Os, Prot};
use crate::{Error, Result};
use std::sync::Arc;

/// One mapped BAR. Unmapped when dropped.
pub struct BarMapping {
    os: Arc<dyn Os>,
    /// What errors name: `0000:03:00.0 BAR5`.
    label: String,
    addr: usize,
    len: usize,
}

impl std::fmt::Debug for BarMapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:#x} bytes at {:#x})", self.label, self.len, self.addr)
    }
}

impl BarMapping {
    /// Map `len` bytes of `fd` from `offset`, shared (the device's memory, not a copy).
    pub fn map(os: Arc<dyn Os>, label: String, fd: Fd, offset: u64, len: u64) -> Result<Self> {
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l > 0)
            .ok_or_else(|| Error::Unsupported(format!("{label}: cannot map {len:#x} bytes")))?;
        let addr = os.mmap(0, len, Prot::READ | Prot::WRITE, MapFlags::SHARED, Some(fd), offset)?;
        Ok(BarMapping { os, label, addr, len })
    }

    pub fn ptr(&self) -> *mut u8 {
        self.addr as *mut u8
    }

    /// The address of `width` bytes at `offset`, after checking that they lie inside the BAR and,
    /// for register accesses, that they are naturally aligned (PCIe has no unaligned dword).
    fn at(&self, offset: u64, width: usize, aligned: bool) -> Result<usize> {
        let end = offset.checked_add(width as u64);
        if end.is_none_or(|e| e > self.len as u64) {
            return Err(out_of_range(&self.label, offset, width, self.len as u64));
        }
        if aligned && !offset.is_multiple_of(width as u64) {
            return Err(Error::io(
                &self.label,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("offset {offset:#x} is not aligned for a {width}-byte access"),
                ),
            ));
        }
        Ok(self.addr + offset as usize)
    }

    pub fn read32(&self, offset: u64) -> Result<u32> {
        let a = self.at(offset, 4, true)?;
        // SAFETY: `at` proved [a, a+4) lies inside this live mapping and is 4-aligned (the
        // mapping is page-aligned). Volatile: a register read has side effects.
        Ok(unsafe { std::ptr::read_volatile(a as *const u32) })
    }

    pub fn write32(&self, offset: u64, value: u32) -> Result<()> {
        let a = self.at(offset, 4, true)?;
        // SAFETY: as in read32; the mapping is writable (PROT_WRITE).
        unsafe { std::ptr::write_volatile(a as *mut u32, value) };
        Ok(())
    }

    pub fn read64(&self, offset: u64) -> Result<u64> {
        let a = self.at(offset, 8, true)?;
        // SAFETY: `at` proved [a, a+8) lies inside the live mapping and is 8-aligned.
        Ok(unsafe { std::ptr::read_volatile(a as *const u64) })
    }

    pub fn write64(&self, offset: u64, value: u64) -> Result<()> {
        let a = self.at(offset, 8, true)?;
        // SAFETY: as in read64; the mapping is writable.
        unsafe { std::ptr::write_volatile(a as *mut u64, value) };
        Ok(())
    }

    /// Copy out in dwords where aligned and bytes at the edges: device memory takes no wider or
    /// unaligned access that a plain memcpy might make.
    pub fn copy_from(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let base = self.at(offset, buf.len(), false)?;
        let mut i = 0;
        while i < buf.len() {
            let a = base + i;
            if a % 4 == 0 && buf.len() - i >= 4 {
                // SAFETY: [a, a+4) is inside the checked range and 4-aligned.
                let v = unsafe { std::ptr::read_volatile(a as *const u32) };
                buf[i..i + 4].copy_from_slice(&v.to_ne_bytes());
                i += 4;
            } else {
                // SAFETY: a is inside the checked range.
                buf[i] = unsafe { std::ptr::read_volatile(a as *const u8) };
                i += 1;
            }
        }
        Ok(())
    }

    pub fn copy_to(&self, offset: u64, data: &[u8]) -> Result<()> {
        let base = self.at(offset, data.len(), false)?;
        let mut i = 0;
        while i < data.len() {
            let a = base + i;
            if a % 4 == 0 && data.len() - i >= 4 {
                let v = u32::from_ne_bytes(data[i..i + 4].try_into().expect("four bytes"));
                // SAFETY: [a, a+4) is inside the checked, writable range and 4-aligned.
                unsafe { std::ptr::write_volatile(a as *mut u32, v) };
                i += 4;
            } else {
                // SAFETY: a is inside the checked, writable range.
                unsafe { std::ptr::write_volatile(a as *mut u8, data[i]) };
                i += 1;
            }
        }
        Ok(())
    }
}

/// The error of an access past the end of a BAR (or of config space).
pub fn out_of_range(label: &str, offset: u64, width: usize, size: u64) -> Error {
    Error::io(
        label,
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{width} bytes at offset {offset:#x} reach past its {size:#x} bytes"),
        ),
    )
}

impl Drop for BarMapping {
    fn drop(&mut self) {
        if let Err(e) = self.os.munmap(self.addr, self.len) {
            log::warn!("{}: {e}", self.label);
        }
    }
}

// SAFETY: the mapping is device memory shared by design; every access through it is a volatile
// access of its own, and the Os handle is Send + Sync.
unsafe impl Send for BarMapping {}
// SAFETY: as above: no access keeps a reference into the mapping across calls.
unsafe impl Sync for BarMapping {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::{HostOs, OpenFlags};
    use std::path::Path;

    fn mapped(len: u64) -> (tempfile::TempDir, BarMapping) {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(dir.path().join("resource5")).unwrap();
        f.set_len(len).unwrap();
        let os: Arc<dyn Os> = Arc::new(HostOs::with_root(dir.path()));
        let fd = os.open(Path::new("/resource5"), OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC).unwrap();
        let bar = BarMapping::map(os.clone(), "0000:03:00.0 BAR5".into(), fd, 0, len).unwrap();
        os.close(fd).unwrap();
        (dir, bar)
    }

    #[test]
    fn registers_and_copies_reach_the_file_behind_the_mapping() {
        let (dir, bar) = mapped(0x2000);
        bar.write32(0x10, 0xdead_beef).unwrap();
        bar.write64(0x1ff8, 0x0123_4567_89ab_cdef).unwrap();
        assert_eq!(bar.read32(0x10).unwrap(), 0xdead_beef);
        assert_eq!(bar.read64(0x1ff8).unwrap(), 0x0123_4567_89ab_cdef);
        // An unaligned copy: bytes at the edges, dwords between.
        let data: Vec<u8> = (1..=11).collect();
        bar.copy_to(0x101, &data).unwrap();
        let mut back = [0u8; 11];
        bar.copy_from(0x101, &mut back).unwrap();
        assert_eq!(back.to_vec(), data);
        drop(bar);
        let file = std::fs::read(dir.path().join("resource5")).unwrap();
        assert_eq!(file[0x10..0x14], 0xdead_beefu32.to_le_bytes());
        assert_eq!(file[0x101..0x10c], data[..]);
    }

    #[test]
    fn offsets_past_the_bar_and_unaligned_registers_are_errors() {
        let (_dir, bar) = mapped(0x1000);
        let past = bar.read32(0x1000).unwrap_err().to_string();
        assert!(past.starts_with("0000:03:00.0 BAR5: 4 bytes at offset 0x1000 reach past its 0x1000 bytes"), "{past}");
        assert!(bar.write64(0xffc, 1).is_err(), "straddles the end");
        assert!(bar.read64(u64::MAX - 3).is_err(), "no overflow on the end");
        assert!(bar.copy_to(0xff0, &[0; 17]).is_err());
        let mut buf = [0u8; 16];
        assert!(bar.copy_from(0xff0, &mut buf).is_ok(), "exactly up to the end is fine");
        assert!(bar.read32(0x2).unwrap_err().to_string().contains("not aligned"));
    }
}
