//! The AMD device of the runtime, over the KFD driver.

pub mod bound;
mod device;
pub mod hdp;
pub mod launch;
mod queue;
mod ring;
mod staging;
pub use crate::trace;

pub use bound::BoundCommands;
pub use device::{AmdDevice, Buffer, Program, Submitted, TIMESTAMP_HZ};
pub use queue::{ComputeQueue, CopyQueue};
pub use staging::STAGING_BYTES;
