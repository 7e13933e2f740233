//! What a graph's nodes read and write: input slots (bound per run), fixed buffers (known at
//! build time), and byte ranges of either.

/// An input slot of a graph: bound to a buffer or a value at each run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotId(pub usize);

/// An external signal the graph waits on or signals; the caller supplies it at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExternalId(pub usize);

/// Where memory lives: on one device of the graph, or in host memory every device maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Home {
    Device(usize),
    Host,
}

impl std::fmt::Display for Home {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Home::Device(d) => write!(f, "device {d}"),
            Home::Host => f.write_str("host memory"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotKind {
    /// A buffer of at least `bytes` bytes, living at `home`.
    Buffer { home: Home, bytes: u64 },
    /// A by-value argument of 4 or 8 bytes.
    Scalar { bytes: u8 },
    /// A workgroup count of one launch dimension (u32).
    LaunchSize,
}

impl SlotKind {
    pub fn describe(&self) -> &'static str {
        match self {
            SlotKind::Buffer { .. } => "a buffer slot",
            SlotKind::Scalar { .. } => "a scalar slot",
            SlotKind::LaunchSize => "a launch-size slot",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub name: String,
    pub kind: SlotKind,
}

/// A buffer whose address is fixed when the graph is built (the caller keeps it alive as long
/// as the graph). Fixed buffers of one home share an address space: their ranges conflict by
/// address, so overlapping sub-buffers are tracked correctly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FixedBuffer {
    pub home: Home,
    pub va: u64,
    pub bytes: u64,
}

/// A buffer a node refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BufRef {
    Slot(SlotId),
    Fixed(FixedBuffer),
}

impl From<SlotId> for BufRef {
    fn from(s: SlotId) -> Self {
        BufRef::Slot(s)
    }
}

impl From<FixedBuffer> for BufRef {
    fn from(f: FixedBuffer) -> Self {
        BufRef::Fixed(f)
    }
}

/// `bytes` bytes of a buffer from `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Range {
    pub buf: BufRef,
    pub offset: u64,
    pub bytes: u64,
}

impl Range {
    pub fn new(buf: impl Into<BufRef>, offset: u64, bytes: u64) -> Self {
        Range { buf: buf.into(), offset, bytes }
    }

    /// The memory it names, for hazard checks: slots are separate buffers, fixed buffers are
    /// addresses in their home's space.
    pub(crate) fn key(&self) -> (MemKey, u64, u64) {
        match self.buf {
            BufRef::Slot(s) => (MemKey::Slot(s), self.offset, self.offset + self.bytes),
            BufRef::Fixed(f) => (MemKey::Fixed(f.home), f.va + self.offset, f.va + self.offset + self.bytes),
        }
    }

    /// Whether the two ranges share a byte.
    pub fn overlaps(&self, other: &Range) -> bool {
        let (ka, a0, a1) = self.key();
        let (kb, b0, b1) = other.key();
        // An empty range touches nothing.
        ka == kb && a0 < a1 && b0 < b1 && a0 < b1 && b0 < a1
    }
}

/// One address space for hazard tracking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum MemKey {
    Slot(SlotId),
    Fixed(Home),
}
