//! BAR5: register reads and writes dispatched to the blocks that act on them (by absolute
//! dword address, from the generated tables at the emulator's IP bases); every other register
//! reads back what was written.

use super::bases::{at, Bases};
use super::chip::Chip;
use super::device::{EmuPciGpu, State};
use super::layout::Layout;
use super::psp::{McBus, PspRegs};
use super::regs::{Act, Mailbox, RegFile};
use baregpu_autogen::amd::regs::{gc_11_0_0 as gc, mmhub_3_0_0 as mmhub, mp_13_0_0 as mp, nbio_4_3_0 as nbio};

/// MM_INDEX bit 31: the index is a VRAM address, not a register.
const MM_INDEX_VRAM: u32 = 1 << 31;
/// Where VRAM sits in the GPU's MC address space (FB_LOCATION_BASE, 16 MiB units): Navi31's.
pub const FB_LOCATION: u32 = 0x8000;

/// The PSP's mailbox registers in the register file.
struct PspMail<'a>(&'a mut RegFile);

impl PspRegs for PspMail<'_> {
    fn get(&self, n: u32) -> u32 {
        self.0.mailbox(Mailbox::Psp(n))
    }
    fn set(&mut self, n: u32, v: u32) {
        self.0.set_mailbox(Mailbox::Psp(n), v)
    }
}

/// Memory as the PSP and IH reach it: MC addresses — VRAM at the FB location, anything else
/// through context 0's translation (the GART).
pub(crate) struct Mc<'a> {
    pub gpu: &'a EmuPciGpu,
    pub fb_base: u64,
    pub gart: std::sync::Arc<crate::gpu_memory::GpuMemory>,
}

impl Mc<'_> {
    fn gart(&self, mc: u64, len: usize) -> Option<*mut u8> {
        self.gart.translate(mc, len as u64)
    }
}

impl McBus for Mc<'_> {
    fn read(&self, mc: u64, buf: &mut [u8]) -> bool {
        if mc.checked_sub(self.fb_base).is_some_and(|off| self.gpu.vram.read(off, buf)) {
            return true;
        }
        let Some(p) = self.gart(mc, buf.len()) else { return false };
        // SAFETY: translated, so the whole range lies inside memory the emulator keeps mapped
        // (VRAM or a DMA buffer, retired ones included); a raw copy, no reference.
        unsafe { std::ptr::copy(p, buf.as_mut_ptr(), buf.len()) };
        true
    }
    fn write(&self, mc: u64, data: &[u8]) -> bool {
        if mc.checked_sub(self.fb_base).is_some_and(|off| self.gpu.vram.write(off, data)) {
            return true;
        }
        let Some(p) = self.gart(mc, data.len()) else { return false };
        // SAFETY: as read.
        unsafe { std::ptr::copy(data.as_ptr(), p, data.len()) };
        true
    }
}

impl EmuPciGpu {
    pub(crate) fn reg_read(&self, addr: u32) -> u32 {
        let mut st = self.lock();
        self.read_locked(&mut st, addr)
    }

    pub(crate) fn reg_write(&self, addr: u32, v: u32) {
        let mut st = self.lock();
        self.write_locked(&mut st, addr, v);
        // Queue threads take the lock to report; stop them without it.
        let retired = std::mem::take(&mut st.retired);
        drop(st);
        for q in retired {
            q.running.stop();
        }
    }

    /// Rebuild the MMU's translation from context 0 of the GC hub.
    fn invalidate(&self, st: &mut State) {
        let b = &self.bases.gc;
        let r64 = |lo, hi| (st.regs.get(at(hi, b)) as u64) << 32 | st.regs.get(at(lo, b)) as u64;
        let base = r64(gc::regGCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32, gc::regGCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32);
        let start =
            r64(gc::regGCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32, gc::regGCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32);
        let end = r64(gc::regGCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32, gc::regGCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32);
        let ctx = super::gmc::Context0 { base, start: start << 12, end: (end << 12) | 0xfff };
        let layout = self.pt_generation().layout();
        st.gmc_mem = std::sync::Arc::new(super::gmc::translate(&ctx, &layout, &self.vram, &self.dma));
        self.epoch.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// The MC address of VRAM offset 0.
    pub(crate) fn fb_base(&self, st: &State) -> u64 {
        let base = st.regs.get(at(mmhub::regMMMC_VM_FB_LOCATION_BASE, &self.bases.mmhub));
        ((base & 0x00ff_ffff) as u64) << 24
    }

    pub(crate) fn mc(&self, st: &State) -> Mc<'_> {
        Mc { gpu: self, fb_base: self.fb_base(st), gart: st.gmc_mem.clone() }
    }

    fn read_locked(&self, st: &mut State, addr: u32) -> u32 {
        match st.regs.act_at(addr) {
            Some(Act::MemSize) => (self.layout.vram_size >> 20) as u32,
            Some(Act::HdpFlushDone { req }) => st.regs.get(req),
            Some(Act::MmData) => self.indirect(st, false, None),
            Some(Act::RsmuData) => self.indirect(st, true, None),
            Some(Act::InvalidateSem) => 1,
            Some(Act::Hqd { .. }) => {
                let sel = super::hqd::selected(st, &self.bases.gc);
                st.hqd_regs.get(&(sel, addr)).copied().unwrap_or(0)
            }
            _ => st.regs.get(addr),
        }
    }

    fn write_locked(&self, st: &mut State, addr: u32, v: u32) {
        match st.regs.act_at(addr) {
            Some(Act::MemSize) => {
                log::debug!("{}: write {v:#x} to the read-only RCC_CONFIG_MEMSIZE ignored", self.chip.arch)
            }
            Some(Act::MmData) => {
                self.indirect(st, false, Some(v));
            }
            Some(Act::RsmuData) => {
                self.indirect(st, true, Some(v));
            }
            Some(Act::Mailbox(Mailbox::Psp(n))) => {
                st.regs.set(addr, v);
                let mc = self.mc(st);
                let State { regs, psp, .. } = st;
                let booted = psp.rlc_autoloaded;
                psp.written(n, v, &mut PspMail(regs), &mc);
                if psp.rlc_autoloaded && !booted {
                    // The RLC loaded the graphics firmware: bootload complete, the CP idle.
                    let status = at(gc::regRLC_RLCS_BOOTLOAD_STATUS, &self.bases.gc);
                    let done = gc::RLC_RLCS_BOOTLOAD_STATUS::BOOTLOAD_COMPLETE.mask;
                    regs.set(status, regs.get(status) | done);
                    regs.set(at(gc::regCP_STAT, &self.bases.gc), 0);
                }
            }
            Some(Act::Mailbox(Mailbox::Smu(n))) => {
                st.regs.set(addr, v);
                let State { regs, smu, .. } = st;
                let snapshot: Vec<(u32, u32)> =
                    [super::smu::ARG, super::smu::RESP].iter().map(|&k| (k, regs.mailbox(Mailbox::Smu(k)))).collect();
                let get = |k: u32| snapshot.iter().find(|(n, _)| *n == k).map_or(0, |p| p.1);
                smu.written(n, v, &get, &mut |k, val| regs.set_mailbox(Mailbox::Smu(k), val));
            }
            Some(Act::InvalidateReq { ack, gc }) => {
                st.regs.set(addr, v);
                if gc {
                    self.invalidate(st);
                }
                // Every VMID the request names is acknowledged.
                st.regs.set(ack, v & 0xffff);
            }
            Some(Act::Hqd { .. }) if addr == at(gc::regCP_HQD_DEQUEUE_REQUEST, &self.bases.gc) && v != 0 => {
                // A dequeue request: the queue stops at once (nothing to drain or save: no
                // CWSR on AM), CP_HQD_ACTIVE reads 0 and the request is done.
                let sel = super::hqd::selected(st, &self.bases.gc);
                if let Some(q) = st.hqds.remove(&sel) {
                    st.retired.push(q);
                }
                st.hqd_regs.insert((sel, at(gc::regCP_HQD_ACTIVE, &self.bases.gc)), 0);
                st.hqd_regs.insert((sel, addr), 0);
            }
            Some(Act::Hqd { active }) => {
                let sel = super::hqd::selected(st, &self.bases.gc);
                st.hqd_regs.insert((sel, addr), v);
                if active {
                    if let Some(q) = st.hqds.remove(&sel) {
                        st.retired.push(q);
                    }
                    if v & 1 != 0 {
                        self.hqd_active(st, sel);
                    }
                }
            }
            Some(Act::IhCntl) => {
                st.regs.set(addr, v);
                self.ih_cntl_written(st, v);
            }
            Some(Act::SdmaRbCntl) => {
                st.regs.set(addr, v);
                self.sdma_rb_cntl(st, v);
            }
            _ => st.regs.set(addr, v),
        }
    }

    /// MM_DATA (`rsmu` false) or RSMU_DATA: MM_INDEX with bit 31 selects VRAM (MM_INDEX_HI the
    /// bits above 31), otherwise the index is a register's byte address; `Some(v)` writes.
    fn indirect(&self, st: &mut State, rsmu: bool, write: Option<u32>) -> u32 {
        let (index_reg, hi_reg) = if rsmu {
            (at(nbio::regBIF_BX_PF0_RSMU_INDEX, &self.bases.nbio), None)
        } else {
            let hi = at(nbio::regBIF_BX_PF0_MM_INDEX_HI, &self.bases.nbio);
            (at(nbio::regBIF_BX_PF0_MM_INDEX, &self.bases.nbio), Some(hi))
        };
        let index = st.regs.get(index_reg);
        if let (Some(hi), true) = (hi_reg, index & MM_INDEX_VRAM != 0) {
            let addr = (st.regs.get(hi) as u64) << 31 | (index & !MM_INDEX_VRAM) as u64;
            return match write {
                Some(v) => {
                    if !self.vram.write_u32(addr, v) {
                        log::debug!("{}: MM_DATA write at VRAM {addr:#x} is past VRAM: dropped", self.chip.arch);
                    }
                    v
                }
                None => self.vram.read_u32(addr).unwrap_or(u32::MAX),
            };
        }
        let reg = index / 4;
        if matches!(st.regs.act_at(reg), Some(Act::MmData) | Some(Act::RsmuData)) {
            return 0; // the window does not reach itself
        }
        match write {
            Some(v) => {
                self.write_locked(st, reg, v);
                v
            }
            None => self.read_locked(st, reg),
        }
    }
}

/// Register the acting registers of every block, and the power-on values that say something.
pub(crate) fn wire(st: &mut State, chip: &Chip, layout: &Layout, b: &Bases) {
    let r = &mut st.regs;
    r.act(at(nbio::regRCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE, &b.nbio), Act::MemSize);
    r.act(at(nbio::regBIF_BX_PF0_MM_INDEX, &b.nbio), Act::MmIndex);
    r.act(at(nbio::regBIF_BX_PF0_MM_INDEX_HI, &b.nbio), Act::MmIndexHi);
    r.act(at(nbio::regBIF_BX_PF0_MM_DATA, &b.nbio), Act::MmData);
    r.act(at(nbio::regBIF_BX_PF0_RSMU_INDEX, &b.nbio), Act::RsmuIndex);
    r.act(at(nbio::regBIF_BX_PF0_RSMU_DATA, &b.nbio), Act::RsmuData);
    for (done, req) in [
        (nbio::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE, nbio::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ),
        (nbio::regBIF_BX_PF1_GPU_HDP_FLUSH_DONE, nbio::regBIF_BX_PF1_GPU_HDP_FLUSH_REQ),
    ] {
        r.act(at(done, &b.nbio), Act::HdpFlushDone { req: at(req, &b.nbio) });
    }
    // Where the driver's HDP flush write goes (amdgpu remaps it into the MMIO page it maps
    // for user space): a plain register near the top of the BAR.
    let remap = (chip.mmio_bar - 0x1000) as u32;
    r.set(at(nbio::regBIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL, &b.nbio), remap);
    for reg in mp::REGS {
        let n = |prefix: &str| reg.name.strip_prefix(prefix).and_then(|n| n.parse::<u32>().ok());
        if let Some(n) = n("MP0_SMN_C2PMSG_") {
            r.act(at(*reg, &b.mp0), Act::Mailbox(Mailbox::Psp(n)));
        } else if let Some(n) = n("MP1_SMN_C2PMSG_") {
            r.act(at(*reg, &b.mp1), Act::Mailbox(Mailbox::Smu(n)));
        }
    }
    // The SMU firmware runs with interrupts enabled (what "SMU alive" reads).
    r.set(at(mp::regMP1_FIRMWARE_FLAGS, &b.mp1), mp::MP1_FIRMWARE_FLAGS::INTERRUPTS_ENABLED.mask);
    // VRAM at its MC location, in both hubs.
    let top = FB_LOCATION + (layout.vram_size >> 24) as u32 - 1;
    r.set(at(mmhub::regMMMC_VM_FB_LOCATION_BASE, &b.mmhub), FB_LOCATION);
    r.set(at(mmhub::regMMMC_VM_FB_LOCATION_TOP, &b.mmhub), top);
    r.set(at(gc::regGCMC_VM_FB_LOCATION_BASE, &b.gc), FB_LOCATION);
    r.set(at(gc::regGCMC_VM_FB_LOCATION_TOP, &b.gc), top);
    wire_vm(r, b);
    // The CP is busy until the RLC has loaded its firmware.
    r.set(at(gc::regCP_STAT, &b.gc), 0x8000_0000);
    let State { regs, psp, smu, .. } = st;
    psp.reset(&mut PspMail(regs));
    smu.reset(&mut |k, v| regs.set_mailbox(Mailbox::Smu(k), v));
}

/// The TLB invalidation engines of both hubs, the HQD bank and the IH ring control.
fn wire_vm(r: &mut RegFile, b: &Bases) {
    for reg in gc::REGS.iter().chain(mmhub::REGS) {
        let gc_hub = reg.name.starts_with("GCVM_");
        let bases = if gc_hub { &b.gc } else { &b.mmhub };
        let Some(rest) =
            reg.name.strip_prefix("GCVM_INVALIDATE_ENG").or_else(|| reg.name.strip_prefix("MMVM_INVALIDATE_ENG"))
        else {
            continue;
        };
        if let Some(n) = rest.strip_suffix("_REQ") {
            let ack_name = format!("{}VM_INVALIDATE_ENG{n}_ACK", if gc_hub { "GC" } else { "MM" });
            let table = if gc_hub { gc::REGS } else { mmhub::REGS };
            if let Some(ack) = table.iter().find(|a| a.name == ack_name) {
                r.act(at(*reg, bases), Act::InvalidateReq { ack: at(*ack, bases), gc: gc_hub });
            }
        } else if rest.ends_with("_SEM") {
            r.act(at(*reg, bases), Act::InvalidateSem);
        }
    }
    let (first, last) = (at(gc::regCP_MQD_BASE_ADDR, &b.gc), at(gc::regCP_HQD_PQ_WPTR_HI, &b.gc));
    let active = at(gc::regCP_HQD_ACTIVE, &b.gc);
    for a in first..=last {
        r.act(a, Act::Hqd { active: a == active });
    }
    r.act(at(baregpu_autogen::amd::regs::osssys_6_0_0::regIH_RB_CNTL, &b.osssys), Act::IhCntl);
    r.act(at(gc::regSDMA0_QUEUE0_RB_CNTL, &b.gc), Act::SdmaRbCntl);
}
