//! Graphs across two devices of one machine (`device::open_group`): a dependency between
//! devices is a signal of the producer's signal page, mapped for the consumer's GPU; data goes
//! through host memory both devices map.

use super::*;
use baregpu_runtime::graph::{copy_kind, CopyKind, NodeId};

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

/// Random graphs over two devices of one machine match the host model. Host buffers are device
/// 0's, mapped for device 1, and so is device 0's signal page (the external signals); device
/// buffers are mapped for the other device where the backend can (`peer_memory`: AMD), so
/// copies between the devices' memories run; elsewhere a run with such a copy is refused and
/// the case skipped, as are those whose external signal two queues release
/// ([`signalling_queues`]).
fn random_two_device_graphs<B: Backend>(
    devs: &[core::Device<B>],
    progs: [&B::Program; 2],
    (cases, seed): (usize, u64),
    peer_memory: bool,
) {
    let mut rng = Rng::new(seed);
    let cfg = GenConfig { devices: 2, max_nodes: 14, fixed: vec![], backward_wait_pct: 0 };
    let (d0, d1) = (&devs[0], &devs[1]);
    d0.share_signals_with(d1).unwrap();
    let (signalled, host) = (d0.new_signal().unwrap(), d0.new_signal().unwrap());
    let (mut ran, mut crossed, mut peer_copies) = (0, 0, 0);
    for case in 0..cases {
        let c = random::generate(&mut rng, &(), &cfg);
        if signalling_queues(&c.graph) > 1 {
            continue;
        }
        let g = two_programs(&c.graph, progs);
        let mut exec = GraphExec::compile_with(&g, &[d0, d1], &[&signalled, &host], ExecOptions::default())
            .unwrap_or_else(|e| panic!("{} case {case}: {e}", d0.label));
        let peer = (0..c.graph.nodes.len())
            .any(|i| matches!(copy_kind(&c.graph, NodeId(i)), Some(CopyKind::ToPeer(_) | CopyKind::FromPeer(_))));
        let plan = exec.plan();
        let cross = plan.signals.iter().any(|s| s.waiters.iter().any(|w| w.device != s.owner.device));
        let mut want = c.init.clone();
        model::run(&c.graph, &exec.plan().order, &mut want, &c.bind, &mix);
        let mut slot_bufs = Vec::new();
        let mut bind = Bindings::new();
        for (i, s) in c.graph.slots.iter().enumerate() {
            match s.kind {
                SlotKind::Buffer { home, bytes } => {
                    let (dev, b) = match home {
                        Home::Host => {
                            let b = d0.alloc_host(bytes).unwrap();
                            d0.map_for_peer(&b, d1).unwrap();
                            (d0, b)
                        }
                        Home::Device(d) => {
                            let b = devs[d].alloc(bytes).unwrap();
                            assert_eq!(devs[d].map_for_peer(&b, &devs[1 - d]).is_ok(), peer_memory);
                            (&devs[d], b)
                        }
                    };
                    dev.write(&b, 0, c.init.get(&BufRef::Slot(SlotId(i)))).unwrap();
                    bind.buffer(SlotId(i), b.va(), b.size());
                    slot_bufs.push((SlotId(i), dev, b));
                }
                SlotKind::Scalar { .. } => {
                    bind.scalar(SlotId(i), &c.bind.scalars[&SlotId(i)]);
                }
                SlotKind::LaunchSize => {
                    bind.size(SlotId(i), c.bind.sizes[&SlotId(i)]);
                }
            }
        }
        signalled.set(0);
        host.set(1);
        match exec.run(&bind) {
            Err(e) if !peer_memory && peer && e.to_string().contains("is not mapped for") => {
                drop(exec);
                slot_bufs.into_iter().for_each(|(_, dev, b)| dev.free(b).unwrap());
                continue;
            }
            r => r.unwrap_or_else(|e| panic!("{} case {case}: {e}", d0.label)),
        }
        peer_copies += usize::from(peer);
        crossed += usize::from(cross);
        exec.wait().unwrap_or_else(|e| panic!("{} case {case}: {e}\n{:?}", d0.label, exec.plan()));
        for (s, dev, b) in &slot_bufs {
            let w = words(want.get(&BufRef::Slot(*s)));
            assert_eq!(read(*dev, b)[..w.len()], w, "{} case {case}: slot {}\n{:?}", d0.label, s.0, exec.plan());
        }
        drop(exec);
        for (_, dev, b) in slot_bufs {
            dev.free(b).unwrap();
        }
        ran += 1;
    }
    eprintln!(
        "{}: {ran} of {cases} two-device cases ran, {crossed} with a dependency between the devices, \
         {peer_copies} with copies between their memories",
        d0.label
    );
    assert!(ran >= cases / 6 && crossed >= 3, "{}: {ran} of {cases} cases ran, {crossed} crossed", d0.label);
    assert!(!peer_memory || peer_copies >= 3, "{}: {peer_copies} cases copied between the devices", d0.label);
}

/// How many queues release the external signal. The generator orders its values only by
/// program order, so two unordered queues may store them out of order (a later 1 over a 2) and a
/// wait for the larger one hangs: such cases are skipped (the generator's limit, not the exec's).
fn signalling_queues(g: &Graph<()>) -> usize {
    let mut qs: Vec<QueueKey> = Vec::new();
    for n in &g.nodes {
        if matches!(n.kind, NodeKind::SignalExternal { .. }) && !qs.contains(&n.at) {
            qs.push(n.at);
        }
    }
    qs.len()
}

/// A generated graph with each device's nodes on that device's program.
fn two_programs<'p, P>(g: &Graph<()>, progs: [&'p P; 2]) -> Graph<&'p P> {
    let mut out = with_program(g, progs[0]);
    for n in &mut out.nodes {
        if let NodeKind::Kernel(k) = &mut n.kind {
            k.program = progs[n.at.device];
        }
    }
    out
}

#[test]
fn random_two_device_graphs_match_the_host_model_on_nvidia() {
    let (devs, code) = nv_pair();
    let (p0, p1) = (devs[0].load(code.clone()).unwrap(), devs[1].load(code).unwrap());
    random_two_device_graphs(&devs, [&p0, &p1], (60, 21), false);
}

#[test]
fn random_two_device_graphs_match_the_host_model_on_amd() {
    let (devs, code) = amd_pair();
    let (p0, p1) = (devs[0].load(code.clone()).unwrap(), devs[1].load(code).unwrap());
    random_two_device_graphs(&devs, [&p0, &p1], (60, 22), true);
}

/// mix(a <- src) on device 0; device 0's copy engine pushes `a` into device 1's `b`; device
/// 1's copy engine pulls `b` back into device 0's `back`; mix(c <- b) on device 1.
fn peer_copies<P>(p0: P, p1: P, [fs, fa, fb, fc, fback]: [FixedBuffer; 5]) -> Graph<P> {
    let (n, bytes) = (N as u32, 4 * N as u64);
    let mut g = GraphBuilder::new();
    let shape = Shape::linear(n.div_ceil(64), 64);
    g.launch(QueueKey::compute(0), p0, "mix", mix_args(fa, 0, fs, 0, n, Arg::u32(3)), shape);
    g.copy(QueueKey::copy(0), Range::new(fb, 0, bytes), Range::new(fa, 0, bytes));
    g.copy(QueueKey::copy(1), Range::new(fback, 0, bytes), Range::new(fb, 0, bytes));
    g.launch(QueueKey::compute(1), p1, "mix", mix_args(fc, 0, fb, 0, n, Arg::u32(5)), shape);
    g.build()
}

/// Copies between the two devices' memories, each way, on AMD (KFD maps device memory for a
/// peer GPU): the results equal the host model's, each run; unmapped, the compile names the
/// copy and the memory.
#[test]
fn copies_between_two_devices_memories_run_on_amd() {
    let (devs, code) = amd_pair();
    let (d0, d1) = (&devs[0], &devs[1]);
    let (p0, p1) = (d0.load(code.clone()).unwrap(), d1.load(code).unwrap());
    let n = 4 * N as u64;
    let (src, a, back) = (d0.alloc(n).unwrap(), d0.alloc(n).unwrap(), d0.alloc(n).unwrap());
    let (b, c) = (d1.alloc(n).unwrap(), d1.alloc(n).unwrap());
    let f =
        [fixed::<Amd>(&src, 0), fixed::<Amd>(&a, 0), fixed::<Amd>(&b, 1), fixed::<Amd>(&c, 1), fixed::<Amd>(&back, 0)];
    let g = peer_copies(&p0, &p1, f);
    let e = GraphExec::compile(&g, &[d0, d1], ExecOptions::default()).err().expect("compiled").to_string();
    assert!(e.contains(&format!("memory at {:#x} is not mapped for", b.va())), "{e}");
    d1.map_for_peer(&b, d0).unwrap();
    let e = GraphExec::compile(&g, &[d0, d1], ExecOptions::default()).err().expect("compiled").to_string();
    assert!(e.contains(&format!("memory at {:#x} is not mapped for", back.va())), "{e}");
    d0.map_for_peer(&back, d1).unwrap();
    let mut exec = GraphExec::compile(&g, &[d0, d1], ExecOptions::default()).unwrap();
    let unit = peer_copies((), (), f);
    let mut want = model::Memory::for_graph(&unit);
    for round in 0..3u64 {
        let init = random_words(N, 70 + round);
        *want.get_mut(&BufRef::Fixed(f[0])) = bytes(&init);
        model::run(&unit, &exec.plan().order, &mut want, &model::Bindings::default(), &mix);
        d0.write(&src, 0, &bytes(&init)).unwrap();
        exec.run(&Bindings::new()).unwrap();
        exec.wait().unwrap();
        assert_eq!(read(d1, &c), words(want.get(&BufRef::Fixed(f[3]))), "round {round}: device 1's result");
        assert_eq!(read(d0, &back), words(want.get(&BufRef::Fixed(f[4]))), "round {round}: copied back");
        assert_eq!(read(d0, &back), read(d0, &a), "round {round}: the copies moved the bytes unchanged");
    }
    drop(exec);
    [src, a, back].into_iter().for_each(|m| d0.free(m).unwrap());
    [b, c].into_iter().for_each(|m| d1.free(m).unwrap());
}

/// NVIDIA maps only host memory for a peer here: mapping device memory says so, and a graph
/// copying between the devices' memories does not compile.
#[test]
fn device_memory_is_not_mapped_for_a_peer_on_nvidia() {
    let (devs, code) = nv_pair();
    let (d0, d1) = (&devs[0], &devs[1]);
    let (p0, p1) = (d0.load(code.clone()).unwrap(), d1.load(code).unwrap());
    let n = 4 * N as u64;
    let bufs: Vec<_> = (0..5).map(|i| if i == 2 || i == 3 { d1.alloc(n) } else { d0.alloc(n) }.unwrap()).collect();
    let e = d1.map_for_peer(&bufs[2], d0).expect_err("mapped").to_string();
    assert!(e.contains("only host memory is mapped for a peer GPU"), "{e}");
    let dev_of = |i: usize| usize::from(i == 2 || i == 3);
    let f: Vec<FixedBuffer> = bufs.iter().enumerate().map(|(i, b)| fixed::<Nv>(b, dev_of(i))).collect();
    let g = peer_copies(&p0, &p1, [f[0], f[1], f[2], f[3], f[4]]);
    let e = GraphExec::compile(&g, &[d0, d1], ExecOptions::default()).err().expect("compiled").to_string();
    assert!(e.contains("is not mapped for") && e.contains("copy"), "{e}");
    for (i, b) in bufs.into_iter().enumerate() {
        if dev_of(i) == 1 { d1.free(b) } else { d0.free(b) }.unwrap();
    }
}

/// A profiled graph over two devices times the nodes of both: each device's queues write their
/// timestamps into one host buffer, mapped for the second device.
#[test]
fn a_profiled_two_device_graph_times_the_nodes_of_both_devices() {
    let (devs, code) = amd_pair();
    let (d0, d1) = (&devs[0], &devs[1]);
    let (p0, p1) = (d0.load(code.clone()).unwrap(), d1.load(code).unwrap());
    let n = 4 * N as u64;
    let (src, a, b) = (d0.alloc(n).unwrap(), d0.alloc(n).unwrap(), d1.alloc(n).unwrap());
    let h = d0.alloc_host(n).unwrap();
    d0.map_for_peer(&h, d1).unwrap();
    let fh = FixedBuffer { home: Home::Host, va: h.va(), bytes: h.size() };
    let g = three_nodes(&p0, &p1, [fixed::<Amd>(&src, 0), fixed::<Amd>(&a, 0), fixed::<Amd>(&b, 1), fh]);
    let mut exec = GraphExec::compile(&g, &[d0, d1], ExecOptions { profile: true }).unwrap();
    exec.run(&Bindings::new()).unwrap();
    exec.wait().unwrap();
    for i in 0..3 {
        let us = exec.node_gpu_us(NodeId(i));
        assert!(us.is_some_and(|t| t > 0.0), "node {i}: {us:?}");
    }
    drop(exec);
    [src, a, h].into_iter().for_each(|m| d0.free(m).unwrap());
    d1.free(b).unwrap();
}

/// Signals shared between two devices across a page boundary: device 0 shares its signals with
/// device 1 while its pool has one page, then hands out signals until its pool grows; device 1's
/// GPU waits for a signal of the new page that device 0's GPU releases. (On AMD an unmapped
/// page faults device 1's queue.)
fn wait_across_a_page_boundary<B: Backend>(d0: &core::Device<B>, d1: &core::Device<B>) {
    d0.share_signals_with(d1).unwrap();
    let pages = d0.signal_pages();
    let mut held = Vec::new();
    while d0.signal_pages() == pages {
        held.push(d0.new_signal().unwrap());
    }
    let s = held.pop().expect("the signal that grew the pool");
    assert!(held.iter().all(|h| h.value_addr().abs_diff(s.value_addr()) >= 16), "a slot handed out twice");
    let (gate, done) = (d0.new_signal().unwrap(), d1.new_signal().unwrap());
    let mut q1 = d1.compute_queue().unwrap();
    q1.wait(&s, 7).signal(&done, 1);
    q1.submit().unwrap();
    let mut q0 = d0.compute_queue().unwrap();
    q0.wait(&gate, 1).signal(&s, 7);
    q0.submit().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(done.value(), 0, "{}: ran before the gate opened", d1.label);
    gate.set(1);
    d1.wait(&done, 1).unwrap_or_else(|e| panic!("{} waiting for {}'s second page: {e}", d1.label, d0.label));
    assert_eq!(s.value(), 7);
    d0.synchronize().unwrap();
    d1.synchronize().unwrap();
    for x in held.into_iter().chain([s, gate]) {
        d0.free_signal(x);
    }
    d1.free_signal(done);
}

#[test]
fn a_wait_on_a_peer_signal_in_a_page_added_after_the_share_on_amd() {
    let (devs, _) = amd_pair();
    wait_across_a_page_boundary(&devs[0], &devs[1]);
}

#[test]
fn a_wait_on_a_peer_signal_in_a_page_added_after_the_share_on_nvidia() {
    let (devs, _) = nv_pair();
    wait_across_a_page_boundary(&devs[0], &devs[1]);
}
