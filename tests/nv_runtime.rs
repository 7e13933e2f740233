//! The runtime's NVIDIA device end to end on emu-nv: clang-22 PTX kernels (tests/fixtures/ptx)
//! launched through runtime::nv → drivers::nv (RM bring-up, GPFIFO, push buffers, QMDs) → the
//! emulated RM and its PTX interpreter, with results checked on the host; signals, the timeline,
//! the copy engine, argument checks and faults.
//!
//! With `BAREGPU_NV_DEVICE=nv:0` the same tests run on a real GPU (scripts/hw/nv.sh does this):
//! the kernels are compiled for it with ptxas, and the emulator-only checks are skipped.

#[path = "common/long_run.rs"]
mod long_run;

use baregpu::device::open_emulated_nv;
use baregpu_drivers::nv::qmd::{LaunchDesc, Qmd, QmdVersion};
use baregpu_emu::nv::ptx::exec::{f16_to_f32, f32_to_f16};
use baregpu_emu::nv::ptx::Module;
use baregpu_runtime::nv::{Buffer, NvCode, NvDevice, NvIsa, Program};
use baregpu_runtime::program::ptx::PtxModule;
use baregpu_runtime::program::{ArgValue, Launch};
use baregpu_runtime::Error;

const KERNELS: &str = include_str!("fixtures/ptx/kernels.ptx");

/// A real device named by BAREGPU_NV_DEVICE, if any.
fn real_device() -> Option<NvDevice> {
    let spec = std::env::var("BAREGPU_NV_DEVICE").ok()?;
    let spec = spec.parse().unwrap_or_else(|e| panic!("BAREGPU_NV_DEVICE: {e}"));
    match baregpu::device::open(&spec).unwrap_or_else(|e| panic!("{spec}: {e}")) {
        baregpu::device::Device::Nv(d) => Some(d),
        _ => panic!("BAREGPU_NV_DEVICE={spec} is not an NVIDIA device"),
    }
}

/// The device and the kernels, retargeted to its architecture (clang wrote them for sm_90; the
/// PTX features they use exist from sm_80 on); on a real GPU, compiled by ptxas.
fn open(arch: &str) -> (NvDevice, Program) {
    let dev = real_device().unwrap_or_else(|| open_emulated_nv(arch, 0).unwrap_or_else(|e| panic!("{arch}: {e}")));
    let ptx = KERNELS.replace(".target sm_90", &format!(".target {}", dev.arch));
    let bytes = match dev.isa() {
        NvIsa::Ptx => ptx.into_bytes(),
        NvIsa::Sass => baregpu::ptxas::compile(&ptx, &dev.arch, "tests/fixtures/ptx/kernels.ptx").unwrap(),
    };
    let code = NvCode::parse(&bytes).unwrap();
    let prog = dev.load(code).unwrap();
    (dev, prog)
}

fn upload<T: Copy>(dev: &NvDevice, data: &[T]) -> Buffer {
    let bytes = std::mem::size_of_val(data);
    let b = dev.alloc(bytes.max(4) as u64).unwrap();
    // SAFETY: plain-old-data viewed as bytes.
    let raw = unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, bytes) };
    dev.write(&b, 0, raw).unwrap();
    b
}

fn download<T: Copy + Default>(dev: &NvDevice, b: &Buffer, n: usize) -> Vec<T> {
    let mut out = vec![T::default(); n];
    // SAFETY: plain-old-data viewed as bytes.
    let raw = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u8, std::mem::size_of_val(&out[..])) };
    dev.read(b, 0, raw).unwrap();
    out
}

fn ptr(b: &Buffer) -> ArgValue {
    ArgValue::Pointer(b.va())
}

#[test]
fn vector_add_on_every_emulated_generation() {
    let archs: &[&str] = if real_device().is_some() { &["real"] } else { &["sm_90", "sm_89", "sm_120"] };
    for &arch in archs {
        let (dev, prog) = open(arch);
        let n = 1000u32;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 1.5).collect();
        let b: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
        let (ba, bb, bc) = (upload(&dev, &a), upload(&dev, &b), dev.alloc(4 * n as u64).unwrap());
        let args = [ptr(&ba), ptr(&bb), ptr(&bc), ArgValue::u32(n)];
        let s = dev.launch(&prog, "vector_add", &args, &Launch::new([8, 1, 1], [128, 1, 1]), true).unwrap();
        dev.synchronize().unwrap();
        let c: Vec<f32> = download(&dev, &bc, n as usize);
        for i in 0..n as usize {
            assert_eq!(c[i], a[i] + b[i], "{arch}: c[{i}]");
        }
        assert!(dev.elapsed_us(&s).is_some_and(|us| us > 0.0), "{arch}: GPU timestamps");
        dev.release(s);
    }
}

#[test]
fn tiled_matmul() {
    let (dev, prog) = open("sm_90");
    let n = 32usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.25).collect();
    let (ba, bb, bc) = (upload(&dev, &a), upload(&dev, &b), dev.alloc(4 * (n * n) as u64).unwrap());
    let args = [ptr(&ba), ptr(&bb), ptr(&bc), ArgValue::u32(n as u32)];
    dev.launch(&prog, "matmul_tiled", &args, &Launch::new([4, 4, 1], [8, 8, 1]), false).unwrap();
    dev.synchronize().unwrap();
    let c: Vec<f32> = download(&dev, &bc, n * n);
    for r in 0..n {
        for col in 0..n {
            let acc = (0..n).fold(0f32, |acc, k| a[r * n + k].mul_add(b[k * n + col], acc));
            assert_eq!(c[r * n + col], acc, "c[{r}][{col}]");
        }
    }
}

#[test]
fn reduction_with_shared_memory_and_atomics() {
    let (dev, prog) = open("sm_90");
    let n = 1000u32;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 101 - 50).collect();
    let bin = upload(&dev, &input);
    let (bout, bmax, bmin) = (upload(&dev, &[0i32]), upload(&dev, &[0u32]), upload(&dev, &[i32::MAX]));
    let args = [ptr(&bin), ptr(&bout), ptr(&bmax), ptr(&bmin), ArgValue::u32(n)];
    dev.launch(&prog, "reduce_sum", &args, &Launch::new([16, 1, 1], [64, 1, 1]), false).unwrap();
    dev.synchronize().unwrap();
    assert_eq!(download::<i32>(&dev, &bout, 1)[0], input.iter().sum::<i32>());
    assert_eq!(download::<u32>(&dev, &bmax, 1)[0], input.iter().map(|&x| x as u32).max().unwrap());
    assert_eq!(download::<i32>(&dev, &bmin, 1)[0], *input.iter().min().unwrap());
}

#[test]
fn f16_and_f64_math() {
    let (dev, prog) = open("sm_90");
    let n = 64usize;
    let hx: Vec<u16> = (0..n).map(|i| f32_to_f16(i as f32 * 0.375 + 0.25)).collect();
    let dx: Vec<f64> = (0..n).map(|i| i as f64 * 1.25 + 0.5).collect();
    let (bh, bd) = (upload(&dev, &hx), upload(&dev, &dx));
    let bf = dev.alloc(4 * n as u64).unwrap();
    let bod = dev.alloc(8 * n as u64).unwrap();
    let boh = dev.alloc(4 * n as u64).unwrap();
    let boi = dev.alloc(8 * n as u64).unwrap();
    let args = [ptr(&bh), ptr(&bd), ptr(&bf), ptr(&bod), ptr(&boh), ptr(&boi)];
    dev.launch(&prog, "math_f16_f64", &args, &Launch::new([2, 1, 1], [32, 1, 1]), false).unwrap();
    dev.synchronize().unwrap();
    let of: Vec<f32> = download(&dev, &bf, n);
    let od: Vec<f64> = download(&dev, &bod, n);
    let oh: Vec<u16> = download(&dev, &boh, 2 * n);
    let oi: Vec<i32> = download(&dev, &boi, 2 * n);
    for i in 0..n {
        let (x, y) = (f16_to_f32(hx[i]), dx[i]);
        assert_eq!(of[i], x.sqrt() + x / 3.0, "of[{i}]");
        assert_eq!(od[i], (y * y / 3.0 + x as f64 - y.sqrt()) + y.mul_add(2.0, 1.0), "od[{i}]");
        assert_eq!(oh[i], f32_to_f16(x.mul_add(2.0, 1.0)), "oh[{i}]");
        assert_eq!(oh[i + n], f32_to_f16((x as f64).mul_add(3.0, 0.5) as f32), "oh[{}]", i + n);
        assert_eq!(oi[i], (y * -1.5) as i32 + (x * 10.0).round_ties_even() as i32 % 7, "oi[{i}]");
        assert_eq!(oi[i + n], x.max(1.25) as i32 + (i as u32 + 1).leading_zeros() as i32, "oi[{}]", i + n);
    }
}

#[test]
fn copies_signals_and_the_timeline_order_work_across_channels() {
    let (dev, prog) = open("sm_90");
    let n = 4096u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let src = upload(&dev, &a);
    let (tmp, out) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    // copy → kernel (reads the copy) → copy back: the timeline orders them across channels.
    dev.copy(&tmp, 0, &src, 0, 4 * n as u64).unwrap();
    let args = [ptr(&tmp), ptr(&tmp), ptr(&tmp), ArgValue::u32(n)];
    dev.launch(&prog, "vector_add", &args, &Launch::new([32, 1, 1], [128, 1, 1]), false).unwrap();
    dev.copy(&out, 0, &tmp, 0, 4 * n as u64).unwrap();
    dev.synchronize().unwrap();
    let got: Vec<f32> = download(&dev, &out, n as usize);
    assert!(got.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32));

    // A host-released signal unblocks a waiting channel (64-bit values).
    let gate = dev.new_signal().unwrap();
    let done = dev.new_signal().unwrap();
    let big = 0x1_0000_0005u64;
    let mut q = dev.compute_queue().unwrap();
    q.wait(&gate, big).signal(&done, 7);
    q.submit().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    assert_eq!(done.value(), 0, "the channel waits on the gate");
    gate.set(big);
    dev.wait(&done, 7).unwrap();
    assert!(done.timestamp() > 0);

    // The timeline crosses 2^32 (and the waits compare circularly).
    dev.jump_timeline(u32::MAX as u64 - 1).unwrap();
    for _ in 0..4 {
        dev.copy(&out, 0, &src, 0, 16).unwrap();
    }
    dev.synchronize().unwrap();
    let (t, last) = dev.timeline();
    assert!(last > u32::MAX as u64 && t.value() == last, "{last:#x} {:#x}", t.value());
}

#[test]
fn many_submissions_recycle_push_buffer_and_argument_memory() {
    let (dev, prog) = open("sm_90");
    let b = dev.alloc(64).unwrap();
    // More launches than the argument ring (4 MiB / ~1 KiB) and the GPFIFO hold at once.
    for i in 0..6000u32 {
        let args = [ptr(&b), ptr(&b), ptr(&b), ArgValue::u32(i % 2)];
        dev.launch(&prog, "vector_add", &args, &Launch::new([1, 1, 1], [32, 1, 1]), false).unwrap();
    }
    dev.synchronize().unwrap();
}

#[test]
fn bad_arguments_and_shapes_are_refused_before_the_gpu_sees_them() {
    let (dev, prog) = open("sm_90");
    let b = dev.alloc(64).unwrap();
    let shape = Launch::new([1, 1, 1], [32, 1, 1]);
    let err = |args: &[ArgValue], shape: &Launch| dev.launch(&prog, "vector_add", args, shape, false).unwrap_err();
    let e = err(&[ptr(&b), ptr(&b)], &shape);
    assert!(e.to_string().contains("takes 4 arguments, 2 given"), "{e}");
    let e = err(&[ptr(&b), ptr(&b), ArgValue::u32(1), ArgValue::u32(1)], &shape);
    assert!(e.to_string().contains("argument 2 wants a buffer"), "{e}");
    let e = err(&[ptr(&b), ptr(&b), ptr(&b), ArgValue::f64(1.0)], &shape);
    // A cubin says only the parameter's size (a real GPU's path), PTX its type too.
    assert!(e.to_string().contains("argument 3 wants a 4-byte"), "{e}");
    let e = err(&[ptr(&b), ptr(&b), ptr(&b), ArgValue::u32(1)], &Launch::new([1, 1, 1], [2048, 1, 1]));
    assert!(e.to_string().contains("1024 threads"), "{e}");
    let e = dev.launch(&prog, "nope", &[], &shape, false).unwrap_err();
    // The kernels it has, in the program's order (a cubin's symbol order on a real GPU).
    assert!(e.to_string().contains("vector_add") && e.to_string().contains("matmul_tiled"), "{e}");
    // The device is fine afterwards.
    let args = [ptr(&b), ptr(&b), ptr(&b), ArgValue::u32(16)];
    dev.launch(&prog, "vector_add", &args, &shape, false).unwrap();
    dev.synchronize().unwrap();
    if dev.isa() == NvIsa::Sass {
        return; // the rest is about what the emulated GPU accepts
    }
    // PTX for a newer GPU is refused, as ptxas would.
    let older = open_emulated_nv("sm_89", 0).unwrap();
    let e = older.load(NvCode::parse(KERNELS.as_bytes()).unwrap()).unwrap_err();
    assert!(e.to_string().contains("targets sm_90"), "{e}");
    // A cubin cannot run on the emulated GPU (it executes PTX).
    let cubin =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cubin/nv_vadd.sm_90.cubin")).unwrap();
    let e = dev.load(NvCode::parse(&cubin).unwrap()).unwrap_err();
    assert!(e.to_string().contains("executes PTX"), "{e}");
}

#[test]
fn a_faulting_kernel_stops_the_channel_and_the_error_says_so() {
    let (dev, prog) = open("sm_90");
    let b = dev.alloc(0x1000).unwrap();
    // The output pointer is an address nothing maps.
    let args = [ptr(&b), ptr(&b), ArgValue::Pointer(0x100), ArgValue::u32(1024)];
    dev.launch(&prog, "vector_add", &args, &Launch::new([8, 1, 1], [128, 1, 1]), false).unwrap();
    let e = dev.synchronize().unwrap_err();
    assert!(matches!(e, Error::Fault { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("Xid") && msg.contains("vector_add"), "{msg}");
    if dev.isa() == NvIsa::Ptx {
        assert!(msg.contains("Xid 31: GPU memory page fault"), "{msg}");
    }
    // Where: RM's SM debugger reports the MMU fault at the VA a store went to (element i goes
    // to 0x100 + 4i; which CTA faults first varies). Real hardware reports the 4 KiB page.
    let at = msg.split("MMU fault at 0x").nth(1).unwrap_or_else(|| panic!("no MMU fault address: {msg}"));
    let hex: String = at.chars().take_while(char::is_ascii_hexdigit).collect();
    let va = u64::from_str_radix(&hex, 16).unwrap();
    assert!(at[hex.len()..].starts_with(": write"), "{msg}");
    if dev.isa() == NvIsa::Ptx {
        assert!((0x100..0x100 + 4 * 1024).contains(&va) && va % 4 == 0, "{msg}");
    } else {
        assert!(va <= 0x1000 && va % 0x1000 == 0, "{msg}");
    }
    // The device says it must be reopened instead of hanging.
    let e = dev.synchronize().unwrap_err();
    assert!(e.to_string().contains("reopen"), "{e}");
}

/// The runtime's PTX parameter layout and the interpreter's agree, and the QMDs the driver
/// builds decode in the emulator to what was asked for, for every QMD version.
#[test]
fn runtime_and_emulator_agree_on_parameters_and_qmds() {
    if real_device().is_some() {
        return; // offline: nothing here touches a GPU
    }
    let ours = PtxModule::parse(KERNELS).unwrap();
    let emu = Module::parse(KERNELS).unwrap();
    for e in &ours.entries {
        let args: Vec<Vec<u8>> = e.params.iter().enumerate().map(|(i, p)| vec![i as u8 + 1; p.size as usize]).collect();
        let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let theirs = emu.param_block(&e.name, &refs).unwrap();
        let mut mine = vec![0u8; e.param_size as usize];
        for (p, a) in e.params.iter().zip(&args) {
            mine[p.offset as usize..(p.offset + p.size) as usize].copy_from_slice(a);
        }
        assert_eq!(mine, theirs, "{}", e.name);
    }
    for (version, v) in [(QmdVersion::V3, 3), (QmdVersion::V4, 4), (QmdVersion::V5, 5)] {
        let desc = LaunchDesc {
            program_address: 0x12_3456_7800,
            program_size: 0x400,
            registers: 32,
            barriers: 1,
            shared_bytes: 0x2000,
            sm: [89, 90, 120][v - 3],
            local_bytes: 0x240,
            grid: [7, 3, 2],
            block: [64, 2, 1],
            constant_buffers: vec![(0, 0x10_0000_0040, 0x230), (3, 0x10_0000_1000, 0x80)],
        };
        let q = Qmd::launch(version, &desc).unwrap();
        let l = baregpu_emu::nv::qmd::decode(&q.to_bytes(), v as u32).unwrap();
        assert_eq!(l.version, v as u32);
        assert_eq!(l.program, desc.program_address, "{version:?}");
        assert_eq!((l.grid, l.block), (desc.grid, desc.block), "{version:?}");
        assert_eq!(l.shared_bytes, desc.shared_bytes, "{version:?}");
        assert_eq!(l.cbufs[0], Some((0x10_0000_0040, 0x230)), "{version:?}");
        assert_eq!(l.cbufs[3], Some((0x10_0000_1000, 0x80)), "{version:?}");
    }
}

#[test]
fn a_hung_kernel_times_out_and_the_device_closes() {
    if real_device().is_some() {
        return; // a hung kernel on real hardware is left to RM's own watchdog
    }
    let mut dev = open_emulated_nv("sm_90", 0).unwrap();
    dev.timeout = std::time::Duration::from_millis(300);
    let spin =
        ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry spin()\n{\n$L_top:\n\tbra.uni $L_top;\n}\n";
    let prog = dev.load(NvCode::parse(spin.as_bytes()).unwrap()).unwrap();
    dev.launch(&prog, "spin", &[], &Launch::new([1, 1, 1], [32, 1, 1]), false).unwrap();
    let t = std::time::Instant::now();
    let e = dev.synchronize().unwrap_err();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert!(e.to_string().contains("spin"), "{e}");
    assert!(t.elapsed() < std::time::Duration::from_secs(10));
    assert!(dev.synchronize().unwrap_err().to_string().contains("reopen"));
    // Dropping the device tears the channel down, which cancels the kernel (no hang here).
    drop(prog);
    drop(dev);
}

/// Issue 10 item 7: a valid kernel that runs far longer than the no-progress timeout while it
/// retires CTAs steadily finishes: the wait counts retired CTAs as progress, not only signals.
#[test]
fn a_long_kernel_that_retires_ctas_is_not_a_hang() {
    if real_device().is_some() {
        return; // real GPUs expose no retired-CTA count; their waits rely on signals
    }
    let dev = open_emulated_nv("sm_90", 0).unwrap();
    let work = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry work(.param .u32 n)\n{\n\
                \t.reg .pred %p;\n\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, 0;\n$L_top:\n\
                \tadd.u32 %r2, %r2, 1;\n\tsetp.lt.u32 %p, %r2, %r1;\n\t@%p bra.uni $L_top;\n\tret;\n}\n";
    let mut dev = dev;
    let prog = dev.load(NvCode::parse(work.as_bytes()).unwrap()).unwrap();
    long_run::outlasts_timeout(|timeout| {
        dev.timeout = timeout;
        let t = std::time::Instant::now();
        dev.launch(&prog, "work", &[ArgValue::u32(400)], &Launch::new([1500, 1, 1], [32, 1, 1]), false).unwrap();
        dev.synchronize()
            .unwrap_or_else(|e| panic!("a progressing kernel was taken for a hang after {:?}: {e}", t.elapsed()));
        t.elapsed()
    });
}

/// A kernel that traps: RM's SM debugger names the SM with the error and the PC (on the
/// emulated GPU: the breakpoint-trap bit and the PTX line of the `trap`).
#[test]
fn a_trapping_kernel_reports_the_sm_and_its_pc() {
    let trap = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry trapper(.param .u32 n)\n{\n\
                \t.reg .pred %p;\n\t.reg .b32 %r<3>;\n\tmov.u32 %r1, %tid.x;\n\tld.param.u32 %r2, [n];\n\
                \tsetp.eq.u32 %p, %r1, %r2;\n\t@%p trap;\n\tret;\n}\n";
    let dev = real_device().unwrap_or_else(|| open_emulated_nv("sm_90", 0).unwrap());
    let ptx = trap.replace(".target sm_90", &format!(".target {}", dev.arch));
    let bytes = match dev.isa() {
        NvIsa::Ptx => ptx.clone().into_bytes(),
        NvIsa::Sass => baregpu::ptxas::compile(&ptx, &dev.arch, "trapper.ptx").unwrap(),
    };
    let prog = dev.load(NvCode::parse(&bytes).unwrap()).unwrap();
    dev.launch(&prog, "trapper", &[ArgValue::u32(5)], &Launch::new([3, 1, 1], [64, 1, 1]), false).unwrap();
    let msg = dev.synchronize().unwrap_err().to_string();
    assert!(msg.contains("trapper") && msg.contains("SM ") && msg.contains(", PC 0x"), "{msg}");
    if dev.isa() == NvIsa::Ptx {
        let line = ptx.lines().position(|l| l.contains("trap;")).unwrap() + 1;
        assert!(msg.contains(&format!("global ESR 0x10 (BPT_INT), PC {line:#x}")), "{msg}");
        assert!(!msg.contains("MMU fault"), "{msg}");
    }
}
