//! Why a graph could not be built, scheduled or compiled: found when the graph is built, never
//! when it runs.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum GraphError {
    #[error("shape mismatch: {0}")]
    Shape(String),
    #[error("dtype mismatch: {0}")]
    DType(String),
    #[error("not supported yet: {0}")]
    Unsupported(String),
    #[error("kernel `{kernel}`: {what}")]
    Codegen { kernel: String, what: String },
}
