//! Consumers of the stack: the AMD assembler front end and code-object writer, hand-written
//! kernels and the graph compiler. They use the runtime like any user would.

pub use baregpu_isa as isa;

pub mod codeobj;
pub mod graph;
pub mod kernels;
pub mod mxfp4;
