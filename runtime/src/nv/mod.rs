//! The HCQ runtime on NVIDIA GPUs (through RM, real or emulated): the same model as
//! [`crate::amd`] — buffers, 64-bit signals, the device timeline, compute and copy queues,
//! programs (cubins, or PTX on the emulated GPU) and launches — over `drivers::nv`.

mod device;
mod gpfifo;
pub mod launch;
pub mod program;
mod queue;

pub use device::{Buffer, NvDevice, NvIsa, Program, PtxCheck, Submitted, TIMESTAMP_HZ};
pub use launch::{LOCAL_WINDOW, SHARED_WINDOW};
pub use program::{NvCode, NvKernel, NvParam, NvParamKind};
pub use queue::{ComputeQueue, CopyQueue};
