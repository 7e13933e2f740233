//! baregpu: a bare-metal userspace GPU driver stack. This facade re-exports the layers and wires
//! every backend together in the device [`registry`].

pub mod bench_compile;
pub mod bench_emu;
pub mod bench_graph;
pub mod bench_instructions;
pub mod bench_launch;
pub mod bench_link;
pub mod demo;
mod demo_graph;
pub mod demo_transformer;
pub mod device;
pub mod device_usb;
pub mod error;
pub mod gemm;
pub mod gpu;
pub mod pci_device;
pub mod ptxas;
pub mod realize;
pub mod registry;

pub use baregpu_autogen as autogen;
pub use baregpu_compiler as compiler;
pub use baregpu_drivers as drivers;
pub use baregpu_emu as emu;
pub use baregpu_runtime as runtime;
pub use baregpu_runtime::DeviceSpec;
pub use error::{Error, Result};
pub use gpu::{open, open_with, Gpu};

/// The commit this build came from (from the root build script).
pub const GIT_REV: &str = env!("BAREGPU_GIT_REV");
