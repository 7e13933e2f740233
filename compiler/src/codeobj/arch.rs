//! Per-architecture facts the code-object writer needs: ELF `e_flags` machine values, target-ID
//! features, register and LDS limits, register-allocation granules and the code padding.
//!
//! Every value here was checked against LLVM 22 (clang-22 / llvm-mc-22 / ld.lld-22 output); the
//! tests in `compiler/tests/codeobj.rs` compare against committed clang-built fixtures.

use crate::isa::Arch;

/// `e_flags` EF_AMDGPU_MACH values (bits 7:0).
pub(crate) const fn mach(arch: Arch) -> u32 {
    match arch {
        Arch::Gfx1100 => 0x041,
        Arch::Gfx1201 => 0x04e,
        Arch::Gfx942 => 0x04c,
        Arch::Gfx950 => 0x04f,
    }
}

/// The CDNA (gfx9, gfx90a+) family: wave64 only, unified VGPR/AGPR file with `accum_offset`,
/// SGPR granule encoded in RSRC1, `tg_split`.
pub(crate) const fn is_cdna(arch: Arch) -> bool {
    matches!(arch, Arch::Gfx942 | Arch::Gfx950)
}

/// gfx12+: RSRC1 bits 21/23 are no longer DX10_CLAMP / IEEE_MODE, RSRC3 INST_PREF_SIZE is 8 bits.
pub(crate) const fn is_gfx12(arch: Arch) -> bool {
    matches!(arch, Arch::Gfx1201)
}

/// gfx11 (gfx1100..gfx1103) needs at least 16 user + system SGPRs initialised in wave32
/// (LLVM's FeatureUserSGPRInit16Bug); LLVM pads the user SGPR count for it.
pub(crate) const fn has_user_sgpr_init16_bug(arch: Arch) -> bool {
    matches!(arch, Arch::Gfx1100)
}

/// XNACK and SRAMECC are target-ID features (`:xnack±`, `:sramecc±`) only on the CDNA targets.
pub(crate) const fn supports_xnack(arch: Arch) -> bool {
    is_cdna(arch)
}

pub(crate) const fn supports_sramecc(arch: Arch) -> bool {
    is_cdna(arch)
}

/// Addressable architectural VGPRs per wave (v0..v255).
pub(crate) const MAX_ARCH_VGPRS: u32 = 256;
/// AccVGPRs per wave on gfx90a+ (a0..a255).
pub(crate) const MAX_AGPRS: u32 = 256;
/// Unified VGPR file (arch VGPRs rounded to 4 plus AGPRs) per wave on gfx90a+.
pub(crate) const MAX_UNIFIED_VGPRS: u32 = 512;
/// SGPRs including VCC / FLAT_SCRATCH / XNACK_MASK, as counted in `.sgpr_count`:
/// gfx9 has 102 addressable + 6 extra, gfx10+ has 106 addressable + VCC.
pub(crate) const MAX_SGPRS: u32 = 108;
/// The hardware initialises at most 16 user SGPRs (COMPUTE_USER_DATA_0..15).
pub(crate) const MAX_USER_SGPRS: u32 = 16;

/// Statically allocated LDS per workgroup, in bytes (LLVM's "local memory limit").
pub(crate) const fn max_lds_bytes(arch: Arch) -> u32 {
    match arch {
        Arch::Gfx950 => 160 * 1024,
        Arch::Gfx942 | Arch::Gfx1100 | Arch::Gfx1201 => 64 * 1024,
    }
}

/// Private (scratch) bytes per work-item the hardware can give one wave's lanes: the largest
/// COMPUTE_TMPRING_SIZE.WAVESIZE times its unit (1 KiB on gfx9, 256 B on gfx10+), shared by the
/// wave's lanes; LLVM's stack frame limit (262,136 on gfx1100 wave32, 2,097,144 on gfx1201 wave32,
/// 131,056 on gfx942).
pub(crate) const fn max_private_bytes(arch: Arch, wave64: bool) -> u32 {
    use baregpu_autogen::amd::regs::{gc_11_0_0 as gc11, gc_12_0_0 as gc12, gc_9_4_3 as gc9};
    let (field, unit) = match arch {
        Arch::Gfx942 | Arch::Gfx950 => (gc9::COMPUTE_TMPRING_SIZE::WAVESIZE, 1024),
        Arch::Gfx1100 => (gc11::COMPUTE_TMPRING_SIZE::WAVESIZE, 256),
        Arch::Gfx1201 => (gc12::COMPUTE_TMPRING_SIZE::WAVESIZE, 256),
    };
    let per_wave = (field.mask >> field.shift) as u64 * unit;
    (per_wave / if wave64 { 64 } else { 32 }) as u32
}

/// SGPRs LLVM adds to a kernel's highest used SGPR in `.sgpr_count`: VCC (2) on gfx10+ when used;
/// on gfx9 with architected flat scratch (gfx942, gfx950) always 6 (VCC, FLAT_SCRATCH, XNACK_MASK).
pub(crate) const fn extra_sgprs(arch: Arch, vcc_used: bool) -> u32 {
    if is_cdna(arch) {
        6
    } else if vcc_used {
        2
    } else {
        0
    }
}

/// VGPR encoding granule of COMPUTE_PGM_RSRC1.GRANULATED_WORKITEM_VGPR_COUNT.
pub(crate) const fn vgpr_encoding_granule(arch: Arch, wave64: bool) -> u32 {
    if is_cdna(arch) || !wave64 {
        8
    } else {
        4
    }
}

/// SGPR encoding granule of COMPUTE_PGM_RSRC1.GRANULATED_WAVEFRONT_SGPR_COUNT, `None` where the
/// field is reserved (gfx10+: written as 0).
pub(crate) const fn sgpr_encoding_granule(arch: Arch) -> Option<u32> {
    if is_cdna(arch) {
        Some(8)
    } else {
        None
    }
}

/// Width of COMPUTE_PGM_RSRC3.INST_PREF_SIZE (in 128-byte lines), `None` before gfx11.
pub(crate) const fn inst_pref_size_max(arch: Arch) -> Option<u32> {
    match arch {
        Arch::Gfx1100 => Some(0x3f),
        Arch::Gfx1201 => Some(0xff),
        Arch::Gfx942 | Arch::Gfx950 => None,
    }
}

/// Bytes per INST_PREF_SIZE unit (the gfx11+ instruction cache line).
pub(crate) const INST_PREF_LINE: u32 = 128;

/// How LLVM pads the end of `.text` (AMDGPUTargetStreamer::EmitCodeEnd): align to the instruction
/// cache line with `pad_word`, then `fill_lines` more cache lines, so that instruction prefetch
/// never runs past the code. Returns (cache line bytes, fill lines, pad word).
pub(crate) const fn code_end_padding(arch: Arch) -> (u32, u32, u32) {
    if is_cdna(arch) {
        (64, 16, S_NOP_0)
    } else {
        (128, 3, S_CODE_END)
    }
}

/// `s_nop 0`, the same encoding on all four targets; fills the gaps between kernels.
pub(crate) const S_NOP_0: u32 = 0xbf80_0000;
/// `s_code_end` on gfx11 and gfx12.
pub(crate) const S_CODE_END: u32 = 0xbf9f_0000;
