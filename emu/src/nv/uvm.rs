//! The UVM requests of /dev/nvidia-uvm: initialisation, GPU and VA-space registration, channel
//! registration, external ranges and the mapping of RM memory into them. The outcome is the
//! `rmStatus` field; a wrong argument size (the request number carries none) is EINVAL.

use super::{GpuMap, Inner, NvFile, Obj, ObjKind};
use baregpu_drivers::nv::rm::ioctl::{from_bytes, RmArg};
use baregpu_drivers::nv::rm::status::*;
use baregpu_drivers::nv::rm::uvm::*;
use baregpu_drivers::nv::rm::{v580, v610, Branch};
use baregpu_drivers::os::Fd;
use std::sync::Arc;

const NV_ERR_GPU_UUID_NOT_FOUND: u32 = 0x12;
const NV_ERR_IN_USE: u32 = 0x17;
const NV_ERR_INVALID_ADDRESS: u32 = 0x1e;
const NV_ERR_UVM_ADDRESS_IN_USE: u32 = 0x5f;
const NV_ERR_INVALID_DEVICE: u32 = 0x26;

type Res<T> = std::result::Result<T, i32>;

fn with<T: RmArg>(arg: &mut [u8], status_of: impl FnOnce(&mut T) -> u32, set: impl FnOnce(&mut T, u32)) -> Res<()> {
    if arg.len() != std::mem::size_of::<T>() {
        return Err(libc::EINVAL);
    }
    let mut p: T = from_bytes(arg).ok_or(libc::EINVAL)?;
    let status = status_of(&mut p);
    set(&mut p, status);
    let bytes = baregpu_drivers::nv::rm::ioctl::bytes_of(&p);
    arg.copy_from_slice(bytes);
    Ok(())
}

pub(crate) fn request(inner: &Arc<Inner>, fd: Fd, request: u32, arg: &mut [u8]) -> Res<i32> {
    let initialized = matches!(inner.lock().files.get(&fd.0), Some(NvFile::Uvm { initialized: true }));
    match request {
        UVM_INITIALIZE => with::<UVM_INITIALIZE_PARAMS>(arg, |p| initialize(inner, fd, p), |p, s| p.rm_status = s)?,
        UVM_MM_INITIALIZE => with::<UVM_MM_INITIALIZE_PARAMS>(
            arg,
            |p| match inner.lock().files.get(&p.uvm_fd) {
                Some(NvFile::Uvm { initialized: true }) if p.uvm_fd != fd.0 => NV_OK,
                _ => NV_ERR_INVALID_ARGUMENT,
            },
            |p, s| p.rm_status = s,
        )?,
        _ if !initialized => not_initialized(request, arg)?,
        UVM_REGISTER_GPU => with::<UVM_REGISTER_GPU_PARAMS>(arg, |p| register_gpu(inner, p), |p, s| p.rm_status = s)?,
        UVM_REGISTER_GPU_VASPACE => {
            with::<UVM_REGISTER_GPU_VASPACE_PARAMS>(arg, |p| register_gpu_vaspace(inner, p), |p, s| p.rm_status = s)?
        }
        UVM_REGISTER_CHANNEL => {
            with::<UVM_REGISTER_CHANNEL_PARAMS>(arg, |p| register_channel(inner, p), |p, s| p.rm_status = s)?
        }
        UVM_CREATE_EXTERNAL_RANGE => {
            with::<UVM_CREATE_EXTERNAL_RANGE_PARAMS>(arg, |p| create_external_range(inner, p), |p, s| p.rm_status = s)?
        }
        UVM_MAP_EXTERNAL_ALLOCATION => {
            if arg.len() != std::mem::size_of::<UVM_MAP_EXTERNAL_ALLOCATION_PARAMS>() {
                return Err(libc::EINVAL);
            }
            let p: UVM_MAP_EXTERNAL_ALLOCATION_PARAMS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let status = map_external(inner, &p);
            arg[9260..9264].copy_from_slice(&status.to_ne_bytes());
        }
        UVM_FREE => free(inner, arg)?,
        UVM_ENABLE_PEER_ACCESS | UVM_DISABLE_PEER_ACCESS => {
            with::<UVM_PEER_ACCESS_PARAMS>(arg, |_| NV_ERR_NOT_SUPPORTED, |p, s| p.rm_status = s)?
        }
        _ => return Err(libc::ENOTTY),
    }
    Ok(0)
}

/// UVM_INITIALIZE: marks the fd initialised (the only flags are the two low bits).
fn initialize(inner: &Inner, fd: Fd, p: &mut UVM_INITIALIZE_PARAMS) -> u32 {
    if p.flags & !0x3 != 0 {
        return NV_ERR_INVALID_ARGUMENT;
    }
    let mut st = inner.lock();
    if let Some(NvFile::Uvm { initialized }) = st.files.get_mut(&fd.0) {
        *initialized = true;
    }
    NV_OK
}

/// UVM_REGISTER_GPU: a GPU RM lists, once per process.
fn register_gpu(inner: &Inner, p: &mut UVM_REGISTER_GPU_PARAMS) -> u32 {
    let mut st = inner.lock();
    if !inner.gpus.iter().any(|g| g.uuid == p.gpu_uuid) {
        return NV_ERR_GPU_UUID_NOT_FOUND;
    }
    if st.uvm_gpus.contains(&p.gpu_uuid) {
        return NV_ERR_IN_USE;
    }
    st.uvm_gpus.push(p.gpu_uuid);
    p.numa_enabled = 0;
    p.numa_node_id = -1;
    NV_OK
}

/// UVM_REGISTER_GPU_VASPACE: an RM VA space of a registered GPU, named through a control fd.
fn register_gpu_vaspace(inner: &Inner, p: &mut UVM_REGISTER_GPU_VASPACE_PARAMS) -> u32 {
    let st = inner.lock();
    if !st.uvm_gpus.contains(&p.gpu_uuid) {
        return NV_ERR_INVALID_DEVICE;
    }
    if !matches!(st.files.get(&p.rm_ctrl_fd), Some(NvFile::Ctl)) {
        return NV_ERR_INVALID_ARGUMENT;
    }
    match st.objects.get(&p.h_va_space) {
        Some(Obj { kind: ObjKind::VaSpace, .. }) => NV_OK,
        _ => NV_ERR_INVALID_OBJECT_HANDLE,
    }
}

/// UVM_REGISTER_CHANNEL: an RM channel of a registered GPU.
fn register_channel(inner: &Inner, p: &mut UVM_REGISTER_CHANNEL_PARAMS) -> u32 {
    let st = inner.lock();
    if !st.uvm_gpus.contains(&p.gpu_uuid) {
        return NV_ERR_INVALID_DEVICE;
    }
    if !matches!(st.objects.get(&p.h_channel), Some(Obj { kind: ObjKind::Channel(_), .. })) {
        return NV_ERR_INVALID_OBJECT_HANDLE;
    }
    if p.length == 0 || !p.base.is_multiple_of(0x1000) {
        return NV_ERR_INVALID_ADDRESS;
    }
    NV_OK
}

/// UVM_CREATE_EXTERNAL_RANGE: reserves a page-aligned range no other range overlaps.
fn create_external_range(inner: &Inner, p: &mut UVM_CREATE_EXTERNAL_RANGE_PARAMS) -> u32 {
    let mut st = inner.lock();
    if p.length == 0 || !p.base.is_multiple_of(0x1000) || !p.length.is_multiple_of(0x1000) {
        return NV_ERR_INVALID_ADDRESS;
    }
    let Some(end) = p.base.checked_add(p.length) else { return NV_ERR_INVALID_ADDRESS };
    if st.uvm_ranges.range(..end).next_back().is_some_and(|(b, l)| b + l > p.base) {
        return NV_ERR_UVM_ADDRESS_IN_USE;
    }
    st.uvm_ranges.insert(p.base, p.length);
    NV_OK
}

/// Every request but the two initialisations needs UVM_INITIALIZE on its fd first: the others
/// answer NV_ERR_INVALID_STATE in their status field.
fn not_initialized(request: u32, arg: &mut [u8]) -> Res<()> {
    let at = match (request, arg.len()) {
        (UVM_REGISTER_GPU, 40) => 36,
        (UVM_REGISTER_GPU_VASPACE, 32) => 28,
        (UVM_REGISTER_CHANNEL, 56) => 48,
        (UVM_CREATE_EXTERNAL_RANGE, 24) => 16,
        (UVM_MAP_EXTERNAL_ALLOCATION, 9264) => 9260,
        (UVM_FREE, 24) => 16,
        (UVM_FREE, 16) => 8,
        (UVM_ENABLE_PEER_ACCESS | UVM_DISABLE_PEER_ACCESS, 36) => 32,
        _ => return Err(libc::EINVAL),
    };
    arg[at..at + 4].copy_from_slice(&NV_ERR_INVALID_STATE.to_ne_bytes());
    Ok(())
}

/// UVM_FREE: an external range and the GPU mappings in it (the struct differs by branch).
fn free(inner: &Inner, arg: &mut [u8]) -> Res<()> {
    let (size, base) = if matches!(inner.branch, Branch::V570 | Branch::V580) {
        (std::mem::size_of::<v580::UVM_FREE_PARAMS>(), from_bytes::<v580::UVM_FREE_PARAMS>(arg).map(|p| p.base))
    } else {
        (std::mem::size_of::<v610::UVM_FREE_PARAMS>(), from_bytes::<v610::UVM_FREE_PARAMS>(arg).map(|p| p.base))
    };
    if arg.len() != size {
        return Err(libc::EINVAL);
    }
    let base = base.ok_or(libc::EINVAL)?;
    let mut st = inner.lock();
    let status = match st.uvm_ranges.remove(&base) {
        Some(len) => {
            st.gpu_maps.retain(|va, _| !(base..base + len).contains(va));
            NV_OK
        }
        None => NV_ERR_INVALID_ADDRESS,
    };
    arg[size - 8..size - 4].copy_from_slice(&status.to_ne_bytes());
    Ok(())
}

fn map_external(inner: &Arc<Inner>, p: &UVM_MAP_EXTERNAL_ALLOCATION_PARAMS) -> u32 {
    let mut st = inner.lock();
    if p.length == 0 || !p.base.is_multiple_of(0x1000) || !p.length.is_multiple_of(0x1000) {
        return NV_ERR_INVALID_ADDRESS;
    }
    let Some(end) = p.base.checked_add(p.length) else { return NV_ERR_INVALID_ADDRESS };
    // It must lie inside one external range.
    if st.uvm_ranges.range(..=p.base).next_back().is_none_or(|(b, l)| end > b + l) {
        return NV_ERR_INVALID_ADDRESS;
    }
    if p.gpu_attributes_count == 0 || p.gpu_attributes_count as usize > UVM_MAX_GPUS {
        return NV_ERR_INVALID_ARGUMENT;
    }
    for a in &p.per_gpu_attributes[..p.gpu_attributes_count as usize] {
        if !st.uvm_gpus.contains(&a.gpu_uuid) {
            return NV_ERR_INVALID_DEVICE;
        }
        if a.gpu_mapping_type > UVM_GPU_MAPPING_TYPE_READ_WRITE + 1 {
            return NV_ERR_INVALID_ARGUMENT;
        }
    }
    if !matches!(st.files.get(&p.rm_ctrl_fd), Some(NvFile::Ctl)) {
        return NV_ERR_INVALID_ARGUMENT;
    }
    let Some(Obj { kind: ObjKind::Memory { size, backing, .. }, .. }) = st.objects.get(&p.h_memory).cloned() else {
        return NV_ERR_INVALID_OBJECT_HANDLE;
    };
    if p.offset.checked_add(p.length).is_none_or(|e| e > size) {
        return NV_ERR_INVALID_ARGUMENT;
    }
    // The RM DMA mapping of the same memory at the same VA (the driver makes it first) is the
    // same translation; replace it.
    st.gpu_maps.retain(|va, m| !(*va < end && va + m.len > p.base) || m.memory == p.h_memory && *va == p.base);
    st.gpu_maps.insert(p.base, GpuMap { len: p.length, host: backing.host() + p.offset as usize, memory: p.h_memory });
    NV_OK
}
