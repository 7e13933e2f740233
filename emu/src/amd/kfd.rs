//! /dev/kfd ioctls, decoded from the same argument structs the kernel uses and answered as
//! amdkfd 6.12 does (kfd_chardev.c, kfd_events.c, kfd_queue.c): same checks, same errnos.

use super::events::{Event, SignalPage, FIRST_NONSIGNAL_EVENT_ID, UNSIGNALED_EVENT_SLOT};
use super::memory::{Allocation, MemDomain, DRM_MMAP_BASE, PAGE};
use super::queues::*;
use super::user::{self, Pod};
use super::{EmuKfd, State};
use baregpu_autogen::amd::kfd as abi;
use std::time::{Duration, Instant};

type KResult<T = ()> = std::result::Result<T, i32>;

/// The kernel's limit on one kmalloc'd array (events to wait on, device ids).
const MAX_ARRAY: u32 = 1 << 16;
/// Bytes of the event page the kernel initialises (KFD_SIGNAL_EVENT_LIMIT slots).
const EVENT_PAGE_BYTES: u64 = abi::KFD_SIGNAL_EVENT_LIMIT as u64 * 8;
/// ENOTSUPP, the kernel-internal errno CREATE_QUEUE returns for an unknown queue type.
const ENOTSUPP: i32 = 524;

fn align(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// Run `f` on the argument struct decoded from `kdata`, writing it back whatever `f` returns
/// (the kernel copies the arguments out even when the ioctl fails).
fn with<T: Pod>(kdata: &mut [u8], f: impl FnOnce(&mut T) -> KResult) -> KResult<i32> {
    let mut a: T = user::read(kdata);
    let r = f(&mut a);
    user::write(kdata, &a);
    r.map(|_| 0)
}

fn lowest_free(used: impl Iterator<Item = u32>, range: std::ops::Range<u32>) -> Option<u32> {
    let used: std::collections::BTreeSet<u32> = used.collect();
    range.into_iter().find(|i| !used.contains(i))
}

/// Whether `va..va+len` is a user address (access_ok on x86-64).
fn access_ok(va: u64, len: u64) -> bool {
    va.checked_add(len).is_some_and(|e| e <= 0x7fff_ffff_f000)
}

impl EmuKfd {
    /// One ioctl on /dev/kfd. `Err` is the errno.
    pub(crate) fn kfd_ioctl(&self, request: u32, arg: &mut [u8]) -> KResult<i32> {
        let nr = request & 0xff;
        if !(abi::AMDKFD_COMMAND_START..abi::AMDKFD_COMMAND_END).contains(&nr) {
            return Err(libc::EINVAL);
        }
        // Dispatch by number, as kfd_ioctl does; the kernel's own definition gives direction.
        let Some(&(name, kreq, _)) = abi::AMDKFD_IOCTLS.iter().find(|i| i.1 & 0xff == nr) else {
            return Err(libc::EINVAL);
        };
        let usize_ = ((request >> 16) & 0x3fff) as usize;
        let ksize = ((kreq >> 16) & 0x3fff) as usize;
        let (dir_in, dir_out) = (kreq >> 30 & 1 != 0, kreq >> 30 & 2 != 0);
        if arg.len() < usize_ {
            return Err(libc::EFAULT);
        }
        let mut kdata = vec![0u8; usize_.max(ksize)];
        if dir_in {
            kdata[..usize_].copy_from_slice(&arg[..usize_]);
        }
        log::trace!("emulated KFD: {name}");
        let r = self.dispatch(kreq, name, &mut kdata);
        if matches!(
            kreq,
            abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU
                | abi::AMDKFD_IOC_FREE_MEMORY_OF_GPU
                | abi::AMDKFD_IOC_MAP_MEMORY_TO_GPU
                | abi::AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU
        ) {
            self.memory_changed();
        }
        if dir_out {
            arg[..usize_].copy_from_slice(&kdata[..usize_]);
        }
        r
    }

    fn dispatch(&self, kreq: u32, name: &str, k: &mut [u8]) -> KResult<i32> {
        match kreq {
            abi::AMDKFD_IOC_GET_VERSION => with(k, |a: &mut abi::kfd_ioctl_get_version_args| {
                a.major_version = abi::KFD_IOCTL_MAJOR_VERSION;
                a.minor_version = abi::KFD_IOCTL_MINOR_VERSION;
                Ok(())
            }),
            abi::AMDKFD_IOC_ACQUIRE_VM => with(k, |a| self.acquire_vm(a)),
            abi::AMDKFD_IOC_RUNTIME_ENABLE => with(k, |a| self.runtime_enable(a)),
            abi::AMDKFD_IOC_DBG_TRAP => with(k, |a| self.dbg_trap(a)),
            abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU => with(k, |a| self.alloc(a)),
            abi::AMDKFD_IOC_FREE_MEMORY_OF_GPU => with(k, |a| self.free(a)),
            abi::AMDKFD_IOC_MAP_MEMORY_TO_GPU => with(k, |a: &mut abi::kfd_ioctl_map_memory_to_gpu_args| {
                let (mut n, r) = self.map_unmap(a.handle, a.device_ids_array_ptr, a.n_devices, a.n_success, true);
                std::mem::swap(&mut a.n_success, &mut n);
                r
            }),
            abi::AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU => with(k, |a: &mut abi::kfd_ioctl_unmap_memory_from_gpu_args| {
                let (mut n, r) = self.map_unmap(a.handle, a.device_ids_array_ptr, a.n_devices, a.n_success, false);
                std::mem::swap(&mut a.n_success, &mut n);
                r
            }),
            abi::AMDKFD_IOC_CREATE_EVENT => with(k, |a| self.create_event(a)),
            abi::AMDKFD_IOC_DESTROY_EVENT => with(k, |a: &mut abi::kfd_ioctl_destroy_event_args| {
                let ok = self.lock().proc.destroy_event(a.event_id);
                self.events_cv.notify_all();
                if ok {
                    Ok(())
                } else {
                    Err(libc::EINVAL)
                }
            }),
            abi::AMDKFD_IOC_SET_EVENT => with(k, |a: &mut abi::kfd_ioctl_set_event_args| {
                let mut st = self.lock();
                match st.proc.events.get(&a.event_id) {
                    Some(e) if e.kind == abi::KFD_IOC_EVENT_SIGNAL => {
                        st.proc.set_event(a.event_id);
                        drop(st);
                        self.events_cv.notify_all();
                        Ok(())
                    }
                    _ => Err(libc::EINVAL),
                }
            }),
            abi::AMDKFD_IOC_RESET_EVENT => with(k, |a: &mut abi::kfd_ioctl_reset_event_args| {
                let mut st = self.lock();
                match st.proc.events.get_mut(&a.event_id) {
                    Some(e) if e.kind == abi::KFD_IOC_EVENT_SIGNAL => {
                        e.signaled = false;
                        Ok(())
                    }
                    _ => Err(libc::EINVAL),
                }
            }),
            abi::AMDKFD_IOC_WAIT_EVENTS => {
                let mut a: abi::kfd_ioctl_wait_events_args = user::read(k);
                let r = self.wait_events(&mut a);
                if r.is_err() {
                    a.wait_result = abi::KFD_IOC_WAIT_RESULT_FAIL;
                }
                user::write(k, &a);
                r.map(|_| 0)
            }
            abi::AMDKFD_IOC_CREATE_QUEUE => {
                let mut a: abi::kfd_ioctl_create_queue_args = user::read(k);
                let r = self.create_queue(&mut a);
                user::write(k, &a);
                let q = r?;
                if let Some(obs) = self.observer() {
                    obs.queue_created(self, &q);
                }
                Ok(0)
            }
            abi::AMDKFD_IOC_DESTROY_QUEUE => {
                let a: abi::kfd_ioctl_destroy_queue_args = user::read(k);
                let q = self.lock().proc.queues.remove(&a.queue_id).ok_or(libc::EINVAL)?;
                if let Some(obs) = self.observer() {
                    obs.queue_destroyed(self, &q);
                }
                self.release_queue_buffers(&q);
                Ok(0)
            }
            abi::AMDKFD_IOC_GET_CLOCK_COUNTERS => with(k, |a: &mut abi::kfd_ioctl_get_clock_counters_args| {
                self.pdd_index(a.gpu_id)?;
                let now = |clock| {
                    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
                    // SAFETY: clock_gettime writes the timespec we pass.
                    unsafe { libc::clock_gettime(clock, &mut ts) };
                    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
                };
                let raw = crate::clock::now_ns();
                a.gpu_clock_counter = crate::clock::ticks(raw, crate::clock::AMD_TIMESTAMP_HZ);
                a.cpu_clock_counter = raw;
                a.system_clock_counter = now(libc::CLOCK_BOOTTIME);
                a.system_clock_freq = 1_000_000_000;
                Ok(())
            }),
            abi::AMDKFD_IOC_AVAILABLE_MEMORY => with(k, |a: &mut abi::kfd_ioctl_get_available_memory_args| {
                let i = self.pdd_index(a.gpu_id)?;
                let used = self.lock().proc.pdds[i].vram_used;
                a.available = self.gpus[i].spec.vram_bytes.saturating_sub(used);
                Ok(())
            }),
            abi::AMDKFD_IOC_SET_MEMORY_POLICY => with(k, |a: &mut abi::kfd_ioctl_set_memory_policy_args| {
                self.bound_pdd(a.gpu_id)?;
                let ok = |p| p == abi::KFD_IOC_CACHE_POLICY_COHERENT || p == abi::KFD_IOC_CACHE_POLICY_NONCOHERENT;
                if !ok(a.default_policy) || !ok(a.alternate_policy) {
                    return Err(libc::EINVAL);
                }
                Ok(())
            }),
            abi::AMDKFD_IOC_SET_SCRATCH_BACKING_VA => {
                with(k, |a: &mut abi::kfd_ioctl_set_scratch_backing_va_args| self.bound_pdd(a.gpu_id).map(|_| ()))
            }
            abi::AMDKFD_IOC_SET_TRAP_HANDLER => {
                with(k, |a: &mut abi::kfd_ioctl_set_trap_handler_args| self.bound_pdd(a.gpu_id).map(|_| ()))
            }
            _ => {
                log::warn!("emulated KFD: {name} is not emulated");
                Err(libc::ENOTTY)
            }
        }
    }

    /// kfd_process_device_data_by_id: EINVAL for an id that is not one of ours.
    fn pdd_index(&self, gpu_id: u32) -> KResult<usize> {
        self.gpu_index(gpu_id).ok_or(libc::EINVAL)
    }

    /// kfd_bind_process_to_device: the GPU needs its VM (ACQUIRE_VM) first, else ENODEV.
    fn bound_pdd(&self, gpu_id: u32) -> KResult<usize> {
        let i = self.pdd_index(gpu_id)?;
        if self.lock().proc.pdds[i].drm_fd.is_none() {
            return Err(libc::ENODEV);
        }
        Ok(i)
    }

    fn acquire_vm(&self, a: &mut abi::kfd_ioctl_acquire_vm_args) -> KResult {
        let mut st = self.lock();
        let fd = a.drm_fd as i32;
        let Some(file) = st.files.get(&fd).cloned() else { return Err(libc::EINVAL) };
        let i = self.gpu_index(a.gpu_id).ok_or(libc::EINVAL)?;
        let pdd = &mut st.proc.pdds[i];
        if let Some(bound) = pdd.drm_fd {
            return if bound == fd { Ok(()) } else { Err(libc::EBUSY) };
        }
        // It must be an amdgpu render node, of this GPU.
        if file != super::OpenFile::Render(i) {
            return Err(libc::EINVAL);
        }
        pdd.drm_fd = Some(fd);
        Ok(())
    }

    fn runtime_enable(&self, a: &mut abi::kfd_ioctl_runtime_enable_args) -> KResult {
        let mut st = self.lock();
        if a.mode_mask & abi::KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK == 0 {
            st.proc.runtime_enabled = false;
            return Ok(());
        }
        if st.proc.runtime_enabled {
            return Err(libc::EBUSY);
        }
        if !st.proc.queues.is_empty() {
            return Err(libc::EEXIST);
        }
        st.proc.runtime_enabled = true;
        Ok(())
    }

    fn alloc(&self, a: &mut abi::kfd_ioctl_alloc_memory_of_gpu_args) -> KResult {
        if a.size == 0 {
            return Err(libc::EINVAL);
        }
        let gi = self.pdd_index(a.gpu_id)?;
        let mut st = self.lock();
        let st = &mut *st;
        if st.proc.pdds[gi].drm_fd.is_none() {
            return Err(libc::ENODEV);
        }
        let flags = a.flags;
        let domain = if flags & abi::KFD_IOC_ALLOC_MEM_FLAGS_VRAM != 0 {
            MemDomain::Vram
        } else if flags & abi::KFD_IOC_ALLOC_MEM_FLAGS_GTT != 0 {
            MemDomain::Gtt
        } else if flags & abi::KFD_IOC_ALLOC_MEM_FLAGS_USERPTR != 0 {
            MemDomain::Userptr
        } else if flags & abi::KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL != 0 {
            MemDomain::Doorbell
        } else if flags & abi::KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP != 0 {
            MemDomain::MmioRemap
        } else {
            return Err(libc::EINVAL);
        };
        let size = align(a.size, PAGE);
        match domain {
            MemDomain::Doorbell if a.size != DOORBELL_PROCESS_SLICE => return Err(libc::EINVAL),
            MemDomain::MmioRemap if a.size != PAGE => return Err(libc::EINVAL),
            _ => {}
        }
        // The VA must be a page and must not overlap what this GPU's VM already holds.
        let end = a.va_addr.checked_add(size).ok_or(libc::EINVAL)?;
        if a.va_addr & (PAGE - 1) != 0
            || st.proc.allocs.values().any(|o| o.gpu_id == a.gpu_id && a.va_addr < o.end() && o.va < end)
        {
            return Err(libc::EINVAL);
        }
        match domain {
            MemDomain::Vram if st.proc.pdds[gi].vram_used + size > self.gpus[gi].spec.vram_bytes => {
                return Err(libc::ENOMEM)
            }
            MemDomain::Gtt | MemDomain::Userptr if st.proc.system_used + size > self.system_limit => {
                return Err(libc::ENOMEM)
            }
            _ => {}
        }
        let idr = lowest_free(
            st.proc.allocs.keys().filter(|h| (*h >> 32) as u32 == a.gpu_id).map(|h| *h as u32),
            0..u32::MAX,
        )
        .ok_or(libc::ENOMEM)?;
        let handle = (a.gpu_id as u64) << 32 | idr as u64;
        let (host_addr, backing, owns_view, mmap_offset) = match domain {
            MemDomain::Userptr => {
                let addr = a.mmap_offset;
                if addr == 0 {
                    return Err(libc::EINVAL);
                }
                if !user::range_is_mapped(addr, size) {
                    return Err(libc::EFAULT);
                }
                (addr as usize, None, false, addr)
            }
            MemDomain::Vram | MemDomain::Gtt => {
                let off = st.arena.take(size)?;
                let view = st.arena.view(off, size)?;
                (view, Some(off), true, DRM_MMAP_BASE + off)
            }
            MemDomain::Doorbell => {
                let (off, _) = ensure_doorbells(st, gi)?;
                let view = st.arena.view(off, size)?;
                // The cookie of a shared page must still be unique: take fresh file space for it.
                let cookie = st.arena.take(size)?;
                (view, Some(off), true, DRM_MMAP_BASE + cookie)
            }
            MemDomain::MmioRemap => {
                let (off, _) = ensure_mmio(st, gi)?;
                let view = st.arena.view(off, size)?;
                (view, Some(off), true, KFD_MMAP_TYPE_MMIO | kfd_mmap_gpu_id(a.gpu_id))
            }
        };
        match domain {
            MemDomain::Vram => st.proc.pdds[gi].vram_used += size,
            MemDomain::Gtt | MemDomain::Userptr => st.proc.system_used += size,
            _ => {}
        }
        st.proc.allocs.insert(
            handle,
            Allocation {
                handle,
                gpu_id: a.gpu_id,
                va: a.va_addr,
                size,
                domain,
                flags,
                host_addr,
                mmap_offset,
                mapped_on: Vec::new(),
                queue_refs: 0,
                backing,
                owns_view,
            },
        );
        a.handle = handle;
        a.mmap_offset = mmap_offset;
        Ok(())
    }

    fn free(&self, a: &mut abi::kfd_ioctl_free_memory_of_gpu_args) -> KResult {
        let mut st = self.lock();
        if st.proc.signal_page.as_ref().is_some_and(|p| p.handle == Some(a.handle)) {
            return Err(libc::EPERM);
        }
        self.pdd_index((a.handle >> 32) as u32)?;
        let mem = st.proc.allocs.get(&a.handle).ok_or(libc::EINVAL)?;
        if !mem.mapped_on.is_empty() {
            return Err(libc::EBUSY);
        }
        let mem = st.proc.allocs.remove(&a.handle).expect("present");
        let gi = self.gpu_index(mem.gpu_id).expect("allocations belong to our GPUs");
        match mem.domain {
            MemDomain::Vram => st.proc.pdds[gi].vram_used -= mem.size,
            MemDomain::Gtt | MemDomain::Userptr => st.proc.system_used -= mem.size,
            _ => {}
        }
        drop_allocation(&st, &mem);
        Ok(())
    }

    /// MAP_MEMORY_TO_GPU / UNMAP_MEMORY_FROM_GPU: returns the new n_success with the result.
    fn map_unmap(&self, handle: u64, ids_ptr: u64, n_devices: u32, n_success: u32, map: bool) -> (u32, KResult) {
        let mut done = n_success;
        let r = (|| {
            if n_devices == 0 || n_success > n_devices {
                return Err(libc::EINVAL);
            }
            if n_devices > MAX_ARRAY {
                return Err(libc::ENOMEM);
            }
            let raw = user::copy_from_user(ids_ptr, n_devices as usize * 4)?;
            let ids: Vec<u32> = raw.chunks_exact(4).map(|c| u32::from_ne_bytes(c.try_into().expect("4"))).collect();
            self.bound_pdd((handle >> 32) as u32)?;
            let mut st = self.lock();
            let p = &mut st.proc;
            if !p.allocs.contains_key(&handle) {
                return Err(libc::ENOMEM);
            }
            for (i, &peer) in ids.iter().enumerate().skip(n_success as usize) {
                let pi = self.pdd_index(peer)?;
                if p.pdds[pi].drm_fd.is_none() {
                    return Err(libc::ENODEV);
                }
                let mem = &p.allocs[&handle];
                if map {
                    if !mem.is_mapped_on(peer) {
                        let (va, end) = (mem.va, mem.end());
                        let conflict = p
                            .allocs
                            .values()
                            .any(|o| o.handle != handle && o.is_mapped_on(peer) && va < o.end() && o.va < end);
                        if conflict {
                            return Err(libc::EINVAL);
                        }
                        p.allocs.get_mut(&handle).expect("present").mapped_on.push(peer);
                    }
                } else {
                    if !mem.is_mapped_on(peer) {
                        return Err(libc::EINVAL);
                    }
                    // A BO a queue of that GPU uses stays (bo_va->queue_refcount).
                    if p.queues.values().any(|q| q.gpu_id == peer && q.buffers.contains(&handle)) {
                        return Err(libc::EBUSY);
                    }
                    p.allocs.get_mut(&handle).expect("present").mapped_on.retain(|g| *g != peer);
                }
                done = i as u32 + 1;
            }
            Ok(())
        })();
        (done, r)
    }

    fn create_event(&self, a: &mut abi::kfd_ioctl_create_event_args) -> KResult {
        let mut st = self.lock();
        let st = &mut *st;
        if a.event_page_offset != 0 {
            // kfd_kmap_event_page: the process hands over a GTT BO as the event page.
            if st.proc.signal_page.is_some() {
                return Err(libc::EINVAL);
            }
            let gi = self.pdd_index((a.event_page_offset >> 32) as u32)?;
            if st.proc.pdds[gi].drm_fd.is_none() {
                return Err(libc::ENODEV);
            }
            let mem = st.proc.allocs.get(&a.event_page_offset).ok_or(libc::EINVAL)?;
            if mem.domain != MemDomain::Gtt || mem.size < EVENT_PAGE_BYTES {
                return Err(libc::EINVAL);
            }
            let page = SignalPage {
                handle: Some(mem.handle),
                host: mem.host_addr,
                mapped_size: mem.size.min(EVENT_PAGE_BYTES),
                backing: mem.backing.expect("GTT has backing"),
                owned: false,
            };
            fill_unsignaled(&page, EVENT_PAGE_BYTES);
            st.proc.signal_page = Some(page);
        }
        let mut ev = Event {
            id: 0,
            kind: a.event_type,
            auto_reset: a.auto_reset != 0,
            signaled: false,
            age: 1,
            waiters: Vec::new(),
            memory: Default::default(),
            hw: Default::default(),
        };
        a.event_page_offset = 0;
        if ev.is_signal() {
            if st.proc.signal_page.is_none() {
                // No page from the process: the kernel allocates its own (mmapped through
                // /dev/kfd at KFD_MMAP_TYPE_EVENTS), 256 slots until it is mapped.
                let off = st.arena.take(EVENT_PAGE_BYTES)?;
                let view = st.arena.view(off, EVENT_PAGE_BYTES)?;
                let page = SignalPage { handle: None, host: view, mapped_size: 256 * 8, backing: off, owned: true };
                fill_unsignaled(&page, EVENT_PAGE_BYTES);
                st.proc.signal_page = Some(page);
            }
            let slots = (st.proc.signal_page.as_ref().expect("set above").mapped_size / 8) as u32;
            if st.proc.signal_event_count >= slots {
                return Err(libc::ENOSPC);
            }
            ev.id = lowest_free(st.proc.events.keys().copied(), 0..slots).ok_or(libc::ENOSPC)?;
            st.proc.signal_event_count += 1;
            a.event_page_offset = KFD_MMAP_TYPE_EVENTS;
            a.event_slot_index = ev.id;
        } else {
            ev.id = lowest_free(st.proc.events.keys().copied(), FIRST_NONSIGNAL_EVENT_ID..i32::MAX as u32)
                .ok_or(libc::ENOMEM)?;
        }
        a.event_id = ev.id;
        a.event_trigger_data = ev.id;
        st.proc.events.insert(ev.id, ev);
        Ok(())
    }

    fn wait_events(&self, a: &mut abi::kfd_ioctl_wait_events_args) -> KResult {
        if a.num_events > MAX_ARRAY {
            return Err(libc::ENOMEM);
        }
        let entry = std::mem::size_of::<abi::kfd_event_data>();
        let raw = user::copy_from_user(a.events_ptr, a.num_events as usize * entry)?;
        let data: Vec<abi::kfd_event_data> = raw.chunks_exact(entry).map(user::read).collect();
        let deadline = match a.timeout {
            0xffff_ffff => None,
            ms => Some(Instant::now() + Duration::from_millis(ms as u64)),
        };
        let all = a.wait_for_all != 0;
        let mut st = self.lock();
        let wid = st.proc.add_waiter(&data)?;
        let mut result = st.proc.wait_result(wid, all);
        while result == abi::KFD_IOC_WAIT_RESULT_TIMEOUT {
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => break,
                },
                None => None,
            };
            st = match left {
                Some(left) => self.events_cv.wait_timeout(st, left).unwrap_or_else(|e| e.into_inner()).0,
                None => self.events_cv.wait(st).unwrap_or_else(|e| e.into_inner()),
            };
            result = st.proc.wait_result(wid, all);
        }
        let out = if result == abi::KFD_IOC_WAIT_RESULT_COMPLETE { st.proc.signaled_data(wid) } else { Ok(vec![]) };
        st.proc.remove_waiter(wid);
        drop(st);
        a.wait_result = result;
        for (i, bytes) in out? {
            user::copy_to_user(a.events_ptr + (i * entry) as u64, &bytes)?;
        }
        if result == abi::KFD_IOC_WAIT_RESULT_FAIL {
            return Err(libc::EIO);
        }
        Ok(())
    }

    fn create_queue(&self, a: &mut abi::kfd_ioctl_create_queue_args) -> KResult<EmuQueue> {
        // set_queue_properties_from_user
        if a.queue_percentage & 0xff > abi::KFD_MAX_QUEUE_PERCENTAGE || a.queue_priority > abi::KFD_MAX_QUEUE_PRIORITY {
            return Err(libc::EINVAL);
        }
        if a.ring_base_address != 0 && !access_ok(a.ring_base_address, 8) {
            return Err(libc::EFAULT);
        }
        if a.ring_size != 0 && !a.ring_size.is_power_of_two() {
            return Err(libc::EINVAL);
        }
        if a.ring_size < abi::KFD_MIN_QUEUE_RING_SIZE {
            a.ring_size = abi::KFD_MIN_QUEUE_RING_SIZE;
        }
        if !access_ok(a.read_pointer_address, 4) || !access_ok(a.write_pointer_address, 4) {
            return Err(libc::EFAULT);
        }
        if (a.eop_buffer_address != 0 && !access_ok(a.eop_buffer_address, 4))
            || (a.ctx_save_restore_address != 0 && !access_ok(a.ctx_save_restore_address, 4))
        {
            return Err(libc::EFAULT);
        }
        let kind = match a.queue_type {
            abi::KFD_IOC_QUEUE_TYPE_COMPUTE => QueueKind::Compute,
            abi::KFD_IOC_QUEUE_TYPE_COMPUTE_AQL => QueueKind::ComputeAql,
            abi::KFD_IOC_QUEUE_TYPE_SDMA | abi::KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID => QueueKind::Sdma,
            abi::KFD_IOC_QUEUE_TYPE_SDMA_XGMI => QueueKind::SdmaXgmi,
            _ => return Err(ENOTSUPP),
        };
        let gi = self.pdd_index(a.gpu_id)?;
        let spec = &self.gpus[gi].spec;
        // A PM4 queue runs on its target XCC: one the partition does not have would run
        // nowhere. (The emulator's rule: refused rather than left to hang.)
        if (a.queue_percentage >> 8) & 0xff >= spec.num_xcc.max(1) {
            return Err(libc::EINVAL);
        }
        let mut st = self.lock();
        let st = &mut *st;
        if st.proc.pdds[gi].drm_fd.is_none() {
            return Err(libc::ESRCH);
        }
        let by_engine = a.queue_type == abi::KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID;
        if by_engine && a.sdma_engine_id >= spec.num_sdma_engines + spec.num_sdma_xgmi_engines {
            return Err(libc::EINVAL);
        }
        let (_, doorbell_view) = ensure_doorbells(st, gi)?;
        // kfd_queue_acquire_buffers: each buffer must be exactly one mapping of this GPU's VM.
        let gpu_id = a.gpu_id;
        let mut buffers = Vec::new();
        let mut get = |addr: u64, expected: u64| -> KResult<Allocation> {
            let page = addr / PAGE;
            let m = st
                .proc
                .allocs
                .values()
                .find(|m| m.is_mapped_on(gpu_id) && m.contains(addr))
                .filter(|m| m.va / PAGE == page && (expected / PAGE == 0 || m.size / PAGE == expected / PAGE))
                .ok_or(libc::EINVAL)?;
            buffers.push(m.handle);
            Ok(m.clone())
        };
        let wptr = get(a.write_pointer_address, PAGE)?;
        let rptr = get(a.read_pointer_address, PAGE)?;
        let ring = get(a.ring_base_address, a.ring_size as u64)?;
        let cw = spec.cwsr_sizes();
        if matches!(kind, QueueKind::Compute | QueueKind::ComputeAql) {
            if a.eop_buffer_address != 0 {
                if a.eop_buffer_size < cw.eop_buffer_size {
                    return Err(libc::EINVAL);
                }
                get(a.eop_buffer_address, align(a.eop_buffer_size, PAGE))?;
            }
            if a.ctl_stack_size as u64 != cw.ctl_stack_size || (a.ctx_save_restore_size as u64) < cw.cwsr_size {
                return Err(libc::EINVAL);
            }
            get(a.ctx_save_restore_address, spec.cwsr_total(a.ctx_save_restore_size as u64))?;
        }
        // Queue id, doorbell, SDMA engine.
        let q = &st.proc.queues;
        let queue_id = lowest_free(q.keys().copied(), 0..MAX_QUEUES_PER_PROCESS).ok_or(libc::ENOMEM)?;
        let (mut sdma_engine, mut sdma_queue) = (0, 0);
        let doorbell_id = if kind.is_sdma() {
            let qpe = spec.num_sdma_queues_per_engine;
            let (first, count) = if kind == QueueKind::SdmaXgmi {
                (spec.num_sdma_engines, spec.num_sdma_xgmi_engines)
            } else if by_engine {
                (a.sdma_engine_id, 1)
            } else {
                (0, spec.num_sdma_engines)
            };
            let taken = |e: u32, n: u32| {
                q.values().any(|x| x.gpu_id == gpu_id && x.kind.is_sdma() && x.sdma_engine == e && x.sdma_queue == n)
            };
            let slot = (0..count * qpe).find(|s| !taken(first + s % count, s / count)).ok_or(libc::ENOMEM)?;
            (sdma_engine, sdma_queue) = (first + slot % count, slot / count);
            SDMA_DOORBELL_BASE
                + sdma_engine * SDMA_DOORBELL_STRIDE
                + (sdma_queue & 1) * DOORBELL_MIRROR_OFFSET
                + (sdma_queue >> 1)
        } else {
            let reserved = |i: u32| NON_CP_DOORBELLS.contains(&(i % DOORBELL_MIRROR_OFFSET));
            let used: std::collections::BTreeSet<u32> =
                q.values().filter(|x| x.gpu_id == gpu_id).map(|x| x.doorbell_id).collect();
            (0..MAX_QUEUES_PER_PROCESS).find(|i| !reserved(*i) && !used.contains(i)).ok_or(libc::EBUSY)?
        };
        let offset_in_window = doorbell_id as u64 * 8;
        a.queue_id = queue_id;
        a.doorbell_offset = KFD_MMAP_TYPE_DOORBELL | kfd_mmap_gpu_id(gpu_id) | offset_in_window;
        let host = |m: &Allocation, va: u64| m.host_ptr(va).map_or(0, |p| p as usize);
        let queue = EmuQueue {
            queue_id,
            gpu_id,
            kind,
            ring_va: a.ring_base_address,
            ring_size: a.ring_size as u64,
            ring_host: host(&ring, a.ring_base_address),
            read_ptr_va: a.read_pointer_address,
            read_ptr_host: host(&rptr, a.read_pointer_address),
            write_ptr_va: a.write_pointer_address,
            write_ptr_host: host(&wptr, a.write_pointer_address),
            eop_va: a.eop_buffer_address,
            eop_size: a.eop_buffer_size,
            ctx_save_restore_va: a.ctx_save_restore_address,
            ctx_save_restore_size: a.ctx_save_restore_size,
            ctl_stack_size: a.ctl_stack_size,
            doorbell_id,
            doorbell_offset: a.doorbell_offset,
            doorbell_host: doorbell_view + offset_in_window as usize,
            priority: a.queue_priority,
            percentage: a.queue_percentage & 0xff,
            pm4_target_xcc: (a.queue_percentage >> 8) & 0xff,
            sdma_engine,
            sdma_queue,
            buffers,
        };
        for h in &queue.buffers {
            if let Some(m) = st.proc.allocs.get_mut(h) {
                m.queue_refs += 1;
            }
        }
        st.proc.queues.insert(queue_id, queue.clone());
        st.proc.queue_exceptions.remove(&queue_id);
        Ok(queue)
    }

    fn release_queue_buffers(&self, q: &EmuQueue) {
        let mut st = self.lock();
        for h in &q.buffers {
            if let Some(m) = st.proc.allocs.get_mut(h) {
                m.queue_refs = m.queue_refs.saturating_sub(1);
            }
        }
    }

    /// The process is gone (its last /dev/kfd file closed): queues, events and memory go.
    pub(crate) fn teardown(&self) {
        let mut st = self.lock();
        let queues: Vec<EmuQueue> = std::mem::take(&mut st.proc.queues).into_values().collect();
        drop(st);
        if let Some(obs) = self.observer() {
            for q in &queues {
                obs.queue_destroyed(self, q);
            }
        }
        let mut st = self.lock();
        let ids: Vec<u32> = st.proc.events.keys().copied().collect();
        for id in ids {
            st.proc.destroy_event(id);
        }
        teardown_views(&mut st);
        st.proc.allocs.clear();
        self.memory_changed();
        st.proc.signal_page = None;
        st.proc.signal_event_count = 0;
        st.proc.system_used = 0;
        st.proc.runtime_enabled = false;
        for p in &mut st.proc.pdds {
            *p = super::Pdd::default();
        }
        drop(st);
        self.events_cv.notify_all();
    }
}

/// Drop the emulator's own views and give the backing memory back (teardown and drop).
pub(crate) fn teardown_views(st: &mut State) {
    for m in st.proc.allocs.values() {
        drop_allocation(st, m);
    }
    st.proc.allocs.clear();
    if let Some(p) = st.proc.signal_page.take() {
        if p.owned {
            st.arena.unmap(p.host, EVENT_PAGE_BYTES);
            st.arena.release(p.backing, EVENT_PAGE_BYTES);
        }
    }
    for pdd in &mut st.proc.pdds {
        pdd.doorbell_maps.clear();
        for (off, view, len) in [
            pdd.doorbells.take().map(|(o, v)| (o, v, DOORBELL_PROCESS_SLICE)),
            pdd.mmio.take().map(|(o, v)| (o, v, PAGE)),
        ]
        .into_iter()
        .flatten()
        {
            st.arena.unmap(view, len);
            st.arena.release(off, len);
        }
    }
}

fn drop_allocation(st: &State, m: &Allocation) {
    if m.owns_view {
        st.arena.unmap(m.host_addr, m.size);
    }
    if let (Some(off), MemDomain::Vram | MemDomain::Gtt) = (m.backing, m.domain) {
        st.arena.release(off, m.size);
    }
}

fn fill_unsignaled(page: &SignalPage, bytes: u64) {
    for i in 0..(bytes.min(page.mapped_size.max(EVENT_PAGE_BYTES)) / 8) as u32 {
        // SAFETY: the page view is at least EVENT_PAGE_BYTES long (checked by the callers).
        unsafe { super::memory::write_u64(page.slot_addr(i), UNSIGNALED_EVENT_SLOT) };
    }
}

/// The process doorbell window of GPU `gi` (kfd_alloc_process_doorbells): backing and view.
pub(crate) fn ensure_doorbells(st: &mut State, gi: usize) -> KResult<(u64, usize)> {
    if let Some(d) = st.proc.pdds[gi].doorbells {
        return Ok(d);
    }
    let off = st.arena.take(DOORBELL_PROCESS_SLICE)?;
    let view = st.arena.view(off, DOORBELL_PROCESS_SLICE)?;
    st.proc.pdds[gi].doorbells = Some((off, view));
    Ok((off, view))
}

pub(crate) fn ensure_mmio(st: &mut State, gi: usize) -> KResult<(u64, usize)> {
    if let Some(d) = st.proc.pdds[gi].mmio {
        return Ok(d);
    }
    let off = st.arena.take(PAGE)?;
    let view = st.arena.view(off, PAGE)?;
    st.proc.pdds[gi].mmio = Some((off, view));
    Ok((off, view))
}
