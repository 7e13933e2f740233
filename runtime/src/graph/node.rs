//! The nodes of a graph: kernel launches, copies, and waits on and signals of external
//! signals, each on one queue of one device.

use super::slot::{BufRef, ExternalId, Range, SlotId};

/// Index of a node in its graph (the order nodes were added: program order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Queue {
    Compute,
    Copy,
}

impl std::fmt::Display for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Queue::Compute => "compute",
            Queue::Copy => "copy",
        })
    }
}

/// One hardware queue of one device of the graph (devices are indices into the list given to
/// compile).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QueueKey {
    pub device: usize,
    pub queue: Queue,
}

impl QueueKey {
    pub fn compute(device: usize) -> Self {
        QueueKey { device, queue: Queue::Compute }
    }
    pub fn copy(device: usize) -> Self {
        QueueKey { device, queue: Queue::Copy }
    }
}

impl std::fmt::Display for QueueKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "device {} {} queue", self.device, self.queue)
    }
}

/// A kernel argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// The address of a buffer plus a byte offset.
    Buffer(BufRef, u64),
    /// A scalar slot's value, patched per run.
    ScalarSlot(SlotId),
    /// Fixed by-value bytes.
    Scalar(Vec<u8>),
}

impl Arg {
    pub fn buf(b: impl Into<BufRef>) -> Self {
        Arg::Buffer(b.into(), 0)
    }
    pub fn buf_at(b: impl Into<BufRef>, offset: u64) -> Self {
        Arg::Buffer(b.into(), offset)
    }
    pub fn u32(v: u32) -> Self {
        Arg::Scalar(v.to_le_bytes().to_vec())
    }
    pub fn u64(v: u64) -> Self {
        Arg::Scalar(v.to_le_bytes().to_vec())
    }
}

/// One launch dimension's workgroup count: fixed, or a launch-size slot's value at each run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    Fixed(u32),
    Slot(SlotId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub grid: [Dim; 3],
    pub block: [u32; 3],
}

impl Shape {
    /// A 1-D launch of `groups` workgroups of `block` work-items.
    pub fn linear(groups: u32, block: u32) -> Self {
        Shape { grid: [Dim::Fixed(groups), Dim::Fixed(1), Dim::Fixed(1)], block: [block, 1, 1] }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelNode<P> {
    pub program: P,
    pub kernel: String,
    pub args: Vec<Arg>,
    pub shape: Shape,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind<P> {
    Kernel(KernelNode<P>),
    /// `dst.bytes` bytes from `src` to `dst` (same device, device to device, or through host
    /// memory); on a copy queue.
    Copy {
        dst: Range,
        src: Range,
    },
    /// Stall the queue until the external signal reaches `value`.
    WaitExternal {
        signal: ExternalId,
        value: u64,
    },
    /// After everything before it on its queue, set the external signal to `value`.
    SignalExternal {
        signal: ExternalId,
        value: u64,
    },
}

/// The memory a node touches. A kernel that stated none gets the defaults
/// ([`super::check::default_access`]): every buffer argument read and written from its offset
/// to the buffer's end.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Access {
    pub reads: Vec<Range>,
    pub writes: Vec<Range>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node<P> {
    pub at: QueueKey,
    pub kind: NodeKind<P>,
    /// Stated ranges; `None` asks for the defaults.
    pub access: Option<Access>,
}

impl<P> Node<P> {
    /// `kernel `mix``, `copy`, `wait on external 0`: for errors and traces.
    pub fn describe(&self) -> String {
        match &self.kind {
            NodeKind::Kernel(k) => format!("kernel `{}`", k.kernel),
            NodeKind::Copy { .. } => "copy".to_string(),
            NodeKind::WaitExternal { signal, value } => format!("wait on external signal {} >= {value}", signal.0),
            NodeKind::SignalExternal { signal, value } => format!("signal of external signal {} = {value}", signal.0),
        }
    }
}
