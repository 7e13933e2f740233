//! BAR5: register reads and writes dispatched to the blocks that act on them (by absolute
//! dword address, from the drivers' tables of the chip at its IP bases: [`RegMap`]); every
//! other register reads back what was written.

use super::chip::Chip;
use super::device::{EmuPciGpu, State};
use super::layout::Layout;
use super::psp::{McBus, PspRegs};
use super::regmap::RegMap;
use super::regs::{Act, Mailbox, RegFile};
use baregpu_drivers::amd::am::mmio::Ip;

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
        let v = self.read_locked(&mut st, addr);
        // A read of CP_HQD_ACTIVE may complete a drain: stop that queue without the lock.
        let retired = std::mem::take(&mut st.retired);
        drop(st);
        for q in retired {
            q.running.stop();
        }
        v
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

    /// Rebuild the MMU's translation from context 0 of XCC `xcc`'s GC hub (the driver gives
    /// every XCC the same table).
    fn invalidate(&self, st: &mut State, xcc: u8) {
        let m = &self.map;
        let r64 =
            |lo: &str, hi: &str| (st.regs.get(m.gc_vm(xcc, hi)) as u64) << 32 | st.regs.get(m.gc_vm(xcc, lo)) as u64;
        let base = r64("CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32", "CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32");
        let start = r64("CONTEXT0_PAGE_TABLE_START_ADDR_LO32", "CONTEXT0_PAGE_TABLE_START_ADDR_HI32");
        let end = r64("CONTEXT0_PAGE_TABLE_END_ADDR_LO32", "CONTEXT0_PAGE_TABLE_END_ADDR_HI32");
        let ctx = super::gmc::Context0 { base, start: start << 12, end: (end << 12) | 0xfff };
        let layout = self.pt_generation().layout();
        st.gmc_mem = std::sync::Arc::new(super::gmc::translate(&ctx, &layout, &self.vram, &self.dma));
        self.epoch.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// The MC address of VRAM offset 0 (the first MM hub's FB location, 16 MiB units).
    pub(crate) fn fb_base(&self, st: &State) -> u64 {
        let name = format!("{}FB_LOCATION_BASE", self.map.chip.mm_hub.mc);
        let base = st.regs.get(self.map.at(Ip::Mmhub, 0, &name));
        ((base & 0x00ff_ffff) as u64) << 24
    }

    pub(crate) fn mc(&self, st: &State) -> Mc<'_> {
        Mc { gpu: self, fb_base: self.fb_base(st), gart: st.gmc_mem.clone() }
    }

    /// The HDP flush pair as a command processor reaches it (WAIT_REG_MEM, COPY_DATA): the
    /// same registers BAR5 answers; `None` for any other address.
    pub(crate) fn hdp_register(&self, addr: u32, write: Option<u32>) -> Option<u32> {
        let mut st = self.lock();
        if !matches!(st.regs.act_at(addr), Some(Act::HdpFlushReq | Act::HdpFlushDone { .. })) {
            return None;
        }
        if let Some(v) = write {
            self.write_locked(&mut st, addr, v);
        }
        Some(self.read_locked(&mut st, addr))
    }

    fn read_locked(&self, st: &mut State, addr: u32) -> u32 {
        match st.regs.act_at(addr) {
            Some(Act::MemSize) => (self.layout.vram_size >> 20) as u32,
            Some(Act::HdpFlushDone { req }) => st.regs.get(req),
            Some(Act::MmData) => self.indirect(st, false, None),
            Some(Act::RsmuData) => self.indirect(st, true, None),
            Some(Act::InvalidateSem) => 1,
            Some(Act::Hqd { xcc, active }) => {
                let sel = self.hqd_selected(st, xcc);
                if active {
                    self.drain_done(st, xcc, sel);
                }
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
                    // The RLC loaded the graphics firmware: bootload complete, the CPs idle.
                    let done = self.map.field(Ip::Gc, "RLC_RLCS_BOOTLOAD_STATUS", "BOOTLOAD_COMPLETE").mask;
                    for xcc in 0..self.map.instances(Ip::Gc) {
                        let status = self.map.at(Ip::Gc, xcc, "RLC_RLCS_BOOTLOAD_STATUS");
                        regs.set(status, regs.get(status) | done);
                        regs.set(self.map.at(Ip::Gc, xcc, "CP_STAT"), 0);
                    }
                }
            }
            Some(Act::Mailbox(Mailbox::Smu(n))) => {
                st.regs.set(addr, v);
                let State { regs, smu, .. } = st;
                let keys = [super::smu::ARG, super::smu::RESP, super::smu::DEBUG_ARG, super::smu::DEBUG_RESP];
                let snapshot: Vec<(u32, u32)> = keys.iter().map(|&k| (k, regs.mailbox(Mailbox::Smu(k)))).collect();
                let get = |k: u32| snapshot.iter().find(|(n, _)| *n == k).map_or(0, |p| p.1);
                if smu.written(n, v, &get, &mut |k, val| regs.set_mailbox(Mailbox::Smu(k), val)) {
                    self.mode1_reset(st);
                }
            }
            Some(Act::InvalidateReq { ack, gc }) => {
                st.regs.set(addr, v);
                if let Some(xcc) = gc {
                    self.invalidate(st, xcc);
                }
                // Every VMID the request names is acknowledged.
                st.regs.set(ack, v & 0xffff);
            }
            Some(Act::Hqd { xcc, .. }) if addr == self.map.at(Ip::Gc, xcc, "CP_HQD_DEQUEUE_REQUEST") && v != 0 => {
                self.dequeue_request(st, xcc, v);
            }
            Some(Act::GrbmSoftReset { xcc }) => {
                st.regs.set(addr, v);
                self.grbm_soft_reset(st, xcc, v);
            }
            Some(Act::Hqd { xcc, active }) => {
                let sel = self.hqd_selected(st, xcc);
                st.hqd_regs.insert((sel, addr), v);
                if active {
                    if let Some(q) = st.hqds.remove(&sel) {
                        st.retired.push(q);
                    }
                    if v & 1 != 0 {
                        self.hqd_active(st, xcc, sel);
                    }
                }
            }
            Some(Act::IhCntl) => {
                st.regs.set(addr, v);
                self.ih_cntl_written(st, v);
            }
            Some(Act::HdpFlushReq) => {
                st.regs.set(addr, v);
                self.hdp_flushes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
        let nbio = |name: &str| self.map.at(Ip::Nbio, 0, name);
        let (index_reg, hi_reg) = if rsmu {
            (nbio("BIF_BX_PF0_RSMU_INDEX"), None)
        } else {
            (nbio("BIF_BX_PF0_MM_INDEX"), Some(nbio("BIF_BX_PF0_MM_INDEX_HI")))
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
pub(crate) fn wire(st: &mut State, chip: &Chip, layout: &Layout, m: &RegMap) {
    let r = &mut st.regs;
    let nbio = |name: &str| m.at(Ip::Nbio, 0, name);
    r.act(nbio("RCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE"), Act::MemSize);
    r.act(nbio("BIF_BX_PF0_MM_INDEX"), Act::MmIndex);
    r.act(nbio("BIF_BX_PF0_MM_INDEX_HI"), Act::MmIndexHi);
    r.act(nbio("BIF_BX_PF0_MM_DATA"), Act::MmData);
    r.act(nbio("BIF_BX_PF0_RSMU_INDEX"), Act::RsmuIndex);
    r.act(nbio("BIF_BX_PF0_RSMU_DATA"), Act::RsmuData);
    for pf in ["PF0", "PF1"] {
        let req = nbio(&format!("BIF_BX_{pf}_GPU_HDP_FLUSH_REQ"));
        r.act(req, Act::HdpFlushReq);
        r.act(nbio(&format!("BIF_BX_{pf}_GPU_HDP_FLUSH_DONE")), Act::HdpFlushDone { req });
    }
    // Where the driver's HDP flush write goes (amdgpu remaps it into the MMIO page it maps
    // for user space): a plain register near the top of the BAR.
    let remap = (chip.mmio_bar - 0x1000) as u32;
    r.set(nbio("BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL"), remap);
    for (ip, prefix, mail) in
        [(Ip::Mp0, "MP0_SMN_C2PMSG_", Mailbox::Psp as fn(u32) -> Mailbox), (Ip::Mp1, "MP1_SMN_C2PMSG_", Mailbox::Smu)]
    {
        for (reg, addr) in m.regs(ip, 0) {
            if let Some(n) = reg.name.strip_prefix(prefix).and_then(|n| n.parse::<u32>().ok()) {
                r.act(addr, Act::Mailbox(mail(n)));
            }
        }
    }
    // The SMU firmware runs with interrupts enabled (what "SMU alive" reads).
    let flags = m.field(Ip::Mp1, "MP1_FIRMWARE_FLAGS", "INTERRUPTS_ENABLED").mask;
    r.set(m.at(Ip::Mp1, 0, "MP1_FIRMWARE_FLAGS"), flags);
    // VRAM at its MC location, in every hub.
    let top = FB_LOCATION + (layout.vram_size >> 24) as u32 - 1;
    for (ip, prefix) in [(Ip::Mmhub, m.chip.mm_hub.mc), (Ip::Gc, m.chip.gc_hub.mc)] {
        for inst in 0..m.instances(ip) {
            r.set(m.at(ip, inst, &format!("{prefix}FB_LOCATION_BASE")), FB_LOCATION);
            r.set(m.at(ip, inst, &format!("{prefix}FB_LOCATION_TOP")), top);
        }
    }
    wire_vm(r, m);
    // Every XCC's MEC is halted until the driver starts it.
    let (mec, halts) = m.chip.mec_halt;
    let halted = halts.iter().fold(0, |acc, f| acc | m.field(Ip::Gc, mec, f).mask);
    for xcc in 0..m.instances(Ip::Gc) {
        r.set(m.at(Ip::Gc, xcc, mec), halted);
    }
    // The CPs are busy until the RLC has loaded their firmware (where it does: gfx11).
    if m.chip.rlc_autoload {
        for xcc in 0..m.instances(Ip::Gc) {
            r.set(m.at(Ip::Gc, xcc, "CP_STAT"), 0x8000_0000);
        }
    }
    let State { regs, psp, smu, .. } = st;
    let mp1 = layout.version(baregpu_drivers::amd::am::discovery::hw_id::MP1);
    smu.mode1 = mp1.map(|v| super::smu::Mode1Reset::for_mp1(v.major, v.minor, v.revision));
    psp.reset(&mut PspMail(regs), m.chip.rlc_autoload);
    smu.reset(&mut |k, v| regs.set_mailbox(Mailbox::Smu(k), v));
}

/// The TLB invalidation engines of every hub, the HQD banks of every XCC, the IH ring control
/// and the first SDMA ring's control.
fn wire_vm(r: &mut RegFile, m: &RegMap) {
    for (ip, vm) in [(Ip::Gc, m.chip.gc_hub.vm), (Ip::Mmhub, m.chip.mm_hub.vm)] {
        for inst in 0..m.instances(ip) {
            let gc = (ip == Ip::Gc).then_some(inst);
            for e in 0..18 {
                let ack = m.at(ip, inst, &format!("{vm}INVALIDATE_ENG{e}_ACK"));
                r.act(m.at(ip, inst, &format!("{vm}INVALIDATE_ENG{e}_REQ")), Act::InvalidateReq { ack, gc });
                r.act(m.at(ip, inst, &format!("{vm}INVALIDATE_ENG{e}_SEM")), Act::InvalidateSem);
            }
        }
    }
    for xcc in 0..m.instances(Ip::Gc) {
        let (first, last) = (m.at(Ip::Gc, xcc, "CP_MQD_BASE_ADDR"), m.at(Ip::Gc, xcc, "CP_HQD_PQ_WPTR_HI"));
        let active = m.at(Ip::Gc, xcc, "CP_HQD_ACTIVE");
        for a in first..=last {
            r.act(a, Act::Hqd { xcc, active: a == active });
        }
        r.act(m.at(Ip::Gc, xcc, "GRBM_SOFT_RESET"), Act::GrbmSoftReset { xcc });
    }
    r.act(m.at(Ip::Osssys, 0, "IH_RB_CNTL"), Act::IhCntl);
    r.act(m.sdma_queue("RB_CNTL"), Act::SdmaRbCntl);
    // A register a table lacks resolved to nowhere: nothing acts there.
    r.forget(super::regmap::NOWHERE);
}
