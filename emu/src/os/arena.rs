//! The memory of an emulated machine: one shared-memory file (a memfd) that every memory object
//! of the emulated GPUs is a range of. Clients map ranges of it through their device nodes; the
//! emulator keeps its own view of each, with a guard page after it.

use baregpu_drivers::os::{Fd, HostOs, MapFlags, Os, Prot};

pub const PAGE: u64 = 4096;
/// Inaccessible bytes after each of the emulator's views.
const VIEW_GUARD: u64 = PAGE;

/// The backing file: ranges are handed out once and never reused, so a stale CPU mapping of a
/// freed buffer can only ever see zeroes, never another buffer.
pub(crate) struct Arena {
    fd: i32,
    next: u64,
    host: HostOs,
}

impl Arena {
    pub(crate) fn new() -> std::io::Result<Arena> {
        // SAFETY: plain system call with a static NUL-terminated name.
        let fd = unsafe { libc::memfd_create(c"baregpu-emu-vram".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Arena { fd, next: 0, host: HostOs::new() })
    }

    /// A fresh range of `size` bytes (page-aligned); the file grows to hold it.
    pub(crate) fn take(&mut self, size: u64) -> Result<u64, i32> {
        let off = self.next;
        let end = off.checked_add(size.div_ceil(PAGE) * PAGE).ok_or(libc::ENOMEM)?;
        // SAFETY: ftruncate on our own memfd.
        if unsafe { libc::ftruncate(self.fd, end as libc::off_t) } < 0 {
            return Err(libc::ENOMEM);
        }
        self.next = end;
        Ok(off)
    }

    /// The emulator's own view of `len` bytes at file offset `off`, followed by an inaccessible
    /// guard page, so that an access running past one view faults instead of reaching the next
    /// view the host placed beside it. Drop it with [`Arena::unmap`].
    pub(crate) fn view(&self, off: u64, len: u64) -> Result<usize, i32> {
        let errno = |e: baregpu_drivers::Error| e.errno().unwrap_or(libc::ENOMEM);
        let reserve = MapFlags::PRIVATE | MapFlags::ANONYMOUS | MapFlags::NORESERVE;
        let total = len.checked_add(VIEW_GUARD).ok_or(libc::ENOMEM)? as usize;
        let at = self.host.mmap(0, total, Prot::empty(), reserve, None, 0).map_err(errno)?;
        let rw = Prot::READ | Prot::WRITE;
        if let Err(e) = self.host.mmap(at, len as usize, rw, MapFlags::SHARED | MapFlags::FIXED, Some(Fd(self.fd)), off)
        {
            let _ = self.host.munmap(at, total);
            return Err(errno(e));
        }
        Ok(at)
    }

    /// A client's mapping of `len` bytes at file offset `off` (an mmap of a device node):
    /// anywhere, or exactly at `fixed`. The client unmaps it.
    pub(crate) fn map(&self, off: u64, len: u64, prot: Prot, fixed: Option<usize>) -> Result<usize, i32> {
        let mut flags = MapFlags::SHARED;
        if fixed.is_some() {
            flags |= MapFlags::FIXED;
        }
        self.host
            .mmap(fixed.unwrap_or(0), len as usize, prot, flags, Some(Fd(self.fd)), off)
            .map_err(|e| e.errno().unwrap_or(libc::ENOMEM))
    }

    /// Drop a view made by [`Arena::view`] (and its guard page).
    pub(crate) fn unmap(&self, addr: usize, len: u64) {
        if let Err(e) = self.host.munmap(addr, (len + VIEW_GUARD) as usize) {
            log::warn!("emulated GPU: dropping its view at {addr:#x}: {e}");
        }
    }

    /// Give the memory of a freed range back to the host (it reads as zeroes afterwards).
    pub(crate) fn release(&self, off: u64, len: u64) {
        // SAFETY: fallocate on our own memfd.
        let r = unsafe {
            libc::fallocate(
                self.fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                off as libc::off_t,
                len as libc::off_t,
            )
        };
        if r < 0 {
            log::debug!("emulated GPU: punching {len:#x} bytes at {off:#x}: {}", std::io::Error::last_os_error());
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: we own this fd and close it once.
        unsafe { libc::close(self.fd) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The permissions /proc/self/maps gives the page at `addr`.
    fn perms_at(addr: usize) -> Option<String> {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        maps.lines().find_map(|l| {
            let (range, rest) = l.split_once(' ')?;
            let (lo, hi) = range.split_once('-')?;
            let (lo, hi) = (usize::from_str_radix(lo, 16).ok()?, usize::from_str_radix(hi, 16).ok()?);
            (lo <= addr && addr < hi).then(|| rest[..4].to_string())
        })
    }

    #[test]
    fn views_are_followed_by_a_guard_page_and_share_the_backing() {
        let mut arena = Arena::new().unwrap();
        let (a, b) = (arena.take(2 * PAGE).unwrap(), arena.take(PAGE).unwrap());
        let (va, vb) = (arena.view(a, 2 * PAGE).unwrap(), arena.view(b, PAGE).unwrap());
        assert_eq!(perms_at(va).as_deref(), Some("rw-s"));
        assert_eq!(perms_at(va + 2 * PAGE as usize).as_deref(), Some("---p"), "a guard page after the view");
        assert_eq!(perms_at(vb + PAGE as usize).as_deref(), Some("---p"));
        // A client's mapping of the same range sees the view's bytes.
        let client = arena.map(a, PAGE, Prot::READ | Prot::WRITE, None).unwrap();
        // SAFETY: both are live mappings of the same page of our memfd.
        unsafe {
            (va as *mut u32).write_volatile(0xfeed);
            assert_eq!((client as *const u32).read_volatile(), 0xfeed);
        }
        arena.host.munmap(client, PAGE as usize).unwrap();
        arena.unmap(va, 2 * PAGE);
        arena.unmap(vb, PAGE);
        assert_eq!(perms_at(va + 2 * PAGE as usize), None, "the guard goes with the view");
    }
}
