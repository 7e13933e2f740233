//! The firmware's requests as calls: controller XDATA, PCIe power and link state, single TLPs
//! with their completions (retried while the firmware reports it could not send them), streams
//! of memory reads and posted writes, and the SRAM engine. Copies larger than one chunk are
//! pipelined: each chunk's request goes out while the bulk data of the chunks before it is still
//! in flight ([`super::pipe`]). Every failure names the bridge and the request.

use super::pipe::{Pipe, DEPTH};
use super::protocol::*;
use crate::usb::{Setup, UsbError, UsbTransport};
use crate::{Error, Result};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How often a TLP the firmware could not send is retried, and how long between tries.
const TLP_RETRIES: u32 = 10;
const RETRY_PAUSE: Duration = Duration::from_millis(1);
/// Most bytes one streamed TLP request moves.
pub const STREAM_CHUNK: usize = 0x1_0000;
/// Bytes of SRAM one engine transfer of a pipelined copy moves (whole slots).
pub const ENGINE_CHUNK: usize = 4 * SRAM_SLOT as usize;

/// The bridge's firmware over one USB device.
/// Requests that take several transfers (a TLP and its completion, an engine arm and its
/// bulk data) must not interleave: callers hold [`Link::lock`] around each.
#[derive(Debug, Clone)]
pub struct Link {
    usb: Arc<dyn UsbTransport>,
    wire: Arc<Mutex<()>>,
    /// Bulk transfers a pipelined copy keeps queued.
    depth: usize,
}

/// Why a configuration or memory request failed at the PCIe level.
fn completion_error(status: u8) -> &'static str {
    match status {
        CPL_UR => "unsupported request (UR): nothing answers at that address",
        CPL_CA => "completer abort (CA)",
        CPL_CRS => "configuration request retry status (CRS): the function is not ready",
        _ => "a reserved completion status",
    }
}

impl Link {
    pub fn new(usb: Arc<dyn UsbTransport>) -> Link {
        Link { usb, wire: Arc::default(), depth: DEPTH }
    }

    /// The same link keeping up to `depth` bulk transfers of a copy queued (1: none ahead).
    pub fn with_depth(self, depth: usize) -> Link {
        Link { depth: depth.max(1), ..self }
    }

    /// Exclusive use of the wire for one compound request.
    pub fn lock(&self) -> MutexGuard<'_, ()> {
        self.wire.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn name(&self) -> &str {
        self.usb.name()
    }

    /// Bulk transfers a pipelined copy keeps queued.
    pub(super) fn depth(&self) -> usize {
        self.depth
    }

    pub(super) fn usb(&self) -> &dyn UsbTransport {
        &*self.usb
    }

    /// The error of a failed transfer: when the link dropped, say so rather than what the
    /// firmware did about it.
    pub(super) fn failed(&self, what: String, e: UsbError) -> Error {
        let link = match &e {
            UsbError::Stall => self.ltssm_quiet().filter(|&s| s != LTSSM_L0),
            _ => None,
        };
        match link {
            Some(s) => Error::Protocol(format!(
                "{}: {what}: the PCIe link is down (LTSSM {s:#04x}); replug the enclosure or power-cycle the GPU",
                self.name()
            )),
            None => e.on(format!("{}: {what}", self.name())),
        }
    }

    fn ltssm_quiet(&self) -> Option<u8> {
        let setup = Setup::vendor_in(REQ_XDATA_READ, XDATA_LTSSM, 0);
        self.usb.control_in(setup, 1, CONTROL_TIMEOUT).ok()?.first().copied()
    }

    fn control_out(&self, what: impl FnOnce() -> String, setup: Setup, data: &[u8], t: Duration) -> Result<()> {
        self.usb.control_out(setup, data, t).map_err(|e| self.failed(what(), e))
    }

    /// `buf.len()` bytes of controller XDATA from `addr`.
    pub fn xdata_read(&self, addr: u16, buf: &mut [u8]) -> Result<()> {
        for (i, chunk) in buf.chunks_mut(XDATA_CHUNK).enumerate() {
            let at = addr.wrapping_add((i * XDATA_CHUNK) as u16);
            let what = || format!("XDATA read of {} bytes at {at:#06x}", chunk.len());
            let setup = Setup::vendor_in(REQ_XDATA_READ, at, 0);
            let got = self.usb.control_in(setup, chunk.len(), CONTROL_TIMEOUT).map_err(|e| self.failed(what(), e))?;
            if got.len() != chunk.len() {
                return Err(self.failed(what(), UsbError::Short { wanted: chunk.len(), got: got.len() }));
            }
            chunk.copy_from_slice(&got);
        }
        Ok(())
    }

    /// Writes controller XDATA (one transfer a byte, as the firmware takes them).
    pub fn xdata_write(&self, addr: u16, data: &[u8]) -> Result<()> {
        for (i, &b) in data.iter().enumerate() {
            let at = addr.wrapping_add(i as u16);
            let what = || format!("XDATA write of {b:#04x} at {at:#06x}");
            self.control_out(what, Setup::vendor_out(REQ_XDATA_WRITE, at, b as u16), &[], CONTROL_TIMEOUT)?;
        }
        Ok(())
    }

    pub fn ltssm(&self) -> Result<u8> {
        let mut b = [0u8];
        self.xdata_read(XDATA_LTSSM, &mut b)?;
        Ok(b[0])
    }

    /// Powers PCIe on (the firmware boots with it off) and checks that the link trained.
    pub fn power_on(&self) -> Result<()> {
        self.control_out(|| "PCIe power on".into(), Setup::vendor_out(REQ_POWER, 1, 0), &[], POWER_TIMEOUT)?;
        match self.ltssm()? {
            LTSSM_L0 => Ok(()),
            s => Err(Error::Protocol(format!(
                "{}: the PCIe link did not come up after power-on (LTSSM {s:#04x}, want {LTSSM_L0:#04x}): \
                 is a GPU seated and powered?",
                self.name()
            ))),
        }
    }

    /// One TLP; the completion's data for a non-posted one (`None` for a posted one).
    pub fn tlp(&self, fmt_type: u8, byte_en: u8, addr: u64, value: u32) -> Result<Option<u32>> {
        let (w_value, data) = tlp_request(fmt_type, byte_en, addr, value);
        let what = || format!("TLP {fmt_type:#04x} at {addr:#x}");
        for _ in 0..TLP_RETRIES {
            let setup = Setup::vendor_out(REQ_TLP, w_value, MODE_SINGLE);
            self.control_out(what, setup, &data, TLP_TIMEOUT)?;
            if is_posted(fmt_type) {
                return Ok(None);
            }
            let setup = Setup::vendor_in(REQ_TLP, 0, 0);
            let raw = self.usb.control_in(setup, COMPLETION_LEN, TLP_TIMEOUT).map_err(|e| self.failed(what(), e))?;
            let c = Completion::decode(&raw).ok_or_else(|| {
                Error::Protocol(format!("{}: {}: a completion of {} bytes", self.name(), what(), raw.len()))
            })?;
            if c.ret_status != 0 {
                std::thread::sleep(RETRY_PAUSE);
                continue;
            }
            if c.status != CPL_SUCCESS {
                return Err(Error::Protocol(format!("{}: {}: {}", self.name(), what(), completion_error(c.status))));
            }
            return Ok(Some(c.data));
        }
        let s = self.ltssm().unwrap_or(0);
        Err(Error::Protocol(format!(
            "{}: {}: the bridge could not send it after {TLP_RETRIES} tries (LTSSM {s:#04x})",
            self.name(),
            what()
        )))
    }

    /// A configuration read of `size` (1, 2, 4) bytes inside one dword.
    pub fn config_read(&self, bus: u8, dev: u8, func: u8, reg: u16, size: usize) -> Result<u32> {
        let addr = config_address(bus, dev, func, reg) as u64;
        let v = self.tlp(config_type(bus, false), byte_enable(reg as u64, size), addr, 0)?.unwrap_or(0);
        let v = v >> (8 * (reg & 3));
        Ok(if size == 4 { v } else { v & ((1 << (8 * size)) - 1) })
    }

    pub fn config_write(&self, bus: u8, dev: u8, func: u8, reg: u16, size: usize, value: u32) -> Result<()> {
        let addr = config_address(bus, dev, func, reg) as u64;
        let shifted = value << (8 * (reg & 3));
        self.tlp(config_type(bus, true), byte_enable(reg as u64, size), addr, shifted).map(drop)
    }

    /// Dwords from PCIe memory at `addr` (4-aligned) into `buf` (a multiple of 4 bytes).
    pub fn mem_read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        let (w_value, data) = tlp_request(TLP_MRD, 0x0f, addr, (buf.len() / 4) as u32);
        let len = buf.len();
        let what = || format!("memory read of {len} bytes at {addr:#x}");
        self.control_out(what, Setup::vendor_out(REQ_TLP, w_value, MODE_READ_STREAM), &data, TLP_TIMEOUT)?;
        self.usb.bulk_in(EP_IN, buf, BULK_TIMEOUT).map_err(|e| self.failed(what(), e))
    }

    /// Posted dword writes to PCIe memory at `addr` (4-aligned; `data` a multiple of 4 bytes).
    pub fn mem_write(&self, addr: u64, data: &[u8]) -> Result<()> {
        let (w_value, req) = tlp_request(TLP_MWR, 0x0f, addr, (data.len() / 4) as u32);
        let what = || format!("memory write of {} bytes at {addr:#x}", data.len());
        self.control_out(what, Setup::vendor_out(REQ_TLP, w_value, MODE_WRITE_STREAM), &req, TLP_TIMEOUT)?;
        self.usb.bulk_out(EP_OUT, data, BULK_TIMEOUT).map_err(|e| self.failed(what(), e))
    }

    /// A posted write of the bytes `byte_en` selects of the dword at `addr & !3`.
    pub fn mem_write_partial(&self, addr: u64, byte_en: u8, dword: u32) -> Result<()> {
        self.tlp(TLP_MWR, byte_en, addr & !3, dword).map(drop)
    }

    /// Arms the SRAM engine for `sectors` sectors from slot `start_slot`.
    pub fn engine_arm(&self, read: bool, sectors: u64, start_slot: u64) -> Result<()> {
        let slots = (sectors * SECTOR).div_ceil(SRAM_SLOT);
        let (value, index) = engine_arm(read, sectors as u16, start_slot as u8, slots as u8);
        let what = || format!("arming the SRAM engine ({sectors} sectors at slot {start_slot})");
        self.control_out(what, Setup::vendor_out(REQ_ENGINE, value, index), &[], CONTROL_TIMEOUT)
    }

    /// Streams `image` (whole sectors) into the SRAM from slot `start_slot`.
    pub fn engine_write(&self, start_slot: u64, image: &[u8]) -> Result<()> {
        self.engine_arm(false, image.len() as u64 / SECTOR, start_slot)?;
        let what = || format!("SRAM engine write of {} bytes at slot {start_slot}", image.len());
        self.usb.bulk_out(EP_OUT, image, BULK_TIMEOUT).map_err(|e| self.failed(what(), e))
    }

    /// Streams `buf.len()` bytes (whole sectors) out of the SRAM from slot `start_slot`.
    pub fn engine_read(&self, start_slot: u64, buf: &mut [u8]) -> Result<()> {
        self.engine_arm(true, buf.len() as u64 / SECTOR, start_slot)?;
        self.xdata_write(XDATA_READ_TRIGGER, &[0])?;
        let len = buf.len();
        let what = || format!("SRAM engine read of {len} bytes at slot {start_slot}");
        self.usb.bulk_in(EP_IN, buf, BULK_TIMEOUT).map_err(|e| self.failed(what(), e))
    }

    /// The drain fence the GPU writes after emptying an SRAM window.
    pub fn fence(&self) -> Result<u64> {
        let mut b = [0u8; 8];
        self.xdata_read(XDATA_FENCE, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Posted dword writes of `data` (a multiple of 4 bytes) from `addr`, pipelined in
    /// [`STREAM_CHUNK`]s. Posted: nothing proves they reached the GPU (a later read does).
    pub fn mem_write_stream(&self, addr: u64, data: &[u8]) -> Result<()> {
        let mut pipe = Pipe::new(self, EP_OUT, self.depth);
        for (i, chunk) in data.chunks(STREAM_CHUNK).enumerate() {
            if pipe.full() {
                pipe.take_oldest()?;
            }
            let at = addr + (i * STREAM_CHUNK) as u64;
            let (w_value, req) = tlp_request(TLP_MWR, 0x0f, at, (chunk.len() / 4) as u32);
            let what = || format!("memory write of {} bytes at {at:#x}", chunk.len());
            self.control_out(what, Setup::vendor_out(REQ_TLP, w_value, MODE_WRITE_STREAM), &req, TLP_TIMEOUT)?;
            pipe.submit_out((), what(), chunk.to_vec())?;
        }
        pipe.finish(|(), _| ())
    }

    /// Dwords from `addr` into `buf` (a multiple of 4 bytes), pipelined in [`STREAM_CHUNK`]s.
    pub fn mem_read_stream(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        let mut pipe = Pipe::new(self, EP_IN, self.depth);
        let len = buf.len();
        let mut place = |at: usize, data: Vec<u8>| buf[at..at + data.len()].copy_from_slice(&data);
        for at in (0..len).step_by(STREAM_CHUNK) {
            if pipe.full() {
                if let Some((i, d)) = pipe.take_oldest()? {
                    place(i, d);
                }
            }
            let (n, from) = ((len - at).min(STREAM_CHUNK), addr + at as u64);
            let (w_value, req) = tlp_request(TLP_MRD, 0x0f, from, (n / 4) as u32);
            let what = || format!("memory read of {n} bytes at {from:#x}");
            self.control_out(what, Setup::vendor_out(REQ_TLP, w_value, MODE_READ_STREAM), &req, TLP_TIMEOUT)?;
            pipe.submit_in(at, what(), n)?;
        }
        pipe.finish(place)
    }

    /// Streams `pieces` (slot, whole sectors) into the SRAM, pipelined: the engine lands them
    /// in order, so a sentinel piece last proves all before it once read back.
    pub fn engine_write_pipelined<'d>(&self, pieces: impl IntoIterator<Item = (u64, &'d [u8])>) -> Result<()> {
        let mut pipe = Pipe::new(self, EP_OUT, self.depth);
        for (slot, image) in pieces {
            if pipe.full() {
                pipe.take_oldest()?;
            }
            self.engine_arm(false, image.len() as u64 / SECTOR, slot)?;
            let what = format!("SRAM engine write of {} bytes at slot {slot}", image.len());
            pipe.submit_out((), what, image.to_vec())?;
        }
        pipe.finish(|(), _| ())
    }

    /// Streams `buf.len()` bytes (whole sectors) out of the SRAM from slot `start_slot`,
    /// pipelined in [`ENGINE_CHUNK`]s.
    pub fn engine_read_pipelined(&self, start_slot: u64, buf: &mut [u8]) -> Result<()> {
        let mut pipe = Pipe::new(self, EP_IN, self.depth);
        let len = buf.len();
        let mut place = |at: usize, data: Vec<u8>| buf[at..at + data.len()].copy_from_slice(&data);
        for at in (0..len).step_by(ENGINE_CHUNK) {
            if pipe.full() {
                if let Some((i, d)) = pipe.take_oldest()? {
                    place(i, d);
                }
            }
            let (n, slot) = ((len - at).min(ENGINE_CHUNK), start_slot + (at / SRAM_SLOT as usize) as u64);
            self.engine_arm(true, n as u64 / SECTOR, slot)?;
            self.xdata_write(XDATA_READ_TRIGGER, &[0])?;
            pipe.submit_in(at, format!("SRAM engine read of {n} bytes at slot {slot}"), n)?;
        }
        pipe.finish(place)
    }
}
