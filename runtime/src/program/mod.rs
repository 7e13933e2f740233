//! Programs: code objects loaded for a device. [`hsaco`] parses AMD code objects (ELF, kernel
//! descriptors, relocations), [`metadata`] their NT_AMDGPU_METADATA note, [`kernargs`] lays out
//! a launch's kernel arguments, implicit ("hidden") ones included, as LLVM-compiled code expects.

pub mod cubin;
pub mod hsaco;
pub mod kernargs;
pub mod metadata;
pub mod ptx;

pub use hsaco::{CodeObject, Kernel};
pub use kernargs::{ArgValue, Launch};
pub use metadata::{ArgKind, HiddenArg, KernelArg, KernelMeta};

/// A relocation of a code object (AMD HSACO or NVIDIA cubin) to apply once the image's GPU
/// address is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    /// Where to write, in the image.
    pub offset: u64,
    /// The format's relocation type (`R_AMDGPU_*`, `R_CUDA_*`).
    pub kind: u32,
    /// Image offset of the symbol (0 where the type uses none).
    pub symbol: u64,
    pub addend: i64,
}
