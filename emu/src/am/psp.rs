//! The emulated PSP: the bootloader that loads the sOS components (C2PMSG_35/36, sOS alive in
//! C2PMSG_81) and the sOS's kernel-mode ring (create/destroy through C2PMSG_64/69/70/71,
//! submissions through the write pointer C2PMSG_67): each frame's command is executed, its
//! response written into the command buffer and its fence value to the fence address.
//! A command the driver sends out of order or malformed gets a non-zero `resp.status` (and a
//! bad ring or bootloader command a non-zero low half of C2PMSG_64/35), never a panic.

use baregpu_drivers::amd::am::firmware::GfxFwType;
use baregpu_drivers::amd::am::psp_abi::*;

/// C2PMSG numbers the PSP acts on.
pub const BL_CMD: u32 = 35;
pub const BL_ADDR: u32 = 36;
pub const RING_CTL: u32 = 64;
pub const RING_WPTR: u32 = 67;
pub const RING_LO: u32 = 69;
pub const RING_HI: u32 = 70;
pub const RING_SIZE: u32 = 71;
pub const SOS_ALIVE: u32 = 81;

/// Response statuses of the emulated PSP (non-zero: the command failed).
pub mod status {
    /// An address the PSP cannot reach, or a size of zero.
    pub const BAD_BUFFER: u32 = 0xffff_0006;
    /// A command before what it needs (SETUP_TMR before LOAD_TOC, AUTOLOAD_RLC before RLC_G).
    pub const OUT_OF_ORDER: u32 = 0xffff_0007;
    /// A command id the emulated sOS does not know.
    pub const UNKNOWN_COMMAND: u32 = 0xffff_000a;
    /// A firmware payload that does not parse.
    pub const BAD_FIRMWARE: u32 = 0xffff_000f;
}

/// TMR bytes LOAD_TOC asks for (below tinygrad's 0x1300000 cap; 1 MiB aligned).
pub const TMR_SIZE: u32 = 0x100_0000;
/// The largest firmware payload the emulated PSP takes (a size past it is a bad buffer, not an
/// allocation of whatever the driver wrote).
pub const MAX_FIRMWARE_BYTES: u32 = 64 << 20;
/// The value C2PMSG_81 holds once the sOS runs (its "version").
pub const SOS_VERSION: u32 = 0x0030_0e00;

/// The PSP's view of memory: MC addresses (VRAM at the FB location, else through GART).
pub trait McBus {
    fn read(&self, mc: u64, buf: &mut [u8]) -> bool;
    fn write(&self, mc: u64, data: &[u8]) -> bool;
}

/// What the PSP asks the rest of the GPU to do.
pub trait PspRegs {
    fn get(&self, n: u32) -> u32;
    fn set(&mut self, n: u32, v: u32);
}

#[derive(Debug, Default)]
pub struct Psp {
    /// Bootloader components loaded, in order.
    pub components: Vec<u32>,
    pub sos_alive: bool,
    /// The KM ring: MC address, bytes, and the PSP's read pointer in dwords.
    ring: Option<(u64, u32, u32)>,
    pub toc_loaded: bool,
    pub tmr: Option<(u64, u32)>,
    /// fw_type of every LOAD_IP_FW that succeeded, in order.
    pub firmware: Vec<u32>,
    /// AUTOLOAD_RLC succeeded: the RLC booted the graphics firmware.
    pub rlc_autoloaded: bool,
    /// The chip's GC firmware comes up by AUTOLOAD_RLC (gfx11); without it (gfx9: PSP 13.0.6)
    /// the PSP takes each block's firmware and finally the RLC's register list (REG_LIST),
    /// which needs the RLC and MEC firmware before it, and refuses AUTOLOAD_RLC.
    pub rlc_autoload: bool,
    /// The compute partitions SRIOV_SPATIAL_PART asked for.
    pub partitions: Option<u32>,
    /// Every response status, in order (tests and diagnostics).
    pub statuses: Vec<(u32, u32)>,
}

impl Psp {
    /// Whether the MEC has firmware: its image (CP_MEC on gfx9, RS64_MEC on gfx11) loaded by
    /// LOAD_IP_FW and, where the RLC boots the graphics firmware, the RLC autoload done.
    pub fn mec_has_firmware(&self) -> bool {
        let mec = [GfxFwType::CP_MEC.0, GfxFwType::RS64_MEC.0];
        self.firmware.iter().any(|t| mec.contains(t)) && (!self.rlc_autoload || self.rlc_autoloaded)
    }

    /// Power-on: the bootloader is ready, no sOS, no ring; `rlc_autoload` as the chip has it.
    pub fn reset(&mut self, r: &mut dyn PspRegs, rlc_autoload: bool) {
        *self = Psp { rlc_autoload, ..Psp::default() };
        r.set(BL_CMD, PSP_READY);
        r.set(SOS_ALIVE, 0);
        r.set(RING_CTL, 0);
    }

    /// A write of C2PMSG_`n` (already stored).
    pub fn written(&mut self, n: u32, v: u32, r: &mut dyn PspRegs, bus: &dyn McBus) {
        match n {
            BL_CMD => self.bootloader(v, r, bus),
            RING_CTL => self.ring_ctl(v, r, bus),
            RING_WPTR => self.submit(v, r, bus),
            _ => {}
        }
    }

    fn bootloader(&mut self, cmd: u32, r: &mut dyn PspRegs, bus: &dyn McBus) {
        let known = [
            PSP_BL_LOAD_SYSDRV,
            PSP_BL_LOAD_SOSDRV,
            PSP_BL_LOAD_KEY_DATABASE,
            PSP_BL_LOAD_SOCDRV,
            PSP_BL_LOAD_DBGDRV,
            PSP_BL_LOAD_INTFDRV,
            PSP_BL_LOAD_RASDRV,
            PSP_BL_LOAD_IPKEYMGRDRV,
            PSP_BL_LOAD_TOS_SPL_TABLE,
        ];
        let msg1 = (r.get(BL_ADDR) as u64) << 20;
        let mut probe = [0u8; 16];
        let status = if self.sos_alive {
            log::debug!("emulated PSP: bootloader command {cmd:#x} after the sOS started");
            1
        } else if !known.contains(&cmd) {
            log::debug!("emulated PSP: unknown bootloader command {cmd:#x}");
            2
        } else if !bus.read(msg1, &mut probe) {
            log::debug!("emulated PSP: bootloader buffer {msg1:#x} (C2PMSG_36 << 20) is not reachable");
            3
        } else if cmd == PSP_BL_LOAD_SOSDRV && !self.components.contains(&PSP_BL_LOAD_SYSDRV) {
            log::debug!("emulated PSP: sOS loaded before the system driver");
            4
        } else {
            self.components.push(cmd);
            if cmd == PSP_BL_LOAD_SOSDRV {
                self.sos_alive = true;
                r.set(SOS_ALIVE, SOS_VERSION);
                r.set(RING_CTL, PSP_READY);
            }
            0
        };
        r.set(BL_CMD, PSP_READY | status);
    }

    fn ring_ctl(&mut self, v: u32, r: &mut dyn PspRegs, bus: &dyn McBus) {
        let status = if !self.sos_alive {
            1
        } else if v == GFX_CTRL_CMD_ID_DESTROY_RINGS {
            self.ring = None;
            for n in [RING_LO, RING_HI, RING_SIZE] {
                r.set(n, 0);
            }
            0
        } else if v == PSP_RING_TYPE_KM << 16 {
            let mc = (r.get(RING_HI) as u64) << 32 | r.get(RING_LO) as u64;
            let size = r.get(RING_SIZE);
            let mut probe = [0u8; 64];
            if self.ring.is_some() {
                log::debug!("emulated PSP: KM ring created twice without a destroy");
                2
            } else if size == 0 || !size.is_multiple_of(64) || !bus.read(mc, &mut probe) {
                log::debug!("emulated PSP: KM ring of {size:#x} bytes at {mc:#x} is not usable");
                3
            } else {
                self.ring = Some((mc, size, 0));
                0
            }
        } else {
            4
        };
        r.set(RING_CTL, PSP_READY | status);
    }

    fn submit(&mut self, wptr: u32, r: &mut dyn PspRegs, bus: &dyn McBus) {
        let Some((mc, size, mut rptr)) = self.ring else {
            log::debug!("emulated PSP: write pointer {wptr:#x} without a KM ring");
            return;
        };
        let ring_dw = size / 4;
        let frame_dw = (std::mem::size_of::<PspGfxRbFrame>() / 4) as u32;
        if wptr >= ring_dw || !wptr.is_multiple_of(frame_dw) {
            log::debug!("emulated PSP: write pointer {wptr:#x} is not a frame boundary of the {ring_dw:#x}-dword ring");
            return;
        }
        while rptr != wptr {
            let mut b = [0u8; 64];
            if !bus.read(mc + rptr as u64 * 4, &mut b) {
                break;
            }
            if let Some(f) = PspGfxRbFrame::from_bytes(&b) {
                self.frame(&f, bus);
            }
            rptr = (rptr + frame_dw) % ring_dw;
        }
        let _ = r;
        self.ring = Some((mc, size, rptr));
    }

    fn frame(&mut self, f: &PspGfxRbFrame, bus: &dyn McBus) {
        let cmd_mc = (f.cmd_buf_addr_hi as u64) << 32 | f.cmd_buf_addr_lo as u64;
        let fence = (f.fence_addr_hi as u64) << 32 | f.fence_addr_lo as u64;
        let mut b = vec![0u8; std::mem::size_of::<PspGfxCmdResp>()];
        if bus.read(cmd_mc, &mut b) {
            if let Some(mut c) = PspGfxCmdResp::from_bytes(&b) {
                let (status, tmr_size) = self.command(&c, bus);
                self.statuses.push((c.cmd_id, status));
                c.resp.status = status;
                c.resp.tmr_size = tmr_size;
                // Only the response part is the PSP's to write.
                let resp = c.to_bytes();
                let at = std::mem::offset_of!(PspGfxCmdResp, resp);
                bus.write(cmd_mc + at as u64, &resp[at..at + std::mem::size_of::<PspGfxResp>()]);
            }
        } else {
            log::debug!("emulated PSP: command buffer {cmd_mc:#x} is not reachable");
        }
        if !bus.write(fence, &f.fence_value.to_le_bytes()) {
            log::debug!("emulated PSP: fence {fence:#x} is not reachable");
        }
    }

    /// Execute one command: (status, tmr_size).
    fn command(&mut self, c: &PspGfxCmdResp, bus: &dyn McBus) -> (u32, u32) {
        let buf = c.cmd;
        let reachable = |len: u32| {
            let mut probe = vec![0u8; len.min(4096) as usize];
            len != 0 && bus.read(buf.addr(), &mut probe)
        };
        match c.cmd_id {
            GFX_CMD_ID_LOAD_TOC => {
                if !reachable(buf.size) {
                    return (status::BAD_BUFFER, 0);
                }
                self.toc_loaded = true;
                (0, TMR_SIZE)
            }
            GFX_CMD_ID_SETUP_TMR => {
                if !self.toc_loaded {
                    (status::OUT_OF_ORDER, 0)
                } else if buf.size < TMR_SIZE || !reachable(buf.size) {
                    (status::BAD_BUFFER, 0)
                } else {
                    self.tmr = Some((buf.addr(), buf.size));
                    (0, 0)
                }
            }
            GFX_CMD_ID_LOAD_IP_FW => {
                if buf.size > MAX_FIRMWARE_BYTES || !reachable(buf.size) {
                    return (status::BAD_BUFFER, 0);
                }
                let mut blob = vec![0u8; buf.size as usize];
                if !bus.read(buf.addr(), &mut blob) {
                    return (status::BAD_BUFFER, 0);
                }
                if !super::firmware_check::payload_ok(buf.kind, &blob) {
                    return (status::BAD_FIRMWARE, 0);
                }
                let needs = [GfxFwType::RLC_G.0, GfxFwType::CP_MEC.0];
                if buf.kind == GfxFwType::REG_LIST.0 && !needs.iter().all(|t| self.firmware.contains(t)) {
                    return (status::OUT_OF_ORDER, 0);
                }
                self.firmware.push(buf.kind);
                (0, 0)
            }
            GFX_CMD_ID_AUTOLOAD_RLC if !self.rlc_autoload => (status::UNKNOWN_COMMAND, 0),
            GFX_CMD_ID_AUTOLOAD_RLC => {
                if self.tmr.is_none() || !self.firmware.contains(&GfxFwType::RLC_G.0) {
                    return (status::OUT_OF_ORDER, 0);
                }
                self.rlc_autoloaded = true;
                (0, 0)
            }
            GFX_CMD_ID_SRIOV_SPATIAL_PART => {
                // One to eight partitions of the XCCs (SPX … CPX on an 8-XCC part).
                if !(1..=8).contains(&buf.addr_lo) {
                    return (status::BAD_BUFFER, 0);
                }
                self.partitions = Some(buf.addr_lo);
                (0, 0)
            }
            GFX_CMD_ID_BOOT_CFG | GFX_CMD_ID_DESTROY_TMR => (0, 0),
            _ => (status::UNKNOWN_COMMAND, 0),
        }
    }
}
