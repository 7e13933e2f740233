//! The host's USB devices through usbfs, over the `nusb` crate (pure Rust): opening by
//! `/dev/bus/usb/BBB/DDD` or by vendor/product id, claiming interface 0, and synchronous
//! control and bulk transfers with timeouts.

use super::{Setup, UsbError, UsbResult, UsbTransport, DIR_IN};
use crate::{Error, Result};
use nusb::transfer::{Buffer, Bulk, ControlIn, ControlOut, ControlType, In, Out, Recipient, TransferError};
use nusb::{DeviceInfo, Endpoint, Interface, MaybeFuture};
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// A USB device as enumeration shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsbInfo {
    pub bus: u8,
    pub address: u8,
    pub vendor: u16,
    pub product: u16,
    pub product_string: Option<String>,
}

impl UsbInfo {
    /// The usbfs node of the device (what `usb:PATH` names).
    pub fn path(&self) -> String {
        format!("/dev/bus/usb/{:03}/{:03}", self.bus, self.address)
    }
}

fn info_of(d: &DeviceInfo) -> UsbInfo {
    UsbInfo {
        bus: d.busnum(),
        address: d.device_address(),
        vendor: d.vendor_id(),
        product: d.product_id(),
        product_string: d.product_string().map(str::to_string),
    }
}

fn enumeration_error(e: nusb::Error) -> Error {
    Error::sys("listing USB devices", std::io::Error::other(e))
}

/// Every USB device of the host (none, not an error, where usbfs is absent).
pub fn list() -> Result<Vec<UsbInfo>> {
    let devices = nusb::list_devices().wait().map_err(enumeration_error)?;
    Ok(devices.map(|d| info_of(&d)).collect())
}

/// Bus and address of a `/dev/bus/usb/BBB/DDD` path.
pub fn parse_path(path: &str) -> Option<(u8, u8)> {
    let rest = path.strip_prefix("/dev/bus/usb/")?;
    let (bus, addr) = rest.split_once('/')?;
    Some((bus.parse().ok()?, addr.parse().ok()?))
}

/// One opened device with interface 0 claimed.
pub struct HostUsb {
    name: String,
    iface: Interface,
    bulk_in: Mutex<HashMap<u8, Endpoint<Bulk, In>>>,
    bulk_out: Mutex<HashMap<u8, Endpoint<Bulk, Out>>>,
}

impl std::fmt::Debug for HostUsb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostUsb").field("name", &self.name).finish_non_exhaustive()
    }
}

fn open_error(name: &str, what: &str, e: nusb::Error) -> Error {
    let why = match e.kind() {
        nusb::ErrorKind::PermissionDenied => {
            format!("{what}: permission denied (run as root, or give your user access with a udev rule)")
        }
        nusb::ErrorKind::Busy => format!("{what}: the device is in use by another program or driver"),
        nusb::ErrorKind::Disconnected => format!("{what}: the device is disconnected"),
        _ => what.to_string(),
    };
    Error::sys(format!("{name}: {why}"), std::io::Error::other(e))
}

impl HostUsb {
    /// Opens `d`, detaches any kernel driver from interface 0, claims it and selects alternate
    /// setting 0.
    pub fn open(d: &UsbInfo) -> Result<HostUsb> {
        let name = format!("usb:{}", d.path());
        let devices = nusb::list_devices().wait().map_err(enumeration_error)?;
        let found = devices.into_iter().find(|x| x.busnum() == d.bus && x.device_address() == d.address);
        let info = found.ok_or_else(|| Error::Unsupported(format!("{name}: no such USB device")))?;
        let dev = info.open().wait().map_err(|e| open_error(&name, "opening", e))?;
        let iface =
            dev.detach_and_claim_interface(0).wait().map_err(|e| open_error(&name, "claiming interface 0", e))?;
        iface.set_alt_setting(0).wait().map_err(|e| open_error(&name, "selecting alternate setting 0", e))?;
        Ok(HostUsb { name, iface, bulk_in: Mutex::default(), bulk_out: Mutex::default() })
    }

    fn endpoint_error(&self, ep: u8, e: nusb::Error) -> UsbError {
        UsbError::Invalid(format!("endpoint {ep:#04x} of {}: {e}", self.name))
    }
}

fn transfer_error(e: TransferError) -> UsbError {
    match e {
        TransferError::Cancelled => UsbError::Timeout,
        TransferError::Stall => UsbError::Stall,
        TransferError::Disconnected => UsbError::Disconnected,
        TransferError::InvalidArgument => UsbError::Invalid("refused by the host controller".into()),
        other => UsbError::Fault(other.to_string()),
    }
}

/// Type and recipient of a `bmRequestType`.
fn control_kind(request_type: u8) -> (ControlType, Recipient) {
    let ty = match (request_type >> 5) & 3 {
        0 => ControlType::Standard,
        1 => ControlType::Class,
        _ => ControlType::Vendor,
    };
    let to = match request_type & 0x1f {
        0 => Recipient::Device,
        1 => Recipient::Interface,
        2 => Recipient::Endpoint,
        _ => Recipient::Other,
    };
    (ty, to)
}

impl UsbTransport for HostUsb {
    fn name(&self) -> &str {
        &self.name
    }

    fn control_in(&self, setup: Setup, len: usize, timeout: Duration) -> UsbResult<Vec<u8>> {
        let (control_type, recipient) = control_kind(setup.request_type);
        let length = u16::try_from(len).map_err(|_| UsbError::Invalid(format!("control read of {len} bytes")))?;
        let req = ControlIn {
            control_type,
            recipient,
            request: setup.request,
            value: setup.value,
            index: setup.index,
            length,
        };
        self.iface.control_in(req, timeout).wait().map_err(transfer_error)
    }

    fn control_out(&self, setup: Setup, data: &[u8], timeout: Duration) -> UsbResult<()> {
        let (control_type, recipient) = control_kind(setup.request_type);
        let req = ControlOut {
            control_type,
            recipient,
            request: setup.request,
            value: setup.value,
            index: setup.index,
            data,
        };
        self.iface.control_out(req, timeout).wait().map_err(transfer_error)
    }

    fn bulk_in(&self, endpoint: u8, buf: &mut [u8], timeout: Duration) -> UsbResult<()> {
        if endpoint & DIR_IN == 0 {
            return Err(UsbError::Invalid(format!("bulk IN on OUT endpoint {endpoint:#04x}")));
        }
        let mut eps = self.bulk_in.lock().unwrap_or_else(|e| e.into_inner());
        let ep = match eps.entry(endpoint) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(v) => {
                v.insert(self.iface.endpoint::<Bulk, In>(endpoint).map_err(|e| self.endpoint_error(endpoint, e))?)
            }
        };
        // An IN request is a whole number of packets; the device ends it early with a short one.
        let mps = ep.max_packet_size().max(1);
        let c = ep.transfer_blocking(Buffer::new(buf.len().div_ceil(mps) * mps), timeout);
        c.status.map_err(transfer_error)?;
        if c.actual_len < buf.len() {
            return Err(UsbError::Short { wanted: buf.len(), got: c.actual_len });
        }
        buf.copy_from_slice(&c.buffer[..buf.len()]);
        Ok(())
    }

    fn bulk_out(&self, endpoint: u8, data: &[u8], timeout: Duration) -> UsbResult<()> {
        if endpoint & DIR_IN != 0 {
            return Err(UsbError::Invalid(format!("bulk OUT on IN endpoint {endpoint:#04x}")));
        }
        let mut eps = self.bulk_out.lock().unwrap_or_else(|e| e.into_inner());
        let ep = match eps.entry(endpoint) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(v) => {
                v.insert(self.iface.endpoint::<Bulk, Out>(endpoint).map_err(|e| self.endpoint_error(endpoint, e))?)
            }
        };
        let c = ep.transfer_blocking(Buffer::from(data), timeout);
        c.status.map_err(transfer_error)?;
        if c.actual_len < data.len() {
            return Err(UsbError::Short { wanted: data.len(), got: c.actual_len });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usbfs_paths_name_bus_and_address() {
        assert_eq!(parse_path("/dev/bus/usb/002/013"), Some((2, 13)));
        assert_eq!(parse_path("/dev/bus/usb/2"), None);
        assert_eq!(parse_path("/dev/sda"), None);
        let i = UsbInfo { bus: 2, address: 13, vendor: 0xadd1, product: 1, product_string: None };
        assert_eq!(i.path(), "/dev/bus/usb/002/013");
    }

    #[test]
    fn request_types_split_into_type_and_recipient() {
        assert!(matches!(control_kind(0xC0), (ControlType::Vendor, Recipient::Device)));
        assert!(matches!(control_kind(0x21), (ControlType::Class, Recipient::Interface)));
    }
}
