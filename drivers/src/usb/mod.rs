//! The USB boundary: what a USB device driver needs of a host controller — vendor control
//! transfers on endpoint 0 and bulk transfers on other endpoints, each with a timeout, each
//! failing with a typed [`UsbError`] (stall, timeout, disconnected, fault).
//!
//! Implementations: [`host::HostUsb`] over usbfs (the `nusb` crate) and the emulated ASM24xx
//! bridge in the emu crate. The ASM24xx bridge driver ([`crate::pci::asm24xx`]) sits on top
//! and never talks to usbfs itself, so the emulated bridge can stand in for the hardware.

mod error;
pub mod host;

pub use error::{UsbError, UsbResult};

use std::fmt::Debug;
use std::time::Duration;

/// `bmRequestType` of a vendor request to the device, host to device.
pub const VENDOR_OUT: u8 = 0x40;
/// `bmRequestType` of a vendor request to the device, device to host.
pub const VENDOR_IN: u8 = 0xC0;
/// The direction bit of `bmRequestType` and of an endpoint address: set for IN.
pub const DIR_IN: u8 = 0x80;

/// The SETUP packet of a control transfer, less its length (the data's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// `bmRequestType`: direction (bit 7), type (bits 5-6), recipient (bits 0-4).
    pub request_type: u8,
    pub request: u8,
    pub value: u16,
    pub index: u16,
}

impl Setup {
    pub fn vendor_out(request: u8, value: u16, index: u16) -> Setup {
        Setup { request_type: VENDOR_OUT, request, value, index }
    }

    pub fn vendor_in(request: u8, value: u16, index: u16) -> Setup {
        Setup { request_type: VENDOR_IN, request, value, index }
    }
}

/// One opened, claimed USB device. Calls are synchronous; a transfer that does not complete
/// within its timeout is cancelled and reported as [`UsbError::Timeout`].
pub trait UsbTransport: Send + Sync + Debug {
    /// What errors name (`usb:/dev/bus/usb/002/003`, `usb:emu:gfx1100`).
    fn name(&self) -> &str;
    /// A control transfer reading up to `len` bytes; the bytes the device sent.
    fn control_in(&self, setup: Setup, len: usize, timeout: Duration) -> UsbResult<Vec<u8>>;
    fn control_out(&self, setup: Setup, data: &[u8], timeout: Duration) -> UsbResult<()>;
    /// A bulk IN transfer on `endpoint` (an address with [`DIR_IN`] set) filling `buf`
    /// exactly: a short transfer is an error.
    fn bulk_in(&self, endpoint: u8, buf: &mut [u8], timeout: Duration) -> UsbResult<()>;
    fn bulk_out(&self, endpoint: u8, data: &[u8], timeout: Duration) -> UsbResult<()>;
}
