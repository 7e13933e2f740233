//! GPU memory through KFD: take a VA range from the device's window, allocate at that VA, mmap the render node over
//! it, map it to the GPU — so the GPU VA equals the CPU VA — and the reverse to free.

use super::device::KfdDevice;
use super::ioctl::kfd_call;
use crate::os::{MapFlags, Prot};
use crate::va_window::Placement;
use crate::{Error, Result};
use baregpu_autogen::amd::kfd as abi;
use std::sync::Arc;

const PAGE: u64 = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemKind {
    /// Device-local memory; `cpu_visible` maps it for the CPU through the BAR (all of it needs a
    /// resizable BAR).
    Vram { cpu_visible: bool },
    /// Uncached system memory the GPU maps (GTT): rings, signals, read/write pointers, the event
    /// page, indirect buffers.
    Uncached,
    /// Ordinary cacheable host memory (USERPTR): staging buffers, host-visible data.
    Host,
}

/// One allocation. Freed explicitly with [`KfdDevice::free`], which reports errors.
#[derive(Debug, PartialEq, Eq)]
pub struct KfdMemory {
    /// The GPU virtual address, which is also the CPU address of the mapping.
    pub va: u64,
    pub size: u64,
    pub kind: MemKind,
    pub handle: u64,
    /// The CPU can read and write `va..va+size`.
    pub cpu_mapped: bool,
}

impl MemKind {
    fn flags(self) -> u32 {
        let base = abi::KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE
            | abi::KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE
            | abi::KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
        base | match self {
            MemKind::Vram { cpu_visible: false } => abi::KFD_IOC_ALLOC_MEM_FLAGS_VRAM,
            MemKind::Vram { cpu_visible: true } => {
                abi::KFD_IOC_ALLOC_MEM_FLAGS_VRAM | abi::KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC
            }
            MemKind::Uncached => {
                abi::KFD_IOC_ALLOC_MEM_FLAGS_GTT
                    | abi::KFD_IOC_ALLOC_MEM_FLAGS_COHERENT
                    | abi::KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED
                    | abi::KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC
            }
            MemKind::Host => abi::KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | abi::KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC,
        }
    }
}

impl KfdDevice {
    /// Allocate `size` bytes (rounded up to pages) of `kind`, mapped on this GPU, in the user
    /// region of the device's address window.
    pub fn alloc(&self, size: u64, kind: MemKind) -> Result<KfdMemory> {
        self.alloc_in(size, kind, Placement::User)
    }

    /// As [`KfdDevice::alloc`], for memory the runtime keeps for itself (rings, kernel
    /// arguments, signals, code): placed apart from every user buffer.
    pub fn alloc_internal(&self, size: u64, kind: MemKind) -> Result<KfdMemory> {
        self.alloc_in(size, kind, Placement::Internal)
    }

    /// The device's address window: `(base, size)`.
    pub fn va_window(&self) -> (u64, u64) {
        (self.window.base, self.window.size)
    }

    fn alloc_in(&self, size: u64, kind: MemKind, placement: Placement) -> Result<KfdMemory> {
        if size == 0 {
            return Err(Error::Protocol(format!("{}: zero-byte allocation", self.name())));
        }
        // Rounded up with a check: a size near 2^64 is refused, not wrapped to a small one.
        let size = size.checked_next_multiple_of(PAGE).ok_or_else(|| {
            Error::Protocol(format!("{}: a {size}-byte allocation is past the address space", self.name()))
        })?;
        let os = self.os();
        let userptr = kind == MemKind::Host;
        // 1. The VA range, from the window (where it is a PROT_NONE reservation); USERPTR
        // memory is real memory placed over it.
        let va = self.window.take(size, placement)?;
        if userptr {
            let flags = MapFlags::SHARED | MapFlags::ANONYMOUS | MapFlags::FIXED;
            os.mmap(va as usize, size as usize, Prot::READ | Prot::WRITE, flags, None, 0)?;
        }
        // 2. The allocation at that VA.
        let mut a = abi::kfd_ioctl_alloc_memory_of_gpu_args {
            va_addr: va,
            size,
            handle: 0,
            mmap_offset: if userptr { va } else { 0 },
            gpu_id: self.gpu.gpu_id,
            flags: kind.flags(),
        };
        if let Err(e) = kfd_call!(os, self.kfd.fd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &mut a) {
            let _ = self.window.restore(va, size);
            let hint = match (kind, e.errno()) {
                (MemKind::Vram { cpu_visible: true }, Some(libc::EINVAL)) => {
                    " (CPU-visible VRAM needs a resizable BAR)"
                }
                (_, Some(libc::ENOMEM)) => " (out of memory)",
                _ => "",
            };
            return Err(Error::Protocol(format!("{}: allocating {size:#x} bytes of {kind:?}: {e}{hint}", self.name())));
        }
        let mut mem = KfdMemory { va, size, kind, handle: a.handle, cpu_mapped: userptr };
        // 3. The CPU mapping over the reservation, through the render node. VRAM allocated without
        // PUBLIC is NO_CPU_ACCESS to amdgpu, which refuses to mmap it (EPERM): it keeps the
        // PROT_NONE reservation, which holds the VA.
        if !userptr && kind != (MemKind::Vram { cpu_visible: false }) {
            let fixed = MapFlags::SHARED | MapFlags::FIXED;
            match os.mmap(va as usize, size as usize, Prot::READ | Prot::WRITE, fixed, Some(self.drm_fd), a.mmap_offset)
            {
                Ok(addr) if addr as u64 == va => mem.cpu_mapped = true,
                Ok(addr) => {
                    let _ = self.release(&mem);
                    return Err(Error::Protocol(format!(
                        "{}: render-node mapping landed at {addr:#x}, not at the reserved {va:#x}",
                        self.name()
                    )));
                }
                Err(e) => {
                    let _ = self.release(&mem);
                    return Err(e);
                }
            }
        }
        // 4. The GPU mapping.
        if let Err(e) = self.map_to(&mem, &[self.gpu.gpu_id]) {
            let _ = self.release(&mem);
            return Err(e);
        }
        log::trace!("{}: {kind:?} {size:#x} bytes at {va:#x}", self.name());
        Ok(mem)
    }

    /// Map an allocation into the GPUs with these ids (this one or peers).
    pub fn map_to(&self, mem: &KfdMemory, gpu_ids: &[u32]) -> Result<()> {
        let mut args = abi::kfd_ioctl_map_memory_to_gpu_args {
            handle: mem.handle,
            device_ids_array_ptr: gpu_ids.as_ptr() as u64,
            n_devices: gpu_ids.len() as u32,
            n_success: 0,
        };
        kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &mut args)?;
        if args.n_success != gpu_ids.len() as u32 {
            return Err(Error::Protocol(format!(
                "{}: mapped {:#x} on {} of {} GPUs",
                self.name(),
                mem.va,
                args.n_success,
                gpu_ids.len()
            )));
        }
        Ok(())
    }

    /// Map an allocation of this device for `peer`'s GPU too (same address), until it is freed.
    pub fn map_for_peer(&self, mem: &KfdMemory, peer: &KfdDevice) -> Result<()> {
        if !Arc::ptr_eq(&self.kfd.os, &peer.kfd.os) {
            return Err(Error::Protocol(format!("{} and {} are not opened on one KFD", self.name(), peer.name())));
        }
        let mut peers = self.peer_maps.lock().unwrap_or_else(|e| e.into_inner());
        if !peers.contains(&(mem.handle, peer.gpu.gpu_id)) {
            self.map_to(mem, &[peer.gpu.gpu_id])?;
            peers.push((mem.handle, peer.gpu.gpu_id));
        }
        Ok(())
    }

    /// Unmap from the GPU (and the peers it was mapped for), drop the CPU mapping, free.
    pub fn free(&self, mem: KfdMemory) -> Result<()> {
        let mut ids = vec![self.gpu.gpu_id];
        self.peer_maps.lock().unwrap_or_else(|e| e.into_inner()).retain(|&(h, g)| {
            if h == mem.handle {
                ids.push(g);
            }
            h != mem.handle
        });
        let mut args = abi::kfd_ioctl_unmap_memory_from_gpu_args {
            handle: mem.handle,
            device_ids_array_ptr: ids.as_ptr() as u64,
            n_devices: ids.len() as u32,
            n_success: 0,
        };
        let unmapped = kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &mut args);
        // Free even when unmapping failed, so the memory is not leaked; report the first error.
        let released = self.release(&mem);
        unmapped.and(released)
    }

    /// Drop the CPU mapping (the window's reservation takes its place again) and the allocation.
    fn release(&self, mem: &KfdMemory) -> Result<()> {
        let unmapped = self.window.restore(mem.va, mem.size);
        let mut args = abi::kfd_ioctl_free_memory_of_gpu_args { handle: mem.handle };
        let freed = kfd_call!(self.os(), self.kfd.fd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &mut args).map(|_| ());
        freed.and(unmapped)
    }
}

/// For tests and the emulator: the flags an allocation of `kind` carries.
pub fn alloc_flags(kind: MemKind) -> u32 {
    kind.flags()
}
