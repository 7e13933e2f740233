//! Command-processor firmware (`gc_<GC>_{pfp,me,mec}.bin`): header v1.0 (F32 microengines: the
//! ucode with a jump table at its end; MEC code and jump table load separately) and v2.0 (RS64
//! cores: code, a data/stack image, and the start address the driver programs into
//! `CP_MEC_RS64_PRGRM_CNTR_START`). Layouts: `amdgpu_ucode.h`; payloads as
//! `amdgpu_ucode_init_single_fw` (`amdgpu_ucode.c`, linux-source-6.12) cuts them: v1 `jt_offset`
//! and `jt_size` count dwords from the ucode array, v2 `data_offset_bytes` bytes from the file start.

#![allow(non_camel_case_types)]

use super::fw_type::GfxFwType;
use super::header::{common_firmware_header, Blob};
use super::Span;
use crate::amd::am::raw::{layout, raw_structs};
use crate::Result;

/// `gfx_firmware_header_v1_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct gfx_firmware_header_v1_0 {
    pub header: common_firmware_header,
    pub ucode_feature_version: u32,
    /// Jump table offset in dwords from the ucode array.
    pub jt_offset: u32,
    /// Jump table size in dwords.
    pub jt_size: u32,
}
layout!(gfx_firmware_header_v1_0, 44, { header: 0, ucode_feature_version: 32, jt_offset: 36, jt_size: 40 });

/// `gfx_firmware_header_v2_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct gfx_firmware_header_v2_0 {
    pub header: common_firmware_header,
    pub ucode_feature_version: u32,
    pub ucode_size_bytes: u32,
    pub ucode_offset_bytes: u32,
    pub data_size_bytes: u32,
    /// Offset of the data (stack) image from the start of the file.
    pub data_offset_bytes: u32,
    pub ucode_start_addr_lo: u32,
    pub ucode_start_addr_hi: u32,
}
layout!(gfx_firmware_header_v2_0, 60, {
    header: 0, ucode_feature_version: 32, ucode_size_bytes: 36, ucode_offset_bytes: 40, data_size_bytes: 44,
    data_offset_bytes: 48, ucode_start_addr_lo: 52, ucode_start_addr_hi: 56
});

raw_structs!(gfx_firmware_header_v1_0, gfx_firmware_header_v2_0);

/// Which command-processor engine a file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CpEngine {
    Pfp,
    Me,
    Mec,
}

impl CpEngine {
    /// The file-name suffix (`gc_11_0_0_mec.bin`).
    pub fn suffix(self) -> &'static str {
        match self {
            CpEngine::Pfp => "pfp",
            CpEngine::Me => "me",
            CpEngine::Mec => "mec",
        }
    }
}

/// A parsed command-processor file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpFirmware {
    /// F32: `code` is the ucode without the jump table, `jt` the jump table.
    V1 { code: Span, jt: Span, feature_version: u32 },
    /// RS64: code, data/stack, and the program counter the core starts at (bytes).
    V2 { code: Span, data: Span, ucode_start_addr: u64, feature_version: u32 },
}

impl CpFirmware {
    pub fn parse(blob: &Blob) -> Result<CpFirmware> {
        Ok(match blob.version() {
            (1, _) => {
                let h: gfx_firmware_header_v1_0 = blob.header("gfx_firmware_header_v1_0")?;
                let size = blob.common.ucode_size_bytes;
                let jt_bytes = h.jt_size.checked_mul(4).filter(|&b| b <= size);
                let jt_bytes = jt_bytes.ok_or_else(|| {
                    blob.bad(format!("jt_size {:#x} dwords exceeds ucode_size_bytes {size:#x}", h.jt_size))
                })?;
                let jt_off = h.jt_offset.checked_mul(4).ok_or_else(|| blob.bad("jt_offset overflows"))?;
                let jt = blob.ucode_span(jt_off, jt_bytes, "jt_offset/jt_size")?;
                let code = blob.ucode_span(0, size - jt_bytes, "ucode_size_bytes - jt_size")?;
                CpFirmware::V1 { code, jt, feature_version: h.ucode_feature_version }
            }
            (2, _) => {
                let h: gfx_firmware_header_v2_0 = blob.header("gfx_firmware_header_v2_0")?;
                let code = blob.ucode_span(0, h.ucode_size_bytes, "ucode_size_bytes (v2)")?;
                let data = blob.span(h.data_offset_bytes, h.data_size_bytes, "data_offset_bytes/data_size_bytes")?;
                let start = (h.ucode_start_addr_hi as u64) << 32 | h.ucode_start_addr_lo as u64;
                CpFirmware::V2 { code, data, ucode_start_addr: start, feature_version: h.ucode_feature_version }
            }
            _ => return Err(blob.unknown_version("gfx (PFP/ME/MEC)", "1.x, 2.x")),
        })
    }

    /// What the PSP loads for `engine`: v1 MEC code and jump table, v1 PFP/ME the whole ucode,
    /// v2 code and the P0 stack (the data image; tinygrad loads P0 only, the kernel the same
    /// image for every pipe).
    pub fn payloads(&self, engine: CpEngine) -> Vec<(GfxFwType, Span, &'static str)> {
        match (*self, engine) {
            (CpFirmware::V1 { code, jt, .. }, CpEngine::Mec) => {
                vec![(GfxFwType::CP_MEC, code, "MEC code"), (GfxFwType::CP_MEC_ME1, jt, "MEC jump table")]
            }
            (CpFirmware::V1 { code, jt, .. }, e) => {
                let whole = Span { offset: code.offset, len: code.len + jt.len };
                let t = if e == CpEngine::Pfp { GfxFwType::CP_PFP } else { GfxFwType::CP_ME };
                vec![(t, whole, "F32 ucode")]
            }
            (CpFirmware::V2 { code, data, .. }, e) => {
                let (c, d) = match e {
                    CpEngine::Pfp => (GfxFwType::RS64_PFP, GfxFwType::RS64_PFP_P0_STACK),
                    CpEngine::Me => (GfxFwType::RS64_ME, GfxFwType::RS64_ME_P0_STACK),
                    CpEngine::Mec => (GfxFwType::RS64_MEC, GfxFwType::RS64_MEC_P0_STACK),
                };
                vec![(c, code, "RS64 code"), (d, data, "RS64 data/stack")]
            }
        }
    }

    /// The RS64 start address (v2), `None` for F32 ucode.
    pub fn ucode_start_addr(&self) -> Option<u64> {
        match self {
            CpFirmware::V2 { ucode_start_addr, .. } => Some(*ucode_start_addr),
            CpFirmware::V1 { .. } => None,
        }
    }
}
