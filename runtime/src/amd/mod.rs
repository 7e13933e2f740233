//! The AMD backend of the runtime core, over a driver interface: KFD, or the userspace PCI driver.

pub mod am;
pub mod am_device;
mod backend;
mod device;
pub mod drained;
mod encode;
pub mod hdp;
pub mod iface;
pub mod kfd;
pub mod launch;
mod ring;
mod staging;
mod xcc_ib;
pub use crate::trace;

pub use crate::core::Submitted;
pub use device::{Amd, AmdDevice, Buffer, Program, TIMESTAMP_HZ};
pub use encode::{AmdCompute, AmdCopy};
pub use iface::AmdIface;
pub use kfd::KfdIface;
pub use staging::STAGING_BYTES;

/// The queue builders on an AMD device.
pub type ComputeQueue<'d> = crate::core::ComputeQueue<'d, Amd>;
pub type CopyQueue<'d> = crate::core::CopyQueue<'d, Amd>;
