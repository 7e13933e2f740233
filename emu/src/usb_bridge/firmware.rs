//! The firmware's state machine: XDATA (with the LTSSM register and the GPU-visible system
//! buffer), PCIe power, TLPs (single with a completion, or streams whose data follows on the
//! bulk endpoints), and the SRAM engine. A bulk transfer nothing armed, or of a length other
//! than armed, is stalled, as is a TLP while the link is down; GPU writes into the system
//! buffer (the drain fence) stop reaching the controller then. SRAM the engine lands wakes the
//! GPU's memory waits (an SDMA polling a sentinel), as a DMA write would.

use super::function::GpuFunction;
use super::switch::Switch;
use super::{stall, Fault};
use crate::am::hostmem::HostMem;
use crate::am::EmuPciGpu;
use baregpu_drivers::pci::asm24xx::protocol::*;
use baregpu_drivers::pci::{PciDevice, AMD_BAR_VRAM};
use baregpu_drivers::usb::{Setup, UsbError, UsbResult, VENDOR_IN, VENDOR_OUT};
use std::sync::Arc;

/// The LTSSM state while the link is down (detect).
const LTSSM_DETECT: u8 = 0x00;

/// What the next bulk or completion transfer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Idle,
    Completion([u8; COMPLETION_LEN]),
    ReadStream { addr: u64, dwords: u32 },
    WriteStream { addr: u64, dwords: u32 },
    EngineWrite { at: u64, len: u64 },
    EngineRead { at: u64, len: u64, triggered: bool },
}

pub(super) struct Firmware {
    function: GpuFunction,
    switch: Switch,
    xdata: Vec<u8>,
    sram: Arc<HostMem>,
    sys_buf: Arc<HostMem>,
    powered: bool,
    link_lost: bool,
    /// The system buffer as the link left it: while the link is down no GPU write (a drain
    /// fence) reaches the controller.
    frozen_sys_buf: Option<Vec<u8>>,
    pending: Pending,
    pub transfers: u64,
    /// Bytes the SRAM engine moved (both ways).
    pub engine_bytes: u64,
    fault: Option<(Fault, u64)>,
}

impl Firmware {
    pub fn new(gpu: Arc<EmuPciGpu>, sram: Arc<HostMem>, sys_buf: Arc<HostMem>) -> Firmware {
        Firmware {
            function: GpuFunction::new(gpu),
            switch: Switch::default(),
            xdata: vec![0; 0x1_0000],
            sram,
            sys_buf,
            powered: false,
            link_lost: false,
            frozen_sys_buf: None,
            pending: Pending::Idle,
            transfers: 0,
            engine_bytes: 0,
            fault: None,
        }
    }

    pub fn gpu(&self) -> Arc<EmuPciGpu> {
        self.function.gpu.clone()
    }

    pub fn arm_fault(&mut self, fault: Fault, after: u64) {
        self.fault = Some((fault, self.transfers + after));
    }

    /// Counts a transfer and lets an armed fault hit it.
    pub fn transfer(&mut self) -> UsbResult<()> {
        self.transfers += 1;
        let Some((fault, at)) = self.fault else { return Ok(()) };
        if self.transfers <= at {
            return Ok(());
        }
        self.fault = None;
        self.pending = Pending::Idle;
        match fault {
            Fault::TransferError => Err(UsbError::Fault("CRC error on the wire (injected)".into())),
            Fault::Timeout => Err(UsbError::Timeout),
            Fault::LinkLost => {
                self.link_lost = true;
                let mut snapshot = vec![0u8; SYS_BUF_SIZE as usize];
                self.sys_buf.read(0, &mut snapshot);
                self.frozen_sys_buf = Some(snapshot);
                Ok(())
            }
        }
    }

    fn link_up(&self) -> bool {
        self.powered && !self.link_lost
    }

    fn xdata_byte(&self, addr: u16) -> u8 {
        let a = addr as u64;
        let in_window = |base: u16, mem: &HostMem| {
            let off = a.checked_sub(base as u64).filter(|&o| o < mem.len())?;
            let mut b = [0u8];
            mem.read(off, &mut b).then_some(b[0])
        };
        match addr {
            XDATA_LTSSM => {
                if self.link_up() {
                    LTSSM_L0
                } else {
                    LTSSM_DETECT
                }
            }
            0xA000..=0xAFFF => match &self.frozen_sys_buf {
                Some(frozen) => frozen[(addr - XDATA_SYS_BUF) as usize],
                None => in_window(XDATA_SYS_BUF, &self.sys_buf).unwrap_or(0),
            },
            0xF000..=0xFFFF => in_window(0xF000, &self.sram).unwrap_or(0),
            _ => self.xdata[addr as usize],
        }
    }

    pub fn control_in(&mut self, setup: Setup, len: usize) -> UsbResult<Vec<u8>> {
        if setup.request_type != VENDOR_IN {
            return stall(|| format!("IN request type {:#04x}", setup.request_type));
        }
        match setup.request {
            REQ_XDATA_READ if len <= XDATA_CHUNK => {
                Ok((0..len).map(|i| self.xdata_byte(setup.value.wrapping_add(i as u16))).collect())
            }
            REQ_TLP => match std::mem::replace(&mut self.pending, Pending::Idle) {
                Pending::Completion(c) if len >= COMPLETION_LEN => Ok(c.to_vec()),
                other => {
                    self.pending = other;
                    stall(|| "a completion read with no completion pending".into())
                }
            },
            r => stall(|| format!("IN request {r:#04x} of {len} bytes")),
        }
    }

    pub fn control_out(&mut self, setup: Setup, data: &[u8]) -> UsbResult<()> {
        if setup.request_type != VENDOR_OUT {
            return stall(|| format!("OUT request type {:#04x}", setup.request_type));
        }
        match setup.request {
            REQ_XDATA_WRITE => {
                let addr = setup.value;
                if addr == XDATA_READ_TRIGGER {
                    if let Pending::EngineRead { triggered, .. } = &mut self.pending {
                        *triggered = true;
                    }
                }
                match addr {
                    0xA000..=0xAFFF => {
                        let off = (addr - XDATA_SYS_BUF) as usize;
                        if let Some(frozen) = &mut self.frozen_sys_buf {
                            frozen[off] = setup.index as u8;
                        }
                        self.sys_buf.write(off as u64, &[setup.index as u8]);
                    }
                    0xF000..=0xFFFF => drop(self.sram.write((addr - 0xF000) as u64, &[setup.index as u8])),
                    XDATA_LTSSM => {}
                    _ => self.xdata[addr as usize] = setup.index as u8,
                }
                Ok(())
            }
            REQ_POWER => {
                // Power-on retrains the link (what replugging a dropped GPU needs).
                self.powered = setup.value != 0;
                self.link_lost = false;
                self.frozen_sys_buf = None;
                self.pending = Pending::Idle;
                Ok(())
            }
            REQ_TLP => self.tlp(setup, data),
            REQ_ENGINE => self.engine(setup),
            r => stall(|| format!("OUT request {r:#04x}")),
        }
    }

    fn tlp(&mut self, setup: Setup, data: &[u8]) -> UsbResult<()> {
        let Some(req) = TlpRequest::decode(setup.value, data) else {
            return stall(|| format!("a TLP request of {} bytes", data.len()));
        };
        if !self.link_up() {
            self.pending = Pending::Idle;
            return stall(|| "a TLP while the PCIe link is down".into());
        }
        self.pending = match (setup.index, req.fmt_type) {
            (MODE_SINGLE, _) => match self.single(&req) {
                Some(c) => Pending::Completion(c.encode()),
                None => Pending::Idle,
            },
            (MODE_READ_STREAM, TLP_MRD) => Pending::ReadStream { addr: req.addr, dwords: req.value },
            (MODE_WRITE_STREAM, TLP_MWR) => Pending::WriteStream { addr: req.addr, dwords: req.value },
            (mode, t) => return stall(|| format!("TLP {t:#04x} in mode {mode}")),
        };
        Ok(())
    }

    /// One TLP; its completion unless posted.
    fn single(&mut self, req: &TlpRequest) -> Option<Completion> {
        let done = |status: u8, data: u32| Some(Completion { data, status, ret_status: 0 });
        match req.fmt_type {
            TLP_CFGRD0 | TLP_CFGRD1 | TLP_CFGWR0 | TLP_CFGWR1 => {
                let (bus, dev_fn, reg) = ((req.addr >> 24) as u8, (req.addr >> 16) as u8, (req.addr & 0xffc) as usize);
                let type1 = req.fmt_type & 1 == 1;
                if dev_fn != 0 || type1 != (bus > 0) || !self.switch.reaches_bus(bus) {
                    return done(CPL_UR, 0);
                }
                let write = req.fmt_type & 0x40 != 0;
                match (bus, write) {
                    (GPU_BUS, false) => done(CPL_SUCCESS, self.function.read32(reg)),
                    (GPU_BUS, true) => {
                        self.function.write32(reg, req.byte_en, req.value);
                        done(CPL_SUCCESS, 0)
                    }
                    (b, false) => done(CPL_SUCCESS, self.switch.ports[b as usize].read32(reg)),
                    (b, true) => {
                        self.switch.ports[b as usize].write32(reg, req.byte_en, req.value);
                        done(CPL_SUCCESS, 0)
                    }
                }
            }
            TLP_MRD => match self.read_dword(req.addr) {
                Some(v) => done(CPL_SUCCESS, v),
                None => done(CPL_UR, u32::MAX),
            },
            TLP_MWR => {
                self.write_partial(req.addr, req.byte_en, req.value);
                None
            }
            _ => done(CPL_UR, 0),
        }
    }

    fn target(&self, addr: u64, len: u64) -> Option<(u8, u64)> {
        self.switch.reaches_memory(addr, len).then(|| self.function.decode(addr, len)).flatten()
    }

    fn read_dword(&self, addr: u64) -> Option<u32> {
        let (bar, off) = self.target(addr, 4)?;
        self.function.gpu.read32(bar, off).ok()
    }

    fn write_partial(&self, addr: u64, byte_en: u8, value: u32) {
        let Some((bar, off)) = self.target(addr, 4) else { return };
        let gpu = &self.function.gpu;
        let v = if byte_en == 0xf {
            value
        } else {
            let old = gpu.read32(bar, off).unwrap_or(0).to_le_bytes();
            let new = value.to_le_bytes();
            u32::from_le_bytes(std::array::from_fn(|i| if byte_en & (1 << i) != 0 { new[i] } else { old[i] }))
        };
        if let Err(e) = gpu.write32(bar, off, v) {
            log::warn!("emulated ASM24xx: posted write at {addr:#x}: {e}");
        }
    }

    fn engine(&mut self, setup: Setup) -> UsbResult<()> {
        let read = setup.value & ENGINE_READ != 0;
        let sectors = (setup.value & !ENGINE_READ) as u64;
        let (slot, slots) = ((setup.index & 0xff) as u64, (setup.index >> 8) as u64);
        let (at, len) = (slot * SRAM_SLOT, sectors * SECTOR);
        if len == 0 || at + len > SRAM_SIZE || len > slots * SRAM_SLOT {
            return stall(|| format!("an engine arm of {sectors} sectors at slot {slot} over {slots} slots"));
        }
        self.pending =
            if read { Pending::EngineRead { at, len, triggered: false } } else { Pending::EngineWrite { at, len } };
        Ok(())
    }

    pub fn bulk_in(&mut self, endpoint: u8, buf: &mut [u8]) -> UsbResult<()> {
        if endpoint != EP_IN {
            return stall(|| format!("bulk IN on endpoint {endpoint:#04x}"));
        }
        match std::mem::replace(&mut self.pending, Pending::Idle) {
            // A stream's TLPs go out as its data moves: none while the link is down.
            Pending::ReadStream { .. } if !self.link_up() => {
                stall(|| "a read stream while the PCIe link is down".into())
            }
            Pending::ReadStream { addr, dwords } if buf.len() as u64 == 4 * dwords as u64 => {
                self.stream_read(addr, buf);
                Ok(())
            }
            Pending::EngineRead { at, len, triggered: true } if buf.len() as u64 == len => {
                self.sram.read(at, buf);
                self.engine_bytes += len;
                Ok(())
            }
            // Armed but never triggered: nothing streams out.
            Pending::EngineRead { triggered: false, .. } => Err(UsbError::Timeout),
            other => stall(|| format!("a bulk IN of {} bytes with {other:?}", buf.len())),
        }
    }

    pub fn bulk_out(&mut self, endpoint: u8, data: &[u8]) -> UsbResult<()> {
        if endpoint != EP_OUT {
            return stall(|| format!("bulk OUT on endpoint {endpoint:#04x}"));
        }
        match std::mem::replace(&mut self.pending, Pending::Idle) {
            Pending::WriteStream { .. } if !self.link_up() => {
                stall(|| "a write stream while the PCIe link is down".into())
            }
            Pending::WriteStream { addr, dwords } if data.len() as u64 == 4 * dwords as u64 => {
                self.stream_write(addr, data);
                Ok(())
            }
            Pending::EngineWrite { at, len } if data.len() as u64 == len => {
                self.sram.write(at, data);
                self.engine_bytes += len;
                // Landed SRAM is what a GPU engine polling a sentinel waits for: look again now.
                self.function.gpu.writes.wrote();
                Ok(())
            }
            other => stall(|| format!("a bulk OUT of {} bytes with {other:?}", data.len())),
        }
    }

    /// Reads a stream of dwords: VRAM in one copy; elsewhere dword by dword (registers have
    /// side effects); all ones where nothing answers, as a master abort reads.
    fn stream_read(&self, addr: u64, buf: &mut [u8]) {
        let gpu = &self.function.gpu;
        if let Some((AMD_BAR_VRAM, off)) = self.target(addr, buf.len() as u64) {
            if gpu.copy_from_bar(AMD_BAR_VRAM, off, buf).is_ok() {
                return;
            }
        }
        if buf.len() == 8 && addr.is_multiple_of(8) {
            if let Some(v) = self.target(addr, 8).and_then(|(bar, off)| gpu.read64(bar, off).ok()) {
                buf.copy_from_slice(&v.to_le_bytes());
                return;
            }
        }
        for (i, d) in buf.chunks_mut(4).enumerate() {
            d.copy_from_slice(&self.read_dword(addr + 4 * i as u64).unwrap_or(u32::MAX).to_le_bytes());
        }
    }

    /// Writes a stream of dwords (a 64-bit doorbell goes as one write, as the GPU sees it).
    fn stream_write(&self, addr: u64, data: &[u8]) {
        let gpu = &self.function.gpu;
        let done = match self.target(addr, data.len() as u64) {
            Some((AMD_BAR_VRAM, off)) => gpu.copy_to_bar(AMD_BAR_VRAM, off, data).is_ok(),
            Some((bar, off)) if data.len() == 8 && off.is_multiple_of(8) => {
                gpu.write64(bar, off, u64::from_le_bytes(data.try_into().unwrap_or_default())).is_ok()
            }
            _ => false,
        };
        if !done {
            for (i, d) in data.chunks(4).enumerate() {
                self.write_partial(addr + 4 * i as u64, 0xf, u32::from_le_bytes(d.try_into().unwrap_or_default()));
            }
        }
    }
}
