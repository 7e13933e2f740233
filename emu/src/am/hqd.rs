//! Compute queues started from the HQD registers, as the MEC does: the registers
//! CP_MQD_BASE_ADDR … CP_HQD_PQ_WPTR_HI are banked per XCC and (ME, pipe, queue) chosen by that
//! XCC's GRBM_GFX_CNTL; CP_HQD_ACTIVE = 1 starts the queue the bank describes on the SAME command
//! processor the emulated KFD runs ([`crate::amd::cp`]), as XCC `x` of the chip's XCCs (a ring
//! mapped on every XCC is split across them as on KFD), 0 stops it. Its ring, read-pointer
//! report and write-pointer poll addresses are GPU VAs translated by the MMU; one the table does
//! not map is a fault in the IH ring (with its VA) and the queue does not start. The queue's
//! doorbell (CP_HQD_PQ_DOORBELL_CONTROL.DOORBELL_OFFSET, dwords into BAR2) wakes it; one outside
//! its XCC's CP_MEC_DOORBELL_RANGE, a halted MEC, or a MEC the PSP loaded no firmware into, and
//! the queue does not start.

use super::device::{EmuPciGpu, State};
use crate::amd::cp::queue::Xcc;
use crate::amd::cp::{CpHost, Running};
use crate::amd::{EmuQueue, QueueKind};
use baregpu_drivers::amd::am::mmio::Ip;
use baregpu_drivers::pci::PciDevice;
use std::sync::atomic::Ordering;
use std::sync::Weak;
use std::time::Duration;

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

/// The key of the first SDMA ring among the running queues (above every HQD key).
const SDMA_KEY: u32 = 0x100_0000;

impl EmuPciGpu {
    /// The HQD bank XCC `xcc`'s GRBM_GFX_CNTL selects (ME, pipe, queue), with the XCC in bits
    /// 16 and up: the key of its registers and its running queue.
    pub(crate) fn hqd_selected(&self, st: &State, xcc: u8) -> u32 {
        let v = st.regs.get(self.map.at(Ip::Gc, xcc, "GRBM_GFX_CNTL"));
        let f = |n| self.map.field(Ip::Gc, "GRBM_GFX_CNTL", n).mask;
        (u32::from(xcc) << 16) | (v & (f("MEID") | f("PIPEID") | f("QUEUEID")))
    }

    fn bank(&self, st: &State, xcc: u8, sel: u32, name: &str) -> u32 {
        st.hqd_regs.get(&(sel, self.map.at(Ip::Gc, xcc, name))).copied().unwrap_or(0)
    }

    fn bank64(&self, st: &State, xcc: u8, sel: u32, lo: &str) -> u64 {
        (self.bank(st, xcc, sel, &format!("{lo}_HI")) as u64) << 32 | self.bank(st, xcc, sel, lo) as u64
    }

    /// CP_HQD_ACTIVE set to 1 in bank `sel` of XCC `xcc` (the previous queue of the bank
    /// already retired).
    pub(crate) fn hqd_active(&self, st: &mut State, xcc: u8, sel: u32) {
        // A MEC without firmware runs nothing (the hardware's would execute garbage or stay idle).
        if !st.psp.mec_has_firmware() {
            log::debug!("{}: XCC {xcc} HQD {sel:#x} not started: the MEC has no firmware", self.name());
            return;
        }
        let (mec, halts) = self.map.chip.mec_halt;
        let cntl = st.regs.get(self.map.at(Ip::Gc, xcc, mec));
        if halts.iter().any(|f| cntl & self.map.field(Ip::Gc, mec, f).mask != 0) {
            log::debug!("{}: XCC {xcc} HQD {sel:#x} not started: the MEC is halted ({mec} {cntl:#x})", self.name());
            return;
        }
        let field = |reg: &str, f: &str| self.map.field(Ip::Gc, reg, f);
        let ring_va = self.bank64(st, xcc, sel, "CP_HQD_PQ_BASE") << 8;
        let size = field("CP_HQD_PQ_CONTROL", "QUEUE_SIZE").get(self.bank(st, xcc, sel, "CP_HQD_PQ_CONTROL"));
        let ring_dwords = 2u64 << size;
        let rptr_va = self.bank64(st, xcc, sel, "CP_HQD_PQ_RPTR_REPORT_ADDR");
        let wptr_va = self.bank64(st, xcc, sel, "CP_HQD_PQ_WPTR_POLL_ADDR");
        let bell = field("CP_HQD_PQ_DOORBELL_CONTROL", "DOORBELL_OFFSET").get(self.bank(
            st,
            xcc,
            sel,
            "CP_HQD_PQ_DOORBELL_CONTROL",
        )) as u64
            * 4;
        // The XCC's MEC answers only the doorbells of its range: a queue outside it never hears
        // its doorbell, so it does not start.
        let range = |n: &str| {
            let reg = format!("CP_MEC_DOORBELL_RANGE_{n}");
            u64::from(st.regs.get(self.map.at(Ip::Gc, xcc, &reg)) & field(&reg, &format!("DOORBELL_RANGE_{n}")).mask)
        };
        if !(range("LOWER")..=range("UPPER")).contains(&bell) {
            log::debug!(
                "{}: XCC {xcc} HQD {sel:#x} not started: doorbell {bell:#x} is outside its MEC's range",
                self.name()
            );
            return;
        }
        let x = Xcc { index: u32::from(xcc), count: u32::from(self.map.instances(Ip::Gc).max(1)) };
        self.start_queue(st, sel, QueueKind::Compute, ring_va, ring_dwords * 4, (rptr_va, wptr_va), bell, x);
    }

    /// The first SDMA ring's RB_CNTL written: RB_ENABLE starts the ring its registers describe
    /// (pointers in bytes) on the same SDMA engine the emulated KFD runs; clearing it stops it.
    pub(crate) fn sdma_rb_cntl(&self, st: &mut State, v: u32) {
        let key = SDMA_KEY;
        if let Some(q) = st.hqds.remove(&key) {
            st.retired.push(q);
        }
        let m = &self.map;
        if v & m.sdma_field("RB_CNTL", "RB_ENABLE").mask == 0 {
            return;
        }
        let r = |name| st.regs.get(m.sdma_queue(name)) as u64;
        let ring_va = r("RB_BASE") << 8 | r("RB_BASE_HI") << 40;
        let ring_bytes = 4u64 << m.sdma_field("RB_CNTL", "RB_SIZE").get(v);
        let rptr_va = r("RB_RPTR_ADDR_HI") << 32 | r("RB_RPTR_ADDR_LO");
        let wptr_va = r("RB_WPTR_POLL_ADDR_HI") << 32 | r("RB_WPTR_POLL_ADDR_LO");
        let bell = m.sdma_field("DOORBELL_OFFSET", "OFFSET").get(r("DOORBELL_OFFSET") as u32) as u64 * 4;
        let x = Xcc { index: 0, count: 1 };
        self.start_queue(st, key, QueueKind::Sdma, ring_va, ring_bytes, (rptr_va, wptr_va), bell, x);
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
        xcc: Xcc,
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
        match Running::start(me, q, self.engine.clone(), self.chip.arch, xcc, self.writes.clone(), label) {
            Ok(running) => {
                // Before the driver can ring the doorbell: it holds the lock taken for this write.
                match self.dispatch_budget_ms.load(Ordering::Relaxed) {
                    0 => {}
                    ms => running.set_dispatch_budget(Duration::from_millis(ms)),
                }
                st.hqds.insert(key, HqdQueue { running, doorbell: bell, queue_id });
            }
            Err(e) => log::error!("{}: no thread for queue {key:#x}: {e}", self.name()),
        }
    }

    /// How long each dispatch of the compute queues started from now on may run before their CP
    /// calls it a hang (that much wall clock and emulated time, see `Cancel::with_budget`): the
    /// dispatch stops and an SQ interrupt goes to the IH ring (what the hardware's hang
    /// detection reports). By default `BAREGPU_EMU_DISPATCH_MS` or 120 s; a test
    /// sets its own here rather than in the environment every emulated GPU of the process reads.
    pub fn set_dispatch_budget(&self, budget: Duration) {
        self.dispatch_budget_ms.store((budget.as_millis() as u64).max(1), Ordering::Relaxed);
    }

    /// How many compute queues run on each XCC's HQDs (index: XCC).
    pub fn compute_queues_per_xcc(&self) -> Vec<usize> {
        let st = self.lock();
        let mut per = vec![0; usize::from(self.map.instances(Ip::Gc).max(1))];
        for &key in st.hqds.keys().filter(|&&k| k < SDMA_KEY) {
            if let Some(n) = per.get_mut((key >> 16) as usize) {
                *n += 1;
            }
        }
        per
    }

    /// A UTCL2 fault of context 0 at `va`: the fault status and address registers of the
    /// first XCC's hub (where the driver reads them), and an IH entry with the VA.
    pub(crate) fn fault(&self, st: &mut State, va: u64, write: bool) {
        let m = &self.map;
        let vm = m.chip.gc_hub.vm;
        let status_name = format!("{vm}L2_PROTECTION_FAULT_STATUS");
        let f = |n| m.field(Ip::Gc, &status_name, n).mask;
        let status = f("MAPPING_ERROR") | if write { f("RW") } else { 0 };
        let s = m.gc_vm(0, "L2_PROTECTION_FAULT_STATUS");
        if st.regs.get(s) == 0 {
            st.regs.set(s, status);
            st.regs.set(m.gc_vm(0, "L2_PROTECTION_FAULT_ADDR_LO32"), (va >> 12) as u32);
            st.regs.set(m.gc_vm(0, "L2_PROTECTION_FAULT_ADDR_HI32"), (va >> 44) as u32 & 0xf);
        } else {
            st.regs.set(s, st.regs.get(s) | f("MORE_FAULTS"));
        }
        let e = baregpu_drivers::amd::am::ih::IhEntry::vm_fault(self.pt_generation(), va, 0, write);
        self.ih_push(st, &e);
    }
}
