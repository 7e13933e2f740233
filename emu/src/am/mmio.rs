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

/// Memory as the PSP and IH reach it: MC addresses.
pub(crate) struct Mc<'a> {
    pub gpu: &'a EmuPciGpu,
    pub fb_base: u64,
}

impl Mc<'_> {
    /// The host address of `[mc, mc + len)`.
    pub fn host(&self, mc: u64, len: u64) -> Option<usize> {
        let off = mc.checked_sub(self.fb_base)?;
        self.gpu.vram.at(off, len)
    }
}

impl McBus for Mc<'_> {
    fn read(&self, mc: u64, buf: &mut [u8]) -> bool {
        mc.checked_sub(self.fb_base).is_some_and(|off| self.gpu.vram.read(off, buf))
    }
    fn write(&self, mc: u64, data: &[u8]) -> bool {
        mc.checked_sub(self.fb_base).is_some_and(|off| self.gpu.vram.write(off, data))
    }
}

impl EmuPciGpu {
    pub(crate) fn reg_read(&self, addr: u32) -> u32 {
        let mut st = self.lock();
        self.read_locked(&mut st, addr)
    }

    pub(crate) fn reg_write(&self, addr: u32, v: u32) {
        let mut st = self.lock();
        self.write_locked(&mut st, addr, v)
    }

    /// The MC address of VRAM offset 0.
    pub(crate) fn fb_base(&self, st: &State) -> u64 {
        let base = st.regs.get(at(mmhub::regMMMC_VM_FB_LOCATION_BASE, &self.bases.mmhub));
        ((base & 0x00ff_ffff) as u64) << 24
    }

    pub(crate) fn mc(&self, st: &State) -> Mc<'_> {
        Mc { gpu: self, fb_base: self.fb_base(st) }
    }

    fn read_locked(&self, st: &mut State, addr: u32) -> u32 {
        match st.regs.act_at(addr) {
            Some(Act::MemSize) => (self.layout.vram_size >> 20) as u32,
            Some(Act::HdpFlushDone { req }) => st.regs.get(req),
            Some(Act::MmData) => self.indirect(st, false, None),
            Some(Act::RsmuData) => self.indirect(st, true, None),
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
    // The CP is busy until the RLC has loaded its firmware.
    r.set(at(gc::regCP_STAT, &b.gc), 0x8000_0000);
    let State { regs, psp, smu } = st;
    psp.reset(&mut PspMail(regs));
    smu.reset(&mut |k, v| regs.set_mailbox(Mailbox::Smu(k), v));
}
