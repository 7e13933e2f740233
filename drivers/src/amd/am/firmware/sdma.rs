//! SDMA firmware (`sdma_<SDMA0>.bin`): header v1.0/v1.1 (one image the PSP loads once per SDMA
//! firmware type, jump table included), v2.0 (context thread TH0 and control thread TH1),
//! v3.0 (one RS64 image, loaded as TH0). Layouts: `amdgpu_ucode.h`; payloads as
//! `amdgpu_ucode_init_single_fw` (`amdgpu_ucode.c`, linux-source-6.12) cuts them.

#![allow(non_camel_case_types)]

use super::fw_type::GfxFwType;
use super::header::{common_firmware_header, Blob};
use super::Span;
use crate::amd::am::raw::{layout, raw_structs};
use crate::Result;

/// `sdma_firmware_header_v1_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct sdma_firmware_header_v1_0 {
    pub header: common_firmware_header,
    pub ucode_feature_version: u32,
    pub ucode_change_version: u32,
    pub jt_offset: u32,
    pub jt_size: u32,
}
layout!(sdma_firmware_header_v1_0, 48, { header: 0, ucode_feature_version: 32, jt_offset: 40, jt_size: 44 });

/// `sdma_firmware_header_v2_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct sdma_firmware_header_v2_0 {
    pub header: common_firmware_header,
    pub ucode_feature_version: u32,
    pub ctx_ucode_size_bytes: u32,
    pub ctx_jt_offset: u32,
    pub ctx_jt_size: u32,
    /// Offset of the control thread's ucode from the start of the file.
    pub ctl_ucode_offset: u32,
    pub ctl_ucode_size_bytes: u32,
    pub ctl_jt_offset: u32,
    pub ctl_jt_size: u32,
}
layout!(sdma_firmware_header_v2_0, 64, {
    header: 0, ucode_feature_version: 32, ctx_ucode_size_bytes: 36, ctl_ucode_offset: 48, ctl_ucode_size_bytes: 52,
    ctl_jt_size: 60
});

/// `sdma_firmware_header_v3_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct sdma_firmware_header_v3_0 {
    pub header: common_firmware_header,
    pub ucode_feature_version: u32,
    pub ucode_offset_bytes: u32,
    pub ucode_size_bytes: u32,
}
layout!(sdma_firmware_header_v3_0, 44, { header: 0, ucode_feature_version: 32, ucode_offset_bytes: 36, ucode_size_bytes: 40 });

raw_structs!(sdma_firmware_header_v1_0, sdma_firmware_header_v2_0, sdma_firmware_header_v3_0);

/// The PSP types a v1 image is loaded as, one per engine of an SDMA group (`GFX_FW_TYPE_SDMA0`..7).
const SDMA_V1_TYPES: [GfxFwType; 8] = [
    GfxFwType::SDMA0,
    GfxFwType::SDMA1,
    GfxFwType::SDMA2,
    GfxFwType::SDMA3,
    GfxFwType::SDMA4,
    GfxFwType::SDMA5,
    GfxFwType::SDMA6,
    GfxFwType::SDMA7,
];

/// A parsed SDMA file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sdma {
    /// One image (jump table included), loaded once per engine.
    V1 { ucode: Span, feature_version: u32 },
    /// Context (TH0) and control (TH1) threads.
    V2 { ctx: Span, ctl: Span, feature_version: u32 },
    /// One RS64 image, loaded as TH0.
    V3 { ucode: Span, feature_version: u32 },
}

impl Sdma {
    pub fn parse(blob: &Blob) -> Result<Sdma> {
        Ok(match blob.version() {
            (1, _) => {
                let h: sdma_firmware_header_v1_0 = blob.header("sdma_firmware_header_v1_0")?;
                let jt_end = (h.jt_offset as u64 + h.jt_size as u64) * 4;
                if jt_end > blob.common.ucode_size_bytes as u64 {
                    return Err(blob.bad(format!(
                        "jt_offset/jt_size: jump table ends at {jt_end:#x}, past ucode_size_bytes {:#x}",
                        blob.common.ucode_size_bytes
                    )));
                }
                Sdma::V1 { ucode: blob.ucode(), feature_version: h.ucode_feature_version }
            }
            (2, _) => {
                let h: sdma_firmware_header_v2_0 = blob.header("sdma_firmware_header_v2_0")?;
                let ctx =
                    blob.span(blob.common.ucode_array_offset_bytes, h.ctx_ucode_size_bytes, "ctx_ucode_size_bytes")?;
                let ctl =
                    blob.span(h.ctl_ucode_offset, h.ctl_ucode_size_bytes, "ctl_ucode_offset/ctl_ucode_size_bytes")?;
                Sdma::V2 { ctx, ctl, feature_version: h.ucode_feature_version }
            }
            (3, _) => {
                let h: sdma_firmware_header_v3_0 = blob.header("sdma_firmware_header_v3_0")?;
                let ucode = blob.span(blob.common.ucode_array_offset_bytes, h.ucode_size_bytes, "ucode_size_bytes")?;
                Sdma::V3 { ucode, feature_version: h.ucode_feature_version }
            }
            _ => return Err(blob.unknown_version("SDMA", "1.x, 2.x, 3.x")),
        })
    }

    /// What the PSP loads, for `engines` SDMA firmware types (v1: SDMA0..; the kernel loads one
    /// per engine of an AID on SDMA 4.4.2).
    pub fn payloads(&self, engines: usize) -> Vec<(GfxFwType, Span, &'static str)> {
        match *self {
            Sdma::V1 { ucode, .. } => {
                SDMA_V1_TYPES.iter().take(engines.max(1)).map(|&t| (t, ucode, "SDMA ucode")).collect()
            }
            Sdma::V2 { ctx, ctl, .. } => {
                vec![
                    (GfxFwType::SDMA_UCODE_TH0, ctx, "SDMA TH0 (ctx)"),
                    (GfxFwType::SDMA_UCODE_TH1, ctl, "SDMA TH1 (ctl)"),
                ]
            }
            Sdma::V3 { ucode, .. } => vec![(GfxFwType::SDMA_UCODE_TH0, ucode, "SDMA RS64")],
        }
    }
}
