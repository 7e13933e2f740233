//! The register state of an emulated compute queue: a register file written by SET_SH_REG and
//! SET_UCONFIG_REG (and WAIT_REG_MEM/COPY_DATA register writes), the compute registers a
//! DISPATCH_DIRECT reads, and the HDP flush pair whose DONE register reflects REQ.

use super::super::dispatch::{DispatchState, XccShare};
use baregpu_autogen::amd::ip_base;
use baregpu_autogen::amd::regs::{gc_11_0_0 as gc11, gc_12_0_0 as gc12, gc_9_4_3 as gc9, Reg};
use baregpu_autogen::amd::regs::{nbif_6_3_1, nbio_4_3_0, nbio_7_9_0};
use baregpu_drivers::amd::pm4::Family;
use baregpu_drivers::amd::pm4::Pm4Generation;
use std::collections::HashMap;

/// Absolute dword addresses of the compute registers a dispatch reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ComputeLayout {
    pub start_x: u32,
    pub num_thread_x: u32,
    pub pgm_lo: u32,
    pub pgm_hi: u32,
    pub scratch_base_lo: u32,
    pub scratch_base_hi: u32,
    pub rsrc1: u32,
    pub rsrc2: u32,
    pub rsrc3: u32,
    pub tmpring_size: u32,
    pub user_data_0: u32,
}

const fn abs(reg: Reg, bases: &[[u32; 6]]) -> u32 {
    bases[0][reg.base_idx as usize] + reg.offset
}

macro_rules! layout {
    ($m:ident, $bases:expr) => {
        ComputeLayout {
            start_x: abs($m::regCOMPUTE_START_X, $bases),
            num_thread_x: abs($m::regCOMPUTE_NUM_THREAD_X, $bases),
            pgm_lo: abs($m::regCOMPUTE_PGM_LO, $bases),
            pgm_hi: abs($m::regCOMPUTE_PGM_HI, $bases),
            scratch_base_lo: abs($m::regCOMPUTE_DISPATCH_SCRATCH_BASE_LO, $bases),
            scratch_base_hi: abs($m::regCOMPUTE_DISPATCH_SCRATCH_BASE_HI, $bases),
            rsrc1: abs($m::regCOMPUTE_PGM_RSRC1, $bases),
            rsrc2: abs($m::regCOMPUTE_PGM_RSRC2, $bases),
            rsrc3: abs($m::regCOMPUTE_PGM_RSRC3, $bases),
            tmpring_size: abs($m::regCOMPUTE_TMPRING_SIZE, $bases),
            user_data_0: abs($m::regCOMPUTE_USER_DATA_0, $bases),
        }
    };
}

const GFX9: ComputeLayout = layout!(gc9, ip_base::vega10::GC_BASE);
const GFX11: ComputeLayout = layout!(gc11, ip_base::navi10::GC_BASE);
const GFX12: ComputeLayout = layout!(gc12, ip_base::navi10::GC_BASE);

impl ComputeLayout {
    pub fn for_family(f: Family) -> &'static ComputeLayout {
        match f {
            Family::Gfx9 => &GFX9,
            Family::Gfx11 => &GFX11,
            Family::Gfx12 => &GFX12,
        }
    }
}

/// DISPATCH_INITIATOR bits.
const COMPUTE_SHADER_EN: u32 = 1;
const FORCE_START_AT_000: u32 = 1 << 2;
const CS_W32_EN: u32 = 1 << 15;

/// (DONE, REQ) dword addresses of the HDP flush pairs (PF0 and PF1) of every NBIO/NBIF the
/// emulated boards have, at segment base 0 (what the emulated IP discovery publishes).
fn hdp_pairs() -> [(u32, u32); 6] {
    [
        (nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE, nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ),
        (nbio_4_3_0::regBIF_BX_PF1_GPU_HDP_FLUSH_DONE, nbio_4_3_0::regBIF_BX_PF1_GPU_HDP_FLUSH_REQ),
        (nbif_6_3_1::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE, nbif_6_3_1::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ),
        (nbif_6_3_1::regBIF_BX_PF1_GPU_HDP_FLUSH_DONE, nbif_6_3_1::regBIF_BX_PF1_GPU_HDP_FLUSH_REQ),
        (nbio_7_9_0::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE, nbio_7_9_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ),
        (nbio_7_9_0::regBIF_BX_PF1_GPU_HDP_FLUSH_DONE, nbio_7_9_0::regBIF_BX_PF1_GPU_HDP_FLUSH_REQ),
    ]
    .map(|(d, r)| (d.offset, r.offset))
}

/// One queue's registers (the hardware keeps them per pipe/queue; nothing else writes them).
#[derive(Debug, Clone)]
pub(crate) struct RegFile {
    regs: HashMap<u32, u32>,
    layout: &'static ComputeLayout,
    family: Family,
    hdp: [(u32, u32); 6],
}

impl RegFile {
    pub fn new(family: Family) -> RegFile {
        RegFile { regs: HashMap::new(), layout: ComputeLayout::for_family(family), family, hdp: hdp_pairs() }
    }

    pub fn write(&mut self, reg: u32, v: u32) {
        self.regs.insert(reg, v);
    }

    pub fn write_many(&mut self, reg: u32, values: &[u32]) {
        for (i, &v) in values.iter().enumerate() {
            self.write(reg + i as u32, v);
        }
    }

    /// A register read: an HDP flush DONE register reads as its REQ (the flush of an emulated
    /// GPU completes at once); anything never written reads 0.
    pub fn read(&self, reg: u32) -> u32 {
        if let Some(&(_, req)) = self.hdp.iter().find(|(done, _)| *done == reg) {
            return self.regs.get(&req).copied().unwrap_or(0);
        }
        self.regs.get(&reg).copied().unwrap_or(0)
    }

    /// The part of the grid XCC `xcc` of `xccs` runs: TG_CHUNK_SIZE and CURRENT_LOGIC_XCC_ID
    /// where the generation has them (the CP's own XCC number is not what splits the grid).
    fn xcc_share(&self, xccs: u32) -> XccShare {
        let regs = Pm4Generation::for_family(self.family).xcc_split;
        match regs {
            Some(x) if xccs > 1 => XccShare {
                index: self.read(x.current_logic_xcc_id) % xccs,
                count: xccs,
                chunk: self.read(x.tg_chunk_size) & 0xffff,
            },
            _ => XccShare::default(),
        }
    }

    /// The dispatch DISPATCH_DIRECT launches with these registers, on a CP of a partition of
    /// `xccs` XCCs.
    pub fn dispatch_state(
        &self,
        arch: &'static str,
        grid: [u32; 3],
        initiator: u32,
        xccs: u32,
    ) -> Option<DispatchState> {
        if initiator & COMPUTE_SHADER_EN == 0 {
            return None;
        }
        let l = self.layout;
        let r = |a: u32| self.read(a);
        let mut user_data = [0u32; 16];
        for (i, u) in user_data.iter_mut().enumerate() {
            *u = r(l.user_data_0 + i as u32);
        }
        let start = if initiator & FORCE_START_AT_000 != 0 {
            [0; 3]
        } else {
            [r(l.start_x), r(l.start_x + 1), r(l.start_x + 2)]
        };
        let rsrc2 = r(l.rsrc2);
        Some(DispatchState {
            arch,
            pgm: ((r(l.pgm_lo) as u64) | (r(l.pgm_hi) as u64) << 32) << 8,
            rsrc1: r(l.rsrc1),
            rsrc2,
            rsrc3: r(l.rsrc3),
            user_data,
            grid,
            block: [r(l.num_thread_x), r(l.num_thread_x + 1), r(l.num_thread_x + 2)],
            start,
            wave32: self.family != Family::Gfx9 && initiator & CS_W32_EN != 0,
            tmpring_size: r(l.tmpring_size),
            scratch_base: ((r(l.scratch_base_lo) as u64) | (r(l.scratch_base_hi) as u64) << 32) << 8,
            // RSRC2.LDS_SIZE (bits 15..23) in granules of 512 bytes.
            lds_bytes: ((rsrc2 >> 15) & 0x1ff) * 512,
            xcc: self.xcc_share(xccs),
            cancel: Default::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_drivers::amd::pm4::{GFX11, GFX12, GFX9};

    #[test]
    fn layouts_agree_with_the_driver_generations() {
        for (f, g) in [(Family::Gfx9, &GFX9), (Family::Gfx11, &GFX11), (Family::Gfx12, &GFX12)] {
            let l = ComputeLayout::for_family(f);
            assert_eq!(l.pgm_lo, g.regs.pgm_lo);
            assert_eq!(l.pgm_hi, g.regs.pgm_lo + 1);
            assert_eq!(l.start_x, g.regs.start_x);
            assert_eq!(l.num_thread_x, g.regs.start_x + 3);
            assert_eq!(l.user_data_0, g.regs.user_data_0);
            assert_eq!(l.rsrc1, g.regs.pgm_rsrc1);
            assert_eq!(l.rsrc3, g.regs.pgm_rsrc3);
            assert_eq!(l.scratch_base_lo, g.regs.dispatch_scratch_base_lo);
        }
        assert_eq!(GFX11.regs.pgm_lo, 0x2e0c);
    }

    #[test]
    fn hdp_done_reflects_req_and_dispatch_reads_the_registers() {
        let mut f = RegFile::new(Family::Gfx11);
        let (done, req) = hdp_pairs()[0];
        assert_eq!(f.read(done), 0);
        f.write(req, 0xffff_ffff);
        assert_eq!(f.read(done), 0xffff_ffff);
        let l = ComputeLayout::for_family(Family::Gfx11);
        f.write_many(l.pgm_lo, &[0x10, 0x1]);
        f.write(l.rsrc2, 3 << 15);
        f.write_many(l.start_x, &[1, 2, 3, 64, 2, 1]);
        f.write(l.user_data_0 + 15, 0xabc);
        let d = f.dispatch_state("gfx1100", [4, 5, 6], 0x8001, 1).unwrap();
        assert_eq!(d.pgm, 0x100_0000_1000);
        assert_eq!((d.lds_bytes, d.block, d.start, d.wave32), (1536, [64, 2, 1], [1, 2, 3], true));
        assert_eq!(d.user_data[15], 0xabc);
        assert_eq!(f.dispatch_state("gfx1100", [1; 3], 0x8005, 1).unwrap().start, [0; 3]);
        assert!(f.dispatch_state("gfx1100", [1; 3], 0, 1).is_none());
        let g9 = RegFile::new(Family::Gfx9);
        assert!(!g9.dispatch_state("gfx942", [1; 3], 0x8005, 1).unwrap().wave32);
    }
}
