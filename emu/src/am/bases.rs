//! The segment bases of the IP blocks the emulated GPU's registers are keyed by: an
//! absolute dword address is `base[reg.base_idx] + reg.offset` (see
//! `baregpu_autogen::amd::regs`). They are the bases the emulated IP discovery table publishes.

use super::chip::Chip;
use baregpu_autogen::amd::regs::Reg;

/// Segment bases (up to six segments) of the blocks the emulator answers for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bases {
    pub gc: [u32; 6],
    pub osssys: [u32; 6],
    pub nbio: [u32; 6],
    pub mp0: [u32; 6],
    pub mp1: [u32; 6],
    pub mmhub: [u32; 6],
    pub hdp: [u32; 6],
}

impl Bases {
    pub fn for_chip(chip: &Chip) -> Bases {
        use baregpu_autogen::amd::ip_base::navi10 as n;
        let _ = chip;
        Bases {
            gc: n::GC_BASE[0],
            osssys: n::OSSSYS_BASE[0],
            nbio: n::NBIO_BASE[0],
            mp0: n::MP0_BASE[0],
            mp1: n::MP1_BASE[0],
            mmhub: n::MMHUB_BASE[0],
            hdp: n::HDP_BASE[0],
        }
    }
}

/// The absolute dword address of `reg` in the block with segment bases `bases`.
pub fn at(reg: Reg, bases: &[u32; 6]) -> u32 {
    bases.get(reg.base_idx as usize).copied().unwrap_or(0) + reg.offset
}
