//! The emulated NVIDIA GPU: the real driver's bring-up and memory against the emulated RM/UVM,
//! GPFIFO work (semaphores, copies, a compute launch), and the PTX interpreter on kernels that
//! clang-22 compiled from OpenCL C (tests/fixtures/ptx, rebuilt by its build.sh).

use baregpu_drivers::nv::cbank0;
use baregpu_drivers::nv::device::{NvDevice, NvMemKind, NvMemory};
use baregpu_drivers::nv::pushbuf::{GpEntry, GpLevel, PushBuffer};
use baregpu_drivers::nv::rm::classes;
use baregpu_drivers::Error;
use baregpu_emu::nv::ptx::{Fault, Launch, Module};
use baregpu_emu::nv::{program, qmd, EmuRm, HostMemory};
use std::sync::Arc;
use std::time::{Duration, Instant};

const KERNELS: &str = include_str!("../../tests/fixtures/ptx/kernels.ptx");

fn open(arch: &str) -> (Arc<EmuRm>, NvDevice) {
    let emu = EmuRm::new(&[arch]).unwrap();
    let dev = NvDevice::open(emu.clone(), 0).unwrap_or_else(|e| panic!("{arch}: {e}"));
    (emu, dev)
}

fn put<T: Copy>(mem: &NvMemory, off: u64, data: &[T]) {
    assert!(off + std::mem::size_of_val(data) as u64 <= mem.size);
    // SAFETY: inside a live CPU mapping.
    unsafe {
        std::ptr::copy_nonoverlapping(
            data.as_ptr() as *const u8,
            (mem.va + off) as *mut u8,
            std::mem::size_of_val(data),
        )
    };
}

fn get<T: Copy + Default>(va: u64, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    // SAFETY: a live CPU mapping of at least n elements (the caller's allocation).
    unsafe {
        std::ptr::copy_nonoverlapping(
            va as *const u8,
            out.as_mut_ptr() as *mut u8,
            std::mem::size_of_val(out.as_slice()),
        )
    };
    out
}

fn read_u64(va: u64) -> u64 {
    // SAFETY: a live CPU mapping, 8-byte aligned.
    unsafe { std::ptr::read_volatile(va as *const u64) }
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Submit `pb` (written at `pb_mem` + `off`) on channel `ch` as GP entry `put`.
fn submit(dev: &NvDevice, ch: usize, pb_mem: &NvMemory, off: u64, pb: &PushBuffer, put: u32) {
    put_words(pb_mem, off, pb.words());
    let channel = &dev.channels[ch];
    let entry = GpEntry::segment(pb_mem.va + off, pb.len() as u32, GpLevel::Main, false).unwrap();
    // SAFETY: the ring lies in the CPU-mapped GPFIFO area.
    unsafe { std::ptr::write_volatile((channel.ring_va + put as u64 * 8) as *mut u64, entry.0) };
    dev.kick(channel, put + 1);
}

fn put_words(mem: &NvMemory, off: u64, words: &[u32]) {
    put(mem, off, words);
}

#[test]
fn driver_brings_up_every_emulated_generation() {
    for (arch, gen, compute) in [
        ("sm_90", classes::Generation::Hopper, classes::HOPPER_COMPUTE_A),
        ("sm_89", classes::Generation::Ada, classes::ADA_COMPUTE_A),
        ("sm_120", classes::Generation::BlackwellGb20x, classes::BLACKWELL_COMPUTE_B),
    ] {
        let (emu, dev) = open(arch);
        assert_eq!(dev.generation, gen);
        assert_eq!(dev.classes.compute, compute);
        assert_eq!(dev.gr.arch(), arch);
        assert_eq!(dev.uuid, emu.gpus()[0].uuid);
        assert_eq!(dev.channels.len(), 2);
        assert_eq!(dev.gpu.pci_device_id, Some(emu.gpus()[0].spec.pci_device_id));
        assert_eq!(dev.gpu.arch, Some(arch));
    }
    let (emu, dev) = open("sm_90");
    assert_eq!(dev.gpu.model, "NVIDIA H200");
    assert_eq!(emu.gpus()[0].spec.sm_count, 132);
    assert_eq!(dev.branch.name(), "580");
    assert!(EmuRm::new(&["sm_75"]).is_err());
}

#[test]
fn memory_is_shared_between_the_cpu_mapping_and_the_gpu() {
    let (emu, dev) = open("sm_90");
    for kind in [NvMemKind::Vram { cpu_visible: true }, NvMemKind::System, NvMemKind::Host] {
        let mem = dev.alloc(0x3000, kind).unwrap();
        put(&mem, 0x1ff8, &[0x1234_5678_9abc_def0u64]);
        let gpu = emu.gpu_host_ptr(mem.va + 0x1ff8, 8).expect("GPU-mapped") as *mut u64;
        // SAFETY: the emulator's view of the same page.
        unsafe {
            assert_eq!(std::ptr::read_volatile(gpu), 0x1234_5678_9abc_def0, "{kind:?}");
            std::ptr::write_volatile(gpu, 42);
        }
        assert_eq!(read_u64(mem.va + 0x1ff8), 42, "{kind:?}");
        let va = mem.va;
        dev.free(mem).unwrap();
        assert!(emu.gpu_host_ptr(va, 8).is_none(), "unmapped on free");
    }
    // GPU-only VRAM is GPU-mapped but has no CPU mapping.
    let mem = dev.alloc(0x1000, NvMemKind::Vram { cpu_visible: false }).unwrap();
    assert!(!mem.cpu_mapped && emu.gpu_host_ptr(mem.va, 0x1000).is_some());
    dev.free(mem).unwrap();
}

#[test]
fn bad_rm_input_gets_rm_status_codes() {
    let (_emu, dev) = open("sm_90");
    let c = dev.client();
    // A class the GPU does not list.
    let e = c.alloc(dev.device, None, classes::BLACKWELL_COMPUTE_B, None).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x22, .. }), "{e}");
    // An unknown parent.
    let e = c.alloc(0xdead_beef, None, classes::NV01_MEMORY_VIRTUAL, None).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x36, .. }), "{e}");
    // A control on the wrong kind of object, and an unknown control.
    let e = c.control(dev.device, 0x2080_1701, &mut [0u8; 16]).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x56, .. }), "{e}");
    // A parameter block of the wrong size.
    let e = c.control(dev.subdevice, 0x2080_1701, &mut [0u8; 12]).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x3a, .. }), "{e}");
    // Freeing what does not exist.
    assert!(c.free(dev.device, 0x1234).is_err());
    // A taken handle.
    let e = c.alloc(dev.device, Some(dev.subdevice), classes::NV01_MEMORY_VIRTUAL, None).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x19, .. }), "{e}");
}

#[test]
fn the_sm_debugger_checks_its_target_and_reports_nothing_before_a_fault() {
    use baregpu_drivers::nv::rm::debugger::*;
    use baregpu_drivers::nv::rm::ioctl::bytes_of_mut;
    let (_emu, dev) = open("sm_90");
    let c = dev.client();
    let (compute, copy) = (&dev.channels[0], &dev.channels[1]);
    let alloc = |p: NV83DE_ALLOC_PARAMETERS| {
        let mut p = p;
        c.alloc(dev.device, None, classes::GT200_DEBUGGER, Some(bytes_of_mut(&mut p)))
    };
    let ok = NV83DE_ALLOC_PARAMETERS { h_class3d_object: compute.engine, ..Default::default() };
    // The obsolete debugger-client handle must be 0; the object must be a compute object.
    let e = alloc(NV83DE_ALLOC_PARAMETERS { h_debugger_client_obsolete: 1, ..ok }).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x1f, .. }), "{e}");
    let e = alloc(NV83DE_ALLOC_PARAMETERS { h_class3d_object: copy.engine, ..ok }).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x31, .. }), "{e}");
    let e = alloc(NV83DE_ALLOC_PARAMETERS { h_class3d_object: 0xdead_beef, ..ok }).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x36, .. }), "{e}");
    let debugger = alloc(ok).unwrap();
    // hTargetChannel must be the debugged channel; at most 100 SMs a call.
    let mut q: NV83DE_CTRL_DEBUG_READ_ALL_SM_ERROR_STATES_PARAMS = baregpu_drivers::nv::rm::ioctl::RmArg::zeroed();
    q.h_target_channel = copy.handle;
    let e = c.control_with(debugger, NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES, &mut q).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x1f, .. }), "{e}");
    q.h_target_channel = compute.handle;
    q.num_sms_to_read = 101;
    let e = c.control_with(debugger, NV83DE_CTRL_CMD_DEBUG_READ_ALL_SM_ERROR_STATES, &mut q).unwrap_err();
    assert!(matches!(e, Error::Rm { status: 0x1f, .. }), "{e}");
    // A healthy channel has nothing to report.
    let report = dev.fault_report(compute).unwrap();
    assert!(report.is_empty(), "{report}");
}

#[test]
fn gpfifo_semaphore_releases_reach_the_host() {
    let (emu, dev) = open("sm_90");
    let pb_mem = dev.alloc(0x10000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let sig = dev.alloc(0x1000, NvMemKind::Host).unwrap();
    let before = emu.nonstall_interrupts();
    for i in 0..4u32 {
        let mut pb = PushBuffer::new();
        // 64-bit release with timestamp, then a non-stall interrupt.
        pb.semaphore(sig.va, 0x1_0000_0000 + i as u64 + 1, 0x0310_0001).unwrap();
        pb.inc(0, 0x20, &[0]).unwrap();
        submit(&dev, 0, &pb_mem, i as u64 * 0x100, &pb, i);
        wait_for("the release", || read_u64(sig.va) == 0x1_0000_0000 + i as u64 + 1);
        assert!(read_u64(sig.va + 8) > 0, "timestamp");
    }
    wait_for("GPGet", || get::<u32>(dev.channels[0].userd_va + 0x88, 1)[0] == 4);
    assert!(emu.nonstall_interrupts() >= before + 4);
    // An acquire (circular >=, 64-bit) blocks until the host writes the value.
    let mut pb = PushBuffer::new();
    pb.semaphore(sig.va + 16, 7, 0x0100_0003).unwrap();
    pb.semaphore(sig.va + 32, 99, 0x0000_0001).unwrap();
    submit(&dev, 0, &pb_mem, 0x800, &pb, 4);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(read_u64(sig.va + 32), 0, "still waiting");
    put(&sig, 16, &[7u64]);
    wait_for("the release after the acquire", || read_u64(sig.va + 32) == 99);
    assert!(emu.faults().is_empty(), "{:?}", emu.faults());
}

#[test]
fn copy_engine_launch_dma_copies_and_signals() {
    let (emu, dev) = open("sm_90");
    let pb_mem = dev.alloc(0x10000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let src = dev.alloc(0x4000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let dst = dev.alloc(0x4000, NvMemKind::Host).unwrap();
    let sig = dev.alloc(0x1000, NvMemKind::Host).unwrap();
    let data: Vec<u32> = (0..0x1000).map(|i| i * 3 + 1).collect();
    put(&src, 0, &data);
    let mut pb = PushBuffer::new();
    pb.set_object(4, dev.classes.copy).unwrap();
    pb.inc(4, 0x400, &[(src.va >> 32) as u32, src.va as u32, (dst.va >> 32) as u32, dst.va as u32]).unwrap();
    pb.inc(4, 0x418, &[0x4000]).unwrap();
    pb.inc(4, 0x240, &[(sig.va >> 32) as u32, sig.va as u32, 0x77]).unwrap();
    // NON_PIPELINED, FLUSH, RELEASE_FOUR_WORD semaphore, pitch layouts.
    pb.inc(4, 0x300, &[0x182 | 0x4 | (2 << 3)]).unwrap();
    submit(&dev, 1, &pb_mem, 0, &pb, 0);
    wait_for("the copy engine's semaphore", || get::<u32>(sig.va, 1)[0] == 0x77);
    assert_eq!(get::<u32>(dst.va, 0x1000), data);
    assert!(read_u64(sig.va + 8) > 0, "four-word release writes a timestamp");
    assert!(emu.faults().is_empty(), "{:?}", emu.faults());
}

#[test]
fn a_compute_launch_runs_ptx_from_a_qmd() {
    let (emu, dev) = open("sm_90");
    let pb_mem = dev.alloc(0x10000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let code = dev.alloc(0x10000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let args = dev.alloc(0x2000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let bufs = dev.alloc(0x3000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let sig = dev.alloc(0x1000, NvMemKind::Host).unwrap();
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1000.0 - i as f32).collect();
    put(&bufs, 0, &a);
    put(&bufs, 0x1000, &b);
    let image = program::image("vector_add", KERNELS);
    put(&code, 0, &image);
    // cb0: the launch sizes %ntid/%nctaid read and the parameters where a driver leaves them on
    // sm_90, then the QMD at +0x400.
    let (pa, pb_, pc) = (bufs.va, bufs.va + 0x1000, bufs.va + 0x2000);
    let (grid, block) = ([n.div_ceil(128), 1, 1], [128, 1, 1]);
    let slots = cbank0::bank0(90);
    put(&args, slots.ntid as u64, &block);
    put(&args, slots.nctaid as u64, &grid);
    put(&args, slots.params as u64, &[pa, pb_, pc]);
    put(&args, slots.params as u64 + 0x18, &[n]);
    let q = qmd::build_v4(code.va, grid, block, (args.va, 0x400), Some((sig.va, 5)));
    put(&args, 0x400, &q);
    let mut pb = PushBuffer::new();
    pb.set_object(1, dev.classes.compute).unwrap();
    pb.inc(1, 0x2b4, &[((args.va + 0x400) >> 8) as u32]).unwrap();
    pb.inc(1, 0x2c0, &[9]).unwrap();
    pb.semaphore(sig.va + 16, 6, 0x0100_0001).unwrap();
    submit(&dev, 0, &pb_mem, 0, &pb, 0);
    wait_for("the kernel", || read_u64(sig.va + 16) == 6);
    assert_eq!(get::<u32>(sig.va, 1)[0], 5, "QMD release 0");
    let c: Vec<f32> = get(pc, n as usize);
    for i in 0..n as usize {
        assert_eq!(c[i], a[i] + b[i], "c[{i}]");
    }
    assert!(emu.faults().is_empty(), "{:?}", emu.faults());

    // A kernel that writes outside its buffer is a fault naming the VA, not a crash.
    put(&args, 0x228, &[n + 0x2000]);
    let q = qmd::build_v4(code.va, [(n + 0x2000).div_ceil(128), 1, 1], [128, 1, 1], (args.va, 0x400), None);
    put(&args, 0x400, &q);
    let mut pb = PushBuffer::new();
    pb.inc(1, 0x2b4, &[((args.va + 0x400) >> 8) as u32]).unwrap();
    pb.inc(1, 0x2c0, &[9]).unwrap();
    submit(&dev, 0, &pb_mem, 0x400, &pb, 1);
    wait_for("the fault", || !emu.faults().is_empty());
    let f = &emu.faults()[0];
    assert!(f.message.contains("memory fault") && f.message.contains("vector_add"), "{f:?}");
}

// ---- the PTX interpreter on clang's kernels --------------------------------------------------

fn module() -> Module {
    Module::parse(KERNELS).unwrap()
}

fn run(m: &Module, mem: &HostMemory, entry: &str, grid: [u32; 3], block: [u32; 3], args: &[&[u8]]) {
    let params = m.param_block(entry, args).unwrap();
    m.launch(&Launch::new(entry, grid, block, &params), mem).unwrap();
}

#[test]
fn ptx_vector_add() {
    let m = module();
    assert_eq!(m.entries(), ["vector_add", "matmul_tiled", "reduce_sum", "math_f16_f64"]);
    let mut mem = HostMemory::new();
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 1.5).collect();
    let b: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
    let (va, vb, vc) = (mem.upload(&a), mem.upload(&b), mem.alloc(4 * n as usize));
    run(
        &m,
        &mem,
        "vector_add",
        [8, 1, 1],
        [128, 1, 1],
        &[&va.to_le_bytes(), &vb.to_le_bytes(), &vc.to_le_bytes(), &n.to_le_bytes()],
    );
    let c: Vec<f32> = mem.read(vc, n as usize);
    for i in 0..n as usize {
        assert_eq!(c[i], a[i] + b[i]);
    }
}

#[test]
fn ptx_tiled_matmul() {
    let m = module();
    let mut mem = HostMemory::new();
    let n = 32usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.25).collect();
    let (va, vb, vc) = (mem.upload(&a), mem.upload(&b), mem.alloc(4 * n * n));
    let nn = n as u32;
    run(
        &m,
        &mem,
        "matmul_tiled",
        [4, 4, 1],
        [8, 8, 1],
        &[&va.to_le_bytes(), &vb.to_le_bytes(), &vc.to_le_bytes(), &nn.to_le_bytes()],
    );
    let c: Vec<f32> = mem.read(vc, n * n);
    for r in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc = a[r * n + k].mul_add(b[k * n + col], acc);
            }
            assert_eq!(c[r * n + col], acc, "c[{r}][{col}]");
        }
    }
}

#[test]
fn ptx_reduction_with_shared_memory_shuffles_and_atomics() {
    let m = module();
    let mut mem = HostMemory::new();
    let n = 1000u32;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 101 - 50).collect();
    let vin = mem.upload(&input);
    let (vout, vmax, vmin) = (mem.alloc(4), mem.upload(&[0u32]), mem.upload(&[i32::MAX]));
    run(
        &m,
        &mem,
        "reduce_sum",
        [16, 1, 1],
        [64, 1, 1],
        &[&vin.to_le_bytes(), &vout.to_le_bytes(), &vmax.to_le_bytes(), &vmin.to_le_bytes(), &n.to_le_bytes()],
    );
    assert_eq!(mem.read::<i32>(vout, 1)[0], input.iter().sum::<i32>());
    assert_eq!(mem.read::<u32>(vmax, 1)[0], input.iter().map(|&x| x as u32).max().unwrap());
    assert_eq!(mem.read::<i32>(vmin, 1)[0], *input.iter().min().unwrap());
}

fn f16_bits(x: f32) -> u16 {
    baregpu_emu::nv::ptx::exec::f32_to_f16(x)
}

fn f16_val(h: u16) -> f32 {
    baregpu_emu::nv::ptx::exec::f16_to_f32(h)
}

#[test]
fn ptx_f16_and_f64_math() {
    let m = module();
    let mut mem = HostMemory::new();
    let n = 64usize;
    let hx: Vec<u16> = (0..n).map(|i| f16_bits(i as f32 * 0.375 + 0.25)).collect();
    let dx: Vec<f64> = (0..n).map(|i| i as f64 * 1.25 + 0.5).collect();
    let (vh, vd) = (mem.upload(&hx), mem.upload(&dx));
    let (vf, vod, voh, voi) = (mem.alloc(4 * n), mem.alloc(8 * n), mem.alloc(2 * 2 * n), mem.alloc(4 * 2 * n));
    run(
        &m,
        &mem,
        "math_f16_f64",
        [2, 1, 1],
        [32, 1, 1],
        &[
            &vh.to_le_bytes(),
            &vd.to_le_bytes(),
            &vf.to_le_bytes(),
            &vod.to_le_bytes(),
            &voh.to_le_bytes(),
            &voi.to_le_bytes(),
        ],
    );
    let of: Vec<f32> = mem.read(vf, n);
    let od: Vec<f64> = mem.read(vod, n);
    let oh: Vec<u16> = mem.read(voh, 2 * n);
    let oi: Vec<i32> = mem.read(voi, 2 * n);
    for i in 0..n {
        let x = f16_val(hx[i]);
        let y = dx[i];
        assert_eq!(of[i], x.sqrt() + x / 3.0, "of[{i}]");
        let want = (y * y / 3.0 + x as f64 - y.sqrt()) + y.mul_add(2.0, 1.0);
        assert_eq!(od[i], want, "od[{i}]");
        assert_eq!(oh[i], f16_bits(x.mul_add(2.0, 1.0)), "oh[{i}]");
        assert_eq!(oh[i + n], f16_bits((x as f64).mul_add(3.0, 0.5) as f32), "oh[{}]", i + n);
        let r = (x * 10.0).round_ties_even() as i32;
        assert_eq!(oi[i], (y * -1.5) as i32 + r % 7, "oi[{i}]");
        assert_eq!(oi[i + n], x.max(1.25) as i32 + (i as u32 + 1).leading_zeros() as i32, "oi[{}]", i + n);
    }
}

#[test]
fn malformed_ptx_names_the_line() {
    let src = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tadd.s32 %r1, %r1, %r9;\n\tret;\n}\n";
    let e = Module::parse(src).unwrap_err();
    assert_eq!(e.line, 7, "{e}");
    assert!(e.to_string().contains("%r9"), "{e}");
    let e = Module::parse(".version 7.8\n.entry k()\n{\n frobnicate.b32 %r1;\n}\n").unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    let e = Module::parse(".entry k()\n{\n bra $nowhere;\n}\n").unwrap_err();
    assert!(e.to_string().contains("$nowhere"), "{e}");
    let e = Module::parse(".entry k(\n").unwrap_err();
    assert!(e.line >= 1, "{e}");
}

#[test]
fn out_of_bounds_accesses_fault_with_the_va() {
    let m = module();
    let mut mem = HostMemory::new();
    let n = 100u32;
    let (va, vb, vc) = (mem.alloc(400), mem.alloc(400), mem.alloc(400));
    let params = m
        .param_block("vector_add", &[&va.to_le_bytes(), &vb.to_le_bytes(), &vc.to_le_bytes(), &(n * 2).to_le_bytes()])
        .unwrap();
    let e = m.launch(&Launch::new("vector_add", [2, 1, 1], [128, 1, 1], &params), &mem).unwrap_err();
    match e.fault {
        Fault::Memory { va: addr, space: "global", .. } => assert!(addr >= va + 400 && addr < va + 800, "{e}"),
        ref f => panic!("{f:?}"),
    }
    assert!(e.to_string().contains("vector_add"), "{e}");
}

/// A doorbell rung through the OS boundary wakes the parked channel processor itself, not a
/// timeout or a watcher that polls the doorbell words.
#[test]
fn a_doorbell_wakes_the_parked_channel_processor() {
    let (emu, dev) = open("sm_90");
    let pb_mem = dev.alloc(0x10000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let sig = dev.alloc(0x1000, NvMemKind::Host).unwrap();
    for i in 0..3u32 {
        let parked = emu.doorbell_stats().parks;
        wait_for("the channel processors to park", || emu.doorbell_stats().parks > parked);
        let mut pb = PushBuffer::new();
        pb.semaphore(sig.va, i as u64 + 1, 0x0100_0001).unwrap();
        submit(&dev, 0, &pb_mem, i as u64 * 0x100, &pb, i);
        wait_for("the release", || read_u64(sig.va) == i as u64 + 1);
    }
    let stats = emu.doorbell_stats();
    assert!(stats.doorbell_wakes >= 1, "no wake came from a doorbell: {stats:?}");
    assert_eq!(emu.watched_rings(), 0, "the doorbell watcher, not the doorbell, woke the channel");
}

/// A semaphore acquire on one channel ends because the other channel's release wrote the
/// semaphore, not by the acquire's safety-net poll: with the poll at 30 s, the acquire (which
/// must park first) can only finish through the release's wake-up. Both directions.
#[test]
fn a_release_on_one_channel_wakes_an_acquire_on_the_other() {
    let (emu, dev) = open("sm_90");
    emu.memory_writes().set_poll(Duration::from_secs(30), Duration::from_secs(30));
    let pb_mem = dev.alloc(0x10000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let sig = dev.alloc(0x1000, NvMemKind::Host).unwrap();
    // The next GP entry of each channel.
    let mut puts = [0u32; 2];
    for (waiter, writer) in [(0usize, 1usize), (1, 0)] {
        let gate = sig.va + 0x100 * waiter as u64;
        let (out, before) = (gate + 0x40, emu.wait_stats());
        let mut pb = PushBuffer::new();
        // Acquire (circular >=, 64-bit) the gate, then release 32-bit to `out`.
        pb.semaphore(gate, 5, 0x0100_0003).unwrap();
        pb.semaphore(out, 1, 0x0000_0001).unwrap();
        submit(&dev, waiter, &pb_mem, 0x100 * waiter as u64, &pb, puts[waiter]);
        puts[waiter] += 1;
        wait_for("the acquire to park", || emu.wait_stats().parks > before.parks);
        let mut pb = PushBuffer::new();
        pb.semaphore(gate, 5, 0x0100_0001).unwrap();
        submit(&dev, writer, &pb_mem, 0x1000 + 0x100 * writer as u64, &pb, puts[writer]);
        puts[writer] += 1;
        wait_for("the release after the acquire", || get::<u32>(out, 1)[0] == 1);
        let s = emu.wait_stats();
        assert!(s.write_wakes > before.write_wakes && s.timeouts == 0, "{s:?}");
    }
    assert!(emu.faults().is_empty(), "{:?}", emu.faults());
}

/// The host sleeps on RM's non-stall interrupt event (NvDevice::wait_nonstall, a poll(2) of an
/// event file), and the emulated RM posts a channel's NON_STALL_INTERRUPT to it: the wait ends
/// because of the interrupt (RM counts the post), a pending interrupt is not lost between a
/// look at the signal and the wait, and the poll consumes it (a second wait times out).
#[test]
fn a_nonstall_interrupt_ends_the_host_wait() {
    let (emu, dev) = open("sm_90");
    let pb_mem = dev.alloc(0x10000, NvMemKind::Vram { cpu_visible: true }).unwrap();
    let sig = dev.alloc(0x1000, NvMemKind::Host).unwrap();
    // Nothing pending yet; this also makes the event file.
    assert!(!dev.wait_nonstall(Duration::ZERO).unwrap());
    for ch in [0usize, 1] {
        let posted = emu.posted_events();
        let mut pb = PushBuffer::new();
        pb.semaphore(sig.va + 0x10 * ch as u64, 1, 0x0000_0001).unwrap();
        // NON_STALL_INTERRUPT: the compute channel's graphics engine, the copy channel's CE.
        pb.inc(0, 0x20, &[0]).unwrap();
        submit(&dev, ch, &pb_mem, 0x100 * ch as u64, &pb, 0);
        assert!(dev.wait_nonstall(Duration::from_secs(20)).unwrap(), "channel {ch}: no interrupt event");
        assert_eq!(get::<u32>(sig.va + 0x10 * ch as u64, 1)[0], 1, "the release comes before the interrupt");
        assert!(emu.posted_events() > posted);
        assert!(!dev.wait_nonstall(Duration::from_millis(5)).unwrap(), "the poll consumes the event");
    }
    assert!(emu.faults().is_empty(), "{:?}", emu.faults());
}
