//! The register file of BAR5: every register reads back what was last written, except those
//! with an [`Act`] — registers that do something (a mailbox, a flush, a queue's enable),
//! keyed by absolute dword address.

use std::collections::HashMap;

/// A PSP or SMU mailbox register: C2PMSG_`n` of MP0 or MP1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mailbox {
    Psp(u32),
    Smu(u32),
}

/// What a register does beyond holding its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// RCC_CONFIG_MEMSIZE: VRAM in MiB, read-only.
    MemSize,
    /// An HDP flush REQ register: a write requests a flush (counted).
    HdpFlushReq,
    /// An HDP flush DONE register: reads as its REQ register (the flush completes at once).
    HdpFlushDone {
        req: u32,
    },
    /// MM_INDEX / MM_INDEX_HI / MM_DATA: indirect access to VRAM (bit 31 of the index) or to
    /// registers beyond the BAR.
    MmIndex,
    MmIndexHi,
    MmData,
    Mailbox(Mailbox),
    /// RSMU_INDEX / RSMU_DATA: any register by byte address (those past the BAR too).
    RsmuIndex,
    RsmuData,
    /// INVALIDATE_ENGn_REQ of the GC hub of XCC `gc`, or of an MMHUB (`None`): walk the
    /// tables (GC), then ACK at `ack`.
    InvalidateReq {
        ack: u32,
        gc: Option<u8>,
    },
    /// GRBM_SOFT_RESET of XCC `xcc`: the CP/CPC bits stop its compute queues and halt its MEC.
    GrbmSoftReset {
        xcc: u8,
    },
    /// INVALIDATE_ENGn_SEM: reads 1 (acquired) — one driver, no contention.
    InvalidateSem,
    /// The HQD registers of XCC `xcc`, banked by its GRBM_GFX_CNTL; `active` for
    /// CP_HQD_ACTIVE.
    Hqd {
        xcc: u8,
        active: bool,
    },
    /// IH_RB_CNTL (WPTR_OVERFLOW_CLEAR).
    IhCntl,
    /// The first SDMA ring's RB_CNTL (RB_ENABLE starts the ring).
    SdmaRbCntl,
}

#[derive(Debug, Default)]
pub struct RegFile {
    vals: HashMap<u32, u32>,
    acts: HashMap<u32, Act>,
    mailboxes: HashMap<Mailbox, u32>,
}

impl RegFile {
    pub fn act(&mut self, addr: u32, act: Act) {
        if let Act::Mailbox(m) = act {
            self.mailboxes.insert(m, addr);
        }
        self.acts.insert(addr, act);
    }

    /// No act at `addr` any more.
    pub fn forget(&mut self, addr: u32) {
        self.acts.remove(&addr);
    }

    /// A mailbox register's value.
    pub fn mailbox(&self, m: Mailbox) -> u32 {
        self.mailboxes.get(&m).map_or(0, |&a| self.get(a))
    }

    pub fn set_mailbox(&mut self, m: Mailbox, v: u32) {
        if let Some(&a) = self.mailboxes.get(&m) {
            self.set(a, v);
        }
    }

    pub fn act_at(&self, addr: u32) -> Option<Act> {
        self.acts.get(&addr).copied()
    }

    /// The stored value (what was last written, or the reset value).
    pub fn get(&self, addr: u32) -> u32 {
        self.vals.get(&addr).copied().unwrap_or(0)
    }

    pub fn set(&mut self, addr: u32, v: u32) {
        self.vals.insert(addr, v);
    }
}
