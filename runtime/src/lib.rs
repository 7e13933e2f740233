//! The HCQ runtime: the vendor-neutral API over the drivers. It holds the device-spec language
//! that names devices and the address allocators; devices, buffers, signals, queues and programs
//! join it with the KFD and RM drivers.

pub mod alloc;
pub mod amd;
pub mod core;
pub mod error;
pub mod graph;
pub mod hcq;
pub mod nv;
pub mod port;
pub mod program;
pub mod signal;
pub mod spec;
pub mod timeline;
pub mod timeout;
pub mod trace;

pub use error::{Error, Result};
pub use spec::DeviceSpec;
