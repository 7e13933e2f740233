//! Graphs across two devices of one machine (`device::open_group`): a dependency between
//! devices is a signal of the producer's signal page, mapped for the consumer's GPU; data goes
//! through host memory both devices map.

use super::*;

/// Two emulated sm_90 GPUs of one machine and the graph kernels.
fn nv_pair() -> (Vec<core::Device<Nv>>, NvCode) {
    let devs = device::open_group(&"emu-nv:sm_90".parse().unwrap(), 2).unwrap();
    let devs = devs.into_iter().map(|d| if let Device::Nv(d) = d { d } else { panic!("not NVIDIA") }).collect();
    (devs, NvCode::parse(include_str!("../kernels/nv_graph.ptx").as_bytes()).unwrap())
}

/// mix(a <- src) on device 0, copy (h <- a) on device 0, mix(b <- h) on device 1.
fn three_nodes<P>(p0: P, p1: P, [fs, fa, fb, fh]: [FixedBuffer; 4]) -> Graph<P> {
    let n = N as u32;
    let mut g = GraphBuilder::new();
    let shape = Shape::linear(n.div_ceil(64), 64);
    g.launch(QueueKey::compute(0), p0, "mix", mix_args(fa, 0, fs, 0, n, Arg::u32(3)), shape);
    g.copy(QueueKey::copy(0), Range::new(fh, 0, 4 * N as u64), Range::new(fa, 0, 4 * N as u64));
    g.launch(QueueKey::compute(1), p1, "mix", mix_args(fb, 0, fh, 0, n, Arg::u32(5)), shape);
    g.build()
}

/// Device 0 mixes `src` into `a`, its copy queue copies `a` to host buffer `h` (mapped for
/// device 1 too), device 1 mixes `h` into `b`: `b` equals the host model's result, each run.
fn through_host<B: Backend>(d0: &core::Device<B>, d1: &core::Device<B>, p0: &B::Program, p1: &B::Program) {
    let (src, a, b) =
        (d0.alloc(4 * N as u64).unwrap(), d0.alloc(4 * N as u64).unwrap(), d1.alloc(4 * N as u64).unwrap());
    let h = d0.alloc_host(4 * N as u64).unwrap();
    d0.map_for_peer(&h, d1).unwrap();
    let (fs, fa, fb) = (fixed::<B>(&src, 0), fixed::<B>(&a, 0), fixed::<B>(&b, 1));
    let fh = FixedBuffer { home: Home::Host, va: h.va(), bytes: h.size() };
    let g = three_nodes(p0, p1, [fs, fa, fb, fh]);
    let unit = three_nodes((), (), [fs, fa, fb, fh]);
    let mut exec = GraphExec::compile(&g, &[d0, d1], ExecOptions::default()).unwrap();
    assert!(
        exec.plan().signals.iter().any(|s| s.owner.device == 0 && s.waiters.iter().any(|w| w.device == 1)),
        "no dependency between the devices: {:?}",
        exec.plan()
    );
    let mut want = model::Memory::for_graph(&unit);
    for round in 0..3u64 {
        let init = random_words(N, 40 + round);
        *want.get_mut(&BufRef::Fixed(fs)) = bytes(&init);
        model::run(&unit, &exec.plan().order, &mut want, &model::Bindings::default(), &mix);
        d0.write(&src, 0, &bytes(&init)).unwrap();
        exec.run(&Bindings::new()).unwrap();
        exec.wait().unwrap();
        assert_eq!(read(d1, &b), words(want.get(&BufRef::Fixed(fb))), "{} round {round}", d1.label);
        assert_eq!(read(d0, &h), words(want.get(&BufRef::Fixed(fh))), "{} round {round}: host buffer", d0.label);
    }
    drop(exec);
    for m in [src, a, h] {
        d0.free(m).unwrap();
    }
    d1.free(b).unwrap();
}

#[test]
fn a_kernel_on_device_1_reads_what_device_0_copied_to_host_memory_on_nvidia() {
    let (devs, code) = nv_pair();
    let (p0, p1) = (devs[0].load(code.clone()).unwrap(), devs[1].load(code).unwrap());
    through_host(&devs[0], &devs[1], &p0, &p1);
}

/// Devices of two separate machines share no memory: a dependency between them is a compile
/// error that says so, and nothing runs.
#[test]
fn a_dependency_between_devices_that_share_no_memory_is_refused() {
    let ((d0, code), (d1, _)) = (nv(), nv());
    let p0 = d0.load(code).unwrap();
    let (a, b) = (d0.alloc(256).unwrap(), d1.alloc(256).unwrap());
    let h = d0.alloc_host(256).unwrap();
    let (fa, fb) = (fixed::<Nv>(&a, 0), fixed::<Nv>(&b, 1));
    let fh = FixedBuffer { home: Home::Host, va: h.va(), bytes: h.size() };
    let mut g = GraphBuilder::new();
    g.launch(QueueKey::compute(0), &p0, "mix", mix_args(fh, 0, fa, 0, 4, Arg::u32(1)), Shape::linear(1, 64));
    g.copy(QueueKey::copy(1), Range::new(fb, 0, 16), Range::new(fh, 0, 16));
    let e = GraphExec::compile(&g.build(), &[&d0, &d1], ExecOptions::default()).err().expect("compiled").to_string();
    assert!(e.contains("needs memory both devices map") && e.contains("not opened on one RM"), "{e}");
}

/// Two emulated gfx1100 GPUs of one machine (one KFD process, one event page).
fn amd_pair() -> (Vec<core::Device<Amd>>, CodeObject) {
    let devs = device::open_group(&"emu:gfx1100".parse().unwrap(), 2).unwrap();
    let devs = devs.into_iter().map(|d| if let Device::Amd(d) = d { d } else { panic!("not AMD") }).collect();
    let p = format!("{}/tests/fixtures/hsaco/graph-gfx1100.hsaco", env!("CARGO_MANIFEST_DIR"));
    (devs, CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap())
}

/// On AMD the emulated GPUs translate through their own mappings: without the peer mapping of
/// the host buffer (and of the signal page) device 1 faults.
#[test]
fn a_kernel_on_device_1_reads_what_device_0_copied_to_host_memory_on_amd() {
    let (devs, code) = amd_pair();
    let (p0, p1) = (devs[0].load(code.clone()).unwrap(), devs[1].load(code).unwrap());
    through_host(&devs[0], &devs[1], &p0, &p1);
}
