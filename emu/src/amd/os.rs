//! The OS boundary of the emulated machine: sysfs reads, device nodes, ioctls and mmaps.

use super::memory::{MemDomain, DRM_MMAP_BASE, PAGE};
use super::queues::*;
use super::{kfd, EmuKfd, OpenFile};
use baregpu_drivers::os::{Fd, MapFlags, OpenFlags, Os, Prot};
use baregpu_drivers::{Error, Result};
use std::io;
use std::path::{Path, PathBuf};

const KFD_PATH: &str = "/dev/kfd";

fn errno(e: i32) -> io::Error {
    io::Error::from_raw_os_error(e)
}

impl EmuKfd {
    fn render_index(&self, path: &Path) -> Option<usize> {
        let minor: u32 = path.to_str()?.strip_prefix("/dev/dri/renderD")?.parse().ok()?;
        self.gpus.iter().position(|g| g.render_minor == minor)
    }

    fn file(&self, fd: Fd) -> Result<OpenFile> {
        self.lock().files.get(&fd.0).cloned().ok_or(Error::BadFd(fd.0))
    }

    fn path_of(&self, file: &OpenFile) -> PathBuf {
        match file {
            OpenFile::Kfd => PathBuf::from(KFD_PATH),
            OpenFile::Render(i) => PathBuf::from(format!("/dev/dri/renderD{}", self.gpus[*i].render_minor)),
            OpenFile::Sysfs(p) => p.clone(),
            OpenFile::HostEventfd => PathBuf::from("eventfd"),
        }
    }

    /// mmap of /dev/kfd: the doorbell window, the kernel's event page, the MMIO remap page.
    fn kfd_mmap(
        &self,
        addr: usize,
        len: usize,
        prot: Prot,
        flags: MapFlags,
        offset: u64,
    ) -> std::result::Result<usize, i32> {
        let gpu_id = ((offset & KFD_MMAP_GPU_ID_MASK) >> KFD_MMAP_GPU_ID_SHIFT) as u32;
        let mut st = self.lock();
        let (off, want) = match offset & (3 << KFD_MMAP_TYPE_SHIFT) {
            KFD_MMAP_TYPE_DOORBELL => {
                let gi = self.gpu_index(gpu_id).ok_or(libc::ENODEV)?;
                if len as u64 != DOORBELL_PROCESS_SLICE {
                    return Err(libc::EINVAL);
                }
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
        map_at(&st.arena, off, want.min(len as u64), prot, flags, addr)
    }

    /// mmap of a render node at a buffer object's cookie.
    fn render_mmap(
        &self,
        gi: usize,
        addr: usize,
        len: usize,
        prot: Prot,
        flags: MapFlags,
        offset: u64,
    ) -> std::result::Result<usize, i32> {
        let st = self.lock();
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
        map_at(&st.arena, m.backing.expect("render-node buffers have backing"), len as u64, prot, flags, addr)
    }
}

fn map_at(
    arena: &super::memory::Arena,
    off: u64,
    len: u64,
    prot: Prot,
    flags: MapFlags,
    addr: usize,
) -> std::result::Result<usize, i32> {
    if flags.contains(MapFlags::FIXED) {
        if addr & (PAGE as usize - 1) != 0 {
            return Err(libc::EINVAL);
        }
        arena.map(off, len, prot, Some(addr))
    } else {
        arena.map(off, len, prot, None)
    }
}

impl Os for EmuKfd {
    fn read_to_string(&self, path: &Path) -> Result<String> {
        if let Some(text) = self.sysfs.file(path) {
            return Ok(text.to_string());
        }
        let e = if self.sysfs.is_dir(path) { libc::EISDIR } else { libc::ENOENT };
        Err(Error::io(path, errno(e)))
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<String>> {
        if path == Path::new("/dev/dri") {
            let mut names: Vec<String> = self.gpus.iter().map(|g| format!("renderD{}", g.render_minor)).collect();
            names.sort();
            return Ok(names);
        }
        if let Some(names) = self.sysfs.dir(path) {
            return Ok(names);
        }
        let e = if self.sysfs.file(path).is_some() { libc::ENOTDIR } else { libc::ENOENT };
        Err(Error::io(path, errno(e)))
    }

    fn exists(&self, path: &Path) -> bool {
        path == Path::new(KFD_PATH)
            || path == Path::new("/dev/dri")
            || self.render_index(path).is_some()
            || self.sysfs.file(path).is_some()
            || self.sysfs.is_dir(path)
    }

    fn open(&self, path: &Path, _flags: OpenFlags) -> Result<Fd> {
        let file = if path == Path::new(KFD_PATH) {
            OpenFile::Kfd
        } else if let Some(i) = self.render_index(path) {
            OpenFile::Render(i)
        } else if self.sysfs.file(path).is_some() {
            OpenFile::Sysfs(path.to_path_buf())
        } else {
            return Err(Error::io(path, errno(libc::ENOENT)));
        };
        let mut st = self.lock();
        let fd = st.next_fd;
        st.next_fd = st.next_fd.checked_add(1).ok_or_else(|| Error::io(path, errno(libc::EMFILE)))?;
        st.files.insert(fd, file);
        Ok(Fd(fd))
    }

    fn close(&self, fd: Fd) -> Result<()> {
        let mut st = self.lock();
        let file = st.files.remove(&fd.0).ok_or(Error::BadFd(fd.0))?;
        let last_kfd = file == OpenFile::Kfd && !st.files.values().any(|f| *f == OpenFile::Kfd);
        drop(st);
        match file {
            OpenFile::HostEventfd => self.host.close(fd),
            _ if last_kfd => {
                self.teardown();
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn ioctl(&self, fd: Fd, request: u32, arg: &mut [u8]) -> Result<i32> {
        let file = self.file(fd)?;
        let r = match file {
            OpenFile::Kfd => self.kfd_ioctl(request, arg),
            // amdgpu's own ioctls (AMDGPU_INFO, GEM, ...) are not emulated.
            OpenFile::Render(_) => Err(libc::ENOTTY),
            OpenFile::Sysfs(_) | OpenFile::HostEventfd => Err(libc::ENOTTY),
        };
        r.map_err(|e| Error::Ioctl { path: self.path_of(&file), request, name: None, source: errno(e) })
    }

    fn mmap(&self, addr: usize, len: usize, prot: Prot, flags: MapFlags, fd: Option<Fd>, offset: u64) -> Result<usize> {
        let Some(fd) = fd else {
            return self.host.mmap(addr, len, prot, flags, None, offset);
        };
        let file = self.file(fd)?;
        let r = if offset & (PAGE - 1) != 0 {
            Err(libc::EINVAL)
        } else {
            match &file {
                OpenFile::Kfd => self.kfd_mmap(addr, len, prot, flags, offset),
                OpenFile::Render(i) => self.render_mmap(*i, addr, len, prot, flags, offset),
                _ => Err(libc::ENODEV),
            }
        };
        r.map_err(|e| {
            Error::sys(
                format!(
                    "mmap {len:#x} bytes of {} at offset {offset:#x} (hint {addr:#x})",
                    self.path_of(&file).display()
                ),
                errno(e),
            )
        })
    }

    fn munmap(&self, addr: usize, len: usize) -> Result<()> {
        self.host.munmap(addr, len)
    }

    fn eventfd(&self, initial: u32) -> Result<Fd> {
        let fd = self.host.eventfd(initial)?;
        self.lock().files.insert(fd.0, OpenFile::HostEventfd);
        Ok(fd)
    }
}
