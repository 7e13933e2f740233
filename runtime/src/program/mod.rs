//! Programs: code objects loaded for a device. [`hsaco`] parses AMD code objects (ELF, kernel
//! descriptors, relocations), [`metadata`] their NT_AMDGPU_METADATA note, [`kernargs`] lays out
//! a launch's kernel arguments, implicit ("hidden") ones included, as LLVM-compiled code expects.

pub mod cubin;
pub mod hsaco;
pub mod kernargs;
pub mod metadata;

pub use hsaco::{CodeObject, Kernel};
pub use kernargs::{ArgValue, Launch};
pub use metadata::{ArgKind, HiddenArg, KernelArg, KernelMeta};
