//! Cross-checks the generated ioctl request numbers (evaluated by the generator's C oracle) against
//! an independent Rust `_IOC` encoder applied to the sizes of the bound argument structures. The
//! (name, direction, number, structure) list below is written from the KFD/DRM ABI, not read from
//! the header.

use baregpu_autogen::amd::{amdgpu_drm, kfd};
use core::mem::size_of;

// Linux asm-generic ioctl encoding (x86_64): nr bits 0-7, type 8-15, size 16-29, direction 30-31.
const IOC_NONE: u32 = 0;
const IOC_WRITE: u32 = 1;
const IOC_READ: u32 = 2;
const IOC_RW: u32 = IOC_READ | IOC_WRITE;

const fn ioc(dir: u32, ty: u32, nr: u32, size: usize) -> u32 {
    assert!(size < (1 << 14));
    (dir << 30) | ((size as u32) << 16) | (ty << 8) | nr
}

const KFD_TYPE: u32 = b'K' as u32;
const DRM_TYPE: u32 = b'd' as u32;
const DRM_COMMAND_BASE: u32 = 0x40;
const DRM_AMDGPU_INFO: u32 = 0x05;

/// Every KFD request of interface 1.17: (name, direction, nr, size of its argument structure).
fn kfd_requests() -> Vec<(&'static str, u32, u32, usize)> {
    use kfd::*;
    vec![
        ("AMDKFD_IOC_GET_VERSION", IOC_READ, 0x01, size_of::<kfd_ioctl_get_version_args>()),
        ("AMDKFD_IOC_CREATE_QUEUE", IOC_RW, 0x02, size_of::<kfd_ioctl_create_queue_args>()),
        ("AMDKFD_IOC_DESTROY_QUEUE", IOC_RW, 0x03, size_of::<kfd_ioctl_destroy_queue_args>()),
        ("AMDKFD_IOC_SET_MEMORY_POLICY", IOC_WRITE, 0x04, size_of::<kfd_ioctl_set_memory_policy_args>()),
        ("AMDKFD_IOC_GET_CLOCK_COUNTERS", IOC_RW, 0x05, size_of::<kfd_ioctl_get_clock_counters_args>()),
        ("AMDKFD_IOC_GET_PROCESS_APERTURES", IOC_READ, 0x06, size_of::<kfd_ioctl_get_process_apertures_args>()),
        ("AMDKFD_IOC_UPDATE_QUEUE", IOC_WRITE, 0x07, size_of::<kfd_ioctl_update_queue_args>()),
        ("AMDKFD_IOC_CREATE_EVENT", IOC_RW, 0x08, size_of::<kfd_ioctl_create_event_args>()),
        ("AMDKFD_IOC_DESTROY_EVENT", IOC_WRITE, 0x09, size_of::<kfd_ioctl_destroy_event_args>()),
        ("AMDKFD_IOC_SET_EVENT", IOC_WRITE, 0x0A, size_of::<kfd_ioctl_set_event_args>()),
        ("AMDKFD_IOC_RESET_EVENT", IOC_WRITE, 0x0B, size_of::<kfd_ioctl_reset_event_args>()),
        ("AMDKFD_IOC_WAIT_EVENTS", IOC_RW, 0x0C, size_of::<kfd_ioctl_wait_events_args>()),
        ("AMDKFD_IOC_DBG_REGISTER_DEPRECATED", IOC_WRITE, 0x0D, size_of::<kfd_ioctl_dbg_register_args>()),
        ("AMDKFD_IOC_DBG_UNREGISTER_DEPRECATED", IOC_WRITE, 0x0E, size_of::<kfd_ioctl_dbg_unregister_args>()),
        ("AMDKFD_IOC_DBG_ADDRESS_WATCH_DEPRECATED", IOC_WRITE, 0x0F, size_of::<kfd_ioctl_dbg_address_watch_args>()),
        ("AMDKFD_IOC_DBG_WAVE_CONTROL_DEPRECATED", IOC_WRITE, 0x10, size_of::<kfd_ioctl_dbg_wave_control_args>()),
        ("AMDKFD_IOC_SET_SCRATCH_BACKING_VA", IOC_RW, 0x11, size_of::<kfd_ioctl_set_scratch_backing_va_args>()),
        ("AMDKFD_IOC_GET_TILE_CONFIG", IOC_RW, 0x12, size_of::<kfd_ioctl_get_tile_config_args>()),
        ("AMDKFD_IOC_SET_TRAP_HANDLER", IOC_WRITE, 0x13, size_of::<kfd_ioctl_set_trap_handler_args>()),
        ("AMDKFD_IOC_GET_PROCESS_APERTURES_NEW", IOC_RW, 0x14, size_of::<kfd_ioctl_get_process_apertures_new_args>()),
        ("AMDKFD_IOC_ACQUIRE_VM", IOC_WRITE, 0x15, size_of::<kfd_ioctl_acquire_vm_args>()),
        ("AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", IOC_RW, 0x16, size_of::<kfd_ioctl_alloc_memory_of_gpu_args>()),
        ("AMDKFD_IOC_FREE_MEMORY_OF_GPU", IOC_WRITE, 0x17, size_of::<kfd_ioctl_free_memory_of_gpu_args>()),
        ("AMDKFD_IOC_MAP_MEMORY_TO_GPU", IOC_RW, 0x18, size_of::<kfd_ioctl_map_memory_to_gpu_args>()),
        ("AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU", IOC_RW, 0x19, size_of::<kfd_ioctl_unmap_memory_from_gpu_args>()),
        ("AMDKFD_IOC_SET_CU_MASK", IOC_WRITE, 0x1A, size_of::<kfd_ioctl_set_cu_mask_args>()),
        ("AMDKFD_IOC_GET_QUEUE_WAVE_STATE", IOC_RW, 0x1B, size_of::<kfd_ioctl_get_queue_wave_state_args>()),
        ("AMDKFD_IOC_GET_DMABUF_INFO", IOC_RW, 0x1C, size_of::<kfd_ioctl_get_dmabuf_info_args>()),
        ("AMDKFD_IOC_IMPORT_DMABUF", IOC_RW, 0x1D, size_of::<kfd_ioctl_import_dmabuf_args>()),
        ("AMDKFD_IOC_ALLOC_QUEUE_GWS", IOC_RW, 0x1E, size_of::<kfd_ioctl_alloc_queue_gws_args>()),
        ("AMDKFD_IOC_SMI_EVENTS", IOC_RW, 0x1F, size_of::<kfd_ioctl_smi_events_args>()),
        ("AMDKFD_IOC_SVM", IOC_RW, 0x20, size_of::<kfd_ioctl_svm_args>()),
        ("AMDKFD_IOC_SET_XNACK_MODE", IOC_RW, 0x21, size_of::<kfd_ioctl_set_xnack_mode_args>()),
        ("AMDKFD_IOC_CRIU_OP", IOC_RW, 0x22, size_of::<kfd_ioctl_criu_args>()),
        ("AMDKFD_IOC_AVAILABLE_MEMORY", IOC_RW, 0x23, size_of::<kfd_ioctl_get_available_memory_args>()),
        ("AMDKFD_IOC_EXPORT_DMABUF", IOC_RW, 0x24, size_of::<kfd_ioctl_export_dmabuf_args>()),
        ("AMDKFD_IOC_RUNTIME_ENABLE", IOC_RW, 0x25, size_of::<kfd_ioctl_runtime_enable_args>()),
        ("AMDKFD_IOC_DBG_TRAP", IOC_RW, 0x26, size_of::<kfd_ioctl_dbg_trap_args>()),
    ]
}

#[test]
fn encoder_matches_known_literals() {
    // Catches a wrong hand-written encoder before it is used as the reference.
    assert_eq!(ioc(IOC_READ, KFD_TYPE, 0x01, 8), 0x8008_4B01);
    assert_eq!(ioc(IOC_NONE, KFD_TYPE, 0x01, 0), 0x0000_4B01);
}

#[test]
fn every_kfd_request_matches_the_ioc_formula() {
    let table = kfd::AMDKFD_IOCTLS;
    let expected = kfd_requests();
    let names: Vec<&str> = table.iter().map(|t| t.0).collect();
    let want: Vec<&str> = expected.iter().map(|t| t.0).collect();
    assert_eq!(names, want, "generated KFD request list differs from the ABI list");
    for ((name, dir, nr, size), (gname, value, _)) in expected.iter().zip(table) {
        assert_eq!(name, gname);
        let formula = ioc(*dir, KFD_TYPE, *nr, *size);
        assert_eq!(*value, formula, "{name}: generated {value:#010x}, _IOC gives {formula:#010x}");
    }
    // The interface range the header declares covers exactly these requests.
    assert_eq!(kfd::AMDKFD_COMMAND_START, 0x01);
    assert_eq!(kfd::AMDKFD_COMMAND_END, 0x27);
    assert_eq!(table.len(), 0x26);
}

#[test]
fn well_known_kfd_literals() {
    assert_eq!(kfd::AMDKFD_IOC_GET_VERSION, 0x8008_4B01);
    assert_eq!(kfd::AMDKFD_IOC_CREATE_QUEUE, 0xC060_4B02);
    assert_eq!(kfd::AMDKFD_IOC_ACQUIRE_VM, 0x4008_4B15);
    assert_eq!(kfd::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, 0xC028_4B16);
    assert_eq!(kfd::AMDKFD_IOC_MAP_MEMORY_TO_GPU, 0xC018_4B18);
    assert_eq!(kfd::AMDKFD_IOC_WAIT_EVENTS, 0xC018_4B0C);
    assert_eq!(kfd::AMDKFD_IOC_RUNTIME_ENABLE, 0xC010_4B25);
    assert_eq!((kfd::KFD_IOCTL_MAJOR_VERSION, kfd::KFD_IOCTL_MINOR_VERSION), (1, 17));
}

#[test]
fn drm_amdgpu_info_request() {
    let formula =
        ioc(IOC_WRITE, DRM_TYPE, DRM_COMMAND_BASE + DRM_AMDGPU_INFO, size_of::<amdgpu_drm::drm_amdgpu_info>());
    assert_eq!(amdgpu_drm::DRM_IOCTL_AMDGPU_INFO, formula);
    assert_eq!(amdgpu_drm::DRM_IOCTL_AMDGPU_INFO, 0x4020_6445);
    assert_eq!(amdgpu_drm::DRM_COMMAND_BASE, DRM_COMMAND_BASE);
    assert_eq!(amdgpu_drm::DRM_AMDGPU_INFO, DRM_AMDGPU_INFO);
    assert_eq!(amdgpu_drm::DRM_AMDGPU_IOCTLS, &[("DRM_IOCTL_AMDGPU_INFO", 0x4020_6445, "drm_amdgpu_info")]);
}
