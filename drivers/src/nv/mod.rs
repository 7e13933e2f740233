//! NVIDIA: the RM driver path (through /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm) and,
//! later, the GSP path over PCI.
//!
//! - [`discovery`]: GPUs and the driver version from /proc, before any RM call;
//! - [`rm`]: the RM/UVM ABI per driver branch, and the [`rm::client::RmClient`] that issues it;
//! - [`device`]: the bring-up of one GPU (device, VA space, UVM, channels) and its memory;
//! - [`fault`]: where a faulting kernel went wrong (RM's SM debugger report, its codes named);
//! - [`pushbuf`]: push-buffer methods and GPFIFO entries;
//! - [`methods`] and [`qmd`]: compute/copy class methods and the launch descriptor;
//! - [`cbank0`]: constant bank 0's driver slots (launch sizes, windows, stack) and parameters;
//! - [`ptx_image`]: the program image the emulated GPU executes (PTX instead of SASS);
//! - [`ptx_abi`]: PTX facts both sides must agree on (parameter layout, version, limits).

pub mod cbank0;
pub mod device;
pub mod discovery;
pub mod fault;
pub mod methods;
pub mod nonstall;
pub mod ptx_abi;
pub mod ptx_image;
pub mod pushbuf;
pub mod qmd;
pub mod rm;
