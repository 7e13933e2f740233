//! An emulated ASM24xx USB to PCIe bridge running tinygrad's custom firmware, in front of the
//! emulated PCI GPU: it implements the USB boundary ([`UsbTransport`]) and answers the same
//! vendor requests the real firmware does (XDATA, PCIe power, TLPs, the SRAM engine), routes
//! TLPs through a switch of four bridges to the GPU at bus 4, and puts its SRAM in the GPU's
//! DMA reach at PCIe 0x200000. Faults can be injected: a transfer error, a timeout, the PCIe
//! link lost.
//!
//! Timing: each transfer can be given a latency (a knob: nothing is known of a real bridge's).
//! A synchronous transfer costs the latency; a queued bulk transfer takes effect at once, in
//! submission order, and completes one latency after it was queued, so transfers in flight
//! overlap (the wire's bandwidth is not modelled).

mod firmware;
mod function;
mod queue;
mod switch;

use crate::am::hostmem::HostMem;
use crate::am::EmuPciGpu;
use baregpu_drivers::pci::asm24xx::protocol::{SRAM_PCIE, SRAM_SIZE, SYS_BUF_PCIE, SYS_BUF_SIZE};
use baregpu_drivers::usb::{Setup, UsbError, UsbResult, UsbTransport};
use baregpu_drivers::Result;
use firmware::Firmware;
use queue::Queues;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// A fault the next transfers meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The transfer fails on the wire (as a CRC error would).
    TransferError,
    /// The transfer never completes.
    Timeout,
    /// The GPU drops off the PCIe link: TLPs stall until PCIe is powered on again.
    LinkLost,
}

/// The emulated bridge.
pub struct EmuAsm24xx {
    name: String,
    fw: Mutex<Firmware>,
    queues: Queues,
    /// The memory behind the GPU's DMA windows: the SRAM and the system buffer (the fence's).
    windows: [(u64, Arc<HostMem>); 2],
}

impl std::fmt::Debug for EmuAsm24xx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuAsm24xx").field("name", &self.name).finish_non_exhaustive()
    }
}

impl EmuAsm24xx {
    /// The bridge in front of `gpu`, with PCIe powered off (as the firmware boots).
    pub fn new(gpu: Arc<EmuPciGpu>) -> Result<Arc<EmuAsm24xx>> {
        let sram = Arc::new(HostMem::new(SRAM_SIZE)?);
        let sys_buf = Arc::new(HostMem::new(SYS_BUF_SIZE)?);
        gpu.map_dma_window(SRAM_PCIE, sram.clone());
        gpu.map_dma_window(SYS_BUF_PCIE, sys_buf.clone());
        let name = format!("usb:emu:{}", gpu.chip.arch);
        let windows = [(SRAM_PCIE, sram.clone()), (SYS_BUF_PCIE, sys_buf.clone())];
        let fw = Mutex::new(Firmware::new(gpu, sram, sys_buf));
        Ok(Arc::new(EmuAsm24xx { name, fw, queues: Queues::default(), windows }))
    }

    fn fw(&self) -> MutexGuard<'_, Firmware> {
        self.fw.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The fault `fault` hits the transfer after the next `after` ones.
    pub fn inject(&self, fault: Fault, after: u64) {
        self.fw().arm_fault(fault, after);
    }

    /// Transfers the bridge has answered (faults are counted against it).
    pub fn transfers(&self) -> u64 {
        self.fw().transfers
    }

    /// Bytes the SRAM engine moved, both ways (what staging through the SRAM costs).
    pub fn engine_bytes(&self) -> u64 {
        self.fw().engine_bytes
    }

    /// Every transfer from now on takes `latency` (see the module's timing note).
    pub fn set_latency(&self, latency: Duration) {
        self.queues.set_latency(latency);
    }

    /// The most bulk transfers that were queued at once on one endpoint.
    pub fn most_in_flight(&self) -> usize {
        self.queues.most_in_flight()
    }

    /// The bridge memory at PCIe address `bus` as the GPU's DMA reads it (the SRAM, the system
    /// buffer); false where no window holds all of `buf`.
    pub fn dma_read(&self, bus: u64, buf: &mut [u8]) -> bool {
        let w = self.windows.iter().find(|(base, mem)| bus >= *base && bus + buf.len() as u64 <= base + mem.len());
        w.is_some_and(|(base, mem)| mem.read(bus - base, buf))
    }

    /// A GPU DMA write into the bridge memory at PCIe address `bus` (see [`EmuAsm24xx::dma_read`]).
    pub fn dma_write(&self, bus: u64, data: &[u8]) -> bool {
        let w = self.windows.iter().find(|(base, mem)| bus >= *base && bus + data.len() as u64 <= base + mem.len());
        w.is_some_and(|(base, mem)| mem.write(bus - base, data))
    }

    /// The GPU behind the bridge.
    pub fn gpu(&self) -> Arc<EmuPciGpu> {
        self.fw().gpu()
    }
}

impl UsbTransport for EmuAsm24xx {
    fn name(&self) -> &str {
        &self.name
    }

    fn control_in(&self, setup: Setup, len: usize, _timeout: Duration) -> UsbResult<Vec<u8>> {
        let r = {
            let mut fw = self.fw();
            fw.transfer().and_then(|()| fw.control_in(setup, len))
        };
        self.queues.round_trip();
        r
    }

    fn control_out(&self, setup: Setup, data: &[u8], _timeout: Duration) -> UsbResult<()> {
        let r = {
            let mut fw = self.fw();
            fw.transfer().and_then(|()| fw.control_out(setup, data))
        };
        self.queues.round_trip();
        r
    }

    fn bulk_in(&self, endpoint: u8, buf: &mut [u8], _timeout: Duration) -> UsbResult<()> {
        self.queues.check_empty(endpoint)?;
        let r = {
            let mut fw = self.fw();
            fw.transfer().and_then(|()| fw.bulk_in(endpoint, buf))
        };
        self.queues.round_trip();
        r
    }

    fn bulk_out(&self, endpoint: u8, data: &[u8], _timeout: Duration) -> UsbResult<()> {
        self.queues.check_empty(endpoint)?;
        let r = {
            let mut fw = self.fw();
            fw.transfer().and_then(|()| fw.bulk_out(endpoint, data))
        };
        self.queues.round_trip();
        r
    }

    fn bulk_submit_out(&self, endpoint: u8, data: Vec<u8>) -> UsbResult<()> {
        let mut fw = self.fw();
        let r = fw.transfer().and_then(|()| fw.bulk_out(endpoint, &data)).map(|()| Vec::new());
        self.queues.push(endpoint, r);
        Ok(())
    }

    fn bulk_submit_in(&self, endpoint: u8, len: usize) -> UsbResult<()> {
        let mut fw = self.fw();
        let mut buf = vec![0u8; len];
        let r = fw.transfer().and_then(|()| fw.bulk_in(endpoint, &mut buf)).map(|()| buf);
        self.queues.push(endpoint, r);
        Ok(())
    }

    fn bulk_complete(&self, endpoint: u8, _timeout: Duration) -> UsbResult<Vec<u8>> {
        self.queues.complete(endpoint)
    }

    fn bulk_pending(&self, endpoint: u8) -> usize {
        self.queues.pending(endpoint)
    }

    fn bulk_cancel(&self, endpoint: u8) {
        self.queues.cancel(endpoint);
    }
}

/// A request the firmware does not take: the device stalls it.
fn stall<T>(why: impl FnOnce() -> String) -> UsbResult<T> {
    log::debug!("emulated ASM24xx: stall: {}", why());
    Err(UsbError::Stall)
}
