//! The emulated PCI GPU behind [`baregpu_drivers::pci::PciDevice`] (`am:emu:ARCH`): the chip's
//! IP layout, its discovery table, the firmware it accepts, and the blocks behind its
//! registers (PSP, SMU, GMC, IH, command processors).

pub mod bases;
mod chip;
mod config;
mod cphost;
mod cpreset;
mod device;
mod dma;
mod firmware_check;
pub mod firmware_standin;
mod gmc;
pub(crate) mod hostmem;
mod hqd;
mod ih;
pub mod layout;
mod mmio;
mod mode1;
pub mod psp;
mod regmap;
mod regs;
pub mod restricted;
pub mod smu;
pub mod tables;

pub use chip::{Chip, CHIPS, GFX1100, GFX942};
pub use device::EmuPciGpu;
pub use dma::DMA_BUS_BASE;
