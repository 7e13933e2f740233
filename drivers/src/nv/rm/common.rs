//! RM argument and allocation-parameter structs whose layout is the same in every supported
//! branch (checked against open-gpu-kernel-modules 570.195.03, 580.65.06 and 595.45.04, and
//! against tinygrad's 610.43.03 bindings as summarised in the project's reference notes).
//!
//! Type names are the C names, so they can be found in the headers; fields are in Rust case and
//! explicit padding fields (`_pad*`) make every byte of every struct a named, initialised field.
//! Sizes and offsets are asserted at compile time.

#![allow(non_camel_case_types)]

use super::ioctl::rm_args;
use super::layout;

/// An RM object handle (`NvHandle`).
pub type Handle = u32;

/// `NVOS00_PARAMETERS` (`nvos.h`): NV_ESC_RM_FREE.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS00_PARAMETERS {
    pub h_root: Handle,
    pub h_object_parent: Handle,
    pub h_object_old: Handle,
    pub status: u32,
}
layout!(NVOS00_PARAMETERS, 16, { h_root: 0, h_object_parent: 4, h_object_old: 8, status: 12 });

/// `NVOS21_PARAMETERS` (`nvos.h`): NV_ESC_RM_ALLOC, the 32-byte variant (RM tells it from the
/// 48-byte NVOS64 by the ioctl size, `escape.c`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS21_PARAMETERS {
    pub h_root: Handle,
    pub h_object_parent: Handle,
    /// In: the handle to create, or 0 for RM to choose one; out: the handle.
    pub h_object_new: Handle,
    pub h_class: u32,
    /// User pointer to the class's allocation parameters (or 0).
    pub p_alloc_parms: u64,
    pub params_size: u32,
    pub status: u32,
}
layout!(NVOS21_PARAMETERS, 32, {
    h_root: 0, h_object_parent: 4, h_object_new: 8, h_class: 12, p_alloc_parms: 16, params_size: 24, status: 28
});

/// `NVOS64_PARAMETERS` (`nvos.h`): NV_ESC_RM_ALLOC with requested access rights.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS64_PARAMETERS {
    pub h_root: Handle,
    pub h_object_parent: Handle,
    pub h_object_new: Handle,
    pub h_class: u32,
    pub p_alloc_parms: u64,
    pub p_rights_requested: u64,
    pub params_size: u32,
    pub flags: u32,
    pub status: u32,
    pub _pad0: u32,
}
layout!(NVOS64_PARAMETERS, 48, {
    h_root: 0, h_object_parent: 4, h_object_new: 8, h_class: 12, p_alloc_parms: 16, p_rights_requested: 24,
    params_size: 32, flags: 36, status: 40
});

/// `NVOS54_PARAMETERS` (`nvos.h`): NV_ESC_RM_CONTROL.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS54_PARAMETERS {
    pub h_client: Handle,
    pub h_object: Handle,
    pub cmd: u32,
    pub flags: u32,
    /// User pointer to the command's parameters.
    pub params: u64,
    pub params_size: u32,
    pub status: u32,
}
layout!(NVOS54_PARAMETERS, 32, {
    h_client: 0, h_object: 4, cmd: 8, flags: 12, params: 16, params_size: 24, status: 28
});

/// `NVOS02_PARAMETERS` (`nvos.h`): NV_ESC_RM_ALLOC_MEMORY (OS descriptors, system memory).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS02_PARAMETERS {
    pub h_root: Handle,
    pub h_object_parent: Handle,
    pub h_object_new: Handle,
    pub h_class: u32,
    pub flags: u32,
    pub _pad0: u32,
    /// In for OS descriptors: the user address of the memory.
    pub p_memory: u64,
    /// Size - 1.
    pub limit: u64,
    pub status: u32,
    pub _pad1: u32,
}
layout!(NVOS02_PARAMETERS, 48, {
    h_root: 0, h_object_parent: 4, h_object_new: 8, h_class: 12, flags: 16, p_memory: 24, limit: 32, status: 40
});

/// `nv_ioctl_nvos02_parameters_with_fd` (`nv-unix-nvos-params-wrappers.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct nv_ioctl_nvos02_parameters_with_fd {
    pub params: NVOS02_PARAMETERS,
    pub fd: i32,
    pub _pad0: u32,
}
layout!(nv_ioctl_nvos02_parameters_with_fd, 56, { params: 0, fd: 48 });

/// `NVOS33_PARAMETERS` (`nvos.h`): NV_ESC_RM_MAP_MEMORY (a CPU mapping).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS33_PARAMETERS {
    pub h_client: Handle,
    /// The device or subdevice.
    pub h_device: Handle,
    pub h_memory: Handle,
    pub _pad0: u32,
    pub offset: u64,
    pub length: u64,
    /// Out: the address token to pass to NVOS34 (the CPU mapping itself is an mmap of the fd).
    pub p_linear_address: u64,
    pub status: u32,
    pub flags: u32,
}
layout!(NVOS33_PARAMETERS, 48, {
    h_client: 0, h_device: 4, h_memory: 8, offset: 16, length: 24, p_linear_address: 32, status: 40, flags: 44
});

/// `nv_ioctl_nvos33_parameters_with_fd` (`nv-unix-nvos-params-wrappers.h`): `fd` is the
/// (registered) device fd whose mmap at offset 0 then yields the mapping (`escape.c`,
/// `rm_create_mmap_context`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct nv_ioctl_nvos33_parameters_with_fd {
    pub params: NVOS33_PARAMETERS,
    pub fd: i32,
    pub _pad0: u32,
}
layout!(nv_ioctl_nvos33_parameters_with_fd, 56, { params: 0, fd: 48 });

/// `NVOS34_PARAMETERS` (`nvos.h`): NV_ESC_RM_UNMAP_MEMORY.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS34_PARAMETERS {
    pub h_client: Handle,
    pub h_device: Handle,
    pub h_memory: Handle,
    pub _pad0: u32,
    pub p_linear_address: u64,
    pub status: u32,
    pub flags: u32,
}
layout!(NVOS34_PARAMETERS, 32, { h_client: 0, h_device: 4, h_memory: 8, p_linear_address: 16, status: 24, flags: 28 });

/// `NVOS47_PARAMETERS` (`nvos.h`): NV_ESC_RM_UNMAP_MEMORY_DMA.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NVOS47_PARAMETERS {
    pub h_client: Handle,
    pub h_device: Handle,
    pub h_dma: Handle,
    pub h_memory: Handle,
    pub flags: u32,
    pub _pad0: u32,
    pub dma_offset: u64,
    /// 0 unmaps the whole mapping.
    pub size: u64,
    pub status: u32,
    pub _pad1: u32,
}
layout!(NVOS47_PARAMETERS, 48, {
    h_client: 0, h_device: 4, h_dma: 8, h_memory: 12, flags: 16, dma_offset: 24, size: 32, status: 40
});

/// `nv_pci_info_t` (`nv-ioctl.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct nv_pci_info_t {
    pub domain: u32,
    pub bus: u8,
    pub slot: u8,
    pub function: u8,
    pub _pad0: u8,
    pub vendor_id: u16,
    pub device_id: u16,
}
layout!(nv_pci_info_t, 12, { domain: 0, bus: 4, slot: 5, function: 6, vendor_id: 8, device_id: 10 });

/// `nv_ioctl_card_info_t` (`nv-ioctl.h`): NV_ESC_CARD_INFO takes an array of these (the kernel
/// fills `_IOC_SIZE / 72` entries, `nv.c`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct nv_ioctl_card_info_t {
    /// `NvBool`.
    pub valid: u8,
    pub _pad0: [u8; 3],
    pub pci_info: nv_pci_info_t,
    pub gpu_id: u32,
    pub interrupt_line: u16,
    pub _pad1: [u8; 2],
    pub reg_address: u64,
    pub reg_size: u64,
    pub fb_address: u64,
    pub fb_size: u64,
    /// The `N` of /dev/nvidiaN.
    pub minor_number: u32,
    pub dev_name: [u8; 10],
    pub _pad2: [u8; 2],
}
layout!(nv_ioctl_card_info_t, 72, {
    valid: 0, pci_info: 4, gpu_id: 16, interrupt_line: 20, reg_address: 24, reg_size: 32, fb_address: 40,
    fb_size: 48, minor_number: 56, dev_name: 60
});

/// `nv_ioctl_register_fd_t` (`nv-ioctl.h`): NV_ESC_REGISTER_FD on a /dev/nvidiaN fd ties it to
/// the control fd (`escape.c`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct nv_ioctl_register_fd_t {
    pub ctl_fd: i32,
}
layout!(nv_ioctl_register_fd_t, 4, { ctl_fd: 0 });

/// `nv_ioctl_rm_api_version_t` (`nv-ioctl.h`): NV_ESC_CHECK_VERSION_STR.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct nv_ioctl_rm_api_version_t {
    /// `NV_RM_API_VERSION_CMD_*`.
    pub cmd: u32,
    pub reply: u32,
    pub version_string: [u8; 64],
}
layout!(nv_ioctl_rm_api_version_t, 72, { cmd: 0, reply: 4, version_string: 8 });
pub const NV_RM_API_VERSION_CMD_STRICT: u32 = 0;
pub const NV_RM_API_VERSION_CMD_RELAXED: u32 = b'1' as u32;
pub const NV_RM_API_VERSION_CMD_QUERY: u32 = b'2' as u32;
pub const NV_RM_API_VERSION_REPLY_RECOGNIZED: u32 = 1;

/// `NV0080_ALLOC_PARAMETERS` (`class/cl0080.h`): NV01_DEVICE_0.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV0080_ALLOC_PARAMETERS {
    /// The device instance (from NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2).
    pub device_id: u32,
    pub h_client_share: Handle,
    pub h_target_client: Handle,
    pub h_target_device: Handle,
    pub flags: u32,
    pub _pad0: u32,
    pub va_space_size: u64,
    pub va_start_internal: u64,
    pub va_limit_internal: u64,
    /// `NV_DEVICE_ALLOCATION_VAMODE_*`.
    pub va_mode: u32,
    pub _pad1: u32,
}
layout!(NV0080_ALLOC_PARAMETERS, 56, {
    device_id: 0, h_client_share: 4, h_target_client: 8, h_target_device: 12, flags: 16, va_space_size: 24,
    va_start_internal: 32, va_limit_internal: 40, va_mode: 48
});
/// `NV_DEVICE_ALLOCATION_VAMODE_OPTIONAL_MULTIPLE_VASPACES` (`nvos.h`).
pub const NV_DEVICE_ALLOCATION_VAMODE_OPTIONAL_MULTIPLE_VASPACES: u32 = 0;
pub const NV_DEVICE_ALLOCATION_VAMODE_SINGLE_VASPACE: u32 = 1;
pub const NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES: u32 = 2;

/// `NV2080_ALLOC_PARAMETERS` (`class/cl2080.h`): NV20_SUBDEVICE_0.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV2080_ALLOC_PARAMETERS {
    pub sub_device_id: u32,
}
layout!(NV2080_ALLOC_PARAMETERS, 4, { sub_device_id: 0 });

/// `NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS` (`class/cl0070.h`): NV01_MEMORY_VIRTUAL, the `hDma`
/// of NV_ESC_RM_MAP_MEMORY_DMA.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS {
    pub offset: u64,
    /// 0 means the largest.
    pub limit: u64,
    pub h_va_space: Handle,
    pub _pad0: u32,
}
layout!(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS, 24, { offset: 0, limit: 8, h_va_space: 16 });

/// `NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS` (`nvos.h`): KEPLER_CHANNEL_GROUP_A (a TSG).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS {
    pub h_object_error: Handle,
    pub h_object_ecc_error: Handle,
    pub h_va_space: Handle,
    /// `NV2080_ENGINE_TYPE_*` (`cl2080_notification.h`).
    pub engine_type: u32,
    /// `NvBool`.
    pub b_is_calling_context_vgpu_plugin: u8,
    pub _pad0: [u8; 3],
}
layout!(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, 20, {
    h_object_error: 0, h_object_ecc_error: 4, h_va_space: 8, engine_type: 12, b_is_calling_context_vgpu_plugin: 16
});
/// `NV2080_ENGINE_TYPE_GRAPHICS` (`cl2080_notification.h`).
pub const NV2080_ENGINE_TYPE_GRAPHICS: u32 = 1;
/// `NV2080_ENGINE_TYPE_COPY0` (`cl2080_notification.h`).
pub const NV2080_ENGINE_TYPE_COPY0: u32 = 9;

/// `NV_CTXSHARE_ALLOCATION_PARAMETERS` (`nvos.h`): FERMI_CONTEXT_SHARE_A (a subcontext).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV_CTXSHARE_ALLOCATION_PARAMETERS {
    pub h_va_space: Handle,
    /// `NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT` in 1:0.
    pub flags: u32,
    pub subctx_id: u32,
}
layout!(NV_CTXSHARE_ALLOCATION_PARAMETERS, 12, { h_va_space: 0, flags: 4, subctx_id: 8 });
pub const NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_SYNC: u32 = 0;
pub const NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC: u32 = 1;

/// `NV_GR_ALLOCATION_PARAMETERS` (`nvos.h`): optional parameters of a graphics/compute class.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV_GR_ALLOCATION_PARAMETERS {
    /// 0x2.
    pub version: u32,
    pub flags: u32,
    /// `sizeof(NV_GR_ALLOCATION_PARAMETERS)`.
    pub size: u32,
    pub caps: u32,
}
layout!(NV_GR_ALLOCATION_PARAMETERS, 16, { version: 0, flags: 4, size: 8, caps: 12 });

/// `NV_MEMORY_ALLOCATION_PARAMS` (`nvos.h`): NV01_MEMORY_LOCAL_USER and NV01_MEMORY_SYSTEM.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV_MEMORY_ALLOCATION_PARAMS {
    pub owner: u32,
    /// `NVOS32_TYPE_*`.
    pub type_: u32,
    /// `NVOS32_ALLOC_FLAGS_*`.
    pub flags: u32,
    pub width: u32,
    pub height: u32,
    pub pitch: i32,
    /// `NVOS32_ATTR_*`.
    pub attr: u32,
    /// `NVOS32_ATTR2_*`.
    pub attr2: u32,
    pub format: u32,
    pub compr_covg: u32,
    pub zcull_covg: u32,
    pub _pad0: u32,
    pub range_lo: u64,
    pub range_hi: u64,
    pub size: u64,
    pub alignment: u64,
    pub offset: u64,
    pub limit: u64,
    pub address: u64,
    pub ctag_offset: u32,
    pub h_va_space: Handle,
    pub internalflags: u32,
    pub tag: u32,
    pub numa_node: i32,
    pub _pad1: u32,
}
layout!(NV_MEMORY_ALLOCATION_PARAMS, 128, {
    owner: 0, type_: 4, flags: 8, width: 12, height: 16, pitch: 20, attr: 24, attr2: 28, format: 32,
    compr_covg: 36, zcull_covg: 40, range_lo: 48, range_hi: 56, size: 64, alignment: 72, offset: 80, limit: 88,
    address: 96, ctag_offset: 104, h_va_space: 108, internalflags: 112, tag: 116, numa_node: 120
});

/// `NV_MEMORY_DESC_PARAMS` (`alloc/alloc_channel.h`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NV_MEMORY_DESC_PARAMS {
    pub base: u64,
    pub size: u64,
    pub address_space: u32,
    pub cache_attrib: u32,
}
layout!(NV_MEMORY_DESC_PARAMS, 24, { base: 0, size: 8, address_space: 16, cache_attrib: 20 });

rm_args!(
    NVOS00_PARAMETERS,
    NVOS21_PARAMETERS,
    NVOS64_PARAMETERS,
    NVOS54_PARAMETERS,
    NVOS02_PARAMETERS,
    nv_ioctl_nvos02_parameters_with_fd,
    NVOS33_PARAMETERS,
    nv_ioctl_nvos33_parameters_with_fd,
    NVOS34_PARAMETERS,
    NVOS47_PARAMETERS,
    nv_ioctl_card_info_t,
    nv_ioctl_register_fd_t,
    nv_ioctl_rm_api_version_t,
    NV0080_ALLOC_PARAMETERS,
    NV2080_ALLOC_PARAMETERS,
    NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS,
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS,
    NV_CTXSHARE_ALLOCATION_PARAMETERS,
    NV_GR_ALLOCATION_PARAMETERS,
    NV_MEMORY_ALLOCATION_PARAMS,
    NV_MEMORY_DESC_PARAMS,
);

/// Field values of the `flags`/`attr` words above (`nvos.h`, 580.65.06), as shifted values.
pub mod flags {
    // NVOS02_FLAGS (RM_ALLOC_MEMORY).
    pub const NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS: u32 = 1 << 4;
    pub const NVOS02_FLAGS_COHERENCY_CACHED: u32 = 1 << 12;
    pub const NVOS02_FLAGS_MAPPING_NO_MAP: u32 = 1 << 30;

    // NVOS32_TYPE (NV_MEMORY_ALLOCATION_PARAMS.type).
    pub const NVOS32_TYPE_IMAGE: u32 = 0;
    pub const NVOS32_TYPE_NOTIFIER: u32 = 13;

    // NVOS32_ATTR (attr).
    pub const NVOS32_ATTR_PAGE_SIZE_HUGE: u32 = 3 << 23;
    pub const NVOS32_ATTR_LOCATION_PCI: u32 = 1 << 25;
    pub const NVOS32_ATTR_PHYSICALITY_NONCONTIGUOUS: u32 = 1 << 27;
    pub const NVOS32_ATTR_PHYSICALITY_CONTIGUOUS: u32 = 2 << 27;
    pub const NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS: u32 = 3 << 27;
    pub const NVOS32_ATTR_COHERENCY_UNCACHED: u32 = 0 << 29;
    pub const NVOS32_ATTR_COHERENCY_CACHED: u32 = 1 << 29;

    // NVOS32_ATTR2 (attr2).
    pub const NVOS32_ATTR2_ZBC_PREFER_NO_ZBC: u32 = 1;
    pub const NVOS32_ATTR2_GPU_CACHEABLE_YES: u32 = 1 << 2;
    pub const NVOS32_ATTR2_GPU_CACHEABLE_NO: u32 = 2 << 2;
    pub const NVOS32_ATTR2_PAGE_SIZE_HUGE_2MB: u32 = 1 << 20;
    pub const NVOS32_ATTR2_PROTECTION_USER_READ_ONLY: u32 = 1 << 22;

    // NVOS32_ALLOC_FLAGS (flags).
    pub const NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT: u32 = 0x1;
    pub const NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE: u32 = 0x100;
    pub const NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED: u32 = 0x4000;
    pub const NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED: u32 = 0x8000;
    pub const NVOS32_ALLOC_FLAGS_PERSISTENT_VIDMEM: u32 = 0x10000;

    // NVOS33_FLAGS (CPU mapping). escape.c forces CACHING_TYPE to DEFAULT on Linux.
    pub const NVOS33_FLAGS_ACCESS_WRITE_ONLY: u32 = 2;
    pub const NVOS33_FLAGS_CACHING_TYPE_WRITECOMBINED: u32 = 2 << 23;

    // NVOS46_FLAGS (GPU mapping).
    pub const NVOS46_FLAGS_CACHE_SNOOP_ENABLE: u32 = 1 << 4;
    pub const NVOS46_FLAGS_PAGE_SIZE_4KB: u32 = 1 << 8;
    pub const NVOS46_FLAGS_PAGE_SIZE_HUGE: u32 = 4 << 8;
    pub const NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE: u32 = 1 << 15;

    // NV_VASPACE_ALLOCATION_FLAGS.
    pub const NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED: u32 = 1 << 3;
    pub const NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING: u32 = 1 << 6;
}

#[cfg(test)]
mod tests {
    use super::flags::*;

    #[test]
    fn flag_words_match_the_values_clients_are_known_to_send() {
        // tinygrad's OS-descriptor flags and GPU-map flags (reference notes §5.2).
        assert_eq!(
            NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS | NVOS02_FLAGS_COHERENCY_CACHED | NVOS02_FLAGS_MAPPING_NO_MAP,
            0x4000_1010
        );
        assert_eq!(
            NVOS46_FLAGS_PAGE_SIZE_4KB | NVOS46_FLAGS_CACHE_SNOOP_ENABLE | NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE,
            0x8110
        );
        assert_eq!(
            NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED | NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING,
            0x48
        );
    }
}
