//! Turning a kernel, its arguments and a launch shape into the register state of a PM4
//! dispatch: user SGPRs in the order the hardware loads them (as the kernel descriptor enables
//! them), the LDS allocation, the HSA dispatch packet for kernels that read it, and scratch.

use crate::program::hsaco::Kernel;
use crate::program::Launch;
use crate::{Error, Result};
use baregpu_autogen::amd::hsa;
use baregpu_autogen::amd::kd::{compute_pgm_rsrc2 as r2, kernel_code_property as kcp};

/// LDS is allocated in 512-byte granules (COMPUTE_PGM_RSRC2.LDS_SIZE).
pub const LDS_GRANULE: u32 = 512;

/// Addresses the user SGPRs point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pointers {
    pub kernargs: u64,
    pub dispatch_packet: u64,
    pub queue: u64,
    pub dispatch_id: u64,
}

/// Whether the kernel reads the HSA dispatch packet through the dispatch pointer.
pub fn wants_dispatch_packet(k: &Kernel) -> bool {
    k.descriptor.kernel_code_properties as u32 & kcp::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR != 0
}

pub fn wave32(k: &Kernel) -> bool {
    k.descriptor.kernel_code_properties as u32 & kcp::KERNEL_CODE_PROPERTY_ENABLE_WAVEFRONT_SIZE32 != 0
}

/// COMPUTE_USER_DATA_* in hardware order.
pub fn user_sgprs(k: &Kernel, p: &Pointers) -> Result<Vec<u32>> {
    let props = k.descriptor.kernel_code_properties as u32;
    let name = &k.name;
    let mut u = Vec::new();
    let push64 = |u: &mut Vec<u32>, v: u64| {
        u.push(v as u32);
        u.push((v >> 32) as u32);
    };
    if props & kcp::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER != 0 {
        return Err(Error::Program(format!(
            "kernel `{name}` wants a private segment buffer descriptor, which targets with architected flat scratch do not use"
        )));
    }
    if props & kcp::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR != 0 {
        push64(&mut u, p.dispatch_packet);
    }
    if props & kcp::KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR != 0 {
        push64(&mut u, p.queue);
    }
    if props & kcp::KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR != 0 {
        push64(&mut u, p.kernargs);
    }
    if props & kcp::KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID != 0 {
        push64(&mut u, p.dispatch_id);
    }
    if props & kcp::KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT != 0 {
        return Err(Error::Program(format!(
            "kernel `{name}` wants flat-scratch initialisation, which is not supported"
        )));
    }
    if props & kcp::KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE != 0 {
        u.push(k.descriptor.private_segment_fixed_size);
    }
    // The descriptor's count may exceed what the enables add up to (LLVM pads on some targets):
    // the padding SGPRs are zero.
    let count = ((k.descriptor.compute_pgm_rsrc2 & r2::COMPUTE_PGM_RSRC2_GFX6_GFX120_USER_SGPR_COUNT) >> 1) as usize;
    if u.len() > count {
        return Err(Error::Program(format!(
            "kernel `{name}`: its enables need {} user SGPRs but the descriptor declares {count}",
            u.len()
        )));
    }
    u.resize(count, 0);
    Ok(u)
}

/// COMPUTE_PGM_RSRC2 for the dispatch: the descriptor's value with the LDS allocation
/// (fixed plus dynamic), which the descriptor leaves to the dispatcher.
pub fn rsrc2(k: &Kernel, launch: &Launch, lds_limit: u32) -> Result<u32> {
    let lds = k.descriptor.group_segment_fixed_size + launch.dynamic_lds;
    if lds > lds_limit {
        return Err(Error::Program(format!(
            "kernel `{}` needs {lds} bytes of LDS; the device has {lds_limit}",
            k.name
        )));
    }
    let granules = lds.div_ceil(LDS_GRANULE);
    let shift = r2::COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE.trailing_zeros();
    Ok((k.descriptor.compute_pgm_rsrc2 & !r2::COMPUTE_PGM_RSRC2_GRANULATED_LDS_SIZE) | (granules << shift))
}

/// The 64-byte AQL dispatch packet a kernel reads through its dispatch pointer.
pub fn dispatch_packet(k: &Kernel, launch: &Launch, kernel_object: u64, kernargs: u64) -> [u8; 64] {
    let mut p = [0u8; 64];
    let put16 = |p: &mut [u8; 64], at: usize, v: u16| p[at..at + 2].copy_from_slice(&v.to_le_bytes());
    let put32 = |p: &mut [u8; 64], at: usize, v: u32| p[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let put64 = |p: &mut [u8; 64], at: usize, v: u64| p[at..at + 8].copy_from_slice(&v.to_le_bytes());
    use std::mem::offset_of;
    type P = hsa::hsa_kernel_dispatch_packet_t;
    put16(&mut p, offset_of!(P, header), (hsa::HSA_PACKET_TYPE_KERNEL_DISPATCH as u16) << hsa::HSA_PACKET_HEADER_TYPE);
    put16(&mut p, offset_of!(P, setup), launch.dims() << hsa::HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    put16(&mut p, offset_of!(P, workgroup_size_x), launch.block[0] as u16);
    put16(&mut p, offset_of!(P, workgroup_size_y), launch.block[1] as u16);
    put16(&mut p, offset_of!(P, workgroup_size_z), launch.block[2] as u16);
    put32(&mut p, offset_of!(P, grid_size_x), launch.grid[0] * launch.block[0]);
    put32(&mut p, offset_of!(P, grid_size_y), launch.grid[1] * launch.block[1]);
    put32(&mut p, offset_of!(P, grid_size_z), launch.grid[2] * launch.block[2]);
    put32(&mut p, offset_of!(P, private_segment_size), k.descriptor.private_segment_fixed_size);
    put32(&mut p, offset_of!(P, group_segment_size), k.descriptor.group_segment_fixed_size + launch.dynamic_lds);
    put64(&mut p, offset_of!(P, kernel_object), kernel_object);
    put64(&mut p, offset_of!(P, kernarg_address), kernargs);
    p
}

/// Check a launch shape before it reaches the hardware.
pub fn check_shape(k: &Kernel, launch: &Launch) -> Result<()> {
    let threads: u64 = launch.block.iter().map(|&b| b as u64).product();
    if launch.grid.contains(&0) || launch.block.contains(&0) {
        return Err(Error::Program(format!("kernel `{}`: empty grid or block {launch:?}", k.name)));
    }
    if threads > k.meta.max_flat_workgroup_size as u64 {
        return Err(Error::Program(format!(
            "kernel `{}`: a block of {threads} work-items exceeds its maximum of {}",
            k.name, k.meta.max_flat_workgroup_size
        )));
    }
    if launch.block.iter().any(|&b| b > 1024) || threads > MAX_WORKGROUP_SIZE {
        return Err(Error::Program(format!(
            "kernel `{}`: block {:?} exceeds the hardware's {MAX_WORKGROUP_SIZE} work-items per workgroup",
            k.name, launch.block
        )));
    }
    check_grid(k, launch)
}

/// Work-items per workgroup the compute units take (LLVM's amdgpu-flat-work-group-size ceiling).
pub const MAX_WORKGROUP_SIZE: u64 = 1024;

/// Work-items a dispatch may have, per dimension and in all: the AQL dispatch packet's
/// grid_size fields are 32-bit, and ROCr reports HSA_AGENT_INFO_GRID_MAX_SIZE as 2^32 - 1.
pub const MAX_GRID_WORK_ITEMS: u64 = u32::MAX as u64;

fn check_grid(k: &Kernel, launch: &Launch) -> Result<()> {
    let per_dim: Vec<u64> = launch.grid.iter().zip(launch.block).map(|(&g, b)| g as u64 * b as u64).collect();
    let total = per_dim.iter().try_fold(1u64, |acc, &n| acc.checked_mul(n)).unwrap_or(u64::MAX);
    if per_dim.iter().any(|&n| n > MAX_GRID_WORK_ITEMS) || total > MAX_GRID_WORK_ITEMS {
        return Err(Error::Program(format!(
            "kernel `{}`: grid {:?} x block {:?} is {total} work-items; the hardware takes at most {MAX_GRID_WORK_ITEMS} in all (and per dimension)",
            k.name, launch.grid, launch.block
        )));
    }
    Ok(())
}
