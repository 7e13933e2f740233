//! The emulated GPUs. They will implement the OS boundary (an emulated KFD and RM) and run
//! command processors and wave interpreters behind it; today the crate holds the catalogue of
//! the boards it models.

pub mod am;
pub mod amd;
pub mod catalog;
pub mod clock;
pub mod doorbell;
mod engine_thread;
pub mod gpu_memory;
mod host_cores;
pub mod memory_wait;
pub mod nv;
mod os;
pub mod rdna;
pub mod usb_bridge;
pub mod work;
