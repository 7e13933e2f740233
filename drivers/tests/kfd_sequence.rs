//! The KFD driver's ioctl sequence against a scripted kernel (the recording OS double): open,
//! memory, events and queues issue exactly the requests, in the order, with the arguments a KFD
//! expects, and failures are undone.

use baregpu_autogen::amd::hsa::amd_queue_t;
use baregpu_autogen::amd::kfd as abi;
use baregpu_drivers::amd::kfd::ioctl::{from_bytes, IoctlArg};
use baregpu_drivers::amd::kfd::{memory::alloc_flags, EventKind, Kfd, KfdDevice, MemKind, QueueKind};
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::recording::{Call, RecordingOs};
use baregpu_drivers::va_window::{INTERNAL_REGION, VA_GUARD};
use baregpu_drivers::Error;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const GPU_ID: u32 = 0x4321;
const TOPO: &str = "/sys/devices/virtual/kfd/kfd/topology/nodes";

fn put<T: IoctlArg>(arg: &mut [u8], v: T) {
    // SAFETY: T is plain data and arg holds at least size_of::<T>() bytes (checked by from_bytes).
    let bytes = unsafe { std::slice::from_raw_parts(&v as *const T as *const u8, std::mem::size_of::<T>()) };
    arg[..bytes.len()].copy_from_slice(bytes);
}

/// A KFD that accepts everything and hands out handles, offsets and ids; `fail` makes one
/// request fail with EINVAL.
fn fake_kfd(fail: Option<u32>) -> RecordingOs {
    let next = Arc::new(AtomicU64::new(1));
    RecordingOs::new()
        .with_file("/dev/kfd", "")
        .with_file("/dev/dri/renderD128", "")
        .with_file(format!("{TOPO}/1/gpu_id"), format!("{GPU_ID}\n"))
        .with_file(
            format!("{TOPO}/1/properties"),
            "simd_count 192\nsimd_per_cu 2\ngfx_target_version 110000\ndrm_render_minor 128\nlocation_id 768\n",
        )
        .on_ioctl(move |path, req, arg| {
            if Some(req) == fail {
                return Err(Error::Ioctl {
                    path: path.into(),
                    request: req,
                    name: None,
                    source: std::io::Error::from_raw_os_error(libc::EINVAL),
                });
            }
            let n = next.fetch_add(1, Ordering::SeqCst);
            match req {
                abi::AMDKFD_IOC_GET_VERSION => {
                    put(arg, abi::kfd_ioctl_get_version_args { major_version: 1, minor_version: 17 })
                }
                abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU => {
                    let mut a: abi::kfd_ioctl_alloc_memory_of_gpu_args = from_bytes(arg).unwrap();
                    a.handle = 0x1000 + n;
                    if a.flags & abi::KFD_IOC_ALLOC_MEM_FLAGS_USERPTR == 0 {
                        a.mmap_offset = n << 32;
                    }
                    put(arg, a);
                }
                abi::AMDKFD_IOC_MAP_MEMORY_TO_GPU => {
                    let mut a: abi::kfd_ioctl_map_memory_to_gpu_args = from_bytes(arg).unwrap();
                    // SAFETY: the driver passes a live array of n_devices gpu ids.
                    let ids = unsafe {
                        std::slice::from_raw_parts(a.device_ids_array_ptr as *const u32, a.n_devices as usize)
                    };
                    assert_eq!(ids, [GPU_ID]);
                    a.n_success = a.n_devices;
                    put(arg, a);
                }
                abi::AMDKFD_IOC_CREATE_EVENT => {
                    let mut a: abi::kfd_ioctl_create_event_args = from_bytes(arg).unwrap();
                    a.event_id = n as u32;
                    a.event_slot_index = 3;
                    put(arg, a);
                }
                abi::AMDKFD_IOC_CREATE_QUEUE => {
                    let mut a: abi::kfd_ioctl_create_queue_args = from_bytes(arg).unwrap();
                    a.queue_id = 5;
                    a.doorbell_offset = (0x4u64 << 56) | 0x2000 | 0x18;
                    put(arg, a);
                }
                abi::AMDKFD_IOC_WAIT_EVENTS => {
                    let mut a: abi::kfd_ioctl_wait_events_args = from_bytes(arg).unwrap();
                    // Report a page fault through the second event, as KFD does.
                    // SAFETY: the driver passes a live array of num_events kfd_event_data.
                    let ev = unsafe {
                        std::slice::from_raw_parts_mut(a.events_ptr as *mut abi::kfd_event_data, a.num_events as usize)
                    };
                    let mut fault = abi::kfd_event_data::zeroed();
                    fault.event_id = ev[1].event_id;
                    fault.__bindgen_anon_1.memory_exception_data.gpu_id = GPU_ID;
                    fault.__bindgen_anon_1.memory_exception_data.va = 0xdead_0000;
                    fault.__bindgen_anon_1.memory_exception_data.failure.NotPresent = 1;
                    ev[1] = fault;
                    a.wait_result = abi::KFD_IOC_WAIT_RESULT_COMPLETE;
                    put(arg, a);
                }
                _ => {}
            }
            Ok(0)
        })
}

fn ioctl_names(calls: &[Call]) -> Vec<&'static str> {
    calls
        .iter()
        .filter_map(|c| match c {
            Call::Ioctl { request, .. } => {
                Some(abi::AMDKFD_IOCTLS.iter().find(|i| i.1 == *request).map_or("?", |i| i.0))
            }
            _ => None,
        })
        .collect()
}

fn open(os: Arc<RecordingOs>) -> KfdDevice {
    let gpu = topology::discover(&*os).unwrap().remove(0);
    let kfd = Kfd::open(os).unwrap();
    assert_eq!(kfd.version, (1, 17));
    KfdDevice::open(kfd, gpu).unwrap()
}

#[test]
fn open_sequence() {
    let os = Arc::new(fake_kfd(None));
    let dev = open(os.clone());
    assert_eq!(dev.gpu.gpu_id, GPU_ID);
    let calls = os.calls();
    assert_eq!(ioctl_names(&calls), ["AMDKFD_IOC_GET_VERSION", "AMDKFD_IOC_ACQUIRE_VM", "AMDKFD_IOC_RUNTIME_ENABLE"]);
    // ACQUIRE_VM carries the render node's fd and the gpu id.
    let render_fd = 4; // /dev/kfd is 3
    let acquire = calls.iter().find_map(|c| match c {
        Call::Ioctl { request: abi::AMDKFD_IOC_ACQUIRE_VM, arg, .. } => {
            from_bytes::<abi::kfd_ioctl_acquire_vm_args>(arg)
        }
        _ => None,
    });
    let acquire = acquire.unwrap();
    assert_eq!((acquire.drm_fd, acquire.gpu_id), (render_fd, GPU_ID));
}

#[test]
fn memory_round_trip_issues_the_allocation_dance() {
    let os = Arc::new(fake_kfd(None));
    let dev = open(os.clone());
    let before = os.calls().len();
    let mem = dev.alloc(5000, MemKind::Vram { cpu_visible: true }).unwrap();
    assert_eq!(mem.size, 8192, "sizes round up to pages");
    let (base, size) = dev.va_window();
    assert!(mem.va >= base && mem.va + mem.size <= base + size - INTERNAL_REGION, "a user buffer: {mem:?}");
    assert!(mem.cpu_mapped);
    dev.free(mem).unwrap();
    let calls = &os.calls()[before..];
    // The VA comes from the device's window (reserved at open): ALLOC, mmap the render node at
    // it, MAP; then UNMAP, the reservation back over it, FREE.
    let Call::Ioctl { request: abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, arg, .. } = &calls[0] else { panic!("{calls:?}") };
    let a: abi::kfd_ioctl_alloc_memory_of_gpu_args = from_bytes(arg).unwrap();
    assert_eq!(a.flags, alloc_flags(MemKind::Vram { cpu_visible: true }));
    assert_ne!(a.flags & abi::KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC, 0);
    assert_eq!((a.size, a.gpu_id), (8192, GPU_ID));
    // The render-node mapping uses the mmap offset KFD returned for this handle (the fake
    // derives one from the other).
    let Call::Ioctl { request: abi::AMDKFD_IOC_MAP_MEMORY_TO_GPU, arg, .. } = &calls[2] else { panic!("{calls:?}") };
    let handle = from_bytes::<abi::kfd_ioctl_map_memory_to_gpu_args>(arg).unwrap().handle;
    let Call::Mmap { len: 8192, path: Some(p), offset, flags, .. } = &calls[1] else { panic!("{calls:?}") };
    assert_eq!(p, Path::new("/dev/dri/renderD128"));
    assert_eq!(*offset, (handle - 0x1000) << 32);
    assert!(flags.contains(baregpu_drivers::os::MapFlags::FIXED));
    assert_eq!(
        ioctl_names(calls),
        [
            "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU",
            "AMDKFD_IOC_MAP_MEMORY_TO_GPU",
            "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU",
            "AMDKFD_IOC_FREE_MEMORY_OF_GPU"
        ]
    );
}

#[test]
fn a_failed_map_undoes_the_allocation_and_names_the_ioctl() {
    let os = Arc::new(fake_kfd(Some(abi::AMDKFD_IOC_MAP_MEMORY_TO_GPU)));
    let dev = open(os.clone());
    let before = os.calls().len();
    let err = dev.alloc(4096, MemKind::Uncached).unwrap_err().to_string();
    assert!(err.contains("AMDKFD_IOC_MAP_MEMORY_TO_GPU") && err.contains("/dev/kfd"), "{err}");
    let calls = &os.calls()[before..];
    assert_eq!(
        ioctl_names(calls),
        ["AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", "AMDKFD_IOC_MAP_MEMORY_TO_GPU", "AMDKFD_IOC_FREE_MEMORY_OF_GPU"]
    );
    // The window's reservation takes the range back.
    assert!(calls.iter().any(|c| matches!(c, Call::Mmap { len: 4096, prot, path: None, .. } if prot.is_empty())));
}

#[test]
fn internal_memory_is_kept_apart_from_user_buffers_with_guard_gaps() {
    let os = Arc::new(fake_kfd(None));
    let dev = open(os.clone());
    let a = dev.alloc(4096, MemKind::Vram { cpu_visible: true }).unwrap();
    let b = dev.alloc(4096, MemKind::Host).unwrap();
    let ring = dev.alloc_internal(4096, MemKind::Uncached).unwrap();
    let (base, size) = dev.va_window();
    assert!(ring.va >= base + size - INTERNAL_REGION && ring.va + ring.size <= base + size, "{ring:?}");
    assert!(b.va >= a.va + a.size + VA_GUARD, "a guard gap after every buffer: {a:?} {b:?}");
    assert!(ring.va - b.va >= 1 << 30, "internal memory far from user buffers: {b:?} {ring:?}");
    for m in [a, b, ring] {
        dev.free(m).unwrap();
    }
}

#[test]
fn compute_queue_has_eop_cwsr_and_a_doorbell() {
    let os = Arc::new(fake_kfd(None));
    let dev = open(os.clone());
    let q = dev.create_queue(QueueKind::Compute, 1 << 20).unwrap();
    let calls = os.calls();
    let create = calls
        .iter()
        .find_map(|c| match c {
            Call::Ioctl { request: abi::AMDKFD_IOC_CREATE_QUEUE, arg, .. } => {
                from_bytes::<abi::kfd_ioctl_create_queue_args>(arg)
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(create.queue_type, abi::KFD_IOC_QUEUE_TYPE_COMPUTE);
    assert_eq!(create.ring_size, 1 << 20);
    assert_eq!(create.ring_base_address, q.ring.va);
    assert_eq!(create.read_pointer_address, q.pointers.va + std::mem::offset_of!(amd_queue_t, read_dispatch_id) as u64);
    assert_eq!(create.eop_buffer_size, 4096);
    assert_eq!(create.ctl_stack_size, 0xa000); // gfx1100 with 96 CUs (see cwsr.rs)
    assert_eq!(q.cwsr.as_ref().unwrap().size, (0xa000 + 0x2be_0000 + 0x18000));
    // The doorbell window is the 8 KiB page of the offset KFD returned.
    let window = calls.iter().find_map(|c| match c {
        Call::Mmap { path: Some(p), offset, len, .. } if p == Path::new("/dev/kfd") => Some((*offset, *len)),
        _ => None,
    });
    assert_eq!(window, Some(((0x4u64 << 56) | 0x2000, 0x2000)));
    assert_eq!(q.doorbell % 0x1000, 0x18, "doorbell not at its offset inside the window");
    assert_eq!(q.id, 5);
    dev.destroy_queue(q).unwrap();
    let names = ioctl_names(&os.calls());
    assert_eq!(names.iter().filter(|n| **n == "AMDKFD_IOC_FREE_MEMORY_OF_GPU").count(), 4);
    assert!(names.contains(&"AMDKFD_IOC_DESTROY_QUEUE"));
}

#[test]
fn a_refused_queue_frees_its_buffers() {
    let os = Arc::new(fake_kfd(Some(abi::AMDKFD_IOC_CREATE_QUEUE)));
    let dev = open(os.clone());
    let err = dev.create_queue(QueueKind::Sdma, 1 << 16).unwrap_err().to_string();
    assert!(err.starts_with("AMDKFD_IOC_CREATE_QUEUE (0xc0604b02) on /dev/kfd"), "{err}");
    let names = ioctl_names(&os.calls());
    assert_eq!(names.iter().filter(|n| **n == "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU").count(), 2);
    assert_eq!(names.iter().filter(|n| **n == "AMDKFD_IOC_FREE_MEMORY_OF_GPU").count(), 2);
    assert!(dev.create_queue(QueueKind::Sdma, 1000).is_err(), "non-power-of-two ring accepted");
}

#[test]
fn wait_events_reports_memory_faults() {
    let os = Arc::new(fake_kfd(None));
    let dev = open(os.clone());
    let sig = dev.create_event(EventKind::Signal, true, Some(0x77)).unwrap();
    let mem = dev.create_event(EventKind::MemoryFault, false, None).unwrap();
    let hw = dev.create_event(EventKind::HwException, false, None).unwrap();
    assert_eq!(sig.slot, 3);
    let out = dev.kfd().wait_events(&[sig, mem, hw], 200).unwrap();
    assert!(out.fired);
    let fault = out.memory_fault.unwrap();
    assert_eq!((fault.gpu_id, fault.va), (GPU_ID, 0xdead_0000));
    assert_eq!(fault.to_string(), "memory fault at VA 0xdead0000 (page not present)");
    assert_eq!(out.hw_exception, None);
}
