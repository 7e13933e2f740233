//! The emulated PCI GPU: a [`PciDevice`] with a configuration space, BAR0 VRAM, BAR2 doorbells
//! and BAR5 registers, DMA-able system memory with fake bus addresses, and the blocks behind the
//! registers (PSP, SMU, GMC, IH, command processors) that answer the AM driver as a GPU would.
//! Bad driver behaviour (a register written out of order, an access past a BAR) is an error
//! the driver sees (an `Err`, a PSP response status, an IH entry), never a panic.

use super::bases::Bases;
use super::chip::Chip;
use super::config::{BarSlot, ConfigSpace};
use super::dma::DmaMap;
use super::hostmem::HostMem;
use super::hqd::HqdQueue;
use super::layout::Layout;
use super::psp::Psp;
use super::regmap::RegMap;
use super::regs::RegFile;
use super::smu::Smu;
use super::tables::discovery_table;
use crate::amd::dispatch::WaveEngine;
use crate::gpu_memory::GpuMemory;
use crate::memory_wait::Writes;
use baregpu_drivers::amd::am::pagetable::PtGeneration;
use baregpu_drivers::pci::{BarInfo, DmaMemory, PciDevice, AMD_BAR_DOORBELL, AMD_BAR_MMIO, AMD_BAR_VRAM};
use baregpu_drivers::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

/// Bus addresses the emulated BARs are assigned (what config space reports).
const VRAM_BAR_BUS: u64 = 0x38_0000_0000;
const DOORBELL_BAR_BUS: u64 = 0x38_4000_0000;
const MMIO_BAR_BUS: u64 = 0xfc00_0000;

/// Everything behind the registers, under one lock.
#[derive(Debug, Default)]
pub(crate) struct State {
    pub regs: RegFile,
    pub psp: Psp,
    pub smu: Smu,
    /// The MMU's translation since the last TLB invalidation.
    pub gmc_mem: Arc<GpuMemory>,
    /// The banked HQD registers: (GRBM_GFX_CNTL selection, address) → value.
    pub hqd_regs: HashMap<(u32, u32), u32>,
    /// Running compute queues by GRBM_GFX_CNTL selection.
    pub hqds: HashMap<u32, HqdQueue>,
    /// Queues to stop once the lock is released (their threads take it).
    pub retired: Vec<HqdQueue>,
    pub next_queue_id: u32,
}

/// One emulated AMD GPU on a PCI bus.
pub struct EmuPciGpu {
    pub(crate) me: Weak<EmuPciGpu>,
    name: String,
    pub(crate) chip: Chip,
    pub(crate) layout: Layout,
    pub(crate) bases: Bases,
    /// The chip's registers by name (the drivers' tables at the layout's bases).
    pub(crate) map: RegMap,
    pub(crate) vram: Arc<HostMem>,
    doorbells: HostMem,
    pub(crate) dma: Arc<DmaMap>,
    config: Mutex<ConfigSpace>,
    pub(crate) st: Mutex<State>,
    pub(crate) engine: Arc<dyn WaveEngine>,
    /// Engine writes of this GPU (what ends memory waits).
    pub(crate) writes: Arc<Writes>,
    /// Bumped at every TLB invalidation (the command processors' views then refresh).
    pub(crate) epoch: AtomicU64,
    /// HDP flush requests (GPU_HDP_FLUSH_REQ writes, from BAR5 or a command processor).
    pub(crate) hdp_flushes: AtomicU64,
    /// CP soft resets through GRBM_SOFT_RESET.
    pub(crate) soft_resets: AtomicU64,
    /// Mode-1 resets the SMU performed.
    pub(crate) mode1_resets: AtomicU64,
    /// The wall-clock budget of one dispatch in ms, 0 for the CP's default (see
    /// [`EmuPciGpu::set_dispatch_budget`]).
    pub(crate) dispatch_budget_ms: AtomicU64,
}

impl std::fmt::Debug for EmuPciGpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmuPciGpu").field("name", &self.name).field("arch", &self.chip.arch).finish_non_exhaustive()
    }
}

fn bad_access(name: &str, what: String, why: String) -> Error {
    Error::sys(format!("{name}: {what}"), std::io::Error::new(std::io::ErrorKind::InvalidInput, why))
}

impl EmuPciGpu {
    /// The emulated GPU of `arch` (`gfx1100`, `gfx942`), running dispatches on `engine`.
    pub fn new(arch: &str, engine: Arc<dyn WaveEngine>) -> Result<Arc<EmuPciGpu>> {
        let chip = Chip::for_arch(arch)
            .ok_or_else(|| Error::Unsupported(format!("no emulated PCI GPU of arch {arch} (gfx1100, gfx942)")))?;
        let layout = Layout::for_arch(arch)
            .ok_or_else(|| Error::Unsupported(format!("no emulated PCI GPU layout of arch {arch}")))?;
        let vram = Arc::new(HostMem::new(layout.vram_size)?);
        // The discovery table at VRAM top - 64 KiB, where the VBIOS leaves it.
        if !vram.write(layout.discovery_offset(), &discovery_table(&layout)) {
            return Err(Error::Unsupported(format!("{arch}: the discovery table does not fit in VRAM")));
        }
        let doorbells = HostMem::new(chip.doorbell_bar)?;
        let bases = Bases::of(&layout);
        let map = RegMap::new(&layout)
            .ok_or_else(|| Error::Unsupported(format!("{arch}: the drivers have no register tables for its GC")))?;
        let slot = |index, size, bus_addr, prefetchable, is_64| BarSlot {
            index,
            info: BarInfo { size, bus_addr, prefetchable },
            is_64,
        };
        let bars = vec![
            slot(AMD_BAR_VRAM, layout.vram_size, VRAM_BAR_BUS, true, true),
            slot(AMD_BAR_DOORBELL, chip.doorbell_bar, DOORBELL_BAR_BUS, true, true),
            slot(AMD_BAR_MMIO, chip.mmio_bar, MMIO_BAR_BUS, false, false),
        ];
        let config = ConfigSpace::new(layout.device_id, chip.revision, chip.class, bars);
        let mut st = State::default();
        super::mmio::wire(&mut st, &chip, &layout, &map);
        Ok(Arc::new_cyclic(|me| EmuPciGpu {
            me: me.clone(),
            name: format!("emu:{}", chip.arch),
            chip,
            layout,
            bases,
            map,
            vram,
            doorbells,
            dma: Arc::default(),
            config: Mutex::new(config),
            st: Mutex::new(st),
            engine,
            writes: Arc::default(),
            epoch: AtomicU64::new(0),
            hdp_flushes: AtomicU64::new(0),
            soft_resets: AtomicU64::new(0),
            mode1_resets: AtomicU64::new(0),
            dispatch_budget_ms: AtomicU64::new(0),
        }))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn slot(&self, bar: u8) -> Option<BarSlot> {
        let size = match bar {
            AMD_BAR_VRAM => self.layout.vram_size,
            AMD_BAR_DOORBELL => self.chip.doorbell_bar,
            AMD_BAR_MMIO => self.chip.mmio_bar,
            _ => return None,
        };
        let bus_addr = match bar {
            AMD_BAR_VRAM => VRAM_BAR_BUS,
            AMD_BAR_DOORBELL => DOORBELL_BAR_BUS,
            _ => MMIO_BAR_BUS,
        };
        Some(BarSlot {
            index: bar,
            info: BarInfo { size, bus_addr, prefetchable: bar != AMD_BAR_MMIO },
            is_64: bar != AMD_BAR_MMIO,
        })
    }

    /// Check an access of `len` bytes at `offset` of BAR `bar` (inside it, naturally aligned for
    /// register-sized accesses).
    fn check(&self, bar: u8, offset: u64, len: u64, op: &str, align: bool) -> Result<()> {
        let what = || format!("BAR{bar} {op} of {len} bytes at {offset:#x}");
        let Some(s) = self.slot(bar) else {
            return Err(bad_access(&self.name, what(), "the function has no such BAR".into()));
        };
        if offset.checked_add(len).is_none_or(|end| end > s.info.size) {
            return Err(bad_access(&self.name, what(), format!("past the BAR's {:#x} bytes", s.info.size)));
        }
        if align && !offset.is_multiple_of(len) {
            return Err(bad_access(&self.name, what(), "not naturally aligned".into()));
        }
        Ok(())
    }

    /// The segment bases the registers are keyed by (what the discovery table publishes).
    pub fn bases(&self) -> &Bases {
        &self.bases
    }

    /// The page-table format of this chip's GC.
    pub(crate) fn pt_generation(&self) -> PtGeneration {
        self.map.chip.pt_generation()
    }

    /// Puts `mem` in the GPU's DMA reach at bus address `bus` (a bridge's SRAM in front of it).
    pub(crate) fn map_dma_window(&self, bus: u64, mem: Arc<HostMem>) {
        self.dma.map_window(bus, mem);
    }

    /// The VRAM size in bytes.
    pub fn vram_size(&self) -> u64 {
        self.layout.vram_size
    }

    /// HDP flush requests so far: writes of an NBIO GPU_HDP_FLUSH_REQ register, through BAR5 or
    /// by a command processor (the runtime's memory barrier on AM).
    pub fn hdp_flush_requests(&self) -> u64 {
        self.hdp_flushes.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A register's value as the driver would read it (tests).
    pub fn reg(&self, addr: u32) -> u32 {
        self.reg_read(addr)
    }
}

impl PciDevice for EmuPciGpu {
    fn name(&self) -> &str {
        &self.name
    }

    fn config_read(&self, offset: u16, buf: &mut [u8]) -> Result<()> {
        let c = self.config.lock().unwrap_or_else(|e| e.into_inner());
        if c.read(offset as usize, buf) {
            return Ok(());
        }
        Err(bad_access(
            &self.name,
            format!("config read of {} bytes at {offset:#x}", buf.len()),
            "past config space".into(),
        ))
    }

    fn config_write(&self, offset: u16, data: &[u8]) -> Result<()> {
        let mut c = self.config.lock().unwrap_or_else(|e| e.into_inner());
        if c.write(offset as usize, data) {
            return Ok(());
        }
        Err(bad_access(
            &self.name,
            format!("config write of {} bytes at {offset:#x}", data.len()),
            "past config space".into(),
        ))
    }

    fn bar(&self, index: u8) -> Option<BarInfo> {
        self.slot(index).map(|s| s.info)
    }

    fn read32(&self, bar: u8, offset: u64) -> Result<u32> {
        self.check(bar, offset, 4, "read32", true)?;
        Ok(match bar {
            AMD_BAR_VRAM => self.vram.read_u32(offset).unwrap_or(u32::MAX),
            AMD_BAR_DOORBELL => self.doorbells.read_u32(offset).unwrap_or(u32::MAX),
            _ => self.reg_read((offset / 4) as u32),
        })
    }

    fn write32(&self, bar: u8, offset: u64, value: u32) -> Result<()> {
        self.check(bar, offset, 4, "write32", true)?;
        match bar {
            AMD_BAR_VRAM => {
                self.vram.write_u32(offset, value);
            }
            AMD_BAR_DOORBELL => {
                self.doorbells.write_u32(offset, value);
                self.doorbell_written(offset);
            }
            _ => self.reg_write((offset / 4) as u32, value),
        }
        Ok(())
    }

    fn read64(&self, bar: u8, offset: u64) -> Result<u64> {
        self.check(bar, offset, 8, "read64", true)?;
        Ok(match bar {
            AMD_BAR_VRAM => self.vram.read_u64(offset).unwrap_or(u64::MAX),
            AMD_BAR_DOORBELL => self.doorbells.read_u64(offset).unwrap_or(u64::MAX),
            _ => {
                let lo = self.reg_read((offset / 4) as u32) as u64;
                lo | (self.reg_read((offset / 4) as u32 + 1) as u64) << 32
            }
        })
    }

    fn write64(&self, bar: u8, offset: u64, value: u64) -> Result<()> {
        self.check(bar, offset, 8, "write64", true)?;
        match bar {
            AMD_BAR_VRAM => {
                self.vram.write_u64(offset, value);
            }
            AMD_BAR_DOORBELL => {
                self.doorbells.write_u64(offset, value);
                self.doorbell_written(offset);
            }
            _ => {
                self.reg_write((offset / 4) as u32, value as u32);
                self.reg_write((offset / 4) as u32 + 1, (value >> 32) as u32);
            }
        }
        Ok(())
    }

    fn copy_from_bar(&self, bar: u8, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.check(bar, offset, buf.len() as u64, "copy_from_bar", false)?;
        match bar {
            AMD_BAR_VRAM => self.vram.read(offset, buf),
            AMD_BAR_DOORBELL => self.doorbells.read(offset, buf),
            _ => {
                return Err(bad_access(
                    &self.name,
                    format!("BAR{bar} bulk read"),
                    "registers are read a dword at a time".into(),
                ))
            }
        };
        Ok(())
    }

    fn copy_to_bar(&self, bar: u8, offset: u64, data: &[u8]) -> Result<()> {
        self.check(bar, offset, data.len() as u64, "copy_to_bar", false)?;
        match bar {
            AMD_BAR_VRAM => self.vram.write(offset, data),
            _ => {
                return Err(bad_access(
                    &self.name,
                    format!("BAR{bar} bulk write"),
                    "only VRAM takes bulk writes".into(),
                ))
            }
        };
        Ok(())
    }

    fn bar_ptr(&self, bar: u8) -> Option<*mut u8> {
        (bar == AMD_BAR_VRAM).then(|| self.vram.addr() as *mut u8)
    }

    fn alloc_dma(&self, size: u64, contiguous: bool) -> Result<Box<dyn DmaMemory>> {
        // Every emulated allocation is contiguous in bus addresses.
        let _ = contiguous;
        Ok(Box::new(self.dma.alloc(&self.name, size)?))
    }

    fn wait_interrupt(&self, timeout: Duration) -> Result<bool> {
        // Interrupts are polled from the IH ring; nothing fires an eventfd.
        let _ = timeout;
        Ok(false)
    }
}

impl EmuPciGpu {
    /// A doorbell write at byte `offset` of BAR2: wake the queue it belongs to.
    fn doorbell_written(&self, offset: u64) {
        let st = self.lock();
        for q in st.hqds.values().filter(|q| q.doorbell == offset) {
            q.running.ctl.bell.ring();
        }
    }
}

impl Drop for EmuPciGpu {
    /// A queue the driver never dequeued (its link to the device failed first) still runs: stop
    /// its thread before the VRAM and DMA memory it reads go away.
    fn drop(&mut self) {
        let st = self.st.get_mut().unwrap_or_else(|e| e.into_inner());
        let queues: Vec<HqdQueue> = st.hqds.drain().map(|(_, q)| q).chain(st.retired.drain(..)).collect();
        for q in queues {
            q.running.stop();
        }
    }
}
