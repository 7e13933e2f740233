//! Compute queues started from the HQD registers, as the MEC does: the registers
//! CP_MQD_BASE_ADDR … CP_HQD_PQ_WPTR_HI are banked per (ME, pipe, queue) chosen by
//! GRBM_GFX_CNTL; CP_HQD_ACTIVE = 1 starts the queue the bank describes on the SAME command
//! processor the emulated KFD runs ([`crate::amd::cp`]), 0 stops it. Its ring, read-pointer
//! report and write-pointer poll addresses are GPU VAs translated by the MMU; one the table does
//! not map is a fault in the IH ring (with its VA) and the queue does not start. The queue's
//! doorbell (CP_HQD_PQ_DOORBELL_CONTROL.DOORBELL_OFFSET, dwords into BAR2) wakes it.

use super::bases::at;
use super::device::{EmuPciGpu, State};
use crate::amd::cp::queue::Xcc;
use crate::amd::cp::{CpHost, Running};
use crate::amd::{EmuQueue, QueueKind};
use baregpu_autogen::amd::regs::gc_11_0_0 as gc;
use baregpu_drivers::pci::PciDevice;
use std::sync::Weak;

/// A started queue.
pub(crate) struct HqdQueue {
    pub running: Running,
    /// Byte offset of its doorbell in BAR2.
    pub doorbell: u64,
    pub queue_id: u32,
}

impl std::fmt::Debug for HqdQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HqdQueue").field("doorbell", &self.doorbell).field("queue_id", &self.queue_id).finish()
    }
}

/// The bank GRBM_GFX_CNTL selects (ME, pipe, queue).
pub(crate) fn selected(st: &State, gc_bases: &[u32]) -> u32 {
    let v = st.regs.get(at(gc::regGRBM_GFX_CNTL, gc_bases));
    v & (gc::GRBM_GFX_CNTL::MEID.mask | gc::GRBM_GFX_CNTL::PIPEID.mask | gc::GRBM_GFX_CNTL::QUEUEID.mask)
}

impl EmuPciGpu {
    fn bank(&self, st: &State, sel: u32, reg: baregpu_autogen::amd::regs::Reg) -> u32 {
        st.hqd_regs.get(&(sel, at(reg, &self.bases.gc))).copied().unwrap_or(0)
    }

    fn bank64(
        &self,
        st: &State,
        sel: u32,
        lo: baregpu_autogen::amd::regs::Reg,
        hi: baregpu_autogen::amd::regs::Reg,
    ) -> u64 {
        (self.bank(st, sel, hi) as u64) << 32 | self.bank(st, sel, lo) as u64
    }

    /// CP_HQD_ACTIVE set to 1 in bank `sel` (the previous queue of the bank already retired).
    pub(crate) fn hqd_active(&self, st: &mut State, sel: u32) {
        let ring_va = self.bank64(st, sel, gc::regCP_HQD_PQ_BASE, gc::regCP_HQD_PQ_BASE_HI) << 8;
        let ring_dwords = 2u64 << gc::CP_HQD_PQ_CONTROL::QUEUE_SIZE.get(self.bank(st, sel, gc::regCP_HQD_PQ_CONTROL));
        let rptr_va = self.bank64(st, sel, gc::regCP_HQD_PQ_RPTR_REPORT_ADDR, gc::regCP_HQD_PQ_RPTR_REPORT_ADDR_HI);
        let wptr_va = self.bank64(st, sel, gc::regCP_HQD_PQ_WPTR_POLL_ADDR, gc::regCP_HQD_PQ_WPTR_POLL_ADDR_HI);
        let bell =
            gc::CP_HQD_PQ_DOORBELL_CONTROL::DOORBELL_OFFSET.get(self.bank(st, sel, gc::regCP_HQD_PQ_DOORBELL_CONTROL))
                as u64
                * 4;
        let mem = st.gmc_mem.clone();
        let mut host = |va: u64, len: u64| match mem.translate(va, len) {
            Some(p) => Some(p as usize),
            None => {
                self.fault(st, va, false);
                None
            }
        };
        let (Some(ring), Some(rptr), Some(wptr)) = (host(ring_va, ring_dwords * 4), host(rptr_va, 8), host(wptr_va, 8))
        else {
            log::debug!("{}: HQD {sel:#x} not started: its ring or pointers are not mapped", self.name());
            return;
        };
        st.next_queue_id += 1;
        let queue_id = st.next_queue_id;
        let q = EmuQueue {
            queue_id,
            gpu_id: 0,
            kind: QueueKind::Compute,
            ring_va,
            ring_size: ring_dwords * 4,
            ring_host: ring,
            read_ptr_va: rptr_va,
            read_ptr_host: rptr,
            write_ptr_va: wptr_va,
            write_ptr_host: wptr,
            eop_va: 0,
            eop_size: 0,
            ctx_save_restore_va: 0,
            ctx_save_restore_size: 0,
            ctl_stack_size: 0,
            doorbell_id: (bell / 8) as u32,
            doorbell_offset: bell,
            doorbell_host: 0,
            priority: 0,
            percentage: 100,
            pm4_target_xcc: 0,
            sdma_engine: 0,
            sdma_queue: 0,
            buffers: Vec::new(),
        };
        let me: Weak<dyn CpHost> = self.me.clone();
        let label = format!("{} HQD me/pipe/queue {sel:#x}", self.name());
        let xcc = Xcc { index: 0, count: 1 };
        match Running::start(me, q, self.engine.clone(), self.chip.arch, xcc, self.writes.clone(), label) {
            Ok(running) => {
                st.hqds.insert(sel, HqdQueue { running, doorbell: bell, queue_id });
            }
            Err(e) => log::error!("{}: no thread for HQD {sel:#x}: {e}", self.name()),
        }
    }

    /// A UTCL2 fault of context 0 at `va`: the fault status and address registers, and an IH
    /// entry with the VA.
    pub(crate) fn fault(&self, st: &mut State, va: u64, write: bool) {
        let b = &self.bases.gc;
        let status = gc::GCVM_L2_PROTECTION_FAULT_STATUS::MAPPING_ERROR.mask
            | if write { gc::GCVM_L2_PROTECTION_FAULT_STATUS::RW.mask } else { 0 };
        let s = at(gc::regGCVM_L2_PROTECTION_FAULT_STATUS, b);
        if st.regs.get(s) == 0 {
            st.regs.set(s, status);
            st.regs.set(at(gc::regGCVM_L2_PROTECTION_FAULT_ADDR_LO32, b), (va >> 12) as u32);
            st.regs.set(at(gc::regGCVM_L2_PROTECTION_FAULT_ADDR_HI32, b), (va >> 44) as u32 & 0xf);
        } else {
            st.regs.set(s, st.regs.get(s) | gc::GCVM_L2_PROTECTION_FAULT_STATUS::MORE_FAULTS.mask);
        }
        let e = baregpu_drivers::amd::am::ih::IhEntry::vm_fault(self.pt_generation(), va, 0, write);
        self.ih_push(st, &e);
    }
}
