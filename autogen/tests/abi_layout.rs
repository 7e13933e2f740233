//! Spot checks of the layouts the driver relies on. Expected values come from the ABI documents
//! (AMDGPU code-object kernel descriptor, HSA AQL packet, ROCr amd_queue_t, the KFD ioctl ABI) and
//! were confirmed with the C compiler's sizeof/offsetof on the pinned headers; they are not copied
//! from the generated files.

use baregpu_autogen::amd::{amdgpu_drm, hsa, kd, kfd};
use core::mem::{align_of, offset_of, size_of};

#[test]
fn kernel_descriptor() {
    type Kd = kd::llvm_amdhsa_kernel_descriptor_t;
    assert_eq!(size_of::<Kd>(), 64);
    assert_eq!(offset_of!(Kd, group_segment_fixed_size), 0);
    assert_eq!(offset_of!(Kd, private_segment_fixed_size), 4);
    assert_eq!(offset_of!(Kd, kernarg_size), 8);
    assert_eq!(offset_of!(Kd, kernel_code_entry_byte_offset), 16);
    assert_eq!(offset_of!(Kd, compute_pgm_rsrc3), 44);
    assert_eq!(offset_of!(Kd, compute_pgm_rsrc1), 48);
    assert_eq!(offset_of!(Kd, compute_pgm_rsrc2), 52);
    assert_eq!(offset_of!(Kd, kernel_code_properties), 56);
    assert_eq!(offset_of!(Kd, kernarg_preload), 58);
    // The header's own offset table agrees.
    assert_eq!(kd::KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET as usize, offset_of!(Kd, kernel_code_entry_byte_offset));
    assert_eq!(kd::COMPUTE_PGM_RSRC3_OFFSET, 44);
}

#[test]
fn kernel_descriptor_bit_fields() {
    use kd::compute_pgm_rsrc1::*;
    use kd::compute_pgm_rsrc2::*;
    use kd::kernel_code_property::*;
    // COMPUTE_PGM_RSRC1: VGPR granule [5:0], SGPR granule [9:6], WGP_MODE bit 29 (GFX10+).
    assert_eq!(COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, 0x3f);
    assert_eq!(COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, 0x3c0);
    assert_eq!(COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT_SHIFT, 6);
    assert_eq!(COMPUTE_PGM_RSRC1_GFX10_PLUS_WGP_MODE, 1 << 29);
    assert_eq!(COMPUTE_PGM_RSRC1_GFX10_PLUS_FWD_PROGRESS, 1 << 31);
    // COMPUTE_PGM_RSRC2: USER_SGPR_COUNT [5:1], TGID_X_EN bit 7, TIDIG_COMP_CNT [12:11], LDS_SIZE [23:15].
    assert_eq!(COMPUTE_PGM_RSRC2_GFX6_GFX120_USER_SGPR_COUNT, 0x3e);
    assert_eq!(COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X, 1 << 7);
    assert_eq!(COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID_SHIFT, 11);
    assert_eq!(COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID_WIDTH, 2);
    assert_eq!(COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE, 0x1ff << 15);
    // GFX90A RSRC3: ACCUM_OFFSET [5:0], TG_SPLIT bit 16.
    assert_eq!(kd::compute_pgm_rsrc3_gfx90a::COMPUTE_PGM_RSRC3_GFX90A_ACCUM_OFFSET, 0x3f);
    assert_eq!(kd::compute_pgm_rsrc3_gfx90a::COMPUTE_PGM_RSRC3_GFX90A_TG_SPLIT, 1 << 16);
    // Kernel code properties (16-bit word at offset 56).
    assert_eq!(KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER, 1);
    assert_eq!(KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR, 2);
    assert_eq!(KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR, 8);
    assert_eq!(KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32, 1 << 10);
}

#[test]
fn aql_dispatch_packet() {
    type P = hsa::hsa_kernel_dispatch_packet_t;
    assert_eq!(size_of::<P>(), 64);
    assert_eq!(offset_of!(P, header), 0);
    assert_eq!(offset_of!(P, setup), 2);
    assert_eq!(offset_of!(P, workgroup_size_x), 4);
    assert_eq!(offset_of!(P, grid_size_x), 12);
    assert_eq!(offset_of!(P, private_segment_size), 24);
    assert_eq!(offset_of!(P, group_segment_size), 28);
    assert_eq!(offset_of!(P, kernel_object), 32);
    assert_eq!(offset_of!(P, kernarg_address), 40);
    assert_eq!(offset_of!(P, completion_signal), 56);
    assert_eq!(hsa::HSA_PACKET_TYPE_KERNEL_DISPATCH, 2);
    assert_eq!(hsa::HSA_PACKET_HEADER_BARRIER, 8);
    assert_eq!(hsa::HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE, 9);
    assert_eq!(hsa::HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE, 11);
    assert_eq!(hsa::HSA_FENCE_SCOPE_SYSTEM, 2);
    assert_eq!(hsa::HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS, 0);
}

#[test]
fn amd_queue_and_signal() {
    type Q = hsa::amd_queue_t;
    assert_eq!(size_of::<Q>(), 256);
    assert_eq!(align_of::<Q>(), 64);
    assert_eq!(size_of::<hsa::hsa_queue_t>(), 40);
    assert_eq!(offset_of!(Q, write_dispatch_id), 56);
    assert_eq!(offset_of!(Q, max_cu_id), 72);
    assert_eq!(offset_of!(Q, read_dispatch_id), 128);
    assert_eq!(offset_of!(Q, compute_tmpring_size), 140);
    assert_eq!(offset_of!(Q, scratch_resource_descriptor), 144);
    assert_eq!(offset_of!(Q, scratch_backing_memory_location), 160);
    assert_eq!(offset_of!(Q, queue_properties), 180);
    assert_eq!(offset_of!(Q, queue_inactive_signal), 192);
    assert_eq!(hsa::AMD_QUEUE_PROPERTIES_IS_PTR64, 2);
    type S = hsa::amd_signal_t;
    assert_eq!(size_of::<S>(), 64);
    assert_eq!(offset_of!(S, __bindgen_anon_1), 8); // union { value, hardware_doorbell_ptr }
    assert_eq!(offset_of!(S, event_mailbox_ptr), 16);
    assert_eq!(offset_of!(S, event_id), 24);
}

#[test]
fn kfd_structures() {
    use kfd::*;
    assert_eq!(size_of::<kfd_ioctl_get_version_args>(), 8);
    assert_eq!(size_of::<kfd_ioctl_create_queue_args>(), 96);
    assert_eq!(offset_of!(kfd_ioctl_create_queue_args, doorbell_offset), 24);
    assert_eq!(offset_of!(kfd_ioctl_create_queue_args, queue_id), 52);
    assert_eq!(offset_of!(kfd_ioctl_create_queue_args, ctx_save_restore_address), 72);
    assert_eq!(size_of::<kfd_ioctl_alloc_memory_of_gpu_args>(), 40);
    assert_eq!(offset_of!(kfd_ioctl_alloc_memory_of_gpu_args, mmap_offset), 24);
    assert_eq!(offset_of!(kfd_ioctl_alloc_memory_of_gpu_args, flags), 36);
    assert_eq!(size_of::<kfd_ioctl_map_memory_to_gpu_args>(), 24);
    assert_eq!(size_of::<kfd_ioctl_acquire_vm_args>(), 8);
    assert_eq!(size_of::<kfd_ioctl_create_event_args>(), 32);
    assert_eq!(offset_of!(kfd_ioctl_create_event_args, event_slot_index), 28);
    assert_eq!(size_of::<kfd_ioctl_wait_events_args>(), 24);
    assert_eq!(offset_of!(kfd_ioctl_wait_events_args, wait_result), 20);
    assert_eq!(size_of::<kfd_ioctl_runtime_enable_args>(), 16);
    assert_eq!(size_of::<kfd_process_device_apertures>(), 56);
    assert_eq!(KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, 2);
    assert_eq!(KFD_IOC_ALLOC_MEM_FLAGS_VRAM, 1);
    assert_eq!(KFD_IOC_ALLOC_MEM_FLAGS_GTT, 2);
    assert_eq!(KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, 4);
    assert_eq!(KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, 8);
    assert_eq!(KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE, 1 << 31);
    assert_eq!(KFD_IOC_EVENT_SIGNAL, 0);
}

#[test]
fn amdgpu_info_structures() {
    use amdgpu_drm::*;
    assert_eq!(size_of::<drm_amdgpu_info>(), 32);
    assert_eq!(offset_of!(drm_amdgpu_info, query), 12);
    assert_eq!(size_of::<drm_amdgpu_info_hw_ip>(), 32);
    assert_eq!(offset_of!(drm_amdgpu_info_hw_ip, available_rings), 24);
    assert_eq!(size_of::<drm_amdgpu_info_device>(), 368);
    assert_eq!(offset_of!(drm_amdgpu_info_device, family), 16);
    assert_eq!(AMDGPU_INFO_DEV_INFO, 0x16);
    assert_eq!(AMDGPU_INFO_HW_IP_INFO, 0x02);
    assert_eq!(AMDGPU_HW_IP_COMPUTE, 1);
    assert_eq!(AMDGPU_HW_IP_DMA, 2);
}
