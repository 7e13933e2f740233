//! Errors of the code-object writer: every bad input is reported, never a panic.

use thiserror::Error;

/// Why a code object could not be written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CodeObjectError {
    #[error("code object for {arch} has no kernels")]
    NoKernels { arch: &'static str },
    #[error("kernel name {name:?} is invalid: {reason}")]
    InvalidName { name: String, reason: &'static str },
    #[error("kernel `{0}` is defined more than once")]
    DuplicateKernel(String),
    #[error("kernel `{kernel}`: machine code is empty")]
    EmptyCode { kernel: String },
    #[error("kernel `{kernel}`: machine code is {len} bytes, not a whole number of 4-byte words")]
    MisalignedCode { kernel: String, len: usize },
    #[error("kernel `{kernel}`: {what} count {count} exceeds the {arch} limit of {limit}")]
    RegisterLimit { kernel: String, arch: &'static str, what: &'static str, count: u32, limit: u32 },
    #[error("kernel `{kernel}`: {bytes} bytes of LDS (group segment) exceed the {arch} limit of {limit} bytes")]
    LdsLimit { kernel: String, arch: &'static str, bytes: u32, limit: u32 },
    #[error("the {feature} target feature cannot be set on {arch}")]
    UnsupportedTargetFeature { arch: &'static str, feature: &'static str },
    #[error("kernel `{kernel}`: {feature} is not supported on {arch}")]
    Unsupported { kernel: String, arch: &'static str, feature: &'static str },
    #[error("kernel `{kernel}`: user SGPR count {count} is invalid: {reason}")]
    UserSgprCount { kernel: String, count: u32, reason: String },
    #[error("kernel `{kernel}`: invalid {field}: {reason}")]
    InvalidField { kernel: String, field: &'static str, reason: String },
    #[error(
        "kernel `{kernel}`: argument {index} ({arg}) at offset {offset}, size {size}, ends beyond the kernarg \
         segment size {segment_size}"
    )]
    ArgOutOfBounds { kernel: String, index: usize, arg: String, offset: u32, size: u32, segment_size: u32 },
    #[error(
        "kernel `{kernel}`: argument {index} ({arg}) at bytes {start}..{end} overlaps argument {other} \
         ({other_arg}) at bytes {other_start}..{other_end}"
    )]
    ArgOverlap {
        kernel: String,
        index: usize,
        arg: String,
        start: u64,
        end: u64,
        other: usize,
        other_arg: String,
        other_start: u64,
        other_end: u64,
    },
    #[error("kernel `{kernel}`: argument {index} ({arg}) is invalid: {reason}")]
    InvalidArg { kernel: String, index: usize, arg: String, reason: String },
    #[error("cannot lay out the ELF file: {0}")]
    Elf(String),
}
