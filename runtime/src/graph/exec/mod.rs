//! Executable graphs: a [`Plan`] lowered, through the backend's encoders, into one command
//! buffer per (device, queue) in CPU-visible GPU memory, and runs that patch a few words and
//! submit each buffer with [`Device::submit_indirect`].
//!
//! Each buffer starts with a wait on its device's timeline (the value patched per run) and a
//! barrier; then the plan's steps; at the end the copy queue releases an exec-owned end signal,
//! which the compute queue waits for before it releases the device timeline (advanced once per
//! run per device) and the exec's epoch signal. A run first waits (host) for the previous run's
//! epoch, so it never rewrites words the GPU may still read.

mod bindings;

pub use bindings::Bindings;

use crate::core::{Backend, Device};
use crate::graph::{Graph, NodeId, Plan};
use crate::signal::Signal;
use crate::{Error, Result};

/// How to compile a graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecOptions {
    /// Bracket every node with GPU timestamps ([`GraphExec::node_gpu_us`]).
    pub profile: bool,
}

/// A compiled graph, ready to run on its devices.
pub struct GraphExec<'d, B: Backend> {
    devices: Vec<&'d Device<B>>,
    plan: Plan,
    nodes: usize,
}

impl<'d, B: Backend> GraphExec<'d, B> {
    /// Check against the devices (kernel metadata, rings), lower, and place the command buffers.
    pub fn compile(graph: &Graph<&'d B::Program>, devices: &[&'d Device<B>], opts: ExecOptions) -> Result<Self> {
        Self::compile_with(graph, devices, &[], opts)
    }

    /// [`GraphExec::compile`] for a graph with external signals: `externals[i]` is the signal of
    /// [`crate::graph::ExternalId`] `i`.
    pub fn compile_with(
        graph: &Graph<&'d B::Program>,
        devices: &[&'d Device<B>],
        externals: &[&Signal],
        opts: ExecOptions,
    ) -> Result<Self> {
        let _ = (externals, opts);
        let caps: Vec<_> = devices.iter().map(|_| crate::graph::DeviceCaps::FULL).collect();
        let plan = crate::graph::compile(graph, &caps)?;
        let _ = GraphExec { devices: devices.to_vec(), plan, nodes: graph.nodes.len() };
        Err(Error::Graph("graph execution is not implemented yet".into()))
    }

    /// Patch and submit one run (waits first for the previous run's epoch if it still executes).
    pub fn run(&mut self, bindings: &Bindings) -> Result<()> {
        let _ = (bindings, &self.devices);
        Err(Error::Graph("graph execution is not implemented yet".into()))
    }

    /// Wait until the last run completed; a fault or hang names the node.
    pub fn wait(&self) -> Result<()> {
        Err(Error::Graph("graph execution is not implemented yet".into()))
    }

    pub fn node_count(&self) -> usize {
        self.nodes
    }

    /// GPU microseconds of a node in the last completed run (with `profile`).
    pub fn node_gpu_us(&self, node: NodeId) -> Option<f64> {
        let _ = node;
        None
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }
}
