//! The UVM driver's interface (/dev/nvidia-uvm): request numbers and the parameter structs
//! that are the same in every supported branch (`kernel-open/nvidia-uvm/uvm_ioctl.h` and
//! `uvm_linux_ioctl.h`, 580.65.06; identical in 570.195.03 and 595.45.04). `UVM_FREE_PARAMS`
//! changed in 590 and lives in the branch modules.
//!
//! Requests are plain numbers (`UVM_IOCTL_BASE(i)` is `i` on Linux), not `_IOC` encodings; the
//! ioctl itself succeeds and the outcome is the `rm_status` field.

#![allow(non_camel_case_types)]

use super::common::Handle;
use super::ioctl::rm_args;
use super::layout;

pub const UVM_PATH: &str = "/dev/nvidia-uvm";

pub const UVM_INITIALIZE: u32 = 0x3000_0001;
pub const UVM_DEINITIALIZE: u32 = 0x3000_0002;
pub const UVM_REGISTER_GPU_VASPACE: u32 = 25;
pub const UVM_UNREGISTER_GPU_VASPACE: u32 = 26;
pub const UVM_REGISTER_CHANNEL: u32 = 27;
pub const UVM_UNREGISTER_CHANNEL: u32 = 28;
pub const UVM_ENABLE_PEER_ACCESS: u32 = 29;
pub const UVM_DISABLE_PEER_ACCESS: u32 = 30;
pub const UVM_MAP_EXTERNAL_ALLOCATION: u32 = 33;
pub const UVM_FREE: u32 = 34;
pub const UVM_REGISTER_GPU: u32 = 37;
pub const UVM_UNREGISTER_GPU: u32 = 38;
pub const UVM_UNMAP_EXTERNAL: u32 = 66;
pub const UVM_CREATE_EXTERNAL_RANGE: u32 = 73;
pub const UVM_MM_INITIALIZE: u32 = 75;

/// Names of the requests, for errors and traces.
pub const REQUESTS: &[(&str, u32)] = &[
    ("UVM_INITIALIZE", UVM_INITIALIZE),
    ("UVM_DEINITIALIZE", UVM_DEINITIALIZE),
    ("UVM_REGISTER_GPU_VASPACE", UVM_REGISTER_GPU_VASPACE),
    ("UVM_UNREGISTER_GPU_VASPACE", UVM_UNREGISTER_GPU_VASPACE),
    ("UVM_REGISTER_CHANNEL", UVM_REGISTER_CHANNEL),
    ("UVM_UNREGISTER_CHANNEL", UVM_UNREGISTER_CHANNEL),
    ("UVM_ENABLE_PEER_ACCESS", UVM_ENABLE_PEER_ACCESS),
    ("UVM_DISABLE_PEER_ACCESS", UVM_DISABLE_PEER_ACCESS),
    ("UVM_MAP_EXTERNAL_ALLOCATION", UVM_MAP_EXTERNAL_ALLOCATION),
    ("UVM_FREE", UVM_FREE),
    ("UVM_REGISTER_GPU", UVM_REGISTER_GPU),
    ("UVM_UNREGISTER_GPU", UVM_UNREGISTER_GPU),
    ("UVM_UNMAP_EXTERNAL", UVM_UNMAP_EXTERNAL),
    ("UVM_CREATE_EXTERNAL_RANGE", UVM_CREATE_EXTERNAL_RANGE),
    ("UVM_MM_INITIALIZE", UVM_MM_INITIALIZE),
];

pub fn request_name(request: u32) -> Option<&'static str> {
    REQUESTS.iter().find(|r| r.1 == request).map(|r| r.0)
}

/// `UVM_MAX_GPUS` (`uvm_types.h`): NV_MAX_DEVICES (32) × UVM_PARENT_ID_MAX_SUB_PROCESSORS (8).
pub const UVM_MAX_GPUS: usize = 256;

/// A GPU's UUID (`NvProcessorUuid`, 16 bytes), as NV2080_CTRL_CMD_GPU_GET_GID_INFO returns it
/// in binary form.
pub type Uuid = [u8; 16];

/// `UVM_INITIALIZE_PARAMS` (`uvm_linux_ioctl.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_INITIALIZE_PARAMS {
    pub flags: u64,
    pub rm_status: u32,
    pub _pad0: u32,
}
layout!(UVM_INITIALIZE_PARAMS, 16, { flags: 0, rm_status: 8 });

/// `UVM_MM_INITIALIZE_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_MM_INITIALIZE_PARAMS {
    /// The (initialised) UVM fd this second fd's mm is tied to.
    pub uvm_fd: i32,
    pub rm_status: u32,
}
layout!(UVM_MM_INITIALIZE_PARAMS, 8, { uvm_fd: 0, rm_status: 4 });

/// `UVM_REGISTER_GPU_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_REGISTER_GPU_PARAMS {
    pub gpu_uuid: Uuid,
    /// `NvBool`, out.
    pub numa_enabled: u8,
    pub _pad0: [u8; 3],
    pub numa_node_id: i32,
    /// -1, or the RM control fd together with `h_client` (and `h_smc_part_ref` for MIG).
    pub rm_ctrl_fd: i32,
    pub h_client: Handle,
    pub h_smc_part_ref: Handle,
    pub rm_status: u32,
}
layout!(UVM_REGISTER_GPU_PARAMS, 40, {
    gpu_uuid: 0, numa_enabled: 16, numa_node_id: 20, rm_ctrl_fd: 24, h_client: 28, h_smc_part_ref: 32,
    rm_status: 36
});

/// `UVM_UNREGISTER_GPU_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_UNREGISTER_GPU_PARAMS {
    pub gpu_uuid: Uuid,
    pub rm_status: u32,
}
layout!(UVM_UNREGISTER_GPU_PARAMS, 20, { gpu_uuid: 0, rm_status: 16 });

/// `UVM_REGISTER_GPU_VASPACE_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_REGISTER_GPU_VASPACE_PARAMS {
    pub gpu_uuid: Uuid,
    pub rm_ctrl_fd: i32,
    pub h_client: Handle,
    pub h_va_space: Handle,
    pub rm_status: u32,
}
layout!(UVM_REGISTER_GPU_VASPACE_PARAMS, 32, {
    gpu_uuid: 0, rm_ctrl_fd: 16, h_client: 20, h_va_space: 24, rm_status: 28
});

/// `UVM_UNREGISTER_GPU_VASPACE_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_UNREGISTER_GPU_VASPACE_PARAMS {
    pub gpu_uuid: Uuid,
    pub rm_status: u32,
}
layout!(UVM_UNREGISTER_GPU_VASPACE_PARAMS, 20, { gpu_uuid: 0, rm_status: 16 });

/// `UVM_REGISTER_CHANNEL_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_REGISTER_CHANNEL_PARAMS {
    pub gpu_uuid: Uuid,
    pub rm_ctrl_fd: i32,
    pub h_client: Handle,
    pub h_channel: Handle,
    pub _pad0: u32,
    /// A VA range UVM may use for the channel's internal buffers.
    pub base: u64,
    pub length: u64,
    pub rm_status: u32,
    pub _pad1: u32,
}
layout!(UVM_REGISTER_CHANNEL_PARAMS, 56, {
    gpu_uuid: 0, rm_ctrl_fd: 16, h_client: 20, h_channel: 24, base: 32, length: 40, rm_status: 48
});

/// `UVM_UNREGISTER_CHANNEL_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_UNREGISTER_CHANNEL_PARAMS {
    pub gpu_uuid: Uuid,
    pub h_client: Handle,
    pub h_channel: Handle,
    pub rm_status: u32,
}
layout!(UVM_UNREGISTER_CHANNEL_PARAMS, 28, { gpu_uuid: 0, h_client: 16, h_channel: 20, rm_status: 24 });

/// `UVM_CREATE_EXTERNAL_RANGE_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_CREATE_EXTERNAL_RANGE_PARAMS {
    pub base: u64,
    pub length: u64,
    pub rm_status: u32,
    pub _pad0: u32,
}
layout!(UVM_CREATE_EXTERNAL_RANGE_PARAMS, 24, { base: 0, length: 8, rm_status: 16 });

/// `UvmGpuMappingAttributes` (`uvm_types.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UvmGpuMappingAttributes {
    pub gpu_uuid: Uuid,
    /// `UvmGpuMappingType` (`nv_uvm_user_types.h`).
    pub gpu_mapping_type: u32,
    pub gpu_caching_type: u32,
    pub gpu_format_type: u32,
    pub gpu_element_bits: u32,
    pub gpu_compression_type: u32,
}
layout!(UvmGpuMappingAttributes, 36, {
    gpu_uuid: 0, gpu_mapping_type: 16, gpu_caching_type: 20, gpu_format_type: 24, gpu_element_bits: 28,
    gpu_compression_type: 32
});
/// `UvmGpuMappingTypeDefault`.
pub const UVM_GPU_MAPPING_TYPE_DEFAULT: u32 = 0;
/// `UvmGpuMappingTypeReadWriteAtomic`.
pub const UVM_GPU_MAPPING_TYPE_READ_WRITE_ATOMIC: u32 = 1;
/// `UvmGpuMappingTypeReadWrite`.
pub const UVM_GPU_MAPPING_TYPE_READ_WRITE: u32 = 2;

/// `UVM_MAP_EXTERNAL_ALLOCATION_PARAMS` (9264 bytes: too large to embed on the stack casually;
/// see [`UVM_MAP_EXTERNAL_ALLOCATION_PARAMS::boxed`]).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UVM_MAP_EXTERNAL_ALLOCATION_PARAMS {
    pub base: u64,
    pub length: u64,
    pub offset: u64,
    pub per_gpu_attributes: [UvmGpuMappingAttributes; UVM_MAX_GPUS],
    pub gpu_attributes_count: u64,
    pub rm_ctrl_fd: i32,
    pub h_client: Handle,
    pub h_memory: Handle,
    pub rm_status: u32,
}
layout!(UVM_MAP_EXTERNAL_ALLOCATION_PARAMS, 9264, {
    base: 0, length: 8, offset: 16, per_gpu_attributes: 24, gpu_attributes_count: 9240, rm_ctrl_fd: 9248,
    h_client: 9252, h_memory: 9256, rm_status: 9260
});

impl UVM_MAP_EXTERNAL_ALLOCATION_PARAMS {
    /// An all-zero value on the heap.
    pub fn boxed() -> Box<Self> {
        let mut b = Box::<Self>::new_uninit();
        // SAFETY: all-zero is a valid value of this plain-data struct (it is an RmArg).
        unsafe {
            b.as_mut_ptr().write_bytes(0, 1);
            b.assume_init()
        }
    }
}

/// `UVM_ENABLE_PEER_ACCESS_PARAMS` / `UVM_DISABLE_PEER_ACCESS_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_PEER_ACCESS_PARAMS {
    pub gpu_uuid_a: Uuid,
    pub gpu_uuid_b: Uuid,
    pub rm_status: u32,
}
layout!(UVM_PEER_ACCESS_PARAMS, 36, { gpu_uuid_a: 0, gpu_uuid_b: 16, rm_status: 32 });

rm_args!(
    UVM_INITIALIZE_PARAMS,
    UVM_MM_INITIALIZE_PARAMS,
    UVM_REGISTER_GPU_PARAMS,
    UVM_UNREGISTER_GPU_PARAMS,
    UVM_REGISTER_GPU_VASPACE_PARAMS,
    UVM_UNREGISTER_GPU_VASPACE_PARAMS,
    UVM_REGISTER_CHANNEL_PARAMS,
    UVM_UNREGISTER_CHANNEL_PARAMS,
    UVM_CREATE_EXTERNAL_RANGE_PARAMS,
    UvmGpuMappingAttributes,
    UVM_MAP_EXTERNAL_ALLOCATION_PARAMS,
    UVM_PEER_ACCESS_PARAMS,
);
