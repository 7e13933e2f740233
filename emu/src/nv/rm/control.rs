//! RM_CONTROL: the control commands, each on the kind of object its class family names.

use super::super::EmuNvGpu;
use super::alloc::start_channel;
use super::*;

/// RM_CONTROL: the command's class family (`cmd >> 16`) names the kind of object it runs on; each
/// family's commands are answered by its own function below.
pub(super) fn control(inner: &Arc<Inner>, a: &NVOS54_PARAMETERS, retired: &mut Retired) -> St<()> {
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
    match family {
        0x0000 => client_control(inner, a, p),
        0x0080 => device_control(inner, a, spec, p),
        0x2080 => subdevice_control(inner, a, spec, p),
        0xa06c | 0xa06f | 0xc36f => fifo_control(inner, &mut st, a, &obj, p, retired),
        0x83de => debugger_control(inner, &st, a, &obj, p),
        _ => Err(NV_ERR_NOT_SUPPORTED),
    }
}

/// NV0000: the client's (system-wide) commands.
fn client_control(inner: &Inner, a: &NVOS54_PARAMETERS, p: &mut [u8]) -> St<()> {
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
        _ => return Err(NV_ERR_NOT_SUPPORTED),
    }
    Ok(())
}

/// NV0080: the device's commands.
fn device_control(inner: &Inner, a: &NVOS54_PARAMETERS, spec: Option<&EmuNvGpu>, p: &mut [u8]) -> St<()> {
    match a.cmd {
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
        _ => return Err(NV_ERR_NOT_SUPPORTED),
    }
    Ok(())
}

/// NV2080: the subdevice's commands.
fn subdevice_control(inner: &Inner, a: &NVOS54_PARAMETERS, spec: Option<&EmuNvGpu>, p: &mut [u8]) -> St<()> {
    match a.cmd {
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
        _ => return Err(NV_ERR_NOT_SUPPORTED),
    }
    Ok(())
}

/// NVA06C, NVA06F and NVC36F: scheduling channel groups and channels, and a channel's work-submit token.
fn fifo_control(
    inner: &Arc<Inner>,
    st: &mut State,
    a: &NVOS54_PARAMETERS,
    obj: &Obj,
    p: &mut [u8],
    retired: &mut Retired,
) -> St<()> {
    match a.cmd {
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
                    start_channel(inner, st, h);
                } else if let Some(ch) = st.channels.remove(&h) {
                    retired.push(ch, None);
                }
            }
        }
        NVA06F_CTRL_CMD_GPFIFO_SCHEDULE => {
            let q: NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS = params(p)?;
            if q.b_enable != 0 {
                start_channel(inner, st, a.h_object);
            }
        }
        NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN => {
            let mut q: NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS = params(p)?;
            let ObjKind::Channel(c) = &obj.kind else { return Err(NV_ERR_NOT_SUPPORTED) };
            q.work_submit_token = c.token;
            put(p, &q);
        }
        _ => return Err(NV_ERR_NOT_SUPPORTED),
    }
    Ok(())
}

/// NV83DE: a debugger session's reads of what its channel's fault recorded.
fn debugger_control(inner: &Inner, st: &State, a: &NVOS54_PARAMETERS, obj: &Obj, p: &mut [u8]) -> St<()> {
    match a.cmd {
        NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES => {
            let mut q: NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS = params(p)?;
            let ObjKind::Debugger { channel } = obj.kind else { return Err(NV_ERR_NOT_SUPPORTED) };
            let token = debugged_channel(st, channel, q.h_target_channel)?;
            if q.num_sms_to_read as usize > NV83DE_CTRL_DEBUG_MAX_SMS_PER_CALL {
                return Err(NV_ERR_INVALID_ARGUMENT);
            }
            // SMs past the ones the GPU enables are refused: an H200 on the 580 driver refused
            // SMs 100..144 (its litter counts 144, it enables 132).
            let Some(Obj { kind: ObjKind::Channel(c), .. }) = st.objects.get(&channel) else {
                return Err(NV_ERR_INVALID_OBJECT_HANDLE);
            };
            let enabled = inner.gpus[c.gpu].spec.sm_count as u64;
            if q.starting_sm as u64 + q.num_sms_to_read as u64 > enabled {
                return Err(NV_ERR_INVALID_ARGUMENT);
            }
            let records = inner.fault_records.lock().unwrap_or_else(|e| e.into_inner());
            let rec = records.get(&token);
            // SMs with no error read as clear.
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
            let token = debugged_channel(st, channel, channel)?;
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
pub(super) fn debugged_channel(st: &State, session: Handle, target: Handle) -> St<u32> {
    let Some(Obj { kind: ObjKind::Channel(c), .. }) = st.objects.get(&target) else {
        return Err(NV_ERR_INVALID_OBJECT_HANDLE);
    };
    if target != session {
        return Err(NV_ERR_INVALID_ARGUMENT);
    }
    Ok(c.token)
}
