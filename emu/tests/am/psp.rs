//! The emulated PSP and SMU driven by raw register writes, as the AM boot drives them: the
//! bootloader handshake, the KM ring and its commands, and the SMU mailbox. Commands out of
//! order or malformed are answered with a non-zero status, never a panic.

use super::common::{fb_base, gpu, Regs};
use baregpu_autogen::amd::regs::mp_13_0_0 as mp;
use baregpu_drivers::amd::am::firmware::GfxFwType;
use baregpu_drivers::amd::am::psp_abi::*;
use baregpu_drivers::pci::{PciDevice, AMD_BAR_VRAM};
use baregpu_emu::am::psp::{status, TMR_SIZE};
use baregpu_emu::am::EmuPciGpu;

const MSG1: u64 = 0x10_0000;
const RING: u64 = 0x20_0000;
const RING_BYTES: u32 = 0x1000;
const CMD: u64 = 0x21_0000;
const FENCE: u64 = 0x22_0000;
const FW: u64 = 0x30_0000;

struct Psp<'a> {
    r: Regs<'a>,
    fb: u64,
    wptr: u32,
    fence: u32,
}

impl<'a> Psp<'a> {
    fn new(g: &'a EmuPciGpu) -> Psp<'a> {
        Psp { r: Regs { g, bases: g.bases().mp0.clone() }, fb: fb_base(g), wptr: 0, fence: 0 }
    }

    fn bootload(&self, cmd: u32) -> u32 {
        assert_eq!(self.r.read(mp::regMP0_SMN_C2PMSG_35) & PSP_READY, PSP_READY, "bootloader ready");
        self.r.write(mp::regMP0_SMN_C2PMSG_36, ((self.fb + MSG1) >> 20) as u32);
        self.r.write(mp::regMP0_SMN_C2PMSG_35, cmd);
        self.r.read(mp::regMP0_SMN_C2PMSG_35)
    }

    fn create_ring(&self) -> u32 {
        let mc = self.fb + RING;
        self.r.write(mp::regMP0_SMN_C2PMSG_69, mc as u32);
        self.r.write(mp::regMP0_SMN_C2PMSG_70, (mc >> 32) as u32);
        self.r.write(mp::regMP0_SMN_C2PMSG_71, RING_BYTES);
        self.r.write(mp::regMP0_SMN_C2PMSG_64, PSP_RING_TYPE_KM << 16);
        self.r.read(mp::regMP0_SMN_C2PMSG_64)
    }

    /// Submit one command; (status, tmr_size) once its fence arrived.
    fn submit(&mut self, cmd_id: u32, addr: u64, size: u32, kind: u32) -> (u32, u32) {
        let g = self.r.g;
        let mut c =
            PspGfxCmdResp { buf_size: 1024, buf_version: PSP_GFX_CMD_BUF_VERSION, cmd_id, ..Default::default() };
        c.cmd = PspGfxCmdBuf { addr_lo: addr as u32, addr_hi: (addr >> 32) as u32, size, kind, ..Default::default() };
        g.copy_to_bar(AMD_BAR_VRAM, CMD, &c.to_bytes()).unwrap();
        self.fence += 1;
        let (cmd_mc, fence_mc) = (self.fb + CMD, self.fb + FENCE);
        let f = PspGfxRbFrame {
            cmd_buf_addr_lo: cmd_mc as u32,
            cmd_buf_addr_hi: (cmd_mc >> 32) as u32,
            cmd_buf_size: 1024,
            fence_addr_lo: fence_mc as u32,
            fence_addr_hi: (fence_mc >> 32) as u32,
            fence_value: self.fence,
            ..Default::default()
        };
        g.copy_to_bar(AMD_BAR_VRAM, RING + self.wptr as u64 * 4, &f.to_bytes()).unwrap();
        self.wptr = (self.wptr + 16) % (RING_BYTES / 4);
        self.r.write(mp::regMP0_SMN_C2PMSG_67, self.wptr);
        assert_eq!(g.read32(AMD_BAR_VRAM, FENCE).unwrap(), self.fence, "fence of command {cmd_id:#x}");
        let mut b = vec![0u8; 1024];
        g.copy_from_bar(AMD_BAR_VRAM, CMD, &mut b).unwrap();
        let c = PspGfxCmdResp::from_bytes(&b).unwrap();
        (c.resp.status, c.resp.tmr_size)
    }
}

#[test]
fn bootloader_starts_the_sos_and_refuses_it_before_the_system_driver() {
    let g = gpu("gfx1100");
    let p = Psp::new(&g);
    assert_eq!(p.r.read(mp::regMP0_SMN_C2PMSG_81), 0, "no sOS at power-on");
    assert_ne!(p.bootload(PSP_BL_LOAD_SOSDRV), PSP_READY, "sOS before SYS_DRV is an error status");
    assert_eq!(p.r.read(mp::regMP0_SMN_C2PMSG_81), 0);
    assert_ne!(p.bootload(0x1234_0000), PSP_READY, "unknown command");
    for cmd in [PSP_BL_LOAD_KEY_DATABASE, PSP_BL_LOAD_SYSDRV, PSP_BL_LOAD_SOCDRV, PSP_BL_LOAD_INTFDRV] {
        assert_eq!(p.bootload(cmd), PSP_READY, "{cmd:#x}");
    }
    assert_ne!(p.create_ring() & 0xffff, 0, "no KM ring before the sOS runs");
    assert_eq!(p.bootload(PSP_BL_LOAD_SOSDRV), PSP_READY);
    assert_ne!(p.r.read(mp::regMP0_SMN_C2PMSG_81), 0, "sOS alive");
    assert_eq!(p.r.read(mp::regMP0_SMN_C2PMSG_64), PSP_READY, "ready for ring creation");
    // A bootloader buffer outside VRAM's MC range is refused.
    p.r.write(mp::regMP0_SMN_C2PMSG_36, 1);
    p.r.write(mp::regMP0_SMN_C2PMSG_35, PSP_BL_LOAD_SYSDRV);
    assert_ne!(p.r.read(mp::regMP0_SMN_C2PMSG_35), PSP_READY);
}

/// gfx1100's graphics firmware loaded as the boot loads it (sOS, KM ring, TOC, TMR, RLC_G and
/// RS64_MEC images, the RLC autoload), for tests that program the rest by hand. Uses VRAM
/// below 0x40_0000 and the TMR at 0x100_0000.
pub fn load_gc_firmware(g: &EmuPciGpu) {
    let mut p = booted_sos(g);
    assert_eq!(p.create_ring(), PSP_READY);
    let fw = p.fb + FW;
    g.copy_to_bar(AMD_BAR_VRAM, FW, &[0x5a; 256]).unwrap();
    assert_eq!(p.submit(GFX_CMD_ID_LOAD_TOC, fw, 256, 0), (0, TMR_SIZE));
    assert_eq!(p.submit(GFX_CMD_ID_SETUP_TMR, p.fb + 0x100_0000, TMR_SIZE, 0), (0, 0));
    for kind in [GfxFwType::RLC_G, GfxFwType::RS64_MEC] {
        assert_eq!(p.submit(GFX_CMD_ID_LOAD_IP_FW, fw, 256, kind.0).0, 0, "{kind:?}");
    }
    assert_eq!(p.submit(GFX_CMD_ID_AUTOLOAD_RLC, 0, 0, 0).0, 0);
}

fn booted_sos(g: &EmuPciGpu) -> Psp<'_> {
    let p = Psp::new(g);
    for cmd in [PSP_BL_LOAD_SYSDRV, PSP_BL_LOAD_SOSDRV] {
        assert_eq!(p.bootload(cmd), PSP_READY);
    }
    p
}

#[test]
fn km_ring_commands_are_answered_in_order_with_fences_and_statuses() {
    let g = gpu("gfx1100");
    let mut p = booted_sos(&g);
    assert_eq!(p.create_ring(), PSP_READY);
    assert_eq!(p.create_ring() & 0xffff, 2, "a second create without a destroy");
    let fw = p.fb + FW;
    // SETUP_TMR before LOAD_TOC, AUTOLOAD_RLC before the RLC firmware: out of order.
    assert_eq!(p.submit(GFX_CMD_ID_SETUP_TMR, fw, TMR_SIZE, 0).0, status::OUT_OF_ORDER);
    g.copy_to_bar(AMD_BAR_VRAM, FW, &[0x5a; 256]).unwrap();
    assert_eq!(p.submit(GFX_CMD_ID_LOAD_TOC, fw, 256, 0), (0, TMR_SIZE));
    assert_eq!(p.submit(GFX_CMD_ID_LOAD_TOC, 0x10, 256, 0).0, status::BAD_BUFFER, "TOC outside VRAM");
    assert_eq!(p.submit(GFX_CMD_ID_SETUP_TMR, p.fb + 0x100_0000, TMR_SIZE, 0), (0, 0));
    assert_eq!(p.submit(GFX_CMD_ID_AUTOLOAD_RLC, 0, 0, 0).0, status::OUT_OF_ORDER, "no RLC firmware yet");
    // An empty (all-zero) payload is malformed; a real one loads.
    assert_eq!(p.submit(GFX_CMD_ID_LOAD_IP_FW, p.fb + 0x40_0000, 0x1000, GfxFwType::RLC_G.0).0, status::BAD_FIRMWARE);
    assert_eq!(p.submit(GFX_CMD_ID_LOAD_IP_FW, fw, u32::MAX, GfxFwType::RLC_G.0).0, status::BAD_BUFFER, "4 GiB");
    assert_eq!(p.submit(GFX_CMD_ID_LOAD_IP_FW, fw, 256, GfxFwType::RLC_G.0).0, 0);
    let gc = Regs { g: &g, bases: g.bases().gc.clone() };
    use baregpu_autogen::amd::regs::gc_11_0_0 as gc11;
    let complete = gc11::RLC_RLCS_BOOTLOAD_STATUS::BOOTLOAD_COMPLETE.mask;
    assert_eq!(gc.read(gc11::regRLC_RLCS_BOOTLOAD_STATUS) & complete, 0);
    assert_ne!(gc.read(gc11::regCP_STAT), 0, "CP busy before the RLC autoload");
    assert_eq!(p.submit(GFX_CMD_ID_AUTOLOAD_RLC, 0, 0, 0).0, 0);
    assert_eq!(gc.read(gc11::regRLC_RLCS_BOOTLOAD_STATUS) & complete, complete);
    assert_eq!(gc.read(gc11::regCP_STAT), 0);
    assert_eq!(p.submit(0x77, 0, 0, 0).0, status::UNKNOWN_COMMAND);
    // Enough commands to wrap the ring.
    for _ in 0..(RING_BYTES / 64) {
        assert_eq!(p.submit(GFX_CMD_ID_LOAD_TOC, fw, 256, 0).0, 0);
    }
    // Destroy clears the ring registers; a new ring can be created.
    p.r.write(mp::regMP0_SMN_C2PMSG_64, GFX_CTRL_CMD_ID_DESTROY_RINGS);
    assert_eq!(p.r.read(mp::regMP0_SMN_C2PMSG_64), PSP_READY);
    assert_eq!(p.r.read(mp::regMP0_SMN_C2PMSG_71), 0);
    assert_eq!(p.create_ring(), PSP_READY);
}

#[test]
fn smu_mailbox_answers_each_message_after_the_response_is_cleared() {
    let g = gpu("gfx1100");
    let r = Regs { g: &g, bases: g.bases().mp1.clone() };
    assert_eq!(r.read(mp::regMP1_SMN_C2PMSG_90), 1, "idle mailbox");
    r.write(mp::regMP1_SMN_C2PMSG_90, 0);
    r.write(mp::regMP1_SMN_C2PMSG_82, 0x1234);
    r.write(mp::regMP1_SMN_C2PMSG_66, 0x5);
    assert_eq!(r.read(mp::regMP1_SMN_C2PMSG_90), 1);
    assert_eq!(r.read(mp::regMP1_SMN_C2PMSG_82), 0x1234);
    // Without clearing the response first: busy.
    r.write(mp::regMP1_SMN_C2PMSG_66, 0x6);
    assert_eq!(r.read(mp::regMP1_SMN_C2PMSG_90), baregpu_emu::am::smu::RESULT_BUSY);
}
