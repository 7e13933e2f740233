//! What a channel records when its kernel faults, in the form RM's SM debugger (GT200_DEBUGGER)
//! hands it out: the MMU faults of the channel's context and one SM's error status registers.
//!
//! How interpreter faults map (codes from [`baregpu_drivers::nv::fault`]):
//! - a global access outside every mapping is an MMU fault at that VA, access type read or
//!   write; the fault type is "invalid PTE" when something is mapped in the VA's 2 MiB (the page
//!   table exists, the entry does not) and "invalid PDE" otherwise. RM records it only for the
//!   context (`kgrctxRecordMmuFault`), so no SM error state comes with it;
//! - a shared/local/param/const access out of range: warp ESR OOR_ADDR with the address;
//! - a misaligned access: warp ESR MISALIGNED_ADDR with the address;
//! - an illegal instruction: warp ESR ILLEGAL_INSTR_ENCODING;
//! - `trap`: global ESR BPT_INT (PTX `trap` is a breakpoint trap, BPT.TRAP in SASS);
//! - deadlocks, bad launches and cancellations record nothing (real hardware would hang or
//!   never start).
//!
//! The SM is the faulting CTA's ([`sm_of`], what %smid reads). The emulated GPU runs PTX, which
//! has no instruction addresses: the "PC" (`hwwWarpEsrPc64`) is the PTX line of the faulting
//! instruction.

use super::ptx::exec::sm_of;
use super::ptx::{Fault, LaunchError};
use super::GpuMap;
use baregpu_drivers::nv::fault::*;
use baregpu_drivers::nv::rm::debugger::{
    NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY, NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_MAX_ENTRIES,
    NV83DE_SM_ERROR_STATE_REGISTERS,
};
use std::collections::BTreeMap;

/// The span one page-directory entry of the last level covers (2 MiB with 4 KiB pages).
const PDE_SPAN: u64 = 0x20_0000;

/// A channel's fault record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Record {
    /// Oldest first; RM keeps the last [`NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_MAX_ENTRIES`].
    pub mmu: Vec<NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY>,
    /// The SM and its error status registers.
    pub sm: Option<(u32, NV83DE_SM_ERROR_STATE_REGISTERS)>,
}

impl Record {
    /// Add what `e` says to the record (a channel stops at its first fault, so this is once).
    pub fn add(&mut self, e: &LaunchError, sm_count: u32, maps: &BTreeMap<u64, GpuMap>) {
        let sm = sm_of(e.cta, sm_count);
        let pc = e.line as u64;
        let warp = |code: u32, addr: u64| NV83DE_SM_ERROR_STATE_REGISTERS {
            hww_warp_esr: code,
            hww_warp_esr_pc: pc as u32,
            hww_warp_esr_pc64: pc,
            hww_esr_addr: addr,
            ..Default::default()
        };
        match e.fault {
            Fault::Memory { va, space: "global", write, .. } => {
                let page = va & !(PDE_SPAN - 1);
                let table =
                    maps.range(..page.saturating_add(PDE_SPAN)).next_back().is_some_and(|(b, m)| b + m.len > page);
                if self.mmu.len() == NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_MAX_ENTRIES {
                    self.mmu.remove(0);
                }
                self.mmu.push(NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_ENTRY {
                    fault_address: va,
                    fault_type: if table { FAULT_TYPE_INVALID_PTE } else { FAULT_TYPE_INVALID_PDE },
                    access_type: if write { NV_PFAULT_ACCESS_TYPE_VIRT_WRITE } else { NV_PFAULT_ACCESS_TYPE_VIRT_READ },
                });
            }
            Fault::Memory { va, .. } => self.sm = Some((sm, warp(WARP_ESR_OOR_ADDR, va))),
            Fault::Misaligned { va, .. } => self.sm = Some((sm, warp(WARP_ESR_MISALIGNED_ADDR, va))),
            Fault::Illegal(_) => self.sm = Some((sm, warp(WARP_ESR_ILLEGAL_INSTR_ENCODING, 0))),
            Fault::Trap => {
                let mut r = warp(0, 0);
                r.hww_global_esr = GLOBAL_ESR_BPT_INT;
                self.sm = Some((sm, r));
            }
            Fault::Deadlock(_) | Fault::BadLaunch(_) | Fault::Cancelled => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(fault: Fault) -> LaunchError {
        LaunchError { kernel: "k".into(), cta: [3, 1, 0], thread: [5, 0, 0], line: 42, fault }
    }

    #[test]
    fn faults_become_what_the_debugger_reports() {
        let mut maps = BTreeMap::new();
        maps.insert(0x10_0000_0000u64, GpuMap { len: 0x1000, host: 0, memory: 1 });
        let mut r = Record::default();
        let global = |va, write| Fault::Memory { va, space: "global", len: 4, write };
        r.add(&err(global(0x10_0000_1000, true)), 132, &maps);
        r.add(&err(global(0x100, false)), 132, &maps);
        assert_eq!(r.mmu[0].fault_address, 0x10_0000_1000);
        assert_eq!((r.mmu[0].fault_type, r.mmu[0].access_type), (FAULT_TYPE_INVALID_PTE, 1));
        assert_eq!((r.mmu[1].fault_type, r.mmu[1].access_type), (FAULT_TYPE_INVALID_PDE, 0));
        assert_eq!(r.sm, None, "an MMU fault is the context's, not an SM's");
        for _ in 0..4 {
            r.add(&err(global(0x200, false)), 132, &maps);
        }
        assert_eq!(r.mmu.len(), 4, "RM keeps the last four");
        assert!(r.mmu.iter().all(|e| e.fault_address == 0x200));

        let mut r = Record::default();
        r.add(&err(Fault::Illegal("x".into())), 132, &maps);
        let (sm, s) = r.sm.unwrap();
        assert_eq!((sm, s.hww_warp_esr, s.hww_warp_esr_pc64, s.hww_warp_esr_pc), (10, 0x9, 42, 42));
        r.add(&err(Fault::Memory { va: 0x9000, space: "shared", len: 4, write: false }), 4, &maps);
        let (sm, s) = r.sm.unwrap();
        assert_eq!((sm, s.hww_warp_esr, s.hww_esr_addr), (2, WARP_ESR_OOR_ADDR, 0x9000));
        r.add(&err(Fault::Misaligned { va: 0x13, space: "global", len: 4 }), 132, &maps);
        assert_eq!(r.sm.unwrap().1.hww_warp_esr, WARP_ESR_MISALIGNED_ADDR);
        r.add(&err(Fault::Trap), 132, &maps);
        assert_eq!((r.sm.unwrap().1.hww_global_esr, r.sm.unwrap().1.hww_warp_esr), (GLOBAL_ESR_BPT_INT, 0));
        assert!(r.mmu.is_empty());
    }
}
