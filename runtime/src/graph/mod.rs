//! HCQ2 graphs: a sequence of launches, copies and external waits/signals across the compute
//! and copy queues of one or more devices, described once ([`GraphBuilder`]) and compiled
//! ([`compile`]) into a [`Plan`]: per (device, queue) the ordered steps (barriers, waits on and
//! signals of graph-owned sync points, nodes) that a lowering pass encodes into command
//! buffers. Dependencies come from the byte ranges nodes read and write.
//!
//! [`exec`] is that lowering: [`GraphExec`] compiles a plan onto devices and runs it.
//!
//! [`model`] runs a graph on host memory (the oracle of the property tests), [`random`]
//! generates random graphs for them.
//!
//! Lowering a plan (a walk over [`Plan::queues`]):
//! - [`Step::Run`]: the node's kernel dispatch or copy; the sites [`Plan::feeds`] names are
//!   written per run from the bindings, every other site is fixed at compile time.
//! - [`Step::Barrier`]: the queue's barrier (earlier work finished and visible).
//! - [`Step::Wait`] / [`Step::Signal`]: a wait (>=, then an acquire) / an end-of-pipe release
//!   on graph signal [`SyncPoint::signal`] with `run base + value`; the signals live in memory
//!   every device of [`GraphSignal::waiters`] maps, and a run's base advances by
//!   [`GraphSignal::last`].
//! - [`Step::WaitExternal`] / [`Step::SignalExternal`]: the same on the caller's signal.
//!
//! Hazards are tracked per slot and per fixed-buffer address space: the buffers bound to
//! different slots at a run must not overlap each other or a fixed buffer of the graph (the
//! run must check this), or their conflicts go unseen.

pub mod builder;
pub mod check;
pub mod deps;
pub mod error;
pub mod exec;
pub mod model;
pub mod node;
pub mod order;
pub mod plan;
pub mod random;
pub mod rng;
pub mod slot;

#[cfg(test)]
mod sim;
#[cfg(test)]
mod tests;

pub use builder::{Graph, GraphBuilder};
pub use check::{copy_kind, CopyKind, DeviceCaps};
pub use deps::{Dep, Hazards};
pub use error::GraphError;
pub use exec::{Bindings, ExecOptions, GraphExec};
pub use node::{Access, Arg, Dim, KernelNode, Node, NodeId, NodeKind, Queue, QueueKey, Shape};
pub use plan::{compile, Feed, GraphSignal, Kept, Plan, PlannedDep, QueuePlan, Site, Step, SyncPoint};
pub use slot::{BufRef, ExternalId, FixedBuffer, Home, Range, Slot, SlotId, SlotKind};
