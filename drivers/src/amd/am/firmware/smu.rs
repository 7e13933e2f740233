//! SMU firmware (`smu_<MP1>.bin`): `smc_firmware_header_v1_0` (start address), v2.0 (one soft
//! pptable), v2.1 (a list of `smc_soft_pptable_entry`). GC 11 loads the whole ucode through the
//! PSP as `GFX_FW_TYPE_SMU`; MP1 13.0.6 (MI300) loads only the P2S table among the v2.1 entries
//! (`smu_v13_0_6_init_microcode`). Layouts: `amdgpu_ucode.h`; entry offsets count from the
//! start of the file (`smu_v13_0_get_pptable_from_firmware`), linux-source-6.12.

#![allow(non_camel_case_types)]

use super::header::{common_firmware_header, Blob};
use super::Span;
use crate::amd::am::raw::{self, layout, raw_structs};
use crate::Result;

/// `smc_firmware_header_v1_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct smc_firmware_header_v1_0 {
    pub header: common_firmware_header,
    pub ucode_start_addr: u32,
}
layout!(smc_firmware_header_v1_0, 36, { header: 0, ucode_start_addr: 32 });

/// `smc_firmware_header_v2_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct smc_firmware_header_v2_0 {
    pub v1_0: smc_firmware_header_v1_0,
    pub ppt_offset_bytes: u32,
    pub ppt_size_bytes: u32,
}
layout!(smc_firmware_header_v2_0, 44, { v1_0: 0, ppt_offset_bytes: 36, ppt_size_bytes: 40 });

/// `smc_firmware_header_v2_1`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct smc_firmware_header_v2_1 {
    pub v1_0: smc_firmware_header_v1_0,
    pub pptable_count: u32,
    pub pptable_entry_offset: u32,
}
layout!(smc_firmware_header_v2_1, 44, { v1_0: 0, pptable_count: 36, pptable_entry_offset: 40 });

/// `smc_soft_pptable_entry`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct smc_soft_pptable_entry {
    pub id: u32,
    pub ppt_offset_bytes: u32,
    pub ppt_size_bytes: u32,
}
layout!(smc_soft_pptable_entry, 12, { id: 0, ppt_offset_bytes: 4, ppt_size_bytes: 8 });

raw_structs!(smc_firmware_header_v1_0, smc_firmware_header_v2_0, smc_firmware_header_v2_1, smc_soft_pptable_entry);

/// `P2S_TABLE_ID_X` (`smu_v13_0_6_ppt.c`): the P2S table of a discrete MI300.
pub const P2S_TABLE_ID_X: u32 = 0x5032_5358;
/// Entries a v2.1 header may list before we call it corrupt (real files list a handful).
const MAX_PPTABLES: u32 = 256;

/// A parsed SMU file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Smu {
    pub header_version: (u16, u16),
    pub ucode_version: u32,
    pub ucode_start_addr: u32,
    /// The SMU ucode (`ucode_array_offset_bytes`, `ucode_size_bytes`).
    pub ucode: Span,
    /// Soft pptables by id (v2.0's single table has id 0).
    pub pptables: Vec<(u32, Span)>,
}

impl Smu {
    pub fn parse(blob: &Blob) -> Result<Smu> {
        let h: smc_firmware_header_v1_0 = blob.header("smc_firmware_header_v1_0")?;
        let mut pptables = Vec::new();
        match blob.version() {
            (1, _) => {}
            (2, 0) => {
                let h: smc_firmware_header_v2_0 = blob.header("smc_firmware_header_v2_0")?;
                if h.ppt_size_bytes != 0 {
                    pptables
                        .push((0, blob.span(h.ppt_offset_bytes, h.ppt_size_bytes, "ppt_offset_bytes/ppt_size_bytes")?));
                }
            }
            (2, 1) => {
                let h: smc_firmware_header_v2_1 = blob.header("smc_firmware_header_v2_1")?;
                if h.pptable_count > MAX_PPTABLES {
                    return Err(blob.bad(format!("pptable_count {} > {MAX_PPTABLES}", h.pptable_count)));
                }
                for i in 0..h.pptable_count {
                    let what = format!("pptable entry {i}");
                    let at = h.pptable_entry_offset as usize + 12 * i as usize;
                    let e: smc_soft_pptable_entry = raw::read(blob.bytes, at, blob.name, &what)?;
                    pptables.push((e.id, blob.span(e.ppt_offset_bytes, e.ppt_size_bytes, &what)?));
                }
            }
            _ => return Err(blob.unknown_version("SMC", "1.x, 2.0, 2.1")),
        }
        Ok(Smu {
            header_version: blob.version(),
            ucode_version: blob.common.ucode_version,
            ucode_start_addr: h.ucode_start_addr,
            ucode: blob.ucode(),
            pptables,
        })
    }

    pub fn pptable(&self, id: u32) -> Option<Span> {
        self.pptables.iter().find(|(i, _)| *i == id).map(|&(_, s)| s)
    }
}
