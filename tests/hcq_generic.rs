//! One contract, written once against the vendor-neutral `runtime::hcq` traits, run on an AMD
//! device (emu:gfx1100, or `BAREGPU_DEVICE`) and an NVIDIA one (emu-nv:sm_90, or
//! `BAREGPU_NV_DEVICE` with ptxas for a real GPU): queues that wait on each other through signals,
//! timestamps, copies, launches through the convenience call and through the queue builders.

use baregpu::device::{self, Device};
use baregpu_runtime::core::{self, Backend, Encoder, Queue};
use baregpu_runtime::hcq::{ComputeQueue, CopyQueue, DeviceBuffer, HcqDevice, HwQueue};
use baregpu_runtime::nv::{NvCode, NvIsa};
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
use baregpu_runtime::DeviceSpec;
use std::time::Duration;

fn spec(var: &str, default: &str) -> DeviceSpec {
    std::env::var(var).unwrap_or_else(|_| default.into()).parse().unwrap_or_else(|e| panic!("{var}: {e}"))
}

fn amd() -> (baregpu_runtime::amd::AmdDevice, CodeObject) {
    let s = spec("BAREGPU_DEVICE", "emu:gfx1100");
    let Device::Amd(dev) = device::open(&s).unwrap_or_else(|e| panic!("{s}: {e}")) else { panic!("{s}: not AMD") };
    let p = format!("{}/tests/fixtures/hsaco/basic-{}.hsaco", env!("CARGO_MANIFEST_DIR"), dev.arch);
    let code = CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap();
    (dev, code)
}

fn nv() -> (baregpu_runtime::nv::NvDevice, NvCode) {
    let s = spec("BAREGPU_NV_DEVICE", "emu-nv:sm_90");
    let Device::Nv(dev) = device::open(&s).unwrap_or_else(|e| panic!("{s}: {e}")) else { panic!("{s}: not NVIDIA") };
    let ptx = include_str!("fixtures/ptx/kernels.ptx").replace(".target sm_90", &format!(".target {}", dev.arch));
    let bytes = match dev.isa() {
        NvIsa::Ptx => ptx.into_bytes(),
        NvIsa::Sass => baregpu::ptxas::compile(&ptx, &dev.arch, "kernels.ptx").unwrap(),
    };
    (dev, NvCode::parse(&bytes).unwrap())
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn cross_queue_signals<D: HcqDevice>(dev: &D) {
    let (gate, mid, done) = (dev.new_signal().unwrap(), dev.new_signal().unwrap(), dev.new_signal().unwrap());
    // copy queue waits for the host, signals the compute queue, which signals the host.
    let mut c = dev.compute_queue().unwrap();
    c.wait(&mid, 2).timestamp(&done);
    c.signal(&done, 3);
    c.submit().unwrap();
    let mut x = dev.copy_queue().unwrap();
    x.wait(&gate, 1).signal(&mid, 2);
    x.submit().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(done.value(), 0, "{}: ran before the gate opened", dev.label());
    gate.set(1);
    dev.wait(&done, 3).unwrap();
    assert!(done.timestamp() > 0, "{}: a timestamp", dev.label());
    for s in [gate, mid, done] {
        dev.free_signal(s);
    }
}

fn copies_round_trip<D: HcqDevice>(dev: &D) {
    let n = 3 * 4096 + 17;
    let data: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
    let (src, dst) = (dev.alloc(n as u64 + 64).unwrap(), dev.alloc_host(n as u64 + 64).unwrap());
    assert!(src.host_visible() && dst.host_visible() && src.size() >= n as u64 && src.va() != dst.va());
    dev.write(&src, 3, &data).unwrap();
    dev.copy(&dst, 5, &src, 3, n as u64).unwrap();
    dev.synchronize().unwrap();
    let mut back = vec![0u8; n];
    dev.read(&dst, 5, &mut back).unwrap();
    assert_eq!(back, data, "{}", dev.label());
    // The same through the queue builder, signalling a signal of our own.
    let s = dev.new_signal().unwrap();
    let mut q = dev.copy_queue().unwrap();
    q.copy(dst.va(), src.va() + 3, 64).signal(&s, 9);
    q.submit().unwrap();
    dev.wait(&s, 9).unwrap();
    dev.free_signal(s);
    dev.free(src).unwrap();
    dev.free(dst).unwrap();
}

fn launches<D: HcqDevice>(dev: &D, code: D::Code) {
    let prog = dev.load(code).unwrap();
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 7.0 - i as f32).collect();
    let (ba, bb, bc) =
        (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    dev.write(&ba, 0, &bytes(&a)).unwrap();
    dev.write(&bb, 0, &bytes(&b)).unwrap();
    let args = [ArgValue::Pointer(ba.va()), ArgValue::Pointer(bb.va()), ArgValue::Pointer(bc.va()), ArgValue::u32(n)];
    let shape = Launch::new([n.div_ceil(64), 1, 1], [64, 1, 1]);
    let s = dev.launch(&prog, "vector_add", &args, &shape, true).unwrap();
    dev.wait_value(dev.submitted_value(&s)).unwrap();
    dev.synchronize().unwrap();
    assert!(dev.elapsed_us(&s).is_some_and(|us| us > 0.0), "{}: GPU time", dev.label());
    dev.release(s);
    let mut out = vec![0u8; 4 * n as usize];
    dev.read(&bc, 0, &mut out).unwrap();
    assert!(floats(&out).iter().enumerate().all(|(i, &c)| c == a[i] + b[i]), "{}", dev.label());

    // Through the builder: barrier, exec (c = c + c), our own completion signal.
    let s = dev.new_signal().unwrap();
    let mut q = dev.compute_queue().unwrap();
    q.memory_barrier();
    q.exec(&prog, "vector_add", &[args[2].clone(), args[2].clone(), args[2].clone(), args[3].clone()], &shape).unwrap();
    q.signal(&s, 1);
    q.submit().unwrap();
    dev.wait(&s, 1).unwrap();
    dev.read(&bc, 0, &mut out).unwrap();
    assert!(floats(&out).iter().enumerate().all(|(i, &c)| c == 2.0 * (a[i] + b[i])), "{}", dev.label());
    dev.free_signal(s);
    for x in [ba, bb, bc] {
        dev.free(x).unwrap();
    }
    dev.unload(prog).unwrap();
}

fn contract<D: HcqDevice>(dev: &D, code: D::Code) {
    cross_queue_signals(dev);
    copies_round_trip(dev);
    launches(dev, code);
    let (t, last) = dev.timeline();
    assert!(t.reached(last), "{}: idle after synchronize", dev.label());
}

/// A launch that fails (here: wrong arguments) gives its two profiling signals back: more
/// failures than the signal page has slots, then a profiled launch still gets its timestamps.
/// (AMD's launch used to keep them, and ran out of signal slots.)
fn failed_launches_return_their_signals<D: HcqDevice>(dev: &D, code: D::Code) {
    let prog = dev.load(code).unwrap();
    let shape = Launch::new([1, 1, 1], [64, 1, 1]);
    for _ in 0..300 {
        let e = dev.launch(&prog, "vector_add", &[ArgValue::u32(1)], &shape, true).err();
        assert!(e.is_some_and(|e| e.to_string().contains("argument")), "{}: a bad launch", dev.label());
    }
    let buf = dev.alloc(4 * 64).unwrap();
    let p = ArgValue::Pointer(buf.va());
    let s = dev.launch(&prog, "vector_add", &[p.clone(), p.clone(), p, ArgValue::u32(64)], &shape, true);
    let s = s.unwrap_or_else(|e| panic!("{}: a profiled launch after failed ones: {e}", dev.label()));
    dev.synchronize().unwrap();
    assert!(dev.elapsed_us(&s).is_some(), "{}: timestamps", dev.label());
    dev.release(s);
    dev.free(buf).unwrap();
    dev.unload(prog).unwrap();
}

/// Signals own a share of their page: read after the device is gone, one is still valid memory
/// (the page is left mapped) and holds what was last written.
fn signals_outlive_their_device<D: HcqDevice>(dev: D) {
    let s = dev.new_signal().unwrap();
    let (t, last) = dev.timeline();
    s.set(5);
    drop(dev);
    assert_eq!(s.value(), 5);
    s.set(6);
    assert_eq!(s.value(), 6);
    assert!(t.reached(last));
}

/// Commands encoded once into memory with the backend's encoders run by reference on both
/// queues (AMD: INDIRECT_BUFFER / SDMA INDIRECT; NVIDIA: a GP entry), twice, with the value
/// they signal patched in place between the runs.
fn indirect_command_buffers<B: Backend>(dev: &core::Device<B>) {
    let s = dev.new_signal().unwrap();
    for queue in [Queue::Compute, Queue::Copy] {
        let addr = s.value_addr() as u64;
        let (patch, mut words) = match queue {
            Queue::Compute => {
                let mut e = dev.backend().compute_encoder();
                (e.signal(addr, 0, false), e.words().to_vec())
            }
            Queue::Copy => {
                let mut e = dev.backend().copy_encoder().unwrap();
                (e.signal(addr, 0, false), e.words().to_vec())
            }
        };
        let buf = dev.alloc_host(4 * words.len() as u64).unwrap();
        for v in [7u64, 9] {
            patch.apply(&mut words, v);
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            dev.write(&buf, 0, &bytes).unwrap();
            dev.submit_indirect(queue, buf.va(), words.len() as u32).unwrap();
            dev.wait(&s, v).unwrap_or_else(|e| panic!("{} {queue:?}: {e}", dev.label));
            dev.synchronize().unwrap();
        }
        dev.free(buf).unwrap();
    }
    dev.free_signal(s);
}

#[test]
fn indirect_command_buffers_on_both_vendors() {
    indirect_command_buffers(&amd().0);
    indirect_command_buffers(&nv().0);
}

#[test]
fn failed_launches_return_their_signals_on_both_vendors() {
    let (dev, code) = amd();
    failed_launches_return_their_signals(&dev, code);
    let (dev, code) = nv();
    failed_launches_return_their_signals(&dev, code);
}

#[test]
fn signals_outlive_their_device_on_both_vendors() {
    signals_outlive_their_device(amd().0);
    signals_outlive_their_device(nv().0);
}

#[test]
fn the_contract_on_an_amd_device() {
    let (dev, code) = amd();
    contract(&dev, code);
}

#[test]
fn the_contract_on_an_nvidia_device() {
    let (dev, code) = nv();
    contract(&dev, code);
}

/// The signal pool grows page by page up to its limit, past which a new signal is refused with
/// one line that says how many are live; freed signals are handed out again.
fn the_signal_pool_grows_to_its_limit<B: Backend>(dev: &core::Device<B>) {
    let mut held = Vec::new();
    let err = loop {
        match dev.new_signal() {
            Ok(s) => held.push(s),
            Err(e) => break e.to_string(),
        }
        assert!(held.len() <= 1 << 20, "{}: no limit", dev.label);
    };
    let live = dev.live_signals();
    assert_eq!(live, 64 * 256, "{}", dev.label);
    let want = format!(
        "{}: out of signal slots: 16384 signals are live, the most a device holds (64 pages of 256); free signals \
         or drop compiled graphs",
        dev.label
    );
    assert!(err.ends_with(&want) && !err.contains('\n'), "{err}");
    let mut addrs: Vec<usize> = held.iter().map(|s| s.value_addr()).collect();
    addrs.sort();
    addrs.dedup();
    assert_eq!(addrs.len(), held.len(), "{}: a slot handed out twice", dev.label);
    let last = held.pop().unwrap();
    last.set(3);
    dev.free_signal(last);
    let again = dev.new_signal().unwrap();
    assert_eq!(again.value(), 0, "{}: a signal handed out again is zeroed", dev.label);
    held.push(again);
    // The device still works with every slot taken.
    dev.synchronize().unwrap();
    for s in held {
        dev.free_signal(s);
    }
    assert_eq!(dev.live_signals(), 6, "{}: only the timelines' signals are left", dev.label);
}

#[test]
fn the_signal_pool_grows_to_its_limit_on_both_vendors() {
    the_signal_pool_grows_to_its_limit(&amd().0);
    the_signal_pool_grows_to_its_limit(&nv().0);
}

/// Signals of every page of a grown pool outlive their device: each page stays mapped until
/// its last signal goes.
#[test]
fn signals_of_every_page_outlive_their_device() {
    fn check<B: Backend>(dev: core::Device<B>) {
        let mut all: Vec<_> = (0..600).map(|_| dev.new_signal().unwrap()).collect();
        assert_eq!(dev.signal_pages(), 3, "{}", dev.label);
        // Keep one signal of each page and one of the first.
        let kept: Vec<_> = [0usize, 300, 599].iter().map(|&i| all[i].clone()).collect();
        all.clear();
        drop(dev);
        for (i, s) in kept.iter().enumerate() {
            s.set(40 + i as u64);
        }
        for (i, s) in kept.iter().enumerate() {
            assert_eq!(s.value(), 40 + i as u64);
        }
    }
    check(amd().0);
    check(nv().0);
}
