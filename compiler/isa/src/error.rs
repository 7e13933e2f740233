//! Errors of the ISA model: decoding (byte offsets) and assembling (line:column).

use thiserror::Error;

/// Every error the ISA model reports. Decoding errors name the byte offset; assembler errors name
/// the line and column (both 1-based).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IsaError {
    #[error("offset {offset}: truncated instruction: need {need} bytes, {have} left")]
    Truncated { offset: usize, need: usize, have: usize },
    #[error("offset {offset}: unknown instruction encoding 0x{dword:08x}")]
    UnknownEncoding { offset: usize, dword: u32 },
    #[error("offset {offset}: unknown opcode {opcode} in format {format} (0x{dword:08x})")]
    UnknownOpcode { offset: usize, format: &'static str, opcode: u32, dword: u32 },
    #[error("{line}:{col}: {msg}")]
    Asm { line: usize, col: usize, msg: String },
    #[error("encode: {0}")]
    Encode(String),
}

impl IsaError {
    pub(crate) fn asm(line: usize, col: usize, msg: impl Into<String>) -> IsaError {
        IsaError::Asm { line, col, msg: msg.into() }
    }
}

pub type Result<T> = std::result::Result<T, IsaError>;
