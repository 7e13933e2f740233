//! Compile: plan the graph, lay out each device's argument memory, and encode one command
//! buffer per (device, queue) with the backend's encoders, recording every patch site.

use super::patch::{Class, PatchTable, Source, Word};
use super::{DevRun, GraphExec, GraphSig, QueueBuf, Reencode, DONE};
use crate::core::{Backend, ComputeEncoder, CopyEncoder, Device, DeviceBuffer, Encoder, Patch, PatchWidth};
use crate::graph::{
    copy_kind, Arg, BufRef, CopyKind, DeviceCaps, Dim, ExecOptions, Graph, KernelNode, NodeId, NodeKind, Plan, Range,
    Site, SlotKind, Step,
};
use crate::program::{ArgValue, Launch};
use crate::signal::Signal;
use crate::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicU64};

/// Largest command buffer: a PM4 INDIRECT_BUFFER's size field (and an NVIDIA GP entry's).
pub(super) const MAX_DWORDS: usize = (1 << 20) - 1;
/// Largest argument memory per device.
const MAX_ARGS_BYTES: u64 = 64 << 20;

pub(super) fn compile<'d, B: Backend>(
    graph: &Graph<&'d B::Program>,
    devices: &[&'d Device<B>],
    externals: &[&Signal],
    opts: ExecOptions,
) -> Result<GraphExec<'d, B>> {
    let caps: Vec<DeviceCaps> =
        devices.iter().map(|d| DeviceCaps { compute: true, copy: d.backend().copy_encoder().is_some() }).collect();
    let plan = crate::graph::compile(graph, &caps)?;
    let peer_slots = check_peer_copies(graph, devices)?;
    share_cross_device_signals(devices, &plan)?;
    if externals.len() < graph.externals.len() {
        return Err(Error::Graph(format!(
            "the graph uses {} external signals, {} given",
            graph.externals.len(),
            externals.len()
        )));
    }
    let names = (0..graph.nodes.len())
        .map(|i| {
            let n = &graph.nodes[i];
            format!("graph node {i} ({}) on {} {} queue", n.describe(), devices[n.at.device].label, n.at.queue)
        })
        .collect();
    let mut x = GraphExec {
        devices: devices.to_vec(),
        plan,
        slots: graph.slots.clone(),
        nodes: graph.nodes.clone(),
        names,
        fixed: fixed_buffers(graph),
        peer_slots,
        queues: Vec::new(),
        devs: Vec::new(),
        signals: Vec::new(),
        table: PatchTable::default(),
        reencode: Vec::new(),
        stamps: None,
        epoch: 0,
        runs: 0,
        released: vec![0; devices.len()],
        faulted: AtomicBool::new(false),
        completed: AtomicU64::new(0),
    };
    // Resources go into `x` as they are taken: on an error its drop gives them back.
    for (d, dev) in devices.iter().enumerate() {
        let used = x.plan.queues.iter().any(|q| q.at.device == d);
        let both = x.plan.queues.iter().filter(|q| q.at.device == d).count() == 2;
        let epoch = dev.new_signal()?;
        let mut r = DevRun { epoch, copy_end: None, args: None, used };
        if both {
            match dev.new_signal() {
                Ok(s) => r.copy_end = Some(s),
                Err(e) => {
                    x.devs.push(r);
                    return Err(e);
                }
            }
        }
        x.devs.push(r);
    }
    for s in x.plan.signals.clone().iter() {
        let signal = devices[s.owner.device].new_signal()?;
        x.signals.push(GraphSig { signal, owner: s.owner.device, base: 0, last: s.last });
    }
    if opts.profile {
        let dev = devices[0];
        let m = dev.alloc_host(32 * graph.nodes.len() as u64)?;
        // Zeroed: a node that did not run reads as no time.
        dev.write(&m, 0, &vec![0; m.size() as usize])?;
        x.stamps = Some(m);
        // The other devices' queues write their nodes' timestamps into it too.
        let used = |d: usize| x.plan.queues.iter().any(|q| q.at.device == d);
        for peer in (1..devices.len()).filter(|&d| used(d)).map(|d| devices[d]) {
            let m = x.stamps.as_ref().expect("just set");
            dev.map_for_peer(m, peer)
                .map_err(|e| Error::Graph(format!("profiling a graph over two devices needs memory both map: {e}")))?;
        }
    }
    let blocks = lay_out_arguments(&mut x)?;
    for qi in 0..x.plan.queues.len() {
        lower_queue(&mut x, qi, &blocks, externals)?;
    }
    Ok(x)
}

/// A dependency between devices: the producer releases a signal of its own signal page, which
/// the consumer's queue waits for; so the page is mapped for the consumer's GPU too. Where the
/// two GPUs cannot share it, a compile error names the dependency.
fn share_cross_device_signals<B: Backend>(devices: &[&Device<B>], plan: &Plan) -> Result<()> {
    for s in &plan.signals {
        for w in s.waiters.iter().filter(|w| w.device != s.owner.device) {
            let (owner, peer) = (devices[s.owner.device], devices[w.device]);
            owner.share_signals_with(peer).map_err(|e| {
                Error::Graph(format!("{} waits for {}, which needs memory both devices map: {e}", w, s.owner))
            })?;
        }
    }
    Ok(())
}

/// A copy between devices reads or writes the peer's memory through the copying device's GPU:
/// that memory must be mapped for it (`Device::map_for_peer`). Fixed buffers are checked here;
/// the slots such copies use are returned, to be checked when bound.
fn check_peer_copies<B: Backend>(graph: &Graph<&B::Program>, devices: &[&Device<B>]) -> Result<Vec<PeerSlot>> {
    let mut slots = Vec::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        let NodeKind::Copy { dst, src } = &n.kind else { continue };
        let (range, peer) = match copy_kind(graph, NodeId(i)) {
            Some(CopyKind::ToPeer(p)) => (dst, p),
            Some(CopyKind::FromPeer(p)) => (src, p),
            _ => continue,
        };
        let copier = n.at.device;
        match range.buf {
            BufRef::Fixed(f) => {
                let va = f.va + range.offset;
                if !devices[peer].mapped_for_peer(va, range.bytes, devices[copier]) {
                    return Err(Error::Graph(format!(
                        "{}: {}",
                        graph.describe(NodeId(i)),
                        unmapped_peer_memory(devices[peer], va, devices[copier])
                    )));
                }
            }
            BufRef::Slot(s) => {
                slots.push(PeerSlot { slot: s.0, offset: range.offset, bytes: range.bytes, peer, copier })
            }
        }
    }
    Ok(slots)
}

/// Why a copy between devices cannot reach `owner`'s memory at `va`.
pub(super) fn unmapped_peer_memory<B: Backend>(owner: &Device<B>, va: u64, copier: &Device<B>) -> String {
    format!(
        "{}'s memory at {va:#x} is not mapped for {}, whose copy engine moves it (map the buffer for it first)",
        owner.label, copier.label
    )
}

/// A slot a copy between devices reaches through the copying device's GPU.
pub(super) struct PeerSlot {
    pub slot: usize,
    pub offset: u64,
    pub bytes: u64,
    /// The device whose memory the slot is bound to, and the one that copies.
    pub peer: usize,
    pub copier: usize,
}

fn fixed_buffers<P>(graph: &Graph<P>) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut add = |b: &BufRef| {
        if let BufRef::Fixed(f) = b {
            if !out.contains(&(f.va, f.bytes)) {
                out.push((f.va, f.bytes));
            }
        }
    };
    for n in &graph.nodes {
        if let Some(a) = &n.access {
            a.reads.iter().chain(&a.writes).for_each(|r: &Range| add(&r.buf));
        }
        match &n.kind {
            NodeKind::Kernel(k) => k.args.iter().for_each(|a| {
                if let Arg::Buffer(b, _) = a {
                    add(b)
                }
            }),
            NodeKind::Copy { dst, src } => [dst, src].iter().for_each(|r| add(&r.buf)),
            _ => {}
        }
    }
    out
}

/// A kernel's argument values: fixed ones, and the bound (or, at compile time, placeholder)
/// values of its slots.
pub(super) fn arg_values<P>(
    k: &KernelNode<P>,
    slots: &[crate::graph::Slot],
    bound: &dyn Fn(usize) -> Option<Vec<u8>>,
) -> Vec<ArgValue> {
    k.args
        .iter()
        .map(|a| match a {
            Arg::Buffer(BufRef::Fixed(f), off) => ArgValue::Pointer(f.va + off),
            Arg::Buffer(BufRef::Slot(s), off) => {
                let va = bound(s.0).map_or(0, |b| u64::from_le_bytes(b[..8].try_into().expect("an address")));
                ArgValue::Pointer(va + off)
            }
            Arg::ScalarSlot(s) => match (bound(s.0), &slots[s.0].kind) {
                (Some(b), _) => ArgValue::Bytes(b),
                (None, SlotKind::Scalar { bytes }) => ArgValue::Bytes(vec![0; *bytes as usize]),
                (None, _) => ArgValue::Bytes(vec![0; 4]),
            },
            Arg::Scalar(b) => ArgValue::Bytes(b.clone()),
        })
        .collect()
}

/// A kernel's launch shape with bound (or placeholder 1) launch sizes.
pub(super) fn launch_of<P>(k: &KernelNode<P>, bound: &dyn Fn(usize) -> Option<u32>) -> Launch {
    let grid = k.shape.grid.map(|d| match d {
        Dim::Fixed(n) => n,
        Dim::Slot(s) => bound(s.0).unwrap_or(1),
    });
    Launch::new(grid, k.shape.block)
}

/// Per kernel node: its argument block's address and the block (offsets of its arguments).
type Blocks = Vec<Option<(u64, crate::core::ArgsBlock)>>;

/// Each device's argument memory: every kernel node's block, written once.
fn lay_out_arguments<B: Backend>(x: &mut GraphExec<'_, B>) -> Result<Blocks> {
    let mut blocks: Vec<Option<(u64, crate::core::ArgsBlock)>> = vec![None; x.nodes.len()];
    let mut total = vec![0u64; x.devices.len()];
    for (i, n) in x.nodes.iter().enumerate() {
        let NodeKind::Kernel(k) = &n.kind else { continue };
        let dev = x.devices[n.at.device];
        let args = arg_values(k, &x.slots, &|_| None);
        let block = dev
            .backend()
            .args_block(k.program, &k.kernel, &args, &launch_of(k, &|_| None))
            .map_err(|e| Error::Graph(format!("{}: {e}", x.names[i])))?;
        let at = total[n.at.device].next_multiple_of(block.align.max(1));
        total[n.at.device] = at + block.size;
        blocks[i] = Some((at, block));
    }
    for (d, &bytes) in total.iter().enumerate() {
        if bytes == 0 {
            continue;
        }
        if bytes > MAX_ARGS_BYTES {
            return Err(Error::Graph(format!(
                "the graph's kernels need {bytes} bytes of arguments on {}, more than the {MAX_ARGS_BYTES} a graph may have",
                x.devices[d].label
            )));
        }
        x.devs[d].args = Some(x.devices[d].alloc(bytes)?);
    }
    for (i, b) in blocks.iter_mut().enumerate() {
        let Some((at, block)) = b else { continue };
        let d = x.nodes[i].at.device;
        let base = x.devs[d].args.as_ref().expect("argument memory of a device with kernels").va();
        *at += base;
        x.devices[d].write(x.devs[d].args.as_ref().expect("argument memory"), *at - base, &block.bytes)?;
        input_sites(x, NodeId(i), *at, block)?;
    }
    Ok(blocks)
}

/// The argument sites of a kernel node: fed by a slot (per run) or fixed.
fn input_sites<B: Backend>(x: &mut GraphExec<'_, B>, n: NodeId, va: u64, block: &crate::core::ArgsBlock) -> Result<()> {
    let device = x.nodes[n.0].at.device;
    for (a, &(off, size)) in block.args.iter().enumerate() {
        let width = match size {
            4 => PatchWidth::Bits32,
            8 => PatchWidth::Bits64,
            _ => {
                x.table.fixed(Word { addr: va + off, width: PatchWidth::Bits32 }, device);
                continue;
            }
        };
        let word = Word { addr: va + off, width };
        let feed = x.plan.feeds.iter().find(|f| f.node == n && f.site == Site::Arg(a));
        match feed {
            Some(f) => x.table.per_run(word, Source::Input { slot: f.slot, offset: f.offset }, device),
            None => x.table.fixed(word, device),
        }
    }
    Ok(())
}

/// A queue's encoder.
pub(super) enum Enc<B: Backend> {
    Compute(B::Compute),
    Copy(B::Copy),
}

impl<B: Backend> Enc<B> {
    pub(super) fn new(b: &B, q: crate::graph::Queue) -> Result<Self> {
        Ok(match q {
            crate::graph::Queue::Compute => Enc::Compute(b.compute_encoder()),
            crate::graph::Queue::Copy => {
                Enc::Copy(b.copy_encoder().ok_or_else(|| Error::Graph("no copy queue".into()))?)
            }
        })
    }

    pub(super) fn e(&mut self) -> &mut dyn Encoder {
        match self {
            Enc::Compute(c) => c,
            Enc::Copy(c) => c,
        }
    }

    /// The compute queue's barrier (the copy queue runs its commands in order, uncached).
    fn barrier(&mut self) {
        if let Enc::Compute(c) = self {
            c.barrier();
        }
    }
}

/// Sites found while encoding, as word indices of the stream.
#[derive(Default)]
struct Sites {
    list: Vec<(Patch, bool, Class)>,
}

impl Sites {
    fn value(&mut self, p: Patch, c: Class) {
        self.list.push((p, false, c));
    }
    /// The value at `p` per run, and its signal's address per run too.
    fn value_and_address(&mut self, p: Patch, v: Source, a: Source) {
        self.list.push((p, false, Class::PerRun(v)));
        self.list.push((p, true, Class::PerRun(a)));
    }
}

/// Encode queue `qi` of the plan, place it, and record its sites.
fn lower_queue<B: Backend>(x: &mut GraphExec<'_, B>, qi: usize, blocks: &Blocks, externals: &[&Signal]) -> Result<()> {
    let qp = x.plan.queues[qi].clone();
    let d = qp.at.device;
    let dev = x.devices[d];
    let mut enc = Enc::<B>::new(dev.backend(), qp.at.queue)?;
    let mut sites = Sites::default();
    let mut reencode = Vec::new();
    let timeline = dev.timeline().0.value_addr() as u64;
    let p = enc.e().wait(timeline, 0);
    sites.value_and_address(p, Source::TimelineWait(d), Source::TimelineAddr(d));
    enc.barrier();
    let progress = dev.new_signal()?;
    let progress_addr = progress.value_addr() as u64;
    let mut drain = || dev.synchronize();
    let stamp = |n: usize, i: usize| x.stamps.as_ref().map(|m| m.va() + (2 * n + i) as u64 * 16);
    let mut res = Ok(());
    for step in &qp.steps {
        match *step {
            Step::Run(n) => {
                let p = enc.e().signal(progress_addr, n.0 as u64 + 1, false);
                sites.value(p, Class::Fixed);
                if let Some(a) = stamp(n.0, 0) {
                    enc.e().timestamp(a);
                }
                let start = enc.e().len();
                let r = lower_node(x, &mut enc, n, blocks, &mut drain);
                if let Err(e) = r {
                    res = Err(e);
                    break;
                }
                if needs_reencode(x, n) {
                    let args = blocks[n.0].as_ref().map(|(va, b)| (*va, b.size));
                    reencode.push(Reencode {
                        node: n.0,
                        queue: qi,
                        start,
                        len: enc.e().len() - start,
                        args,
                        key: None,
                    });
                }
                if let Some(a) = stamp(n.0, 1) {
                    enc.e().timestamp(a);
                }
            }
            Step::Barrier => enc.barrier(),
            Step::Wait(sp) => {
                let addr = x.signals[sp.signal].signal.value_addr() as u64;
                let p = enc.e().wait(addr, sp.value);
                sites.value(p, Class::PerRun(Source::Sync { signal: sp.signal, value: sp.value }));
                enc.barrier();
            }
            Step::Signal(sp) => {
                let addr = x.signals[sp.signal].signal.value_addr() as u64;
                let p = enc.e().signal(addr, sp.value, false);
                sites.value(p, Class::PerRun(Source::Sync { signal: sp.signal, value: sp.value }));
            }
            Step::WaitExternal { node, signal, value } => {
                let p = enc.e().signal(progress_addr, node.0 as u64 + 1, false);
                sites.value(p, Class::Fixed);
                let p = enc.e().wait(externals[signal.0].value_addr() as u64, value);
                sites.value(p, Class::Fixed);
                enc.barrier();
            }
            Step::SignalExternal { signal, value, .. } => {
                let p = enc.e().signal(externals[signal.0].value_addr() as u64, value, true);
                sites.value(p, Class::Fixed);
            }
        }
    }
    let p = enc.e().signal(progress_addr, DONE, false);
    sites.value(p, Class::Fixed);
    finish_queue(x, &mut enc, &mut sites, qp.at);
    let placed = res.and_then(|_| enc.e().finish()).and_then(|_| place(x, &mut enc, qp.at, &sites));
    match placed {
        Ok((mem, dwords)) => {
            x.queues.push(QueueBuf { at: qp.at, mem, dwords, progress });
            x.reencode.extend(reencode);
            Ok(())
        }
        Err(e) => {
            dev.free_signal(progress);
            Err(e)
        }
    }
}

/// The end of a queue's buffer: the copy queue hands over to the compute queue, which (or the
/// only queue of the device) releases the device timeline and the exec's epoch.
fn finish_queue<B: Backend>(x: &GraphExec<'_, B>, enc: &mut Enc<B>, sites: &mut Sites, at: crate::graph::QueueKey) {
    let r = &x.devs[at.device];
    let epoch = Class::PerRun(Source::Epoch);
    if let (Some(end), crate::graph::Queue::Copy) = (&r.copy_end, at.queue) {
        let p = enc.e().signal(end.value_addr() as u64, 0, false);
        sites.value(p, epoch);
        return;
    }
    if let Some(end) = &r.copy_end {
        let p = enc.e().wait(end.value_addr() as u64, 0);
        sites.value(p, epoch);
    }
    let timeline = x.devices[at.device].timeline().0.value_addr() as u64;
    let p = enc.e().signal(timeline, 0, false);
    sites.value_and_address(p, Source::TimelineSignal(at.device), Source::TimelineAddr(at.device));
    let p = enc.e().signal(r.epoch.value_addr() as u64, 0, true);
    sites.value(p, epoch);
}

/// Whether a node's words depend on bindings beyond its argument memory.
fn needs_reencode<B: Backend>(x: &GraphExec<'_, B>, n: NodeId) -> bool {
    x.plan.feeds.iter().any(|f| f.node == n && matches!(f.site, Site::GridDim(_) | Site::CopyDst | Site::CopySrc))
}

/// Encode a kernel or copy node (with placeholder values for slot-fed sites).
pub(super) fn lower_node<B: Backend>(
    x: &GraphExec<'_, B>,
    enc: &mut Enc<B>,
    n: NodeId,
    blocks: &Blocks,
    drain: &mut dyn FnMut() -> Result<()>,
) -> Result<()> {
    let node = &x.nodes[n.0];
    let dev = x.devices[node.at.device];
    match (&node.kind, enc) {
        (NodeKind::Kernel(k), Enc::Compute(c)) => {
            let (va, _) = blocks[n.0].as_ref().expect("a kernel node has an argument block");
            dev.backend()
                .encode_dispatch(c, k.program, &k.kernel, &launch_of(k, &|_| None), *va, drain)
                .map_err(|e| Error::Graph(format!("{}: {e}", x.names[n.0])))
        }
        (NodeKind::Copy { dst, src }, Enc::Copy(c)) => {
            let addr = |r: &Range| match r.buf {
                BufRef::Fixed(f) => f.va + r.offset,
                BufRef::Slot(_) => 0,
            };
            c.copy(addr(dst), addr(src), dst.bytes);
            Ok(())
        }
        _ => Err(Error::Graph(format!("{}: not a node its queue runs", x.names[n.0]))),
    }
}

/// Put a queue's words into CPU-visible memory and record its sites at their addresses.
fn place<B: Backend>(
    x: &mut GraphExec<'_, B>,
    enc: &mut Enc<B>,
    at: crate::graph::QueueKey,
    sites: &Sites,
) -> Result<(B::Buffer, u32)> {
    let dev = x.devices[at.device];
    let words = enc.e().words().to_vec();
    if words.len() > MAX_DWORDS {
        return Err(Error::Graph(format!(
            "the {at} needs {} dwords of commands, more than the {MAX_DWORDS} one command buffer may have",
            words.len()
        )));
    }
    let mem = dev.alloc_host((4 * words.len() as u64).next_multiple_of(256))?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Err(e) = dev.write(&mem, 0, &bytes) {
        let _ = dev.free(mem);
        return Err(e);
    }
    let base = mem.va();
    for &(p, address, class) in &sites.list {
        let word = if address { Word::address_of(base, p) } else { Word::at(base, p) };
        x.table.sites.push(super::patch::Site { word, class, last: None, device: at.device });
    }
    if let Some(t) = dev.trace() {
        let what = format!("graph command buffer at {base:#x}, {} dwords (patched per run)", words.len());
        dev.backend().trace(t, &dev.label, GraphExec::<B>::hw(at), &what, &words);
    }
    Ok((mem, words.len() as u32))
}
