//! The segment bases of instance 0 of the IP blocks (what tests address raw registers by: an
//! absolute dword address is `base[reg.base_idx] + reg.offset`, see
//! `baregpu_autogen::amd::regs`). They come from the chip's [`Layout`], the same bases its
//! discovery table publishes; the emulator itself resolves registers per instance through
//! the `regmap` module.

use super::layout::Layout;
use baregpu_drivers::amd::am::discovery::hw_id;

/// Segment bases of instance 0 of the blocks the emulator answers for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bases {
    pub gc: Vec<u32>,
    pub osssys: Vec<u32>,
    pub nbio: Vec<u32>,
    pub mp0: Vec<u32>,
    pub mp1: Vec<u32>,
    pub mmhub: Vec<u32>,
    pub hdp: Vec<u32>,
    pub sdma0: Vec<u32>,
}

impl Bases {
    pub fn of(layout: &Layout) -> Bases {
        let b = |id| layout.bases(id, 0).to_vec();
        Bases {
            gc: b(hw_id::GC),
            osssys: b(hw_id::OSSSYS),
            nbio: b(hw_id::NBIF),
            mp0: b(hw_id::MP0),
            mp1: b(hw_id::MP1),
            mmhub: b(hw_id::MMHUB),
            hdp: b(hw_id::HDP),
            sdma0: b(hw_id::SDMA0),
        }
    }
}
