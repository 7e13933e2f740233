//! The real KFD driver (`drivers::amd::kfd`) against the emulated KFD: discovery, memory,
//! queues, events and the kernel's answers to bad input.

use baregpu_autogen::amd::kfd as abi;
use baregpu_drivers::amd::kfd::cwsr::queue_buffer_sizes;
use baregpu_drivers::amd::kfd::ioctl::{bytes_of_mut, IoctlArg};
use baregpu_drivers::amd::kfd::{EventKind, Kfd, KfdDevice, MemKind, QueueKind};
use baregpu_drivers::amd::topology::{self, Properties};
use baregpu_drivers::os::{Fd, OpenFlags, Os};
use baregpu_emu::amd::{memory, EmuKfd, MemDomain, MemoryFaultReport};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn open(archs: &[&str]) -> (Arc<EmuKfd>, KfdDevice) {
    let emu = EmuKfd::new(archs).unwrap();
    let os: Arc<dyn Os> = emu.clone();
    let gpu = topology::discover(&*os).unwrap().remove(0);
    let kfd = Kfd::open(os).unwrap();
    assert_eq!(kfd.version, (1, 17));
    (emu.clone(), KfdDevice::open(kfd, gpu).unwrap())
}

fn rw() -> OpenFlags {
    OpenFlags::READ | OpenFlags::WRITE
}

/// A raw ioctl on a second /dev/kfd file of the same process; the errno on failure.
fn raw<T: IoctlArg>(emu: &EmuKfd, fd: Fd, request: u32, arg: &mut T) -> Result<(), i32> {
    emu.ioctl(fd, request, bytes_of_mut(arg)).map(|_| ()).map_err(|e| e.errno().expect("an errno"))
}

#[test]
fn topology_and_ip_discovery_describe_every_board() {
    let emu = EmuKfd::new(&["gfx1100", "gfx1201", "gfx942", "emu:gfx950"]).unwrap();
    let gpus = topology::discover(&*emu).unwrap();
    let got: Vec<(&str, u32, u32)> = gpus.iter().map(|g| (g.arch.as_str(), g.compute_units, g.render_minor)).collect();
    assert_eq!(got, [("gfx1100", 96, 128), ("gfx1201", 64, 129), ("gfx942", 304, 130), ("gfx950", 256, 131)]);
    assert_eq!(gpus[0].vram_bytes, 24 << 30);
    assert_eq!((gpus[0].vendor_id, gpus[0].device_id), (4098, 0x744c));
    assert_eq!(gpus[0].pci_bdf, "0000:03:00.0");
    let ids: std::collections::HashSet<u32> = gpus.iter().map(|g| g.gpu_id).collect();
    assert_eq!(ids.len(), 4);
    // CPU node 0 is skipped, GPU nodes follow.
    assert_eq!(gpus.iter().map(|g| g.node).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let ip = |minor: u32, block: &str, what: &str| -> String {
        let p = format!("/sys/class/drm/renderD{minor}/device/ip_discovery/die/0/{block}/0/{what}");
        emu.read_to_string(Path::new(&p)).unwrap().trim().to_string()
    };
    let version = |minor, block| {
        format!("{}.{}.{}", ip(minor, block, "major"), ip(minor, block, "minor"), ip(minor, block, "revision"))
    };
    // The numeric hw-id directories and the block names lead to the same data.
    for (minor, gc, sdma, nbio) in [
        (128, "11.0.0", "6.0.0", "4.3.0"),
        (129, "12.0.1", "7.0.1", "6.3.1"),
        (130, "9.4.3", "4.4.2", "7.9.0"),
        (131, "9.5.0", "4.4.5", "7.9.1"),
    ] {
        assert_eq!((version(minor, "11"), version(minor, "GC")), (gc.to_string(), gc.to_string()));
        assert_eq!((version(minor, "42"), version(minor, "SDMA0")), (sdma.to_string(), sdma.to_string()));
        assert_eq!((version(minor, "108"), version(minor, "NBIF")), (nbio.to_string(), nbio.to_string()));
        assert_eq!(ip(minor, "GC", "hw_id"), "11");
    }
    let die = emu.read_dir(Path::new("/sys/class/drm/renderD130/device/ip_discovery/die/0/11")).unwrap();
    assert_eq!(die.len(), 8, "one GC instance per XCC on MI300X: {die:?}");
    assert!(emu
        .read_to_string(Path::new("/sys/devices/virtual/kfd/kfd/topology/nodes/9/gpu_id"))
        .unwrap_err()
        .is_not_found());
    assert!(EmuKfd::new(&["gfx803"]).is_err());
}

#[test]
fn driver_cwsr_sizing_agrees_with_the_published_topology() {
    let emu = EmuKfd::new(&["gfx1100", "gfx1201", "gfx942", "gfx950"]).unwrap();
    for g in emu.gpus() {
        let path = format!("/sys/devices/virtual/kfd/kfd/topology/nodes/{}/properties", g.node);
        let text = emu.read_to_string(Path::new(&path)).unwrap();
        let props = Properties::parse(Path::new(&path), &text).unwrap();
        let driver = queue_buffer_sizes(&props).unwrap();
        let kernel = g.spec.cwsr_sizes();
        assert_eq!(props.get("ctl_stack_size"), Some(kernel.ctl_stack_size), "{}", g.spec.arch);
        assert_eq!(props.get("cwsr_size"), Some(kernel.cwsr_size), "{}", g.spec.arch);
        assert_eq!(driver.ctl_stack, kernel.ctl_stack_size, "{}", g.spec.arch);
        assert_eq!(driver.ctx_save_restore, kernel.cwsr_size, "{}", g.spec.arch);
        assert_eq!(driver.debug_memory, kernel.debug_memory_size, "{}", g.spec.arch);
        assert_eq!(driver.cwsr_alloc, g.spec.cwsr_total(kernel.cwsr_size), "{}", g.spec.arch);
        assert_eq!(driver.eop, kernel.eop_buffer_size);
        // The driver's fallback formula (no published sizes) gives the same numbers.
        let stripped: String = text.lines().filter(|l| !l.starts_with("c")).map(|l| format!("{l}\n")).collect();
        let fallback = queue_buffer_sizes(&Properties::parse(Path::new(&path), &stripped).unwrap()).unwrap();
        assert_eq!(fallback, driver, "{}", g.spec.arch);
    }
}

#[test]
fn every_memory_kind_is_shared_between_driver_and_emulator_and_freed_without_leaks() {
    let (emu, dev) = open(&["gfx1100"]);
    for round in 0..2 {
        let mut mems = Vec::new();
        for kind in [
            MemKind::Vram { cpu_visible: true },
            MemKind::Vram { cpu_visible: false },
            MemKind::Uncached,
            MemKind::Host,
        ] {
            let mem = dev.alloc(3 * 4096 + 5, kind).unwrap();
            assert_eq!(mem.size, 4 * 4096);
            let a = emu.allocation_containing(mem.va + 100).unwrap();
            assert_eq!((a.va, a.size, a.handle), (mem.va, mem.size, mem.handle));
            assert!(a.is_mapped_on(dev.gpu.gpu_id));
            let domain = match kind {
                MemKind::Vram { .. } => MemDomain::Vram,
                MemKind::Uncached => MemDomain::Gtt,
                MemKind::Host => MemDomain::Userptr,
            };
            assert_eq!(a.domain, domain);
            assert_eq!(
                emu.mapped_allocation(dev.gpu.gpu_id, mem.va + mem.size - 1).map(|m| m.handle),
                Some(mem.handle)
            );
            assert!(emu.mapped_allocation(dev.gpu.gpu_id, mem.va + mem.size).is_none_or(|m| m.handle != mem.handle));
            // The emulator's view and (where there is one) the CPU mapping at the GPU VA are
            // the same memory.
            let host = a.host_ptr(mem.va + 8).unwrap() as usize;
            assert_eq!(mem.cpu_mapped, kind != MemKind::Vram { cpu_visible: false }, "{kind:?}");
            if mem.cpu_mapped {
                let cpu = (mem.va + 8) as usize;
                // SAFETY: both addresses are inside live mappings of the allocation.
                unsafe {
                    memory::write_u64(cpu, 0x1234_5678_9abc_def0 ^ round);
                    assert_eq!(memory::read_u64(host), 0x1234_5678_9abc_def0 ^ round, "{kind:?}");
                    memory::write_u64(host + 8, 77);
                    assert_eq!(memory::read_u64(cpu + 8), 77, "{kind:?}");
                }
            } else {
                // SAFETY: the emulator's own view is always mapped.
                unsafe {
                    memory::write_u64(host, 5);
                    assert_eq!(memory::read_u64(host), 5);
                }
            }
            mems.push(mem);
        }
        assert_eq!(emu.allocations().len(), 4);
        for m in mems {
            dev.free(m).unwrap();
        }
        assert!(emu.allocations().is_empty(), "round {round}: {:?}", emu.allocations());
    }
}

#[test]
fn queues_are_visible_to_the_emulator_with_their_addresses_and_doorbells() {
    let (emu, dev) = open(&["gfx1201"]);
    let compute = dev.create_queue(QueueKind::Compute, 1 << 16).unwrap();
    let sdma = dev.create_queue(QueueKind::Sdma, 1 << 12).unwrap();
    let queues = emu.queues();
    assert_eq!(queues.len(), 2);
    for (q, eq) in [(&compute, emu.queue(compute.id).unwrap()), (&sdma, emu.queue(sdma.id).unwrap())] {
        assert_eq!(eq.ring_va, q.ring.va);
        assert_eq!(eq.ring_size, q.ring.size);
        assert_eq!(eq.read_ptr_va, q.read_ptr);
        assert_eq!(eq.write_ptr_va, q.write_ptr);
        assert_eq!(eq.gpu_id, dev.gpu.gpu_id);
        assert_eq!(emu.queue_by_doorbell(eq.gpu_id, eq.doorbell_id).unwrap().queue_id, q.id);
        // What the driver writes through its mappings the emulator sees through its own.
        // SAFETY: doorbell, write pointer and ring are live mappings on both sides.
        unsafe {
            memory::write_u64(q.write_ptr as usize, 0x40 + q.id as u64);
            memory::write_u64(q.ring.va as usize, 0xc0de_0000 + q.id as u64);
            memory::write_u64(q.doorbell as usize, 0x40 + q.id as u64);
            assert_eq!(memory::read_u64(eq.write_ptr_host), 0x40 + q.id as u64);
            assert_eq!(memory::read_u64(eq.ring_host), 0xc0de_0000 + q.id as u64);
            assert_eq!(memory::read_u64(eq.doorbell_host), 0x40 + q.id as u64);
            // And the engine's read pointer comes back the other way.
            memory::write_u64(eq.read_ptr_host, 0x20);
            assert_eq!(memory::read_u64(q.read_ptr as usize), 0x20);
        }
    }
    let (c, s) = (emu.queue(compute.id).unwrap(), emu.queue(sdma.id).unwrap());
    assert_eq!(c.kind, baregpu_emu::amd::QueueKind::Compute);
    assert_eq!(s.kind, baregpu_emu::amd::QueueKind::Sdma);
    assert_ne!(c.doorbell_id, s.doorbell_id);
    assert_eq!(c.ctl_stack_size as u64, dev.gpu_props_ctl_stack());
    assert_eq!(c.doorbell_offset >> 62, 3, "a KFD doorbell mmap offset");
    assert_eq!(c.doorbell_offset >> 46 & 0xffff, dev.gpu.gpu_id as u64);
    assert_eq!(emu.doorbell_window(dev.gpu.gpu_id).unwrap() + c.doorbell_id as usize * 8, c.doorbell_host);
    dev.destroy_queue(compute).unwrap();
    dev.destroy_queue(sdma).unwrap();
    assert!(emu.queues().is_empty());
    assert!(emu.allocations().is_empty(), "{:?}", emu.allocations());
}

trait CtlStack {
    fn gpu_props_ctl_stack(&self) -> u64;
}

impl CtlStack for KfdDevice {
    fn gpu_props_ctl_stack(&self) -> u64 {
        self.props.get("ctl_stack_size").unwrap()
    }
}

#[test]
fn events_fire_time_out_and_carry_fault_reports() {
    let (emu, dev) = open(&["gfx1100"]);
    let page = dev.alloc(0x8000, MemKind::Uncached).unwrap();
    let sig = dev.create_event(EventKind::Signal, true, Some(page.handle)).unwrap();
    let mem = dev.create_event(EventKind::MemoryFault, false, None).unwrap();
    let hw = dev.create_event(EventKind::HwException, false, None).unwrap();
    let all = [sig, mem, hw];
    let kfd = dev.kfd().clone();

    // Nothing fired: the wait sleeps for its timeout.
    let t = Instant::now();
    let out = kfd.wait_events(&all, 150).unwrap();
    let waited = t.elapsed();
    assert!(!out.fired);
    assert!(waited >= Duration::from_millis(140) && waited < Duration::from_secs(3), "{waited:?}");

    // SET_EVENT, then the wait returns at once; auto-reset consumed it.
    let kfd_fd = emu.open(Path::new("/dev/kfd"), rw()).unwrap();
    raw(&emu, kfd_fd, abi::AMDKFD_IOC_SET_EVENT, &mut abi::kfd_ioctl_set_event_args { event_id: sig.id, pad: 0 })
        .unwrap();
    let out = kfd.wait_events(&all, 5000).unwrap();
    assert!(out.fired && out.memory_fault.is_none() && out.hw_exception.is_none());
    assert!(!kfd.wait_events(&all, 0).unwrap().fired, "auto-reset event stayed signaled");

    // The GPU writes the event's slot and interrupts; a sleeping waiter wakes.
    let slot = emu.event_slot(sig.id).unwrap();
    let page_alloc = emu.allocation_containing(page.va).unwrap();
    assert_eq!(slot, page_alloc.host_ptr(page.va + sig.slot as u64 * 8).unwrap() as usize);
    // SAFETY: the event page is a live mapping.
    assert_eq!(unsafe { memory::read_u64(slot) }, u64::MAX, "free slots hold UNSIGNALED_EVENT_SLOT");
    let e2 = emu.clone();
    let gpu_id = dev.gpu.gpu_id;
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        // SAFETY: as above.
        unsafe { memory::write_u64(slot, sig.id as u64) };
        e2.signal_interrupt(gpu_id, Some(sig.id))
    });
    let out = kfd.wait_events(&all, 5000).unwrap();
    assert_eq!(t.join().unwrap(), 1);
    assert!(out.fired);
    // SAFETY: as above.
    assert_eq!(unsafe { memory::read_u64(slot) }, u64::MAX, "the interrupt acknowledges the slot");

    // A memory fault reported by the (future) command processor comes back decoded.
    let e2 = emu.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        e2.report_memory_fault(gpu_id, MemoryFaultReport { va: 0xdead_b123, not_present: true, ..Default::default() });
    });
    let out = kfd.wait_events(&all, 5000).unwrap();
    t.join().unwrap();
    assert!(out.fired);
    let fault = out.memory_fault.unwrap();
    assert_eq!((fault.gpu_id, fault.va, fault.not_present), (gpu_id, 0xdead_b000, true));
    assert_eq!(fault.to_string(), "memory fault at VA 0xdeadb000 (page not present)");

    emu.report_hw_exception(
        gpu_id,
        baregpu_emu::amd::HwExceptionReport { whole_gpu_reset: true, ecc: false, memory_lost: true },
    );
    let out = kfd.wait_events(&[hw], 1000).unwrap();
    assert!(out.hw_exception.unwrap().memory_lost);

    // Destroyed events are gone; the event page cannot be freed while it is the event page.
    dev.destroy_event(sig).unwrap();
    let err = kfd.wait_events(&[sig], 0).unwrap_err();
    assert_eq!(err.errno(), Some(libc::EINVAL));
    assert_eq!(dev.free(page).unwrap_err().errno(), Some(libc::EPERM));
    emu.close(kfd_fd).unwrap();
}

#[test]
fn bad_input_gets_the_kernels_errno() {
    let (emu, dev) = open(&["gfx1100", "gfx1201"]);
    let gpu_id = dev.gpu.gpu_id;
    let second = emu.gpus()[1].gpu_id;
    let kfd = emu.open(Path::new("/dev/kfd"), rw()).unwrap();

    // A second RUNTIME_ENABLE (KfdDevice::open did the first).
    let mut re = abi::kfd_ioctl_runtime_enable_args { r_debug: 0, mode_mask: 1, capabilities_mask: 0 };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_RUNTIME_ENABLE, &mut re), Err(libc::EBUSY));

    // ACQUIRE_VM with something that is not that GPU's render node, or no file at all.
    let other = emu.open(Path::new("/dev/dri/renderD128"), rw()).unwrap();
    for drm_fd in [kfd.0 as u32, other.0 as u32, 12345] {
        let mut vm = abi::kfd_ioctl_acquire_vm_args { drm_fd, gpu_id: second };
        assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_ACQUIRE_VM, &mut vm), Err(libc::EINVAL), "{drm_fd}");
    }
    // A second VM for a GPU that has one; memory on a GPU without one.
    let mut vm = abi::kfd_ioctl_acquire_vm_args { drm_fd: other.0 as u32, gpu_id };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_ACQUIRE_VM, &mut vm), Err(libc::EBUSY));
    let mut a = abi::kfd_ioctl_alloc_memory_of_gpu_args {
        va_addr: 0x7000_0000_0000,
        size: 4096,
        gpu_id: second,
        flags: abi::KFD_IOC_ALLOC_MEM_FLAGS_VRAM,
        ..Default::default()
    };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &mut a), Err(libc::ENODEV));

    // An allocation overlapping a live one; an unaligned VA; no size; an unknown GPU.
    let mem = dev.alloc(0x4000, MemKind::Uncached).unwrap();
    let flags = abi::KFD_IOC_ALLOC_MEM_FLAGS_GTT | abi::KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
    let mut a = abi::kfd_ioctl_alloc_memory_of_gpu_args {
        va_addr: mem.va + 0x1000,
        size: 0x1000,
        gpu_id,
        flags,
        ..Default::default()
    };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &mut a), Err(libc::EINVAL));
    a.va_addr = mem.va + mem.size + 8;
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &mut a), Err(libc::EINVAL));
    a.va_addr = mem.va + mem.size;
    a.size = 0;
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &mut a), Err(libc::EINVAL));
    a.size = 0x1000;
    a.gpu_id = gpu_id ^ 1;
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &mut a), Err(libc::EINVAL));
    // A USERPTR range that is not mapped.
    a.gpu_id = gpu_id;
    a.flags = abi::KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
    a.mmap_offset = 0x1000;
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &mut a), Err(libc::EFAULT));

    // Freeing a buffer still mapped on the GPU; unknown handles; a bad device-id pointer.
    let mut f = abi::kfd_ioctl_free_memory_of_gpu_args { handle: mem.handle };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_FREE_MEMORY_OF_GPU, &mut f), Err(libc::EBUSY));
    f.handle = mem.handle + 100;
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_FREE_MEMORY_OF_GPU, &mut f), Err(libc::EINVAL));
    let mut m = abi::kfd_ioctl_map_memory_to_gpu_args {
        handle: mem.handle,
        device_ids_array_ptr: 8,
        n_devices: 1,
        n_success: 0,
    };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_MAP_MEMORY_TO_GPU, &mut m), Err(libc::EFAULT));
    m.n_devices = 0;
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_MAP_MEMORY_TO_GPU, &mut m), Err(libc::EINVAL));

    // CREATE_QUEUE: a ring outside every allocation, a wrong control-stack size, a ring size
    // that is not a power of two, an unknown type.
    let ring = dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let ptrs = dev.alloc(0x1000, MemKind::Uncached).unwrap();
    let sizes = queue_buffer_sizes(&dev.props).unwrap();
    let eop = dev.alloc(sizes.eop, MemKind::Vram { cpu_visible: false }).unwrap();
    let cwsr = dev.alloc(sizes.cwsr_alloc, MemKind::Vram { cpu_visible: false }).unwrap();
    let good = abi::kfd_ioctl_create_queue_args {
        ring_base_address: ring.va,
        write_pointer_address: ptrs.va + 56,
        read_pointer_address: ptrs.va + 128,
        ring_size: 0x1000,
        gpu_id,
        queue_type: abi::KFD_IOC_QUEUE_TYPE_COMPUTE,
        queue_percentage: 100,
        queue_priority: 7,
        eop_buffer_address: eop.va,
        eop_buffer_size: sizes.eop,
        ctx_save_restore_address: cwsr.va,
        ctx_save_restore_size: sizes.ctx_save_restore as u32,
        ctl_stack_size: sizes.ctl_stack as u32,
        ..Default::default()
    };
    let create = |q: &mut abi::kfd_ioctl_create_queue_args| raw(&emu, kfd, abi::AMDKFD_IOC_CREATE_QUEUE, q);
    assert_eq!(
        create(&mut abi::kfd_ioctl_create_queue_args { ring_base_address: 0x7000_0000_0000, ..good }),
        Err(libc::EINVAL)
    );
    assert_eq!(
        create(&mut abi::kfd_ioctl_create_queue_args { ring_base_address: ring.va + 0x1000, ..good }),
        Err(libc::EINVAL)
    );
    assert_eq!(
        create(&mut abi::kfd_ioctl_create_queue_args { ring_size: 0x2000, ..good }),
        Err(libc::EINVAL),
        "ring larger than its buffer"
    );
    assert_eq!(
        create(&mut abi::kfd_ioctl_create_queue_args { ctl_stack_size: good.ctl_stack_size + 4096, ..good }),
        Err(libc::EINVAL)
    );
    assert_eq!(
        create(&mut abi::kfd_ioctl_create_queue_args { ctx_save_restore_size: 4096, ..good }),
        Err(libc::EINVAL)
    );
    assert_eq!(create(&mut abi::kfd_ioctl_create_queue_args { eop_buffer_size: 512, ..good }), Err(libc::EINVAL));
    assert_eq!(create(&mut abi::kfd_ioctl_create_queue_args { ring_size: 0x1800, ..good }), Err(libc::EINVAL));
    assert_eq!(create(&mut abi::kfd_ioctl_create_queue_args { queue_type: 9, ..good }), Err(524));
    assert_eq!(create(&mut abi::kfd_ioctl_create_queue_args { queue_priority: 16, ..good }), Err(libc::EINVAL));
    // A PM4 target XCC (queue_percentage bits 8..15) the GPU does not have.
    let xcc1 = abi::KFD_MAX_QUEUE_PERCENTAGE | 1 << 8;
    assert_eq!(create(&mut abi::kfd_ioctl_create_queue_args { queue_percentage: xcc1, ..good }), Err(libc::EINVAL));
    assert_eq!(
        create(&mut abi::kfd_ioctl_create_queue_args { read_pointer_address: u64::MAX - 2, ..good }),
        Err(libc::EFAULT)
    );
    let mut q = good;
    create(&mut q).unwrap();
    assert!(emu.queue(q.queue_id).is_some());
    // Its buffers cannot be unmapped while the queue lives; the runtime cannot be re-enabled.
    let mut u = abi::kfd_ioctl_unmap_memory_from_gpu_args {
        handle: ring.handle,
        device_ids_array_ptr: &gpu_id as *const u32 as u64,
        n_devices: 1,
        n_success: 0,
    };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &mut u), Err(libc::EBUSY));
    let mut d = abi::kfd_ioctl_destroy_queue_args { queue_id: q.queue_id, pad: 0 };
    raw(&emu, kfd, abi::AMDKFD_IOC_DESTROY_QUEUE, &mut d).unwrap();
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_DESTROY_QUEUE, &mut d), Err(libc::EINVAL));
    raw(&emu, kfd, abi::AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &mut u).unwrap();
    assert_eq!(u.n_success, 1);
    assert_eq!(
        raw(&emu, kfd, abi::AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &mut {
            u.n_success = 0;
            u
        }),
        Err(libc::EINVAL),
        "not mapped"
    );

    // Malformed requests: an unknown number, a buffer shorter than the request says, a wait on
    // an unreadable array, a signal to a non-signal event.
    assert_eq!(emu.ioctl(kfd, 0xc008_4b60, &mut [0u8; 8]).unwrap_err().errno(), Some(libc::EINVAL));
    assert_eq!(emu.ioctl(kfd, abi::AMDKFD_IOC_GET_VERSION, &mut [0u8; 4]).unwrap_err().errno(), Some(libc::EFAULT));
    let mut w =
        abi::kfd_ioctl_wait_events_args { events_ptr: 16, num_events: 1, wait_for_all: 0, timeout: 0, wait_result: 0 };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_WAIT_EVENTS, &mut w), Err(libc::EFAULT));
    assert_eq!(w.wait_result, abi::KFD_IOC_WAIT_RESULT_FAIL);
    let mem_ev = dev.create_event(EventKind::MemoryFault, false, None).unwrap();
    let mut s = abi::kfd_ioctl_set_event_args { event_id: mem_ev.id, pad: 0 };
    assert_eq!(raw(&emu, kfd, abi::AMDKFD_IOC_SET_EVENT, &mut s), Err(libc::EINVAL));
    // The render node refuses a cookie that is not a buffer of its GPU, and invisible VRAM.
    let render = emu.open(Path::new("/dev/dri/renderD128"), rw()).unwrap();
    let rwp = baregpu_drivers::os::Prot::READ | baregpu_drivers::os::Prot::WRITE;
    let shared = baregpu_drivers::os::MapFlags::SHARED;
    assert_eq!(emu.mmap(0, 4096, rwp, shared, Some(render), 0x1234_0000).unwrap_err().errno(), Some(libc::EINVAL));
    let cookie = emu.allocation_containing(eop.va).unwrap().mmap_offset;
    assert_eq!(emu.mmap(0, 4096, rwp, shared, Some(render), cookie).unwrap_err().errno(), Some(libc::EPERM));

    for m in [ring, ptrs, eop, cwsr, mem] {
        // `ring` was unmapped by hand above: free reports that, and the buffer still goes.
        let _ = dev.free(m);
    }
    assert!(emu.allocations().is_empty(), "{:?}", emu.allocations());
    for fd in [kfd, other, render] {
        emu.close(fd).unwrap();
    }
    assert!(matches!(emu.close(kfd), Err(baregpu_drivers::Error::BadFd(_))));
}

#[test]
fn closing_the_last_kfd_file_ends_the_process() {
    let (emu, dev) = open(&["gfx1100", "gfx942"]);
    let _q = dev.create_queue(QueueKind::Sdma, 4096).unwrap();
    let mem = dev.alloc(1 << 20, MemKind::Vram { cpu_visible: true }).unwrap();
    assert!(!emu.allocations().is_empty() && !emu.queues().is_empty());
    let _leaked = mem; // never freed by the "process": the kernel cleans up
    let kfd = dev.kfd().clone();
    drop(dev);
    drop(kfd);
    assert!(emu.allocations().is_empty() && emu.queues().is_empty());
    // A new process can open the device again from scratch.
    let gpu = topology::discover(&*emu).unwrap().remove(1);
    let dev = KfdDevice::open(Kfd::open(emu.clone()).unwrap(), gpu).unwrap();
    assert_eq!(dev.gpu.arch, "gfx942");
    let q = dev.create_queue(QueueKind::Compute, 1 << 12).unwrap();
    dev.destroy_queue(q).unwrap();
}
