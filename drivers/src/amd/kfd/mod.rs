//! The KFD driver path: /dev/kfd ioctls and the render node, as ROCm's thunk would issue them,
//! without ROCm. Everything goes through the OS boundary, so the emulated KFD serves the very
//! same calls.

pub mod cwsr;
pub mod device;
mod event_page;
pub mod events;
pub mod exceptions;
pub mod ioctl;
pub mod memory;
pub mod queue;

pub use device::{Kfd, KfdDevice};
pub use events::{EventKind, HwException, KfdEvent, MemoryFault, WaitOutcome};
pub use exceptions::QueueException;
pub use memory::{KfdMemory, MemKind};
pub use queue::{KfdQueue, QueueKind, XccQueue};
