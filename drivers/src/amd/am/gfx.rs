//! GFX: waiting for the RLC autoload, the MEC's start (RS64 program counter on gfx11, un-halt on
//! gfx9), the per-VMID shader memory apertures, and compute queues programmed into the HQD
//! registers from an MQD under `GRBM_GFX_CNTL` (linux-6.12 `gfx_v11_0.c`:
//! `wait_for_rlc_autoload_complete`, `config_mec_cache_rs64`, `init_compute_vmid`,
//! `compute_mqd_init`, `kiq_init_register`; amd.md §7.4/§7.5).

use super::chip::{ChipTables, XccSetup};
use super::mmio::{Ip, Mmio, RegAt};
use super::mqd::{order_base_2, Mqd};
use crate::{Error, Result};
use std::time::Duration;

const RLC_TIMEOUT: Duration = Duration::from_secs(5);
/// `AMDGPU_NAVI10_DOORBELL_MEC_RING0`: the 64-bit doorbell slot of the first compute ring.
pub const DOORBELL_MEC_RING0: u32 = 3;
/// 64-bit doorbell slots each XCC's MEC answers: XCC `x` owns slots `[x * 0x20, x * 0x20 +
/// 0x1f]` (`CP_MEC_DOORBELL_RANGE_*` = 0x100 bytes per XCC, as tinygrad and the kernel's
/// `xcc_doorbell_range` give them), so a ring on several XCCs has one doorbell per XCC.
pub const XCC_DOORBELL_SLOTS: u32 = 0x20;

/// The doorbell slot of compute ring `queue`'s HQD on XCC `xcc`.
pub fn mec_doorbell(xcc: u8, queue: u32) -> u32 {
    u32::from(xcc) * XCC_DOORBELL_SLOTS + DOORBELL_MEC_RING0 + queue
}

fn chip(gc_major: u8) -> Result<ChipTables> {
    ChipTables::for_major(gc_major).ok_or_else(|| Error::Unsupported(format!("GC {gc_major}.x: no AM chip tables")))
}

fn gc(mmio: &Mmio, xcc: u8, name: &str) -> Result<RegAt> {
    mmio.reg(Ip::Gc, xcc, name)
}

/// Selects ME/pipe/queue (and VMID) for the banked CP and SH_MEM registers.
pub fn select(mmio: &Mmio, xcc: u8, me: u32, pipe: u32, queue: u32, vmid: u32) -> Result<()> {
    mmio.write_fields(
        gc(mmio, xcc, "GRBM_GFX_CNTL")?,
        &[("MEID", me), ("PIPEID", pipe), ("QUEUEID", queue), ("VMID", vmid)],
    )
}

/// Waits for the RLC to finish loading GC's firmware after AUTOLOAD_RLC (gfx11).
pub fn wait_rlc_autoload(mmio: &Mmio, gc_major: u8) -> Result<()> {
    if !ChipTables::for_major(gc_major).is_some_and(|c| c.rlc_autoload) {
        return Ok(());
    }
    let st = gc(mmio, 0, "RLC_RLCS_BOOTLOAD_STATUS")?;
    let done = st.field("BOOTLOAD_COMPLETE")?.mask;
    mmio.poll(st, done, done, RLC_TIMEOUT, "the RLC to finish loading GC firmware (BOOTLOAD_COMPLETE)")?;
    Ok(())
}

/// Starts the MEC: on gfx11 at the RS64 firmware's start address (bytes, from the MEC
/// firmware header), on gfx9 by clearing the halt bits.
pub fn start_mec(mmio: &Mmio, xcc: u8, gc_major: u8, mec_ucode_start: u64) -> Result<()> {
    mmio.trace_note(&format!("GFX: start MEC on XCC {xcc}"));
    let chip = chip(gc_major)?;
    if !chip.mec_rs64 {
        // gfx9: both MEs un-halted, no pipe held in reset (`gfx_v9_4_3_xcc_cp_compute_enable`).
        let (reg, halts) = chip.mec_halt;
        let fields: Vec<(&str, u32)> = halts.iter().map(|&f| (f, 0)).collect();
        return mmio.write_fields(gc(mmio, xcc, reg)?, &fields);
    }
    let cntl = gc(mmio, xcc, "CP_MEC_RS64_CNTL")?;
    select(mmio, xcc, 1, 0, 0, 0)?;
    mmio.write(gc(mmio, xcc, "CP_MEC_RS64_PRGRM_CNTR_START")?, (mec_ucode_start >> 2) as u32)?;
    mmio.write(gc(mmio, xcc, "CP_MEC_RS64_PRGRM_CNTR_START_HI")?, (mec_ucode_start >> 34) as u32)?;
    mmio.update(cntl, &[("MEC_PIPE0_RESET", 1)])?;
    mmio.update(cntl, &[("MEC_PIPE0_RESET", 0)])?;
    select(mmio, xcc, 0, 0, 0, 0)?;
    mmio.update(cntl, &[("MEC_PIPE0_RESET", 0), ("MEC_PIPE0_ACTIVE", 1), ("MEC_HALT", 0)])?;
    Ok(())
}

/// The RS64 MEC's firmware start address as `start_mec` programmed it (a partial boot reads it
/// back for a later [`super::recover::reset_mec`]); 0 on gfx9, whose MEC starts by un-halting.
pub fn mec_start_addr(mmio: &Mmio, gc_major: u8) -> Result<u64> {
    if !chip(gc_major)?.mec_rs64 {
        return Ok(0);
    }
    select(mmio, 0, 1, 0, 0, 0)?;
    let lo = mmio.read(gc(mmio, 0, "CP_MEC_RS64_PRGRM_CNTR_START")?);
    let hi = mmio.read(gc(mmio, 0, "CP_MEC_RS64_PRGRM_CNTR_START_HI")?);
    select(mmio, 0, 0, 0, 0, 0)?;
    Ok((u64::from(hi?) << 34) | (u64::from(lo?) << 2))
}

/// The chip's per-XCC setup writes, the shader memory apertures of every VMID
/// (`init_compute_vmid`), and the MEC doorbell range.
pub fn init_compute(mmio: &Mmio, xcc: u8, gc_major: u8) -> Result<()> {
    for w in chip(gc_major)?.xcc_setup {
        match *w {
            XccSetup::Write(reg, v) => mmio.write(gc(mmio, xcc, reg)?, v)?,
            XccSetup::Update(reg, fields) => {
                mmio.update(gc(mmio, xcc, reg)?, fields)?;
            }
        }
    }
    mmio.trace_note(&format!("GFX: SH_MEM for VMIDs 0-15 on XCC {xcc}"));
    let config = gc(mmio, xcc, "SH_MEM_CONFIG")?;
    let bases = gc(mmio, xcc, "SH_MEM_BASES")?;
    // ADDRESS_MODE 64, ALIGNMENT_MODE unaligned (3), and what the generation adds.
    let cfg = chip(gc_major)?.sh_mem_config;
    for vmid in 0..16 {
        select(mmio, xcc, 0, 0, 0, vmid)?;
        mmio.write_fields(config, cfg)?;
        mmio.write_fields(bases, &[("SHARED_BASE", 1), ("PRIVATE_BASE", 2)])?;
    }
    select(mmio, xcc, 0, 0, 0, 0)?;
    // Doorbell byte offsets the XCC's MEC answers: its 0x20 slots.
    let lower = u32::from(xcc) * XCC_DOORBELL_SLOTS * 8;
    mmio.write(gc(mmio, xcc, "CP_MEC_DOORBELL_RANGE_LOWER")?, lower)?;
    mmio.write(gc(mmio, xcc, "CP_MEC_DOORBELL_RANGE_UPPER")?, lower + (XCC_DOORBELL_SLOTS - 1) * 8)?;
    Ok(())
}

/// What a PM4 compute queue needs (GPU addresses in context 0).
#[derive(Debug, Clone, Copy)]
pub struct ComputeQueueDesc {
    pub queue: u32,
    pub ring: u64,
    pub ring_bytes: u64,
    pub rptr_addr: u64,
    pub wptr_addr: u64,
    pub eop: u64,
    pub eop_bytes: u64,
    /// GPU address of the MQD (2 KiB, written by the caller from [`build_mqd`]).
    pub mqd_addr: u64,
    /// 64-bit doorbell slot.
    pub doorbell: u32,
}

/// The MQD of a PM4 compute queue (`gfx_v11_0_compute_mqd_init` with tinygrad's priorities).
pub fn build_mqd(mmio: &Mmio, xcc: u8, gc_major: u8, q: &ComputeQueueDesc) -> Result<Mqd> {
    let r = |n| gc(mmio, xcc, n);
    let mut m = Mqd::new(chip(gc_major)?.mqd, *r("CP_MQD_BASE_ADDR")?.reg);
    m.all_cus();
    m.set_raw(r("CP_MQD_BASE_ADDR")?, q.mqd_addr as u32 & !3)?;
    m.set_raw(r("CP_MQD_BASE_ADDR_HI")?, (q.mqd_addr >> 32) as u32)?;
    m.set(r("CP_MQD_CONTROL")?, &[("PRIV_STATE", 1)])?;
    m.set_raw(r("CP_HQD_PQ_BASE")?, (q.ring >> 8) as u32)?;
    m.set_raw(r("CP_HQD_PQ_BASE_HI")?, (q.ring >> 40) as u32)?;
    m.set_raw(r("CP_HQD_PQ_RPTR_REPORT_ADDR")?, q.rptr_addr as u32 & !3)?;
    m.set_raw(r("CP_HQD_PQ_RPTR_REPORT_ADDR_HI")?, (q.rptr_addr >> 32) as u32 & 0xffff)?;
    m.set_raw(r("CP_HQD_PQ_WPTR_POLL_ADDR")?, q.wptr_addr as u32 & !3)?;
    m.set_raw(r("CP_HQD_PQ_WPTR_POLL_ADDR_HI")?, (q.wptr_addr >> 32) as u32 & 0xffff)?;
    m.set(r("CP_HQD_PQ_DOORBELL_CONTROL")?, &[("DOORBELL_OFFSET", q.doorbell * 2), ("DOORBELL_EN", 1)])?;
    m.set(
        r("CP_HQD_PQ_CONTROL")?,
        &[
            ("QUEUE_SIZE", order_base_2(q.ring_bytes / 4) - 1),
            ("RPTR_BLOCK_SIZE", 5),
            ("UNORD_DISPATCH", 1),
            ("PRIV_STATE", 1),
            ("KMD_QUEUE", 1),
        ],
    )?;
    m.set(r("CP_HQD_PERSISTENT_STATE")?, &[("PRELOAD_REQ", 1), ("PRELOAD_SIZE", 0x55)])?;
    m.set(r("CP_HQD_IB_CONTROL")?, &[("MIN_IB_AVAIL_SIZE", 3)])?;
    m.set_raw(r("CP_HQD_PIPE_PRIORITY")?, 2)?;
    m.set_raw(r("CP_HQD_QUEUE_PRIORITY")?, 0xf)?;
    m.set_raw(r("CP_HQD_QUANTUM")?, 0x111)?;
    m.set_raw(r("CP_HQD_HQ_STATUS0")?, 0x2000_4000)?;
    m.set_raw(r("CP_HQD_EOP_BASE_ADDR")?, (q.eop >> 8) as u32)?;
    m.set_raw(r("CP_HQD_EOP_BASE_ADDR_HI")?, (q.eop >> 40) as u32)?;
    m.set(r("CP_HQD_EOP_CONTROL")?, &[("EOP_SIZE", order_base_2(q.eop_bytes / 4) - 1)])?;
    Ok(m)
}

/// Loads the MQD's register mirror into the HQD of ME 1, pipe 0, `q.queue`, and activates it
/// (`kiq_init_register`); the caller has written the MQD to `q.mqd_addr` and flushed HDP.
pub fn map_queue(mmio: &Mmio, xcc: u8, mqd: &Mqd, q: &ComputeQueueDesc) -> Result<()> {
    mmio.trace_note(&format!("GFX: HQD me=1 pipe=0 queue={} from the MQD", q.queue));
    select(mmio, xcc, 1, 0, q.queue, 0)?;
    let first = gc(mmio, xcc, "CP_MQD_BASE_ADDR")?;
    let last = gc(mmio, xcc, "CP_HQD_PQ_WPTR_HI")?;
    let active = gc(mmio, xcc, "CP_HQD_ACTIVE")?;
    for (i, v) in mqd.hqd_registers(first.reg, last.reg)? {
        let addr = first.addr + i;
        if addr == active.addr {
            continue;
        }
        match mmio_reg_at(mmio, xcc, addr) {
            Some(r) => mmio.write(r, v)?,
            None => mmio.write_dw(addr, v)?,
        }
    }
    mmio.write(active, 1)?;
    select(mmio, xcc, 0, 0, 0, 0)
}

/// `CP_HQD_DEQUEUE_REQUEST` types (`enum hqd_dequeue_request_type`, linux
/// `drivers/gpu/drm/amd/include/kgd_kfd_interface.h`; tinygrad's `_dequeue_hqds` comment "1 -
/// DRAIN_PIPE; 2 - RESET_WAVES"): a drain waits for the queue's waves to end, so a wave that never
/// ends never lets the HQD go; a reset kills them.
pub const DEQUEUE_DRAIN_PIPE: u32 = 1;
pub const DEQUEUE_RESET_WAVES: u32 = 2;
const DEQUEUE_TIMEOUT: Duration = Duration::from_secs(1);

/// Dequeues the HQD of ME 1, pipe 0, `queue`, killing its waves (what KFD's queue destroy and
/// tinygrad's `_dequeue_hqds` do: RESET_WAVES, then `SPI_COMPUTE_QUEUE_RESET`), and waits for
/// it to go inactive.
pub fn unmap_queue(mmio: &Mmio, xcc: u8, queue: u32) -> Result<()> {
    select(mmio, xcc, 1, 0, queue, 0)?;
    let active = gc(mmio, xcc, "CP_HQD_ACTIVE")?;
    let res = if mmio.read(active)? & 1 != 0 {
        mmio.write(gc(mmio, xcc, "CP_HQD_DEQUEUE_REQUEST")?, DEQUEUE_RESET_WAVES)
            .and_then(|_| mmio.write(gc(mmio, xcc, "SPI_COMPUTE_QUEUE_RESET")?, 1))
            .and_then(|_| mmio.poll(active, 1, 0, DEQUEUE_TIMEOUT, "the HQD to dequeue").map(drop))
    } else {
        Ok(())
    };
    select(mmio, xcc, 0, 0, 0, 0)?;
    res
}

/// Dequeues HQD `queue` of ME 1 pipe 0 on every XCC (a queue the driver mapped on all).
pub fn unmap_queue_all(mmio: &Mmio, queue: u32) -> Result<()> {
    let mut first_err = None;
    for xcc in (0..=u8::MAX).take_while(|&i| mmio.has(Ip::Gc, i)) {
        if let Err(e) = unmap_queue(mmio, xcc, queue) {
            first_err.get_or_insert(e);
        }
    }
    first_err.map_or(Ok(()), Err)
}

/// The named register at absolute dword `addr` in GC instance `xcc`, for readable traces.
fn mmio_reg_at(mmio: &Mmio, xcc: u8, addr: u32) -> Option<RegAt> {
    mmio.reg_by_addr(Ip::Gc, xcc, addr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::am::chip::{GFX11, GFX942};
    use crate::amd::am::testing::bound;

    #[test]
    fn a_compute_queue_lands_in_the_hqd_registers_for_both_generations() {
        for chip in [GFX11, GFX942] {
            let (pci, mmio) = bound(chip, 0);
            init_compute(&mmio, 0, chip.gc_major).unwrap();
            start_mec(&mmio, 0, chip.gc_major, 0x1_0000).unwrap();
            let q = ComputeQueueDesc {
                queue: 0,
                ring: 0x7f00_0010_0000,
                ring_bytes: 0x10000,
                rptr_addr: 0x7f00_0020_0000,
                wptr_addr: 0x7f00_0020_0008,
                eop: 0x7f00_0030_0000,
                eop_bytes: 0x1000,
                mqd_addr: 0x80_0000_1000,
                doorbell: DOORBELL_MEC_RING0,
            };
            let m = build_mqd(&mmio, 0, chip.gc_major, &q).unwrap();
            map_queue(&mmio, 0, &m, &q).unwrap();
            let r = |n| mmio.reg(Ip::Gc, 0, n).unwrap();
            assert_eq!(pci.reg(r("CP_HQD_PQ_BASE").addr), Some((0x7f00_0010_0000u64 >> 8) as u32));
            assert_eq!(pci.reg(r("CP_HQD_ACTIVE").addr), Some(1));
            let db = pci.reg(r("CP_HQD_PQ_DOORBELL_CONTROL").addr).unwrap();
            assert_eq!(r("CP_HQD_PQ_DOORBELL_CONTROL").field("DOORBELL_OFFSET").unwrap().get(db), 6);
            let ctl = pci.reg(r("CP_HQD_PQ_CONTROL").addr).unwrap();
            assert_eq!(r("CP_HQD_PQ_CONTROL").field("QUEUE_SIZE").unwrap().get(ctl), 13);
            assert_eq!(pci.reg(r("GRBM_GFX_CNTL").addr), Some(0), "deselected afterwards");
        }
    }
}
