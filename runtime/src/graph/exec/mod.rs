//! Executable graphs: a [`Plan`] lowered, through the backend's encoders, into one command
//! buffer per (device, queue) in CPU-visible GPU memory, and runs that patch a few words and
//! submit each buffer with [`Device::submit_indirect`].
//!
//! Each buffer starts with a wait on its device's timeline (the value patched per run) and, on
//! the compute queue, a barrier; then the plan's steps, each node preceded by a progress word
//! (which node the queue reached, read after a fault); at the end the copy queue releases an
//! exec-owned end signal, which the compute queue waits for before it releases the device
//! timeline (advanced once per run per device) and the exec's epoch signal. A run first waits
//! (host) for the previous run's epoch, so it never rewrites words the GPU may still read.
//!
//! Patch classes ([`patch`]): fixed at compile time; per run (timeline values and address,
//! epoch, graph-signal values at a per-run base, input addresses and scalars in argument
//! memory); and nodes re-encoded when a launch-size slot or a copy's slot binding changes.
//!
//! Between devices: the producer's queue releases a signal of its device's signal page, mapped
//! for the consumer's GPU at compile time (`Device::share_signals_with`; refused with a compile
//! error where the backend cannot). A copy between devices' memories runs on the copying
//! device's engine, which reaches the peer's memory through a peer mapping the user made
//! (`Device::map_for_peer`), checked at compile (fixed buffers) and at each run (slots).

mod bindings;
mod fault;
mod lower;
mod patch;
mod run;

pub use bindings::Bindings;

use crate::core::{Backend, Device, DeviceBuffer, Queue as HwQueue};
use crate::graph::{Graph, Node, NodeId, Plan, QueueKey, Slot};
use crate::signal::Signal;
use crate::Result;
use patch::PatchTable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// How to compile a graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExecOptions {
    /// Bracket every node with GPU timestamps ([`GraphExec::node_gpu_us`]).
    pub profile: bool,
}

/// The progress word's value once a queue's buffer ran to its end.
const DONE: u64 = u32::MAX as u64;

/// One (device, queue)'s command buffer.
struct QueueBuf<B: Backend> {
    at: QueueKey,
    mem: B::Buffer,
    dwords: u32,
    /// Node index + 1 of the last node the queue started; [`DONE`] at its end.
    progress: Signal,
}

/// Per device of the graph: the exec's signals and argument memory.
struct DevRun<B: Backend> {
    /// Set to the run count by the last queue of the device.
    epoch: Signal,
    /// Released by the copy queue at its end, waited for by the compute queue.
    copy_end: Option<Signal>,
    args: Option<B::Buffer>,
    /// Whether any queue of the device has work.
    used: bool,
}

/// A graph-owned signal and the base of this run's values.
struct GraphSig {
    signal: Signal,
    owner: usize,
    base: u64,
    last: u64,
}

/// A node whose words are re-encoded when a launch-size or copy slot binding changes.
struct Reencode {
    node: usize,
    queue: usize,
    /// Its words in the queue's buffer.
    start: usize,
    len: usize,
    /// Its argument block (kernels): address and reserved bytes.
    args: Option<(u64, u64)>,
    /// The bindings it was last encoded with.
    key: Option<Vec<u64>>,
}

/// A compiled graph, ready to run on its devices.
pub struct GraphExec<'d, B: Backend> {
    devices: Vec<&'d Device<B>>,
    plan: Plan,
    slots: Vec<Slot>,
    nodes: Vec<Node<&'d B::Program>>,
    /// `graph node 3 (kernel `mix`) on emu:gfx1100 compute queue`, per node.
    names: Vec<String>,
    /// Fixed buffers of the graph (bound buffers must not overlap them): (va, bytes).
    fixed: Vec<(u64, u64)>,
    /// Slots that copies between devices reach: checked mapped for the copier when bound.
    peer_slots: Vec<lower::PeerSlot>,
    queues: Vec<QueueBuf<B>>,
    devs: Vec<DevRun<B>>,
    signals: Vec<GraphSig>,
    table: PatchTable,
    reencode: Vec<Reencode>,
    /// Timestamps of each node's start and end, 16-byte slots (with `profile`).
    stamps: Option<B::Buffer>,
    /// Runs submitted since the last rebase: the epoch value the last run signals.
    epoch: u64,
    /// Runs in all (for traces).
    runs: u64,
    /// Per device, the timeline value the last run releases.
    released: Vec<u64>,
    /// The last run failed: its signals never completed and the queues were rebuilt.
    faulted: AtomicBool,
    /// The epoch a wait saw complete (0: none since the last rebase): a run after it need not
    /// read the epoch signal again (over a link, a round trip).
    completed: AtomicU64,
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
        lower::compile(graph, devices, externals, opts)
    }

    /// Patch and submit one run (waits first for the previous run's epoch if it still executes).
    pub fn run(&mut self, bindings: &Bindings) -> Result<()> {
        run::run(self, bindings)
    }

    /// Wait until the last run completed; a fault or hang names the node.
    pub fn wait(&self) -> Result<()> {
        run::wait(self)
    }

    /// Whether [`GraphExec::wait`] would block now (the last run still executes).
    pub fn wait_would_block(&self) -> bool {
        self.epoch > 0 && self.devs.iter().any(|r| r.used && !r.epoch.reached(self.epoch))
    }

    /// The device timeline value the last run releases on device `device` (None before a run
    /// or for a device without work).
    pub fn released(&self, device: usize) -> Option<u64> {
        self.released.get(device).copied().filter(|&v| v > 0)
    }

    /// Continue from run count `epoch` once the last run completed, as if that many runs had
    /// happened (each graph signal at `epoch` + its last value): a test hook that reaches the
    /// 32-bit rebase without 2^31 runs.
    #[doc(hidden)]
    pub fn jump_epoch(&mut self, epoch: u64) -> Result<()> {
        if self.epoch > 0 {
            self.wait()?;
        }
        self.epoch = epoch;
        // The signals say so: the run of that epoch is complete.
        self.completed.store(epoch, Ordering::Relaxed);
        for r in &self.devs {
            r.epoch.set(epoch);
            if let Some(s) = &r.copy_end {
                s.set(epoch);
            }
        }
        for s in &mut self.signals {
            // This run's base: the next run's values start above `base + last`.
            s.base = epoch;
            s.signal.set(epoch + s.last);
        }
        Ok(())
    }

    /// Runs since the last rebase of the exec's signals (the value the last run released).
    #[doc(hidden)]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// GPU microseconds of a node in the last completed run (with `profile`).
    pub fn node_gpu_us(&self, node: NodeId) -> Option<f64> {
        let stamps = self.stamps.as_ref()?;
        if node.0 >= self.nodes.len() {
            return None;
        }
        let read = |i: usize| {
            let at = stamps.va() + (2 * node.0 + i) as u64 * 16 + 8;
            // SAFETY: inside the stamps buffer (2 slots per node) of device 0, reached through
            // its port, 8-byte aligned; the GPU writes it with the run, which the caller waited for.
            unsafe { self.devices[0].port().load_u64(at) }
        };
        let (a, b) = (read(0), read(1));
        (b >= a && a != 0).then(|| (b - a) as f64 * 1e6 / B::TIMESTAMP_HZ as f64)
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Patch sites per class: (fixed, per run), and nodes re-encoded on a binding change.
    pub fn patch_counts(&self) -> (usize, usize, usize) {
        let fixed = self.table.count(|c| matches!(c, patch::Class::Fixed));
        (fixed, self.table.sites.len() - fixed, self.reencode.len())
    }

    /// Dwords of each (device, queue)'s command buffer.
    pub fn command_dwords(&self) -> Vec<(QueueKey, u32)> {
        self.queues.iter().map(|q| (q.at, q.dwords)).collect()
    }

    fn hw(at: QueueKey) -> HwQueue {
        match at.queue {
            crate::graph::Queue::Compute => HwQueue::Compute,
            crate::graph::Queue::Copy => HwQueue::Copy,
        }
    }
}

impl<B: Backend> Drop for GraphExec<'_, B> {
    /// Wait for the last run (its buffers and signals are freed next), then give everything back.
    fn drop(&mut self) {
        if self.epoch > 0 && !self.faulted.load(Ordering::Relaxed) {
            if let Err(e) = run::wait(self) {
                log::warn!("dropping a graph whose last run failed: {e}");
            }
        }
        let free = |d: usize, b| {
            if let Err(e) = self.devices[d].free(b) {
                log::warn!("{}: freeing graph memory: {e}", self.devices[d].label);
            }
        };
        for q in std::mem::take(&mut self.queues) {
            self.devices[q.at.device].free_signal(q.progress);
            free(q.at.device, q.mem);
        }
        for (d, r) in std::mem::take(&mut self.devs).into_iter().enumerate() {
            self.devices[d].free_signal(r.epoch);
            if let Some(s) = r.copy_end {
                self.devices[d].free_signal(s);
            }
            if let Some(m) = r.args {
                free(d, m);
            }
        }
        for s in std::mem::take(&mut self.signals) {
            self.devices[s.owner].free_signal(s.signal);
        }
        if let Some(m) = self.stamps.take() {
            free(0, m);
        }
    }
}
