//! Memory: OS-descriptor allocation (ALLOC_MEMORY), CPU mappings (MAP_MEMORY) and GPU
//! virtual mappings (MAP_MEMORY_DMA).

use super::*;

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
    // The client names an OS descriptor itself: the 580 driver chooses no handle for it (an H200
    // answered NV_OK and handle 0, and the memory could not be named afterwards).
    if a.h_object_new == 0 {
        return Err(NV_ERR_INVALID_OBJECT_HANDLE);
    }
    if st.objects.contains_key(&a.h_object_new) {
        return Err(NV_ERR_INSERT_DUPLICATE_NAME);
    }
    let h = a.h_object_new;
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

fn cpu_map(inner: &Arc<Inner>, a: &nv_ioctl_nvos33_parameters_with_fd) -> St<u64> {
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

pub(super) fn map_dma(inner: &Arc<Inner>, arg: &mut [u8]) {
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

/// UNMAP_MEMORY: the CPU mapping is the caller's to undo; RM checks the memory handle.
pub(super) fn unmap_memory(inner: &Inner, arg: &mut [u8]) -> Res<()> {
    let mut a: NVOS34_PARAMETERS = from_bytes(arg).ok_or(libc::EINVAL)?;
    let st = inner.lock();
    a.status = match st.objects.get(&a.h_memory) {
        Some(Obj { kind: ObjKind::Memory { .. } | ObjKind::Usermode { .. }, .. }) => NV_OK,
        _ => NV_ERR_INVALID_OBJECT_HANDLE,
    };
    put(arg, &a);
    Ok(())
}

/// UNMAP_MEMORY_DMA: removes the GPU mapping at `dma_offset` of the given memory.
pub(super) fn unmap_dma(inner: &Inner, arg: &mut [u8]) -> Res<()> {
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
    Ok(())
}

/// ALLOC_MEMORY: an OS descriptor (the caller's pages) as a memory object.
pub(super) fn alloc_memory(inner: &Arc<Inner>, arg: &mut [u8]) -> Res<()> {
    let mut a: nv_ioctl_nvos02_parameters_with_fd = from_bytes(arg).ok_or(libc::EINVAL)?;
    match alloc_os_descriptor(inner, &a.params) {
        Ok(h) => {
            a.params.h_object_new = h;
            a.params.status = NV_OK;
        }
        Err(s) => a.params.status = s,
    }
    put(arg, &a);
    Ok(())
}

/// MAP_MEMORY: where the next mmap of the given fd maps the memory.
pub(super) fn map_memory(inner: &Arc<Inner>, arg: &mut [u8]) -> Res<()> {
    let mut a: nv_ioctl_nvos33_parameters_with_fd = from_bytes(arg).ok_or(libc::EINVAL)?;
    match cpu_map(inner, &a) {
        Ok(linear) => {
            a.params.p_linear_address = linear;
            a.params.status = NV_OK;
        }
        Err(s) => a.params.status = s,
    }
    put(arg, &a);
    Ok(())
}
