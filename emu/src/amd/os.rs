//! The emulated KFD as a machine of the emulated OS ([`crate::os`]): its sysfs tree, its device
//! nodes (`/dev/kfd`, the render nodes) and how they answer ioctls and mmaps.

use super::memory::{MemDomain, DRM_MMAP_BASE, PAGE};
use super::queues::*;
use super::{kfd, EmuKfd, OpenFile};
use crate::os::{emulated_os, FileTable, Machine, MmapRequest};
use baregpu_drivers::os::{DoorbellValue, Fd, HostOs};
use std::path::{Path, PathBuf};

const KFD_PATH: &str = "/dev/kfd";

impl EmuKfd {
    fn render_index(&self, path: &Path) -> Option<usize> {
        let minor: u32 = path.to_str()?.strip_prefix("/dev/dri/renderD")?.parse().ok()?;
        self.gpus.iter().position(|g| g.render_minor == minor)
    }

    /// mmap of /dev/kfd: the doorbell window, the kernel's event page, the MMIO remap page.
    fn kfd_mmap(&self, req: MmapRequest) -> std::result::Result<usize, i32> {
        let MmapRequest { len, offset, .. } = req;
        let gpu_id = ((offset & KFD_MMAP_GPU_ID_MASK) >> KFD_MMAP_GPU_ID_SHIFT) as u32;
        let mut st = self.lock();
        let mut doorbells_of = None;
        let (off, want) = match offset & (3 << KFD_MMAP_TYPE_SHIFT) {
            KFD_MMAP_TYPE_DOORBELL => {
                let gi = self.gpu_index(gpu_id).ok_or(libc::ENODEV)?;
                if len as u64 != DOORBELL_PROCESS_SLICE {
                    return Err(libc::EINVAL);
                }
                doorbells_of = Some(gi);
                (kfd::ensure_doorbells(&mut st, gi)?.0, DOORBELL_PROCESS_SLICE)
            }
            KFD_MMAP_TYPE_EVENTS => {
                let page = st.proc.signal_page.as_mut().ok_or(libc::EINVAL)?;
                if len as u64 > 0x8000 {
                    return Err(libc::EINVAL);
                }
                if page.owned {
                    page.mapped_size = len as u64;
                }
                (page.backing, len as u64)
            }
            KFD_MMAP_TYPE_MMIO => {
                let gi = self.gpu_index(gpu_id).ok_or(libc::ENODEV)?;
                if len as u64 != PAGE {
                    return Err(libc::EINVAL);
                }
                (kfd::ensure_mmio(&mut st, gi)?.0, PAGE)
            }
            _ => return Err(libc::EINVAL),
        };
        let addr = st.arena.map(off, want.min(len as u64), req.prot, req.fixed())?;
        if let Some(gi) = doorbells_of {
            st.proc.pdds[gi].doorbell_maps.push(addr);
        }
        Ok(addr)
    }

    /// mmap of a render node at a buffer object's cookie.
    fn render_mmap(&self, gi: usize, req: MmapRequest) -> std::result::Result<usize, i32> {
        let MmapRequest { len, offset, .. } = req;
        let mut st = self.lock();
        let gpu_id = self.gpus[gi].gpu_id;
        let m = st
            .proc
            .allocs
            .values()
            .find(|m| {
                m.gpu_id == gpu_id
                    && m.mmap_offset == offset
                    && offset >= DRM_MMAP_BASE
                    && matches!(m.domain, MemDomain::Vram | MemDomain::Gtt | MemDomain::Doorbell)
            })
            .ok_or(libc::EINVAL)?;
        if len == 0 || len as u64 > m.size {
            return Err(libc::EINVAL);
        }
        // amdgpu_gem_object_mmap: VRAM allocated without PUBLIC is NO_CPU_ACCESS.
        if m.domain == MemDomain::Vram && m.flags & baregpu_autogen::amd::kfd::KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC == 0 {
            return Err(libc::EPERM);
        }
        let doorbells = m.domain == MemDomain::Doorbell;
        let addr =
            st.arena.map(m.backing.expect("render-node buffers have backing"), len as u64, req.prot, req.fixed())?;
        if doorbells {
            st.proc.pdds[gi].doorbell_maps.push(addr);
        }
        Ok(addr)
    }
}

impl Machine for EmuKfd {
    type Node = OpenFile;

    fn host(&self) -> &HostOs {
        &self.host
    }

    fn with_files<R>(&self, f: impl FnOnce(&mut FileTable<OpenFile>) -> R) -> R {
        f(&mut self.lock().files)
    }

    fn text(&self, path: &Path) -> Option<String> {
        self.sysfs.file(path).map(str::to_string)
    }

    fn dir(&self, path: &Path) -> Option<Vec<String>> {
        if path == Path::new("/dev/dri") {
            let mut names: Vec<String> = self.gpus.iter().map(|g| format!("renderD{}", g.render_minor)).collect();
            names.sort();
            return Some(names);
        }
        self.sysfs.dir(path)
    }

    fn node(&self, path: &Path) -> Option<OpenFile> {
        if path == Path::new(KFD_PATH) {
            return Some(OpenFile::Kfd);
        }
        self.render_index(path).map(OpenFile::Render)
    }

    fn node_path(&self, node: &OpenFile) -> PathBuf {
        match node {
            OpenFile::Kfd => PathBuf::from(KFD_PATH),
            OpenFile::Render(i) => PathBuf::from(format!("/dev/dri/renderD{}", self.gpus[*i].render_minor)),
        }
    }

    fn node_ioctl(&self, _fd: Fd, node: &OpenFile, request: u32, arg: &mut [u8]) -> std::result::Result<i32, i32> {
        match node {
            OpenFile::Kfd => self.kfd_ioctl(request, arg),
            // amdgpu's own ioctls (AMDGPU_INFO, GEM, ...) are not emulated.
            OpenFile::Render(_) => Err(libc::ENOTTY),
        }
    }

    fn node_mmap(&self, _fd: Fd, node: &OpenFile, req: MmapRequest) -> std::result::Result<usize, i32> {
        match node {
            OpenFile::Kfd => self.kfd_mmap(req),
            OpenFile::Render(i) => self.render_mmap(*i, req),
        }
    }

    /// The 64-bit doorbell holds the write pointer, as on the hardware; the queue's engine wakes.
    unsafe fn ring_doorbell(&self, addr: usize, value: DoorbellValue) {
        // SAFETY: the caller's contract.
        unsafe { value.store(addr) };
        self.doorbell_rung(addr);
    }

    /// The process's KFD state ends with its last /dev/kfd file.
    fn node_closed(&self, _fd: Fd, node: OpenFile) {
        if node == OpenFile::Kfd && !self.with_files(|t| t.nodes().any(|f| *f == OpenFile::Kfd)) {
            self.teardown();
        }
    }
}

emulated_os!(EmuKfd);
