//! The 580 branch (open-gpu-kernel-modules 580.65.06 ... 580.142): the layouts that differ from
//! another supported branch. Everything else is in [`super::common`] and [`super::uvm`].
//!
//! Against 570: `NVOS46_PARAMETERS` gains `flags2` and `kindOverride` (56 → 64 bytes),
//! `NV_VASPACE_ALLOCATION_PARAMETERS` gains `pasid` (48 → 56), and
//! `NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2` returns up to 200 classes (was 100).
//! `NV_CHANNEL_ALLOC_PARAMS` and `UVM_FREE_PARAMS` are as in 570.

#![allow(non_camel_case_types)]

use super::common::{Handle, NV_MEMORY_DESC_PARAMS};
use super::ioctl::rm_args;
use super::layout;

/// `NVOS46_PARAMETERS` (`nvos.h`, 580.65.06): NV_ESC_RM_MAP_MEMORY_DMA.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS46_PARAMETERS {
    pub h_client: Handle,
    pub h_device: Handle,
    /// The NV01_MEMORY_VIRTUAL (or VA space) object to map into.
    pub h_dma: Handle,
    pub h_memory: Handle,
    pub offset: u64,
    pub length: u64,
    /// `NVOS46_FLAGS_*`.
    pub flags: u32,
    /// `NVOS46_FLAGS2_*`.
    pub flags2: u32,
    /// Used with `NVOS46_FLAGS_PAGE_KIND_OVERRIDE_YES`.
    pub kind_override: u32,
    pub _pad0: u32,
    /// In with `NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE`; out: the GPU VA.
    pub dma_offset: u64,
    pub status: u32,
    pub _pad1: u32,
}
layout!(NVOS46_PARAMETERS, 64, {
    h_client: 0, h_device: 4, h_dma: 8, h_memory: 12, offset: 16, length: 24, flags: 32, flags2: 36,
    kind_override: 40, dma_offset: 48, status: 56
});

/// `NV_VASPACE_ALLOCATION_PARAMETERS` (`nvos.h`, 580.65.06): FERMI_VASPACE_A.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV_VASPACE_ALLOCATION_PARAMETERS {
    /// `NV_VASPACE_ALLOCATION_INDEX_GPU_NEW` (0).
    pub index: u32,
    /// `NV_VASPACE_ALLOCATION_FLAGS_*`.
    pub flags: u32,
    pub va_size: u64,
    pub va_start_internal: u64,
    pub va_limit_internal: u64,
    pub big_page_size: u32,
    pub _pad0: u32,
    pub va_base: u64,
    pub pasid: u32,
    pub _pad1: u32,
}
layout!(NV_VASPACE_ALLOCATION_PARAMETERS, 56, {
    index: 0, flags: 4, va_size: 8, va_start_internal: 16, va_limit_internal: 24, big_page_size: 32,
    va_base: 40, pasid: 48
});

/// `NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE` (`ctrl0080gpu.h`, 580.65.06; also 595.45.04).
pub const NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE: usize = 200;

/// `NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS` (`ctrl0080gpu.h`, 580.65.06).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS {
    pub num_classes: u32,
    pub class_list: [u32; NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE],
}
layout!(NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS, 804, { num_classes: 0, class_list: 4 });

/// `NV_CHANNEL_ALLOC_PARAMS` (`alloc/alloc_channel.h`, 580.65.06 = 570.195.03 = 595.45.04):
/// the GPFIFO channel classes (AMPERE_CHANNEL_GPFIFO_A ...).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NV_CHANNEL_ALLOC_PARAMS {
    /// The error notifier memory (NV01_MEMORY_SYSTEM).
    pub h_object_error: Handle,
    /// The memory object holding the GPFIFO ring.
    pub h_object_buffer: Handle,
    /// GPU VA of the ring.
    pub gp_fifo_offset: u64,
    pub gp_fifo_entries: u32,
    pub flags: u32,
    pub h_context_share: Handle,
    pub h_va_space: Handle,
    /// USERD memory per subdevice (`NV_MAX_SUBDEVICES` = 8).
    pub h_userd_memory: [Handle; 8],
    pub userd_offset: [u64; 8],
    pub engine_type: u32,
    pub cid: u32,
    pub sub_device_id: u32,
    pub h_object_ecc_error: Handle,
    pub instance_mem: NV_MEMORY_DESC_PARAMS,
    pub userd_mem: NV_MEMORY_DESC_PARAMS,
    pub ramfc_mem: NV_MEMORY_DESC_PARAMS,
    pub mthdbuf_mem: NV_MEMORY_DESC_PARAMS,
    pub h_phys_channel_group: Handle,
    pub internal_flags: u32,
    pub error_notifier_mem: NV_MEMORY_DESC_PARAMS,
    pub ecc_error_notifier_mem: NV_MEMORY_DESC_PARAMS,
    pub process_id: u32,
    pub sub_process_id: u32,
    /// `CC_CHAN_ALLOC_IV_SIZE_DWORD` = 3.
    pub encrypt_iv: [u32; 3],
    pub decrypt_iv: [u32; 3],
    /// `CC_CHAN_ALLOC_NONCE_SIZE_DWORD` = 8.
    pub hmac_nonce: [u32; 8],
    pub tpc_config_id: u32,
    pub _pad0: u32,
}
layout!(NV_CHANNEL_ALLOC_PARAMS, 368, {
    h_object_error: 0, h_object_buffer: 4, gp_fifo_offset: 8, gp_fifo_entries: 16, flags: 20,
    h_context_share: 24, h_va_space: 28, h_userd_memory: 32, userd_offset: 64, engine_type: 128, cid: 132,
    sub_device_id: 136, h_object_ecc_error: 140, instance_mem: 144, userd_mem: 168, ramfc_mem: 192,
    mthdbuf_mem: 216, h_phys_channel_group: 240, internal_flags: 244, error_notifier_mem: 248,
    ecc_error_notifier_mem: 272, process_id: 296, sub_process_id: 300, encrypt_iv: 304, decrypt_iv: 316,
    hmac_nonce: 328, tpc_config_id: 360
});

/// `UVM_FREE_PARAMS` (`uvm_ioctl.h`, 580.65.06 ... 580.142; also 570).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_FREE_PARAMS {
    pub base: u64,
    pub length: u64,
    pub rm_status: u32,
    pub _pad0: u32,
}
layout!(UVM_FREE_PARAMS, 24, { base: 0, length: 8, rm_status: 16 });

rm_args!(
    NVOS46_PARAMETERS,
    NV_VASPACE_ALLOCATION_PARAMETERS,
    NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS,
    NV_CHANNEL_ALLOC_PARAMS,
    UVM_FREE_PARAMS,
);
