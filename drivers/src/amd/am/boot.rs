//! The boot, in the order of amd.md §7.4 (tinygrad's `AMDev.__init__`, checked against the
//! linux-6.12 sequences cited in each module): discovery → tables → boot-region buffers →
//! partial-boot detection (`SCRATCH_REG7` holds [`AM_VERSION`], `SCRATCH_REG6` is 0 after a
//! clean [`super::AmDevice::close`], no VM fault pending) → SOC → MM hubs → IH → PSP (bootloader,
//! KM ring, TOC, SMU firmware, TMR, IP firmware, RLC autoload) → SMU → GC hubs, MEC, SH_MEM →
//! SDMA → the marks. A partial boot skips the PSP, the SMU and the MEC start: the firmware of the
//! previous session is still running.

use super::chip::ChipTables;
use super::discovery::{Discovery, IpVersion, DISCOVERY_TMR_OFFSET, DISCOVERY_TMR_SIZE};
use super::firmware::{ChipFirmware, ChipVersions, FirmwareSource, GfxFwType};
use super::gmc::{self, Hub, VmSetup};
use super::ih::IhRing;
use super::mmio::{Ip, Mmio};
use super::psp::{BlComponent, Psp, PspBuffers, MSG1_BYTES, RING_BYTES};
use super::vram::{reserved_top, Vram, VramIo};
use super::{gfx, sdma, smu};
use crate::pci::{PciDevice, AMD_BAR_MMIO};
use crate::{Error, Result};

/// What `SCRATCH_REG7` holds after a boot by this driver (tinygrad's `AMDev.Version`).
pub const AM_VERSION: u32 = 0xA000_0008;
/// `RCC_CONFIG_MEMSIZE`'s absolute dword address: NBIO segment 2 (0xD20 on every SOC15 chip
/// the driver supports) + the register's offset 0xC3 (nbio_4_3_0, nbio_7_9_0). Read before
/// discovery, which lives at the top of the VRAM it reports.
pub const RCC_CONFIG_MEMSIZE_DWORD: u32 = 0xDE3;
/// How long the chip takes to come back from a mode-1 reset (`SMU13_MODE1_RESET_WAIT_TIME_IN_MS`).
const MODE1_RESET_WAIT: std::time::Duration = std::time::Duration::from_millis(500);
/// Bytes of the IH ring.
pub const IH_RING_BYTES: u64 = 256 << 10;
/// Bytes of the SMU driver table.
pub const SMU_TABLE_BYTES: u64 = 16 << 10;
/// Context 0's VA window: what [`super::AmDevice::alloc`] hands out.
pub const VA_START: u64 = 0x7f00_0000_0000;
pub const VA_END: u64 = 0x7fff_ffff_ffff;
/// What context 0's page table covers: the user half of a 48-bit address space, so that
/// memory the CPU maps can also be mapped at its CPU address
/// ([`super::AmDevice::alloc_at_cpu`]); the VA window above is a part of it.
pub const CONTEXT0_START: u64 = 0;
pub const CONTEXT0_END: u64 = VA_END;

/// One firmware blob the PSP loads with LOAD_IP_FW.
#[derive(Debug, Clone)]
pub struct IpFirmware {
    pub name: String,
    /// `enum psp_gfx_fw_type`.
    pub fw_type: u32,
    pub data: Vec<u8>,
}

/// The firmware a boot needs, in the order the PSP takes it: the bootloader's components,
/// the TOC, the LOAD_IP_FW payloads (the SMU's first; gfx9's REG_LIST last).
#[derive(Debug, Clone, Default)]
pub struct BootFirmware {
    /// sOS components in bootloader order (KDB, SPL, SYS_DRV, SOC_DRV, INTF_DRV, DBG_DRV,
    /// RAS_DRV, SOS).
    pub sos: Vec<BlComponent>,
    /// The TOC, when the SOS image has one (it tells the TMR size).
    pub toc: Option<Vec<u8>>,
    /// LOAD_IP_FW blobs; the SMU's first.
    pub ip: Vec<IpFirmware>,
    /// Byte address the RS64 MEC starts at (gfx11; from the MEC v2 header).
    pub mec_ucode_start: u64,
}

impl BootFirmware {
    /// Every file the chip needs, read from `src` and parsed by the firmware module
    /// ([`ChipFirmware::load`]), in the PSP's order.
    pub fn load(d: &Discovery, src: &dyn FirmwareSource) -> Result<BootFirmware> {
        let fw = ChipFirmware::load(ChipVersions::from_discovery(d)?, src)?;
        let sos = fw
            .bootloader
            .iter()
            .map(|s| BlComponent { name: format!("{:?}", s.kind), bl_cmd: s.cmd, data: s.data.clone() })
            .collect();
        let ip = fw
            .load_ip_fw_order()
            .map(|p| IpFirmware { name: format!("{} {}", p.file, p.part), fw_type: p.fw_type.0, data: p.data.clone() })
            .collect();
        Ok(BootFirmware { sos, toc: fw.toc.clone(), ip, mec_ucode_start: fw.mec_ucode_start_addr.unwrap_or(0) })
    }
}

/// The IP versions the boot keys on.
#[derive(Debug, Clone, Copy)]
pub struct Versions {
    pub gc: IpVersion,
    pub mp1: IpVersion,
}

/// Buffers at fixed offsets of the boot region (the same every boot, so a partial boot finds
/// them where the previous session left them).
#[derive(Debug, Clone, Copy)]
pub struct BootBuffers {
    pub root: u64,
    pub scratch: u64,
    pub dummy: u64,
    pub ih_ring: u64,
    pub ih_wptr: u64,
    pub psp: PspBuffers,
    pub smu_table: u64,
}

impl BootBuffers {
    pub fn alloc(vram: &mut Vram) -> Result<BootBuffers> {
        let b = &mut vram.boot;
        Ok(BootBuffers {
            root: b.alloc(0x1000, 0x1000)?,
            scratch: b.alloc(0x1000, 0x1000)?,
            dummy: b.alloc(0x1000, 0x1000)?,
            ih_wptr: b.alloc(0x1000, 0x1000)?,
            smu_table: b.alloc(SMU_TABLE_BYTES, 0x1000)?,
            psp: PspBuffers {
                cmd: b.alloc(0x1000, 0x1000)?,
                fence: b.alloc(0x1000, 0x1000)?,
                ring: b.alloc(RING_BYTES, 0x1000)?,
                msg1: b.alloc(MSG1_BYTES, MSG1_BYTES)?,
            },
            ih_ring: b.alloc(IH_RING_BYTES, IH_RING_BYTES)?,
        })
    }
}

/// Reads VRAM size and the discovery table, and binds the chip's register tables.
pub fn discover(pci: &dyn PciDevice) -> Result<(Discovery, u64)> {
    let mb = pci.read32(AMD_BAR_MMIO, u64::from(RCC_CONFIG_MEMSIZE_DWORD) * 4)?;
    if mb == 0 || mb == u32::MAX {
        return Err(Error::Protocol(format!(
            "{}: RCC_CONFIG_MEMSIZE reads {mb:#x}: the device is not answering (powered down or reset)",
            pci.name()
        )));
    }
    let vram_size = u64::from(mb) << 20;
    let mut table = vec![0u8; DISCOVERY_TMR_SIZE];
    pci.copy_from_bar(crate::pci::AMD_BAR_VRAM, vram_size - DISCOVERY_TMR_OFFSET, &mut table)?;
    Ok((Discovery::parse(&table)?, vram_size))
}

pub fn versions(d: &Discovery) -> Result<Versions> {
    let gc = d.version(Ip::Gc.hw_id()).ok_or_else(|| Error::Protocol("IP discovery lists no GC".into()))?;
    let mp1 = d.version(Ip::Mp1.hw_id()).ok_or_else(|| Error::Protocol("IP discovery lists no MP1 (SMU)".into()))?;
    Ok(Versions { gc, mp1 })
}

/// Binds every table of the chip to the bases discovery lists.
pub fn bind(mmio: &mut Mmio, chip: &ChipTables, d: &Discovery) -> Result<()> {
    let bases = |ip: Ip, inst: u8| d.ip(ip.hw_id(), inst).map(|b| b.bases.clone());
    chip.bind(mmio, &bases)?;
    let bar = mmio.pci().bar(AMD_BAR_MMIO).map(|b| b.size).unwrap_or(0);
    if bar < (1 << 20) {
        mmio.enable_indirect()?;
    }
    Ok(())
}

/// Whether the previous session left the device booted and cleanly closed.
pub fn can_partial_boot(mmio: &Mmio, gc_major: u8) -> Result<bool> {
    if std::env::var_os("BAREGPU_AM_RESET").is_some_and(|v| v == "1") {
        return Ok(false);
    }
    let r7 = mmio.read(mmio.reg(Ip::Gc, 0, "SCRATCH_REG7")?)?;
    let r6 = mmio.read(mmio.reg(Ip::Gc, 0, "SCRATCH_REG6")?)?;
    let fault = gmc::fault_status(mmio, Hub::gc(gc_major, 0), false)?;
    Ok(r7 == AM_VERSION && r6 == 0 && fault.is_none())
}

/// Everything the boot programs; `partial` skips what still runs from the previous session.
pub struct BootPlan<'a> {
    pub mmio: &'a Mmio,
    pub io: VramIo<'a>,
    pub chip: ChipTables,
    pub versions: Versions,
    pub bufs: BootBuffers,
    pub vram: &'a mut Vram,
    pub partial: bool,
    /// Set by [`BootPlan::run`]: the MEC runs firmware (the PSP loaded its image in this boot,
    /// or a partial boot found the previous session's running).
    pub mec_loaded: bool,
    /// Set by [`BootPlan::run`]: the RS64 MEC's firmware start address (what a compute reset
    /// restarts it at).
    pub mec_start: u64,
}

impl BootPlan<'_> {
    pub fn vm_setup(&self) -> VmSetup {
        VmSetup {
            root: self.bufs.root,
            va_start: CONTEXT0_START,
            va_end: CONTEXT0_END,
            scratch: self.bufs.scratch,
            dummy: self.bufs.dummy,
        }
    }

    /// Runs the boot; `blobs` is asked for the firmware only when the boot is full.
    pub fn run(&mut self, blobs: &mut dyn FnMut() -> Result<BootFirmware>) -> Result<IhRing> {
        let m = self.mmio;
        let major = self.chip.gc_major;
        m.trace_note(if self.partial { "AM partial boot" } else { "AM full boot" });
        if !self.partial {
            self.mode1_reset_if_alive()?;
        }
        // SOC: doorbell aperture on, HDP flush remapped.
        m.update(m.reg(Ip::Nbio, 0, "RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN")?, &[("BIF_DOORBELL_APER_EN", 1)])?;
        gmc::remap_hdp(m)?;
        self.io.zero(self.bufs.root, 0x1000)?;
        let vm = self.vm_setup();
        for inst in instances(m, Ip::Mmhub) {
            gmc::init_hub(m, Hub::mm(major, inst), &vm)?;
        }
        self.io.zero(self.bufs.ih_ring, IH_RING_BYTES)?;
        self.io.zero(self.bufs.ih_wptr, 0x1000)?;
        let ih = IhRing::init(m, self.io.mc(self.bufs.ih_ring), IH_RING_BYTES, self.io.mc(self.bufs.ih_wptr))?;
        let mut mec_start = 0;
        self.mec_loaded = self.partial;
        if self.partial {
            mec_start = gfx::mec_start_addr(m, major)?;
        }
        if !self.partial {
            let blobs = blobs()?;
            mec_start = blobs.mec_ucode_start;
            self.psp(&blobs)?;
            let msgs = smu::SmuMessages::for_mp1(
                self.versions.mp1.major,
                self.versions.mp1.minor,
                self.versions.mp1.revision,
            )?;
            smu::init(m, &msgs, self.io.mc(self.bufs.smu_table))?;
            gfx::wait_rlc_autoload(m, major)?;
        }
        for xcc in instances(m, Ip::Gc) {
            gmc::init_hub(m, Hub::gc(major, xcc), &vm)?;
            if self.partial {
                for q in 0..2 {
                    gfx::unmap_queue(m, xcc, q)?;
                }
            } else {
                gfx::start_mec(m, xcc, major, mec_start)?;
            }
            gfx::init_compute(m, xcc, major)?;
        }
        self.mec_start = mec_start;
        sdma::init(m, &self.chip)?;
        m.write(m.reg(Ip::Gc, 0, "SCRATCH_REG7")?, AM_VERSION)?;
        m.write(m.reg(Ip::Gc, 0, "SCRATCH_REG6")?, 1)?;
        Ok(ih)
    }

    /// A full boot of a GPU whose PSP sOS and SMU still run (what amdgpu or a session that
    /// did not close left) starts with an SMU mode-1 reset, bus mastering off meanwhile
    /// (amd.md §7.4 step 6): the chip comes back as at power-on (PSP bootloader waiting, MEC
    /// halted), so the boot's PSP and MEC steps run on a known state.
    fn mode1_reset_if_alive(&self) -> Result<()> {
        let m = self.mmio;
        if !(Psp::new(m, self.io, self.bufs.psp).sos_alive()? && smu::alive(m)?) {
            return Ok(());
        }
        m.trace_note("SMU mode-1 reset: the PSP sOS of an earlier driver or session still runs");
        log::info!("{}: mode-1 reset (the PSP sOS of an earlier session still runs)", m.pci().name());
        let v = self.versions.mp1;
        set_bus_master(m.pci().as_ref(), false)?;
        let r = smu::mode1_reset(m, smu::Mode1Reset::for_mp1(v.major, v.minor, v.revision));
        // The chip resets behind the answer: tinygrad and linux wait 500 ms (one GPU, no hive).
        std::thread::sleep(MODE1_RESET_WAIT);
        set_bus_master(m.pci().as_ref(), true)?;
        r
    }

    fn psp(&mut self, blobs: &BootFirmware) -> Result<()> {
        let mut psp = Psp::new(self.mmio, self.io, self.bufs.psp);
        if !psp.sos_alive()? {
            psp.bootload(&blobs.sos)?;
        }
        psp.ring_create()?;
        let tmr_size = match &blobs.toc {
            Some(toc) => psp.load_toc(toc)?,
            None => 0,
        };
        let mut ip = blobs.ip.iter().peekable();
        // The SMU's firmware goes first (amdgpu_psp.c loads it before the TMR is set up).
        if let Some(f) = ip.next_if(|f| f.fw_type == GfxFwType::SMU.0) {
            psp.load_ip_fw(&f.name, f.fw_type, &f.data)?;
        }
        if tmr_size > 0 {
            let tmr = self.vram.boot.alloc(u64::from(tmr_size).next_multiple_of(MSG1_BYTES), MSG1_BYTES)?;
            psp.setup_tmr(tmr, tmr_size)?;
        }
        for f in ip {
            psp.load_ip_fw(&f.name, f.fw_type, &f.data)?;
            self.mec_loaded |= [GfxFwType::CP_MEC.0, GfxFwType::RS64_MEC.0].contains(&f.fw_type);
        }
        if self.chip.rlc_autoload {
            psp.autoload_rlc()?;
        }
        // Several XCCs run as one partition (amd.md §7.4, the end of the GFX init).
        if instances(self.mmio, Ip::Gc).len() > 1 {
            psp.spatial_partition(1)?;
        }
        Ok(())
    }
}

/// Sets or clears PCI bus mastering (the command register's MASTER bit).
fn set_bus_master(pci: &dyn PciDevice, on: bool) -> Result<()> {
    use crate::pci::config::{PCI_COMMAND, PCI_COMMAND_MASTER};
    let mut cmd = [0u8; 2];
    pci.config_read(PCI_COMMAND, &mut cmd)?;
    let old = u16::from_le_bytes(cmd);
    let new = if on { old | PCI_COMMAND_MASTER } else { old & !PCI_COMMAND_MASTER };
    pci.config_write(PCI_COMMAND, &new.to_le_bytes())
}

/// The instances of `ip` bound in `mmio` (0, 1, … until one is missing).
pub fn instances(mmio: &Mmio, ip: Ip) -> Vec<u8> {
    (0..=u8::MAX).take_while(|&i| mmio.has(ip, i)).collect()
}

/// The discovery-based chip tables for the GC version found.
pub fn chip_tables(v: &Versions) -> Result<ChipTables> {
    ChipTables::for_gc(v.gc.major, v.gc.minor)
}

/// The VRAM manager for a chip.
pub fn vram_for(size: u64, gc_major: u8) -> Result<Vram> {
    Vram::new(size, reserved_top(gc_major))
}
