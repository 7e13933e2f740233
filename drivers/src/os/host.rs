//! The real OS: system calls through libc. Paths may be re-rooted so that tests and bring-up tools
//! can point discovery at a captured copy of another machine's /sys, /proc and /dev.

use super::{Fd, MapFlags, OpenFlags, Os, Prot};
use crate::{Error, Result};
use std::collections::HashMap;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Debug, Default)]
pub struct HostOs {
    root: Option<PathBuf>,
    /// Path of every file we opened, so that a failing ioctl can say which device it was on.
    open_files: Mutex<HashMap<i32, PathBuf>>,
}

impl HostOs {
    /// The running system.
    pub fn new() -> Self {
        HostOs::default()
    }

    /// Every absolute path is looked up under `root` instead of `/`.
    pub fn with_root(root: impl Into<PathBuf>) -> Self {
        HostOs { root: Some(root.into()), ..HostOs::default() }
    }

    fn resolve(&self, path: &Path) -> PathBuf {
        match &self.root {
            None => path.to_path_buf(),
            Some(root) => root.join(path.strip_prefix("/").unwrap_or(path)),
        }
    }

    fn path_of(&self, fd: Fd) -> PathBuf {
        let files = self.open_files.lock().unwrap_or_else(|e| e.into_inner());
        files.get(&fd.0).cloned().unwrap_or_else(|| PathBuf::from(format!("fd {}", fd.0)))
    }
}

/// The most a sysfs or procfs file read through [`Os::read_to_string`] may hold: those are a page
/// or so; anything larger is not the file discovery expects.
pub const MAX_READ: u64 = 1 << 20;

/// Reads a small text file without blocking: O_NONBLOCK so that opening a FIFO (a captured tree
/// under `BAREGPU_SYSROOT` can hold anything) returns at once, only regular files, at most
/// [`MAX_READ`] bytes.
fn read_bounded(resolved: &Path, shown: &Path) -> Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(resolved)
        .map_err(|e| Error::io(shown, e))?;
    let meta = file.metadata().map_err(|e| Error::io(shown, e))?;
    if !meta.is_file() {
        return Err(Error::malformed(shown, "not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_READ + 1).read_to_end(&mut bytes).map_err(|e| Error::io(shown, e))?;
    if bytes.len() as u64 > MAX_READ {
        return Err(Error::malformed(shown, format!("larger than {MAX_READ} bytes")));
    }
    String::from_utf8(bytes)
        .map_err(|e| Error::malformed(shown, format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to())))
}

fn last_error() -> std::io::Error {
    std::io::Error::last_os_error()
}

impl Os for HostOs {
    fn read_to_string(&self, path: &Path) -> Result<String> {
        read_bounded(&self.resolve(path), path)
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<String>> {
        let dir = std::fs::read_dir(self.resolve(path)).map_err(|e| Error::io(path, e))?;
        let mut names = Vec::new();
        for entry in dir {
            let entry = entry.map_err(|e| Error::io(path, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn exists(&self, path: &Path) -> bool {
        self.resolve(path).exists()
    }

    fn open(&self, path: &Path, flags: OpenFlags) -> Result<Fd> {
        let c_path = CString::new(self.resolve(path).as_os_str().as_bytes())
            .map_err(|_| Error::malformed(path, "path contains a NUL byte"))?;
        let mut oflags = match (flags.contains(OpenFlags::READ), flags.contains(OpenFlags::WRITE)) {
            (_, false) => libc::O_RDONLY,
            (false, true) => libc::O_WRONLY,
            (true, true) => libc::O_RDWR,
        };
        if flags.contains(OpenFlags::CLOEXEC) {
            oflags |= libc::O_CLOEXEC;
        }
        // SAFETY: c_path is a valid NUL-terminated string for the duration of the call.
        let fd = unsafe { libc::open(c_path.as_ptr(), oflags) };
        if fd < 0 {
            return Err(Error::io(path, last_error()));
        }
        self.open_files.lock().unwrap_or_else(|e| e.into_inner()).insert(fd, path.to_path_buf());
        Ok(Fd(fd))
    }

    fn close(&self, fd: Fd) -> Result<()> {
        let path = self.open_files.lock().unwrap_or_else(|e| e.into_inner()).remove(&fd.0);
        if path.is_none() {
            // Only close what we opened: closing a stranger's fd number corrupts someone else's file.
            return Err(Error::BadFd(fd.0));
        }
        // SAFETY: fd was returned by open/eventfd above and has not been closed since.
        if unsafe { libc::close(fd.0) } < 0 {
            return Err(Error::sys(format!("close {}", path.unwrap_or_default().display()), last_error()));
        }
        Ok(())
    }

    fn ioctl(&self, fd: Fd, request: u32, arg: &mut [u8]) -> Result<i32> {
        // An _IOC request encodes the argument size in bits 16..29; a shorter buffer would let
        // the kernel write past it. Only requests with a direction (bits 30..31) are _IOC ones:
        // UVM's are plain numbers whose high bits are no size (UVM_INITIALIZE is 0x30000001).
        let size = if request >> 30 != 0 { ((request >> 16) & 0x3fff) as usize } else { 0 };
        if arg.len() < size {
            return Err(Error::Ioctl {
                path: self.path_of(fd),
                request,
                name: None,
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("argument is {} bytes, the request says {size}", arg.len()),
                ),
            });
        }
        // SAFETY: arg is a live, writable buffer at least as large as the request's size field.
        let ret = unsafe { libc::ioctl(fd.0, request as libc::c_ulong, arg.as_mut_ptr()) };
        if ret < 0 {
            return Err(Error::Ioctl { path: self.path_of(fd), request, name: None, source: last_error() });
        }
        Ok(ret)
    }

    fn mmap(&self, addr: usize, len: usize, prot: Prot, flags: MapFlags, fd: Option<Fd>, offset: u64) -> Result<usize> {
        let mut p = libc::PROT_NONE;
        for (ours, theirs) in
            [(Prot::READ, libc::PROT_READ), (Prot::WRITE, libc::PROT_WRITE), (Prot::EXEC, libc::PROT_EXEC)]
        {
            if prot.contains(ours) {
                p |= theirs;
            }
        }
        let mut f = 0;
        for (ours, theirs) in [
            (MapFlags::SHARED, libc::MAP_SHARED),
            (MapFlags::PRIVATE, libc::MAP_PRIVATE),
            (MapFlags::FIXED, libc::MAP_FIXED),
            (MapFlags::ANONYMOUS, libc::MAP_ANONYMOUS),
            (MapFlags::NORESERVE, libc::MAP_NORESERVE),
            (MapFlags::POPULATE, libc::MAP_POPULATE),
            (MapFlags::LOCKED, libc::MAP_LOCKED),
            (MapFlags::HUGETLB, libc::MAP_HUGETLB),
        ] {
            if flags.contains(ours) {
                f |= theirs;
            }
        }
        let raw_fd = fd.map_or(-1, |fd| fd.0);
        // SAFETY: mmap does not touch Rust-owned memory unless MAP_FIXED replaces it; MAP_FIXED
        // is only used by drivers over ranges they reserved themselves.
        let ptr = unsafe { libc::mmap(addr as *mut libc::c_void, len, p, f, raw_fd, offset as libc::off_t) };
        if ptr == libc::MAP_FAILED {
            let on = fd.map_or("anonymous".into(), |fd| self.path_of(fd).display().to_string());
            return Err(Error::sys(
                format!("mmap {len:#x} bytes of {on} at offset {offset:#x} (hint {addr:#x})"),
                last_error(),
            ));
        }
        Ok(ptr as usize)
    }

    fn munmap(&self, addr: usize, len: usize) -> Result<()> {
        // SAFETY: the caller unmaps a range it mapped through this boundary.
        if unsafe { libc::munmap(addr as *mut libc::c_void, len) } < 0 {
            return Err(Error::sys(format!("munmap {len:#x} bytes at {addr:#x}"), last_error()));
        }
        Ok(())
    }

    fn eventfd(&self, initial: u32) -> Result<Fd> {
        // SAFETY: plain system call with no pointers.
        let fd = unsafe { libc::eventfd(initial, libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(Error::sys("eventfd", last_error()));
        }
        self.open_files.lock().unwrap_or_else(|e| e.into_inner()).insert(fd, PathBuf::from("eventfd"));
        Ok(Fd(fd))
    }

    fn write_file(&self, path: &Path, data: &str) -> Result<()> {
        use std::io::Write;
        // No create, no truncate: sysfs attributes exist or the write is wrong.
        let mut file =
            std::fs::OpenOptions::new().write(true).open(self.resolve(path)).map_err(|e| Error::io(path, e))?;
        // One write(2): a sysfs store sees exactly what one call passes.
        let n = file.write(data.as_bytes()).map_err(|e| Error::io(path, e))?;
        if n != data.len() {
            return Err(Error::malformed(path, format!("took {n} of the {} bytes written", data.len())));
        }
        Ok(())
    }

    fn read_link(&self, path: &Path) -> Result<PathBuf> {
        std::fs::read_link(self.resolve(path)).map_err(|e| Error::io(path, e))
    }

    fn pread(&self, fd: Fd, buf: &mut [u8], offset: u64) -> Result<usize> {
        let off = libc::off_t::try_from(offset)
            .map_err(|_| Error::malformed(self.path_of(fd), format!("offset {offset:#x} is out of range")))?;
        // SAFETY: buf is a live, writable buffer of buf.len() bytes.
        let n = unsafe { libc::pread(fd.0, buf.as_mut_ptr().cast(), buf.len(), off) };
        if n < 0 {
            let e = last_error();
            return Err(Error::sys(
                format!("read of {:#x} bytes at {offset:#x} of {}", buf.len(), self.path_of(fd).display()),
                e,
            ));
        }
        Ok(n as usize)
    }

    fn pwrite(&self, fd: Fd, data: &[u8], offset: u64) -> Result<usize> {
        let off = libc::off_t::try_from(offset)
            .map_err(|_| Error::malformed(self.path_of(fd), format!("offset {offset:#x} is out of range")))?;
        // SAFETY: data is a live buffer of data.len() bytes that the call only reads.
        let n = unsafe { libc::pwrite(fd.0, data.as_ptr().cast(), data.len(), off) };
        if n < 0 {
            let e = last_error();
            return Err(Error::sys(
                format!("write of {:#x} bytes at {offset:#x} of {}", data.len(), self.path_of(fd).display()),
                e,
            ));
        }
        Ok(n as usize)
    }

    fn read_eventfd(&self, fd: Fd) -> Result<u64> {
        let mut count = [0u8; 8];
        // SAFETY: count is a live, writable 8-byte buffer; an eventfd read moves exactly 8 bytes.
        let n = unsafe { libc::read(fd.0, count.as_mut_ptr().cast(), count.len()) };
        if n != 8 {
            return Err(Error::sys(format!("read of eventfd {}", fd.0), last_error()));
        }
        Ok(u64::from_ne_bytes(count))
    }

    fn try_lock(&self, path: &Path) -> Result<Option<Fd>> {
        let c_path = CString::new(self.resolve(path).as_os_str().as_bytes())
            .map_err(|_| Error::malformed(path, "path contains a NUL byte"))?;
        // SAFETY: c_path is a valid NUL-terminated string for the duration of the call.
        let fd = unsafe { libc::open(c_path.as_ptr(), libc::O_RDWR | libc::O_CREAT | libc::O_CLOEXEC, 0o600) };
        if fd < 0 {
            return Err(Error::io(path, last_error()));
        }
        // SAFETY: fd was just opened above.
        if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } < 0 {
            let e = last_error();
            // SAFETY: fd is ours and still open.
            unsafe { libc::close(fd) };
            return match e.raw_os_error() {
                Some(libc::EWOULDBLOCK) => Ok(None),
                _ => Err(Error::sys(format!("flock {}", path.display()), e)),
            };
        }
        self.open_files.lock().unwrap_or_else(|e| e.into_inner()).insert(fd, path.to_path_buf());
        Ok(Some(Fd(fd)))
    }

    fn ioctl_int(&self, fd: Fd, request: u32, value: u64) -> Result<i32> {
        // SAFETY: the request takes an integer, not a pointer: the kernel dereferences nothing.
        let ret = unsafe { libc::ioctl(fd.0, request as libc::c_ulong, value as libc::c_ulong) };
        if ret < 0 {
            return Err(Error::Ioctl { path: self.path_of(fd), request, name: None, source: last_error() });
        }
        Ok(ret)
    }

    fn ioctl_new_fd(&self, fd: Fd, request: u32, arg: &mut [u8], what: &Path) -> Result<Fd> {
        let new = self.ioctl(fd, request, arg)?;
        self.open_files.lock().unwrap_or_else(|e| e.into_inner()).insert(new, what.to_path_buf());
        Ok(Fd(new))
    }

    fn poll_in(&self, fd: Fd, timeout: std::time::Duration) -> Result<bool> {
        let mut p = libc::pollfd { fd: fd.0, events: libc::POLLIN | libc::POLLPRI, revents: 0 };
        // Round up: a 10 µs wait must not become a 0 ms non-blocking poll.
        let ms = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
        // SAFETY: one pollfd that lives across the call.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        if r < 0 {
            let e = last_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(Error::sys(format!("poll of fd {}", fd.0), e));
        }
        Ok(r > 0 && p.revents & (libc::POLLIN | libc::POLLPRI) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rerooted_paths_resolve_under_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sys/x")).unwrap();
        std::fs::write(dir.path().join("sys/x/a"), "1\n").unwrap();
        std::fs::write(dir.path().join("sys/x/b"), "2\n").unwrap();
        let os = HostOs::with_root(dir.path());
        assert_eq!(os.read_to_string(Path::new("/sys/x/a")).unwrap(), "1\n");
        assert_eq!(os.read_dir(Path::new("/sys/x")).unwrap(), vec!["a", "b"]);
        assert!(os.exists(Path::new("/sys/x/b")));
        let err = os.read_to_string(Path::new("/sys/x/c")).unwrap_err();
        assert!(err.is_not_found());
        // The error names the path the driver asked for, not the re-rooted one.
        assert!(err.to_string().starts_with("/sys/x/c: "), "{err}");
    }

    #[test]
    fn reads_refuse_fifos_directories_and_huge_files_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("properties");
        let c = CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: c is a valid NUL-terminated path for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "{}", last_error());
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("big"), vec![b'1'; MAX_READ as usize + 1]).unwrap();
        std::fs::write(dir.path().join("bin"), [0xff, 0xfe]).unwrap();
        let root = dir.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        // In a thread, so that a blocking open fails the test instead of hanging it.
        std::thread::spawn(move || {
            let os = HostOs::with_root(root);
            let errs: Vec<String> = ["/properties", "/d", "/big", "/bin"]
                .iter()
                .map(|p| os.read_to_string(Path::new(p)).unwrap_err().to_string())
                .collect();
            let _ = tx.send(errs);
        });
        let errs = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("reading a FIFO blocked");
        assert!(errs[0].contains("/properties") && errs[0].contains("not a regular file"), "{}", errs[0]);
        assert!(errs[1].starts_with("/d: "), "{}", errs[1]);
        assert!(errs[2].contains("larger than 1048576 bytes"), "{}", errs[2]);
        assert!(errs[3].contains("not UTF-8"), "{}", errs[3]);
    }

    #[test]
    fn reservation_then_fixed_mapping_then_unmap() {
        let os = HostOs::new();
        let len = 1 << 20;
        let base = os
            .mmap(0, len, Prot::empty(), MapFlags::PRIVATE | MapFlags::ANONYMOUS | MapFlags::NORESERVE, None, 0)
            .unwrap();
        let page = os
            .mmap(
                base + 4096,
                4096,
                Prot::READ | Prot::WRITE,
                MapFlags::PRIVATE | MapFlags::ANONYMOUS | MapFlags::FIXED,
                None,
                0,
            )
            .unwrap();
        assert_eq!(page, base + 4096);
        // SAFETY: the page was just mapped read-write above.
        unsafe {
            std::ptr::write_volatile(page as *mut u32, 0xdead_beef);
            assert_eq!(std::ptr::read_volatile(page as *const u32), 0xdead_beef);
        }
        os.munmap(base, len).unwrap();
    }

    #[test]
    fn ioctl_errors_name_the_device_and_request() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("plain"), "x").unwrap();
        let os = HostOs::with_root(dir.path());
        let fd = os.open(Path::new("/plain"), OpenFlags::READ | OpenFlags::CLOEXEC).unwrap();
        let mut arg = [0u8; 8];
        // _IOR('K', 1, 8): AMDKFD_IOC_GET_VERSION on a plain file is ENOTTY.
        let err = os.ioctl(fd, 0x8008_4b01, &mut arg).unwrap_err();
        assert_eq!(err.errno(), Some(libc::ENOTTY));
        assert!(err.to_string().starts_with("ioctl 0x80084b01 on /plain: "), "{err}");
        // A buffer smaller than the request's size is refused before the kernel sees it.
        let err = os.ioctl(fd, 0x8008_4b01, &mut arg[..4]).unwrap_err().to_string();
        assert!(err.contains("argument is 4 bytes, the request says 8"), "{err}");
        // A request with no direction bits is a plain number (UVM's), not a size: the kernel
        // judges it (ENOTTY here), as it did UVM_INITIALIZE's 16 bytes on a real 580 driver.
        let mut uvm_init = [0u8; 16];
        let err = os.ioctl(fd, 0x3000_0001, &mut uvm_init).unwrap_err();
        assert_eq!(err.errno(), Some(libc::ENOTTY), "{err}");
        os.close(fd).unwrap();
        assert!(matches!(os.close(fd), Err(Error::BadFd(_))));
    }

    #[test]
    fn writes_links_and_positioned_reads_go_to_the_rerooted_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("enable"), "0\n").unwrap();
        std::fs::write(dir.path().join("config"), [0x02, 0x10, 0x4c, 0x74, 0, 0, 0, 0]).unwrap();
        std::os::unix::fs::symlink("../drivers/amdgpu", dir.path().join("driver")).unwrap();
        let os = HostOs::with_root(dir.path());
        os.write_file(Path::new("/enable"), "1").unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("enable")).unwrap(), "1\n", "no truncation, like sysfs");
        // Writing never creates a file: a missing sysfs attribute is an error.
        assert!(os.write_file(Path::new("/missing"), "1").unwrap_err().is_not_found());
        assert_eq!(os.read_link(Path::new("/driver")).unwrap(), PathBuf::from("../drivers/amdgpu"));
        let fd = os.open(Path::new("/config"), OpenFlags::READ | OpenFlags::WRITE | OpenFlags::CLOEXEC).unwrap();
        let mut id = [0u8; 4];
        assert_eq!(os.pread(fd, &mut id, 0).unwrap(), 4);
        assert_eq!(u32::from_le_bytes(id), 0x744c_1002);
        assert_eq!(os.pwrite(fd, &[0x06, 0x04], 4).unwrap(), 2);
        let mut past = [0u8; 4];
        assert_eq!(os.pread(fd, &mut past, 6).unwrap(), 2, "a short read at the end of the file");
        assert_eq!(past[..2], [0, 0]);
        assert_eq!(std::fs::read(dir.path().join("config")).unwrap()[4..6], [0x06, 0x04]);
        os.close(fd).unwrap();
    }

    #[test]
    fn a_lock_is_exclusive_until_its_holder_closes() {
        let dir = tempfile::tempdir().unwrap();
        let os = HostOs::with_root(dir.path());
        let held = os.try_lock(Path::new("/dev.lock")).unwrap().expect("free at first");
        assert_eq!(os.try_lock(Path::new("/dev.lock")).unwrap(), None, "a second open file is refused");
        os.close(held).unwrap();
        let again = os.try_lock(Path::new("/dev.lock")).unwrap().expect("free after close");
        os.close(again).unwrap();
        assert!(os.try_lock(Path::new("/missing-dir/x.lock")).unwrap_err().is_not_found());
    }

    #[test]
    fn an_eventfd_count_reads_back_and_resets() {
        let os = HostOs::new();
        let fd = os.eventfd(3).unwrap();
        assert_eq!(os.read_eventfd(fd).unwrap(), 3);
        assert!(!os.poll_in(fd, std::time::Duration::from_micros(10)).unwrap());
        os.close(fd).unwrap();
    }

    #[test]
    fn eventfd_opens_and_closes() {
        let os = HostOs::new();
        let fd = os.eventfd(0).unwrap();
        os.close(fd).unwrap();
    }

    #[test]
    fn poll_in_reports_a_ready_file_and_times_out_on_an_idle_one() {
        let os = HostOs::new();
        let (ready, idle) = (os.eventfd(1).unwrap(), os.eventfd(0).unwrap());
        assert!(os.poll_in(ready, std::time::Duration::from_secs(5)).unwrap());
        assert!(!os.poll_in(idle, std::time::Duration::from_micros(10)).unwrap());
        os.close(ready).unwrap();
        os.close(idle).unwrap();
    }
}
