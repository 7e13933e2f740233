//! The emulated PCI GPU (`am:emu:ARCH`) and the AM driver against it. One test binary; each
//! module is one concern, owned by the helper who wrote it.

mod am {
    mod at_cpu;
    mod boot;
    pub mod common;
    mod device;
    mod firmware_standin;
    mod gfx942;
    pub mod psp;
    mod queue;
    mod tables;
}
