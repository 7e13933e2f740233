//! The emulated PCI GPU (`am:emu:*`) and the AM driver against it. One test binary; each
//! module is one concern.

mod am {
    pub mod common;
    mod device;
    mod psp;
}
