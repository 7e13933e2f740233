//! The PSP's driver interface: the bootloader commands, the KM ring's control commands, the
//! ring frame and the 1 KiB command/response buffer, from linux-6.12
//! `drivers/gpu/drm/amd/amdgpu/psp_gfx_if.h` (`psp_gfx_rb_frame`, `psp_gfx_cmd_resp`,
//! `psp_gfx_cmd_id`, `psp_gfx_crtl_cmd_id`) and `amdgpu_psp.h` (`psp_bootloader_cmd`,
//! `psp_ring_type`). ONE definition: the AM driver writes these, the emulated PSP reads them.

/// Bootloader commands (C2PMSG_35), `enum psp_bootloader_cmd`.
pub const PSP_BL_LOAD_SYSDRV: u32 = 0x10000;
pub const PSP_BL_LOAD_SOSDRV: u32 = 0x20000;
pub const PSP_BL_LOAD_KEY_DATABASE: u32 = 0x80000;
pub const PSP_BL_LOAD_SOCDRV: u32 = 0xB0000;
pub const PSP_BL_LOAD_DBGDRV: u32 = 0xC0000;
pub const PSP_BL_LOAD_INTFDRV: u32 = 0xD0000;
pub const PSP_BL_LOAD_RASDRV: u32 = 0xE0000;
pub const PSP_BL_LOAD_IPKEYMGRDRV: u32 = 0xF0000;
pub const PSP_BL_LOAD_TOS_SPL_TABLE: u32 = 0x1000_0000;
/// Bit 31 of C2PMSG_35 / C2PMSG_64: the PSP is ready for the next command.
pub const PSP_READY: u32 = 0x8000_0000;

/// `enum psp_ring_type`: the ring a C2PMSG_64 create names (`type << 16`).
pub const PSP_RING_TYPE_KM: u32 = 2;
/// `enum psp_gfx_crtl_cmd_id` (C2PMSG_64).
pub const GFX_CTRL_CMD_ID_DESTROY_RINGS: u32 = 0x0003_0000;

/// `enum psp_gfx_cmd_id` (the KM ring's commands).
pub const GFX_CMD_ID_SETUP_TMR: u32 = 0x05;
pub const GFX_CMD_ID_LOAD_IP_FW: u32 = 0x06;
pub const GFX_CMD_ID_DESTROY_TMR: u32 = 0x07;
pub const GFX_CMD_ID_LOAD_TOC: u32 = 0x20;
pub const GFX_CMD_ID_AUTOLOAD_RLC: u32 = 0x21;
pub const GFX_CMD_ID_BOOT_CFG: u32 = 0x22;
pub const GFX_CMD_ID_SRIOV_SPATIAL_PART: u32 = 0x27;
/// `PSP_GFX_CMD_BUF_VERSION`.
pub const PSP_GFX_CMD_BUF_VERSION: u32 = 1;

/// `struct psp_gfx_rb_frame`: one 64-byte entry of the KM ring.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PspGfxRbFrame {
    pub cmd_buf_addr_lo: u32,
    pub cmd_buf_addr_hi: u32,
    pub cmd_buf_size: u32,
    pub fence_addr_lo: u32,
    pub fence_addr_hi: u32,
    pub fence_value: u32,
    pub sid_lo: u32,
    pub sid_hi: u32,
    pub vmid: u8,
    pub frame_type: u8,
    pub reserved1: [u8; 2],
    pub reserved2: [u32; 7],
}

/// `struct psp_gfx_cmd_load_toc`, `struct psp_gfx_cmd_load_ip_fw` and the first words of
/// `struct psp_gfx_cmd_setup_tmr`: an address, a size, and a fourth word (fw_type / tmr_flags).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PspGfxCmdBuf {
    pub addr_lo: u32,
    pub addr_hi: u32,
    pub size: u32,
    /// `fw_type` of LOAD_IP_FW, `tmr_flags` of SETUP_TMR.
    pub kind: u32,
    /// SETUP_TMR: `system_phy_addr_lo/hi`.
    pub system_phy_addr_lo: u32,
    pub system_phy_addr_hi: u32,
}

impl PspGfxCmdBuf {
    pub fn addr(&self) -> u64 {
        (self.addr_hi as u64) << 32 | self.addr_lo as u64
    }
}

/// `struct psp_gfx_resp` (96 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PspGfxResp {
    pub status: u32,
    pub session_id: u32,
    pub fw_addr_lo: u32,
    pub fw_addr_hi: u32,
    pub tmr_size: u32,
    pub reserved: [u32; 11],
    pub uresp: [u32; 8],
}

/// `struct psp_gfx_cmd_resp` (1 KiB): the command at +28 (a union; its largest member and the
/// reserved bytes after it are `cmd_rest`), the response at +864.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PspGfxCmdResp {
    pub buf_size: u32,
    pub buf_version: u32,
    pub cmd_id: u32,
    pub resp_buf_addr_lo: u32,
    pub resp_buf_addr_hi: u32,
    pub resp_offset: u32,
    pub resp_buf_size: u32,
    pub cmd: PspGfxCmdBuf,
    pub cmd_rest: [u8; 864 - 28 - 24],
    pub resp: PspGfxResp,
    pub reserved_2: [u8; 1024 - 864 - 96],
}

impl Default for PspGfxCmdResp {
    fn default() -> Self {
        PspGfxCmdResp {
            buf_size: 0,
            buf_version: 0,
            cmd_id: 0,
            resp_buf_addr_lo: 0,
            resp_buf_addr_hi: 0,
            resp_offset: 0,
            resp_buf_size: 0,
            cmd: PspGfxCmdBuf::default(),
            cmd_rest: [0; 864 - 28 - 24],
            resp: PspGfxResp::default(),
            reserved_2: [0; 1024 - 864 - 96],
        }
    }
}

const _: () = {
    assert!(std::mem::size_of::<PspGfxRbFrame>() == 64);
    assert!(std::mem::offset_of!(PspGfxRbFrame, fence_value) == 20);
    assert!(std::mem::offset_of!(PspGfxRbFrame, vmid) == 32);
    assert!(std::mem::offset_of!(PspGfxRbFrame, reserved2) == 36);
    assert!(std::mem::size_of::<PspGfxResp>() == 96);
    assert!(std::mem::offset_of!(PspGfxResp, tmr_size) == 16);
    assert!(std::mem::offset_of!(PspGfxResp, uresp) == 64);
    assert!(std::mem::size_of::<PspGfxCmdResp>() == 1024);
    assert!(std::mem::offset_of!(PspGfxCmdResp, cmd_id) == 8);
    assert!(std::mem::offset_of!(PspGfxCmdResp, cmd) == 28);
    assert!(std::mem::offset_of!(PspGfxCmdResp, resp) == 864);
};

/// Plain-integer structs of this interface as bytes and back.
pub trait PspPod: Copy + Default {
    fn to_bytes(&self) -> Vec<u8> {
        let n = std::mem::size_of::<Self>();
        let mut v = vec![0u8; n];
        // SAFETY: Self is a repr(C) struct of integers and integer arrays with no padding (the
        // size checks above), so all its bytes are initialized; `v` holds exactly n bytes.
        unsafe { std::ptr::copy_nonoverlapping(self as *const Self as *const u8, v.as_mut_ptr(), n) };
        v
    }

    /// `None` when `b` is shorter than the struct.
    fn from_bytes(b: &[u8]) -> Option<Self> {
        if b.len() < std::mem::size_of::<Self>() {
            return None;
        }
        // SAFETY: length checked; every bit pattern is a valid value of a struct of integers;
        // read_unaligned because `b` has no alignment guarantee.
        Some(unsafe { std::ptr::read_unaligned(b.as_ptr() as *const Self) })
    }
}

impl PspPod for PspGfxRbFrame {}
impl PspPod for PspGfxCmdResp {}
