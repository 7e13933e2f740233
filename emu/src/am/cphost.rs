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
