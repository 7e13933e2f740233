//! The host side of the MXFP4 GEMM (`C = A * B^T`, A `M` x `K` and B `N` x `K` in MXFP4, C bf16):
//! quantizing to MXFP4 ([`quantize`]), the pre-shuffled layouts the gfx950 kernel
//! ([`crate::kernels::mxfp4_gemm`]) reads ([`layout`]), and the reference GEMM with the error
//! measures results are checked with ([`reference`]).
//!
//! MXFP4 is OCP Microscaling v1.0's MXFP4: blocks of [`BLOCK`] (32) E2M1 elements along K
//! sharing one E8M0 scale ([`e2m1`]).

pub mod e2m1;
pub mod inputs;
pub mod layout;
pub mod quantize;
pub mod reference;

use thiserror::Error;

pub use quantize::{quantize, quantize_bf16, Mxfp4Matrix};

/// Elements per scale block.
pub const BLOCK: usize = 32;

/// Why MXFP4 data could not be made or used.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MxError {
    #[error("{0}")]
    Shape(String),
}
