//! The RM escapes of /dev/nvidiactl and /dev/nvidiaN: allocation, control, free, memory and
//! mappings, card info and fd registration, as `escape.c` and RM's resource server answer them.
//!
//! Sizes: an escape whose `_IOC_SIZE` differs from its struct fails with EINVAL (escape.c); RM
//! then answers in the struct's `status`: unknown handles NV_ERR_INVALID_OBJECT_HANDLE (or
//! _PARENT / _CLIENT), classes the GPU does not list NV_ERR_INVALID_CLASS, parameter blocks of
//! the wrong size NV_ERR_INVALID_PARAM_STRUCT, bad pointers NV_ERR_INVALID_POINTER, taken
//! handles NV_ERR_INSERT_DUPLICATE_NAME, controls on the wrong kind of object or unknown
//! controls NV_ERR_NOT_SUPPORTED, exhausted memory NV_ERR_NO_MEMORY.
//!
//! GT200_DEBUGGER sessions answer READ_ALL_SM_ERROR_STATES and READ_MMU_FAULT_INFO from what
//! the debugged channel recorded when its kernel faulted ([`super::fault`]).

use super::teardown::{self, Freed, Retired};
use super::{channel, Backing, ChannelInfo, GpuMap, Inner, MmapContext, NvFile, Obj, ObjKind, State};
use super::{DOORBELL_IDLE, DOORBELL_OFFSET, USERMODE_SIZE};
use baregpu_drivers::nv::rm::classes::*;
use baregpu_drivers::nv::rm::common::*;
use baregpu_drivers::nv::rm::ctrl::*;
use baregpu_drivers::nv::rm::debugger::*;
use baregpu_drivers::nv::rm::event::*;
use baregpu_drivers::nv::rm::ioctl::{self, from_bytes, RmArg};
use baregpu_drivers::nv::rm::status::*;
use baregpu_drivers::nv::rm::{v570, v580, v610, Branch};
use baregpu_drivers::os::Fd;
use std::sync::atomic::Ordering;
use std::sync::Arc;

const NV_ERR_INVALID_CLIENT: u32 = 0x23;
pub(crate) const NV_ERR_INVALID_OBJECT_PARENT: u32 = 0x36;
pub(crate) const NV_ERR_INVALID_PARAM_STRUCT: u32 = 0x3a;
pub(crate) const NV_ERR_INVALID_EVENT: u32 = 0x28;
const NV_ERR_INVALID_POINTER: u32 = 0x3d;
const NV_ERR_INSERT_DUPLICATE_NAME: u32 = 0x19;
const NV_ERR_INVALID_LIMIT: u32 = 0x2e;
const NV_ERR_INVALID_OFFSET: u32 = 0x37;
const NV_ERR_INVALID_DEVICE: u32 = 0x26;
const NV_ERR_INVALID_DMA_SPECIFIER: u32 = 0x27;
const NV_ERR_OBJECT_NOT_FOUND: u32 = 0x57;

type Res<T> = std::result::Result<T, i32>;
/// An RM status failure.
type St<T> = std::result::Result<T, u32>;

fn put<T: RmArg>(arg: &mut [u8], v: &T) {
    let b = ioctl::bytes_of(v);
    arg[..b.len()].copy_from_slice(b);
}

/// The bytes a user pointer names, or None for a null pointer with a size.
///
/// SAFETY (of the callers' use): the driver runs in this process; its parameter pointers are
/// addresses of its live argument blocks, as RM's copyin assumes.
fn user<'a>(ptr: u64, len: u32) -> Option<&'a mut [u8]> {
    if len == 0 {
        return Some(&mut []);
    }
    if ptr == 0 {
        return None;
    }
    // SAFETY: see above.
    Some(unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, len as usize) })
}

pub(crate) fn escape(inner: &Arc<Inner>, fd: Fd, file: &NvFile, request: u32, arg: &mut [u8]) -> Res<i32> {
    let (esc, size) = ioctl::decode_request(request);
    if request != ioctl::nv_iowr(esc, size.min(ioctl::IOC_SIZE_MAX)) || size != arg.len() {
        return Err(libc::EINVAL);
    }
    let expect = |n: usize| if size == n { Ok(()) } else { Err(libc::EINVAL) };
    let is_ctl = matches!(file, NvFile::Ctl);
    match esc {
        ioctl::NV_ESC_RM_ALLOC => {
            expect(32)?;
            ctl_only(is_ctl)?;
            let mut a: NVOS21_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let (status, handle) = match alloc(inner, &a) {
                Ok(h) => (NV_OK, h),
                Err(s) => (s, a.h_object_new),
            };
            a.status = status;
            a.h_object_new = handle;
            put(arg, &a);
        }
        ioctl::NV_ESC_RM_CONTROL => {
            expect(32)?;
            ctl_only(is_ctl)?;
            let mut a: NVOS54_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let mut retired = Retired::default();
            a.status = control(inner, &a, &mut retired).err().unwrap_or(NV_OK);
            retired.join();
            put(arg, &a);
        }
        ioctl::NV_ESC_RM_FREE => {
            expect(16)?;
            ctl_only(is_ctl)?;
            let mut a: NVOS00_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let mut retired = Retired::default();
            a.status = free(inner, &a, &mut retired).err().unwrap_or(NV_OK);
            retired.join();
            put(arg, &a);
        }
        ioctl::NV_ESC_CARD_INFO => {
            if size == 0 || !size.is_multiple_of(72) {
                return Err(libc::EINVAL);
            }
            arg.fill(0);
            for (i, g) in inner.gpus.iter().enumerate().take(size / 72) {
                let mut c = nv_ioctl_card_info_t {
                    valid: 1,
                    gpu_id: g.gpu_id,
                    minor_number: g.minor,
                    reg_address: 0xfb00_0000 + ((i as u64) << 24),
                    reg_size: 0x100_0000,
                    fb_address: 0x38_0000_0000 + ((i as u64) << 36),
                    fb_size: g.spec.memory_bytes,
                    ..Default::default()
                };
                c.pci_info.bus = 0x19 + 0x10 * i as u8;
                c.pci_info.vendor_id = 0x10de;
                c.pci_info.device_id = g.spec.pci_device_id;
                put(&mut arg[i * 72..], &c);
            }
        }
        ioctl::NV_ESC_ALLOC_OS_EVENT | ioctl::NV_ESC_FREE_OS_EVENT => {
            expect(16)?;
            ctl_only(is_ctl)?;
            let mut a: nv_ioctl_alloc_os_event_t = from_bytes(arg).ok_or(libc::EINVAL)?;
            inner.events.escape(fd.0, esc == ioctl::NV_ESC_ALLOC_OS_EVENT, &mut a);
            put(arg, &a);
        }
        ioctl::NV_ESC_REGISTER_FD => {
            expect(4)?;
            let a: nv_ioctl_register_fd_t = from_bytes(arg).ok_or(libc::EINVAL)?;
            let mut st = inner.lock();
            if !matches!(st.files.get(&a.ctl_fd), Some(NvFile::Ctl)) {
                return Err(libc::EINVAL);
            }
            match st.files.get_mut(&fd.0) {
                Some(NvFile::Dev { registered, .. }) if !*registered => *registered = true,
                // Registering twice, or a non-device fd: escape.c refuses.
                _ => return Err(libc::EINVAL),
            }
        }
        ioctl::NV_ESC_CHECK_VERSION_STR => {
            expect(72)?;
            let mut a: nv_ioctl_rm_api_version_t = from_bytes(arg).ok_or(libc::EINVAL)?;
            let v = inner.version.as_bytes();
            let given = a.version_string.iter().position(|&b| b == 0).unwrap_or(64);
            let same = &a.version_string[..given] == v;
            a.version_string = [0; 64];
            a.version_string[..v.len().min(63)].copy_from_slice(&v[..v.len().min(63)]);
            a.reply = NV_RM_API_VERSION_REPLY_RECOGNIZED;
            if a.cmd == NV_RM_API_VERSION_CMD_STRICT && !same {
                a.reply = 0;
            }
            put(arg, &a);
        }
        ioctl::NV_ESC_RM_ALLOC_MEMORY => {
            expect(56)?;
            // NV_ACTUAL_DEVICE_ONLY: refused on the control fd.
            if is_ctl {
                return Err(libc::EINVAL);
            }
            let mut a: nv_ioctl_nvos02_parameters_with_fd = from_bytes(arg).ok_or(libc::EINVAL)?;
            match alloc_os_descriptor(inner, &a.params) {
                Ok(h) => {
                    a.params.h_object_new = h;
                    a.params.status = NV_OK;
                }
                Err(s) => a.params.status = s,
            }
            put(arg, &a);
        }
        ioctl::NV_ESC_RM_MAP_MEMORY => {
            expect(56)?;
            ctl_only(is_ctl)?;
            let mut a: nv_ioctl_nvos33_parameters_with_fd = from_bytes(arg).ok_or(libc::EINVAL)?;
            match map_memory(inner, &a) {
                Ok(linear) => {
                    a.params.p_linear_address = linear;
                    a.params.status = NV_OK;
                }
                Err(s) => a.params.status = s,
            }
            put(arg, &a);
        }
        ioctl::NV_ESC_RM_UNMAP_MEMORY => {
            expect(32)?;
            ctl_only(is_ctl)?;
            let mut a: NVOS34_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let st = inner.lock();
            a.status = match st.objects.get(&a.h_memory) {
                Some(Obj { kind: ObjKind::Memory { .. } | ObjKind::Usermode { .. }, .. }) => NV_OK,
                _ => NV_ERR_INVALID_OBJECT_HANDLE,
            };
            put(arg, &a);
        }
        ioctl::NV_ESC_RM_MAP_MEMORY_DMA => {
            let want = if inner.branch == Branch::V570 { 56 } else { 64 };
            expect(want)?;
            ctl_only(is_ctl)?;
            map_dma(inner, arg);
        }
        ioctl::NV_ESC_RM_UNMAP_MEMORY_DMA => {
            expect(48)?;
            ctl_only(is_ctl)?;
            let mut a: NVOS47_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
            let mut st = inner.lock();
            a.status = match st.gpu_maps.get(&a.dma_offset) {
                Some(m) if m.memory == a.h_memory => {
                    st.gpu_maps.remove(&a.dma_offset);
                    NV_OK
                }
                Some(_) => NV_ERR_INVALID_ARGUMENT,
                // UVM_FREE may have taken the mapping already.
                None if st.objects.contains_key(&a.h_memory) => NV_OK,
                None => NV_ERR_INVALID_OBJECT_HANDLE,
            };
            put(arg, &a);
        }
        _ => return Err(libc::EINVAL),
    }
    Ok(0)
}

fn ctl_only(is_ctl: bool) -> Res<()> {
    if is_ctl {
        Ok(())
    } else {
        Err(libc::EINVAL)
    }
}

/// The GPU an object belongs to (through its ancestors).
fn gpu_of(st: &State, mut h: Handle) -> Option<usize> {
    for _ in 0..64 {
        let o = st.objects.get(&h)?;
        match &o.kind {
            ObjKind::Device { gpu }
            | ObjKind::Subdevice { gpu }
            | ObjKind::Usermode { gpu, .. }
            | ObjKind::Memory { gpu, .. } => return Some(*gpu),
            ObjKind::Channel(c) => return Some(c.gpu),
            _ => h = o.parent,
        }
    }
    None
}

fn client_of(st: &State, mut h: Handle) -> Option<Handle> {
    for _ in 0..64 {
        let o = st.objects.get(&h)?;
        if matches!(o.kind, ObjKind::Client) {
            return Some(h);
        }
        h = o.parent;
    }
    None
}

fn new_handle(st: &mut State) -> Handle {
    loop {
        st.next_handle += 1;
        let h = 0xcaf0_0000 + st.next_handle;
        if !st.objects.contains_key(&h) {
            return h;
        }
    }
}

fn params<T: RmArg>(p: &[u8]) -> St<T> {
    if p.len() != std::mem::size_of::<T>() {
        return Err(NV_ERR_INVALID_PARAM_STRUCT);
    }
    from_bytes(p).ok_or(NV_ERR_INVALID_PARAM_STRUCT)
}

fn alloc(inner: &Arc<Inner>, a: &NVOS21_PARAMETERS) -> St<Handle> {
    let p = user(a.p_alloc_parms, a.params_size).ok_or(NV_ERR_INVALID_POINTER)?;
    let mut st = inner.lock();
    if a.h_class == NV01_ROOT_CLIENT || a.h_class == NV01_ROOT {
        let h = if a.h_object_new != 0 {
            if st.objects.contains_key(&a.h_object_new) {
                return Err(NV_ERR_INSERT_DUPLICATE_NAME);
            }
            a.h_object_new
        } else {
            st.next_client += 1;
            0xc1d0_0000 + st.next_client
        };
        st.objects.insert(h, Obj { parent: 0, class: a.h_class, kind: ObjKind::Client });
        return Ok(h);
    }
    if !matches!(st.objects.get(&a.h_root), Some(Obj { kind: ObjKind::Client, .. })) {
        return Err(NV_ERR_INVALID_CLIENT);
    }
    let parent = st.objects.get(&a.h_object_parent).cloned().ok_or(NV_ERR_INVALID_OBJECT_PARENT)?;
    if client_of(&st, a.h_object_parent) != Some(a.h_root) {
        return Err(NV_ERR_INVALID_OBJECT_PARENT);
    }
    if a.h_object_new != 0 && st.objects.contains_key(&a.h_object_new) {
        return Err(NV_ERR_INSERT_DUPLICATE_NAME);
    }
    let gpu = gpu_of(&st, a.h_object_parent);
    if a.h_class != NV01_DEVICE_0 {
        let g = gpu.ok_or(NV_ERR_INVALID_OBJECT_PARENT)?;
        if !inner.gpus[g].spec.classes.contains(&a.h_class) {
            return Err(NV_ERR_INVALID_CLASS);
        }
    }
    let need = |ok: bool| if ok { Ok(()) } else { Err(NV_ERR_INVALID_OBJECT_PARENT) };
    let class = a.h_class;
    let kind = match class {
        NV01_DEVICE_0 => {
            need(matches!(parent.kind, ObjKind::Client))?;
            let d: NV0080_ALLOC_PARAMETERS = params(p)?;
            let g = inner.gpus.iter().position(|g| g.index as u32 == d.device_id).ok_or(NV_ERR_INVALID_DEVICE)?;
            ObjKind::Device { gpu: g }
        }
        NV20_SUBDEVICE_0 => {
            let ObjKind::Device { gpu } = parent.kind else { return Err(NV_ERR_INVALID_OBJECT_PARENT) };
            if !p.is_empty() {
                let s: NV2080_ALLOC_PARAMETERS = params(p)?;
                if s.sub_device_id != 0 {
                    return Err(NV_ERR_INVALID_ARGUMENT);
                }
            }
            ObjKind::Subdevice { gpu }
        }
        VOLTA_USERMODE_A | TURING_USERMODE_A | AMPERE_USERMODE_A | HOPPER_USERMODE_A | BLACKWELL_USERMODE_A => {
            let ObjKind::Subdevice { gpu } = parent.kind else { return Err(NV_ERR_INVALID_OBJECT_PARENT) };
            if p.len() > 8 {
                return Err(NV_ERR_INVALID_PARAM_STRUCT);
            }
            let off = st.arena.take(USERMODE_SIZE).map_err(|_| NV_ERR_NO_MEMORY)?;
            let view = st.arena.view(off, USERMODE_SIZE).map_err(|_| NV_ERR_NO_MEMORY)?;
            let bell = view + DOORBELL_OFFSET;
            // SAFETY: the emulator's fresh view of the page.
            unsafe { super::write_u32(bell, DOORBELL_IDLE) };
            inner.doorbells.lock().unwrap_or_else(|e| e.into_inner()).push(bell);
            ObjKind::Usermode { gpu, backing: Backing::Arena { off, view } }
        }
        FERMI_VASPACE_A => {
            need(matches!(parent.kind, ObjKind::Device { .. }))?;
            let want = if inner.branch == Branch::V570 {
                std::mem::size_of::<v570::NV_VASPACE_ALLOCATION_PARAMETERS>()
            } else {
                std::mem::size_of::<v580::NV_VASPACE_ALLOCATION_PARAMETERS>()
            };
            if p.len() != want {
                return Err(NV_ERR_INVALID_PARAM_STRUCT);
            }
            ObjKind::VaSpace
        }
        NV01_MEMORY_VIRTUAL => {
            need(matches!(parent.kind, ObjKind::Device { .. }))?;
            let _: NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS = params(p)?;
            ObjKind::Virtual
        }
        NV01_MEMORY_LOCAL_USER | NV01_MEMORY_SYSTEM => {
            let ObjKind::Device { gpu } = parent.kind else { return Err(NV_ERR_INVALID_OBJECT_PARENT) };
            let mut m: NV_MEMORY_ALLOCATION_PARAMS = params(p)?;
            if m.size == 0 {
                return Err(NV_ERR_INVALID_ARGUMENT);
            }
            if m.alignment != 0 && !m.alignment.is_power_of_two() {
                return Err(NV_ERR_INVALID_ARGUMENT);
            }
            let size = m.size.next_multiple_of(0x1000);
            if class == NV01_MEMORY_LOCAL_USER {
                if st.vram_used[gpu].saturating_add(size) > inner.gpus[gpu].spec.memory_bytes {
                    return Err(NV_ERR_NO_MEMORY);
                }
                st.vram_used[gpu] += size;
            }
            let off = st.arena.take(size).map_err(|_| NV_ERR_NO_MEMORY)?;
            let view = st.arena.view(off, size).map_err(|_| NV_ERR_NO_MEMORY)?;
            m.limit = size - 1;
            m.offset = off;
            put(p, &m);
            ObjKind::Memory { gpu, class, size, backing: Backing::Arena { off, view } }
        }
        KEPLER_CHANNEL_GROUP_A => {
            need(matches!(parent.kind, ObjKind::Device { .. }))?;
            let g: NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS = params(p)?;
            if g.engine_type == 0 {
                return Err(NV_ERR_INVALID_ARGUMENT);
            }
            ObjKind::ChannelGroup { enabled: false }
        }
        FERMI_CONTEXT_SHARE_A => {
            need(matches!(parent.kind, ObjKind::ChannelGroup { .. }))?;
            let c: NV_CTXSHARE_ALLOCATION_PARAMETERS = params(p)?;
            if !matches!(st.objects.get(&c.h_va_space), Some(Obj { kind: ObjKind::VaSpace, .. })) {
                return Err(NV_ERR_INVALID_OBJECT_HANDLE);
            }
            ObjKind::CtxShare
        }
        VOLTA_CHANNEL_GPFIFO_A
        | TURING_CHANNEL_GPFIFO_A
        | AMPERE_CHANNEL_GPFIFO_A
        | HOPPER_CHANNEL_GPFIFO_A
        | BLACKWELL_CHANNEL_GPFIFO_A
        | BLACKWELL_CHANNEL_GPFIFO_B => {
            need(matches!(parent.kind, ObjKind::ChannelGroup { .. }))?;
            let c = channel_params(inner.branch, p)?;
            let info = new_channel(inner, &mut st, &c, a.h_object_parent)?;
            ObjKind::Channel(Box::new(info))
        }
        c if is_engine_class(c) => {
            let ObjKind::Channel(_) = parent.kind else { return Err(NV_ERR_INVALID_OBJECT_PARENT) };
            if ![0, 8, 16].contains(&p.len()) {
                return Err(NV_ERR_INVALID_PARAM_STRUCT);
            }
            ObjKind::Engine
        }
        NV01_EVENT_OS_EVENT => inner.events.alloc(&parent.kind, p)?,
        GT200_DEBUGGER => {
            let ObjKind::Device { gpu } = parent.kind else { return Err(NV_ERR_INVALID_OBJECT_PARENT) };
            let d: NV83DE_ALLOC_PARAMETERS = params(p)?;
            debugger_target(&st, a.h_root, gpu, &d)?
        }
        _ => return Err(NV_ERR_INVALID_CLASS),
    };
    let h = if a.h_object_new != 0 { a.h_object_new } else { new_handle(&mut st) };
    let starts = if let ObjKind::Channel(info) = &kind {
        matches!(st.objects.get(&info.group), Some(Obj { kind: ObjKind::ChannelGroup { enabled: true }, .. }))
    } else {
        false
    };
    st.objects.insert(h, Obj { parent: a.h_object_parent, class, kind });
    if starts {
        start_channel(inner, &mut st, h);
    }
    Ok(h)
}

/// What `ksmdbgssnConstruct` checks: the obsolete handle is 0, the app client (0 = the caller)
/// exists, `hClass3dObject` is one of its objects and a compute object, on the device's GPU.
fn debugger_target(st: &State, caller: Handle, gpu: usize, d: &NV83DE_ALLOC_PARAMETERS) -> St<ObjKind> {
    if d.h_debugger_client_obsolete != 0 {
        return Err(NV_ERR_INVALID_ARGUMENT);
    }
    let app = if d.h_app_client == 0 { caller } else { d.h_app_client };
    if !matches!(st.objects.get(&app), Some(Obj { kind: ObjKind::Client, .. })) {
        return Err(NV_ERR_INVALID_CLIENT);
    }
    let target = st.objects.get(&d.h_class3d_object).ok_or(NV_ERR_INVALID_OBJECT_PARENT)?;
    if client_of(st, d.h_class3d_object) != Some(app) {
        return Err(NV_ERR_INVALID_OBJECT_PARENT);
    }
    // Only graphics/compute objects have an SM context to debug (copy engines do not).
    if !matches!(target.kind, ObjKind::Engine) || !COMPUTE_CLASSES.contains(&target.class) {
        return Err(NV_ERR_INVALID_OBJECT);
    }
    if gpu_of(st, d.h_class3d_object) != Some(gpu) {
        return Err(NV_ERR_INVALID_ARGUMENT);
    }
    Ok(ObjKind::Debugger { channel: target.parent })
}

fn is_engine_class(c: u32) -> bool {
    COMPUTE_CLASSES.contains(&c) || COPY_CLASSES.contains(&c)
}

/// The fields of NV_CHANNEL_ALLOC_PARAMS the emulator uses, from any branch's layout.
struct ChannelParams {
    h_object_error: Handle,
    gp_fifo_offset: u64,
    gp_fifo_entries: u32,
    h_userd_memory: Handle,
    userd_offset: u64,
}

fn channel_params(branch: Branch, p: &[u8]) -> St<ChannelParams> {
    if branch == Branch::V610 {
        let c: v610::NV_CHANNEL_ALLOC_PARAMS = params(p)?;
        Ok(ChannelParams {
            h_object_error: c.h_object_error,
            gp_fifo_offset: c.gp_fifo_offset,
            gp_fifo_entries: c.gp_fifo_entries,
            h_userd_memory: c.h_userd_memory[0],
            userd_offset: c.userd_offset[0],
        })
    } else {
        let c: v580::NV_CHANNEL_ALLOC_PARAMS = params(p)?;
        Ok(ChannelParams {
            h_object_error: c.h_object_error,
            gp_fifo_offset: c.gp_fifo_offset,
            gp_fifo_entries: c.gp_fifo_entries,
            h_userd_memory: c.h_userd_memory[0],
            userd_offset: c.userd_offset[0],
        })
    }
}

fn new_channel(inner: &Inner, st: &mut State, c: &ChannelParams, group: Handle) -> St<ChannelInfo> {
    let gpu = gpu_of(st, group).ok_or(NV_ERR_INVALID_OBJECT_PARENT)?;
    // The error notifier: RM writes NvNotification[NOTIFIERS_RC] there when the channel faults.
    let error_notifier = match st.objects.get(&c.h_object_error) {
        Some(Obj { kind: ObjKind::Memory { size, backing, .. }, .. }) if *size >= 16 => backing.host(),
        Some(Obj { kind: ObjKind::Memory { .. }, .. }) => return Err(NV_ERR_INVALID_ARGUMENT),
        _ => return Err(NV_ERR_INVALID_OBJECT_HANDLE),
    };
    if c.gp_fifo_entries < 2 || !c.gp_fifo_entries.is_power_of_two() || !c.gp_fifo_offset.is_multiple_of(8) {
        return Err(NV_ERR_INVALID_ARGUMENT);
    }
    // USERD: 0x200 bytes of the given memory at the given offset.
    let Some(Obj { kind: ObjKind::Memory { size, backing, .. }, .. }) = st.objects.get(&c.h_userd_memory) else {
        return Err(NV_ERR_INVALID_OBJECT_HANDLE);
    };
    if !c.userd_offset.is_multiple_of(0x200) || c.userd_offset.checked_add(0x200).is_none_or(|e| e > *size) {
        return Err(NV_ERR_INVALID_OFFSET);
    }
    let userd = backing.host() + c.userd_offset as usize;
    let _ = inner;
    let token = st.next_token;
    st.next_token += 1;
    let pins = [c.h_userd_memory, c.h_object_error];
    Ok(ChannelInfo {
        gpu,
        token,
        ring_va: c.gp_fifo_offset,
        entries: c.gp_fifo_entries,
        userd,
        group,
        error_notifier,
        pins,
    })
}

fn start_channel(inner: &Arc<Inner>, st: &mut State, h: Handle) {
    if st.channels.contains_key(&h) {
        return;
    }
    let Some(Obj { kind: ObjKind::Channel(info), .. }) = st.objects.get(&h) else { return };
    let info = (**info).clone();
    // Its USERD or notifier was freed (which stopped it): it cannot run again.
    if info.pins.iter().any(|m| !st.objects.contains_key(m)) {
        return;
    }
    let engines: Vec<u32> =
        st.objects.values().filter(|o| o.parent == h && matches!(o.kind, ObjKind::Engine)).map(|o| o.class).collect();
    match channel::start(inner, info, engines) {
        Ok(ctl) => {
            st.channels.insert(h, ctl);
        }
        Err(e) => log::warn!("emulated RM: starting channel {h:#x}: {e}"),
    }
}

fn alloc_os_descriptor(inner: &Arc<Inner>, a: &NVOS02_PARAMETERS) -> St<Handle> {
    let mut st = inner.lock();
    if !matches!(st.objects.get(&a.h_root), Some(Obj { kind: ObjKind::Client, .. })) {
        return Err(NV_ERR_INVALID_CLIENT);
    }
    let Some(Obj { kind: ObjKind::Device { gpu }, .. }) = st.objects.get(&a.h_object_parent).cloned() else {
        return Err(NV_ERR_INVALID_OBJECT_PARENT);
    };
    if a.h_class != NV01_MEMORY_SYSTEM_OS_DESCRIPTOR {
        return Err(NV_ERR_INVALID_CLASS);
    }
    if a.p_memory == 0 || !a.p_memory.is_multiple_of(0x1000) {
        return Err(NV_ERR_INVALID_ADDRESS);
    }
    let size = a.limit.checked_add(1).ok_or(NV_ERR_INVALID_LIMIT)?;
    if !size.is_multiple_of(0x1000) {
        return Err(NV_ERR_INVALID_LIMIT);
    }
    if a.h_object_new != 0 && st.objects.contains_key(&a.h_object_new) {
        return Err(NV_ERR_INSERT_DUPLICATE_NAME);
    }
    let h = if a.h_object_new != 0 { a.h_object_new } else { new_handle(&mut st) };
    let backing = Backing::Host { addr: a.p_memory as usize };
    st.objects.insert(
        h,
        Obj {
            parent: a.h_object_parent,
            class: a.h_class,
            kind: ObjKind::Memory { gpu, class: a.h_class, size, backing },
        },
    );
    Ok(h)
}

const NV_ERR_INVALID_ADDRESS: u32 = 0x1e;

fn map_memory(inner: &Arc<Inner>, a: &nv_ioctl_nvos33_parameters_with_fd) -> St<u64> {
    let mut st = inner.lock();
    let p = &a.params;
    if !matches!(st.objects.get(&p.h_client), Some(Obj { kind: ObjKind::Client, .. })) {
        return Err(NV_ERR_INVALID_CLIENT);
    }
    if !matches!(
        st.objects.get(&p.h_device),
        Some(Obj { kind: ObjKind::Device { .. } | ObjKind::Subdevice { .. }, .. })
    ) {
        return Err(NV_ERR_INVALID_OBJECT_HANDLE);
    }
    let (backing, size) = match st.objects.get(&p.h_memory).map(|o| &o.kind) {
        Some(ObjKind::Memory { backing, size, .. }) => (*backing, *size),
        Some(ObjKind::Usermode { backing, .. }) => (*backing, USERMODE_SIZE),
        _ => return Err(NV_ERR_INVALID_OBJECT_HANDLE),
    };
    if matches!(backing, Backing::Host { .. }) {
        return Err(NV_ERR_NOT_SUPPORTED);
    }
    if p.length == 0 || p.offset.checked_add(p.length).is_none_or(|e| e > size) || !p.offset.is_multiple_of(0x1000) {
        return Err(NV_ERR_INVALID_LIMIT);
    }
    // The fd the mapping will be made through: a registered /dev/nvidiaN, or a /dev/nvidiactl.
    match st.files.get(&a.fd) {
        Some(NvFile::Dev { registered: true, .. }) | Some(NvFile::Ctl) => {}
        _ => return Err(NV_ERR_INVALID_ARGUMENT),
    }
    let Backing::Arena { off, view } = backing else { unreachable!() };
    let ctx = Backing::Arena { off: off + p.offset, view: view + p.offset as usize };
    st.mmap_ctx.insert(a.fd, MmapContext { backing: ctx, len: p.length });
    Ok(0x7e00_0000_0000 + off + p.offset)
}

fn map_dma(inner: &Arc<Inner>, arg: &mut [u8]) {
    let (mut a, v570) = if inner.branch == Branch::V570 {
        let o: v570::NVOS46_PARAMETERS = from_bytes(arg).expect("size checked");
        let a = v580::NVOS46_PARAMETERS {
            h_client: o.h_client,
            h_device: o.h_device,
            h_dma: o.h_dma,
            h_memory: o.h_memory,
            offset: o.offset,
            length: o.length,
            flags: o.flags,
            dma_offset: o.dma_offset,
            ..Default::default()
        };
        (a, true)
    } else {
        (from_bytes::<v580::NVOS46_PARAMETERS>(arg).expect("size checked"), false)
    };
    match dma(inner, &a) {
        Ok(va) => {
            a.dma_offset = va;
            a.status = NV_OK;
        }
        Err(s) => a.status = s,
    }
    if v570 {
        arg[40..48].copy_from_slice(&a.dma_offset.to_ne_bytes());
        arg[48..52].copy_from_slice(&a.status.to_ne_bytes());
    } else {
        put(arg, &a);
    }
}

fn dma(inner: &Arc<Inner>, a: &v580::NVOS46_PARAMETERS) -> St<u64> {
    let mut st = inner.lock();
    if !matches!(st.objects.get(&a.h_client), Some(Obj { kind: ObjKind::Client, .. })) {
        return Err(NV_ERR_INVALID_CLIENT);
    }
    if !matches!(st.objects.get(&a.h_dma), Some(Obj { kind: ObjKind::Virtual | ObjKind::VaSpace, .. })) {
        return Err(NV_ERR_INVALID_DMA_SPECIFIER);
    }
    let Some(Obj { kind: ObjKind::Memory { size, backing, .. }, .. }) = st.objects.get(&a.h_memory).cloned() else {
        return Err(NV_ERR_INVALID_OBJECT_HANDLE);
    };
    let len = if a.length == 0 { size } else { a.length };
    if a.offset.checked_add(len).is_none_or(|e| e > size) {
        return Err(NV_ERR_INVALID_LIMIT);
    }
    let fixed = a.flags & flags::NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE != 0;
    let va = if fixed {
        if !a.dma_offset.is_multiple_of(0x1000) {
            return Err(NV_ERR_INVALID_OFFSET);
        }
        a.dma_offset
    } else {
        let va = st.next_dma_va;
        st.next_dma_va += len.next_multiple_of(0x20_0000);
        va
    };
    let end = va.checked_add(len).ok_or(NV_ERR_INVALID_OFFSET)?;
    if st.gpu_maps.range(..end).next_back().is_some_and(|(b, m)| b + m.len > va) {
        return Err(NV_ERR_INVALID_OFFSET);
    }
    st.gpu_maps.insert(va, GpuMap { len, host: backing.host() + a.offset as usize, memory: a.h_memory });
    Ok(va)
}

/// RM_FREE: the object and everything under it. Channels that could touch what goes are
/// stopped into `retired` (joined before the escape returns); see [`teardown`] for the order.
fn free(inner: &Arc<Inner>, a: &NVOS00_PARAMETERS, retired: &mut Retired) -> St<()> {
    let mut st = inner.lock();
    if !matches!(st.objects.get(&a.h_root), Some(Obj { kind: ObjKind::Client, .. })) {
        return Err(NV_ERR_INVALID_CLIENT);
    }
    let target = if a.h_object_old == 0 { a.h_root } else { a.h_object_old };
    if !st.objects.contains_key(&target) || client_of(&st, target) != Some(a.h_root) {
        return Err(NV_ERR_OBJECT_NOT_FOUND);
    }
    let mut doomed = vec![target];
    let mut i = 0;
    while i < doomed.len() {
        let h = doomed[i];
        doomed.extend(st.objects.iter().filter(|(_, o)| o.parent == h).map(|(k, _)| *k));
        i += 1;
    }
    for h in doomed {
        let Some(o) = st.objects.remove(&h) else { continue };
        if let Some(ch) = st.channels.remove(&h) {
            retired.push(ch, None);
        }
        let pinned: Vec<Handle> = st.channels.iter().filter(|(_, c)| c.pins.contains(&h)).map(|(k, _)| *k).collect();
        for k in pinned {
            let why = format!("memory {h:#x} (its USERD or error notifier) was freed while the channel was live");
            retired.push(st.channels.remove(&k).expect("listed"), Some(why));
        }
        if let ObjKind::Channel(c) = &o.kind {
            inner.fault_records.lock().unwrap_or_else(|e| e.into_inner()).remove(&c.token);
        }
        match o.kind {
            ObjKind::Memory { gpu, class, size, backing } => {
                let mapped = st.gpu_maps.values().any(|m| m.memory == h);
                st.gpu_maps.retain(|_, m| m.memory != h);
                match backing {
                    Backing::Arena { off, view } => teardown::release(&mut st, Freed { view, off, size }),
                    // The caller unmaps its own pages once we return: a channel at work may
                    // hold a translation of them, so it stops (RM would fault it).
                    Backing::Host { .. } if mapped => {
                        let busy: Vec<Handle> = st
                            .channels
                            .iter()
                            .filter(|(_, c)| c.busy.load(Ordering::Acquire))
                            .map(|(k, _)| *k)
                            .collect();
                        for k in busy {
                            let why = format!("memory {h:#x} was freed while the channel was using the GPU's mappings");
                            retired.push(st.channels.remove(&k).expect("listed"), Some(why));
                        }
                    }
                    Backing::Host { .. } => {}
                }
                if class == NV01_MEMORY_LOCAL_USER {
                    st.vram_used[gpu] -= size;
                }
            }
            ObjKind::Usermode { backing: Backing::Arena { off, view }, .. } => {
                // Under the list's lock, which the watcher holds while it reads the bells.
                inner.doorbells.lock().unwrap_or_else(|e| e.into_inner()).retain(|b| *b != view + DOORBELL_OFFSET);
                teardown::release(&mut st, Freed { view, off, size: USERMODE_SIZE });
            }
            _ => {}
        }
    }
    Ok(())
}

/// The object class family a control command belongs to (`cmd >> 16`).
fn control(inner: &Arc<Inner>, a: &NVOS54_PARAMETERS, retired: &mut Retired) -> St<()> {
    let p = user(a.params, a.params_size).ok_or(NV_ERR_INVALID_POINTER)?;
    let mut st = inner.lock();
    if !matches!(st.objects.get(&a.h_client), Some(Obj { kind: ObjKind::Client, .. })) {
        return Err(NV_ERR_INVALID_CLIENT);
    }
    let obj = st.objects.get(&a.h_object).cloned().ok_or(NV_ERR_INVALID_OBJECT_HANDLE)?;
    if client_of(&st, a.h_object) != Some(a.h_client) {
        return Err(NV_ERR_INVALID_OBJECT_HANDLE);
    }
    let family = a.cmd >> 16;
    let kind_ok = match family {
        0x0000 => matches!(obj.kind, ObjKind::Client),
        0x0080 => matches!(obj.kind, ObjKind::Device { .. }),
        0x2080 => matches!(obj.kind, ObjKind::Subdevice { .. }),
        0xa06c => matches!(obj.kind, ObjKind::ChannelGroup { .. }),
        0xa06f | 0xc36f => matches!(obj.kind, ObjKind::Channel(_)),
        0x83de => obj.class == GT200_DEBUGGER,
        _ => false,
    };
    if !kind_ok {
        return Err(NV_ERR_NOT_SUPPORTED);
    }
    let gpu = gpu_of(&st, a.h_object);
    let spec = gpu.map(|g| &inner.gpus[g]);
    match a.cmd {
        NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 => {
            let mut q: NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS = params(p)?;
            let g = inner.gpus.iter().find(|g| g.gpu_id == q.gpu_id).ok_or(NV_ERR_INVALID_ARGUMENT)?;
            q.device_instance = g.index as u32;
            q.sub_device_instance = 0;
            q.gpu_instance = g.index as u32;
            q.numa_id = -1;
            put(p, &q);
        }
        NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2 => {
            let mut q: NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS = params(p)?;
            let v = inner.version.as_bytes();
            q.driver_version_buffer = [0; 256];
            q.driver_version_buffer[..v.len()].copy_from_slice(v);
            q.version_buffer = q.driver_version_buffer;
            let branch = format!("r{}_00", inner.branch.name());
            q.driver_branch = [0; 256];
            q.driver_branch[..branch.len()].copy_from_slice(branch.as_bytes());
            q.title_buffer = [0; 256];
            q.title_buffer[..12].copy_from_slice(b"baregpu-emu\0");
            q.changelist_number = 0;
            q.official_changelist_number = 0;
            put(p, &q);
        }
        NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2 => {
            let max = if inner.branch == Branch::V570 { 100 } else { 200 };
            if p.len() != 4 + 4 * max {
                return Err(NV_ERR_INVALID_PARAM_STRUCT);
            }
            let classes = spec.ok_or(NV_ERR_INVALID_OBJECT_HANDLE)?.spec.classes;
            p.fill(0);
            p[0..4].copy_from_slice(&(classes.len() as u32).to_ne_bytes());
            for (i, c) in classes.iter().enumerate() {
                p[4 + 4 * i..8 + 4 * i].copy_from_slice(&c.to_ne_bytes());
            }
        }
        NV0080_CTRL_CMD_GPU_GET_CLASSLIST => {
            let mut q: NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS = params(p)?;
            let classes = spec.ok_or(NV_ERR_INVALID_OBJECT_HANDLE)?.spec.classes;
            if q.class_list != 0 {
                if (q.num_classes as usize) < classes.len() {
                    return Err(NV_ERR_INVALID_PARAM_STRUCT);
                }
                let out = user(q.class_list, 4 * classes.len() as u32).ok_or(NV_ERR_INVALID_POINTER)?;
                for (i, c) in classes.iter().enumerate() {
                    out[4 * i..4 * i + 4].copy_from_slice(&c.to_ne_bytes());
                }
            }
            q.num_classes = classes.len() as u32;
            put(p, &q);
        }
        NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION => {
            let q: NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS = params(p)?;
            inner.events.set_notification(a.h_object, &q)?;
        }
        NV2080_CTRL_CMD_MC_GET_ARCH_INFO => {
            let g = spec.ok_or(NV_ERR_INVALID_OBJECT_HANDLE)?;
            let mut q: NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS = params(p)?;
            q.architecture = g.spec.architecture;
            q.implementation = g.spec.implementation;
            q.revision = 0xa1;
            put(p, &q);
        }
        NV2080_CTRL_CMD_GPU_GET_GID_INFO => {
            let g = spec.ok_or(NV_ERR_INVALID_OBJECT_HANDLE)?;
            let mut q: NV2080_CTRL_GPU_GET_GID_INFO_PARAMS = params(p)?;
            q.data = [0; 256];
            if q.flags & 3 == NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY {
                if q.flags & 4 != 0 {
                    return Err(NV_ERR_NOT_SUPPORTED); // SHA-256 GIDs are not modelled
                }
                q.data[..16].copy_from_slice(&g.uuid);
                q.length = 16;
            } else {
                let s = g.uuid_string();
                q.data[..s.len()].copy_from_slice(s.as_bytes());
                q.length = s.len() as u32 + 1;
            }
            put(p, &q);
        }
        NV2080_CTRL_CMD_GR_GET_INFO => {
            let g = spec.ok_or(NV_ERR_INVALID_OBJECT_HANDLE)?;
            let q: NV2080_CTRL_GR_GET_INFO_PARAMS = params(p)?;
            if q.gr_info_list_size == 0 || q.gr_info_list_size > 0x100 {
                return Err(NV_ERR_INVALID_ARGUMENT);
            }
            let list = user(q.gr_info_list, q.gr_info_list_size * 8).ok_or(NV_ERR_INVALID_POINTER)?;
            for e in list.chunks_exact_mut(8) {
                let index = u32::from_ne_bytes(e[0..4].try_into().expect("4"));
                let data = match index {
                    NV2080_CTRL_GR_INFO_INDEX_SM_VERSION => g.spec.sm_version,
                    NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM => g.spec.max_warps_per_sm,
                    NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS => g.spec.gpcs,
                    NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC => g.spec.tpc_per_gpc,
                    NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC => g.spec.sm_per_tpc,
                    // NV2080_CTRL_GR_INFO_INDEX_THREAD_STACK_SCALING_FACTOR, SM count etc.
                    0x3c => g.spec.sm_count,
                    i if i > 0x50 => return Err(NV_ERR_INVALID_ARGUMENT),
                    _ => 0,
                };
                e[4..8].copy_from_slice(&data.to_ne_bytes());
            }
        }
        NV2080_CTRL_CMD_PERF_BOOST => {
            let _: NV2080_CTRL_PERF_BOOST_PARAMS = params(p)?;
        }
        NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE => {
            let _: NV2080_CTRL_FB_FLUSH_GPU_CACHE_PARAMS = params(p)?;
        }
        NVA06C_CTRL_CMD_GPFIFO_SCHEDULE => {
            let q: NVA06C_CTRL_GPFIFO_SCHEDULE_PARAMS = params(p)?;
            if let Some(Obj { kind: ObjKind::ChannelGroup { enabled }, .. }) = st.objects.get_mut(&a.h_object) {
                *enabled = q.b_enable != 0;
            }
            let members: Vec<Handle> = st
                .objects
                .iter()
                .filter(|(_, o)| matches!(&o.kind, ObjKind::Channel(c) if c.group == a.h_object))
                .map(|(h, _)| *h)
                .collect();
            for h in members {
                if q.b_enable != 0 {
                    start_channel(inner, &mut st, h);
                } else if let Some(ch) = st.channels.remove(&h) {
                    retired.push(ch, None);
                }
            }
        }
        NVA06F_CTRL_CMD_GPFIFO_SCHEDULE => {
            let q: NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS = params(p)?;
            if q.b_enable != 0 {
                start_channel(inner, &mut st, a.h_object);
            }
        }
        NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN => {
            let mut q: NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS = params(p)?;
            let ObjKind::Channel(c) = &obj.kind else { return Err(NV_ERR_NOT_SUPPORTED) };
            q.work_submit_token = c.token;
            put(p, &q);
        }
        NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES => {
            let mut q: NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS = params(p)?;
            let ObjKind::Debugger { channel } = obj.kind else { return Err(NV_ERR_NOT_SUPPORTED) };
            let token = debugged_channel(&st, channel, q.h_target_channel)?;
            if q.num_sms_to_read as usize > NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL {
                return Err(NV_ERR_INVALID_ARGUMENT);
            }
            let records = inner.fault_records.lock().unwrap_or_else(|e| e.into_inner());
            let rec = records.get(&token);
            // SMs past the GPU's (or with no error) read as clear, as RM reports absent SMs.
            for (i, e) in q.sm_error_state_array.iter_mut().enumerate() {
                let sm = q.starting_sm as u64 + i as u64;
                *e = match rec.and_then(|r| r.sm) {
                    Some((at, regs)) if i < q.num_sms_to_read as usize && at as u64 == sm => regs,
                    _ => Default::default(),
                };
            }
            let faulted = rec.is_some_and(|r| !r.mmu.is_empty());
            // faultInfo (the raw NV_PFIFO_INTR_MMU_FAULT_INFO) is not modelled: 0.
            q.mmu_fault = NV83DE_MMU_FAULT_INFO { valid: faulted as u8, ..Default::default() };
            q.mmu_fault_info = 0;
            put(p, &q);
        }
        NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO => {
            // Everything in it is output; reading it checks the size.
            let _: NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS = params(p)?;
            let ObjKind::Debugger { channel } = obj.kind else { return Err(NV_ERR_NOT_SUPPORTED) };
            let token = debugged_channel(&st, channel, channel)?;
            let records = inner.fault_records.lock().unwrap_or_else(|e| e.into_inner());
            let list = records.get(&token).map(|r| r.mmu.as_slice()).unwrap_or_default();
            let mut q = NV83DE_CTRL_DEBUG_READ_MMU_FAULT_INFO_PARAMS { count: list.len() as u32, ..Default::default() };
            q.mmu_fault_info_list[..list.len()].copy_from_slice(list);
            put(p, &q);
        }
        _ => return Err(NV_ERR_NOT_SUPPORTED),
    }
    Ok(())
}

/// The work-submit token of the channel a debugger session is on, checking that `target` (the
/// control's `hTargetChannel`) is that channel.
fn debugged_channel(st: &State, session: Handle, target: Handle) -> St<u32> {
    let Some(Obj { kind: ObjKind::Channel(c), .. }) = st.objects.get(&target) else {
        return Err(NV_ERR_INVALID_OBJECT_HANDLE);
    };
    if target != session {
        return Err(NV_ERR_INVALID_ARGUMENT);
    }
    Ok(c.token)
}
