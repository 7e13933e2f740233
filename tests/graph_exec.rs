//! Executable graphs (runtime::graph::exec) on emu:gfx1100, emu:gfx1201, emu:gfx942 (8 XCCs) and emu-nv:sm_90: graph
//! results equal eager results and the host model (random graphs), many runs with changing
//! inputs, interleaved graphs, runs started while the previous executes, the timeline wrap
//! inside a run, faults and hangs naming the node, and graphs refused at compile time.

use baregpu::device::{self, Device};
use baregpu_runtime::core::{self, Backend, DeviceBuffer, Encoder};
use baregpu_runtime::graph::model;
use baregpu_runtime::graph::random::{self, mix, mix_words, GenConfig};
use baregpu_runtime::graph::rng::Rng;
use baregpu_runtime::graph::{
    Arg, Bindings, BufRef, Dim, ExecOptions, FixedBuffer, Graph, GraphBuilder, GraphExec, Home, KernelNode, Node,
    NodeKind, QueueKey, Range, Shape, SlotId, SlotKind,
};
use baregpu_runtime::nv::NvCode;
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
use std::time::{Duration, Instant};

#[path = "graph_exec/cross.rs"]
mod cross;
#[path = "graph_exec/faults.rs"]
mod faults;
#[path = "graph_exec/measure.rs"]
mod measure;
#[path = "graph_exec/pool.rs"]
mod pool;

type Amd = baregpu_runtime::amd::Amd;
type Nv = baregpu_runtime::nv::Nv;

fn amd(arch: &str) -> (core::Device<Amd>, CodeObject) {
    let spec = format!("emu:{arch}").parse().unwrap();
    let Device::Amd(dev) = device::open(&spec).unwrap() else { panic!("{arch}: not AMD") };
    let p = format!("{}/tests/fixtures/hsaco/graph-{arch}.hsaco", env!("CARGO_MANIFEST_DIR"));
    (dev, CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap())
}

fn nv() -> (core::Device<Nv>, NvCode) {
    let Device::Nv(dev) = device::open(&"emu-nv:sm_90".parse().unwrap()).unwrap() else { panic!("not NVIDIA") };
    (dev, NvCode::parse(include_str!("kernels/nv_graph.ptx").as_bytes()).unwrap())
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn fixed<B: Backend>(b: &B::Buffer, dev: usize) -> FixedBuffer {
    FixedBuffer { home: Home::Device(dev), va: b.va(), bytes: b.size() }
}

fn read<B: Backend>(dev: &core::Device<B>, b: &B::Buffer) -> Vec<u32> {
    let mut out = vec![0u8; b.size() as usize];
    dev.read(b, 0, &mut out).unwrap();
    words(&out)
}

fn mix_args(dst: impl Into<BufRef>, doff: u64, src: impl Into<BufRef>, soff: u64, n: u32, k: Arg) -> Vec<Arg> {
    vec![Arg::buf_at(dst, doff), Arg::buf_at(src, soff), Arg::u32(n), k]
}

const N: usize = 256;

/// A small mixed workload (kernels on the compute queue, copies on the copy queue, a scalar
/// slot and a buffer slot): the graph's result equals the same work launched eagerly.
fn graph_equals_eager<B: Backend>(dev: &core::Device<B>, prog: &B::Program) {
    let mut rng = Rng::new(3);
    let init: Vec<Vec<u32>> = (0..3).map(|_| (0..N).map(|_| rng.next_u64() as u32).collect()).collect();
    let bufs: Vec<B::Buffer> = (0..3).map(|_| dev.alloc(4 * N as u64).unwrap()).collect();
    let input = dev.alloc_host(4 * N as u64).unwrap();
    let reset = || {
        for (b, w) in bufs.iter().zip(&init) {
            dev.write(b, 0, &bytes(w)).unwrap();
        }
        dev.write(&input, 0, &bytes(&init[0])).unwrap();
    };
    let (a, b, c) = (fixed::<B>(&bufs[0], 0), fixed::<B>(&bufs[1], 0), fixed::<B>(&bufs[2], 0));
    let shape = Shape::linear((N as u32).div_ceil(64), 64);
    let mut g = GraphBuilder::new();
    let x = g.buffer_slot("x", Home::Host, 4 * N as u64);
    let k = g.scalar_slot("k", 4);
    let (cq, xq) = (QueueKey::compute(0), QueueKey::copy(0));
    g.copy(xq, Range::new(a, 0, 4 * N as u64), Range::new(x, 0, 4 * N as u64));
    g.launch(cq, prog, "mix", mix_args(b, 0, a, 0, N as u32, Arg::ScalarSlot(k)), shape);
    g.launch(cq, prog, "mix", mix_args(c, 64, b, 0, N as u32 - 16, Arg::u32(5)), shape);
    g.copy(xq, Range::new(a, 0, 512), Range::new(c, 512, 512));
    g.launch(cq, prog, "mix", mix_args(b, 0, a, 0, 128, Arg::ScalarSlot(k)), shape);
    let graph = g.build();
    let mut exec = GraphExec::compile(&graph, &[dev], ExecOptions::default()).unwrap();
    for kv in [7u32, 0xdead_beef] {
        reset();
        let mut bind = Bindings::new();
        bind.buffer(x, input.va(), input.size()).scalar(k, &kv.to_le_bytes());
        exec.run(&bind).unwrap();
        exec.wait().unwrap();
        let got: Vec<Vec<u32>> = bufs.iter().map(|b| read(dev, b)).collect();
        // The same launches and copies, eagerly.
        reset();
        dev.copy(&bufs[0], 0, &input, 0, 4 * N as u64).unwrap();
        let launch = |d: &B::Buffer, doff: u64, s: &B::Buffer, n: u32, kk: u32| {
            let args =
                [ArgValue::Pointer(d.va() + doff), ArgValue::Pointer(s.va()), ArgValue::u32(n), ArgValue::u32(kk)];
            let l = Launch::new([(N as u32).div_ceil(64), 1, 1], [64, 1, 1]);
            let s = dev.launch(prog, "mix", &args, &l, false).unwrap();
            dev.release(s);
        };
        launch(&bufs[1], 0, &bufs[0], N as u32, kv);
        launch(&bufs[2], 64, &bufs[1], N as u32 - 16, 5);
        dev.copy(&bufs[0], 0, &bufs[2], 512, 512).unwrap();
        launch(&bufs[1], 0, &bufs[0], 128, kv);
        dev.synchronize().unwrap();
        let want: Vec<Vec<u32>> = bufs.iter().map(|b| read(dev, b)).collect();
        assert_eq!(got, want, "{}: graph and eager results differ (k = {kv})", dev.label);
        assert_ne!(want, init, "the workload changed nothing");
    }
    drop(exec);
    for b in bufs {
        dev.free(b).unwrap();
    }
    dev.free(input).unwrap();
}

#[test]
fn graph_results_equal_eager_results() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    graph_equals_eager(&dev, &prog);
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    graph_equals_eager(&dev, &prog);
}

/// Random graphs of `mix` kernels and copies on both queues of one device (graph::random),
/// each run twice (the second at other signal bases) against the host model.
/// `g` with every kernel's program handle replaced by `p` (the model keys kernels by `()`).
fn with_program<Q: Clone>(g: &Graph<()>, p: Q) -> Graph<Q> {
    let nodes = g
        .nodes
        .iter()
        .map(|n| Node {
            at: n.at,
            access: n.access.clone(),
            kind: match &n.kind {
                NodeKind::Kernel(k) => NodeKind::Kernel(KernelNode {
                    program: p.clone(),
                    kernel: k.kernel.clone(),
                    args: k.args.clone(),
                    shape: k.shape,
                }),
                NodeKind::Copy { dst, src } => NodeKind::Copy { dst: *dst, src: *src },
                NodeKind::WaitExternal { signal, value } => NodeKind::WaitExternal { signal: *signal, value: *value },
                NodeKind::SignalExternal { signal, value } => {
                    NodeKind::SignalExternal { signal: *signal, value: *value }
                }
            },
        })
        .collect();
    Graph { slots: g.slots.clone(), externals: g.externals.clone(), nodes }
}

fn random_graphs_match_the_model<'d, B: Backend>(
    dev: &'d core::Device<B>,
    prog: &'d B::Program,
    cases: usize,
    seed: u64,
) {
    let mut rng = Rng::new(seed);
    let extra = dev.alloc(4 * 40).unwrap();
    let cfg = GenConfig { devices: 1, max_nodes: 14, fixed: vec![fixed::<B>(&extra, 0)], backward_wait_pct: 0 };
    let (signalled, host) = (dev.new_signal().unwrap(), dev.new_signal().unwrap());
    for case in 0..cases {
        let c = random::generate(&mut rng, &(), &cfg);
        let g = &c.graph;
        let mut exec =
            GraphExec::compile_with(&with_program(g, prog), &[dev], &[&signalled, &host], ExecOptions::default())
                .unwrap_or_else(|e| panic!("{} case {case}: {e}", dev.label));
        let extra_ref = BufRef::Fixed(cfg.fixed[0]);
        let uses_extra = exec.plan().access.iter().any(|a| a.reads.iter().chain(&a.writes).any(|r| r.buf == extra_ref));
        let mut want = c.init.clone();
        model::run(g, &exec.plan().order, &mut want, &c.bind, &mix);
        // Slot buffers: device memory or host memory, as the slot says.
        let mut slot_bufs = Vec::new();
        let mut bind = Bindings::new();
        for (i, s) in g.slots.iter().enumerate() {
            match s.kind {
                SlotKind::Buffer { home, bytes } => {
                    let b = match home {
                        Home::Host => dev.alloc_host(bytes).unwrap(),
                        Home::Device(_) => dev.alloc(bytes).unwrap(),
                    };
                    bind.buffer(SlotId(i), b.va(), b.size());
                    slot_bufs.push((SlotId(i), b));
                }
                SlotKind::Scalar { .. } => {
                    bind.scalar(SlotId(i), &c.bind.scalars[&SlotId(i)]);
                }
                SlotKind::LaunchSize => {
                    bind.size(SlotId(i), c.bind.sizes[&SlotId(i)]);
                }
            }
        }
        for round in 0..1 + (case % 3 == 0) as usize {
            for (s, b) in &slot_bufs {
                dev.write(b, 0, c.init.get(&BufRef::Slot(*s))).unwrap();
            }
            if uses_extra {
                dev.write(&extra, 0, c.init.get(&extra_ref)).unwrap();
            }
            signalled.set(0);
            host.set(1);
            exec.run(&bind).unwrap();
            exec.wait().unwrap_or_else(|e| panic!("{} case {case} round {round}: {e}", dev.label));
            for (s, b) in &slot_bufs {
                let w = words(want.get(&BufRef::Slot(*s)));
                let got = read(dev, b)[..w.len()].to_vec();
                assert_eq!(got, w, "{} case {case} round {round}: slot {} differs\n{:?}", dev.label, s.0, exec.plan());
            }
            if uses_extra {
                let w = words(want.get(&extra_ref));
                assert_eq!(read(dev, &extra)[..w.len()], w, "{} case {case}: fixed buffer", dev.label);
            }
        }
        drop(exec);
        for (_, b) in slot_bufs {
            dev.free(b).unwrap();
        }
    }
    dev.free(extra).unwrap();
}

#[test]
fn random_graphs_match_the_host_model_on_gfx1100() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    random_graphs_match_the_model(&dev, &prog, 30, 11);
}

#[test]
fn random_graphs_match_the_host_model_on_gfx1201() {
    let (dev, code) = amd("gfx1201");
    let prog = dev.load(code).unwrap();
    random_graphs_match_the_model(&dev, &prog, 30, 12);
}

/// gfx942 is one KFD node of 8 XCCs: the graph's command buffers carry PRED_EXEC packets (their
/// counts fixed when the graph is compiled), the split dispatch and the XCC barrier.
#[test]
fn random_graphs_match_the_host_model_on_gfx942() {
    let (dev, code) = amd("gfx942");
    let prog = dev.load(code).unwrap();
    random_graphs_match_the_model(&dev, &prog, 12, 14);
}

#[test]
fn random_graphs_match_the_host_model_on_sm_90() {
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    random_graphs_match_the_model(&dev, &prog, 30, 13);
}

/// A one-`mix` graph over fixed buffers `dst` and `src` of `n` words, `k` from a scalar slot.
fn one_mix<'d, B: Backend>(
    prog: &'d B::Program,
    dst: &B::Buffer,
    src: &B::Buffer,
    n: u32,
    copies: usize,
) -> (Graph<&'d B::Program>, SlotId) {
    let mut g = GraphBuilder::new();
    let k = g.scalar_slot("k", 4);
    let (d, s) = (fixed::<B>(dst, 0), fixed::<B>(src, 0));
    for _ in 0..copies {
        g.launch(
            QueueKey::compute(0),
            prog,
            "mix",
            mix_args(d, 0, s, 0, n, Arg::ScalarSlot(k)),
            Shape::linear(n.div_ceil(64), 64),
        );
    }
    (g.build(), k)
}

fn random_words(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u64() as u32).collect()
}

/// `runs` runs of a one-node graph with a changing scalar: the result of all of them, in order.
fn many_runs<B: Backend>(dev: &core::Device<B>, prog: &B::Program, runs: u32, check_every: u32) -> Duration {
    let n = 64;
    let (dst, src) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    let (mut want, s) = (random_words(n, 1), random_words(n, 2));
    dev.write(&dst, 0, &bytes(&want)).unwrap();
    dev.write(&src, 0, &bytes(&s)).unwrap();
    let (g, k) = one_mix::<B>(prog, &dst, &src, n as u32, 1);
    let mut exec = GraphExec::compile(&g, &[dev], ExecOptions::default()).unwrap();
    let t = Instant::now();
    let mut bind = Bindings::new();
    for r in 0..runs {
        let kv = r.wrapping_mul(0x9e37_79b9);
        exec.run(bind.scalar(k, &kv.to_le_bytes())).unwrap();
        mix_words(&mut want, &s, kv);
        if (r + 1) % check_every == 0 {
            exec.wait().unwrap();
            assert_eq!(read(dev, &dst)[..n], want, "{}: after run {r}", dev.label);
        }
    }
    exec.wait().unwrap();
    let took = t.elapsed();
    assert_eq!(read(dev, &dst)[..n], want, "{}: after {runs} runs", dev.label);
    drop(exec);
    dev.free(dst).unwrap();
    dev.free(src).unwrap();
    took
}

#[test]
fn ten_thousand_runs_with_changing_inputs() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    let t = many_runs(&dev, &prog, 10_000, 2_500);
    eprintln!("gfx1100: 10000 runs in {t:?}");
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    let t = many_runs(&dev, &prog, 10_000, 2_500);
    eprintln!("sm_90: 10000 runs in {t:?}");
}

/// What bound command buffers were: one node, encoded once, resubmitted with patched values.
#[test]
fn a_one_node_graph_is_resubmitted_with_patched_values_on_both_vendors() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    many_runs(&dev, &prog, 200, 50);
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    many_runs(&dev, &prog, 200, 50);
}

fn interleaved<B: Backend>(dev: &core::Device<B>, prog: &B::Program) {
    let n = 128;
    let bufs: Vec<B::Buffer> = (0..4).map(|_| dev.alloc(4 * n as u64).unwrap()).collect();
    let init: Vec<Vec<u32>> = (0..4).map(|i| random_words(n, 10 + i)).collect();
    for (b, w) in bufs.iter().zip(&init) {
        dev.write(b, 0, &bytes(w)).unwrap();
    }
    let (g1, k1) = one_mix::<B>(prog, &bufs[0], &bufs[1], n as u32, 2);
    let (g2, k2) = one_mix::<B>(prog, &bufs[2], &bufs[3], n as u32, 3);
    let mut e1 = GraphExec::compile(&g1, &[dev], ExecOptions::default()).unwrap();
    let mut e2 = GraphExec::compile(&g2, &[dev], ExecOptions::default()).unwrap();
    let (mut w1, mut w2) = (init[0].clone(), init[2].clone());
    for r in 0..40u32 {
        e1.run(Bindings::new().scalar(k1, &r.to_le_bytes())).unwrap();
        e2.run(Bindings::new().scalar(k2, &(r * 7).to_le_bytes())).unwrap();
        // An eager launch in between orders on the same timeline.
        if r % 10 == 0 {
            dev.marker().unwrap();
        }
        (0..2).for_each(|_| mix_words(&mut w1, &init[1], r));
        (0..3).for_each(|_| mix_words(&mut w2, &init[3], r * 7));
    }
    e1.wait().unwrap();
    e2.wait().unwrap();
    dev.synchronize().unwrap();
    assert_eq!(read(dev, &bufs[0])[..n], w1, "{}: first graph", dev.label);
    assert_eq!(read(dev, &bufs[2])[..n], w2, "{}: second graph", dev.label);
    drop((e1, e2));
    bufs.into_iter().for_each(|b| dev.free(b).unwrap());
}

#[test]
fn two_graphs_on_one_device_run_interleaved() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    interleaved(&dev, &prog);
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    interleaved(&dev, &prog);
}

/// A run started while the previous one still executes waits for it before patching: both
/// runs' scalars show in the result, in order.
fn run_while_executing<B: Backend>(dev: &core::Device<B>, prog: &B::Program) {
    let n = 4096;
    let (dst, src) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    let (mut want, s) = (random_words(n, 5), random_words(n, 6));
    dev.write(&dst, 0, &bytes(&want)).unwrap();
    dev.write(&src, 0, &bytes(&s)).unwrap();
    let (g, k) = one_mix::<B>(prog, &dst, &src, n as u32, 12);
    let mut exec = GraphExec::compile(&g, &[dev], ExecOptions::default()).unwrap();
    let mut busy = 0;
    for kv in [3u32, 1000, 77] {
        exec.run(Bindings::new().scalar(k, &kv.to_le_bytes())).unwrap();
        // The epoch signal is not reached yet: the GPU is still on this run.
        busy += usize::from(exec.wait_would_block());
        (0..12).for_each(|_| mix_words(&mut want, &s, kv));
    }
    exec.wait().unwrap();
    assert!(busy > 0, "{}: no run was still executing when the next started", dev.label);
    assert_eq!(read(dev, &dst)[..n], want, "{}", dev.label);
    drop(exec);
    dev.free(dst).unwrap();
    dev.free(src).unwrap();
}

#[test]
fn a_run_started_while_the_previous_executes_waits_for_it() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    run_while_executing(&dev, &prog);
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    run_while_executing(&dev, &prog);
}

#[test]
fn the_timeline_wraps_inside_graph_runs() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    let n = 64;
    let (dst, src) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    let (mut want, s) = (random_words(n, 7), random_words(n, 8));
    dev.write(&dst, 0, &bytes(&want)).unwrap();
    dev.write(&src, 0, &bytes(&s)).unwrap();
    let (g, k) = one_mix::<Amd>(&prog, &dst, &src, n as u32, 2);
    let mut exec = GraphExec::compile(&g, &[&dev], ExecOptions::default()).unwrap();
    dev.jump_timeline(baregpu_runtime::timeline::WRAP_AT - 2).unwrap();
    let before = dev.timeline().0;
    for r in 0..6u32 {
        exec.run(Bindings::new().scalar(k, &r.to_le_bytes())).unwrap();
        (0..2).for_each(|_| mix_words(&mut want, &s, r));
        // Idle points: the core rewinds the timeline to its other slot once past 2^31.
        exec.wait().unwrap();
        dev.synchronize().unwrap();
    }
    let (after, last) = dev.timeline();
    assert_ne!(before, after, "the timeline did not move to its other slot");
    assert!(last < 16, "the timeline did not rewind: {last}");
    assert_eq!(read(&dev, &dst)[..n], want);
    drop(exec);
    dev.free(dst).unwrap();
    dev.free(src).unwrap();
}

#[test]
fn invalid_graphs_are_compile_errors() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    let a = dev.alloc(4096).unwrap();
    let fa = fixed::<Amd>(&a, 0);
    let cq = QueueKey::compute(0);
    let compile = |g: GraphBuilder<&_>| {
        GraphExec::compile(&g.build(), &[&dev], ExecOptions::default()).err().map(|e| e.to_string())
    };
    // Three arguments for a four-argument kernel.
    let mut g = GraphBuilder::new();
    g.launch(cq, &prog, "mix", mix_args(fa, 0, fa, 0, 4, Arg::u32(1)), Shape::linear(1, 64));
    g.launch(cq, &prog, "mix", vec![Arg::buf(fa), Arg::buf(fa), Arg::u32(4)], Shape::linear(1, 64));
    let e = compile(g).expect("an argument mismatch compiled");
    assert!(e.contains("graph node 1 (kernel `mix`)"), "{e}");
    // A buffer of another device.
    let mut g = GraphBuilder::new();
    let other = FixedBuffer { home: Home::Device(1), ..fa };
    g.launch(cq, &prog, "mix", mix_args(other, 0, fa, 0, 4, Arg::u32(1)), Shape::linear(1, 64));
    let e = compile(g).expect("a buffer of another device compiled");
    assert!(e.contains("node 0") && e.contains("device 1"), "{e}");
    // Too large for one command buffer: a copy split into more SDMA packets than an indirect
    // buffer may hold (never run).
    let mut g = GraphBuilder::new();
    let huge = FixedBuffer { home: Home::Device(0), va: 1 << 40, bytes: 1 << 50 };
    g.copy(QueueKey::copy(0), Range::new(huge, 0, 1 << 48), Range::new(huge, 1 << 49, 1 << 48));
    let e = compile(g).expect("a too large graph compiled");
    assert!(e.contains("more than the"), "{e}");
    // The device is fine.
    dev.marker().unwrap();
    dev.synchronize().unwrap();
}

/// The patch table's convention: each encoder puts a wait's or signal's 64-bit address in the
/// two words before the patched value (a timeline that moves is re-pointed there).
fn addresses_precede_values<B: Backend>(dev: &core::Device<B>) {
    let addr = 0x0123_4567_89a8u64;
    let check = |words: &[u32], at: usize, what: &str| {
        assert_eq!((words[at - 2], words[at - 1]), (addr as u32, (addr >> 32) as u32), "{}: {what}", dev.label);
    };
    let mut c = dev.backend().compute_encoder();
    let (w, s) = (c.wait(addr, 5), c.signal(addr, 6, true));
    check(c.words(), w.at, "compute wait");
    check(c.words(), s.at, "compute signal");
    let mut c = dev.backend().copy_encoder().unwrap();
    let (w, s) = (c.wait(addr, 5), c.signal(addr, 6, true));
    check(c.words(), w.at, "copy wait");
    check(c.words(), s.at, "copy signal");
}

#[test]
fn signal_addresses_precede_their_values() {
    addresses_precede_values(&amd("gfx1100").0);
    addresses_precede_values(&amd("gfx1201").0);
    addresses_precede_values(&nv().0);
}

#[test]
fn barriers_wait_for_earlier_dispatches() {
    use baregpu_drivers::amd::pm4::Pm4;
    use baregpu_drivers::nv::pushbuf::{host, PushBuffer};
    use baregpu_runtime::core::ComputeEncoder;
    let contains = |hay: &[u32], needle: &[u32]| hay.windows(needle.len()).any(|w| w == needle);
    let dev = amd("gfx1100").0;
    let mut c = dev.backend().compute_encoder();
    c.barrier();
    let mut want = Pm4::new(c.q.gen);
    want.event_write(c.q.gen.cs_partial_flush, 4);
    assert!(contains(c.words(), want.words()), "no CS partial flush in an AMD barrier");
    let dev = nv().0;
    let mut c = dev.backend().compute_encoder();
    c.barrier();
    let mut want = PushBuffer::default();
    want.inc(0, host::WFI, &[0]).unwrap();
    assert!(contains(c.words(), want.words()), "no wait-for-idle in an NVIDIA barrier");
}

/// A launch-size slot: the node is re-encoded when its value changes (more workgroups, more
/// words mixed).
fn launch_size_slot<B: Backend>(dev: &core::Device<B>, prog: &B::Program) {
    let n = 192u32;
    let (dst, src) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    let (mut want, s) = (random_words(n as usize, 21), random_words(n as usize, 22));
    dev.write(&dst, 0, &bytes(&want)).unwrap();
    dev.write(&src, 0, &bytes(&s)).unwrap();
    let mut g = GraphBuilder::new();
    let groups = g.size_slot("groups");
    let (d, sf) = (fixed::<B>(&dst, 0), fixed::<B>(&src, 0));
    let shape = Shape { grid: [Dim::Slot(groups), Dim::Fixed(1), Dim::Fixed(1)], block: [64, 1, 1] };
    g.launch(QueueKey::compute(0), prog, "mix", mix_args(d, 0, sf, 0, n, Arg::u32(9)), shape);
    let mut exec = GraphExec::compile(&g.build(), &[dev], ExecOptions::default()).unwrap();
    for gs in [1u32, 3, 2, 2] {
        exec.run(Bindings::new().size(groups, gs)).unwrap();
        exec.wait().unwrap();
        let items = (64 * gs).min(n) as usize;
        mix_words(&mut want[..items], &s[..items], 9);
        assert_eq!(read(dev, &dst)[..n as usize], want, "{}: {gs} groups", dev.label);
    }
    drop(exec);
    dev.free(dst).unwrap();
    dev.free(src).unwrap();
}

#[test]
fn launch_size_slots_re_encode_their_node() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    launch_size_slot(&dev, &prog);
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    launch_size_slot(&dev, &prog);
}

#[test]
fn profiled_graphs_time_each_node() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    let n = 64;
    let (dst, src) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    let (g, k) = one_mix::<Amd>(&prog, &dst, &src, n as u32, 3);
    let mut exec = GraphExec::compile(&g, &[&dev], ExecOptions { profile: true }).unwrap();
    exec.run(Bindings::new().scalar(k, &[1, 0, 0, 0])).unwrap();
    exec.wait().unwrap();
    for i in 0..3 {
        let us = exec.node_gpu_us(baregpu_runtime::graph::NodeId(i));
        assert!(us.is_some_and(|t| t >= 0.0), "node {i}: {us:?}");
    }
    assert_eq!(exec.node_gpu_us(baregpu_runtime::graph::NodeId(3)), None);
}

/// A copy out of another device's memory that is not mapped for the copying device (here: two
/// separately opened devices, which cannot map each other's memory) is a compile error, never run.
#[test]
fn a_copy_from_unmapped_peer_memory_is_refused() {
    let (d0, c0) = amd("gfx1100");
    let (d1, _) = amd("gfx1100");
    let p0 = d0.load(c0).unwrap();
    let (a, b) = (d0.alloc(256).unwrap(), d1.alloc(256).unwrap());
    let mut g = GraphBuilder::new();
    let fa = fixed::<Amd>(&a, 0);
    g.launch(QueueKey::compute(0), &p0, "mix", mix_args(fa, 0, fa, 0, 4, Arg::u32(1)), Shape::linear(1, 64));
    g.copy(QueueKey::copy(1), Range::new(fixed::<Amd>(&b, 1), 0, 64), Range::new(fa, 0, 64));
    let e = GraphExec::compile(&g.build(), &[&d0, &d1], ExecOptions::default()).err().expect("compiled").to_string();
    assert!(e.contains(&format!("memory at {:#x} is not mapped for", a.va())), "{e}");
    let e = d0.map_for_peer(&a, &d1).expect_err("mapped").to_string();
    assert!(e.contains("not opened on one KFD"), "{e}");
}

/// BAREGPU_TRACE: a graph's command buffers once at compile time (decoded), then the words each
/// run patched (none when nothing changed).
#[test]
fn the_trace_shows_command_buffers_once_and_patched_words_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace");
    // Other tests of this binary that open a device meanwhile trace into the file too; the
    // checks below look only for this graph's lines.
    std::env::set_var("BAREGPU_TRACE", &path);
    let (dev, code) = amd("gfx1201");
    std::env::remove_var("BAREGPU_TRACE");
    let prog = dev.load(code).unwrap();
    let n = 64;
    let (dst, src) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    let (g, k) = one_mix::<Amd>(&prog, &dst, &src, n as u32, 2);
    let mut exec = GraphExec::compile(&g, &[&dev], ExecOptions::default()).unwrap();
    for kv in [5u32, 5, 6] {
        exec.run(Bindings::new().scalar(k, &kv.to_le_bytes())).unwrap();
        exec.wait().unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let buffers = text.matches("emu:gfx1201 compute queue: graph command buffer at").count();
    assert_eq!(buffers, 1, "{text}");
    assert!(text.contains("DISPATCH_DIRECT") || text.contains("DispatchDirect"), "not decoded: {text}");
    for run in 1..=3 {
        assert!(text.contains(&format!("# graph run {run}: ")), "run {run} not traced: {text}");
    }
    // The scalar (two argument sites) changes in the third run only, with the timeline values.
    assert!(text.contains("Input { slot: SlotId(0), offset: 0 }"), "{text}");
}

/// AMD compares 32 bits: the exec's signals (epoch, copy hand-over, graph signals at a per-run
/// base) rebase to 0 at an idle point before a value would pass 2^31.
#[test]
fn graph_signals_rebase_before_the_32_bit_compare_wraps() {
    let (mut dev, code) = amd("gfx1100");
    dev.timeout = Duration::from_secs(2);
    let prog = dev.load(code).unwrap();
    let n = 64u64;
    let (a, b) = (dev.alloc(4 * n).unwrap(), dev.alloc(4 * n).unwrap());
    let (fa, fb) = (fixed::<Amd>(&a, 0), fixed::<Amd>(&b, 0));
    let (mut wa, init_b) = (random_words(n as usize, 31), random_words(n as usize, 32));
    dev.write(&a, 0, &bytes(&wa)).unwrap();
    dev.write(&b, 0, &bytes(&init_b)).unwrap();
    // mix into a on compute, copy a -> b on the copy queue, mix b into a: signals both ways.
    let mut g = GraphBuilder::new();
    let k = g.scalar_slot("k", 4);
    let shape = Shape::linear(1, 64);
    g.launch(QueueKey::compute(0), &prog, "mix", mix_args(fa, 0, fb, 0, n as u32, Arg::ScalarSlot(k)), shape);
    g.copy(QueueKey::copy(0), Range::new(fb, 0, 4 * n), Range::new(fa, 0, 4 * n));
    g.launch(QueueKey::compute(0), &prog, "mix", mix_args(fa, 0, fb, 0, n as u32, Arg::u32(2)), shape);
    let mut exec = GraphExec::compile(&g.build(), &[&dev], ExecOptions::default()).unwrap();
    assert_eq!(exec.plan().signals.len(), 2, "{:?}", exec.plan());
    let mut wb = init_b;
    let mut rebased = false;
    for r in 0..6u32 {
        if r == 1 {
            // Past 2^31, close to where a 32-bit compare would wrap.
            exec.jump_epoch(u32::MAX as u64 - 3).unwrap();
        }
        exec.run(Bindings::new().scalar(k, &r.to_le_bytes())).unwrap();
        exec.wait().unwrap_or_else(|e| panic!("run {r}: {e}"));
        rebased |= r > 1 && exec.epoch() < 10;
        mix_words(&mut wa, &wb, r);
        wb = wa.clone();
        mix_words(&mut wa, &wb, 2);
        assert_eq!(read(&dev, &a)[..n as usize], wa, "run {r}");
    }
    assert!(rebased, "the signals never rebased (epoch {})", exec.epoch());
}
