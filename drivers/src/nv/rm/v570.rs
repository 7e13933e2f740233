//! The 570 branch (open-gpu-kernel-modules 570.86.15 ... 570.211.01, and 575.x, which has the
//! same layouts): the structs that differ from 580. `NV_CHANNEL_ALLOC_PARAMS` and
//! `UVM_FREE_PARAMS` are the 580 ones (re-exported).

#![allow(non_camel_case_types)]

use super::common::Handle;
use super::ioctl::rm_args;
use super::layout;

pub use super::v580::{NV_CHANNEL_ALLOC_PARAMS, UVM_FREE_PARAMS};

/// `NVOS46_PARAMETERS` (`nvos.h`, 570.195.03): no `flags2`/`kindOverride`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS46_PARAMETERS {
    pub h_client: Handle,
    pub h_device: Handle,
    pub h_dma: Handle,
    pub h_memory: Handle,
    pub offset: u64,
    pub length: u64,
    pub flags: u32,
    pub _pad0: u32,
    pub dma_offset: u64,
    pub status: u32,
    pub _pad1: u32,
}
layout!(NVOS46_PARAMETERS, 56, {
    h_client: 0, h_device: 4, h_dma: 8, h_memory: 12, offset: 16, length: 24, flags: 32, dma_offset: 40,
    status: 48
});

/// `NV_VASPACE_ALLOCATION_PARAMETERS` (`nvos.h`, 570.195.03): no `pasid`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV_VASPACE_ALLOCATION_PARAMETERS {
    pub index: u32,
    pub flags: u32,
    pub va_size: u64,
    pub va_start_internal: u64,
    pub va_limit_internal: u64,
    pub big_page_size: u32,
    pub _pad0: u32,
    pub va_base: u64,
}
layout!(NV_VASPACE_ALLOCATION_PARAMETERS, 48, {
    index: 0, flags: 4, va_size: 8, va_start_internal: 16, va_limit_internal: 24, big_page_size: 32, va_base: 40
});

/// `NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE` (`ctrl0080gpu.h`, 565.77 ... 575.64.05).
pub const NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE: usize = 100;

/// `NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS` (`ctrl0080gpu.h`, 570.195.03).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS {
    pub num_classes: u32,
    pub class_list: [u32; NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE],
}
layout!(NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS, 404, { num_classes: 0, class_list: 4 });

rm_args!(NVOS46_PARAMETERS, NV_VASPACE_ALLOCATION_PARAMETERS, NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS);
