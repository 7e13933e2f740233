//! The graph compiler: lazy tensors ([`tensor`]) scheduled into fused kernels ([`schedule`])
//! written in a small loop IR ([`ir`]) and lowered to AMD machine code through the typed builder
//! ([`lower_amd`]). The runtime side (buffers, one HCQ2 graph per schedule, replays) lives in the
//! root crate, which owns the device.

pub mod compose;
pub mod dtype;
pub mod error;
pub mod ir;
pub mod lower_amd;
pub mod lower_ptx;
pub mod matmul_plan;
pub mod ops;
pub mod schedule;
pub mod tensor;
pub mod transformer;
pub mod view;

pub use dtype::DType;
pub use error::GraphError;
pub use ops::{BinaryOp, MovementOp, ReduceOp, UnaryOp};
pub use schedule::{schedule, BufferKind, Schedule};
pub use tensor::Tensor;
