//! The emulated PCI GPU (`am:emu:gfx1100`, `am:emu:gfx942`): what the AM driver reaches
//! through `drivers::pci::PciDevice` instead of a real card — the chip's IP layout, its
//! discovery table, and the firmware it accepts.

mod bases;
mod chip;
mod config;
mod device;
mod dma;
pub mod firmware_standin;
mod hostmem;
pub mod layout;
mod regs;
pub mod tables;

pub use chip::{Chip, CHIPS, GFX1100, GFX942};
pub use device::EmuPciGpu;
pub use dma::DMA_BUS_BASE;
