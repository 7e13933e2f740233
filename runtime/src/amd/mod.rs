//! The AMD device of the runtime, over the KFD driver.

mod device;
pub mod hdp;
pub mod launch;
mod ring;

pub use device::{AmdDevice, Buffer, Program, Submitted, TIMESTAMP_HZ};
