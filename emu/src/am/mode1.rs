//! The chip's mode-1 reset, as the SMU performs it when asked ([`super::smu`]): every engine
//! stops (compute and SDMA queues killed with their waves), every register returns to its
//! power-on value (the PSP bootloader waiting for an sOS, the SMU answering, every MEC halted,
//! the IH ring and the hubs off, the MMU's translation gone), and the mailbox that carried the
//! request reads OK. VRAM keeps its contents, the discovery table included (the emulator does
//! not model memory retraining), and so does the host's DMA memory.

use super::device::{EmuPciGpu, State};
use super::regs::Mailbox;
use super::smu::{DEBUG_RESP, RESULT_OK};
use std::sync::atomic::Ordering;

impl EmuPciGpu {
    /// Resets the chip under the state lock; the killed queues are stopped once it is released.
    pub(crate) fn mode1_reset(&self, st: &mut State) {
        let mut fresh = State::default();
        super::mmio::wire(&mut fresh, &self.chip, &self.layout, &self.map);
        fresh.regs.set_mailbox(Mailbox::Smu(DEBUG_RESP), RESULT_OK);
        fresh.next_queue_id = st.next_queue_id;
        fresh.retired = std::mem::take(&mut st.retired);
        fresh.retired.extend(st.hqds.drain().map(|(_, q)| q));
        *st = fresh;
        self.epoch.fetch_add(1, Ordering::AcqRel);
        self.mode1_resets.fetch_add(1, Ordering::Relaxed);
        log::info!("{}: mode-1 reset: back to the power-on state (VRAM kept)", self.chip.arch);
    }

    /// Mode-1 resets since the GPU was created.
    pub fn mode1_resets(&self) -> u64 {
        self.mode1_resets.load(Ordering::Relaxed)
    }
}
