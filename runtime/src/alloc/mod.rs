//! Address management: [`Tlsf`] for large address spaces (device VA, VRAM), [`Ring`] for
//! rings and kernarg memory that the GPU consumes in order.

mod ring;
mod tlsf;

pub use ring::{Ring, RingAlloc};
pub use tlsf::Tlsf;
