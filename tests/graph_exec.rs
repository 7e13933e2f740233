//! Executable graphs (runtime::graph::exec) on emu:gfx1100, emu:gfx1201 and emu-nv:sm_90: graph
//! results equal eager results and the host model (random graphs), many runs with changing
//! inputs, interleaved graphs, runs started while the previous executes, the timeline wrap
//! inside a run, faults and hangs naming the node, and graphs refused at compile time.

use baregpu::device::{self, Device};
use baregpu_runtime::core::{self, Backend, DeviceBuffer, Encoder};
use baregpu_runtime::graph::model::{self, Memory};
use baregpu_runtime::graph::random::{self, mix, mix_words, GenConfig};
use baregpu_runtime::graph::rng::Rng;
use baregpu_runtime::graph::{
    Arg, Bindings, BufRef, Dim, ExecOptions, FixedBuffer, Graph, GraphBuilder, GraphExec, Home, QueueKey, Range, Shape,
    SlotId, SlotKind, Node, NodeKind, KernelNode,
};
use baregpu_runtime::nv::NvCode;
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
use std::time::{Duration, Instant};

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
    let _ = Memory::default();
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

#[test]
fn random_graphs_match_the_host_model_on_sm_90() {
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    random_graphs_match_the_model(&dev, &prog, 30, 13);
}
