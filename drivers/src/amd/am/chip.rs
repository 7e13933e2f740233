//! Which generated register table each IP of a chip uses, as data (one row per supported GC
//! version), and the binding of those tables to the segment bases IP discovery found.

use super::mmio::{Block, Ip, Mmio};
use super::mqd::MqdLayout;
use super::pagetable::PtGeneration;
use crate::{Error, Result};
use baregpu_autogen::amd::regs::{
    gc_11_0_0, gc_9_4_3, hdp_4_4_2, hdp_6_0_0, mmhub_1_8_0, mmhub_3_0_0, mp_13_0_0, mp_13_0_6, nbio_4_3_0, nbio_7_9_0,
    osssys_4_4_2, osssys_6_0_0, sdma_4_4_2, Reg,
};

/// The register tables of one chip family, and what differs between the generations in how
/// the driver (and the emulated GPU, which answers the same registers) names and programs them.
#[derive(Debug, Clone, Copy)]
pub struct ChipTables {
    pub gc_major: u8,
    pub tables: &'static [(Ip, &'static str, &'static [Reg])],
    /// Register-name prefixes of the GC hub (per XCC) and of the MM hubs.
    pub gc_hub: HubNames,
    pub mm_hub: HubNames,
    pub sdma: SdmaNames,
    pub mqd: MqdLayout,
    /// `SH_MEM_CONFIG` of every VMID (`init_compute_vmid`).
    pub sh_mem_config: &'static [(&'static str, u32)],
    /// GC firmware comes up through the RLC's autoload (`AUTOLOAD_RLC`, gfx11), not the
    /// PSP's `LOAD_IP_FW` of each block alone (gfx9).
    pub rlc_autoload: bool,
    /// The MEC runs RS64 firmware started at its program counter (gfx11), rather than the
    /// F32 MEC un-halted through `CP_MEC_CNTL` (gfx9).
    pub mec_rs64: bool,
    /// The MEC's control register and its halt fields (set at power-on; the MEC runs no queue
    /// until the driver clears them on that XCC).
    pub mec_halt: (&'static str, &'static [&'static str]),
    /// Writes to every XCC's GC before its compute setup (amd.md §7.4's GFX init):
    /// (register, `Some(value)` written whole, or `None` and the fields updated).
    pub xcc_setup: &'static [XccSetup],
}

/// One write of [`ChipTables::xcc_setup`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XccSetup {
    /// The register written whole.
    Write(&'static str, u32),
    /// The named fields of the register updated (read-modify-write).
    Update(&'static str, &'static [(&'static str, u32)]),
}

/// A VM hub's register prefixes: `GCVM_`/`GCMC_VM_` (gfx11 GC), `MMVM_`/`MMMC_VM_` (MMHUB 3),
/// `VM_`/`MC_VM_` (gfx9 GC and MMHUB 1.8). The names after them are the same everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HubNames {
    pub vm: &'static str,
    pub mc: &'static str,
}

/// Where the SDMA engines' registers are and how their first ring is programmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SdmaNames {
    /// The IP whose instances are the engines (SDMA 6 lives in GC: one engine here).
    pub ip: Ip,
    /// Prefix of the engine's registers (`SDMA0_`, `SDMA_`) and of its first ring's
    /// (`SDMA0_QUEUE0_`, `SDMA_GFX_`).
    pub engine: &'static str,
    pub queue: &'static str,
    /// Engine controls, in order: (register after `engine`, fields set).
    pub controls: &'static [(&'static str, &'static [(&'static str, u32)])],
    /// `RB_CNTL` fields besides RB_SIZE and RB_ENABLE.
    pub rb_cntl: &'static [(&'static str, u32)],
    /// The register (after `queue`) and field that turn on write-pointer polling where it is
    /// not a field of `RB_CNTL` (SDMA 4.x: `RB_WPTR_POLL_CNTL.ENABLE`).
    pub wptr_poll: Option<(&'static str, &'static str)>,
}

/// GC 11.0.x (gfx1100): SDMA 6 lives in GC.
pub const GFX11: ChipTables = ChipTables {
    gc_major: 11,
    tables: &[
        (Ip::Gc, "gc_11_0_0", gc_11_0_0::REGS),
        (Ip::Mmhub, "mmhub_3_0_0", mmhub_3_0_0::REGS),
        (Ip::Mp0, "mp_13_0_0", mp_13_0_0::REGS),
        (Ip::Mp1, "mp_13_0_0", mp_13_0_0::REGS),
        (Ip::Hdp, "hdp_6_0_0", hdp_6_0_0::REGS),
        (Ip::Osssys, "osssys_6_0_0", osssys_6_0_0::REGS),
        (Ip::Nbio, "nbio_4_3_0", nbio_4_3_0::REGS),
    ],
    gc_hub: HubNames { vm: "GCVM_", mc: "GCMC_VM_" },
    mm_hub: HubNames { vm: "MMVM_", mc: "MMMC_VM_" },
    // sdma_v6_0.c: gfx_resume_instance, ctx_switch_enable, enable.
    sdma: SdmaNames {
        ip: Ip::Gc,
        engine: "SDMA0_",
        queue: "SDMA0_QUEUE0_",
        controls: &[
            ("WATCHDOG_CNTL", &[("QUEUE_HANG_COUNT", 100)]),
            ("UTCL1_CNTL", &[("RESP_MODE", 3), ("REDO_DELAY", 9)]),
            ("UTCL1_PAGE", &[("RD_L2_POLICY", 2), ("WR_L2_POLICY", 3), ("LLC_NOALLOC", 1)]),
            ("CNTL", &[("TRAP_ENABLE", 1)]),
            ("F32_CNTL", &[("HALT", 0), ("TH1_RESET", 0)]),
        ],
        rb_cntl: &[
            ("WPTR_POLL_ENABLE", 1),
            ("RB_VMID", 0),
            ("RPTR_WRITEBACK_ENABLE", 1),
            ("RPTR_WRITEBACK_TIMER", 4),
            ("RB_PRIV", 1),
        ],
        wptr_poll: None,
    },
    mqd: MqdLayout::V11,
    sh_mem_config: &[("ADDRESS_MODE", 0), ("ALIGNMENT_MODE", 3), ("INITIAL_INST_PREFETCH", 3)],
    rlc_autoload: true,
    mec_rs64: true,
    mec_halt: ("CP_MEC_RS64_CNTL", &["MEC_HALT"]),
    xcc_setup: &[XccSetup::Update("GRBM_CNTL", &[("READ_TIMEOUT", 0xff)])],
};

/// GC 9.4.3 (gfx942, MI300).
pub const GFX942: ChipTables = ChipTables {
    gc_major: 9,
    tables: &[
        (Ip::Gc, "gc_9_4_3", gc_9_4_3::REGS),
        (Ip::Mmhub, "mmhub_1_8_0", mmhub_1_8_0::REGS),
        (Ip::Mp0, "mp_13_0_6", mp_13_0_6::REGS),
        (Ip::Mp1, "mp_13_0_6", mp_13_0_6::REGS),
        (Ip::Hdp, "hdp_4_4_2", hdp_4_4_2::REGS),
        (Ip::Osssys, "osssys_4_4_2", osssys_4_4_2::REGS),
        (Ip::Nbio, "nbio_7_9_0", nbio_7_9_0::REGS),
        (Ip::Sdma, "sdma_4_4_2", sdma_4_4_2::REGS),
    ],
    gc_hub: HubNames { vm: "VM_", mc: "MC_VM_" },
    mm_hub: HubNames { vm: "VM_", mc: "MC_VM_" },
    // sdma_v4_4_2.c: gfx_resume, ctx_switch_enable, enable (one engine per instance).
    sdma: SdmaNames {
        ip: Ip::Sdma,
        engine: "SDMA_",
        queue: "SDMA_GFX_",
        controls: &[
            ("UTCL1_CNTL", &[("REDO_DELAY", 9)]),
            ("CNTL", &[("TRAP_ENABLE", 1), ("UTC_L1_ENABLE", 1)]),
            ("F32_CNTL", &[("HALT", 0)]),
        ],
        rb_cntl: &[("RB_VMID", 0), ("RPTR_WRITEBACK_ENABLE", 1), ("RPTR_WRITEBACK_TIMER", 4), ("RB_PRIV", 1)],
        wptr_poll: Some(("RB_WPTR_POLL_CNTL", "ENABLE")),
    },
    mqd: MqdLayout::V9,
    // 9.4: F8_MODE (OCP fp8); gfx9 has no instruction prefetch field but retries off.
    sh_mem_config: &[("ADDRESS_MODE", 0), ("ALIGNMENT_MODE", 3), ("RETRY_DISABLE", 1), ("F8_MODE", 1)],
    rlc_autoload: false,
    mec_rs64: false,
    mec_halt: ("CP_MEC_CNTL", &["MEC_ME1_HALT", "MEC_ME2_HALT"]),
    // MI300's address configuration and the UTCL1 spare bit tinygrad sets per XCC.
    xcc_setup: &[
        XccSetup::Write("GB_ADDR_CONFIG", 0x2a11_4042),
        XccSetup::Update("TCP_UTCL1_CNTL2", &[("SPARE", 1)]),
        XccSetup::Update("GRBM_CNTL", &[("READ_TIMEOUT", 0xff)]),
    ],
};

impl ChipTables {
    /// The tables for a GC IP version.
    pub fn for_gc(major: u8, minor: u8) -> Result<ChipTables> {
        match (major, minor) {
            (11, _) => Ok(GFX11),
            (9, 4) | (9, 5) => Ok(GFX942),
            _ => Err(Error::Unsupported(format!("GC {major}.{minor}: the AM driver supports GC 11.x and 9.4.x"))),
        }
    }

    /// The tables of a GC major version (11 or 9); `None` for another.
    pub fn for_major(major: u8) -> Option<ChipTables> {
        [GFX11, GFX942].into_iter().find(|c| c.gc_major == major)
    }

    pub fn pt_generation(&self) -> PtGeneration {
        if self.gc_major == 9 {
            PtGeneration::Gfx9
        } else {
            PtGeneration::Gfx11
        }
    }

    /// Binds every table to the bases `bases(ip, instance)` returns, for each instance it
    /// knows (instances counted from 0 until `bases` returns `None`). An IP with no instance is
    /// an error naming it.
    pub fn bind(&self, mmio: &mut Mmio, bases: &dyn Fn(Ip, u8) -> Option<Vec<u32>>) -> Result<()> {
        for &(ip, table, regs) in self.tables {
            let mut inst = 0u8;
            while let Some(b) = bases(ip, inst) {
                mmio.bind(ip, inst, Block { table, regs, bases: b });
                inst += 1;
            }
            if inst == 0 {
                return Err(Error::Protocol(format!(
                    "{}: IP discovery lists no {ip:?} (hw id {}) instance",
                    mmio.pci().name(),
                    ip.hw_id()
                )));
            }
        }
        Ok(())
    }
}
