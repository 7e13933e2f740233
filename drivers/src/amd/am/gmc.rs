//! The GMC: the GC and MM hubs' VM setup for context 0 (the only context the AM driver uses),
//! TLB invalidation through engine 17, the fault status, and the HDP flush.
//!
//! Sequence from linux-6.12 `gfxhub_v3_0.c`/`mmhub_v3_0.c` (`init_system_aperture_regs`,
//! `init_tlb_regs`, `init_cache_regs`, `disable_identity_aperture`, `program_invalidation`) and
//! `gmc_v11_0.c`/`gmc_v9_0.c` (`flush_gpu_tlb`: the MM hub takes the engine's semaphore). The
//! register names differ only in prefix between hubs and generations (`GCVM_`/`GCMC_VM_` on the
//! gfx11 GC hub, `MMVM_`/`MMMC_VM_` on MMHUB 3.x, `VM_`/`MC_VM_` on gfx9 and MMHUB 1.8); the
//! field names are the same, so one sequence serves all four.
//!
//! Context 0 walks a 4-level table ([`super::pagetable`]) for VAs in
//! `[PAGE_TABLE_START, PAGE_TABLE_END]`, indexed by `va − PAGE_TABLE_START` (as the GART is);
//! MC addresses inside the system aperture (the FB: `fb_base` + VRAM offset) bypass it.

use super::chip::{ChipTables, GFX11};
use super::mmio::{Ip, Mmio, RegAt};
use super::pagetable::PAGE_TABLE_DEPTH;
use crate::{Error, Result};
use std::time::Duration;

/// The HDP flush register's byte offset in BAR5: the remap window the kernel programs
/// (`MMIO_REG_HOLE_OFFSET = 0x80000 − PAGE_SIZE` + `KFD_MMIO_REMAP_HDP_MEM_FLUSH_CNTL` (0)).
pub const HDP_FLUSH_REMAP: u32 = 0x80000 - 0x1000;
const TLB_TIMEOUT: Duration = Duration::from_secs(1);

/// Points the NBIO HDP remap registers at [`HDP_FLUSH_REMAP`] (`nbio_v4_3_remap_hdp_registers`).
pub fn remap_hdp(mmio: &Mmio) -> Result<()> {
    mmio.write(mmio.reg(Ip::Nbio, 0, "BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL")?, HDP_FLUSH_REMAP)?;
    mmio.write(mmio.reg(Ip::Nbio, 0, "BIF_BX0_REMAP_HDP_REG_FLUSH_CNTL")?, HDP_FLUSH_REMAP + 4)
}

/// Flushes the host data path so that CPU writes through BAR0 reach VRAM before the GPU reads
/// them (`hdp_v6_0_flush_hdp`: a write of 0 to the remapped flush register).
pub fn hdp_flush(mmio: &Mmio) -> Result<()> {
    mmio.write_dw(HDP_FLUSH_REMAP / 4, 0)
}

/// One VM hub instance and its register prefixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hub {
    pub ip: Ip,
    pub inst: u8,
    /// `GCVM_`, `MMVM_` or `VM_`.
    pub vm: &'static str,
    /// `GCMC_VM_`, `MMMC_VM_` or `MC_VM_`.
    pub mc: &'static str,
}

impl Hub {
    /// The hubs of a chip: GC instances (XCCs) and MMHUB instances, for a GC major version
    /// (their prefixes are the chip's [`ChipTables`] data; an unknown major gets gfx11's).
    pub fn gc(gc_major: u8, inst: u8) -> Hub {
        let n = ChipTables::for_major(gc_major).unwrap_or(GFX11).gc_hub;
        Hub { ip: Ip::Gc, inst, vm: n.vm, mc: n.mc }
    }

    pub fn mm(gc_major: u8, inst: u8) -> Hub {
        let n = ChipTables::for_major(gc_major).unwrap_or(GFX11).mm_hub;
        Hub { ip: Ip::Mmhub, inst, vm: n.vm, mc: n.mc }
    }

    fn vm(&self, mmio: &Mmio, name: &str) -> Result<RegAt> {
        mmio.reg(self.ip, self.inst, &format!("{}{name}", self.vm))
    }

    fn mc(&self, mmio: &Mmio, name: &str) -> Result<RegAt> {
        mmio.reg(self.ip, self.inst, &format!("{}{name}", self.mc))
    }

    /// The MC address of VRAM offset 0 (`MC_VM_FB_LOCATION_BASE` is in 16 MiB units).
    pub fn fb_base(&self, mmio: &Mmio) -> Result<u64> {
        Ok(u64::from(mmio.read(self.mc(mmio, "FB_LOCATION_BASE")?)? & 0xff_ffff) << 24)
    }

    pub fn fb_top(&self, mmio: &Mmio) -> Result<u64> {
        Ok((u64::from(mmio.read(self.mc(mmio, "FB_LOCATION_TOP")?)? & 0xff_ffff) << 24) | 0xff_ffff)
    }
}

/// Where context 0's table lives and what it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VmSetup {
    /// VRAM offset of the root (PDB2) table.
    pub root: u64,
    /// First and last VA of context 0.
    pub va_start: u64,
    pub va_end: u64,
    /// VRAM offsets of the scratch page (system aperture default) and the dummy page faults
    /// are redirected to.
    pub scratch: u64,
    pub dummy: u64,
}

/// Programs one hub's apertures, L1 TLB, L2 cache, context 0 and invalidation engines.
pub fn init_hub(mmio: &Mmio, hub: Hub, vm: &VmSetup) -> Result<()> {
    mmio.trace_note(&format!("GMC: {:?} hub {} context 0", hub.ip, hub.inst));
    let (fb_start, fb_end) = (hub.fb_base(mmio)?, hub.fb_top(mmio)?);
    // No AGP aperture; the system aperture is the FB.
    mmio.write(hub.mc(mmio, "AGP_BASE")?, 0)?;
    mmio.write(hub.mc(mmio, "AGP_BOT")?, (0xffff_ffff_ffffu64 >> 24) as u32)?;
    mmio.write(hub.mc(mmio, "AGP_TOP")?, 0)?;
    mmio.write(hub.mc(mmio, "SYSTEM_APERTURE_LOW_ADDR")?, (fb_start >> 18) as u32)?;
    mmio.write(hub.mc(mmio, "SYSTEM_APERTURE_HIGH_ADDR")?, (fb_end >> 18) as u32)?;
    mmio.write(hub.mc(mmio, "SYSTEM_APERTURE_DEFAULT_ADDR_LSB")?, (vm.scratch >> 12) as u32)?;
    mmio.write(hub.mc(mmio, "SYSTEM_APERTURE_DEFAULT_ADDR_MSB")?, (vm.scratch >> 44) as u32)?;
    mmio.write(hub.vm(mmio, "L2_PROTECTION_FAULT_DEFAULT_ADDR_LO32")?, (vm.dummy >> 12) as u32)?;
    mmio.write(hub.vm(mmio, "L2_PROTECTION_FAULT_DEFAULT_ADDR_HI32")?, (vm.dummy >> 44) as u32)?;

    let tlb = hub.mc(mmio, "MX_L1_TLB_CNTL")?;
    mmio.update(
        tlb,
        &[
            ("ENABLE_L1_TLB", 1),
            ("SYSTEM_ACCESS_MODE", 3),
            ("ENABLE_ADVANCED_DRIVER_MODEL", 1),
            ("SYSTEM_APERTURE_UNMAPPED_ACCESS", 0),
            ("MTYPE", 3),
        ],
    )?;
    mmio.update(
        hub.vm(mmio, "L2_CNTL")?,
        &[
            ("ENABLE_L2_CACHE", 1),
            ("ENABLE_L2_FRAGMENT_PROCESSING", 0),
            ("ENABLE_DEFAULT_PAGE_OUT_TO_SYSTEM_MEMORY", 1),
            ("L2_PDE0_CACHE_TAG_GENERATION_MODE", 0),
            ("PDE_FAULT_CLASSIFICATION", 0),
            ("CONTEXT1_IDENTITY_ACCESS_MODE", 1),
            ("IDENTITY_MODE_FRAGMENT_SIZE", 0),
        ],
    )?;
    mmio.update(hub.vm(mmio, "L2_CNTL2")?, &[("INVALIDATE_ALL_L1_TLBS", 1), ("INVALIDATE_L2_CACHE", 1)])?;
    mmio.update(hub.vm(mmio, "L2_CNTL3")?, &[("BANK_SELECT", 9), ("L2_CACHE_BIGK_FRAGMENT_SIZE", 6)])?;
    mmio.update(
        hub.vm(mmio, "L2_CNTL4")?,
        &[("VMC_TAP_PDE_REQUEST_PHYSICAL", 0), ("VMC_TAP_PTE_REQUEST_PHYSICAL", 0)],
    )?;
    if hub.vm != "VM_" {
        // gfx10+ only (`gfxhub_v3_0_init_cache_regs`; gfx9's hubs leave L2_CNTL5 alone).
        mmio.update(hub.vm(mmio, "L2_CNTL5")?, &[("L2_CACHE_SMALLK_FRAGMENT_SIZE", 0)])?;
    }

    // Context 0: our 4-level table.
    let root = vm.root | 1;
    mmio.write(hub.vm(mmio, "CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32")?, root as u32)?;
    mmio.write(hub.vm(mmio, "CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32")?, (root >> 32) as u32)?;
    mmio.write(hub.vm(mmio, "CONTEXT0_PAGE_TABLE_START_ADDR_LO32")?, (vm.va_start >> 12) as u32)?;
    mmio.write(hub.vm(mmio, "CONTEXT0_PAGE_TABLE_START_ADDR_HI32")?, (vm.va_start >> 44) as u32)?;
    mmio.write(hub.vm(mmio, "CONTEXT0_PAGE_TABLE_END_ADDR_LO32")?, (vm.va_end >> 12) as u32)?;
    mmio.write(hub.vm(mmio, "CONTEXT0_PAGE_TABLE_END_ADDR_HI32")?, (vm.va_end >> 44) as u32)?;
    let mut fields: Vec<(&str, u32)> =
        vec![("ENABLE_CONTEXT", 1), ("PAGE_TABLE_DEPTH", PAGE_TABLE_DEPTH), ("PAGE_TABLE_BLOCK_SIZE", 0)];
    for f in [
        "RANGE_PROTECTION_FAULT_ENABLE_INTERRUPT",
        "RANGE_PROTECTION_FAULT_ENABLE_DEFAULT",
        "DUMMY_PAGE_PROTECTION_FAULT_ENABLE_INTERRUPT",
        "DUMMY_PAGE_PROTECTION_FAULT_ENABLE_DEFAULT",
        "PDE0_PROTECTION_FAULT_ENABLE_INTERRUPT",
        "PDE0_PROTECTION_FAULT_ENABLE_DEFAULT",
        "VALID_PROTECTION_FAULT_ENABLE_INTERRUPT",
        "VALID_PROTECTION_FAULT_ENABLE_DEFAULT",
        "READ_PROTECTION_FAULT_ENABLE_INTERRUPT",
        "READ_PROTECTION_FAULT_ENABLE_DEFAULT",
        "WRITE_PROTECTION_FAULT_ENABLE_INTERRUPT",
        "WRITE_PROTECTION_FAULT_ENABLE_DEFAULT",
    ] {
        fields.push((f, 1));
    }
    mmio.write_fields(hub.vm(mmio, "CONTEXT0_CNTL")?, &fields)?;

    // No identity aperture.
    mmio.write(hub.vm(mmio, "L2_CONTEXT1_IDENTITY_APERTURE_LOW_ADDR_LO32")?, 0xffff_ffff)?;
    mmio.write(hub.vm(mmio, "L2_CONTEXT1_IDENTITY_APERTURE_LOW_ADDR_HI32")?, 0xf)?;
    for n in [
        "L2_CONTEXT1_IDENTITY_APERTURE_HIGH_ADDR_LO32",
        "L2_CONTEXT1_IDENTITY_APERTURE_HIGH_ADDR_HI32",
        "L2_CONTEXT_IDENTITY_PHYSICAL_OFFSET_LO32",
        "L2_CONTEXT_IDENTITY_PHYSICAL_OFFSET_HI32",
    ] {
        mmio.write(hub.vm(mmio, n)?, 0)?;
    }
    // Every invalidation engine covers the whole range.
    for e in 0..18 {
        mmio.write(hub.vm(mmio, &format!("INVALIDATE_ENG{e}_ADDR_RANGE_LO32"))?, 0xffff_ffff)?;
        mmio.write(hub.vm(mmio, &format!("INVALIDATE_ENG{e}_ADDR_RANGE_HI32"))?, 0x1f)?;
    }
    Ok(())
}

/// Invalidates context 0's translations on `hub` through engine 17 (the MM hub holds the
/// engine's semaphore around the request, as `gmc_v11_0_flush_vm_hub` does).
pub fn flush_tlb(mmio: &Mmio, hub: Hub) -> Result<()> {
    let sem = hub.ip == Ip::Mmhub;
    let name = |r: RegAt| r.reg.name;
    if sem {
        let s = hub.vm(mmio, "INVALIDATE_ENG17_SEM")?;
        mmio.poll(s, 1, 1, TLB_TIMEOUT, &format!("the TLB invalidation semaphore ({})", name(s)))?;
    }
    let req = hub.vm(mmio, "INVALIDATE_ENG17_REQ")?;
    let v = req.with(
        0,
        &[
            ("PER_VMID_INVALIDATE_REQ", 1),
            ("FLUSH_TYPE", 0),
            ("INVALIDATE_L2_PTES", 1),
            ("INVALIDATE_L2_PDE0", 1),
            ("INVALIDATE_L2_PDE1", 1),
            ("INVALIDATE_L2_PDE2", 1),
            ("INVALIDATE_L1_PTES", 1),
        ],
    )?;
    mmio.write(req, v)?;
    let ack = hub.vm(mmio, "INVALIDATE_ENG17_ACK")?;
    mmio.poll(ack, 1, 1, TLB_TIMEOUT, "the TLB invalidation of VMID 0")?;
    if sem {
        mmio.write(hub.vm(mmio, "INVALIDATE_ENG17_SEM")?, 0)?;
    }
    Ok(())
}

/// A VM protection fault the hub recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultStatus {
    pub status: u32,
    /// The faulting page's address (`L2_PROTECTION_FAULT_ADDR` << 12).
    pub addr: u64,
}

/// Reads (and with `clear`, clears) the hub's `L2_PROTECTION_FAULT_STATUS`; `None` when clean.
pub fn fault_status(mmio: &Mmio, hub: Hub, clear: bool) -> Result<Option<FaultStatus>> {
    let status = mmio.read(hub.vm(mmio, "L2_PROTECTION_FAULT_STATUS")?)?;
    if status == 0 {
        return Ok(None);
    }
    let lo = mmio.read(hub.vm(mmio, "L2_PROTECTION_FAULT_ADDR_LO32")?)?;
    let hi = mmio.read(hub.vm(mmio, "L2_PROTECTION_FAULT_ADDR_HI32")?)?;
    let addr = ((u64::from(hi) << 32) | u64::from(lo)) << 12;
    if clear {
        mmio.update(hub.vm(mmio, "L2_PROTECTION_FAULT_CNTL")?, &[("CLEAR_PROTECTION_FAULT_STATUS_ADDR", 1)])?;
    }
    Ok(Some(FaultStatus { status, addr }))
}

/// `what` as the error of a hub that is not bound (a chip without an MMHUB instance).
pub fn require(mmio: &Mmio, hub: Hub) -> Result<()> {
    if mmio.has(hub.ip, hub.inst) {
        Ok(())
    } else {
        Err(Error::Protocol(format!("{}: no {:?} instance {} to program", mmio.pci().name(), hub.ip, hub.inst)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::am::chip::{GFX11, GFX942};
    use crate::amd::am::testing::bound;

    #[test]
    fn every_hub_of_both_generations_programs_and_flushes() {
        for chip in [GFX11, GFX942] {
            let (pci, mmio) = bound(chip, 0xffff_ffff);
            let vm = VmSetup {
                root: 0x10_0000,
                va_start: 0x7f00_0000_0000,
                va_end: 0x7fff_ffff_ffff,
                scratch: 0,
                dummy: 0x1000,
            };
            for hub in [Hub::gc(chip.gc_major, 0), Hub::mm(chip.gc_major, 0)] {
                init_hub(&mmio, hub, &vm).unwrap();
                flush_tlb(&mmio, hub).unwrap();
                let base = hub.vm(&mmio, "CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32").unwrap();
                assert_eq!(pci.reg(base.addr), Some(0x10_0001), "{hub:?}");
                let cntl = hub.vm(&mmio, "CONTEXT0_CNTL").unwrap();
                let v = pci.reg(cntl.addr).unwrap();
                assert_eq!(cntl.field("PAGE_TABLE_DEPTH").unwrap().get(v), 3);
                assert_eq!(cntl.field("ENABLE_CONTEXT").unwrap().get(v), 1);
                let start = hub.vm(&mmio, "CONTEXT0_PAGE_TABLE_START_ADDR_LO32").unwrap();
                assert_eq!(pci.reg(start.addr), Some((0x7f00_0000_0000u64 >> 12) as u32));
            }
        }
    }

    #[test]
    fn a_tlb_flush_that_is_never_acknowledged_is_a_named_timeout() {
        let (_pci, mmio) = bound(GFX11, 0);
        let e = flush_tlb(&mmio, Hub::gc(11, 0)).unwrap_err().to_string();
        assert!(e.contains("regGCVM_INVALIDATE_ENG17_ACK") && e.contains("timed out"), "{e}");
    }
}
