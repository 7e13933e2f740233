//! The emulated IH ring 0 (OSSSYS IH_RB_*): entries of 8 dwords written at IH_RB_BASE (an MC
//! address) at the write pointer, IH_RB_WPTR advanced (bytes) and written back to
//! IH_RB_WPTR_ADDR when enabled; a full ring sets RB_OVERFLOW and drops the entry, as the
//! hardware does. The entry format is the drivers' ([`IhEntry`]).

use super::bases::at;
use super::device::{EmuPciGpu, State};
use baregpu_autogen::amd::regs::osssys_6_0_0 as oss;
use baregpu_drivers::amd::am::ih::{IhEntry, ENTRY_BYTES};
use baregpu_drivers::pci::PciDevice;

impl EmuPciGpu {
    /// Write `e` to IH ring 0; false when the ring is off, full or unreachable.
    pub(crate) fn ih_push(&self, st: &mut State, e: &IhEntry) -> bool {
        let b = &self.bases.osssys;
        let cntl = st.regs.get(at(oss::regIH_RB_CNTL, b));
        if cntl & oss::IH_RB_CNTL::RB_ENABLE.mask == 0 {
            log::debug!("{}: IH ring disabled, entry {e:?} dropped", self.name());
            return false;
        }
        let size = 4u64 << oss::IH_RB_CNTL::RB_SIZE.get(cntl);
        let base = (st.regs.get(at(oss::regIH_RB_BASE, b)) as u64) << 8
            | (st.regs.get(at(oss::regIH_RB_BASE_HI, b)) as u64 & 0xff) << 40;
        let wptr_reg = at(oss::regIH_RB_WPTR, b);
        let offset = oss::IH_RB_WPTR::OFFSET.mask as u64;
        let wptr = st.regs.get(wptr_reg) as u64 & offset;
        let rptr = st.regs.get(at(oss::regIH_RB_RPTR, b)) as u64 & offset;
        let next = (wptr + ENTRY_BYTES) % size;
        if next == rptr % size {
            st.regs.set(wptr_reg, wptr as u32 | oss::IH_RB_WPTR::RB_OVERFLOW.mask);
            return false;
        }
        let bytes: Vec<u8> = e.encode().iter().flat_map(|d| d.to_le_bytes()).collect();
        let mc = self.mc(st);
        use super::psp::McBus;
        if !mc.write(base + wptr % size, &bytes) {
            log::debug!("{}: IH ring at MC {base:#x} is not reachable", self.name());
            return false;
        }
        let overflow = st.regs.get(wptr_reg) & oss::IH_RB_WPTR::RB_OVERFLOW.mask;
        st.regs.set(wptr_reg, next as u32 | overflow);
        if cntl & oss::IH_RB_CNTL::WPTR_WRITEBACK_ENABLE.mask != 0 {
            let addr = (st.regs.get(at(oss::regIH_RB_WPTR_ADDR_HI, b)) as u64) << 32
                | st.regs.get(at(oss::regIH_RB_WPTR_ADDR_LO, b)) as u64;
            mc.write(addr, &(next as u32).to_le_bytes());
        }
        true
    }

    /// IH_RB_CNTL written: WPTR_OVERFLOW_CLEAR clears the overflow bit.
    pub(crate) fn ih_cntl_written(&self, st: &mut State, v: u32) {
        if v & oss::IH_RB_CNTL::WPTR_OVERFLOW_CLEAR.mask != 0 {
            let w = at(oss::regIH_RB_WPTR, &self.bases.osssys);
            st.regs.set(w, st.regs.get(w) & !oss::IH_RB_WPTR::RB_OVERFLOW.mask);
        }
    }
}
