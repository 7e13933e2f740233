//! AMD: kernel-driver ABI (KFD, amdgpu DRM), HSA/LLVM code-object structures, PM4/SDMA packet
//! definitions and register tables.

// -- ABI bindings: kfd_ioctl.h, amdgpu_drm.h, HSA and kernel-descriptor structures --
pub mod amdgpu_drm;
pub mod elf;
pub mod enums;
pub mod hsa;
pub mod kd;
pub mod kfd;

// -- Hardware tables: PM4, SDMA, register offsets and fields, IP base tables --
pub mod ip_base;
pub mod pm4_mec;
pub mod pm4_nv;
pub mod pm4_soc15;
pub mod regs;
pub mod sdma_4_0_0;
pub mod sdma_5_0_0;
pub mod sdma_6_0_0;
pub mod sdma_7_0;
