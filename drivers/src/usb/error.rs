//! Typed failures of a USB transfer, and how they become the drivers crate's error (an
//! `io::Error` kind a caller can match on: timed out, broken pipe, not connected).

use std::fmt;

/// Why a transfer failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UsbError {
    /// The device answered with a STALL (a request it refuses, or a halted endpoint).
    Stall,
    /// No completion within the timeout (the transfer was cancelled).
    Timeout,
    /// The device is gone (unplugged, reset, or its link dropped).
    Disconnected,
    /// A transfer that completed with fewer bytes than asked for.
    Short { wanted: usize, got: usize },
    /// A protocol or hardware fault of the transfer (CRC, babble, overflow).
    Fault(String),
    /// A request the host side refuses (bad endpoint, bad length).
    Invalid(String),
}

pub type UsbResult<T> = std::result::Result<T, UsbError>;

impl fmt::Display for UsbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UsbError::Stall => write!(f, "the device stalled the transfer"),
            UsbError::Timeout => write!(f, "the transfer timed out"),
            UsbError::Disconnected => write!(f, "the device is disconnected"),
            UsbError::Short { wanted, got } => write!(f, "short transfer: {got} of {wanted} bytes"),
            UsbError::Fault(why) => write!(f, "transfer error: {why}"),
            UsbError::Invalid(why) => write!(f, "invalid transfer: {why}"),
        }
    }
}

impl std::error::Error for UsbError {}

impl UsbError {
    fn kind(&self) -> std::io::ErrorKind {
        use std::io::ErrorKind as K;
        match self {
            UsbError::Stall => K::BrokenPipe,
            UsbError::Timeout => K::TimedOut,
            UsbError::Disconnected => K::NotConnected,
            UsbError::Short { .. } => K::UnexpectedEof,
            UsbError::Fault(_) => K::Other,
            UsbError::Invalid(_) => K::InvalidInput,
        }
    }

    /// The drivers crate's error for this failure of `op` (`usb:…: control 0xF0 out`).
    pub fn on(self, op: impl Into<String>) -> crate::Error {
        crate::Error::sys(op, std::io::Error::new(self.kind(), self))
    }
}
