//! The emulated OS, written once for both emulated machines: the file table and fd numbering,
//! text files and directories, device nodes with their ioctls and mmaps, host eventfds and
//! anonymous memory, errno reporting. What differs between the emulated KFD and RM (which paths
//! exist, how each device node answers) is the [`Machine`] each implements; [`emulated_os!`]
//! turns a machine into an [`Os`](baregpu_drivers::os::Os).

pub(crate) mod arena;
pub(crate) mod files;

pub(crate) use files::{FileTable, OpenFile};

use baregpu_drivers::os::{Fd, HostOs, MapFlags, Os, Prot};
use baregpu_drivers::{Error, Result};
use std::io;
use std::path::{Path, PathBuf};

pub(crate) fn errno(e: i32) -> io::Error {
    io::Error::from_raw_os_error(e)
}

/// An mmap of a device node, as the node sees it (the fd and its node come separately).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MmapRequest {
    /// Where the mapping must go with MAP_FIXED (page-aligned), else a hint.
    pub addr: usize,
    pub len: usize,
    pub prot: Prot,
    pub flags: MapFlags,
    /// Page-aligned.
    pub offset: u64,
}

impl MmapRequest {
    pub(crate) fn fixed(&self) -> Option<usize> {
        self.flags.contains(MapFlags::FIXED).then_some(self.addr)
    }
}

/// One emulated machine behind the OS boundary: its files and its device nodes.
pub(crate) trait Machine: Send + Sync {
    /// The machine's kind of device node (`/dev/kfd`, a render node, `/dev/nvidiactl`).
    type Node: Clone;

    /// The host, for anonymous memory and eventfds.
    fn host(&self) -> &HostOs;
    /// Run `f` on the file table (under the machine's lock).
    fn with_files<R>(&self, f: impl FnOnce(&mut FileTable<Self::Node>) -> R) -> R;

    /// The contents of a text file the machine serves (sysfs, procfs).
    fn text(&self, path: &Path) -> Option<String>;
    /// The entries of a directory the machine serves, sorted.
    fn dir(&self, path: &Path) -> Option<Vec<String>>;
    /// The device node at `path`, as a fresh open would see it.
    fn node(&self, path: &Path) -> Option<Self::Node>;
    fn node_path(&self, node: &Self::Node) -> PathBuf;

    /// An ioctl on a node: its result or an errno.
    fn node_ioctl(&self, fd: Fd, node: &Self::Node, request: u32, arg: &mut [u8]) -> std::result::Result<i32, i32>;
    /// An mmap of a node: the address or an errno.
    fn node_mmap(&self, fd: Fd, node: &Self::Node, req: MmapRequest) -> std::result::Result<usize, i32>;
    /// `fd`, open on `node`, was closed.
    fn node_closed(&self, fd: Fd, node: Self::Node);
    /// poll(2) of a node for input: whether it became ready within `timeout`, or an errno.
    /// A node with no events never becomes ready.
    fn node_poll_in(&self, fd: Fd, node: &Self::Node, timeout: std::time::Duration) -> std::result::Result<bool, i32> {
        let _ = (fd, node);
        std::thread::sleep(timeout);
        Ok(false)
    }
    /// A doorbell write (`Os::ring_doorbell`): the store, which wakes nothing by itself; a
    /// machine with engines also wakes the one behind the doorbell.
    ///
    /// # Safety
    /// As `Os::ring_doorbell`: `addr` is an aligned word of a live doorbell mapping.
    unsafe fn ring_doorbell(&self, addr: usize, value: baregpu_drivers::os::DoorbellValue) {
        // SAFETY: the caller's contract.
        unsafe { value.store(addr) }
    }
}

fn file<M: Machine>(m: &M, fd: Fd) -> Result<OpenFile<M::Node>> {
    m.with_files(|t| t.file(fd.0).cloned()).ok_or(Error::BadFd(fd.0))
}

fn path_of<M: Machine>(m: &M, file: &OpenFile<M::Node>) -> PathBuf {
    match file {
        OpenFile::Node(n) => m.node_path(n),
        OpenFile::Text(p) => p.clone(),
        OpenFile::HostEventfd => PathBuf::from("eventfd"),
    }
}

pub(crate) fn read_to_string<M: Machine>(m: &M, path: &Path) -> Result<String> {
    if let Some(text) = m.text(path) {
        return Ok(text);
    }
    let e = if m.dir(path).is_some() { libc::EISDIR } else { libc::ENOENT };
    Err(Error::io(path, errno(e)))
}

pub(crate) fn read_dir<M: Machine>(m: &M, path: &Path) -> Result<Vec<String>> {
    if let Some(names) = m.dir(path) {
        return Ok(names);
    }
    let e = if m.text(path).is_some() { libc::ENOTDIR } else { libc::ENOENT };
    Err(Error::io(path, errno(e)))
}

pub(crate) fn exists<M: Machine>(m: &M, path: &Path) -> bool {
    m.node(path).is_some() || m.text(path).is_some() || m.dir(path).is_some()
}

pub(crate) fn open<M: Machine>(m: &M, path: &Path) -> Result<Fd> {
    let file = if let Some(n) = m.node(path) {
        OpenFile::Node(n)
    } else if m.text(path).is_some() {
        OpenFile::Text(path.to_path_buf())
    } else {
        return Err(Error::io(path, errno(libc::ENOENT)));
    };
    m.with_files(|t| t.insert(file)).map(Fd).map_err(|e| Error::io(path, errno(e)))
}

pub(crate) fn close<M: Machine>(m: &M, fd: Fd) -> Result<()> {
    match m.with_files(|t| t.remove(fd.0)).ok_or(Error::BadFd(fd.0))? {
        OpenFile::HostEventfd => m.host().close(fd),
        OpenFile::Node(n) => {
            m.node_closed(fd, n);
            Ok(())
        }
        OpenFile::Text(_) => Ok(()),
    }
}

pub(crate) fn ioctl<M: Machine>(m: &M, fd: Fd, request: u32, arg: &mut [u8]) -> Result<i32> {
    let file = file(m, fd)?;
    let r = match &file {
        OpenFile::Node(n) => m.node_ioctl(fd, n, request, arg),
        OpenFile::Text(_) | OpenFile::HostEventfd => Err(libc::ENOTTY),
    };
    r.map_err(|e| Error::Ioctl { path: path_of(m, &file), request, name: None, source: errno(e) })
}

pub(crate) fn mmap<M: Machine>(m: &M, req: MmapRequest, fd: Option<Fd>) -> Result<usize> {
    let MmapRequest { addr, len, prot, flags, offset } = req;
    let Some(fd) = fd else {
        return m.host().mmap(addr, len, prot, flags, None, offset);
    };
    let file = file(m, fd)?;
    let page = arena::PAGE;
    let r = match &file {
        _ if offset & (page - 1) != 0 || (req.fixed().is_some() && addr as u64 & (page - 1) != 0) => Err(libc::EINVAL),
        OpenFile::Node(n) => m.node_mmap(fd, n, req),
        OpenFile::Text(_) | OpenFile::HostEventfd => Err(libc::ENODEV),
    };
    r.map_err(|e| {
        let path = path_of(m, &file);
        Error::sys(
            format!("mmap {len:#x} bytes of {} at offset {offset:#x} (hint {addr:#x})", path.display()),
            errno(e),
        )
    })
}

pub(crate) fn eventfd<M: Machine>(m: &M, initial: u32) -> Result<Fd> {
    let fd = m.host().eventfd(initial)?;
    m.with_files(|t| t.insert_host_eventfd(fd.0));
    Ok(fd)
}

/// poll(2) for input: a device node's readiness is the machine's; a host eventfd is the host's.
pub(crate) fn poll_in<M: Machine>(m: &M, fd: Fd, timeout: std::time::Duration) -> Result<bool> {
    let f = file(m, fd)?;
    match &f {
        OpenFile::Node(n) => m
            .node_poll_in(fd, n, timeout)
            .map_err(|e| Error::sys(format!("poll of {}", path_of(m, &f).display()), errno(e))),
        OpenFile::HostEventfd => m.host().poll_in(fd, timeout),
        // A regular file is always ready.
        OpenFile::Text(_) => Ok(true),
    }
}

/// `impl Os` for a [`Machine`], every call going to this module's one definition of it.
macro_rules! emulated_os {
    ($t:ty) => {
        impl baregpu_drivers::os::Os for $t {
            fn read_to_string(&self, path: &std::path::Path) -> baregpu_drivers::Result<String> {
                $crate::os::read_to_string(self, path)
            }
            fn read_dir(&self, path: &std::path::Path) -> baregpu_drivers::Result<Vec<String>> {
                $crate::os::read_dir(self, path)
            }
            fn exists(&self, path: &std::path::Path) -> bool {
                $crate::os::exists(self, path)
            }
            fn open(
                &self,
                path: &std::path::Path,
                _flags: baregpu_drivers::os::OpenFlags,
            ) -> baregpu_drivers::Result<baregpu_drivers::os::Fd> {
                $crate::os::open(self, path)
            }
            fn close(&self, fd: baregpu_drivers::os::Fd) -> baregpu_drivers::Result<()> {
                $crate::os::close(self, fd)
            }
            fn ioctl(&self, fd: baregpu_drivers::os::Fd, request: u32, arg: &mut [u8]) -> baregpu_drivers::Result<i32> {
                $crate::os::ioctl(self, fd, request, arg)
            }
            fn mmap(
                &self,
                addr: usize,
                len: usize,
                prot: baregpu_drivers::os::Prot,
                flags: baregpu_drivers::os::MapFlags,
                fd: Option<baregpu_drivers::os::Fd>,
                offset: u64,
            ) -> baregpu_drivers::Result<usize> {
                $crate::os::mmap(self, $crate::os::MmapRequest { addr, len, prot, flags, offset }, fd)
            }
            fn munmap(&self, addr: usize, len: usize) -> baregpu_drivers::Result<()> {
                baregpu_drivers::os::Os::munmap($crate::os::Machine::host(self), addr, len)
            }
            fn eventfd(&self, initial: u32) -> baregpu_drivers::Result<baregpu_drivers::os::Fd> {
                $crate::os::eventfd(self, initial)
            }
            fn poll_in(
                &self,
                fd: baregpu_drivers::os::Fd,
                timeout: std::time::Duration,
            ) -> baregpu_drivers::Result<bool> {
                $crate::os::poll_in(self, fd, timeout)
            }
            unsafe fn ring_doorbell(&self, addr: usize, value: baregpu_drivers::os::DoorbellValue) {
                // SAFETY: the caller's contract, which is the machine's.
                unsafe { $crate::os::Machine::ring_doorbell(self, addr, value) }
            }
        }
    };
}
pub(crate) use emulated_os;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A machine with one device node (`/dev/x`, answering ioctl 7 with 42), one text file and
    /// one directory.
    struct Stub {
        host: HostOs,
        files: Mutex<FileTable<u8>>,
        closed: Mutex<Vec<i32>>,
    }

    impl Machine for Stub {
        type Node = u8;
        fn host(&self) -> &HostOs {
            &self.host
        }
        fn with_files<R>(&self, f: impl FnOnce(&mut FileTable<u8>) -> R) -> R {
            f(&mut self.files.lock().unwrap())
        }
        fn text(&self, path: &Path) -> Option<String> {
            (path == Path::new("/sys/t")).then(|| "text\n".into())
        }
        fn dir(&self, path: &Path) -> Option<Vec<String>> {
            (path == Path::new("/sys")).then(|| vec!["t".into()])
        }
        fn node(&self, path: &Path) -> Option<u8> {
            (path == Path::new("/dev/x")).then_some(1)
        }
        fn node_path(&self, _: &u8) -> PathBuf {
            PathBuf::from("/dev/x")
        }
        fn node_ioctl(&self, _: Fd, _: &u8, request: u32, _: &mut [u8]) -> std::result::Result<i32, i32> {
            if request == 7 {
                Ok(42)
            } else {
                Err(libc::EINVAL)
            }
        }
        fn node_mmap(&self, _: Fd, _: &u8, _: MmapRequest) -> std::result::Result<usize, i32> {
            Err(libc::EACCES)
        }
        fn node_closed(&self, fd: Fd, _: u8) {
            self.closed.lock().unwrap().push(fd.0);
        }
    }

    emulated_os!(Stub);

    fn errno_of(e: Error) -> i32 {
        e.errno().unwrap_or_else(|| panic!("no errno: {e}"))
    }

    #[test]
    fn files_nodes_and_errors_behave_as_linux_does() {
        let m = Stub { host: HostOs::new(), files: Mutex::new(FileTable::new(0x6000_0000)), closed: Mutex::default() };
        let os: &dyn Os = &m;
        assert_eq!(os.read_to_string(Path::new("/sys/t")).unwrap(), "text\n");
        assert_eq!(errno_of(os.read_to_string(Path::new("/sys")).unwrap_err()), libc::EISDIR);
        assert_eq!(errno_of(os.read_dir(Path::new("/sys/t")).unwrap_err()), libc::ENOTDIR);
        assert_eq!(errno_of(os.read_dir(Path::new("/nope")).unwrap_err()), libc::ENOENT);
        assert!(os.exists(Path::new("/dev/x")) && os.exists(Path::new("/sys")) && !os.exists(Path::new("/nope")));
        let flags = baregpu_drivers::os::OpenFlags::READ;
        let (x, t) = (os.open(Path::new("/dev/x"), flags).unwrap(), os.open(Path::new("/sys/t"), flags).unwrap());
        assert_eq!((x.0, t.0), (0x6000_0000, 0x6000_0001), "fds count up from the machine's base");
        assert_eq!(errno_of(os.open(Path::new("/nope"), flags).unwrap_err()), libc::ENOENT);
        assert_eq!(os.ioctl(x, 7, &mut []).unwrap(), 42);
        let e = os.ioctl(x, 8, &mut []).unwrap_err();
        assert!(e.to_string().contains("/dev/x") && errno_of(e) == libc::EINVAL);
        assert_eq!(errno_of(os.ioctl(t, 7, &mut []).unwrap_err()), libc::ENOTTY, "a text file has no ioctls");
        let map = |fd, offset, flags| os.mmap(0x1234_5000, 0x1000, Prot::READ, flags, Some(fd), offset);
        assert_eq!(errno_of(map(x, 0x10, MapFlags::SHARED).unwrap_err()), libc::EINVAL, "unaligned offset");
        assert_eq!(errno_of(map(x, 0, MapFlags::SHARED).unwrap_err()), libc::EACCES, "the node answers");
        assert_eq!(errno_of(map(t, 0, MapFlags::SHARED).unwrap_err()), libc::ENODEV);
        let ev = os.eventfd(0).unwrap();
        assert_eq!(errno_of(os.ioctl(ev, 7, &mut []).unwrap_err()), libc::ENOTTY);
        for fd in [x, t, ev] {
            os.close(fd).unwrap();
        }
        assert_eq!(*m.closed.lock().unwrap(), [x.0], "the node hears of its close");
        assert!(matches!(os.close(x), Err(Error::BadFd(_))));
        assert!(matches!(os.ioctl(x, 7, &mut []), Err(Error::BadFd(_))));
    }
}
