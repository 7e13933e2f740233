//! What differs between PM4 generations, as data: the compute register addresses, the cache
//! control bits of RELEASE_MEM and ACQUIRE_MEM, and the dispatch initiator. The packet builder
//! reads these; it holds no per-generation conditionals of its own.

use baregpu_autogen::amd::regs::{gc_11_0_0 as gc11, gc_12_0_0 as gc12, gc_9_4_3 as gc9, Reg};
use baregpu_autogen::amd::{enums, ip_base, pm4_nv as nv, pm4_soc15 as soc15};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// CDNA3/CDNA4 (gfx942, gfx950): soc15d.h packets.
    Gfx9,
    /// RDNA3 (gfx11).
    Gfx11,
    /// RDNA4 (gfx12).
    Gfx12,
}

/// Absolute dword addresses of the compute (SH window) registers a dispatch writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ComputeRegs {
    pub dispatch_initiator: u32,
    pub start_x: u32,
    pub pgm_lo: u32,
    pub dispatch_scratch_base_lo: u32,
    pub pgm_rsrc1: u32,
    pub pgm_rsrc2: u32,
    pub resource_limits: u32,
    pub tmpring_size: u32,
    pub restart_x: u32,
    pub pgm_rsrc3: u32,
    pub user_data_0: u32,
}

/// The registers that split a dispatch across the XCCs of a multi-XCC partition (gfx9.4.3+):
/// with TG_CHUNK_SIZE = c and CURRENT_LOGIC_XCC_ID = i on XCC i of n, XCC i runs the workgroups
/// whose flattened id w has (w / c) % n == i (round-robin, one chunk at a time). 0 in
/// TG_CHUNK_SIZE (what KFD's MQD sets for a PM4 queue) leaves the whole grid to every XCC that
/// executes the dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XccSplitRegs {
    pub current_logic_xcc_id: u32,
    pub tg_chunk_size: u32,
}

/// How ACQUIRE_MEM invalidates caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcquireMem {
    /// gfx9: 6 payload dwords, cache actions in CP_COHER_CNTL.
    CoherCntl { full: u32, shader: u32 },
    /// gfx10+: 7 payload dwords, cache actions in GCR_CNTL (the last dword).
    GcrCntl { full: u32, shader: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pm4Generation {
    pub family: Family,
    pub regs: ComputeRegs,
    /// RELEASE_MEM dword 1 cache bits for an end-of-pipe fence that writes back and invalidates
    /// (the kernel's `ring_emit_fence`).
    pub release_cache_flush: u32,
    pub acquire_mem: AcquireMem,
    /// DISPATCH_INITIATOR bit that runs wave32 (gfx10+), 0 where there is none.
    pub dispatch_wave32: u32,
    /// VGT event types used by the builder.
    pub cs_partial_flush: u32,
    pub cache_flush_and_inv_ts: u32,
    pub bottom_of_pipe_ts: u32,
    /// Where the generation can split a dispatch across XCCs (gfx9 only).
    pub xcc_split: Option<XccSplitRegs>,
}

const fn abs(reg: Reg, bases: &[[u32; 6]]) -> u32 {
    bases[0][reg.base_idx as usize] + reg.offset
}

macro_rules! compute_regs {
    ($m:ident, $bases:expr) => {
        ComputeRegs {
            dispatch_initiator: abs($m::regCOMPUTE_DISPATCH_INITIATOR, $bases),
            start_x: abs($m::regCOMPUTE_START_X, $bases),
            pgm_lo: abs($m::regCOMPUTE_PGM_LO, $bases),
            dispatch_scratch_base_lo: abs($m::regCOMPUTE_DISPATCH_SCRATCH_BASE_LO, $bases),
            pgm_rsrc1: abs($m::regCOMPUTE_PGM_RSRC1, $bases),
            pgm_rsrc2: abs($m::regCOMPUTE_PGM_RSRC2, $bases),
            resource_limits: abs($m::regCOMPUTE_RESOURCE_LIMITS, $bases),
            tmpring_size: abs($m::regCOMPUTE_TMPRING_SIZE, $bases),
            restart_x: abs($m::regCOMPUTE_RESTART_X, $bases),
            pgm_rsrc3: abs($m::regCOMPUTE_PGM_RSRC3, $bases),
            user_data_0: abs($m::regCOMPUTE_USER_DATA_0, $bases),
        }
    };
}

/// gfx10+ RELEASE_MEM cache bits: GL2 and GLM write-back/invalidate in sequence, cache policy 3
/// (bypass), as gfx_v11_0/gfx_v12_0_ring_emit_fence.
const NV_RELEASE_FLUSH: u32 = nv::PACKET3_RELEASE_MEM_GCR_SEQ
    | nv::PACKET3_RELEASE_MEM_GCR_GL2_WB
    | nv::PACKET3_RELEASE_MEM_GCR_GLM_INV
    | nv::PACKET3_RELEASE_MEM_GCR_GLM_WB
    | nv::PACKET3_RELEASE_MEM_CACHE_POLICY(3);

/// gfx10+ GCR_CNTL: everything (the kernel's emit_mem_sync), and the shader caches a dispatch
/// needs fresh (scalar K$, vector L0 and L1; not I$ nor L2).
const NV_GCR_FULL: u32 = nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL2_INV(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL2_WB(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_INV(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_WB(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL1_INV(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLV_INV(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLK_INV(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLI_INV(1);
const NV_GCR_SHADER: u32 = nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_INV(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_WB(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL1_INV(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLV_INV(1)
    | nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLK_INV(1);

/// COMPUTE_CURRENT_LOGIC_XCC_ID, gc 9.4.3 dword 0xe25: absent from the published register
/// headers. Its place is where the v9 MQD keeps `compute_current_logic_xcc_id` (word 39, two
/// before `compute_tg_chunk_size`, whose register COMPUTE_TG_CHUNK_SIZE is 0xe27), and tinygrad's
/// ops_amd.py defines it at 0xe25.
const GFX9_CURRENT_LOGIC_XCC_ID: u32 = 0xe25;

/// DISPATCH_INITIATOR.CS_W32_EN (bit 15) on gfx10+.
const CS_W32_EN: u32 = 1 << 15;

pub const GFX9: Pm4Generation = Pm4Generation {
    family: Family::Gfx9,
    regs: compute_regs!(gc9, ip_base::vega10::GC_BASE),
    // gfx_v9_4_3_ring_emit_fence without TC_WB_ONLY.
    release_cache_flush: soc15::EOP_TCL1_ACTION_EN
        | soc15::EOP_TC_ACTION_EN
        | soc15::EOP_TC_WB_ACTION_EN
        | soc15::EOP_TC_MD_ACTION_EN,
    acquire_mem: AcquireMem::CoherCntl {
        // gfx_v9_4_3_emit_mem_sync.
        full: soc15::PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_SH_ICACHE_ACTION_ENA(1)
            | soc15::PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_SH_KCACHE_ACTION_ENA(1)
            | soc15::PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_TC_ACTION_ENA(1)
            | soc15::PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_TCL1_ACTION_ENA(1)
            | soc15::PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_TC_WB_ACTION_ENA(1),
        shader: soc15::PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_SH_KCACHE_ACTION_ENA(1)
            | soc15::PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_TCL1_ACTION_ENA(1),
    },
    dispatch_wave32: 0,
    cs_partial_flush: enums::vega10::VGT_EVENT_TYPE::CS_PARTIAL_FLUSH,
    cache_flush_and_inv_ts: enums::vega10::VGT_EVENT_TYPE::CACHE_FLUSH_AND_INV_TS_EVENT,
    bottom_of_pipe_ts: enums::vega10::VGT_EVENT_TYPE::BOTTOM_OF_PIPE_TS,
    xcc_split: Some(XccSplitRegs {
        current_logic_xcc_id: ip_base::vega10::GC_BASE[0][0] + GFX9_CURRENT_LOGIC_XCC_ID,
        tg_chunk_size: abs(gc9::regCOMPUTE_TG_CHUNK_SIZE, ip_base::vega10::GC_BASE),
    }),
};

pub const GFX11: Pm4Generation = Pm4Generation {
    family: Family::Gfx11,
    regs: compute_regs!(gc11, ip_base::navi10::GC_BASE),
    release_cache_flush: NV_RELEASE_FLUSH,
    acquire_mem: AcquireMem::GcrCntl { full: NV_GCR_FULL, shader: NV_GCR_SHADER },
    dispatch_wave32: CS_W32_EN,
    cs_partial_flush: enums::soc21::VGT_EVENT_TYPE::CS_PARTIAL_FLUSH,
    cache_flush_and_inv_ts: enums::soc21::VGT_EVENT_TYPE::CACHE_FLUSH_AND_INV_TS_EVENT,
    bottom_of_pipe_ts: enums::soc21::VGT_EVENT_TYPE::BOTTOM_OF_PIPE_TS,
    xcc_split: None,
};

pub const GFX12: Pm4Generation = Pm4Generation {
    family: Family::Gfx12,
    regs: compute_regs!(gc12, ip_base::navi10::GC_BASE),
    release_cache_flush: NV_RELEASE_FLUSH,
    acquire_mem: AcquireMem::GcrCntl { full: NV_GCR_FULL, shader: NV_GCR_SHADER },
    dispatch_wave32: CS_W32_EN,
    cs_partial_flush: enums::soc24::VGT_EVENT_TYPE::CS_PARTIAL_FLUSH,
    cache_flush_and_inv_ts: enums::soc24::VGT_EVENT_TYPE::CACHE_FLUSH_AND_INV_TS_EVENT,
    bottom_of_pipe_ts: enums::soc24::VGT_EVENT_TYPE::BOTTOM_OF_PIPE_TS,
    xcc_split: None,
};

impl Pm4Generation {
    pub fn for_family(f: Family) -> &'static Pm4Generation {
        match f {
            Family::Gfx9 => &GFX9,
            Family::Gfx11 => &GFX11,
            Family::Gfx12 => &GFX12,
        }
    }

    /// The generation of an LLVM processor name (`gfx1100`), if we drive it.
    pub fn for_arch(arch: &str) -> Option<&'static Pm4Generation> {
        match arch {
            "gfx942" | "gfx950" => Some(&GFX9),
            a if a.starts_with("gfx11") => Some(&GFX11),
            a if a.starts_with("gfx12") => Some(&GFX12),
            _ => None,
        }
    }
}
