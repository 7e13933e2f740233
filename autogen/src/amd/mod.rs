//! AMD: kernel-driver ABI (KFD, amdgpu DRM), HSA/LLVM code-object structures, PM4/SDMA packet
//! definitions and register tables.

// -- ABI bindings: kfd_ioctl.h, amdgpu_drm.h, HSA and kernel-descriptor structures --
pub mod amdgpu_drm;
pub mod elf;
pub mod hsa;
pub mod kd;
pub mod kfd;

// -- Hardware tables: PM4, SDMA, register offsets and fields, IP base tables --
