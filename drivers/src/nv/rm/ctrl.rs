//! RM control commands (NV_ESC_RM_CONTROL) used by the bring-up, and their parameter structs
//! (the same in 570, 580 and 595 except the class list V2, which is in the branch modules).
//!
//! A command id is `(class << 16) | (category << 8) | index` (`ctrlxxxx.h`, `NVXXXX_CTRL_CMD`);
//! RM checks `paramsSize` against the command's struct, so sizes are asserted.

#![allow(non_camel_case_types)]

use super::debugger;
use super::ioctl::rm_args;
use super::layout;

/// `NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2` (`ctrl0000gpu.h`), on the client.
pub const NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2: u32 = 0x205;
/// `NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2` (`ctrl0000system.h`), on the client.
pub const NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2: u32 = 0x13e;
/// `NV0080_CTRL_CMD_GPU_GET_CLASSLIST` (`ctrl0080gpu.h`), on the device: count, then list
/// through a pointer.
pub const NV0080_CTRL_CMD_GPU_GET_CLASSLIST: u32 = 0x80_0201;
/// `NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2` (`ctrl0080gpu.h`), on the device: inline list.
pub const NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2: u32 = 0x80_0292;
/// `NV2080_CTRL_CMD_GPU_GET_GID_INFO` (`ctrl2080gpu.h`), on the subdevice.
pub const NV2080_CTRL_CMD_GPU_GET_GID_INFO: u32 = 0x2080_014a;
/// `NV2080_CTRL_CMD_MC_GET_ARCH_INFO` (`ctrl2080mc.h`), on the subdevice.
pub const NV2080_CTRL_CMD_MC_GET_ARCH_INFO: u32 = 0x2080_1701;
/// `NV2080_CTRL_CMD_GR_GET_INFO` (`ctrl2080gr.h`), on the subdevice.
pub const NV2080_CTRL_CMD_GR_GET_INFO: u32 = 0x2080_1201;
/// `NV2080_CTRL_CMD_PERF_BOOST` (`ctrl2080perf.h`), on the subdevice.
pub const NV2080_CTRL_CMD_PERF_BOOST: u32 = 0x2080_200a;
/// `NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE` (`ctrl2080fb.h`), on the subdevice.
pub const NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE: u32 = 0x2080_130e;
/// `NVA06C_CTRL_CMD_GPFIFO_SCHEDULE` (`ctrla06c.h`), on the channel group.
pub const NVA06C_CTRL_CMD_GPFIFO_SCHEDULE: u32 = 0xa06c_0101;
/// `NVA06F_CTRL_CMD_GPFIFO_SCHEDULE` (`ctrla06f/ctrla06fgpfifo.h`), on a channel.
pub const NVA06F_CTRL_CMD_GPFIFO_SCHEDULE: u32 = 0xa06f_0103;
/// `NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN` (`ctrlc36f.h`), on a channel.
pub const NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN: u32 = 0xc36f_0108;

/// Names of the commands above and of the debugger's ([`debugger`]), for errors.
pub const COMMANDS: &[(&str, u32)] = &[
    ("NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2", NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2),
    ("NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2", NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2),
    ("NV0080_CTRL_CMD_GPU_GET_CLASSLIST", NV0080_CTRL_CMD_GPU_GET_CLASSLIST),
    ("NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2", NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2),
    ("NV2080_CTRL_CMD_GPU_GET_GID_INFO", NV2080_CTRL_CMD_GPU_GET_GID_INFO),
    ("NV2080_CTRL_CMD_MC_GET_ARCH_INFO", NV2080_CTRL_CMD_MC_GET_ARCH_INFO),
    ("NV2080_CTRL_CMD_GR_GET_INFO", NV2080_CTRL_CMD_GR_GET_INFO),
    ("NV2080_CTRL_CMD_PERF_BOOST", NV2080_CTRL_CMD_PERF_BOOST),
    ("NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE", NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE),
    ("NVA06C_CTRL_CMD_GPFIFO_SCHEDULE", NVA06C_CTRL_CMD_GPFIFO_SCHEDULE),
    ("NVA06F_CTRL_CMD_GPFIFO_SCHEDULE", NVA06F_CTRL_CMD_GPFIFO_SCHEDULE),
    ("NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN", NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN),
    ("NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES", debugger::NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES),
    ("NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO", debugger::NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO),
];

pub fn command_name(cmd: u32) -> Option<&'static str> {
    COMMANDS.iter().find(|c| c.1 == cmd).map(|c| c.0)
}

/// `NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS {
    /// In: the `gpu_id` of NV_ESC_CARD_INFO.
    pub gpu_id: u32,
    pub gpu_flags: u32,
    /// Out: the `deviceId` for NV0080_ALLOC_PARAMETERS.
    pub device_instance: u32,
    pub sub_device_instance: u32,
    pub sli_status: u32,
    pub board_id: u32,
    pub gpu_instance: u32,
    pub numa_id: i32,
}
layout!(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, 32, {
    gpu_id: 0, gpu_flags: 4, device_instance: 8, sub_device_instance: 12, sli_status: 16, board_id: 20,
    gpu_instance: 24, numa_id: 28
});

/// `NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS` (strings of
/// `NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_MAX_STRING_SIZE` = 256).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS {
    pub driver_version_buffer: [u8; 256],
    pub version_buffer: [u8; 256],
    pub driver_branch: [u8; 256],
    pub title_buffer: [u8; 256],
    pub changelist_number: u32,
    pub official_changelist_number: u32,
}
layout!(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS, 1032, {
    driver_version_buffer: 0, version_buffer: 256, driver_branch: 512, title_buffer: 768, changelist_number: 1024,
    official_changelist_number: 1028
});

/// `NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS`: call with `class_list` 0 for the count, then with a
/// pointer to that many u32.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS {
    pub num_classes: u32,
    pub _pad0: u32,
    pub class_list: u64,
}
layout!(NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS, 16, { num_classes: 0, class_list: 8 });

/// `NV2080_GPU_MAX_GID_LENGTH`.
pub const NV2080_GPU_MAX_GID_LENGTH: usize = 256;
/// `NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY` (bits 1:0); TYPE (bit 2) 0 = SHA1 (16 bytes).
pub const NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY: u32 = 2;

/// `NV2080_CTRL_GPU_GET_GID_INFO_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NV2080_CTRL_GPU_GET_GID_INFO_PARAMS {
    pub index: u32,
    pub flags: u32,
    /// Out: bytes of `data` used (16 for a binary SHA1 GID).
    pub length: u32,
    pub data: [u8; NV2080_GPU_MAX_GID_LENGTH],
}
layout!(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, 268, { index: 0, flags: 4, length: 8, data: 12 });

/// `NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS {
    /// `NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_*`.
    pub architecture: u32,
    /// `NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_*`.
    pub implementation: u32,
    pub revision: u32,
    pub sub_revision: u8,
    pub _pad0: [u8; 3],
}
layout!(NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS, 16, { architecture: 0, implementation: 4, revision: 8, sub_revision: 12 });

// NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_* (`ctrl2080mc.h`, 580.65.06).
pub const NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_TU100: u32 = 0x160;
pub const NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GA100: u32 = 0x170;
pub const NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GH100: u32 = 0x180;
pub const NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_AD100: u32 = 0x190;
pub const NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GB100: u32 = 0x1a0;
pub const NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_GB200: u32 = 0x1b0;
/// `NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_GA100` (GA100 itself; GA10x are 2..7, 0xB).
pub const NV2080_CTRL_MC_ARCH_INFO_IMPLEMENTATION_GA100: u32 = 0;

/// `NV2080_CTRL_GR_INFO` (`NVXXXX_CTRL_XXX_INFO`): one index/value pair.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV2080_CTRL_GR_INFO {
    pub index: u32,
    pub data: u32,
}
layout!(NV2080_CTRL_GR_INFO, 8, { index: 0, data: 4 });

/// `NV2080_CTRL_GR_ROUTE_INFO` (= `NV0080_CTRL_GR_ROUTE_INFO`, `ctrl0080gr.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV2080_CTRL_GR_ROUTE_INFO {
    pub flags: u32,
    pub _pad0: u32,
    pub route: u64,
}
layout!(NV2080_CTRL_GR_ROUTE_INFO, 16, { flags: 0, route: 8 });

/// `NV2080_CTRL_GR_GET_INFO_PARAMS`: `gr_info_list` points at `gr_info_list_size` entries.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV2080_CTRL_GR_GET_INFO_PARAMS {
    pub gr_info_list_size: u32,
    pub _pad0: u32,
    pub gr_info_list: u64,
    pub gr_route_info: NV2080_CTRL_GR_ROUTE_INFO,
}
layout!(NV2080_CTRL_GR_GET_INFO_PARAMS, 32, { gr_info_list_size: 0, gr_info_list: 8, gr_route_info: 16 });

// NV2080_CTRL_GR_INFO_INDEX_* (= NV0080_CTRL_GR_INFO_INDEX_*, `ctrl0080gr.h`).
pub const NV2080_CTRL_GR_INFO_INDEX_SM_VERSION: u32 = 0x0c;
pub const NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM: u32 = 0x0d;
pub const NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS: u32 = 0x14;
pub const NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC: u32 = 0x17;
pub const NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC: u32 = 0x20;

/// `NV2080_CTRL_PERF_BOOST_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV2080_CTRL_PERF_BOOST_PARAMS {
    pub flags: u32,
    pub duration: u32,
}
layout!(NV2080_CTRL_PERF_BOOST_PARAMS, 8, { flags: 0, duration: 4 });
/// FLAGS_CMD (1:0) = BOOST_TO_MAX (2), CUDA (4) = YES, CUDA_PRIORITY (6) = HIGH.
pub const NV2080_CTRL_PERF_BOOST_FLAGS_CUDA_BOOST_TO_MAX: u32 = 2 | (1 << 4) | (1 << 6);
/// `NV2080_CTRL_PERF_BOOST_DURATION_INFINITE`.
pub const NV2080_CTRL_PERF_BOOST_DURATION_INFINITE: u32 = 0xffff_ffff;

/// `NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS` (three `NvBool`s), also
/// `NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS` (a typedef of it).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS {
    pub b_enable: u8,
    pub b_skip_submit: u8,
    pub b_skip_enable: u8,
}
layout!(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS, 3, { b_enable: 0, b_skip_submit: 1, b_skip_enable: 2 });
pub type NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS = NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS;

/// `NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS {
    /// In: 0xffffffff; out: the value to write to the usermode doorbell.
    pub work_submit_token: u32,
}
layout!(NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS, 4, { work_submit_token: 0 });

/// `NV2080_CTRL_FB_FLUSH_GPU_CACHE_MAX_ADDRESSES`.
pub const NV2080_CTRL_FB_FLUSH_GPU_CACHE_MAX_ADDRESSES: usize = 500;

/// `NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS {
    pub address_array: [u64; NV2080_CTRL_FB_FLUSH_GPU_CACHE_MAX_ADDRESSES],
    pub address_array_size: u32,
    pub address_align: u32,
    pub mem_block_size_bytes: u64,
    pub flags: u32,
    pub _pad0: u32,
}
layout!(NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS, 4024, {
    address_array: 0, address_array_size: 4000, address_align: 4004, mem_block_size_bytes: 4008, flags: 4016
});
/// WRITE_BACK (2) = YES, INVALIDATE (3) = YES, FLUSH_MODE (4) = FULL_CACHE.
pub const NV2080_CTRL_FB_FLUSH_GPU_CACHE_FLAGS_WRITE_BACK_INVALIDATE_FULL: u32 = (1 << 2) | (1 << 3) | (1 << 4);

rm_args!(
    NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS,
    NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS,
    NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS,
    NV2080_CTRL_GPU_GET_GID_INFO_PARAMS,
    NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS,
    NV2080_CTRL_GR_INFO,
    NV2080_CTRL_GR_ROUTE_INFO,
    NV2080_CTRL_GR_GET_INFO_PARAMS,
    NV2080_CTRL_PERF_BOOST_PARAMS,
    NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS,
    NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS,
    NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_ids_are_class_category_index() {
        // (class << 16) | (category << 8) | index, as NVXXXX_CTRL_CMD builds them.
        let cmd = |class: u32, cat: u32, idx: u32| (class << 16) | (cat << 8) | idx;
        assert_eq!(NV2080_CTRL_CMD_GPU_GET_GID_INFO, cmd(0x2080, 0x01, 0x4a));
        assert_eq!(NV2080_CTRL_CMD_MC_GET_ARCH_INFO, cmd(0x2080, 0x17, 0x01));
        assert_eq!(NV2080_CTRL_CMD_GR_GET_INFO, cmd(0x2080, 0x12, 0x01));
        assert_eq!(NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, cmd(0x0080, 0x02, 0x92));
        assert_eq!(NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, cmd(0xa06c, 0x01, 0x01));
        assert_eq!(NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, cmd(0xc36f, 0x01, 0x08));
        assert_eq!(NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, cmd(0, 0x02, 0x05));
        assert_eq!(NV2080_CTRL_PERF_BOOST_FLAGS_CUDA_BOOST_TO_MAX, 0x52);
        assert_eq!(command_name(0xc36f_0108), Some("NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN"));
    }
}
