//! Graphs on the object-safe device: a [`GraphDesc`] is the runtime's graph builder over
//! [`Program`] handles and [`Buffer`]s, compiled by [`super::Gpu::compile_graph`] on one device
//! (and its peers of the same kind) into a [`GpuGraph`] that runs with one call.
//!
//! Device 0 of a graph is the device that compiles it, devices 1.. its peers in the order given.

use super::generic::{Hcq, VendorDevice};
use super::{Buffer, Gpu, Program};
use crate::{Error, Result};
use baregpu_runtime::core::{Backend, Device};
use baregpu_runtime::graph::{
    Bindings, ExecOptions, FixedBuffer, Graph, GraphBuilder, GraphExec, Home, KernelNode, Node, NodeId, NodeKind, Plan,
    Queue,
};
use std::ops::{Deref, DerefMut};

/// A graph being built over handles of the devices it will be compiled on. Slots and nodes are
/// added through the runtime's [`GraphBuilder`] (it derefs to one); fixed buffers through
/// [`GraphDesc::buffer`], which records which device made them.
pub struct GraphDesc<'p> {
    builder: GraphBuilder<&'p Program>,
    /// For each fixed buffer named: the graph device it was named for and the id of the device
    /// that made it (checked at compile).
    owners: Vec<(usize, u64)>,
}

impl Default for GraphDesc<'_> {
    fn default() -> Self {
        GraphDesc { builder: GraphBuilder::new(), owners: Vec::new() }
    }
}

impl<'p> GraphDesc<'p> {
    pub fn new() -> Self {
        Self::default()
    }

    /// `b`, made by graph device `dev`, as a buffer of the graph: in host memory (every device
    /// reaches it) or in `dev`'s memory.
    pub fn buffer(&mut self, dev: usize, b: &Buffer) -> FixedBuffer {
        self.owners.push((dev, b.owner));
        let home = if b.host { Home::Host } else { Home::Device(dev) };
        FixedBuffer { home, va: b.va, bytes: b.size }
    }
}

impl<'p> Deref for GraphDesc<'p> {
    type Target = GraphBuilder<&'p Program>;
    fn deref(&self) -> &Self::Target {
        &self.builder
    }
}

impl DerefMut for GraphDesc<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.builder
    }
}

/// A compiled graph: run it, wait for it, read its nodes' GPU times.
pub trait GpuGraph {
    /// Patch the per-run words from `bindings` and submit one run (after the previous run's
    /// epoch, if it still executes).
    fn run(&mut self, bindings: &Bindings) -> Result<()>;
    /// Wait until the last run completed; a fault or hang names the node.
    fn wait(&self) -> Result<()>;
    fn node_count(&self) -> usize;
    /// GPU microseconds of a node in the last completed run (compiled with `profile`).
    fn node_gpu_us(&self, node: NodeId) -> Option<f64>;
    fn plan(&self) -> &Plan;
    /// `the copy and compute queues of emu:gfx1100`: where it runs, for reports.
    fn queues(&self) -> String;
}

struct Compiled<'a, B: Backend> {
    exec: GraphExec<'a, B>,
    queues: String,
}

impl<B: Backend> GpuGraph for Compiled<'_, B> {
    fn run(&mut self, bindings: &Bindings) -> Result<()> {
        Ok(self.exec.run(bindings)?)
    }
    fn wait(&self) -> Result<()> {
        Ok(self.exec.wait()?)
    }
    fn node_count(&self) -> usize {
        self.exec.node_count()
    }
    fn node_gpu_us(&self, node: NodeId) -> Option<f64> {
        self.exec.node_gpu_us(node)
    }
    fn plan(&self) -> &Plan {
        self.exec.plan()
    }
    fn queues(&self) -> String {
        self.queues.clone()
    }
}

/// `the copy and compute queues of emu:gfx1100 and the compute queue of emu:gfx1100:1`.
fn describe_queues(plan: &Plan, labels: &[&str]) -> String {
    let mut parts = Vec::new();
    for (d, label) in labels.iter().enumerate() {
        let qs: Vec<&str> = [(Queue::Copy, "copy"), (Queue::Compute, "compute")]
            .iter()
            .filter(|(q, _)| plan.queues.iter().any(|p| p.at.device == d && p.at.queue == *q))
            .map(|(_, name)| *name)
            .collect();
        match qs.len() {
            0 => {}
            1 => parts.push(format!("the {} queue of {label}", qs[0])),
            _ => parts.push(format!("the {} queues of {label}", qs.join(" and "))),
        }
    }
    parts.join(" and ")
}

/// The runtime devices of a graph: `first`, then each peer, which must be the same kind of
/// device.
fn devices<'a, B: Backend>(first: &'a Hcq<B>, peers: &[&'a dyn Gpu]) -> Result<Vec<&'a Hcq<B>>>
where
    Device<B>: VendorDevice,
{
    let mut all = vec![first];
    for p in peers {
        let peer = p.as_any().downcast_ref::<Hcq<B>>().ok_or_else(|| {
            Error::Usage(format!(
                "{}: a graph spans devices of one vendor; {} is another kind of device",
                first.dev.label,
                p.label()
            ))
        })?;
        if all.iter().any(|d| d.id == peer.id) {
            return Err(Error::Usage(format!("{}: named twice in one graph", p.label())));
        }
        all.push(peer);
    }
    Ok(all)
}

/// Compile `g` on `first` and `peers`: every handle is checked against the device of the node
/// that uses it, then the runtime compiles the graph.
pub(super) fn compile<'a, B: Backend>(
    first: &'a Hcq<B>,
    g: GraphDesc<'a>,
    peers: &[&'a dyn Gpu],
    opts: ExecOptions,
) -> Result<Box<dyn GpuGraph + 'a>>
where
    Device<B>: VendorDevice,
    B::Program: 'static,
{
    let devs = devices(first, peers)?;
    for &(d, owner) in &g.owners {
        let dev = devs.get(d).ok_or_else(|| {
            Error::Usage(format!("a buffer named for graph device {d}, but the graph has {} device(s)", devs.len()))
        })?;
        if dev.id != owner {
            return Err(Error::Usage(format!("{}: a buffer of another device", dev.dev.label)));
        }
    }
    let graph = g.builder.build();
    let mut nodes = Vec::with_capacity(graph.nodes.len());
    for n in graph.nodes {
        let kind = match n.kind {
            NodeKind::Kernel(k) => {
                let dev = devs.get(n.at.device).ok_or_else(|| {
                    Error::Usage(format!("a node on graph device {}, but the graph has {}", n.at.device, devs.len()))
                })?;
                let program: &'a B::Program = dev.own(k.program.owner, &*k.program.inner, "program")?;
                NodeKind::Kernel(KernelNode { program, kernel: k.kernel, args: k.args, shape: k.shape })
            }
            NodeKind::Copy { dst, src } => NodeKind::Copy { dst, src },
            NodeKind::WaitExternal { signal, value } => NodeKind::WaitExternal { signal, value },
            NodeKind::SignalExternal { signal, value } => NodeKind::SignalExternal { signal, value },
        };
        nodes.push(Node { at: n.at, kind, access: n.access });
    }
    let graph = Graph { slots: graph.slots, externals: graph.externals, nodes };
    let cores: Vec<&'a Device<B>> = devs.iter().map(|d| &d.dev).collect();
    let exec = GraphExec::compile(&graph, &cores, opts)?;
    let labels: Vec<&str> = cores.iter().map(|d| d.label.as_str()).collect();
    let queues = describe_queues(exec.plan(), &labels);
    Ok(Box::new(Compiled { exec, queues }))
}
