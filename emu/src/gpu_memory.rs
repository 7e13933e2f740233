//! GPU memory as a kernel reaches it, for both emulated GPUs: a sorted table of the mappings of
//! the GPU's address space (GPU VA -> the emulator's address of the bytes). Translation is the
//! bounds check: an access must lie wholly inside one mapping, so one that runs off its
//! allocation (into a guard gap between allocations, or anywhere unmapped) is a fault naming the
//! VA. The wave interpreter (AMD) and the PTX interpreter (NVIDIA) both read and write through it.

/// `len` bytes of GPU memory at `va`, reached at emulator address `host`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub va: u64,
    pub len: u64,
    pub host: usize,
}

/// The mappings a dispatch may touch, sorted by VA.
#[derive(Debug, Clone, Default)]
pub struct GpuMemory {
    sorted: Vec<Region>,
}

impl GpuMemory {
    pub fn new(mut regions: Vec<Region>) -> GpuMemory {
        regions.sort_by_key(|r| r.va);
        GpuMemory { sorted: regions }
    }

    /// From explicit (va, size, host address) ranges: tests and tools.
    pub fn from_ranges(ranges: &[(u64, u64, usize)]) -> GpuMemory {
        GpuMemory::new(ranges.iter().map(|&(va, len, host)| Region { va, len, host }).collect())
    }

    pub fn push(&mut self, r: Region) {
        let at = self.sorted.partition_point(|x| x.va < r.va);
        self.sorted.insert(at, r);
    }

    /// The mapping holding `va`.
    pub fn region_containing(&self, va: u64) -> Option<Region> {
        let i = self.sorted.partition_point(|r| r.va <= va).checked_sub(1)?;
        let r = self.sorted[i];
        (va - r.va < r.len).then_some(r)
    }

    /// The emulator's address of `[va, va + len)`, when the whole range lies inside one mapping.
    #[inline]
    pub fn translate(&self, va: u64, len: u64) -> Option<*mut u8> {
        let i = self.sorted.partition_point(|r| r.va <= va).checked_sub(1)?;
        let r = &self.sorted[i];
        let end = va.checked_add(len)?;
        (end <= r.va + r.len).then(|| (r.host + (va - r.va) as usize) as *mut u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_is_the_bounds_check() {
        let m = GpuMemory::from_ranges(&[(0x2000, 0x1000, 0x9000_0000), (0x1000, 0x100, 0x8000_0000)]);
        assert_eq!(m.translate(0x2000, 4), Some(0x9000_0000 as *mut u8));
        assert_eq!(m.translate(0x2ffc, 4), Some(0x9000_0ffc as *mut u8));
        assert_eq!(m.translate(0x2ffd, 4), None, "straddles the end");
        assert_eq!(m.translate(0x1080, 0x80), Some(0x8000_0080 as *mut u8));
        assert_eq!(m.translate(0x1100, 1), None, "in the gap");
        assert_eq!(m.translate(0x0fff, 1), None, "below everything");
        assert_eq!(m.translate(u64::MAX, 2), None);
    }
}
