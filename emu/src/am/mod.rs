//! The emulated PCI GPU (`am:emu:gfx1100`, `am:emu:gfx942`): what the AM driver reaches
//! through `drivers::pci::PciDevice` instead of a real card.

pub mod bases;
mod chip;
mod config;
mod device;
mod dma;
mod firmware_check;
mod hostmem;
mod mmio;
pub mod psp;
mod regs;
pub mod smu;

pub use chip::{Chip, CHIPS, GFX1100, GFX942};
pub use device::EmuPciGpu;
pub use dma::DMA_BUS_BASE;
