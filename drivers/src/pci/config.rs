//! Offsets and bits of PCI configuration space that the drivers and the emulated devices share
//! (include/uapi/linux/pci_regs.h): one definition for the host implementations, the USB
//! bridge's bring-up and the emulators that answer them.

/// The command register and its bits.
pub const PCI_COMMAND: u16 = 0x04;
pub const PCI_COMMAND_IO: u16 = 0x1;
pub const PCI_COMMAND_MEMORY: u16 = 0x2;
pub const PCI_COMMAND_MASTER: u16 = 0x4;
/// The first BAR register (type 0 header).
pub const PCI_BASE_ADDRESS_0: u16 = 0x10;
/// A bridge's (type 1 header) bus numbers: primary, secondary, subordinate, latency timer.
pub const PCI_PRIMARY_BUS: u16 = 0x18;
pub const PCI_SECONDARY_BUS: u16 = 0x19;
pub const PCI_SUBORDINATE_BUS: u16 = 0x1a;
/// A bridge's memory window and prefetchable window (base and limit, then the upper 32 bits).
pub const PCI_MEMORY_BASE: u16 = 0x20;
pub const PCI_PREF_MEMORY_BASE: u16 = 0x24;
pub const PCI_PREF_BASE_UPPER32: u16 = 0x28;
pub const PCI_PREF_LIMIT_UPPER32: u16 = 0x2c;
/// Where PCIe extended capabilities start, and the resizable-BAR capability's id.
pub const PCI_EXT_CAP_START: u16 = 0x100;
pub const PCI_EXT_CAP_ID_REBAR: u32 = 0x15;
