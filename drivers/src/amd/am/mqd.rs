//! The compute memory queue descriptor (MQD): `struct v11_compute_mqd` (gfx11,
//! `drivers/gpu/drm/amd/include/v11_structs.h`) and `struct v9_mqd` (gfx9, `v9_structs.h`),
//! both 2048 bytes (512 dwords).
//!
//! In both, dwords 128 (`cp_mqd_base_addr_lo`) through 183 (`cp_hqd_pq_wptr_hi`) mirror the
//! registers `CP_MQD_BASE_ADDR` … `CP_HQD_PQ_WPTR_HI` in register order — the kernel's
//! `*_mqd_commit`/`kiq_init_register` write them one by one from there. So the MQD's register
//! fields are addressed here by the register they mirror ([`Mqd::reg_index`]), one definition
//! for both layouts, and [`Mqd::hqd_registers`] is the block the driver writes. The offsets were
//! checked against the headers with `offsetof` (clang): see the tests.

use super::mmio::RegAt;
use crate::{Error, Result};
use baregpu_autogen::amd::regs::Reg;

/// Dwords of an MQD (`sizeof(struct v11_compute_mqd) == sizeof(struct v9_mqd) == 2048`).
pub const MQD_DWORDS: usize = 512;
/// The dword of `cp_mqd_base_addr_lo`, where the register mirror starts.
pub const REG_MIRROR_START: usize = 128;
/// `mqd->header` (both generations).
pub const MQD_HEADER: u32 = 0xC031_0800;

/// Non-register dwords: `compute_static_thread_mgmt_se0..3` (dwords 23, 24, 26, 27 in both
/// headers) and `se4..7` (v11: 44..47; v9: 39..42, inside a union).
const SE0_3: [usize; 4] = [23, 24, 26, 27];
const V11_SE4_7: [usize; 4] = [44, 45, 46, 47];
const V9_SE4_7: [usize; 4] = [39, 40, 41, 42];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MqdLayout {
    V9,
    V11,
}

/// An MQD image; written to GPU memory as 2048 little-endian bytes.
#[derive(Clone)]
pub struct Mqd {
    pub layout: MqdLayout,
    pub dw: [u32; MQD_DWORDS],
    /// `regCP_MQD_BASE_ADDR` of the generation's GC table: the origin of the mirror.
    base: Reg,
}

impl std::fmt::Debug for Mqd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mqd").field("layout", &self.layout).finish()
    }
}

impl Mqd {
    /// An empty MQD of `layout` whose register mirror is relative to `mqd_base_reg`
    /// (`regCP_MQD_BASE_ADDR` of the GC table).
    pub fn new(layout: MqdLayout, mqd_base_reg: Reg) -> Mqd {
        let mut dw = [0u32; MQD_DWORDS];
        dw[0] = MQD_HEADER;
        Mqd { layout, dw, base: mqd_base_reg }
    }

    /// The MQD dword that mirrors `reg` (a CP_MQD_/CP_HQD_ register of the same table).
    pub fn reg_index(&self, reg: &Reg) -> Result<usize> {
        let i = reg
            .offset
            .checked_sub(self.base.offset)
            .map(|d| REG_MIRROR_START + d as usize)
            .filter(|&i| i < MQD_DWORDS && reg.base_idx == self.base.base_idx);
        i.ok_or_else(|| Error::Protocol(format!("reg{} is not mirrored in the MQD", reg.name)))
    }

    /// Sets the dword mirroring `r` to the named fields over zero.
    pub fn set(&mut self, r: RegAt, fields: &[(&str, u32)]) -> Result<()> {
        let i = self.reg_index(r.reg)?;
        self.dw[i] = r.with(0, fields)?;
        Ok(())
    }

    /// Sets the dword mirroring `r` to `value`.
    pub fn set_raw(&mut self, r: RegAt, value: u32) -> Result<()> {
        let i = self.reg_index(r.reg)?;
        self.dw[i] = value;
        Ok(())
    }

    pub fn get(&self, r: RegAt) -> Result<u32> {
        Ok(self.dw[self.reg_index(r.reg)?])
    }

    /// All `compute_static_thread_mgmt_se*` masks on (every CU of every SE).
    pub fn all_cus(&mut self) {
        let hi = match self.layout {
            MqdLayout::V9 => V9_SE4_7,
            MqdLayout::V11 => V11_SE4_7,
        };
        for i in SE0_3.into_iter().chain(hi) {
            self.dw[i] = u32::MAX;
        }
    }

    /// The register block `first ..= last` (by the registers' own offsets) and its values:
    /// what the driver writes into the HQD registers, in order.
    pub fn hqd_registers(&self, first: &Reg, last: &Reg) -> Result<Vec<(u32, u32)>> {
        let (a, b) = (self.reg_index(first)?, self.reg_index(last)?);
        Ok((a..=b).map(|i| ((i - a) as u32, self.dw[i])).collect())
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        self.dw.iter().flat_map(|d| d.to_le_bytes()).collect()
    }
}

/// `order_base_2(n)`: log2 rounded up.
pub fn order_base_2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_autogen::amd::regs::{gc_11_0_0 as gc11, gc_9_4_3 as gc9};

    /// Dword offsets printed by `offsetof` over the linux-6.12 headers (clang-22):
    /// v11_compute_mqd and v9_mqd both: cp_mqd_base_addr_lo 128, cp_hqd_active 130,
    /// cp_hqd_pq_doorbell_control 143, cp_hqd_pq_control 145, cp_hqd_ib_control 149,
    /// cp_hqd_hq_status0 160, cp_mqd_control 162, cp_hqd_eop_base_addr_lo 165,
    /// cp_hqd_eop_control 167, cp_hqd_aql_control 181, cp_hqd_pq_wptr_hi 183.
    #[test]
    fn the_register_mirror_matches_the_header_offsets() {
        macro_rules! check {
            ($gc:ident, $layout:expr) => {{
                let m = Mqd::new($layout, $gc::regCP_MQD_BASE_ADDR);
                for (reg, want) in [
                    ($gc::regCP_MQD_BASE_ADDR, 128),
                    ($gc::regCP_HQD_ACTIVE, 130),
                    ($gc::regCP_HQD_PQ_DOORBELL_CONTROL, 143),
                    ($gc::regCP_HQD_PQ_CONTROL, 145),
                    ($gc::regCP_HQD_IB_CONTROL, 149),
                    ($gc::regCP_HQD_HQ_STATUS0, 160),
                    ($gc::regCP_MQD_CONTROL, 162),
                    ($gc::regCP_HQD_EOP_BASE_ADDR, 165),
                    ($gc::regCP_HQD_EOP_CONTROL, 167),
                    ($gc::regCP_HQD_AQL_CONTROL, 181),
                    ($gc::regCP_HQD_PQ_WPTR_HI, 183),
                ] {
                    assert_eq!(m.reg_index(&reg).unwrap(), want, "{:?} {}", $layout, reg.name);
                }
                assert!(m.reg_index(&$gc::regGRBM_GFX_CNTL).is_err());
            }};
        }
        check!(gc11, MqdLayout::V11);
        check!(gc9, MqdLayout::V9);
    }

    #[test]
    fn static_thread_masks_land_where_the_headers_put_them() {
        let mut m = Mqd::new(MqdLayout::V11, gc11::regCP_MQD_BASE_ADDR);
        m.all_cus();
        assert_eq!(m.dw[44], u32::MAX);
        assert_eq!(m.dw[39], 0);
        let mut m = Mqd::new(MqdLayout::V9, gc9::regCP_MQD_BASE_ADDR);
        m.all_cus();
        assert_eq!((m.dw[39], m.dw[44], m.dw[25]), (u32::MAX, 0, 0));
        assert_eq!(m.to_bytes().len(), 2048);
        assert_eq!(&m.to_bytes()[..4], &MQD_HEADER.to_le_bytes());
    }

    #[test]
    fn order_base_2_rounds_up() {
        assert_eq!([1, 2, 3, 4, 1024, 1025].map(order_base_2), [0, 1, 2, 2, 10, 11]);
    }
}
