//! A recording test double of the OS: it serves files from memory, answers ioctls through a
//! handler the test supplies, backs mmaps with anonymous memory, and records every call so unit
//! tests can assert the exact sequence a driver issues (request numbers and argument bytes).

use super::{Fd, HostOs, MapFlags, OpenFlags, Os, Prot};
use crate::{Error, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One call through the boundary, as the driver made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    Open {
        path: PathBuf,
        flags: OpenFlags,
    },
    Close {
        path: PathBuf,
    },
    /// The argument bytes as the driver passed them (before the handler rewrote them).
    Ioctl {
        path: PathBuf,
        request: u32,
        arg: Vec<u8>,
    },
    Mmap {
        len: usize,
        prot: Prot,
        flags: MapFlags,
        path: Option<PathBuf>,
        offset: u64,
    },
    Munmap {
        addr: usize,
        len: usize,
    },
    Eventfd,
}

type IoctlHandler = Box<dyn FnMut(&Path, u32, &mut [u8]) -> Result<i32> + Send>;

pub struct RecordingOs {
    files: BTreeMap<PathBuf, String>,
    handler: Mutex<IoctlHandler>,
    calls: Mutex<Vec<Call>>,
    open: Mutex<HashMap<i32, PathBuf>>,
    memory: HostOs,
}

impl Default for RecordingOs {
    fn default() -> Self {
        Self::new()
    }
}

impl RecordingOs {
    /// No files; every ioctl fails with ENOTTY, as on a file that is not a device.
    pub fn new() -> Self {
        RecordingOs {
            files: BTreeMap::new(),
            handler: Mutex::new(Box::new(|path, request, _| {
                Err(Error::Ioctl {
                    path: path.to_path_buf(),
                    request,
                    name: None,
                    source: std::io::Error::from_raw_os_error(libc::ENOTTY),
                })
            })),
            calls: Mutex::new(Vec::new()),
            open: Mutex::new(HashMap::new()),
            memory: HostOs::new(),
        }
    }

    /// Add a file (a sysfs attribute, or an empty device node to be opened).
    pub fn with_file(mut self, path: impl Into<PathBuf>, contents: impl Into<String>) -> Self {
        self.files.insert(path.into(), contents.into());
        self
    }

    /// Answer ioctls with `handler(path, request, arg)`; it may rewrite `arg` as the kernel would.
    pub fn on_ioctl(self, handler: impl FnMut(&Path, u32, &mut [u8]) -> Result<i32> + Send + 'static) -> Self {
        *self.handler.lock().unwrap_or_else(|e| e.into_inner()) = Box::new(handler);
        self
    }

    /// Every call so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn record(&self, call: Call) {
        self.calls.lock().unwrap_or_else(|e| e.into_inner()).push(call);
    }

    fn path_of(&self, fd: Fd) -> Result<PathBuf> {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).get(&fd.0).cloned().ok_or(Error::BadFd(fd.0))
    }

    fn new_fd(&self, path: PathBuf) -> Fd {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let fd = (3..).find(|n| !open.contains_key(n)).expect("fd numbers are unbounded");
        open.insert(fd, path);
        Fd(fd)
    }
}

impl Os for RecordingOs {
    fn read_to_string(&self, path: &Path) -> Result<String> {
        self.files.get(path).cloned().ok_or_else(|| Error::io(path, std::io::ErrorKind::NotFound.into()))
    }

    fn read_dir(&self, path: &Path) -> Result<Vec<String>> {
        let mut names: Vec<String> = self
            .files
            .keys()
            .filter_map(|p| p.strip_prefix(path).ok())
            .filter_map(|rest| rest.components().next())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        names.dedup();
        if names.is_empty() {
            return Err(Error::io(path, std::io::ErrorKind::NotFound.into()));
        }
        Ok(names)
    }

    fn exists(&self, path: &Path) -> bool {
        self.files.keys().any(|p| p.starts_with(path))
    }

    fn open(&self, path: &Path, flags: OpenFlags) -> Result<Fd> {
        self.record(Call::Open { path: path.to_path_buf(), flags });
        if !self.files.contains_key(path) {
            return Err(Error::io(path, std::io::ErrorKind::NotFound.into()));
        }
        Ok(self.new_fd(path.to_path_buf()))
    }

    fn close(&self, fd: Fd) -> Result<()> {
        let path = self.open.lock().unwrap_or_else(|e| e.into_inner()).remove(&fd.0).ok_or(Error::BadFd(fd.0))?;
        self.record(Call::Close { path });
        Ok(())
    }

    fn ioctl(&self, fd: Fd, request: u32, arg: &mut [u8]) -> Result<i32> {
        let path = self.path_of(fd)?;
        self.record(Call::Ioctl { path: path.clone(), request, arg: arg.to_vec() });
        (self.handler.lock().unwrap_or_else(|e| e.into_inner()))(&path, request, arg)
    }

    fn mmap(&self, addr: usize, len: usize, prot: Prot, flags: MapFlags, fd: Option<Fd>, offset: u64) -> Result<usize> {
        let path = fd.map(|fd| self.path_of(fd)).transpose()?;
        self.record(Call::Mmap { len, prot, flags, path, offset });
        // File mappings become private anonymous memory: the driver can read and write it.
        let anon = (flags - MapFlags::SHARED) | MapFlags::PRIVATE | MapFlags::ANONYMOUS;
        self.memory.mmap(addr, len, prot, anon, None, 0)
    }

    fn munmap(&self, addr: usize, len: usize) -> Result<()> {
        self.record(Call::Munmap { addr, len });
        self.memory.munmap(addr, len)
    }

    fn eventfd(&self, _initial: u32) -> Result<Fd> {
        self.record(Call::Eventfd);
        Ok(self.new_fd(PathBuf::from("eventfd")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_the_sequence_and_lets_the_handler_answer() {
        let os = RecordingOs::new().with_file("/dev/kfd", "").with_file("/sys/a/b/c", "7\n").on_ioctl(
            |path, _request, arg| {
                assert_eq!(path, Path::new("/dev/kfd"));
                arg[0..4].copy_from_slice(&1u32.to_ne_bytes());
                arg[4..8].copy_from_slice(&17u32.to_ne_bytes());
                Ok(0)
            },
        );
        assert_eq!(os.read_dir(Path::new("/sys/a")).unwrap(), vec!["b"]);
        assert!(os.read_dir(Path::new("/sys/nope")).unwrap_err().is_not_found());
        let fd = os.open(Path::new("/dev/kfd"), OpenFlags::READ | OpenFlags::WRITE).unwrap();
        let mut arg = [0u8; 8];
        os.ioctl(fd, 0x8008_4b01, &mut arg).unwrap();
        assert_eq!(u32::from_ne_bytes(arg[4..8].try_into().unwrap()), 17);
        let addr = os.mmap(0, 4096, Prot::READ | Prot::WRITE, MapFlags::SHARED, Some(fd), 0x1000).unwrap();
        // SAFETY: mapped read-write just above.
        unsafe { std::ptr::write_volatile(addr as *mut u64, 5) };
        os.munmap(addr, 4096).unwrap();
        os.close(fd).unwrap();
        let calls = os.calls();
        assert_eq!(calls.len(), 5);
        assert_eq!(calls[1], Call::Ioctl { path: "/dev/kfd".into(), request: 0x8008_4b01, arg: vec![0; 8] });
        assert!(
            matches!(&calls[2], Call::Mmap { len: 4096, offset: 0x1000, path: Some(p), .. } if p == Path::new("/dev/kfd"))
        );
        assert_eq!(calls[4], Call::Close { path: "/dev/kfd".into() });
    }

    #[test]
    fn unscripted_ioctls_fail_like_a_non_device() {
        let os = RecordingOs::new().with_file("/dev/x", "");
        let fd = os.open(Path::new("/dev/x"), OpenFlags::READ).unwrap();
        assert_eq!(os.ioctl(fd, 1, &mut []).unwrap_err().errno(), Some(libc::ENOTTY));
        assert!(matches!(os.ioctl(Fd(99), 1, &mut []), Err(Error::BadFd(99))));
        assert!(os.open(Path::new("/dev/missing"), OpenFlags::READ).unwrap_err().is_not_found());
    }
}
