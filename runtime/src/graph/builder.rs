//! Building a graph: declare slots and external signals, then add nodes in program order.

use super::node::{Access, Arg, KernelNode, Node, NodeId, NodeKind, QueueKey, Shape};
use super::slot::{ExternalId, Home, Range, Slot, SlotId, SlotKind};

/// A graph description: slots, external signals and nodes in program order. `P` is the
/// program handle kernels launch (a loaded program in the runtime, a key in tests).
#[derive(Debug, Clone)]
pub struct Graph<P> {
    pub slots: Vec<Slot>,
    pub externals: Vec<String>,
    pub nodes: Vec<Node<P>>,
}

impl<P> Graph<P> {
    /// `node 3 (kernel `mix` on device 0 compute queue)`.
    pub fn describe(&self, n: NodeId) -> String {
        let node = &self.nodes[n.0];
        format!("node {} ({} on {})", n.0, node.describe(), node.at)
    }

    pub fn slot(&self, s: SlotId) -> Option<&Slot> {
        self.slots.get(s.0)
    }
}

#[derive(Debug, Clone)]
pub struct GraphBuilder<P> {
    g: Graph<P>,
}

impl<P> Default for GraphBuilder<P> {
    fn default() -> Self {
        GraphBuilder { g: Graph { slots: Vec::new(), externals: Vec::new(), nodes: Vec::new() } }
    }
}

impl<P> GraphBuilder<P> {
    pub fn new() -> Self {
        Self::default()
    }

    fn slot(&mut self, name: &str, kind: SlotKind) -> SlotId {
        self.g.slots.push(Slot { name: name.to_string(), kind });
        SlotId(self.g.slots.len() - 1)
    }

    /// A buffer input of `bytes` bytes on `home`, bound at each run.
    pub fn buffer_slot(&mut self, name: &str, home: Home, bytes: u64) -> SlotId {
        self.slot(name, SlotKind::Buffer { home, bytes })
    }

    /// A by-value input of 4 or 8 bytes (checked at compile).
    pub fn scalar_slot(&mut self, name: &str, bytes: u8) -> SlotId {
        self.slot(name, SlotKind::Scalar { bytes })
    }

    /// A workgroup count given at each run ([`super::Dim::Slot`]).
    pub fn size_slot(&mut self, name: &str) -> SlotId {
        self.slot(name, SlotKind::LaunchSize)
    }

    pub fn external(&mut self, name: &str) -> ExternalId {
        self.g.externals.push(name.to_string());
        ExternalId(self.g.externals.len() - 1)
    }

    fn push(&mut self, at: QueueKey, kind: NodeKind<P>, access: Option<Access>) -> NodeId {
        self.g.nodes.push(Node { at, kind, access });
        NodeId(self.g.nodes.len() - 1)
    }

    /// A launch that reads and writes each buffer argument from its offset to the buffer's end.
    pub fn launch(&mut self, at: QueueKey, program: P, kernel: &str, args: Vec<Arg>, shape: Shape) -> NodeId {
        let k = KernelNode { program, kernel: kernel.to_string(), args, shape };
        self.push(at, NodeKind::Kernel(k), None)
    }

    /// A launch with the exact ranges it reads and writes (narrower ranges, fewer waits).
    #[allow(clippy::too_many_arguments)] // a launch is these seven things
    pub fn launch_ranges(
        &mut self,
        at: QueueKey,
        program: P,
        kernel: &str,
        args: Vec<Arg>,
        shape: Shape,
        reads: Vec<Range>,
        writes: Vec<Range>,
    ) -> NodeId {
        let k = KernelNode { program, kernel: kernel.to_string(), args, shape };
        self.push(at, NodeKind::Kernel(k), Some(Access { reads, writes }))
    }

    /// Copy `src` to `dst` (equal sizes) on `at`, a copy queue.
    pub fn copy(&mut self, at: QueueKey, dst: Range, src: Range) -> NodeId {
        let access = Access { reads: vec![src], writes: vec![dst] };
        self.push(at, NodeKind::Copy { dst, src }, Some(access))
    }

    /// Stall `at` until `signal` reaches `value`; `writes` are ranges the signal's producer
    /// filled (later readers on other queues then wait for this node).
    pub fn wait_external(&mut self, at: QueueKey, signal: ExternalId, value: u64, writes: Vec<Range>) -> NodeId {
        self.push(at, NodeKind::WaitExternal { signal, value }, Some(Access { reads: vec![], writes }))
    }

    /// Set `signal` to `value` after everything before it on `at` and after the last writes
    /// of `reads` (on any queue).
    pub fn signal_external(&mut self, at: QueueKey, signal: ExternalId, value: u64, reads: Vec<Range>) -> NodeId {
        self.push(at, NodeKind::SignalExternal { signal, value }, Some(Access { reads, writes: vec![] }))
    }

    pub fn build(self) -> Graph<P> {
        self.g
    }
}
