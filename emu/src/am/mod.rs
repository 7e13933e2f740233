//! The emulated PCI GPU behind [`baregpu_drivers::pci::PciDevice`] (`am:emu:ARCH`): the chip's
//! IP layout, its discovery table, and the firmware it accepts.

pub mod firmware_standin;
pub mod layout;
pub mod tables;
