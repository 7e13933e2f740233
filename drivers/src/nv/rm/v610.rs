//! The 610 branch: the 580 layouts except `NV_CHANNEL_ALLOC_PARAMS`, which inserts
//! `hHandleVASpace` after `hVASpace` (368 → 376 bytes; every later field moves, `engineType`
//! 128 → 136), and `UVM_FREE_PARAMS`, which drops `length` (24 → 16).
//!
//! Provenance: 610 is not in the open-gpu-kernel-modules mirror read for this module (its newest
//! tag is 595.45.04). The channel layout is from tinygrad's bindings generated from 610.43.03
//! (`alloc_channel.h`), as summarised in the project's reference notes and confirmed by two
//! independent third-party transcriptions of 610.43.02; the short `UVM_FREE_PARAMS` is
//! verified in `uvm_ioctl.h` of 590.44.01 and 595.45.04, where it first appears.

#![allow(non_camel_case_types)]

use super::common::{Handle, NV_MEMORY_DESC_PARAMS};
use super::ioctl::rm_args;
use super::layout;

pub use super::v580::{
    NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE, NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS, NVOS46_PARAMETERS,
    NV_VASPACE_ALLOCATION_PARAMETERS,
};

/// `NV_CHANNEL_ALLOC_PARAMS` (`alloc/alloc_channel.h`, 610.43.03).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NV_CHANNEL_ALLOC_PARAMS {
    pub h_object_error: Handle,
    pub h_object_buffer: Handle,
    pub gp_fifo_offset: u64,
    pub gp_fifo_entries: u32,
    pub flags: u32,
    pub h_context_share: Handle,
    pub h_va_space: Handle,
    /// New in 610.
    pub h_handle_va_space: Handle,
    pub h_userd_memory: [Handle; 8],
    pub _pad0: u32,
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
    pub encrypt_iv: [u32; 3],
    pub decrypt_iv: [u32; 3],
    pub hmac_nonce: [u32; 8],
    pub tpc_config_id: u32,
    pub _pad1: u32,
}
layout!(NV_CHANNEL_ALLOC_PARAMS, 376, {
    h_object_error: 0, h_object_buffer: 4, gp_fifo_offset: 8, gp_fifo_entries: 16, flags: 20,
    h_context_share: 24, h_va_space: 28, h_handle_va_space: 32, h_userd_memory: 36, userd_offset: 72,
    engine_type: 136, cid: 140, sub_device_id: 144, h_object_ecc_error: 148, instance_mem: 152, userd_mem: 176,
    ramfc_mem: 200, mthdbuf_mem: 224, h_phys_channel_group: 248, internal_flags: 252, error_notifier_mem: 256,
    ecc_error_notifier_mem: 280, process_id: 304, sub_process_id: 308, encrypt_iv: 312, decrypt_iv: 324,
    hmac_nonce: 336, tpc_config_id: 368
});

/// `UVM_FREE_PARAMS` (`uvm_ioctl.h`, 590.44.01 and later): no `length`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UVM_FREE_PARAMS {
    pub base: u64,
    pub rm_status: u32,
    pub _pad0: u32,
}
layout!(UVM_FREE_PARAMS, 16, { base: 0, rm_status: 8 });

rm_args!(NV_CHANNEL_ALLOC_PARAMS, UVM_FREE_PARAMS);
