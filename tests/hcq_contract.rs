//! The hardware-queue contract, run on the default test device (emu:gfx1100) and unchanged on a
//! real GPU with `BAREGPU_DEVICE=amd` (or any AMD spec): signal, wait, cross-queue wait then
//! signal, timestamps, exec, copies (split and unaligned), timeline wrap, memory barrier, kernarg ring reuse under pressure, and recovery after a fault.
//! The driver interface beneath the AMD backend has its own contract in `iface`.

use baregpu::device::{self, Device};
use baregpu_runtime::amd::AmdDevice;
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
use baregpu_runtime::DeviceSpec;
use std::path::PathBuf;
use std::time::Duration;

#[path = "hcq_contract/am.rs"]
mod am;
#[path = "hcq_contract/hang_budget.rs"]
mod hang_budget;
#[path = "hcq_contract/iface.rs"]
mod iface;
#[path = "hcq_contract/link.rs"]
mod link;
#[path = "common/long_run.rs"]
mod long_run;
#[path = "hcq_contract/remote.rs"]
mod remote;

thread_local! {
    /// The device a test thread runs the contract on instead (see
    /// [`the_contract_holds_on_the_am_driver_over_the_emulated_pci_gpu`]).
    static SPEC: std::cell::RefCell<Option<DeviceSpec>> = const { std::cell::RefCell::new(None) };
    /// Or the emulated PCI GPU behind a test link (see [`link`]).
    static OVER: std::cell::Cell<Option<link::Over>> = const { std::cell::Cell::new(None) };
}

/// What errors and logs call the contract's device.
fn label() -> String {
    if let Some(r) = remote::current() {
        return r.label();
    }
    match OVER.get() {
        Some(o) => o.label(),
        None => spec().to_string(),
    }
}

/// Whether the contract's device is emulated (what tests of emulated behaviour ask).
fn emulated() -> bool {
    let usb_emu = matches!(spec(), DeviceSpec::Usb { path } if path.starts_with("emu:"));
    OVER.get().is_some()
        || remote::current().is_some()
        || matches!(spec(), DeviceSpec::Emu { .. })
        || spec().am_emulated_arch().is_some()
        || usb_emu
}

/// The device the contract runs on: `BAREGPU_DEVICE`, else emu:gfx1100.
fn spec() -> DeviceSpec {
    if let Some(s) = SPEC.with(|s| s.borrow().clone()) {
        return s;
    }
    let spec = std::env::var("BAREGPU_DEVICE").unwrap_or_else(|_| "emu:gfx1100".into());
    spec.parse().unwrap_or_else(|e| panic!("BAREGPU_DEVICE: {e}"))
}

fn open() -> AmdDevice {
    if let Some(o) = OVER.get() {
        return o.open().0;
    }
    if let Some(r) = remote::current() {
        return r.open();
    }
    let spec = spec();
    match device::open(&spec).unwrap_or_else(|e| panic!("{spec}: {e}")) {
        Device::Amd(d) => d,
        Device::Nv(d) => panic!("{}: the AMD contract needs an AMD device (NVIDIA: tests/nv_runtime.rs)", d.label),
    }
}

fn fixture(arch: &str) -> CodeObject {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/hsaco/basic-{arch}.hsaco"));
    CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap()
}

#[test]
fn signal() {
    let dev = open();
    let s = dev.new_signal().unwrap();
    let mut q = dev.compute_queue().unwrap();
    q.signal(&s, 7);
    q.submit().unwrap();
    dev.wait(&s, 7).unwrap();
    assert_eq!(s.value(), 7);
    dev.synchronize().unwrap();
}

#[test]
fn wait_blocks_until_the_host_signals() {
    let dev = open();
    let (gate, out) = (dev.new_signal().unwrap(), dev.new_signal().unwrap());
    let mut q = dev.compute_queue().unwrap();
    q.wait(&gate, 3).signal(&out, 1);
    q.submit().unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(out.value(), 0, "the queue ran past an unsatisfied wait");
    gate.set(2);
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(out.value(), 0, "the wait is >=, not !=");
    gate.set(3);
    dev.wait(&out, 1).unwrap();
    dev.synchronize().unwrap();
}

#[test]
fn cross_queue_wait_then_signal() {
    let dev = open();
    let (a, b) = (dev.new_signal().unwrap(), dev.new_signal().unwrap());
    // The copy queue waits for what the compute queue signals later.
    let mut c = dev.copy_queue().unwrap();
    c.wait(&a, 1).signal(&b, 2);
    c.submit().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(b.value(), 0);
    let mut q = dev.compute_queue().unwrap();
    q.signal(&a, 1);
    q.submit().unwrap();
    dev.wait(&b, 2).unwrap();
    dev.synchronize().unwrap();
}

#[test]
fn timestamps_are_monotonic() {
    let dev = open();
    let sigs: Vec<_> = (0..6).map(|_| dev.new_signal().unwrap()).collect();
    // Alternate the engines: both stamp the same GPU clock.
    for (i, s) in sigs.iter().enumerate() {
        if i % 2 == 0 {
            let mut q = dev.compute_queue().unwrap();
            q.timestamp(s);
            q.submit().unwrap();
        } else {
            let mut c = dev.copy_queue().unwrap();
            c.timestamp(s);
            c.submit().unwrap();
        }
        dev.synchronize().unwrap();
    }
    let ts: Vec<u64> = sigs.iter().map(|s| s.timestamp()).collect();
    assert!(ts[0] > 0, "no timestamp written: {ts:?}");
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "not monotonic: {ts:?}");
}

#[test]
fn exec_vector_add() {
    let dev = open();
    let prog = dev.load(fixture(&dev.arch)).unwrap();
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (ba, bb, bc) =
        (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    dev.write(&ba, 0, &bytes(&a)).unwrap();
    dev.write(&bb, 0, &bytes(&b)).unwrap();
    let args =
        [ArgValue::Pointer(ba.va()), ArgValue::Pointer(bb.va()), ArgValue::Pointer(bc.va()), ArgValue::u32(n as u32)];
    let s = dev
        .launch(&prog, "vector_add", &args, &Launch::new([(n as u32).div_ceil(64), 1, 1], [64, 1, 1]), true)
        .unwrap();
    dev.synchronize().unwrap();
    let mut out = vec![0u8; 4 * n];
    dev.read(&bc, 0, &mut out).unwrap();
    for i in 0..n {
        let c = f32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(c, a[i] + b[i], "element {i}");
    }
    assert!(dev.elapsed_us(&s).is_some_and(|us| us >= 0.0));
    dev.release(s);
    for buf in [ba, bb, bc] {
        dev.free(buf).unwrap();
    }
    dev.unload(prog).unwrap();
}

#[test]
fn copies_of_unaligned_sizes_and_offsets() {
    let dev = open();
    let src = dev.alloc(1 << 16).unwrap();
    let dst = dev.alloc(1 << 16).unwrap();
    let data: Vec<u8> = (0..1 << 16).map(|i: u32| (i * 7 + 3) as u8).collect();
    dev.write(&src, 0, &data).unwrap();
    for (so, dso, n) in [(0u64, 0u64, 1u64), (1, 3, 3), (3, 1, 4097), (5, 7, 40_000)] {
        dev.write(&dst, 0, &vec![0u8; 1 << 16]).unwrap();
        dev.copy(&dst, dso, &src, so, n).unwrap();
        dev.synchronize().unwrap();
        let mut out = vec![0u8; 1 << 16];
        dev.read(&dst, 0, &mut out).unwrap();
        assert_eq!(
            &out[dso as usize..(dso + n) as usize],
            &data[so as usize..(so + n) as usize],
            "copy {so}->{dso} of {n}"
        );
        assert!(out[..dso as usize].iter().all(|&b| b == 0), "wrote before the destination");
        assert!(out[(dso + n) as usize..].iter().all(|&b| b == 0), "wrote past the destination");
    }
    dev.free(src).unwrap();
    dev.free(dst).unwrap();
}

#[test]
fn copies_above_the_engines_packet_size_are_split() {
    // SDMA 4 (gfx942) moves at most 4 MiB per packet; the emulated gfx942 keeps this cheap.
    let spec: DeviceSpec =
        std::env::var("BAREGPU_DEVICE_SDMA4").unwrap_or_else(|_| "emu:gfx942".into()).parse().unwrap();
    let Device::Amd(dev) = device::open(&spec).unwrap() else { panic!("{spec} is not an AMD device") };
    let n = (4 << 20) + 4097;
    let src = dev.alloc(n).unwrap();
    let dst = dev.alloc(n).unwrap();
    let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
    dev.write(&src, 0, &data).unwrap();
    dev.copy(&dst, 0, &src, 0, n).unwrap();
    dev.synchronize().unwrap();
    let mut out = vec![0u8; n as usize];
    dev.read(&dst, 0, &mut out).unwrap();
    assert!(out == data, "split copy differs");
}

#[test]
fn timeline_wraps_before_the_gpus_32_bit_compare() {
    let dev = open();
    dev.jump_timeline(baregpu_runtime::timeline::WRAP_AT - 3).unwrap();
    let before = dev.timeline().0;
    for _ in 0..6 {
        let s = dev.new_signal().unwrap();
        let mut q = dev.compute_queue().unwrap();
        q.signal(&s, 1);
        q.submit().unwrap();
        let src = dev.alloc(64).unwrap();
        let dst = dev.alloc(64).unwrap();
        dev.copy(&dst, 0, &src, 0, 64).unwrap();
        dev.synchronize().unwrap();
        dev.free(src).unwrap();
        dev.free(dst).unwrap();
    }
    let (after, last) = dev.timeline();
    assert_ne!(before, after, "the timeline did not move to its other slot");
    assert!(last < 16, "the timeline did not rewind: {last}");
}

#[test]
fn memory_barrier_makes_host_writes_visible() {
    let dev = open();
    let buf = dev.alloc(4096).unwrap();
    let dst = dev.alloc(4096).unwrap();
    for round in 0..5u8 {
        dev.write(&buf, 0, &vec![round; 4096]).unwrap();
        let mut q = dev.compute_queue().unwrap();
        q.memory_barrier();
        q.submit().unwrap();
        dev.copy(&dst, 0, &buf, 0, 4096).unwrap();
        dev.synchronize().unwrap();
        let mut out = vec![0u8; 4096];
        dev.read(&dst, 0, &mut out).unwrap();
        assert!(out.iter().all(|&b| b == round), "round {round}");
    }
}

#[test]
fn kernarg_ring_is_reused_under_pressure() {
    let dev = open();
    let prog = dev.load(fixture(&dev.arch)).unwrap();
    let n = 64u32;
    let buf = dev.alloc(4 * n as u64).unwrap();
    // fill2d writes value + x: ~300-byte kernarg segments over a 1 MiB ring, so 5000 launches
    // wrap it more than once and later launches wait for earlier ones to finish with theirs.
    dev.write(&buf, 0, &vec![0u8; 4 * n as usize]).unwrap();
    let launches = 5000;
    for i in 0..launches {
        let fill = [ArgValue::Pointer(buf.va()), ArgValue::u32(n), ArgValue::u32(i)];
        let s = dev.launch(&prog, "fill2d", &fill, &Launch::new([1, 1, 1], [n, 1, 1]), false).unwrap();
        dev.release(s);
    }
    dev.synchronize().unwrap();
    let mut out = vec![0u8; 4 * n as usize];
    dev.read(&buf, 0, &mut out).unwrap();
    for x in 0..n as usize {
        let v = i32::from_le_bytes(out[4 * x..4 * x + 4].try_into().unwrap());
        assert_eq!(v, launches as i32 - 1 + x as i32, "element {x}: the last launch's value");
    }
    dev.free(buf).unwrap();
    dev.unload(prog).unwrap();
}

#[test]
fn a_fault_is_reported_and_the_device_keeps_working() {
    let dev = open();
    let prog = dev.load(fixture(&dev.arch)).unwrap();
    // vector_add writing through a pointer into nothing: the guard gap after a buffer.
    let good = dev.alloc(256).unwrap();
    let bad = (good.va() + good.size()).next_multiple_of(0x1000);
    let args = [ArgValue::Pointer(good.va()), ArgValue::Pointer(good.va()), ArgValue::Pointer(bad), ArgValue::u32(64)];
    let s = dev.launch(&prog, "vector_add", &args, &Launch::new([1, 1, 1], [64, 1, 1]), false).unwrap();
    let err = dev.synchronize().unwrap_err().to_string();
    assert!(err.contains("memory fault") && err.contains(&format!("{bad:#x}")), "{err}");
    assert!(err.contains("vector_add"), "the error names the last submission: {err}");
    dev.release(s);
    // The next launch works.
    let args =
        [ArgValue::Pointer(good.va()), ArgValue::Pointer(good.va()), ArgValue::Pointer(good.va()), ArgValue::u32(64)];
    let s = dev.launch(&prog, "vector_add", &args, &Launch::new([1, 1, 1], [64, 1, 1]), false).unwrap();
    dev.synchronize().unwrap();
    dev.release(s);
    dev.free(good).unwrap();
    dev.unload(prog).unwrap();
}

#[test]
fn a_hung_kernel_times_out_and_the_device_keeps_working() {
    use baregpu_compiler::codeobj::{write_code_object, Kernel};
    use baregpu_isa::Arch;
    let mut dev = open();
    dev.timeout = Duration::from_millis(500);
    let arch = Arch::from_name(&dev.arch).unwrap();
    let code = baregpu_isa::assemble(arch, "spin:\n  s_branch spin\n").unwrap();
    let co = CodeObject::parse(&write_code_object(arch, &[Kernel::new(arch, "spin", code)]).unwrap()).unwrap();
    let prog = dev.load(co).unwrap();
    let s = dev.launch(&prog, "spin", &[], &Launch::new([1, 1, 1], [32, 1, 1]), false).unwrap();
    let t = std::time::Instant::now();
    let err = dev.synchronize().unwrap_err().to_string();
    assert!(err.contains("timed out") && err.contains("kernel `spin`"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(10), "the timeout took {:?}", t.elapsed());
    dev.release(s);
    // The queues were rebuilt: the next launch runs.
    let empty = dev.load(baregpu::bench_launch::empty_kernel(&dev.arch).unwrap()).unwrap();
    let s = dev.launch(&empty, "empty", &[], &Launch::new([1, 1, 1], [32, 1, 1]), false).unwrap();
    dev.synchronize().unwrap();
    dev.release(s);
    dev.unload(empty).unwrap();
    dev.unload(prog).unwrap();
}

/// Issue 10 item 7: one dispatch that runs far past the no-progress timeout while it retires
/// workgroups steadily finishes (the emulated GPU counts them; a real one only times out on
/// its signals, so the test is for emulated devices).
#[test]
fn a_long_dispatch_that_retires_workgroups_is_not_a_hang() {
    use baregpu_compiler::codeobj::{write_code_object, Kernel};
    use baregpu_isa::Arch;
    if !emulated() {
        return;
    }
    let mut dev = open();
    let arch = Arch::from_name(&dev.arch).unwrap();
    let src =
        "  s_mov_b32 s0, 0x2800\ntop:\n  s_sub_u32 s0, s0, 1\n  s_cmp_lg_u32 s0, 0\n  s_cbranch_scc1 top\n  s_endpgm\n";
    let code = baregpu_isa::assemble(arch, src).unwrap();
    let co = CodeObject::parse(&write_code_object(arch, &[Kernel::new(arch, "count", code)]).unwrap()).unwrap();
    let prog = dev.load(co).unwrap();
    long_run::outlasts_timeout(|timeout| {
        dev.timeout = timeout;
        let t = std::time::Instant::now();
        let s = dev.launch(&prog, "count", &[], &Launch::new([4000, 1, 1], [32, 1, 1]), false).unwrap();
        dev.synchronize()
            .unwrap_or_else(|e| panic!("a progressing dispatch was taken for a hang after {:?}: {e}", t.elapsed()));
        dev.release(s);
        t.elapsed()
    });
    dev.unload(prog).unwrap();
}

#[test]
fn copies_through_staging_reach_memory_the_cpu_cannot_map() {
    let dev = open();
    let n = baregpu_runtime::amd::STAGING_BYTES as usize * 2 + 12_345; // three staging rounds
    let vram = dev.alloc_vram(n as u64).unwrap();
    assert!(!vram.host_visible());
    let mut probe = [0u8; 4];
    assert!(dev.read(&vram, 0, &mut probe).is_err(), "a CPU read of invisible VRAM must be refused");
    let data: Vec<u8> = (0..n).map(|i| (i * 131 % 256) as u8).collect();
    dev.copy_in(&vram, 0, &data).unwrap();
    let mut back = vec![0u8; n];
    dev.copy_out(&vram, 0, &mut back).unwrap();
    assert!(back == data, "round trip through staging differs");
    // A kernel reads and writes it like any other buffer.
    let prog = dev.load(fixture(&dev.arch)).unwrap();
    let m = 256u32;
    let args = [ArgValue::Pointer(vram.va()), ArgValue::u32(m), ArgValue::u32(7)];
    let s = dev.launch(&prog, "fill2d", &args, &Launch::new([1, 1, 1], [m, 1, 1]), false).unwrap();
    let mut out = vec![0u8; 4 * m as usize];
    dev.copy_out(&vram, 0, &mut out).unwrap();
    for x in 0..m as usize {
        assert_eq!(i32::from_le_bytes(out[4 * x..4 * x + 4].try_into().unwrap()), 7 + x as i32);
    }
    dev.release(s);
    assert!(dev.copy_in(&vram, vram.size() - 1, &[1, 2]).is_err(), "copy past the end accepted");
    dev.free(vram).unwrap();
    dev.unload(prog).unwrap();
}

/// The whole contract again on `am:emu:gfx1100`: the emulated PCI GPU booted by the AM driver,
/// under the same runtime (issue 16). Skipped where `BAREGPU_DEVICE` names the run's device.
#[test]
fn the_contract_holds_on_the_am_driver_over_the_emulated_pci_gpu() {
    the_contract_on_the_am_driver("gfx1100");
}

/// The same on `am:emu:gfx942`: GC 9.4.3 on 8 XCCs, each compute ring mapped on every XCC's HQD
/// and dispatches split across them, SDMA 4.4, MMHUB 1.8, PSP 13.0.6.
#[test]
fn the_contract_holds_on_the_am_driver_over_the_emulated_pci_gfx942() {
    the_contract_on_the_am_driver("gfx942");
}

fn the_contract_on_the_am_driver(arch: &str) {
    if std::env::var("BAREGPU_DEVICE").is_ok() {
        return;
    }
    SPEC.with(|s| *s.borrow_mut() = Some(format!("am:emu:{arch}").parse().unwrap()));
    run_contract();
}

/// The whole contract on `usb:emu:gfx1100`: the AM driver over the emulated ASM24xx USB bridge
/// (TLPs for every register and VRAM access, everything in VRAM, the SRAM pool for staging).
#[test]
fn the_contract_holds_over_the_emulated_usb_bridge() {
    if std::env::var("BAREGPU_DEVICE").is_ok() {
        return;
    }
    SPEC.with(|s| *s.borrow_mut() = Some("usb:emu:gfx1100".parse().unwrap()));
    run_contract();
}

/// Every test of the contract, on the device this thread set (`SPEC`, `OVER` or `remote::REMOTE`).
fn run_contract() {
    let tests: [(&str, fn()); 18] = [
        ("signal", signal),
        ("wait_blocks_until_the_host_signals", wait_blocks_until_the_host_signals),
        ("cross_queue_wait_then_signal", cross_queue_wait_then_signal),
        ("timestamps_are_monotonic", timestamps_are_monotonic),
        ("exec_vector_add", exec_vector_add),
        ("copies_of_unaligned_sizes_and_offsets", copies_of_unaligned_sizes_and_offsets),
        ("timeline_wraps_before_the_gpus_32_bit_compare", timeline_wraps_before_the_gpus_32_bit_compare),
        ("memory_barrier_makes_host_writes_visible", memory_barrier_makes_host_writes_visible),
        ("kernarg_ring_is_reused_under_pressure", kernarg_ring_is_reused_under_pressure),
        ("a_fault_is_reported_and_the_device_keeps_working", a_fault_is_reported_and_the_device_keeps_working),
        ("a_hung_kernel_times_out_and_the_device_keeps_working", a_hung_kernel_times_out_and_the_device_keeps_working),
        (
            "a_long_dispatch_that_retires_workgroups_is_not_a_hang",
            a_long_dispatch_that_retires_workgroups_is_not_a_hang,
        ),
        (
            "copies_through_staging_reach_memory_the_cpu_cannot_map",
            copies_through_staging_reach_memory_the_cpu_cannot_map,
        ),
        ("iface::memory_of_every_kind", iface::memory_of_every_kind_has_one_address_for_cpu_and_gpu),
        ("iface::queues_run", iface::queues_run_what_is_pushed_and_report_their_read_pointers),
        ("iface::sleep_returns", iface::sleep_returns_and_reports_a_fault_then_recovery_rebuilds_the_queue),
        ("iface::foreign_memory", iface::foreign_memory_and_queues_are_refused_and_memory_works_after_close),
        ("iface::the_backend_gives_back", iface::the_backend_gives_back_all_it_took_through_the_interface),
    ];
    let label = label();
    for (name, t) in tests {
        log::info!("{label}: {name}");
        t();
    }
}
