//! SDMA: the engine's controls and one ring queue programmed into its registers (linux-6.12
//! `sdma_v6_0.c`: `gfx_resume_instance`, `ctx_switch_enable`, `enable`; amd.md §7.4/§7.5). On
//! gfx11 SDMA 6 lives in GC (`SDMA0_*`, `SDMA0_QUEUE0_*`); gfx9's SDMA 4.4 is its own IP
//! (`SDMA_GFX_*`) and is not programmed yet.

use super::mmio::{Ip, Mmio, RegAt};
use crate::{Error, Result};

/// `AMDGPU_NAVI10_DOORBELL_sDMA_ENGINE0`: the 64-bit doorbell slot of SDMA0's first queue.
pub const DOORBELL_SDMA0: u32 = 0x100;

fn r(mmio: &Mmio, name: &str) -> Result<RegAt> {
    mmio.reg(Ip::Gc, 0, name)
}

fn require_gfx11(gc_major: u8) -> Result<()> {
    if gc_major == 9 {
        return Err(Error::Unsupported("SDMA 4.4 (gfx942) queues are not programmed by the AM driver yet".into()));
    }
    Ok(())
}

/// Engine controls: watchdog, UTCL1, trap interrupts, un-halt.
pub fn init(mmio: &Mmio, gc_major: u8) -> Result<()> {
    require_gfx11(gc_major)?;
    mmio.trace_note("SDMA0: controls");
    mmio.update(r(mmio, "SDMA0_WATCHDOG_CNTL")?, &[("QUEUE_HANG_COUNT", 100)])?;
    mmio.update(r(mmio, "SDMA0_UTCL1_CNTL")?, &[("RESP_MODE", 3), ("REDO_DELAY", 9)])?;
    mmio.update(r(mmio, "SDMA0_UTCL1_PAGE")?, &[("RD_L2_POLICY", 2), ("WR_L2_POLICY", 3), ("LLC_NOALLOC", 1)])?;
    mmio.update(r(mmio, "SDMA0_CNTL")?, &[("TRAP_ENABLE", 1)])?;
    mmio.update(r(mmio, "SDMA0_F32_CNTL")?, &[("HALT", 0), ("TH1_RESET", 0)])?;
    Ok(())
}

/// One SDMA ring (GPU addresses in context 0).
#[derive(Debug, Clone, Copy)]
pub struct SdmaQueueDesc {
    pub ring: u64,
    pub ring_bytes: u64,
    pub rptr_addr: u64,
    pub wptr_addr: u64,
    /// 64-bit doorbell slot.
    pub doorbell: u32,
}

/// Programs queue 0 of SDMA0 and enables it.
pub fn map_queue(mmio: &Mmio, gc_major: u8, q: &SdmaQueueDesc) -> Result<()> {
    require_gfx11(gc_major)?;
    mmio.trace_note("SDMA0: queue 0");
    let cntl = r(mmio, "SDMA0_QUEUE0_RB_CNTL")?;
    mmio.update(cntl, &[("RB_ENABLE", 0)])?;
    let minor = r(mmio, "SDMA0_QUEUE0_MINOR_PTR_UPDATE")?;
    mmio.write(minor, 1)?;
    for n in ["SDMA0_QUEUE0_RB_RPTR", "SDMA0_QUEUE0_RB_RPTR_HI", "SDMA0_QUEUE0_RB_WPTR", "SDMA0_QUEUE0_RB_WPTR_HI"] {
        mmio.write(r(mmio, n)?, 0)?;
    }
    mmio.write(r(mmio, "SDMA0_QUEUE0_RB_BASE")?, (q.ring >> 8) as u32)?;
    mmio.write(r(mmio, "SDMA0_QUEUE0_RB_BASE_HI")?, (q.ring >> 40) as u32)?;
    mmio.write(r(mmio, "SDMA0_QUEUE0_RB_RPTR_ADDR_LO")?, q.rptr_addr as u32 & !3)?;
    mmio.write(r(mmio, "SDMA0_QUEUE0_RB_RPTR_ADDR_HI")?, (q.rptr_addr >> 32) as u32)?;
    mmio.write(r(mmio, "SDMA0_QUEUE0_RB_WPTR_POLL_ADDR_LO")?, q.wptr_addr as u32 & !3)?;
    mmio.write(r(mmio, "SDMA0_QUEUE0_RB_WPTR_POLL_ADDR_HI")?, (q.wptr_addr >> 32) as u32)?;
    mmio.write_fields(r(mmio, "SDMA0_QUEUE0_DOORBELL_OFFSET")?, &[("OFFSET", q.doorbell * 2)])?;
    mmio.write_fields(r(mmio, "SDMA0_QUEUE0_DOORBELL")?, &[("ENABLE", 1)])?;
    mmio.write(minor, 0)?;
    let size = (q.ring_bytes / 4).trailing_zeros();
    mmio.write_fields(
        cntl,
        &[
            ("RB_SIZE", size),
            ("WPTR_POLL_ENABLE", 1),
            ("RB_VMID", 0),
            ("RPTR_WRITEBACK_ENABLE", 1),
            ("RPTR_WRITEBACK_TIMER", 4),
            ("RB_PRIV", 1),
            ("RB_ENABLE", 1),
        ],
    )?;
    mmio.update(r(mmio, "SDMA0_QUEUE0_IB_CNTL")?, &[("IB_ENABLE", 1)])?;
    Ok(())
}

/// Disables queue 0 (fini).
pub fn unmap_queue(mmio: &Mmio, gc_major: u8) -> Result<()> {
    require_gfx11(gc_major)?;
    mmio.update(r(mmio, "SDMA0_QUEUE0_RB_CNTL")?, &[("RB_ENABLE", 0)])?;
    mmio.update(r(mmio, "SDMA0_QUEUE0_IB_CNTL")?, &[("IB_ENABLE", 0)])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::am::chip::{GFX11, GFX942};
    use crate::amd::am::testing::bound;

    #[test]
    fn the_sdma_ring_registers_get_the_ring() {
        let (pci, mmio) = bound(GFX11, 0);
        init(&mmio, 11).unwrap();
        let q = SdmaQueueDesc {
            ring: 0x12_3400,
            ring_bytes: 0x1_0000,
            rptr_addr: 0x5000,
            wptr_addr: 0x5008,
            doorbell: DOORBELL_SDMA0,
        };
        map_queue(&mmio, 11, &q).unwrap();
        let cntl = r(&mmio, "SDMA0_QUEUE0_RB_CNTL").unwrap();
        let v = pci.reg(cntl.addr).unwrap();
        assert_eq!((cntl.field("RB_SIZE").unwrap().get(v), cntl.field("RB_ENABLE").unwrap().get(v)), (14, 1));
        assert_eq!(pci.reg(r(&mmio, "SDMA0_QUEUE0_RB_BASE").unwrap().addr), Some(0x1234));
        assert_eq!(pci.reg(r(&mmio, "SDMA0_QUEUE0_DOORBELL_OFFSET").unwrap().addr), Some(0x200 << 2));
        let (_, mmio9) = bound(GFX942, 0);
        assert!(map_queue(&mmio9, 9, &q).unwrap_err().to_string().contains("not programmed"));
    }
}
