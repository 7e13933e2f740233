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
    #[error("{} on {path}: {source}", ioctl_label(name, *request))]
    Ioctl {
        path: PathBuf,
        request: u32,
        /// The request's name (`AMDKFD_IOC_CREATE_QUEUE`) when the caller knows it.
        name: Option<&'static str>,
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
    /// The kernel driver or device is of a kind or version we do not drive.
    #[error("{0}")]
    Unsupported(String),
    /// The kernel answered, but not as its interface promises.
    #[error("{0}")]
    Protocol(String),
    /// NVIDIA's RM or UVM completed the ioctl but reported a status other than NV_OK.
    #[error("{call}: {name} ({status:#x})")]
    Rm {
        /// The call with its class, control command or request, and object (`NV_ESC_RM_ALLOC of
        /// HOPPER_COMPUTE_A (0xcbc0) under 0xcaf00010`).
        call: String,
        /// The `NV_STATUS` value.
        status: u32,
        /// Its name (`NV_ERR_INVALID_CLASS`).
        name: &'static str,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

fn ioctl_label(name: &Option<&'static str>, request: u32) -> String {
    match name {
        Some(n) => format!("{n} ({request:#010x})"),
        None => format!("ioctl {request:#010x}"),
    }
}

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

    /// Name the ioctl of an `Ioctl` error (other errors pass through).
    pub fn with_ioctl_name(self, ioctl: &'static str) -> Self {
        match self {
            Error::Ioctl { path, request, source, .. } => Error::Ioctl { path, request, name: Some(ioctl), source },
            e => e,
        }
    }

    /// The OS error number behind this error, if it came from a system call.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Io { source, .. } | Error::Ioctl { source, .. } | Error::Sys { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }
}
