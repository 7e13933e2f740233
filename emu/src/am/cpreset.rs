//! How the emulated CP lets compute queues go. A dequeue request (`CP_HQD_DEQUEUE_REQUEST`)
//! acts by its type: DRAIN_PIPE waits for the queue's running waves to end, so a wave that never
//! ends keeps the HQD active as on the hardware (the drain completes when `CP_HQD_ACTIVE` is read
//! after the waves ended); RESET_WAVES and SAVE_WAVES kill them at once (no CWSR on AM: nothing
//! is saved). `GRBM_SOFT_RESET`'s CP or CPC bit kills every compute queue of its XCC, forgets
//! the XCC's HQD registers and halts its MEC, which then runs no queue until the driver starts
//! it again.

use super::device::{EmuPciGpu, State};
use baregpu_drivers::amd::am::gfx::DEQUEUE_DRAIN_PIPE;
use baregpu_drivers::amd::am::mmio::Ip;
use std::sync::atomic::Ordering;

impl EmuPciGpu {
    /// A non-zero write of XCC `xcc`'s `CP_HQD_DEQUEUE_REQUEST` (bank of its GRBM_GFX_CNTL).
    pub(crate) fn dequeue_request(&self, st: &mut State, xcc: u8, v: u32) {
        let sel = self.hqd_selected(st, xcc);
        let kind = self.map.field(Ip::Gc, "CP_HQD_DEQUEUE_REQUEST", "DEQUEUE_REQ").get(v);
        if kind == DEQUEUE_DRAIN_PIPE && st.hqds.get(&sel).is_some_and(|q| q.running.waves_running()) {
            log::debug!("{}: XCC {xcc} HQD {sel:#x}: drain waits for running waves", self.chip.arch);
            st.hqd_regs.insert((sel, self.map.at(Ip::Gc, xcc, "CP_HQD_DEQUEUE_REQUEST")), v);
            return;
        }
        self.retire_hqd(st, xcc, sel);
    }

    /// A read of `CP_HQD_ACTIVE`: a pending drain whose waves have ended completes.
    pub(crate) fn drain_done(&self, st: &mut State, xcc: u8, sel: u32) {
        let req = self.map.at(Ip::Gc, xcc, "CP_HQD_DEQUEUE_REQUEST");
        let pending = st.hqd_regs.get(&(sel, req)).copied().unwrap_or(0);
        let field = self.map.field(Ip::Gc, "CP_HQD_DEQUEUE_REQUEST", "DEQUEUE_REQ");
        if field.get(pending) == DEQUEUE_DRAIN_PIPE && !st.hqds.get(&sel).is_some_and(|q| q.running.waves_running()) {
            self.retire_hqd(st, xcc, sel);
        }
    }

    /// The queue of bank `sel` stops (once the lock is released), CP_HQD_ACTIVE reads 0 and the
    /// request is done.
    fn retire_hqd(&self, st: &mut State, xcc: u8, sel: u32) {
        if let Some(q) = st.hqds.remove(&sel) {
            st.retired.push(q);
        }
        st.hqd_regs.insert((sel, self.map.at(Ip::Gc, xcc, "CP_HQD_ACTIVE")), 0);
        st.hqd_regs.insert((sel, self.map.at(Ip::Gc, xcc, "CP_HQD_DEQUEUE_REQUEST")), 0);
    }

    /// XCC `xcc`'s GRBM_SOFT_RESET written with `v`.
    pub(crate) fn grbm_soft_reset(&self, st: &mut State, xcc: u8, v: u32) {
        let f = |n| self.map.field(Ip::Gc, "GRBM_SOFT_RESET", n).mask;
        if v & (f("SOFT_RESET_CP") | f("SOFT_RESET_CPC")) == 0 {
            return;
        }
        let mine = |sel: u32| sel >> 16 == u32::from(xcc);
        let keys: Vec<u32> = st.hqds.keys().copied().filter(|&k| mine(k)).collect();
        for k in keys {
            if let Some(q) = st.hqds.remove(&k) {
                st.retired.push(q);
            }
        }
        st.hqd_regs.retain(|&(sel, _), _| !mine(sel));
        let (mec, halts) = self.map.chip.mec_halt;
        let halted = halts.iter().fold(0, |acc, h| acc | self.map.field(Ip::Gc, mec, h).mask);
        let at = self.map.at(Ip::Gc, xcc, mec);
        st.regs.set(at, st.regs.get(at) | halted);
        self.soft_resets.fetch_add(1, Ordering::Relaxed);
        log::debug!("{}: XCC {xcc}: CP soft reset: compute queues stopped, MEC halted", self.chip.arch);
    }

    /// Compute queues whose waves are running now.
    pub fn running_waves(&self) -> usize {
        self.lock().hqds.values().filter(|q| q.running.waves_running()).count()
    }

    /// CP soft resets (GRBM_SOFT_RESET with CP or CPC) since power-on, over all XCCs.
    pub fn cp_soft_resets(&self) -> u64 {
        self.soft_resets.load(Ordering::Relaxed)
    }
}
