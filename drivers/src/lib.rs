//! Everything that talks to a kernel driver or to hardware.
//!
//! Layering: [`os`] is the OS boundary (files, sysfs, later ioctls and mmaps); vendor code in
//! [`amd`] and [`nv`] sits on top of it and never calls libc itself, so the emulated OS in the
//! `emu` crate can stand in for the kernel.

pub mod amd;
pub mod env;
pub mod error;
pub mod nv;
pub mod os;
pub mod pci;
pub mod usb;
pub mod va_window;

pub use error::{Error, Result};
