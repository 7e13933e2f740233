//! NVIDIA: the RM driver path (through /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm) and,
//! later, the GSP path over PCI.

pub mod discovery;
