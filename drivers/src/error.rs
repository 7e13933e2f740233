//! The drivers crate's one error type: every variant carries what failed and on what
//! (path, device, ioctl), because bring-up errors are read by people at a bench.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: malformed: {reason}")]
    Malformed { path: PathBuf, reason: String },
    #[error("ioctl {request:#010x} on {path}: {source}")]
    Ioctl {
        path: PathBuf,
        request: u32,
        #[source]
        source: std::io::Error,
    },
    #[error("{op} failed: {source}")]
    Sys {
        /// The call and its arguments, as the reader needs them (`mmap 0x1000 bytes at ...`).
        op: String,
        #[source]
        source: std::io::Error,
    },
    #[error("fd {0} is not open")]
    BadFd(i32),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    pub fn malformed(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Error::Malformed { path: path.into(), reason: reason.into() }
    }

    pub fn sys(op: impl Into<String>, source: std::io::Error) -> Self {
        Error::Sys { op: op.into(), source }
    }

    /// True when the file or directory does not exist (as opposed to existing but unreadable).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }

    /// The OS error number behind this error, if it came from a system call.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Io { source, .. } | Error::Ioctl { source, .. } | Error::Sys { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }
}
