//! RLC firmware (`gc_<GC>_rlc.bin`): header v2.0 (RLC_G ucode, register list formats), v2.1
//! (save/restore lists: SRM_CNTL, GPM_MEM, SRM_MEM), v2.2 (IRAM and DRAM boot images), v2.3
//! (RLC_P and RLC_V), v2.4 (tap delays). Each minor version extends the previous header.
//! Offsets count from the start of the file (`amdgpu_gfx_rlc_init_microcode_v2_*`,
//! `amdgpu_rlc.c`, linux-source-6.12); a zero size means the part is absent.

#![allow(non_camel_case_types)]

use super::fw_type::GfxFwType;
use super::header::{common_firmware_header, Blob};
use super::Span;
use crate::amd::am::raw::{layout, raw_structs};
use crate::Result;

/// `rlc_firmware_header_v2_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct rlc_firmware_header_v2_0 {
    pub header: common_firmware_header,
    pub ucode_feature_version: u32,
    pub jt_offset: u32,
    pub jt_size: u32,
    pub save_and_restore_offset: u32,
    pub clear_state_descriptor_offset: u32,
    pub avail_scratch_ram_locations: u32,
    pub reg_restore_list_size: u32,
    pub reg_list_format_start: u32,
    pub reg_list_format_separate_start: u32,
    pub starting_offsets_start: u32,
    pub reg_list_format_size_bytes: u32,
    pub reg_list_format_array_offset_bytes: u32,
    pub reg_list_size_bytes: u32,
    pub reg_list_array_offset_bytes: u32,
    pub reg_list_format_separate_size_bytes: u32,
    pub reg_list_format_separate_array_offset_bytes: u32,
    pub reg_list_separate_size_bytes: u32,
    pub reg_list_separate_array_offset_bytes: u32,
}
layout!(rlc_firmware_header_v2_0, 104, { header: 0, ucode_feature_version: 32, reg_list_separate_array_offset_bytes: 100 });

/// `rlc_firmware_header_v2_1`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct rlc_firmware_header_v2_1 {
    pub v2_0: rlc_firmware_header_v2_0,
    pub reg_list_format_direct_reg_list_length: u32,
    pub save_restore_list_cntl_ucode_ver: u32,
    pub save_restore_list_cntl_feature_ver: u32,
    pub save_restore_list_cntl_size_bytes: u32,
    pub save_restore_list_cntl_offset_bytes: u32,
    pub save_restore_list_gpm_ucode_ver: u32,
    pub save_restore_list_gpm_feature_ver: u32,
    pub save_restore_list_gpm_size_bytes: u32,
    pub save_restore_list_gpm_offset_bytes: u32,
    pub save_restore_list_srm_ucode_ver: u32,
    pub save_restore_list_srm_feature_ver: u32,
    pub save_restore_list_srm_size_bytes: u32,
    pub save_restore_list_srm_offset_bytes: u32,
}
layout!(rlc_firmware_header_v2_1, 156, {
    v2_0: 0, save_restore_list_cntl_size_bytes: 116, save_restore_list_gpm_size_bytes: 132,
    save_restore_list_srm_offset_bytes: 152
});

/// `rlc_firmware_header_v2_2`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct rlc_firmware_header_v2_2 {
    pub v2_1: rlc_firmware_header_v2_1,
    pub rlc_iram_ucode_size_bytes: u32,
    pub rlc_iram_ucode_offset_bytes: u32,
    pub rlc_dram_ucode_size_bytes: u32,
    pub rlc_dram_ucode_offset_bytes: u32,
}
layout!(rlc_firmware_header_v2_2, 172, { v2_1: 0, rlc_iram_ucode_size_bytes: 156, rlc_dram_ucode_offset_bytes: 168 });

/// `rlc_firmware_header_v2_3`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct rlc_firmware_header_v2_3 {
    pub v2_2: rlc_firmware_header_v2_2,
    pub rlcp_ucode_version: u32,
    pub rlcp_ucode_feature_version: u32,
    pub rlcp_ucode_size_bytes: u32,
    pub rlcp_ucode_offset_bytes: u32,
    pub rlcv_ucode_version: u32,
    pub rlcv_ucode_feature_version: u32,
    pub rlcv_ucode_size_bytes: u32,
    pub rlcv_ucode_offset_bytes: u32,
}
layout!(rlc_firmware_header_v2_3, 204, { v2_2: 0, rlcp_ucode_size_bytes: 180, rlcv_ucode_offset_bytes: 200 });

/// `rlc_firmware_header_v2_4`: five (size, offset) pairs of tap delays.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct rlc_firmware_header_v2_4 {
    pub v2_3: rlc_firmware_header_v2_3,
    /// (size, offset) for global, SE0, SE1, SE2, SE3.
    pub tap_delays: [[u32; 2]; 5],
}
layout!(rlc_firmware_header_v2_4, 244, { v2_3: 0, tap_delays: 204 });

raw_structs!(
    rlc_firmware_header_v2_0,
    rlc_firmware_header_v2_1,
    rlc_firmware_header_v2_2,
    rlc_firmware_header_v2_3,
    rlc_firmware_header_v2_4
);

/// A parsed RLC file: its payloads in the order the kernel's ucode ids put them (tap delays,
/// restore lists, IRAM, DRAM, RLC_P, RLC_V, and RLC_G last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rlc {
    pub header_version: (u16, u16),
    pub parts: Vec<(GfxFwType, Span, &'static str)>,
}

impl Rlc {
    pub fn parse(blob: &Blob) -> Result<Rlc> {
        let minor = match blob.version() {
            (2, m) => m,
            _ => return Err(blob.unknown_version("RLC", "2.0-2.4")),
        };
        let mut parts = Vec::new();
        let mut add = |t: GfxFwType, off: u32, size: u32, what: &'static str| -> Result<()> {
            if size != 0 {
                parts.push((t, blob.span(off, size, what)?, what));
            }
            Ok(())
        };
        if minor >= 4 {
            let h: rlc_firmware_header_v2_4 = blob.header("rlc_firmware_header_v2_4")?;
            let types = [
                GfxFwType::GLOBAL_TAP_DELAYS,
                GfxFwType::SE0_TAP_DELAYS,
                GfxFwType::SE1_TAP_DELAYS,
                GfxFwType::SE2_TAP_DELAYS,
                GfxFwType::SE3_TAP_DELAYS,
            ];
            for (t, [size, off]) in types.into_iter().zip(h.tap_delays) {
                add(t, off, size, "tap delays")?;
            }
        }
        if minor >= 1 {
            let h: rlc_firmware_header_v2_1 = blob.header("rlc_firmware_header_v2_1")?;
            add(
                GfxFwType::RLC_RESTORE_LIST_SRM_CNTL,
                h.save_restore_list_cntl_offset_bytes,
                h.save_restore_list_cntl_size_bytes,
                "save_restore_list_cntl",
            )?;
            add(
                GfxFwType::RLC_RESTORE_LIST_GPM_MEM,
                h.save_restore_list_gpm_offset_bytes,
                h.save_restore_list_gpm_size_bytes,
                "save_restore_list_gpm",
            )?;
            add(
                GfxFwType::RLC_RESTORE_LIST_SRM_MEM,
                h.save_restore_list_srm_offset_bytes,
                h.save_restore_list_srm_size_bytes,
                "save_restore_list_srm",
            )?;
        }
        if minor >= 2 {
            let h: rlc_firmware_header_v2_2 = blob.header("rlc_firmware_header_v2_2")?;
            add(GfxFwType::RLC_IRAM, h.rlc_iram_ucode_offset_bytes, h.rlc_iram_ucode_size_bytes, "rlc_iram_ucode")?;
            add(
                GfxFwType::RLC_DRAM_BOOT,
                h.rlc_dram_ucode_offset_bytes,
                h.rlc_dram_ucode_size_bytes,
                "rlc_dram_ucode",
            )?;
        }
        if minor >= 3 {
            let h: rlc_firmware_header_v2_3 = blob.header("rlc_firmware_header_v2_3")?;
            add(GfxFwType::RLC_P, h.rlcp_ucode_offset_bytes, h.rlcp_ucode_size_bytes, "rlcp_ucode")?;
            add(GfxFwType::RLC_V, h.rlcv_ucode_offset_bytes, h.rlcv_ucode_size_bytes, "rlcv_ucode")?;
        }
        let _: rlc_firmware_header_v2_0 = blob.header("rlc_firmware_header_v2_0")?;
        parts.push((GfxFwType::RLC_G, blob.ucode(), "RLC_G ucode"));
        Ok(Rlc { header_version: blob.version(), parts })
    }
}
