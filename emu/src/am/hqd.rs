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

/// The key of SDMA0's queue 0 among the running queues (above every GRBM_GFX_CNTL selection).
const SDMA_KEY: u32 = 0x1_0000;

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
        self.start_queue(st, sel, QueueKind::Compute, ring_va, ring_dwords * 4, (rptr_va, wptr_va), bell);
    }

    /// SDMA0_QUEUE0_RB_CNTL written: RB_ENABLE starts the ring the queue registers describe
    /// (pointers in bytes) on the same SDMA engine the emulated KFD runs; clearing it stops it.
    pub(crate) fn sdma_rb_cntl(&self, st: &mut State, v: u32) {
        let key = SDMA_KEY;
        if let Some(q) = st.hqds.remove(&key) {
            st.retired.push(q);
        }
        if v & gc::SDMA0_QUEUE0_RB_CNTL::RB_ENABLE.mask == 0 {
            return;
        }
        let b = &self.bases.gc;
        let r = |reg| st.regs.get(at(reg, b)) as u64;
        let ring_va = r(gc::regSDMA0_QUEUE0_RB_BASE) << 8 | r(gc::regSDMA0_QUEUE0_RB_BASE_HI) << 40;
        let ring_bytes = 4u64 << gc::SDMA0_QUEUE0_RB_CNTL::RB_SIZE.get(v);
        let rptr_va = r(gc::regSDMA0_QUEUE0_RB_RPTR_ADDR_HI) << 32 | r(gc::regSDMA0_QUEUE0_RB_RPTR_ADDR_LO);
        let wptr_va = r(gc::regSDMA0_QUEUE0_RB_WPTR_POLL_ADDR_HI) << 32 | r(gc::regSDMA0_QUEUE0_RB_WPTR_POLL_ADDR_LO);
        let bell =
            gc::SDMA0_QUEUE0_DOORBELL_OFFSET::OFFSET.get(r(gc::regSDMA0_QUEUE0_DOORBELL_OFFSET) as u32) as u64 * 4;
        self.start_queue(st, key, QueueKind::Sdma, ring_va, ring_bytes, (rptr_va, wptr_va), bell);
    }

    /// Start a queue thread for `kind` under `key` once its ring and pointers translate.
    #[allow(clippy::too_many_arguments)]
    fn start_queue(
        &self,
        st: &mut State,
        key: u32,
        kind: QueueKind,
        ring_va: u64,
        ring_bytes: u64,
        (rptr_va, wptr_va): (u64, u64),
        bell: u64,
    ) {
        if ring_bytes < 64 {
            log::debug!("{}: queue {key:#x} not started: a ring of {ring_bytes} bytes", self.name());
            return;
        }
        let mem = st.gmc_mem.clone();
        let mut host = |va: u64, len: u64| match mem.translate(va, len) {
            Some(p) => Some(p as usize),
            None => {
                self.fault(st, va, false);
                None
            }
        };
        let (Some(ring), Some(rptr), Some(wptr)) = (host(ring_va, ring_bytes), host(rptr_va, 8), host(wptr_va, 8))
        else {
            log::debug!("{}: queue {key:#x} not started: its ring or pointers are not mapped", self.name());
            return;
        };
        st.next_queue_id += 1;
        let queue_id = st.next_queue_id;
        let q = EmuQueue {
            queue_id,
            gpu_id: 0,
            kind,
            ring_va,
            ring_size: ring_bytes,
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
        let label = format!("{} {} queue {key:#x}", self.name(), if kind.is_sdma() { "SDMA" } else { "compute" });
        let xcc = Xcc { index: 0, count: 1 };
        match Running::start(me, q, self.engine.clone(), self.chip.arch, xcc, self.writes.clone(), label) {
            Ok(running) => {
                st.hqds.insert(key, HqdQueue { running, doorbell: bell, queue_id });
            }
            Err(e) => log::error!("{}: no thread for queue {key:#x}: {e}", self.name()),
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
