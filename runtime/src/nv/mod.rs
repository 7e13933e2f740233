//! The NVIDIA backend of the runtime core (through RM, real or emulated): the same model as
//! [`crate::amd`] — buffers, 64-bit signals, the device timeline, compute and copy queues,
//! programs (cubins, or PTX on the emulated GPU) and launches — over `drivers::nv`.

mod backend;
mod device;
mod encode;
mod gpfifo;
pub mod launch;
pub mod program;

pub use crate::core::Submitted;
pub use device::{Buffer, Nv, NvDevice, NvIsa, Program, PtxCheck, TIMESTAMP_HZ};
pub use encode::{Methods, NvCompute, NvCopy};
pub use launch::{LOCAL_WINDOW, SHARED_WINDOW};
pub use program::{NvCode, NvKernel, NvParam, NvParamKind};

/// The queue builders on an NVIDIA device.
pub type ComputeQueue<'d> = crate::core::ComputeQueue<'d, Nv>;
pub type CopyQueue<'d> = crate::core::CopyQueue<'d, Nv>;
