//! AM: the userspace PCI driver for AMD GPUs, with no amdgpu.ko — IP discovery, firmware,
//! the PSP and SMU, GMC page tables, the IH ring, and the compute and SDMA queues programmed
//! into the hardware's registers. Everything goes through [`crate::pci::PciDevice`].

pub mod chip;
pub mod discovery;
pub mod firmware;
pub mod gmc;
pub mod ih;
pub mod mmio;
pub mod mqd;
pub mod pagetable;
pub mod psp;
pub mod psp_abi;
pub mod raw;
pub mod smu;
#[cfg(test)]
pub(crate) mod testing;
pub mod vram;
