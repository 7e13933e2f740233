//! The VRAM manager: physical VRAM offsets handed out first-fit with alignment.
//!
//! Layout (amd.md §7.4, from tinygrad's AM): `[0, BOOT_BYTES)` is the boot region — the rings,
//! firmware staging buffers, MQDs and page-table root the boot allocates, at the same offsets
//! every boot, so a later run can find and reuse them (partial boot); the top `reserved` bytes
//! hold the IP discovery table and firmware-reserved memory (64 MiB; 384 MiB on GC 9.4/9.5) and
//! are never handed out; the rest is the general heap.

use crate::pci::{PciDevice, AMD_BAR_VRAM};
use crate::{Error, Result};
use std::collections::BTreeMap;

/// Bytes of the boot region at VRAM offset 0.
pub const BOOT_BYTES: u64 = 32 << 20;

/// VRAM reserved at the top for a GC major version (`reserved_vram` in amd.md §7.4).
pub fn reserved_top(gc_major: u8) -> u64 {
    if gc_major == 9 {
        384 << 20
    } else {
        64 << 20
    }
}

/// A first-fit allocator over `[start, end)` with coalescing frees.
#[derive(Debug, Clone)]
pub struct RangeAllocator {
    /// Free ranges: start → end.
    free: BTreeMap<u64, u64>,
    /// Allocated ranges: start → end.
    used: BTreeMap<u64, u64>,
    what: &'static str,
}

impl RangeAllocator {
    pub fn new(what: &'static str, start: u64, end: u64) -> RangeAllocator {
        let mut free = BTreeMap::new();
        if end > start {
            free.insert(start, end);
        }
        RangeAllocator { free, used: BTreeMap::new(), what }
    }

    /// `size` bytes aligned to `align` (a power of two).
    pub fn alloc(&mut self, size: u64, align: u64) -> Result<u64> {
        if size == 0 || !align.is_power_of_two() {
            return Err(Error::Protocol(format!(
                "{}: bad allocation of {size:#x} bytes aligned {align:#x}",
                self.what
            )));
        }
        let found = self.free.iter().find_map(|(&s, &e)| {
            let a = s.checked_add(align - 1)? & !(align - 1);
            (a.checked_add(size)? <= e).then_some((s, e, a))
        });
        let Some((s, e, a)) = found else {
            return Err(Error::Unsupported(format!(
                "{}: out of memory for {size:#x} bytes (aligned {align:#x}); {:#x} bytes free in {} ranges",
                self.what,
                self.free_bytes(),
                self.free.len()
            )));
        };
        self.free.remove(&s);
        if a > s {
            self.free.insert(s, a);
        }
        if a + size < e {
            self.free.insert(a + size, e);
        }
        self.used.insert(a, a + size);
        Ok(a)
    }

    /// Returns an allocation made by [`RangeAllocator::alloc`].
    pub fn free(&mut self, start: u64) -> Result<()> {
        let end = self
            .used
            .remove(&start)
            .ok_or_else(|| Error::Protocol(format!("{}: free of {start:#x}, which is not allocated", self.what)))?;
        let (mut s, mut e) = (start, end);
        if let Some((&ps, &pe)) = self.free.range(..s).next_back() {
            if pe == s {
                self.free.remove(&ps);
                s = ps;
            }
        }
        if let Some(ne) = self.free.remove(&e) {
            e = ne;
        }
        self.free.insert(s, e);
        Ok(())
    }

    /// Whether `start` is an allocation of this allocator.
    pub fn is_allocated(&self, start: u64) -> bool {
        self.used.contains_key(&start)
    }

    pub fn free_bytes(&self) -> u64 {
        self.free.iter().map(|(s, e)| e - s).sum()
    }
}

/// The device's VRAM: the boot region, the heap, and the reserved top.
#[derive(Debug, Clone)]
pub struct Vram {
    pub size: u64,
    pub reserved: u64,
    pub boot: RangeAllocator,
    pub heap: RangeAllocator,
}

impl Vram {
    pub fn new(size: u64, reserved: u64) -> Result<Vram> {
        if size < BOOT_BYTES + reserved {
            return Err(Error::Unsupported(format!(
                "VRAM of {} MiB is smaller than the boot region and the reserved top ({} MiB)",
                size >> 20,
                (BOOT_BYTES + reserved) >> 20
            )));
        }
        Ok(Vram {
            size,
            reserved,
            boot: RangeAllocator::new("VRAM boot region", 0, BOOT_BYTES),
            heap: RangeAllocator::new("VRAM", BOOT_BYTES, size - reserved),
        })
    }
}

/// CPU access to VRAM through BAR0, and the GPU's (MC) address of a VRAM offset.
#[derive(Clone, Copy)]
pub struct VramIo<'a> {
    pub pci: &'a dyn PciDevice,
    /// MC address of VRAM offset 0 (`MC_VM_FB_LOCATION_BASE` << 24).
    pub fb_base: u64,
}

impl VramIo<'_> {
    pub fn mc(&self, pa: u64) -> u64 {
        self.fb_base + pa
    }

    pub fn write(&self, pa: u64, data: &[u8]) -> Result<()> {
        self.pci.copy_to_bar(AMD_BAR_VRAM, pa, data)
    }

    pub fn read(&self, pa: u64, buf: &mut [u8]) -> Result<()> {
        self.pci.copy_from_bar(AMD_BAR_VRAM, pa, buf)
    }

    pub fn read32(&self, pa: u64) -> Result<u32> {
        self.pci.read32(AMD_BAR_VRAM, pa)
    }

    pub fn write64(&self, pa: u64, v: u64) -> Result<()> {
        self.pci.write64(AMD_BAR_VRAM, pa, v)
    }

    pub fn read64(&self, pa: u64) -> Result<u64> {
        self.pci.read64(AMD_BAR_VRAM, pa)
    }

    /// Zeroes `len` bytes at `pa`.
    pub fn zero(&self, pa: u64, len: u64) -> Result<()> {
        const CHUNK: u64 = 64 << 10;
        let zeros = vec![0u8; CHUNK.min(len) as usize];
        let mut off = 0;
        while off < len {
            let n = CHUNK.min(len - off);
            self.write(pa + off, &zeros[..n as usize])?;
            off += n;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_with_alignment_and_coalescing() {
        let mut a = RangeAllocator::new("t", 0x1000, 0x10_0000);
        let x = a.alloc(0x100, 0x1000).unwrap();
        assert_eq!(x, 0x1000);
        let y = a.alloc(0x1000, 0x10000).unwrap();
        assert_eq!(y, 0x10000);
        let z = a.alloc(0x100, 0x100).unwrap();
        assert_eq!(z, 0x1100, "fills the gap before the aligned block");
        a.free(y).unwrap();
        a.free(x).unwrap();
        a.free(z).unwrap();
        assert_eq!(a.free_bytes(), 0xff000);
        assert_eq!(a.free.len(), 1, "every range merged back");
        assert!(a.free(z).is_err(), "double free is an error");
        assert!(a.alloc(0x10_0000, 0x1000).unwrap_err().to_string().contains("out of memory"));
    }

    #[test]
    fn vram_keeps_the_boot_region_and_reserved_top_out_of_the_heap() {
        let mut v = Vram::new(512 << 20, reserved_top(11)).unwrap();
        assert_eq!(v.heap.alloc(0x1000, 0x1000).unwrap(), BOOT_BYTES);
        assert_eq!(v.heap.free_bytes(), (512 << 20) - BOOT_BYTES - (64 << 20) - 0x1000);
        assert_eq!(v.boot.alloc(0x1000, 0x10_0000).unwrap(), 0);
        assert!(Vram::new(64 << 20, reserved_top(9)).is_err());
    }
}
