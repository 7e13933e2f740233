//! Why a graph does not compile. Each message names the node (index, what it is, where).

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("the graph has no nodes")]
    Empty,
    #[error("{node}: the graph has {devices} device(s)")]
    NoDevice { node: String, devices: usize },
    #[error("{node}: the device has no {queue} queue")]
    NoQueue { node: String, queue: String },
    #[error("{node}: {what} cannot run on a {queue} queue")]
    WrongQueue { node: String, what: String, queue: String },
    #[error("{node}: slot {slot} does not exist")]
    UnknownSlot { node: String, slot: usize },
    #[error("{node}: slot `{slot}` is {is}, used as {wanted}")]
    SlotKind { node: String, slot: String, is: String, wanted: String },
    #[error("scalar slot `{slot}` has {bytes} bytes; scalars are 4 or 8")]
    ScalarSize { slot: String, bytes: u8 },
    #[error("{node}: external signal {signal} does not exist")]
    UnknownExternal { node: String, signal: usize },
    #[error(
        "{node}: uses {buffer} on {home}; a node reaches only its own device's memory and host memory (copy it first)"
    )]
    ForeignBuffer { node: String, buffer: String, home: String },
    #[error("{node}: {buffer} bytes {start}..{end} pass its end ({size} bytes)")]
    OutOfBounds { node: String, buffer: String, start: u64, end: u64, size: u64 },
    #[error("{node}: copies {src} bytes into a {dst}-byte range")]
    CopySize { node: String, dst: u64, src: u64 },
    #[error("dependency cycle: {path}")]
    Cycle { path: String },
}
