//! The compute engine brought back after a hang or a fault (tinygrad's `AM_GFX.reset_mec`,
//! amd.md §6.3): every HQD of ME 1 pipe 0 on every XCC dequeued with RESET_WAVES, the command
//! processor (CP, CPC) soft-reset through `GRBM_SOFT_RESET` on gfx < 12 (gfx12 resets the MEC
//! pipe instead), then the MEC started again. A reset MEC runs no queue until it is restarted,
//! and queues mapped afterwards start from the zeroed pointers of their new MQDs.

use super::boot::instances;
use super::gfx;
use super::mmio::{Ip, Mmio};
use crate::Result;
use std::time::Duration;

/// HQDs of ME 1 pipe 0 the driver maps queues on.
pub const HQDS: u32 = 8;
/// How long the soft-reset bits stay set (tinygrad holds them 50 ms).
const SOFT_RESET_HOLD: Duration = Duration::from_millis(50);

/// Resets the compute engine of every XCC; `mec_start` is the RS64 MEC's firmware start
/// address (bytes; unused on gfx9).
pub fn reset_mec(mmio: &Mmio, gc_major: u8, mec_start: u64) -> Result<()> {
    let xccs = instances(mmio, Ip::Gc);
    mmio.trace_note("GFX: compute reset: HQDs dequeued with RESET_WAVES, CP soft reset, MEC restarted");
    for &xcc in &xccs {
        for q in 0..HQDS {
            // A wedged wave can survive RESET_WAVES (tinygrad and the kernel go on too): the
            // soft reset below stops what is left.
            if let Err(e) = gfx::unmap_queue(mmio, xcc, q) {
                log::warn!("{}: XCC {xcc} HQD {q}: {e}; soft reset follows", mmio.pci().name());
            }
        }
    }
    if gc_major < 12 {
        for &xcc in &xccs {
            let r = mmio.reg(Ip::Gc, xcc, "GRBM_SOFT_RESET")?;
            mmio.write_fields(r, &[("SOFT_RESET_CP", 1), ("SOFT_RESET_CPC", 1)])?;
        }
        std::thread::sleep(SOFT_RESET_HOLD);
        for &xcc in &xccs {
            mmio.write(mmio.reg(Ip::Gc, xcc, "GRBM_SOFT_RESET")?, 0)?;
        }
    }
    for &xcc in &xccs {
        gfx::start_mec(mmio, xcc, gc_major, mec_start)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::am::chip::{GFX11, GFX942};
    use crate::amd::am::testing::bound;

    #[test]
    fn the_reset_releases_the_soft_reset_and_restarts_the_mec_on_both_generations() {
        for chip in [GFX11, GFX942] {
            let (pci, mmio) = bound(chip, 0);
            let (mec, halts) = chip.mec_halt;
            let cntl = mmio.reg(Ip::Gc, 0, mec).unwrap();
            let halted = halts.iter().fold(0, |a, f| a | cntl.field(f).unwrap().mask);
            mmio.write(cntl, halted).unwrap();
            reset_mec(&mmio, chip.gc_major, 0x1_0000).unwrap();
            let soft = mmio.reg(Ip::Gc, 0, "GRBM_SOFT_RESET").unwrap();
            assert_eq!(pci.reg(soft.addr), Some(0), "gfx{}: soft reset left set", chip.gc_major);
            assert_eq!(pci.reg(cntl.addr).unwrap_or(0) & halted, 0, "gfx{}: MEC still halted", chip.gc_major);
        }
    }
}
