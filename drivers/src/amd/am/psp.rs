//! The PSP (MP0): the bootloader that loads the secure OS components, and the KM ring the
//! driver submits commands to (LOAD_TOC, SETUP_TMR, LOAD_IP_FW, AUTOLOAD_RLC). Sequence from
//! linux-6.12 `psp_v13_0.c` (`bootloader_load_component`, `ring_create`, `ring_destroy`) and
//! `amdgpu_psp.c` (`psp_cmd_submit_buf`, `psp_ring_cmd_submit`, `psp_hw_start`); structures
//! and ids from [`super::psp_abi`].
//!
//! Registers (MP0 `C2PMSG_n`): 35 bootloader command / ready bit 31, 36 the staging buffer's MC
//! address >> 20, 81 sOS alive (non-zero); 64 ring control / ready bit 31, 67 ring write
//! pointer (dwords), 69/70 ring MC address, 71 ring size.

use super::mmio::{Ip, Mmio, RegAt};
use super::psp_abi::*;
use super::vram::VramIo;
use crate::{Error, Result};
use std::time::{Duration, Instant};

/// How long one PSP step may take (the kernel waits up to seconds for the bootloader).
pub const PSP_TIMEOUT: Duration = Duration::from_secs(5);
/// Bytes of the KM ring (`PSP_RING_SIZE`… the kernel uses 0x1000; 64 KiB here, as tinygrad).
pub const RING_BYTES: u64 = 64 << 10;
/// Bytes of the bootloader's staging buffer (`PSP_1_MEG`), 1 MiB aligned.
pub const MSG1_BYTES: u64 = 1 << 20;
const FRAME_DWORDS: u32 = (std::mem::size_of::<PspGfxRbFrame>() / 4) as u32;

/// The VRAM the PSP needs (offsets in VRAM; allocated by the caller from the boot region).
#[derive(Debug, Clone, Copy)]
pub struct PspBuffers {
    /// Bootloader staging buffer and TOC buffer: [`MSG1_BYTES`], 1 MiB aligned.
    pub msg1: u64,
    /// The 1 KiB command buffer (a page).
    pub cmd: u64,
    /// The fence the PSP writes (a page).
    pub fence: u64,
    /// The KM ring, [`RING_BYTES`].
    pub ring: u64,
}

/// An sOS component for the bootloader: its `PSP_BL_*` command and its bytes.
#[derive(Debug, Clone)]
pub struct BlComponent {
    pub name: String,
    pub bl_cmd: u32,
    pub data: Vec<u8>,
}

pub struct Psp<'a> {
    mmio: &'a Mmio,
    vram: VramIo<'a>,
    buf: PspBuffers,
    /// Ring write pointer in dwords.
    wptr: u32,
    fence_value: u32,
}

fn c2p(mmio: &Mmio, n: u32) -> Result<RegAt> {
    mmio.reg(Ip::Mp0, 0, &format!("MP0_SMN_C2PMSG_{n}"))
}

impl<'a> Psp<'a> {
    pub fn new(mmio: &'a Mmio, vram: VramIo<'a>, buf: PspBuffers) -> Psp<'a> {
        Psp { mmio, vram, buf, wptr: 0, fence_value: 0 }
    }

    /// Whether the secure OS is already running (a previous boot, or the VBIOS).
    pub fn sos_alive(&self) -> Result<bool> {
        Ok(self.mmio.read(c2p(self.mmio, 81)?)? != 0)
    }

    /// Loads the sOS components through the bootloader, in the order given (the caller passes
    /// them as `psp_hw_start` orders them: KDB, SPL, SYS_DRV, SOC_DRV, INTF_DRV, DBG_DRV,
    /// RAS_DRV, SOS), then waits for the sOS to come alive.
    pub fn bootload(&self, components: &[BlComponent]) -> Result<()> {
        let (c35, c36) = (c2p(self.mmio, 35)?, c2p(self.mmio, 36)?);
        for c in components {
            if c.data.len() as u64 > MSG1_BYTES {
                return Err(Error::Protocol(format!(
                    "PSP {}: {} bytes do not fit the 1 MiB bootloader buffer",
                    c.name,
                    c.data.len()
                )));
            }
            self.mmio.trace_note(&format!("PSP bootloader: {} ({} bytes)", c.name, c.data.len()));
            self.mmio.poll(c35, PSP_READY, PSP_READY, PSP_TIMEOUT, "the PSP bootloader to be ready")?;
            let mut padded = c.data.clone();
            padded.resize(c.data.len().div_ceil(16) * 16, 0);
            self.vram.write(self.buf.msg1, &padded)?;
            super::gmc::hdp_flush(self.mmio)?;
            self.mmio.write(c36, (self.vram.mc(self.buf.msg1) >> 20) as u32)?;
            self.mmio.write(c35, c.bl_cmd)?;
            if c.bl_cmd != PSP_BL_LOAD_SOSDRV {
                self.mmio.poll(c35, PSP_READY, PSP_READY, PSP_TIMEOUT, &format!("the PSP to load {}", c.name))?;
            }
        }
        let c81 = c2p(self.mmio, 81)?;
        let start = Instant::now();
        while self.mmio.read(c81)? == 0 {
            if start.elapsed() > PSP_TIMEOUT {
                return Err(Error::Protocol(format!(
                    "{}: timed out waiting for the PSP secure OS to start: regMP0_SMN_C2PMSG_81 stays 0 \
                     (bootloader status regMP0_SMN_C2PMSG_35 = {:#x})",
                    self.mmio.pci().name(),
                    self.mmio.read(c35)?
                )));
            }
            std::thread::sleep(Duration::from_micros(100));
        }
        Ok(())
    }

    /// Creates the KM ring, destroying a ring a previous session left first.
    pub fn ring_create(&mut self) -> Result<()> {
        let (c64, c71) = (c2p(self.mmio, 64)?, c2p(self.mmio, 71)?);
        if self.mmio.read(c71)? != 0 {
            self.mmio.trace_note("PSP: destroy the previous KM ring");
            self.mmio.write(c64, GFX_CTRL_CMD_ID_DESTROY_RINGS)?;
            self.mmio.poll(c64, PSP_READY, PSP_READY, PSP_TIMEOUT, "the PSP to destroy the KM ring")?;
        }
        self.mmio.poll(c64, PSP_READY, PSP_READY, PSP_TIMEOUT, "the PSP sOS to be ready for ring creation")?;
        self.vram.zero(self.buf.ring, RING_BYTES)?;
        let mc = self.vram.mc(self.buf.ring);
        self.mmio.write(c2p(self.mmio, 69)?, mc as u32)?;
        self.mmio.write(c2p(self.mmio, 70)?, (mc >> 32) as u32)?;
        self.mmio.write(c71, RING_BYTES as u32)?;
        self.mmio.write(c64, PSP_RING_TYPE_KM << 16)?;
        self.mmio.poll(c64, 0x8000_ffff, PSP_READY, PSP_TIMEOUT, "the PSP to create the KM ring")?;
        self.wptr = self.mmio.read(c2p(self.mmio, 67)?)?;
        Ok(())
    }

    /// Submits one command and waits for its fence; a non-zero response status is an error.
    pub fn submit(&mut self, what: &str, cmd_id: u32, cmd: PspGfxCmdBuf) -> Result<PspGfxResp> {
        self.mmio.trace_note(&format!("PSP command {what} ({cmd_id:#x})"));
        let c = PspGfxCmdResp {
            buf_size: std::mem::size_of::<PspGfxCmdResp>() as u32,
            buf_version: PSP_GFX_CMD_BUF_VERSION,
            cmd_id,
            cmd,
            ..Default::default()
        };
        self.vram.write(self.buf.cmd, &c.to_bytes())?;
        self.fence_value = self.fence_value.wrapping_add(1);
        self.vram.write(self.buf.fence, &[0; 4])?;
        let (cmd_mc, fence_mc) = (self.vram.mc(self.buf.cmd), self.vram.mc(self.buf.fence));
        let frame = PspGfxRbFrame {
            cmd_buf_addr_lo: cmd_mc as u32,
            cmd_buf_addr_hi: (cmd_mc >> 32) as u32,
            cmd_buf_size: std::mem::size_of::<PspGfxCmdResp>() as u32,
            fence_addr_lo: fence_mc as u32,
            fence_addr_hi: (fence_mc >> 32) as u32,
            fence_value: self.fence_value,
            ..Default::default()
        };
        let ring_dwords = (RING_BYTES / 4) as u32;
        let slot = self.wptr % ring_dwords;
        self.vram.write(self.buf.ring + u64::from(slot) * 4, &frame.to_bytes())?;
        super::gmc::hdp_flush(self.mmio)?;
        self.wptr = (slot + FRAME_DWORDS) % ring_dwords;
        self.mmio.write(c2p(self.mmio, 67)?, self.wptr)?;
        let start = Instant::now();
        while self.vram.read32(self.buf.fence)? != self.fence_value {
            if start.elapsed() > PSP_TIMEOUT {
                return Err(Error::Protocol(format!(
                    "{}: PSP command {what} ({cmd_id:#x}) did not complete: fence stays {:#x}, expected {:#x}",
                    self.mmio.pci().name(),
                    self.vram.read32(self.buf.fence)?,
                    self.fence_value
                )));
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        let mut back = vec![0u8; std::mem::size_of::<PspGfxCmdResp>()];
        self.vram.read(self.buf.cmd, &mut back)?;
        let resp = PspGfxCmdResp::from_bytes(&back).map(|c| c.resp).unwrap_or_default();
        if resp.status != 0 {
            return Err(Error::Protocol(format!(
                "{}: PSP command {what} ({cmd_id:#x}) failed with status {:#x}",
                self.mmio.pci().name(),
                resp.status
            )));
        }
        Ok(resp)
    }

    /// LOAD_TOC: the TOC from the staging buffer; returns the TMR size the PSP asks for.
    pub fn load_toc(&mut self, toc: &[u8]) -> Result<u32> {
        self.stage(toc, "TOC")?;
        let mc = self.vram.mc(self.buf.msg1);
        let cmd = PspGfxCmdBuf {
            addr_lo: mc as u32,
            addr_hi: (mc >> 32) as u32,
            size: toc.len() as u32,
            ..Default::default()
        };
        Ok(self.submit("LOAD_TOC", GFX_CMD_ID_LOAD_TOC, cmd)?.tmr_size)
    }

    /// SETUP_TMR: the trusted memory region at VRAM offset `tmr` of `size` bytes.
    pub fn setup_tmr(&mut self, tmr: u64, size: u32) -> Result<()> {
        let mc = self.vram.mc(tmr);
        let cmd = PspGfxCmdBuf {
            addr_lo: mc as u32,
            addr_hi: (mc >> 32) as u32,
            size,
            // bitfield.virt_phy_addr: both the MC and the physical address are given.
            kind: 2,
            system_phy_addr_lo: tmr as u32,
            system_phy_addr_hi: (tmr >> 32) as u32,
        };
        self.submit("SETUP_TMR", GFX_CMD_ID_SETUP_TMR, cmd).map(drop)
    }

    /// LOAD_IP_FW of one blob of `fw_type`, staged in the 1 MiB buffer.
    pub fn load_ip_fw(&mut self, name: &str, fw_type: u32, data: &[u8]) -> Result<()> {
        self.stage(data, name)?;
        let mc = self.vram.mc(self.buf.msg1);
        let cmd = PspGfxCmdBuf {
            addr_lo: mc as u32,
            addr_hi: (mc >> 32) as u32,
            size: data.len() as u32,
            kind: fw_type,
            ..Default::default()
        };
        self.submit(&format!("LOAD_IP_FW {name}"), GFX_CMD_ID_LOAD_IP_FW, cmd).map(drop)
    }

    /// AUTOLOAD_RLC: the RLC starts and loads the rest of GC's firmware (GC ≥ 11).
    pub fn autoload_rlc(&mut self) -> Result<()> {
        self.submit("AUTOLOAD_RLC", GFX_CMD_ID_AUTOLOAD_RLC, PspGfxCmdBuf::default()).map(drop)
    }

    /// SRIOV_SPATIAL_PART: the XCCs as `partitions` compute partitions (1: all XCCs one
    /// device, what a multi-XCC chip runs as under AM). The command's first dword is the count
    /// (`psp_gfx_cmd_spatial_part.mode`).
    pub fn spatial_partition(&mut self, partitions: u32) -> Result<()> {
        let cmd = PspGfxCmdBuf { addr_lo: partitions, ..Default::default() };
        self.submit("SRIOV_SPATIAL_PART", GFX_CMD_ID_SRIOV_SPATIAL_PART, cmd).map(drop)
    }

    fn stage(&self, data: &[u8], name: &str) -> Result<()> {
        if data.len() as u64 > MSG1_BYTES {
            return Err(Error::Protocol(format!("PSP {name}: {} bytes exceed the 1 MiB staging buffer", data.len())));
        }
        self.vram.write(self.buf.msg1, data)?;
        super::gmc::hdp_flush(self.mmio)
    }
}
