//! The NV RM driver's ioctl sequence against a scripted fake kernel (the recording OS double
//! plus a small model of RM and UVM): exact request numbers and key arguments in order, the
//! branch-dependent layouts, status → error mapping, and undo on failure.
//!
//! The fake checks argument sizes the way `escape.c` does (a wrong size is EINVAL), reads the
//! parameter blocks the driver points at, and answers with handles, tokens, UUIDs and class
//! lists.

use baregpu_drivers::nv::device::{NvDevice, NvMemKind, GPFIFO_ENTRIES, VA_WINDOW_BASE, VA_WINDOW_SIZE};
use baregpu_drivers::nv::rm::classes::*;
use baregpu_drivers::nv::rm::common::*;
use baregpu_drivers::nv::rm::ctrl::*;
use baregpu_drivers::nv::rm::debugger::*;
use baregpu_drivers::nv::rm::ioctl::{self, from_bytes};
use baregpu_drivers::nv::rm::status::*;
use baregpu_drivers::nv::rm::uvm::{self, *};
use baregpu_drivers::nv::rm::{v570, v580, v610, Branch};
use baregpu_drivers::os::recording::{Call, RecordingOs};
use baregpu_drivers::os::{MapFlags, Prot};
use baregpu_drivers::va_window::INTERNAL_REGION;
use baregpu_drivers::Error;
use std::path::Path;
use std::sync::Arc;

#[path = "nv_sequence/fake.rs"]
mod fake;
use fake::*;

const BRING_UP_580_HOPPER: &[&str] = &[
    "ALLOC NV01_ROOT_CLIENT",
    "NV_ESC_CARD_INFO /dev/nvidiactl",
    "NV_ESC_REGISTER_FD /dev/nvidia0",
    "CONTROL NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2",
    "ALLOC NV01_DEVICE_0",
    "ALLOC NV20_SUBDEVICE_0",
    "CONTROL NV2080_CTRL_CMD_MC_GET_ARCH_INFO",
    "CONTROL NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2",
    "CONTROL NV2080_CTRL_CMD_GPU_GET_GID_INFO",
    "CONTROL NV2080_CTRL_CMD_GR_GET_INFO",
    "CONTROL NV2080_CTRL_CMD_PERF_BOOST",
    "ALLOC HOPPER_USERMODE_A",
    "NV_ESC_REGISTER_FD /dev/nvidia0",
    "NV_ESC_RM_MAP_MEMORY /dev/nvidiactl",
    "ALLOC FERMI_VASPACE_A",
    "ALLOC NV01_MEMORY_VIRTUAL",
    "UVM_INITIALIZE /dev/nvidia-uvm",
    "UVM_MM_INITIALIZE /dev/nvidia-uvm",
    "UVM_REGISTER_GPU /dev/nvidia-uvm",
    "UVM_REGISTER_GPU_VASPACE /dev/nvidia-uvm",
    "ALLOC KEPLER_CHANNEL_GROUP_A",
    "ALLOC FERMI_CONTEXT_SHARE_A",
    // The GPFIFO area: VRAM, CPU mapping, GPU mapping.
    "ALLOC NV01_MEMORY_LOCAL_USER",
    "NV_ESC_REGISTER_FD /dev/nvidia0",
    "NV_ESC_RM_MAP_MEMORY /dev/nvidiactl",
    "UVM_CREATE_EXTERNAL_RANGE /dev/nvidia-uvm",
    "NV_ESC_RM_MAP_MEMORY_DMA /dev/nvidiactl",
    "UVM_MAP_EXTERNAL_ALLOCATION /dev/nvidia-uvm",
    // The compute channel: its error notifier (system memory the CPU reads), the channel.
    "ALLOC NV01_MEMORY_SYSTEM",
    "NV_ESC_RM_MAP_MEMORY /dev/nvidiactl",
    "UVM_CREATE_EXTERNAL_RANGE /dev/nvidia-uvm",
    "NV_ESC_RM_MAP_MEMORY_DMA /dev/nvidiactl",
    "UVM_MAP_EXTERNAL_ALLOCATION /dev/nvidia-uvm",
    "ALLOC HOPPER_CHANNEL_GPFIFO_A",
    "ALLOC HOPPER_COMPUTE_A",
    "CONTROL NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN",
    "UVM_REGISTER_CHANNEL /dev/nvidia-uvm",
    // The copy channel.
    "ALLOC NV01_MEMORY_SYSTEM",
    "NV_ESC_RM_MAP_MEMORY /dev/nvidiactl",
    "UVM_CREATE_EXTERNAL_RANGE /dev/nvidia-uvm",
    "NV_ESC_RM_MAP_MEMORY_DMA /dev/nvidiactl",
    "UVM_MAP_EXTERNAL_ALLOCATION /dev/nvidia-uvm",
    "ALLOC HOPPER_CHANNEL_GPFIFO_A",
    "ALLOC HOPPER_DMA_COPY_A",
    "CONTROL NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN",
    "UVM_REGISTER_CHANNEL /dev/nvidia-uvm",
    "CONTROL NVA06C_CTRL_CMD_GPFIFO_SCHEDULE",
];

#[test]
fn hopper_bring_up_on_580_issues_the_sequence() {
    let r = rig("580.65.06", (0x180, 0), hopper_classes(), None);
    let dev = r.open().unwrap();
    assert_eq!(r.names(), BRING_UP_580_HOPPER);

    // Request numbers, exactly.
    let requests: Vec<(String, u32)> =
        r.os.calls()
            .iter()
            .filter_map(|c| match c {
                Call::Ioctl { path, request, .. } => Some((path.display().to_string(), *request)),
                _ => None,
            })
            .collect();
    let first = |r: u32| requests.iter().position(|x| x.1 == r).unwrap_or_else(|| panic!("{r:#x} not issued"));
    assert_eq!(requests[0], ("/dev/nvidiactl".into(), 0xC020_462B)); // RM_ALLOC, 32 bytes
    assert_eq!(requests[1], ("/dev/nvidiactl".into(), 0xC900_46C8)); // CARD_INFO, 32 × 72 bytes
    assert_eq!(requests[2], ("/dev/nvidia0".into(), 0xC004_46C9)); // REGISTER_FD, 4 bytes
    assert_eq!(requests[3].1, 0xC020_462A); // RM_CONTROL
    first(0xC038_464E); // RM_MAP_MEMORY, 56 bytes
    first(0xC040_4657); // RM_MAP_MEMORY_DMA, 64 bytes (580)
    for (name, number) in [
        ("UVM_INITIALIZE", 0x3000_0001),
        ("UVM_MM_INITIALIZE", 75),
        ("UVM_REGISTER_GPU", 37),
        ("UVM_REGISTER_GPU_VASPACE", 25),
        ("UVM_CREATE_EXTERNAL_RANGE", 73),
        ("UVM_MAP_EXTERNAL_ALLOCATION", 33),
        ("UVM_REGISTER_CHANNEL", 27),
    ] {
        assert!(requests.iter().any(|x| x == &("/dev/nvidia-uvm".into(), number)), "{name}");
    }

    // Key arguments.
    let (parent, device, params) = r.allocs(NV01_DEVICE_0).remove(0);
    let p: NV0080_ALLOC_PARAMETERS = from_bytes(&params).unwrap();
    assert_eq!((parent, p.device_id, p.h_client_share, p.va_mode, params.len()), (CLIENT, 0, CLIENT, 0, 56));
    assert_eq!(dev.device, device);
    let (parent, subdevice, params) = r.allocs(NV20_SUBDEVICE_0).remove(0);
    assert_eq!((parent, params.len()), (device, 4));
    assert_eq!(r.allocs(HOPPER_USERMODE_A)[0].0, subdevice);
    let (parent, vaspace, params) = r.allocs(FERMI_VASPACE_A).remove(0);
    let p: v580::NV_VASPACE_ALLOCATION_PARAMETERS = from_bytes(&params).unwrap();
    assert_eq!((parent, params.len(), p.flags, p.va_base, p.va_size), (device, 56, 0x48, 0x1000, 0x1_ffff_fb00_0000));
    let (_, tsg, params) = r.allocs(KEPLER_CHANNEL_GROUP_A).remove(0);
    assert_eq!(from_bytes::<NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS>(&params).unwrap().engine_type, 1);
    let (parent, ctxshare, params) = r.allocs(FERMI_CONTEXT_SHARE_A).remove(0);
    let p: NV_CTXSHARE_ALLOCATION_PARAMETERS = from_bytes(&params).unwrap();
    assert_eq!((parent, p.h_va_space, p.flags), (tsg, vaspace, 1));

    // The GPFIFO area sits at the start of the window's internal region, contiguous VRAM, and
    // both channels use it.
    let area = dev.gpfifo_area().unwrap();
    assert_eq!(area.va, dev.va_window().0 + VA_WINDOW_SIZE - INTERNAL_REGION);
    assert!(area.va >= VA_WINDOW_BASE && area.va + VA_WINDOW_SIZE <= 1 << 40);
    let (_, area_handle, params) = r.allocs(NV01_MEMORY_LOCAL_USER).remove(0);
    let m: NV_MEMORY_ALLOCATION_PARAMS = from_bytes(&params).unwrap();
    assert_eq!((area.handle, m.size, m.limit, m.owner), (area_handle, area.size, area.size - 1, CLIENT));
    assert_eq!(m.attr & (3 << 27), 2 << 27, "contiguous");
    let stride = area.size / 2;
    let gpfifos = r.allocs(HOPPER_CHANNEL_GPFIFO_A);
    assert_eq!(gpfifos.len(), 2);
    let notifiers = r.allocs(NV01_MEMORY_SYSTEM);
    for (i, (parent, handle, params)) in gpfifos.iter().enumerate() {
        assert_eq!(params.len(), 368);
        let p: v580::NV_CHANNEL_ALLOC_PARAMS = from_bytes(params).unwrap();
        assert_eq!(*parent, tsg);
        assert_eq!(p.gp_fifo_offset, area.va + i as u64 * stride);
        assert_eq!(p.gp_fifo_entries, GPFIFO_ENTRIES);
        assert_eq!((p.h_object_buffer, p.h_userd_memory[0], p.h_context_share), (area_handle, area_handle, ctxshare));
        assert_eq!(p.userd_offset[0], i as u64 * stride + GPFIFO_ENTRIES as u64 * 8);
        assert_eq!((p.h_object_error, p.engine_type, p.h_va_space), (notifiers[i].1, 0, 0));
        assert_eq!(dev.channels[i].handle, *handle);
        assert_eq!(dev.channels[i].userd_va, area.va + p.userd_offset[0]);
    }
    assert_eq!(r.allocs(HOPPER_COMPUTE_A)[0].0, gpfifos[0].1);
    assert_eq!(r.allocs(HOPPER_DMA_COPY_A)[0].0, gpfifos[1].1);
    assert_eq!((dev.channels[0].token, dev.channels[1].token), (0x41, 0x42));

    // GPU mapping of the area: fixed at its VA, 4 KiB pages, snooped; then UVM maps it.
    let dma: v580::NVOS46_PARAMETERS = from_bytes(&r.others("NV_ESC_RM_MAP_MEMORY_DMA")[0]).unwrap();
    assert_eq!((dma.h_client, dma.h_device, dma.h_dma, dma.h_memory), (CLIENT, device, dev.virtmem, area_handle));
    assert_eq!((dma.flags, dma.dma_offset, dma.length), (0x8110, area.va, area.size));
    let reg: UVM_REGISTER_GPU_PARAMS = from_bytes(&r.others("UVM_REGISTER_GPU")[0]).unwrap();
    assert_eq!((reg.gpu_uuid, reg.rm_ctrl_fd), (UUID, -1));
    let regvas: UVM_REGISTER_GPU_VASPACE_PARAMS = from_bytes(&r.others("UVM_REGISTER_GPU_VASPACE")[0]).unwrap();
    assert_eq!((regvas.gpu_uuid, regvas.rm_ctrl_fd, regvas.h_client, regvas.h_va_space), (UUID, 3, CLIENT, vaspace));
    let map: Vec<u8> = r.others("UVM_MAP_EXTERNAL_ALLOCATION").remove(0);
    let map: UVM_MAP_EXTERNAL_ALLOCATION_PARAMS = from_bytes(&map).unwrap();
    assert_eq!((map.base, map.length, map.gpu_attributes_count, map.h_memory), (area.va, area.size, 1, area_handle));
    assert_eq!((map.per_gpu_attributes[0].gpu_uuid, map.per_gpu_attributes[0].gpu_mapping_type), (UUID, 1));
    let ch: UVM_REGISTER_CHANNEL_PARAMS = from_bytes(&r.others("UVM_REGISTER_CHANNEL")[1]).unwrap();
    assert_eq!((ch.h_channel, ch.base, ch.length), (gpfifos[1].1, dev.channels[1].uvm_range.0, 0x400_0000));
    let sched = r.events().into_iter().rev().find_map(|e| match e {
        Ev::Control { object, cmd: NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, params } => Some((object, params)),
        _ => None,
    });
    assert_eq!(sched, Some((tsg, vec![1, 0, 0])));

    // What the device learned.
    assert_eq!(dev.classes, ClassSet { usermode: 0xc661, gpfifo: 0xc86f, compute: 0xcbc0, copy: 0xc8b5 });
    assert_eq!((dev.uuid, dev.gr.arch(), dev.gr.gpcs, dev.branch), (UUID, "sm_90".to_string(), 8, Branch::V580));

    // The usermode page and the window are mappings; the area is MAP_FIXED into the window.
    let calls = r.os.calls();
    assert!(calls.iter().any(
        |c| matches!(c, Call::Mmap { len: 0x10000, path: Some(p), offset: 0, .. } if p == Path::new("/dev/nvidia0"))
    ));
    assert!(calls
        .iter()
        .any(|c| matches!(c, Call::Mmap { len, prot, .. } if *len == VA_WINDOW_SIZE as usize && prot.is_empty())));

    // Ringing a doorbell writes GPPut and the token through the mappings.
    dev.kick(&dev.channels[1], 5);
    // SAFETY: both are live mappings of the device.
    unsafe {
        assert_eq!(std::ptr::read_volatile((dev.channels[1].userd_va + 0x8c) as *const u32), 5);
        assert_eq!(std::ptr::read_volatile((dev.usermode_addr() + 0x90) as *const u32), 0x42);
    }

    drop(dev);
    r.assert_all_undone();
}

#[test]
fn branch_570_uses_its_layouts() {
    let ada = vec![TURING_USERMODE_A, AMPERE_CHANNEL_GPFIFO_A, ADA_COMPUTE_A, AMPERE_DMA_COPY_B];
    let r = rig("570.144", (0x190, 2), ada, None);
    let dev = r.open().unwrap();
    assert_eq!(dev.classes, ClassSet { usermode: 0xc461, gpfifo: 0xc56f, compute: 0xc9c0, copy: 0xc7b5 });
    let calls = r.os.calls();
    assert!(calls.iter().any(|c| matches!(c, Call::Ioctl { request: 0xC038_4657, .. })), "56-byte NVOS46");
    let (_, _, vas) = r.allocs(FERMI_VASPACE_A).remove(0);
    assert_eq!(vas.len(), 48);
    let v: v570::NV_VASPACE_ALLOCATION_PARAMETERS = from_bytes(&vas).unwrap();
    assert_eq!((v.va_base, v.flags), (0x1000, 0x48));
    let dma: v570::NVOS46_PARAMETERS = from_bytes(&r.others("NV_ESC_RM_MAP_MEMORY_DMA")[0]).unwrap();
    assert_eq!((dma.flags, dma.dma_offset), (0x8110, dev.va_window().0 + VA_WINDOW_SIZE - INTERNAL_REGION));
    let list = r.events().into_iter().find_map(|e| match e {
        Ev::Control { cmd: NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, params, .. } => Some(params.len()),
        _ => None,
    });
    assert_eq!(list, Some(404));
    drop(dev);
    r.assert_all_undone();
}

#[test]
fn branch_610_inserts_the_channel_field_and_shortens_uvm_free() {
    let gb202 = vec![
        HOPPER_USERMODE_A,
        BLACKWELL_USERMODE_A,
        BLACKWELL_CHANNEL_GPFIFO_A,
        BLACKWELL_CHANNEL_GPFIFO_B,
        BLACKWELL_COMPUTE_B,
        BLACKWELL_DMA_COPY_B,
    ];
    let r = rig("610.43.03", (0x1b0, 2), gb202, None);
    let dev = r.open().unwrap();
    assert_eq!(dev.classes, ClassSet { usermode: 0xc661, gpfifo: 0xc96f, compute: 0xcec0, copy: 0xcab5 });
    let area = dev.gpfifo_area().unwrap();
    let (_, _, params) = r.allocs(BLACKWELL_CHANNEL_GPFIFO_A).remove(1);
    assert_eq!(params.len(), 376);
    let p: v610::NV_CHANNEL_ALLOC_PARAMS = from_bytes(&params).unwrap();
    assert_eq!(p.h_userd_memory[0], area.handle);
    assert_eq!(p.userd_offset[0], area.size / 2 + GPFIFO_ENTRIES as u64 * 8);
    assert_eq!(u64::from_ne_bytes(params[72..80].try_into().unwrap()), p.userd_offset[0]);
    // UVM_FREE without `length`: the fake asserts the 16-byte size.
    let mem = dev.alloc(0x1000, NvMemKind::Vram { cpu_visible: false }).unwrap();
    dev.free(mem).unwrap();
    let free: v610::UVM_FREE_PARAMS = from_bytes(r.others("UVM_FREE").last().unwrap()).unwrap();
    // User memory starts at the bottom of the window; the GPFIFO area, notifiers and UVM
    // ranges are in the internal region at its top.
    assert_eq!(free.base, dev.va_window().0);
    drop(dev);
    r.assert_all_undone();
}

#[test]
fn memory_round_trips_issue_the_allocation_dance() {
    let r = rig("580.82.07", (0x180, 0), hopper_classes(), None);
    let dev = r.open().unwrap();
    let before_events = r.events().len();
    let before_calls = r.os.calls().len();

    let vram = dev.alloc(5000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    assert_eq!(vram.size, 0x2000, "sizes round up to pages");
    assert!(vram.cpu_mapped);
    // SAFETY: a live CPU mapping of 0x2000 bytes.
    unsafe { std::ptr::write_volatile((vram.va + 0x1ff8) as *mut u64, 7) };
    let (handle, va) = (vram.handle, vram.va);
    dev.free(vram).unwrap();
    let names = &r.names()[before_events..];
    assert_eq!(
        names,
        [
            "ALLOC NV01_MEMORY_LOCAL_USER",
            "NV_ESC_REGISTER_FD /dev/nvidia0",
            "NV_ESC_RM_MAP_MEMORY /dev/nvidiactl",
            "UVM_CREATE_EXTERNAL_RANGE /dev/nvidia-uvm",
            "NV_ESC_RM_MAP_MEMORY_DMA /dev/nvidiactl",
            "UVM_MAP_EXTERNAL_ALLOCATION /dev/nvidia-uvm",
            "UVM_FREE /dev/nvidia-uvm",
            "NV_ESC_RM_UNMAP_MEMORY_DMA /dev/nvidiactl",
            "NV_ESC_RM_UNMAP_MEMORY /dev/nvidiactl",
            "FREE",
        ]
    );
    let calls = &r.os.calls()[before_calls..];
    // The CPU mapping is of the fresh fd at offset 0, fixed at the VA; freeing re-reserves the
    // range and closes that fd.
    let fixed = MapFlags::SHARED | MapFlags::FIXED;
    assert!(calls.iter().any(|c| matches!(c, Call::Mmap { len: 0x2000, flags, offset: 0, path: Some(p), .. } if *flags == fixed && p == Path::new("/dev/nvidia0"))));
    assert!(calls.iter().any(|c| matches!(c, Call::Mmap { len: 0x2000, prot, path: None, flags, .. } if prot.is_empty() && flags.contains(MapFlags::FIXED))));
    assert!(matches!(calls.last(), Some(Call::Close { path }) if path == Path::new("/dev/nvidia0")));
    let m: nv_ioctl_nvos33_parameters_with_fd = from_bytes(r.others("NV_ESC_RM_MAP_MEMORY").last().unwrap()).unwrap();
    assert_eq!((m.params.h_memory, m.params.h_device, m.params.length), (handle, dev.device, 0x2000));
    assert!(m.fd > 2);
    let unmap: NVOS47_PARAMETERS = from_bytes(r.others("NV_ESC_RM_UNMAP_MEMORY_DMA").last().unwrap()).unwrap();
    assert_eq!((unmap.h_memory, unmap.h_dma, unmap.dma_offset), (handle, dev.virtmem, va));
    let free: v580::UVM_FREE_PARAMS = from_bytes(r.others("UVM_FREE").last().unwrap()).unwrap();
    assert_eq!((free.base, free.length), (va, 0x2000));

    // Host memory: anonymous pages at the VA, wrapped as an OS descriptor on the device fd.
    let host = dev.alloc(0x3000, NvMemKind::Host).unwrap();
    let os02: nv_ioctl_nvos02_parameters_with_fd =
        from_bytes(r.others("NV_ESC_RM_ALLOC_MEMORY").last().unwrap()).unwrap();
    assert_eq!(os02.params.h_class, NV01_MEMORY_SYSTEM_OS_DESCRIPTOR);
    assert_eq!((os02.params.flags, os02.params.p_memory, os02.params.limit), (0x4000_1010, host.va, 0x2fff));
    assert_eq!((os02.params.h_object_parent, os02.fd), (dev.device, -1));
    assert!(r.names().contains(&"NV_ESC_RM_ALLOC_MEMORY /dev/nvidia0".to_string()));
    // System memory: mapped through a fresh /dev/nvidiactl fd.
    let sys = dev.alloc(0x1000, NvMemKind::System).unwrap();
    let (_, _, params) = r.allocs(NV01_MEMORY_SYSTEM).pop().unwrap();
    let p: NV_MEMORY_ALLOCATION_PARAMS = from_bytes(&params).unwrap();
    assert_eq!((p.type_, p.attr2 & 0xc, p.attr & (3 << 25)), (13, 8, 1 << 25));
    assert!(
        matches!(r.os.calls().iter().rev().find(|c| matches!(c, Call::Mmap { .. })), Some(Call::Mmap { path: Some(p), .. }) if p == Path::new("/dev/nvidiactl"))
    );
    dev.free(host).unwrap();
    dev.free(sys).unwrap();
    assert!(dev.alloc(0, NvMemKind::Host).is_err());
    drop(dev);
    r.assert_all_undone();
}

#[test]
fn a_fault_report_allocates_the_debugger_once_and_decodes_what_rm_says() {
    let r = rig("580.65.06", (0x180, 0), hopper_classes(), None);
    let dev = r.open().unwrap();
    let before = r.events().len();
    let compute = &dev.channels[0];
    let report = dev.fault_report(compute).unwrap();
    let again = dev.fault_report(compute).unwrap();
    assert_eq!(report, again);
    let names = r.names()[before..].to_vec();
    let read_all = "CONTROL NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES";
    let read_mmu = "CONTROL NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO";
    // 8 GPCs × 9 TPCs × 2 SMs = 144 SMs: two reads of at most 100, then the MMU fault list;
    // the second report reuses the session.
    assert_eq!(names, ["ALLOC GT200_DEBUGGER", read_all, read_all, read_mmu, read_all, read_all, read_mmu]);

    let (parent, debugger, params) = r.allocs(GT200_DEBUGGER).remove(0);
    let p: NV83DE_ALLOC_PARAMETERS = from_bytes(&params).unwrap();
    assert_eq!(
        (parent, p.h_debugger_client_obsolete, p.h_app_client, p.h_class3d_object),
        (dev.device, 0, CLIENT, compute.engine)
    );
    let reads: Vec<NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS> = r
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Ev::Control { object, cmd: NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES, params } => {
                assert_eq!(object, debugger);
                Some(from_bytes(&params).unwrap())
            }
            _ => None,
        })
        .collect();
    let shape: Vec<(u32, u32, u32)> =
        reads.iter().take(2).map(|q| (q.h_target_channel, q.starting_sm, q.num_sms_to_read)).collect();
    assert_eq!(shape, [(compute.handle, 0, 100), (compute.handle, 100, 44)]);

    assert_eq!(report.mmu_faults.len(), 1);
    assert_eq!(report.sm_errors.len(), 1);
    assert_eq!((report.sm_errors[0].sm, report.sm_errors[0].warp_esr, report.sm_errors[0].pc), (FAULT_SM, 0x9, 0x1c));
    assert_eq!(
        report.to_string(),
        "MMU fault at 0x100: write, invalid PDE; SM 120: warp ESR 0x9 (ILLEGAL_INSTR_ENCODING), PC 0x1c"
    );

    // The copy channel has no SMs to ask about.
    let msg = dev.fault_report(&dev.channels[1]).unwrap_err().to_string();
    assert!(msg.contains("not compute"), "{msg}");
    drop(dev);
    r.assert_all_undone();
}

#[test]
fn a_failed_debugger_control_names_the_control_and_the_status() {
    let fail = Fail::Control(NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO, NV_ERR_INVALID_ARGUMENT);
    let r = rig("580.65.06", (0x180, 0), hopper_classes(), Some(fail));
    let dev = r.open().unwrap();
    let err = dev.fault_report(&dev.channels[0]).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("NV83DE_CTRL_CMD_DEBUG_READ_MMU_FAULT_INFO (0x83de0328)")
            && msg.contains("NV_ERR_INVALID_ARGUMENT"),
        "{msg}"
    );

    let fail = Fail::Alloc(GT200_DEBUGGER, NV_ERR_INSUFFICIENT_PERMISSIONS);
    let r = rig("580.65.06", (0x180, 0), hopper_classes(), Some(fail));
    let dev = r.open().unwrap();
    let msg = dev.fault_report(&dev.channels[0]).unwrap_err().to_string();
    assert!(msg.contains("GT200_DEBUGGER (0x83de)") && msg.contains("NV_ERR_INSUFFICIENT_PERMISSIONS"), "{msg}");
    // A failed allocation is not remembered: the next report tries again.
    let _ = dev.fault_report(&dev.channels[0]);
    assert_eq!(r.allocs(GT200_DEBUGGER).len(), 2);
}

#[test]
fn a_failed_class_allocation_is_a_named_error_and_bring_up_is_undone() {
    let r = rig("580.65.06", (0x180, 0), hopper_classes(), Some(Fail::Alloc(HOPPER_COMPUTE_A, NV_ERR_INVALID_CLASS)));
    let err = r.open().unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("NV_ESC_RM_ALLOC of HOPPER_COMPUTE_A (0xcbc0) under 0xcaf")
            && msg.contains("NV_ERR_INVALID_CLASS (0x22)"),
        "{msg}"
    );
    assert!(matches!(err, Error::Rm { status: 0x22, name: "NV_ERR_INVALID_CLASS", .. }));
    r.assert_all_undone();
}

#[test]
fn a_failed_uvm_request_is_a_named_error_and_bring_up_is_undone() {
    let r =
        rig("580.65.06", (0x180, 0), hopper_classes(), Some(Fail::Uvm(uvm::UVM_REGISTER_GPU, NV_ERR_INVALID_ARGUMENT)));
    let msg = r.open().unwrap_err().to_string();
    assert!(
        msg.contains("UVM_REGISTER_GPU (37) on /dev/nvidia-uvm") && msg.contains("NV_ERR_INVALID_ARGUMENT"),
        "{msg}"
    );
    assert!(!r.names().iter().any(|n| n.starts_with("UVM_REGISTER_GPU_VASPACE")));
    r.assert_all_undone();
}

#[test]
fn an_ioctl_errno_keeps_its_errno_and_names_the_call() {
    let r = rig(
        "580.65.06",
        (0x180, 0),
        hopper_classes(),
        Some(Fail::Errno(ioctl::NV_ESC_RM_MAP_MEMORY_DMA, libc::EINVAL)),
    );
    let err = r.open().unwrap_err();
    assert_eq!(err.errno(), Some(libc::EINVAL));
    let msg = err.to_string();
    assert!(msg.contains("NV_ESC_RM_MAP_MEMORY_DMA") && msg.contains("/dev/nvidiactl"), "{msg}");
    // The area's CPU mapping and object were undone before the whole device was.
    assert!(r.names().iter().any(|n| n == "NV_ESC_RM_UNMAP_MEMORY /dev/nvidiactl"));
    r.assert_all_undone();
}

#[test]
fn a_missing_class_is_unsupported_and_undone() {
    let classes = vec![HOPPER_USERMODE_A, AMPERE_CHANNEL_GPFIFO_A, HOPPER_COMPUTE_A, HOPPER_DMA_COPY_A];
    let r = rig("580.65.06", (0x180, 0), classes, None);
    let err = r.open().unwrap_err();
    assert!(matches!(&err, Error::Unsupported(m) if m.contains("HOPPER_CHANNEL_GPFIFO_A (0xc86f)")), "{err}");
    r.assert_all_undone();
}

#[test]
fn an_unsupported_driver_branch_is_refused_before_any_ioctl() {
    let os = RecordingOs::new()
        .with_file(
            "/proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build\n",
        )
        .with_file("/dev/nvidiactl", "");
    let os = Arc::new(os);
    let err = NvDevice::open(os.clone(), 0).unwrap_err().to_string();
    assert!(err.contains("535.104.05") && err.contains("570, 575, 580, 590, 595, 610"), "{err}");
    assert!(os.calls().is_empty());
    let none = NvDevice::open(Arc::new(RecordingOs::new()), 0).unwrap_err().to_string();
    assert!(none.contains("no NVIDIA kernel module"), "{none}");
}

#[test]
fn rm_prot_and_flags_used_for_the_window() {
    // The window reservation is PROT_NONE, private, anonymous and not committed.
    let r = rig("580.65.06", (0x180, 0), hopper_classes(), None);
    let _dev = r.open().unwrap();
    let window = r.os.calls().into_iter().find_map(|c| match c {
        Call::Mmap { len, prot, flags, path: None, .. } if len == VA_WINDOW_SIZE as usize => Some((prot, flags)),
        _ => None,
    });
    assert_eq!(window, Some((Prot::empty(), MapFlags::PRIVATE | MapFlags::ANONYMOUS | MapFlags::NORESERVE)));
}
