//! The emulated PCI GPU (`am:emu:ARCH`) and the AM driver against it. One module per area, each
//! owned by the helper who wrote it.

#[path = "am/firmware_standin.rs"]
mod firmware_standin;
#[path = "am/tables.rs"]
mod tables;

mod am {
    pub mod common;
    mod device;
    mod psp;
}
