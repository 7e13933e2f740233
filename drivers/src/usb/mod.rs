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

/// One opened, claimed USB device. Control and bulk calls are synchronous; a transfer that does
/// not complete within its timeout is cancelled and reported as [`UsbError::Timeout`].
///
/// Bulk transfers also have a queued form, so that several are in flight at once (what a USB
/// link needs to be used at its bandwidth rather than at its round trip): `bulk_submit_*`
/// queues a transfer and returns at once, [`UsbTransport::bulk_complete`] takes the oldest
/// queued transfer of an endpoint back. Transfers queued on one endpoint complete in order; an
/// error of one is reported by its completion. Whoever queues transfers takes all of them back
/// (or cancels them with [`UsbTransport::bulk_cancel`]) before the endpoint is used again.
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
    /// Queues a bulk OUT of `data` on `endpoint` (an OUT address).
    fn bulk_submit_out(&self, endpoint: u8, data: Vec<u8>) -> UsbResult<()>;
    /// Queues a bulk IN of exactly `len` bytes on `endpoint` (an IN address).
    fn bulk_submit_in(&self, endpoint: u8, len: usize) -> UsbResult<()>;
    /// Waits up to `timeout` for the oldest transfer queued on `endpoint`: the bytes an IN
    /// transfer read (exactly as many as queued: a short one is an error), none for an OUT.
    /// A transfer that does not complete in time is cancelled and reported as a timeout.
    fn bulk_complete(&self, endpoint: u8, timeout: Duration) -> UsbResult<Vec<u8>>;
    /// Transfers queued on `endpoint` and not yet taken back.
    fn bulk_pending(&self, endpoint: u8) -> usize;
    /// Cancels every transfer still queued on `endpoint` and waits until they are returned
    /// (after an error, so that the endpoint is empty for the next user).
    fn bulk_cancel(&self, endpoint: u8);
}
