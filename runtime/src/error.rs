//! The runtime crate's one error type. Device errors name the device, and for work that failed,
//! the queue, what went wrong (fault address, timeout) and what was last submitted.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("bad device spec `{spec}`: {reason}")]
    BadSpec { spec: String, reason: String },
    #[error(transparent)]
    Driver(#[from] baregpu_drivers::Error),
    /// The device cannot do what was asked (unsupported arch, exhausted memory, bad argument).
    #[error("{device}: {msg}")]
    Device { device: String, msg: String },
    /// Submitted work did not finish: no progress for the whole timeout.
    #[error("{device}: {queue} queue timed out after {secs:.1} s without progress (signal at {reached}, waiting for {wanted}); last submitted: {last}")]
    Timeout { device: String, queue: &'static str, secs: f64, reached: u64, wanted: u64, last: String },
    /// The GPU reported a fault while running submitted work.
    #[error("{device}: {queue} queue: {fault}; last submitted: {last}")]
    Fault { device: String, queue: &'static str, fault: String, last: String },
    /// A code object or kernel launch that does not fit the device or the kernel's metadata.
    #[error("{0}")]
    Program(String),
    /// A graph that cannot be compiled or run as given (names the node where one is at fault).
    #[error("{0}")]
    Graph(String),
    /// Work of a graph node failed on the device: `node` names it (index, what, device, queue).
    #[error("{node}: {source}")]
    InGraph { node: String, source: Box<Error> },
}

impl From<crate::graph::GraphError> for Error {
    fn from(e: crate::graph::GraphError) -> Self {
        Error::Graph(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, Error>;
