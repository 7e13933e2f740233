//! Which generated register table each IP of a chip uses, as data (one row per supported GC
//! version), and the binding of those tables to the segment bases IP discovery found.

use super::mmio::{Block, Ip, Mmio};
use super::pagetable::PtGeneration;
use crate::{Error, Result};
use baregpu_autogen::amd::regs::{
    gc_11_0_0, gc_9_4_3, hdp_4_4_2, hdp_6_0_0, mmhub_1_8_0, mmhub_3_0_0, mp_13_0_0, mp_13_0_6, nbio_4_3_0, nbio_7_9_0,
    osssys_4_4_2, osssys_6_0_0, sdma_4_4_2, Reg,
};

/// The register tables of one chip family.
#[derive(Debug, Clone, Copy)]
pub struct ChipTables {
    pub gc_major: u8,
    pub tables: &'static [(Ip, &'static str, &'static [Reg])],
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
