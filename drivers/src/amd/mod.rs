//! AMD: the KFD driver path (through /dev/kfd and the render node) and, later, the userspace PCI
//! driver (AM).

pub mod am;
pub mod decode;
pub mod kfd;
pub mod pm4;
pub mod sdma;
pub mod topology;
