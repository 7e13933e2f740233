//! RM_ALLOC: creating clients, devices, memory, channels and the other objects RM's resource
//! server constructs, with the checks each class's constructor makes; and starting channels.

use super::*;

pub(super) fn alloc(inner: &Arc<Inner>, a: &NVOS21_PARAMETERS) -> St<Handle> {
    let p = user(a.p_alloc_parms, a.params_size).ok_or(NV_ERR_INVALID_POINTER)?;
    let mut st = inner.lock();
    if a.h_class == NV01_ROOT_CLIENT || a.h_class == NV01_ROOT {
        return alloc_client(&mut st, a);
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
    let kind = new_object(inner, &mut st, a, &parent, p)?;
    let h = if a.h_object_new != 0 { a.h_object_new } else { new_handle(&mut st) };
    let starts = if let ObjKind::Channel(info) = &kind {
        matches!(st.objects.get(&info.group), Some(Obj { kind: ObjKind::ChannelGroup { enabled: true }, .. }))
    } else {
        false
    };
    st.objects.insert(h, Obj { parent: a.h_object_parent, class: a.h_class, kind });
    if starts {
        start_channel(inner, &mut st, h);
    }
    Ok(h)
}

/// A root client (the handle RM picks when the caller gives none).
fn alloc_client(st: &mut State, a: &NVOS21_PARAMETERS) -> St<Handle> {
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
    Ok(h)
}

/// The object of class `a.h_class` under `parent`, with the checks its class's constructor makes.
fn new_object(inner: &Arc<Inner>, st: &mut State, a: &NVOS21_PARAMETERS, parent: &Obj, p: &mut [u8]) -> St<ObjKind> {
    let need = |ok: bool| if ok { Ok(()) } else { Err(NV_ERR_INVALID_OBJECT_PARENT) };
    let class = a.h_class;
    Ok(match class {
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
            alloc_usermode(inner, st, parent, p)?
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
        NV01_MEMORY_LOCAL_USER | NV01_MEMORY_SYSTEM => alloc_memory(inner, st, class, parent, p)?,
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
            let info = new_channel(inner, st, &c, a.h_object_parent)?;
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
            debugger_target(st, a.h_root, gpu, &d)?
        }
        _ => return Err(NV_ERR_INVALID_CLASS),
    })
}

/// A USERMODE object: the page with the doorbell the driver rings.
fn alloc_usermode(inner: &Inner, st: &mut State, parent: &Obj, p: &[u8]) -> St<ObjKind> {
    let ObjKind::Subdevice { gpu } = parent.kind else { return Err(NV_ERR_INVALID_OBJECT_PARENT) };
    if p.len() > 8 {
        return Err(NV_ERR_INVALID_PARAM_STRUCT);
    }
    let off = st.arena.take(USERMODE_SIZE).map_err(|_| NV_ERR_NO_MEMORY)?;
    let view = st.arena.view(off, USERMODE_SIZE).map_err(|_| NV_ERR_NO_MEMORY)?;
    let bell = view + DOORBELL_OFFSET;
    // SAFETY: the emulator's fresh view of the page.
    unsafe { super::super::write_u32(bell, DOORBELL_IDLE) };
    inner.doorbells.lock().unwrap_or_else(|e| e.into_inner()).push(bell);
    Ok(ObjKind::Usermode { gpu, backing: Backing::Arena { off, view } })
}

/// Video or system memory of the arena, counted against the GPU's memory when it is video memory.
fn alloc_memory(inner: &Inner, st: &mut State, class: u32, parent: &Obj, p: &mut [u8]) -> St<ObjKind> {
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
    Ok(ObjKind::Memory { gpu, class, size, backing: Backing::Arena { off, view } })
}

/// What `ksmdbgssnConstruct` checks: the obsolete handle is 0, the app client (0 = the caller)
/// exists, `hClass3dObject` is one of its objects and a compute object, on the device's GPU.
pub(super) fn debugger_target(st: &State, caller: Handle, gpu: usize, d: &NV83DE_ALLOC_PARAMETERS) -> St<ObjKind> {
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

pub(super) fn is_engine_class(c: u32) -> bool {
    COMPUTE_CLASSES.contains(&c) || COPY_CLASSES.contains(&c)
}

/// The fields of NV_CHANNEL_ALLOC_PARAMS the emulator uses, from any branch's layout.
pub(super) struct ChannelParams {
    h_object_error: Handle,
    gp_fifo_offset: u64,
    gp_fifo_entries: u32,
    h_userd_memory: Handle,
    userd_offset: u64,
}

pub(super) fn channel_params(branch: Branch, p: &[u8]) -> St<ChannelParams> {
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

pub(super) fn new_channel(inner: &Inner, st: &mut State, c: &ChannelParams, group: Handle) -> St<ChannelInfo> {
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

pub(super) fn start_channel(inner: &Arc<Inner>, st: &mut State, h: Handle) {
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
