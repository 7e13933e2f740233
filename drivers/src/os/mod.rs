//! The OS boundary. Driver code reaches the kernel only through [`Os`], so that an emulated
//! kernel (the `emu` crate) or a recording double can stand in for the real one.
//!
//! Today it covers what discovery needs (sysfs and procfs reads); the ioctl, mmap and eventfd
//! calls of the KFD and RM drivers join it with those drivers.

mod host;

pub use host::HostOs;

use crate::Result;
use std::path::Path;

/// The kernel as driver code sees it.
pub trait Os: Send + Sync {
    /// Whole contents of a (small, text) file such as a sysfs attribute.
    fn read_to_string(&self, path: &Path) -> Result<String>;
    /// Names of the entries of a directory, sorted, without `.` and `..`.
    fn read_dir(&self, path: &Path) -> Result<Vec<String>>;
    /// Whether a path exists (a device node, a sysfs directory).
    fn exists(&self, path: &Path) -> bool;
}
