//! The emulated PCI GPU as the command processors' host ([`CpHost`]): memory is the MMU's
//! current translation, interrupts and stops become IH ring entries (an end-of-pipe, a UTCL2
//! fault with its VA, an SQ error), as the AM driver reads them.

use super::device::EmuPciGpu;
use crate::amd::cp::{CpHost, Stop};
use crate::amd::dispatch::DispatchFault;
use crate::amd::EmuQueue;
use crate::gpu_memory::GpuMemory;
use baregpu_drivers::amd::am::ih::{IhEntry, CLIENT_GRBM_CP, SRC_CP_BAD_OPCODE, SRC_CP_EOP, SRC_SQ_INTERRUPT};
use baregpu_drivers::amd::am::pagetable::PtGeneration;
use std::sync::atomic::Ordering;

impl CpHost for EmuPciGpu {
    fn memory_epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    fn memory(&self, _gpu_id: u32) -> GpuMemory {
        (*self.lock().gmc_mem).clone()
    }

    fn fault_va(&self, _gpu_id: u32, va: u64) -> u64 {
        self.lock().gmc_mem.region_containing(va).map_or(va, |r| r.va + r.len)
    }

    fn interrupt(&self, _gpu_id: u32, context_id: Option<u32>) {
        let e = IhEntry {
            client: CLIENT_GRBM_CP,
            src: SRC_CP_EOP,
            ctx: [context_id.unwrap_or(0), 0, 0, 0],
            ..Default::default()
        };
        let mut st = self.lock();
        self.ih_push(&mut st, &e);
    }

    fn bus_register(&self, reg: u32, write: Option<u32>) -> Option<u32> {
        self.hdp_register(reg, write)
    }

    fn stopped(&self, q: &EmuQueue, label: &str, why: Stop) {
        let mut st = self.lock();
        // A queue the driver dequeued or a reset killed reports nothing, as on the hardware. Its
        // thread is stopped only once the register write that retired it released the lock, and
        // meanwhile it may run into the translation a mode-1 reset took away: a fault recorded
        // then would outlive the reset and spoil the next session's partial boot.
        if !st.hqds.values().any(|h| h.queue_id == q.queue_id) {
            log::debug!("{label}: stopped after it was retired ({why:?}): not reported");
            return;
        }
        match why {
            Stop::Destroyed => {}
            Stop::Fault { va, write, what } => {
                log::debug!("{label}: memory fault at VA {va:#x}: {what}; queue stopped");
                self.fault(&mut st, va, write);
            }
            Stop::Dispatch(DispatchFault::Memory { va, write, .. }) => {
                log::debug!("{label}: a wave faulted at VA {va:#x}; queue stopped");
                self.fault(&mut st, va, write);
            }
            Stop::Dispatch(DispatchFault::Cancelled) => {}
            Stop::Dispatch(f) => {
                log::warn!("{label}: {f}; queue stopped");
                // An SQ interrupt with encoding 2 (an error), where each generation puts it.
                let ctx = match self.pt_generation() {
                    PtGeneration::Gfx9 => [2 << 26, 0, 0, 0],
                    _ => [0, 2 << 6, 0, 0],
                };
                let e = IhEntry { client: CLIENT_GRBM_CP, src: SRC_SQ_INTERRUPT, ctx, ..Default::default() };
                self.ih_push(&mut st, &e);
            }
            Stop::Bad(msg) => {
                log::warn!("{label}: {msg}; queue stopped");
                let e = IhEntry {
                    client: CLIENT_GRBM_CP,
                    src: SRC_CP_BAD_OPCODE,
                    ctx: [q.queue_id, 0, 0, 0],
                    ..Default::default()
                };
                self.ih_push(&mut st, &e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::QueueKind;
    use crate::rdna::Interpreter;
    use std::sync::Arc;

    fn queue(queue_id: u32) -> EmuQueue {
        EmuQueue {
            queue_id,
            gpu_id: 0,
            kind: QueueKind::Compute,
            ring_va: 0,
            ring_size: 0,
            ring_host: 0,
            read_ptr_va: 0,
            read_ptr_host: 0,
            write_ptr_va: 0,
            write_ptr_host: 0,
            eop_va: 0,
            eop_size: 0,
            ctx_save_restore_va: 0,
            ctx_save_restore_size: 0,
            ctl_stack_size: 0,
            doorbell_id: 0,
            doorbell_offset: 0,
            doorbell_host: 0,
            priority: 0,
            percentage: 100,
            pm4_target_xcc: 0,
            sdma_engine: 0,
            sdma_queue: 0,
            buffers: Vec::new(),
        }
    }

    #[test]
    fn a_queue_no_hqd_holds_records_no_fault() {
        for arch in ["gfx1100", "gfx942"] {
            let gpu = EmuPciGpu::new(arch, Arc::new(Interpreter::new(arch))).unwrap();
            let status = gpu.map.gc_vm(0, "L2_PROTECTION_FAULT_STATUS");
            let fault = Stop::Fault { va: 0x1000, write: true, what: "the ring".into() };
            gpu.stopped(&queue(7), "retired queue", fault);
            assert_eq!(gpu.lock().regs.get(status), 0, "{arch}: a retired queue's fault was recorded");
        }
    }
}
