//! IMU firmware (`gc_<GC>_imu.bin`, GC 11 and later): `imu_firmware_header_v1_0`, an instruction
//! image (IMU_I) followed by a data image (IMU_D) in the ucode array. The kernel takes IMU_D
//! right after IMU_I and ignores the offset fields (`amdgpu_ucode_init_single_fw`,
//! linux-source-6.12); so do we.

#![allow(non_camel_case_types)]

use super::fw_type::GfxFwType;
use super::header::{common_firmware_header, Blob};
use super::Span;
use crate::amd::am::raw::{layout, raw_structs};
use crate::Result;

/// `imu_firmware_header_v1_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct imu_firmware_header_v1_0 {
    pub header: common_firmware_header,
    pub imu_iram_ucode_size_bytes: u32,
    pub imu_iram_ucode_offset_bytes: u32,
    pub imu_dram_ucode_size_bytes: u32,
    pub imu_dram_ucode_offset_bytes: u32,
}
layout!(imu_firmware_header_v1_0, 48, {
    header: 0, imu_iram_ucode_size_bytes: 32, imu_iram_ucode_offset_bytes: 36, imu_dram_ucode_size_bytes: 40,
    imu_dram_ucode_offset_bytes: 44
});
raw_structs!(imu_firmware_header_v1_0);

/// A parsed IMU file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Imu {
    pub iram: Span,
    pub dram: Span,
}

impl Imu {
    pub fn parse(blob: &Blob) -> Result<Imu> {
        if blob.version().0 != 1 {
            return Err(blob.unknown_version("IMU", "1.x"));
        }
        let h: imu_firmware_header_v1_0 = blob.header("imu_firmware_header_v1_0")?;
        let iram = blob.ucode_span(0, h.imu_iram_ucode_size_bytes, "imu_iram_ucode_size_bytes")?;
        let dram =
            blob.ucode_span(h.imu_iram_ucode_size_bytes, h.imu_dram_ucode_size_bytes, "imu_dram_ucode_size_bytes")?;
        Ok(Imu { iram, dram })
    }

    pub fn payloads(&self) -> Vec<(GfxFwType, Span, &'static str)> {
        vec![(GfxFwType::IMU_I, self.iram, "IMU instructions"), (GfxFwType::IMU_D, self.dram, "IMU data")]
    }
}
