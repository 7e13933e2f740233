//! The 64-byte kernel descriptor (`llvm::amdhsa::kernel_descriptor_t`) and the per-architecture
//! encoding of COMPUTE_PGM_RSRC1/2/3 and kernel_code_properties from a kernel's resources.
//!
//! Formulas (all checked against clang-22/llvm-mc-22 output for gfx1100, gfx1201, gfx942, gfx950):
//! - RSRC1.GRANULATED_WORKITEM_VGPR_COUNT = ceil(max(vgprs, 1) / granule) - 1, granule 8 on CDNA
//!   (vgprs = the unified count: accum_offset + AGPRs when there are AGPRs) and on gfx11+ wave32,
//!   4 on gfx11+ wave64;
//! - RSRC1.GRANULATED_WAVEFRONT_SGPR_COUNT = ceil(max(sgprs, 1) / 8) - 1 on CDNA (sgprs including
//!   VCC/FLAT_SCRATCH/XNACK_MASK), 0 on gfx10+ where the field is reserved;
//! - RSRC3 on CDNA: ACCUM_OFFSET = accum_offset / 4 - 1, TG_SPLIT; on gfx11/gfx12:
//!   INST_PREF_SIZE = ceil(code bytes / 128) clamped to the field (6 bits gfx11, 8 bits gfx12).

use super::{arch, Arch, Kernel, WaveSize, KERNEL_DESCRIPTOR_SIZE};

/// kernel_code_properties bits.
pub mod kcp {
    pub const ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER: u16 = 1 << 0;
    pub const ENABLE_SGPR_DISPATCH_PTR: u16 = 1 << 1;
    pub const ENABLE_SGPR_QUEUE_PTR: u16 = 1 << 2;
    pub const ENABLE_SGPR_KERNARG_SEGMENT_PTR: u16 = 1 << 3;
    pub const ENABLE_SGPR_DISPATCH_ID: u16 = 1 << 4;
    pub const ENABLE_SGPR_FLAT_SCRATCH_INIT: u16 = 1 << 5;
    pub const ENABLE_SGPR_PRIVATE_SEGMENT_SIZE: u16 = 1 << 6;
    pub const ENABLE_WAVEFRONT_SIZE32: u16 = 1 << 10;
    pub const USES_DYNAMIC_STACK: u16 = 1 << 11;
}

/// COMPUTE_PGM_RSRC1 fields.
pub mod rsrc1 {
    pub const GRANULATED_WORKITEM_VGPR_COUNT_SHIFT: u32 = 0;
    pub const GRANULATED_WAVEFRONT_SGPR_COUNT_SHIFT: u32 = 6;
    pub const FLOAT_MODE_SHIFT: u32 = 12;
    /// gfx9..gfx11.
    pub const ENABLE_DX10_CLAMP: u32 = 1 << 21;
    /// gfx9..gfx11.
    pub const ENABLE_IEEE_MODE: u32 = 1 << 23;
    pub const FP16_OVFL: u32 = 1 << 26;
    /// gfx10+.
    pub const WGP_MODE: u32 = 1 << 29;
    /// gfx10+.
    pub const MEM_ORDERED: u32 = 1 << 30;
    /// gfx10+.
    pub const FWD_PROGRESS: u32 = 1 << 31;
}

/// COMPUTE_PGM_RSRC2 fields.
pub mod rsrc2 {
    pub const ENABLE_PRIVATE_SEGMENT: u32 = 1 << 0;
    pub const USER_SGPR_COUNT_SHIFT: u32 = 1;
    pub const ENABLE_SGPR_WORKGROUP_ID_X: u32 = 1 << 7;
    pub const ENABLE_SGPR_WORKGROUP_INFO: u32 = 1 << 10;
    pub const ENABLE_VGPR_WORKITEM_ID_SHIFT: u32 = 11;
}

/// COMPUTE_PGM_RSRC3 fields.
pub mod rsrc3 {
    /// CDNA (gfx90a+): bits 5:0.
    pub const ACCUM_OFFSET_SHIFT: u32 = 0;
    /// CDNA (gfx90a+).
    pub const TG_SPLIT: u32 = 1 << 16;
    /// gfx11: bits 9:4, gfx12: bits 11:4.
    pub const INST_PREF_SIZE_SHIFT: u32 = 4;
}

/// A kernel descriptor, field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelDescriptor {
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub kernarg_size: u32,
    /// Entry address minus descriptor address.
    pub kernel_code_entry_byte_offset: i64,
    pub compute_pgm_rsrc3: u32,
    pub compute_pgm_rsrc1: u32,
    pub compute_pgm_rsrc2: u32,
    pub kernel_code_properties: u16,
    pub kernarg_preload: u16,
}

impl KernelDescriptor {
    /// Computes the descriptor of a validated kernel whose entry point lies
    /// `kernel_code_entry_byte_offset` bytes from the descriptor.
    pub fn for_kernel(arch: Arch, kernel: &Kernel, kernel_code_entry_byte_offset: i64) -> KernelDescriptor {
        let r = &kernel.resources;
        let cdna = arch::is_cdna(arch);
        let wave64 = r.wave_size == WaveSize::Wave64;

        let vgpr_granule = arch::vgpr_encoding_granule(arch, wave64);
        let vgpr_blocks = r.total_vgprs(arch).max(1).div_ceil(vgpr_granule) - 1;
        let sgpr_blocks = match arch::sgpr_encoding_granule(arch) {
            Some(g) => r.sgpr_count.max(1).div_ceil(g) - 1,
            None => 0,
        };
        let mut rsrc1 = vgpr_blocks << rsrc1::GRANULATED_WORKITEM_VGPR_COUNT_SHIFT
            | sgpr_blocks << rsrc1::GRANULATED_WAVEFRONT_SGPR_COUNT_SHIFT
            | r.float_mode.bits() << rsrc1::FLOAT_MODE_SHIFT;
        for (on, bit) in [
            (r.dx10_clamp, rsrc1::ENABLE_DX10_CLAMP),
            (r.ieee_mode, rsrc1::ENABLE_IEEE_MODE),
            (r.fp16_overflow, rsrc1::FP16_OVFL),
            (r.wgp_mode, rsrc1::WGP_MODE),
            (r.mem_ordered, rsrc1::MEM_ORDERED),
            (r.fwd_progress, rsrc1::FWD_PROGRESS),
        ] {
            if on {
                rsrc1 |= bit;
            }
        }

        let mut rsrc2 = kernel.user_sgpr_count(arch) << rsrc2::USER_SGPR_COUNT_SHIFT
            | (r.workitem_id_dims.clamp(1, 3) - 1) << rsrc2::ENABLE_VGPR_WORKITEM_ID_SHIFT;
        if r.private_bytes > 0 || r.uses_dynamic_stack {
            rsrc2 |= rsrc2::ENABLE_PRIVATE_SEGMENT;
        }
        for (dim, &on) in r.workgroup_id.iter().enumerate() {
            if on {
                rsrc2 |= rsrc2::ENABLE_SGPR_WORKGROUP_ID_X << dim;
            }
        }
        if r.workgroup_info {
            rsrc2 |= rsrc2::ENABLE_SGPR_WORKGROUP_INFO;
        }

        let rsrc3 = if cdna {
            let mut v = (r.accum_offset() / 4 - 1) << rsrc3::ACCUM_OFFSET_SHIFT;
            if r.tg_split {
                v |= rsrc3::TG_SPLIT;
            }
            v
        } else {
            let max = arch::inst_pref_size_max(arch).unwrap_or(0);
            let lines = r.inst_pref_size.unwrap_or_else(|| {
                u32::try_from(kernel.code.len().div_ceil(arch::INST_PREF_LINE as usize)).unwrap_or(u32::MAX)
            });
            lines.min(max) << rsrc3::INST_PREF_SIZE_SHIFT
        };

        let u = &r.user_sgprs;
        let mut props = 0u16;
        for (on, bit) in [
            (u.private_segment_buffer, kcp::ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER),
            (u.dispatch_ptr, kcp::ENABLE_SGPR_DISPATCH_PTR),
            (u.queue_ptr, kcp::ENABLE_SGPR_QUEUE_PTR),
            (u.kernarg_segment_ptr, kcp::ENABLE_SGPR_KERNARG_SEGMENT_PTR),
            (u.dispatch_id, kcp::ENABLE_SGPR_DISPATCH_ID),
            (u.flat_scratch_init, kcp::ENABLE_SGPR_FLAT_SCRATCH_INIT),
            (u.private_segment_size, kcp::ENABLE_SGPR_PRIVATE_SEGMENT_SIZE),
            (!cdna && !wave64, kcp::ENABLE_WAVEFRONT_SIZE32),
            (r.uses_dynamic_stack, kcp::USES_DYNAMIC_STACK),
        ] {
            if on {
                props |= bit;
            }
        }

        KernelDescriptor {
            group_segment_fixed_size: r.lds_bytes,
            private_segment_fixed_size: r.private_bytes,
            kernarg_size: kernel.kernarg_segment_size,
            kernel_code_entry_byte_offset,
            compute_pgm_rsrc3: rsrc3,
            compute_pgm_rsrc1: rsrc1,
            compute_pgm_rsrc2: rsrc2,
            kernel_code_properties: props,
            kernarg_preload: 0,
        }
    }

    /// The 64 little-endian bytes; reserved fields are zero.
    pub fn to_bytes(&self) -> [u8; KERNEL_DESCRIPTOR_SIZE] {
        let mut b = [0u8; KERNEL_DESCRIPTOR_SIZE];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[16..24].copy_from_slice(&self.kernel_code_entry_byte_offset.to_le_bytes());
        b[44..48].copy_from_slice(&self.compute_pgm_rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.compute_pgm_rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.compute_pgm_rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b
    }

    /// Parses a descriptor; `None` if fewer than 64 bytes are given.
    pub fn from_bytes(b: &[u8]) -> Option<KernelDescriptor> {
        let b = b.get(..KERNEL_DESCRIPTOR_SIZE)?;
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let mut eo = [0u8; 8];
        eo.copy_from_slice(&b[16..24]);
        Some(KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            kernel_code_entry_byte_offset: i64::from_le_bytes(eo),
            compute_pgm_rsrc3: u32_at(44),
            compute_pgm_rsrc1: u32_at(48),
            compute_pgm_rsrc2: u32_at(52),
            kernel_code_properties: u16_at(56),
            kernarg_preload: u16_at(58),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codeobj::{KernelResources, UserSgprs};

    fn kernel(arch: Arch, f: impl FnOnce(&mut KernelResources)) -> Kernel {
        let mut k = Kernel::new(arch, "k", vec![0; 128]);
        k.kernarg_segment_size = 20;
        f(&mut k.resources);
        k
    }

    // Expected words are clang-22 -O2 -mcode-object-version=5 output (tests/fixtures/codeobj).
    #[test]
    fn gfx1100_add1_wave32_matches_clang() {
        let k = kernel(Arch::Gfx1100, |r| {
            r.vgpr_count = 4;
            r.sgpr_count = 18;
        });
        let kd = KernelDescriptor::for_kernel(Arch::Gfx1100, &k, 0x1000);
        assert_eq!(kd.compute_pgm_rsrc1, 0xe0af_0000);
        assert_eq!(kd.compute_pgm_rsrc2, 0x0000_009e, "user SGPRs padded to 15 + tgid x");
        assert_eq!(kd.compute_pgm_rsrc3, 0x0000_0010);
        assert_eq!(kd.kernel_code_properties, 0x0408);
    }

    #[test]
    fn gfx942_agprs_match_clang() {
        // `acc_wide`: v130 and a200 clobbered.
        let k = kernel(Arch::Gfx942, |r| {
            r.vgpr_count = 131;
            r.agpr_count = 201;
            r.sgpr_count = 8;
        });
        let kd = KernelDescriptor::for_kernel(Arch::Gfx942, &k, 0);
        assert_eq!(kd.compute_pgm_rsrc1, 0x00af_0029);
        assert_eq!(kd.compute_pgm_rsrc2, 0x0000_0084);
        assert_eq!(kd.compute_pgm_rsrc3, 0x0000_0020);
        assert_eq!(kd.kernel_code_properties, 0x0008);
    }

    #[test]
    fn gfx1201_has_no_ieee_and_counts_lines() {
        let k = kernel(Arch::Gfx1201, |r| {
            r.vgpr_count = 41;
            r.workgroup_id = [true; 3];
            r.workitem_id_dims = 3;
            r.user_sgprs = UserSgprs { kernarg_segment_ptr: true, ..UserSgprs::default() };
        });
        let kd = KernelDescriptor::for_kernel(Arch::Gfx1201, &k, 0);
        assert_eq!(kd.compute_pgm_rsrc1, 0xe00f_0005);
        assert_eq!(kd.compute_pgm_rsrc2, 0x0000_1384);
        assert_eq!(kd.compute_pgm_rsrc3, 0x0000_0010);
    }

    #[test]
    fn bytes_round_trip() {
        let kd = KernelDescriptor {
            group_segment_fixed_size: 4800,
            private_segment_fixed_size: 284,
            kernarg_size: 264,
            kernel_code_entry_byte_offset: -0x1234,
            compute_pgm_rsrc3: 3,
            compute_pgm_rsrc1: 0xe0af_0001,
            compute_pgm_rsrc2: 0x9f,
            kernel_code_properties: 0x40e,
            kernarg_preload: 0,
        };
        let b = kd.to_bytes();
        assert_eq!(&b[16..24], &(-0x1234i64).to_le_bytes());
        assert!(b[12..16].iter().chain(&b[24..44]).chain(&b[60..]).all(|&x| x == 0));
        assert_eq!(KernelDescriptor::from_bytes(&b), Some(kd));
        assert_eq!(KernelDescriptor::from_bytes(&b[..63]), None);
    }
}
