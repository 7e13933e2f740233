//! The emulated IH ring 0 (OSSSYS IH_RB_*): entries of 8 dwords written at IH_RB_BASE (an MC
//! address) at the write pointer, IH_RB_WPTR advanced (bytes) and written back to
//! IH_RB_WPTR_ADDR when enabled; a full ring sets RB_OVERFLOW and drops the entry, as the
//! hardware does. The entry format is the drivers' ([`IhEntry`]).

use super::device::{EmuPciGpu, State};
use baregpu_drivers::amd::am::ih::{IhEntry, ENTRY_BYTES};
use baregpu_drivers::amd::am::mmio::Ip;
use baregpu_drivers::pci::PciDevice;

impl EmuPciGpu {
    /// Write `e` to IH ring 0; false when the ring is off, full or unreachable.
    pub(crate) fn ih_push(&self, st: &mut State, e: &IhEntry) -> bool {
        let a = |name| self.map.at(Ip::Osssys, 0, name);
        let f = |reg, name| self.map.field(Ip::Osssys, reg, name);
        let cntl = st.regs.get(a("IH_RB_CNTL"));
        if cntl & f("IH_RB_CNTL", "RB_ENABLE").mask == 0 {
            log::debug!("{}: IH ring disabled, entry {e:?} dropped", self.name());
            return false;
        }
        let size = 4u64 << f("IH_RB_CNTL", "RB_SIZE").get(cntl);
        let base = (st.regs.get(a("IH_RB_BASE")) as u64) << 8 | (st.regs.get(a("IH_RB_BASE_HI")) as u64 & 0xff) << 40;
        let wptr_reg = a("IH_RB_WPTR");
        let offset = f("IH_RB_WPTR", "OFFSET").mask as u64;
        let overflow_bit = f("IH_RB_WPTR", "RB_OVERFLOW").mask;
        let wptr = st.regs.get(wptr_reg) as u64 & offset;
        let rptr = st.regs.get(a("IH_RB_RPTR")) as u64 & offset;
        let next = (wptr + ENTRY_BYTES) % size;
        if next == rptr % size {
            st.regs.set(wptr_reg, wptr as u32 | overflow_bit);
            return false;
        }
        let bytes: Vec<u8> = e.encode().iter().flat_map(|d| d.to_le_bytes()).collect();
        let mc = self.mc(st);
        use super::psp::McBus;
        if !mc.write(base + wptr % size, &bytes) {
            log::debug!("{}: IH ring at MC {base:#x} is not reachable", self.name());
            return false;
        }
        let overflow = st.regs.get(wptr_reg) & overflow_bit;
        st.regs.set(wptr_reg, next as u32 | overflow);
        if cntl & f("IH_RB_CNTL", "WPTR_WRITEBACK_ENABLE").mask != 0 {
            let addr =
                (st.regs.get(a("IH_RB_WPTR_ADDR_HI")) as u64) << 32 | st.regs.get(a("IH_RB_WPTR_ADDR_LO")) as u64;
            mc.write(addr, &(next as u32).to_le_bytes());
        }
        true
    }

    /// IH_RB_CNTL written: WPTR_OVERFLOW_CLEAR clears the overflow bit.
    pub(crate) fn ih_cntl_written(&self, st: &mut State, v: u32) {
        let f = |reg, name| self.map.field(Ip::Osssys, reg, name).mask;
        if v & f("IH_RB_CNTL", "WPTR_OVERFLOW_CLEAR") != 0 {
            let w = self.map.at(Ip::Osssys, 0, "IH_RB_WPTR");
            st.regs.set(w, st.regs.get(w) & !f("IH_RB_WPTR", "RB_OVERFLOW"));
        }
    }
}
