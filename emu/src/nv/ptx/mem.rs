//! Global memory as the PTX interpreter sees it: GPU VAs translated to emulator addresses
//! through [`GpuMemory`] (the one checked-memory type of both emulators), every access checked
//! (a miss is a fault naming the VA).

pub use crate::gpu_memory::{GpuMemory, Region};

/// What a kernel's global accesses go through.
pub trait GlobalMemory: Sync {
    /// The emulator address of `len` bytes at `va`, if they lie inside one mapping.
    fn host_ptr(&self, va: u64, len: u64) -> Option<usize>;
}

impl GlobalMemory for GpuMemory {
    fn host_ptr(&self, va: u64, len: u64) -> Option<usize> {
        self.translate(va, len).map(|p| p as usize)
    }
}

/// Plain host memory posing as GPU memory, for running kernels directly (tests, tools):
/// allocations get GPU VAs from 0x1_0000_0000 up, with a guard gap between them.
#[derive(Debug, Default)]
pub struct HostMemory {
    regions: GpuMemory,
    bufs: Vec<Box<[u64]>>,
    next: u64,
}

impl HostMemory {
    pub fn new() -> HostMemory {
        HostMemory { regions: GpuMemory::default(), bufs: Vec::new(), next: 0x1_0000_0000 }
    }

    /// `len` zeroed bytes; returns their GPU VA.
    pub fn alloc(&mut self, len: usize) -> u64 {
        let words = len.div_ceil(8).max(1);
        let mut buf = vec![0u64; words].into_boxed_slice();
        let host = buf.as_mut_ptr() as usize;
        let va = self.next;
        self.next += (words as u64 * 8).next_multiple_of(0x1_0000) + 0x1_0000;
        self.regions.push(Region { va, len: len as u64, host });
        self.bufs.push(buf);
        va
    }

    /// An allocation holding `data`.
    pub fn upload<T: Copy>(&mut self, data: &[T]) -> u64 {
        let bytes = std::mem::size_of_val(data);
        let va = self.alloc(bytes);
        self.write(va, data);
        va
    }

    pub fn write<T: Copy>(&self, va: u64, data: &[T]) {
        let bytes = std::mem::size_of_val(data);
        let host = self.regions.host_ptr(va, bytes as u64).expect("HostMemory::write outside every allocation");
        // SAFETY: inside one of our buffers; T is plain data (Copy) copied bytewise.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr() as *const u8, host as *mut u8, bytes) };
    }

    pub fn read<T: Copy + Default>(&self, va: u64, n: usize) -> Vec<T> {
        let mut out = vec![T::default(); n];
        let bytes = std::mem::size_of_val(out.as_slice());
        let host = self.regions.host_ptr(va, bytes as u64).expect("HostMemory::read outside every allocation");
        // SAFETY: inside one of our buffers; T is plain data.
        unsafe { std::ptr::copy_nonoverlapping(host as *const u8, out.as_mut_ptr() as *mut u8, bytes) };
        out
    }
}

impl GlobalMemory for HostMemory {
    fn host_ptr(&self, va: u64, len: u64) -> Option<usize> {
        self.regions.host_ptr(va, len)
    }
}
