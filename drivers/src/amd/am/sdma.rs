//! SDMA: the engines' controls and one ring queue programmed into the first engine's registers
//! (linux-6.12 `sdma_v6_0.c` / `sdma_v4_4_2.c`: `gfx_resume_instance`, `ctx_switch_enable`,
//! `enable`; amd.md §7.4/§7.5). Where the registers are and what each generation sets is the
//! chip's [`SdmaNames`] data: on gfx11 SDMA 6 lives in GC (`SDMA0_*`, `SDMA0_QUEUE0_*`), on gfx942
//! each of the 16 SDMA 4.4 engines is its own IP instance (`SDMA_*`, `SDMA_GFX_*`).

use super::chip::{ChipTables, SdmaNames};
use super::mmio::{Mmio, RegAt};
use crate::Result;

/// `AMDGPU_NAVI10_DOORBELL_sDMA_ENGINE0`: the 64-bit doorbell slot of SDMA0's first queue.
pub const DOORBELL_SDMA0: u32 = 0x100;

fn engine(mmio: &Mmio, n: &SdmaNames, inst: u8, name: &str) -> Result<RegAt> {
    mmio.reg(n.ip, inst, &format!("{}{name}", n.engine))
}

fn queue(mmio: &Mmio, n: &SdmaNames, name: &str) -> Result<RegAt> {
    mmio.reg(n.ip, 0, &format!("{}{name}", n.queue))
}

/// Engine controls of every engine: watchdog, UTCL1, trap interrupts, un-halt.
pub fn init(mmio: &Mmio, chip: &ChipTables) -> Result<()> {
    let n = &chip.sdma;
    let engines: Vec<u8> =
        if n.ip == super::mmio::Ip::Gc { vec![0] } else { (0..=u8::MAX).take_while(|&i| mmio.has(n.ip, i)).collect() };
    for inst in engines {
        mmio.trace_note(&format!("SDMA{inst}: controls"));
        for (reg, fields) in n.controls {
            mmio.update(engine(mmio, n, inst, reg)?, fields)?;
        }
    }
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

/// Programs the first ring of the first engine and enables it.
pub fn map_queue(mmio: &Mmio, chip: &ChipTables, q: &SdmaQueueDesc) -> Result<()> {
    let n = &chip.sdma;
    let r = |name: &str| queue(mmio, n, name);
    mmio.trace_note("SDMA0: queue 0");
    let cntl = r("RB_CNTL")?;
    mmio.update(cntl, &[("RB_ENABLE", 0)])?;
    let minor = r("MINOR_PTR_UPDATE")?;
    mmio.write(minor, 1)?;
    for name in ["RB_RPTR", "RB_RPTR_HI", "RB_WPTR", "RB_WPTR_HI"] {
        mmio.write(r(name)?, 0)?;
    }
    mmio.write(r("RB_BASE")?, (q.ring >> 8) as u32)?;
    mmio.write(r("RB_BASE_HI")?, (q.ring >> 40) as u32)?;
    mmio.write(r("RB_RPTR_ADDR_LO")?, q.rptr_addr as u32 & !3)?;
    mmio.write(r("RB_RPTR_ADDR_HI")?, (q.rptr_addr >> 32) as u32)?;
    mmio.write(r("RB_WPTR_POLL_ADDR_LO")?, q.wptr_addr as u32 & !3)?;
    mmio.write(r("RB_WPTR_POLL_ADDR_HI")?, (q.wptr_addr >> 32) as u32)?;
    if let Some((reg, field)) = n.wptr_poll {
        mmio.update(r(reg)?, &[(field, 1)])?;
    }
    mmio.write_fields(r("DOORBELL_OFFSET")?, &[("OFFSET", q.doorbell * 2)])?;
    mmio.write_fields(r("DOORBELL")?, &[("ENABLE", 1)])?;
    mmio.write(minor, 0)?;
    let size = (q.ring_bytes / 4).trailing_zeros();
    let mut fields = vec![("RB_SIZE", size)];
    fields.extend_from_slice(n.rb_cntl);
    fields.push(("RB_ENABLE", 1));
    mmio.write_fields(cntl, &fields)?;
    mmio.update(r("IB_CNTL")?, &[("IB_ENABLE", 1)])?;
    Ok(())
}

/// Disables the ring (fini).
pub fn unmap_queue(mmio: &Mmio, chip: &ChipTables) -> Result<()> {
    let n = &chip.sdma;
    mmio.update(queue(mmio, n, "RB_CNTL")?, &[("RB_ENABLE", 0)])?;
    mmio.update(queue(mmio, n, "IB_CNTL")?, &[("IB_ENABLE", 0)])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::am::chip::{GFX11, GFX942};
    use crate::amd::am::testing::bound;

    #[test]
    fn the_sdma_ring_registers_get_the_ring_on_both_generations() {
        let q = SdmaQueueDesc {
            ring: 0x12_3400,
            ring_bytes: 0x1_0000,
            rptr_addr: 0x5000,
            wptr_addr: 0x5008,
            doorbell: DOORBELL_SDMA0,
        };
        for chip in [GFX11, GFX942] {
            let (pci, mmio) = bound(chip, 0);
            init(&mmio, &chip).unwrap();
            map_queue(&mmio, &chip, &q).unwrap();
            let r = |name: &str| queue(&mmio, &chip.sdma, name).unwrap();
            let cntl = r("RB_CNTL");
            let v = pci.reg(cntl.addr).unwrap();
            assert_eq!((cntl.field("RB_SIZE").unwrap().get(v), cntl.field("RB_ENABLE").unwrap().get(v)), (14, 1));
            assert_eq!(pci.reg(r("RB_BASE").addr), Some(0x1234));
            assert_eq!(pci.reg(r("DOORBELL_OFFSET").addr), Some(0x200 << 2));
            let f32 = engine(&mmio, &chip.sdma, 0, "F32_CNTL").unwrap();
            assert_eq!(f32.field("HALT").unwrap().get(pci.reg(f32.addr).unwrap_or(0)), 0);
        }
        let (pci, mmio) = bound(GFX942, 0);
        map_queue(&mmio, &GFX942, &q).unwrap();
        let poll = queue(&mmio, &GFX942.sdma, "RB_WPTR_POLL_CNTL").unwrap();
        assert_eq!(pci.reg(poll.addr), Some(1), "SDMA 4.4 polls the write pointer by its own register");
    }
}
