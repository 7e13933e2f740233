//! The host's USB devices through usbfs, over the `nusb` crate (pure Rust): opening by
//! `/dev/bus/usb/BBB/DDD` or by vendor/product id, claiming interface 0, synchronous control
//! and bulk transfers with timeouts, and queued bulk transfers (nusb's per-endpoint queue of
//! submitted URBs, completed in order).

use super::{Setup, UsbError, UsbResult, UsbTransport, DIR_IN};
use crate::{Error, Result};
use nusb::transfer::{Buffer, Bulk, ControlIn, ControlOut, ControlType, In, Out, Recipient, TransferError};
use nusb::{DeviceInfo, Endpoint, Interface, MaybeFuture};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
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
    bulk_in: Mutex<HashMap<u8, InEndpoint>>,
    bulk_out: Mutex<HashMap<u8, Endpoint<Bulk, Out>>>,
}

/// A bulk IN endpoint and the lengths its queued transfers asked for (nusb rounds a request
/// up to whole packets; the caller's length decides what is short).
struct InEndpoint {
    ep: Endpoint<Bulk, In>,
    wanted: VecDeque<usize>,
}

/// How long cancelled transfers get to come back before the endpoint is given up on.
const CANCEL_WAIT: Duration = Duration::from_secs(1);

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
        self.with_in(endpoint, |e| {
            if !e.wanted.is_empty() {
                return Err(UsbError::Invalid(format!("blocking bulk IN on {endpoint:#04x} with transfers queued")));
            }
            // An IN request is a whole number of packets; the device ends it early with a short one.
            let mps = e.ep.max_packet_size().max(1);
            let c = e.ep.transfer_blocking(Buffer::new(buf.len().div_ceil(mps) * mps), timeout);
            c.status.map_err(transfer_error)?;
            if c.actual_len < buf.len() {
                return Err(UsbError::Short { wanted: buf.len(), got: c.actual_len });
            }
            buf.copy_from_slice(&c.buffer[..buf.len()]);
            Ok(())
        })
    }

    fn bulk_out(&self, endpoint: u8, data: &[u8], timeout: Duration) -> UsbResult<()> {
        self.with_out(endpoint, |ep| {
            if ep.pending() != 0 {
                return Err(UsbError::Invalid(format!("blocking bulk OUT on {endpoint:#04x} with transfers queued")));
            }
            let c = ep.transfer_blocking(Buffer::from(data), timeout);
            c.status.map_err(transfer_error)?;
            if c.actual_len < data.len() {
                return Err(UsbError::Short { wanted: data.len(), got: c.actual_len });
            }
            Ok(())
        })
    }

    fn bulk_submit_out(&self, endpoint: u8, data: Vec<u8>) -> UsbResult<()> {
        self.with_out(endpoint, |ep| {
            ep.submit(Buffer::from(data));
            Ok(())
        })
    }

    fn bulk_submit_in(&self, endpoint: u8, len: usize) -> UsbResult<()> {
        self.with_in(endpoint, |e| {
            let mps = e.ep.max_packet_size().max(1);
            e.ep.submit(Buffer::new(len.max(1).div_ceil(mps) * mps));
            e.wanted.push_back(len);
            Ok(())
        })
    }

    fn bulk_complete(&self, endpoint: u8, timeout: Duration) -> UsbResult<Vec<u8>> {
        if endpoint & DIR_IN == 0 {
            return self.with_out(endpoint, |ep| {
                let c = next_completion(ep, timeout)?;
                c.status.map_err(transfer_error)?;
                match c.buffer.len() {
                    n if c.actual_len < n => Err(UsbError::Short { wanted: n, got: c.actual_len }),
                    _ => Ok(Vec::new()),
                }
            });
        }
        self.with_in(endpoint, |e| {
            let wanted = e.wanted.front().copied();
            let c = next_completion(&mut e.ep, timeout);
            e.wanted.pop_front();
            let (c, wanted) = (c?, wanted.unwrap_or(0));
            c.status.map_err(transfer_error)?;
            if c.actual_len < wanted {
                return Err(UsbError::Short { wanted, got: c.actual_len });
            }
            Ok(c.buffer[..wanted].to_vec())
        })
    }

    fn bulk_pending(&self, endpoint: u8) -> usize {
        match endpoint & DIR_IN {
            0 => self.with_out(endpoint, |ep| Ok(ep.pending())).unwrap_or(0),
            _ => self.with_in(endpoint, |e| Ok(e.ep.pending())).unwrap_or(0),
        }
    }

    fn bulk_cancel(&self, endpoint: u8) {
        let name = &self.name;
        let drained = match endpoint & DIR_IN {
            0 => self.with_out(endpoint, |ep| Ok(drain(ep))),
            _ => self.with_in(endpoint, |e| {
                e.wanted.clear();
                Ok(drain(&mut e.ep))
            }),
        };
        if drained != Ok(true) {
            log::warn!("{name}: transfers cancelled on endpoint {endpoint:#04x} did not all come back");
        }
    }
}

impl HostUsb {
    /// Runs `f` on bulk IN endpoint `endpoint`, opening it on first use.
    fn with_in<T>(&self, endpoint: u8, f: impl FnOnce(&mut InEndpoint) -> UsbResult<T>) -> UsbResult<T> {
        if endpoint & DIR_IN == 0 {
            return Err(UsbError::Invalid(format!("bulk IN on OUT endpoint {endpoint:#04x}")));
        }
        let mut eps = self.bulk_in.lock().unwrap_or_else(|e| e.into_inner());
        let e = match eps.entry(endpoint) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(v) => {
                let ep = self.iface.endpoint::<Bulk, In>(endpoint).map_err(|e| self.endpoint_error(endpoint, e))?;
                v.insert(InEndpoint { ep, wanted: VecDeque::new() })
            }
        };
        f(e)
    }

    /// Runs `f` on bulk OUT endpoint `endpoint`, opening it on first use.
    fn with_out<T>(&self, endpoint: u8, f: impl FnOnce(&mut Endpoint<Bulk, Out>) -> UsbResult<T>) -> UsbResult<T> {
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
        f(ep)
    }
}

/// The oldest queued transfer of `ep`; on a timeout it is cancelled (with the rest of the
/// queue, which nusb cannot cancel singly) and taken back, and the timeout reported.
fn next_completion<D: nusb::transfer::EndpointDirection>(
    ep: &mut Endpoint<Bulk, D>,
    timeout: Duration,
) -> UsbResult<nusb::transfer::Completion> {
    if ep.pending() == 0 {
        return Err(UsbError::Invalid("no transfer queued".into()));
    }
    if let Some(c) = ep.wait_next_complete(timeout) {
        return Ok(c);
    }
    ep.cancel_all();
    // The cancelled transfer comes back (cancelled, or completed after all): either way late.
    let _late = ep.wait_next_complete(CANCEL_WAIT);
    Err(UsbError::Timeout)
}

/// Cancels everything queued on `ep` and takes it back; false if some did not come back.
fn drain<D: nusb::transfer::EndpointDirection>(ep: &mut Endpoint<Bulk, D>) -> bool {
    if ep.pending() == 0 {
        return true;
    }
    ep.cancel_all();
    while ep.pending() > 0 {
        if ep.wait_next_complete(CANCEL_WAIT).is_none() {
            return false;
        }
    }
    true
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
