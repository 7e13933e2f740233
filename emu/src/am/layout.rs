//! The IP layout of each emulated PCI GPU: which IP blocks the chip has (hardware id, instance,
//! version) and the MMIO segment bases of their registers, as its discovery table publishes them,
//! plus VRAM size and `gc_info`. A register's absolute dword address is `base[base_idx] + offset`
//! (the autogen `Reg` tables); its BAR5 byte offset is four times that.
//!
//! Where the bases come from:
//! - **gfx1100 (Navi31-like)**: `sienna_cichlid_ip_offset.h` (autogen `ip_base::sienna_cichlid`),
//!   the Navi2x layout Navi3x keeps for these blocks; tinygrad's mock AM GPU publishes the same
//!   GC/MMHUB/OSSSYS/HDP/MP values for its gfx12 table. NBIO segment 5 (which `nbio_4_3_0` uses for
//!   `RCC_DEV0_EPF2_STRAP2` and `BIF_BX_PF1_*`) is zero in that header; we use aldebaran's
//!   `0x04040000`, as tinygrad's mock does.
//! - **gfx942 (MI300X-like, 8 XCCs, 4 AIDs)**: `aldebaran_ip_offset.h` (autogen
//!   `ip_base::aldebaran`) for NBIO, MP0/MP1, OSSSYS and HDP. The per-XCC GC stride (`0x10000`
//!   dwords) and the 16 SDMA bases (4 per AID, AID stride `0x20000` dwords) follow gem5's MI300X
//!   model, which took them from a real MI300X discovery table. MMHUB (one per AID) sits at
//!   `0x4000 + aid * 0x20000`: invented — aldebaran's `0x1A000` would overlap XCC1's segment 1 —
//!   and NBIO 7.9 segments 6–8 (segment 8 holds `RCC_DEV0_EPF2_STRAP2` there) are invented too,
//!   mirroring 4.3's segment 5. The highest register (XCC7 segment 1) ends below dword `0x80000`,
//!   so a 2 MiB BAR5 reaches every GC register directly.
//!
//! The IP versions of GC, SDMA and NBIO come from [`GpuSpec`] (the one place the emulated boards
//! are described), the rest from the kernel's IP tables for those chips.

use crate::amd::gpus::GpuSpec;
use baregpu_autogen::amd::ip_base::{aldebaran, sienna_cichlid};
use baregpu_autogen::amd::regs::Reg;
use baregpu_drivers::amd::am::discovery::{gc_info_v1_0, gc_info_v2_1, hw_id, IpVersion, DISCOVERY_TMR_OFFSET};

/// One IP block instance of the emulated chip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpEntry {
    pub hw_id: u16,
    pub instance: u8,
    pub version: IpVersion,
    /// Segment bases in dwords.
    pub bases: Vec<u32>,
    /// The die (AID) the block sits on; a 64-bit discovery table puts it in bits 32 and up of
    /// each base address, as real MI300 tables carry ASIC-specific bits there.
    pub aid: u8,
}

/// The GC table the chip publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcTable {
    V1_0(gc_info_v1_0),
    V2_1(gc_info_v2_1),
}

/// Everything about an emulated chip that its discovery table and BARs expose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub arch: &'static str,
    /// PCI device id (vendor 0x1002).
    pub device_id: u16,
    /// VRAM bytes (BAR0 size; `RCC_CONFIG_MEMSIZE` reports it in MiB).
    pub vram_size: u64,
    pub num_xcc: u32,
    /// Whether the discovery table lists 64-bit base addresses (table version 4).
    pub base_addr_64_bit: bool,
    pub ips: Vec<IpEntry>,
    /// Fused-off instances (hw_id, instance) for the harvest table.
    pub harvest: Vec<(u16, u8)>,
    pub gc_info: GcTable,
    /// Why `am:emu:ARCH` cannot run work yet, when it cannot (what `devices` says).
    pub not_ready: Option<&'static str>,
}

const MIB: u64 = 1 << 20;

/// GC stride between XCCs, and SDMA/MMHUB stride between AIDs, in dwords (gfx942).
const XCC_STRIDE: u32 = 0x1_0000;
const AID_STRIDE: u32 = 0x2_0000;
/// gfx942 SDMA segment-0 bases on AID 0 (gem5's MI300X model, bytes / 4).
const MI300_SDMA_AID0: [u32; 4] = [0x1260, 0x1860, 0x1_9400, 0x1_9800];

fn ip(hw_id: u16, instance: u8, v: (u8, u8, u8), bases: &[u32], aid: u8) -> IpEntry {
    // Trailing zero segments of the generated tables are padding, not segments.
    let n = bases.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    IpEntry { hw_id, instance, version: IpVersion::new(v.0, v.1, v.2), bases: bases[..n].to_vec(), aid }
}

impl Layout {
    /// The layout of an architecture the PCI emulator models (`gfx1100`, `gfx942`).
    pub fn for_arch(arch: &str) -> Option<Layout> {
        let spec = GpuSpec::for_arch(arch)?;
        match arch {
            "gfx1100" => Some(gfx1100(&spec)),
            "gfx942" => Some(gfx942(&spec)),
            _ => None,
        }
    }

    /// The architectures [`Layout::for_arch`] knows.
    pub const ARCHS: [&'static str; 2] = ["gfx1100", "gfx942"];

    pub fn ip(&self, hw_id: u16, instance: u8) -> Option<&IpEntry> {
        self.ips.iter().find(|e| e.hw_id == hw_id && e.instance == instance)
    }

    /// Version of instance 0 of `hw_id`.
    pub fn version(&self, hw_id: u16) -> Option<IpVersion> {
        self.ip(hw_id, 0).map(|e| e.version)
    }

    /// Segment bases of an instance (empty when the chip has no such block).
    pub fn bases(&self, hw_id: u16, instance: u8) -> &[u32] {
        self.ip(hw_id, instance).map_or(&[], |e| &e.bases)
    }

    /// The absolute MMIO dword address of `reg` in `hw_id` instance `instance`.
    pub fn reg_addr(&self, hw_id: u16, instance: u8, reg: &Reg) -> Option<u32> {
        reg.addr(self.bases(hw_id, instance))
    }

    /// Byte offset in VRAM where the discovery table sits.
    pub fn discovery_offset(&self) -> u64 {
        self.vram_size - DISCOVERY_TMR_OFFSET
    }
}

fn gfx1100(spec: &GpuSpec) -> Layout {
    let sc = sienna_cichlid::GC_BASE[0];
    let mut nbio = sienna_cichlid::NBIO_BASE[0];
    nbio[5] = aldebaran::NBIO_BASE[0][5];
    let mp = sienna_cichlid::MP0_BASE[0];
    let ips = vec![
        ip(hw_id::GC, 0, spec.gc, &sc, 0),
        // Navi3x SDMA registers live in GC's aperture: SDMA0/SDMA1 publish GC's bases.
        ip(hw_id::SDMA0, 0, spec.sdma, &sienna_cichlid::SDMA0_BASE[0], 0),
        ip(hw_id::SDMA1, 0, spec.sdma, &sienna_cichlid::SDMA1_BASE[0], 0),
        ip(hw_id::MMHUB, 0, (3, 0, 0), &sienna_cichlid::MMHUB_BASE[0], 0),
        ip(hw_id::OSSSYS, 0, (6, 0, 0), &sienna_cichlid::OSSSYS_BASE[0], 0),
        ip(hw_id::HDP, 0, (6, 0, 0), &sienna_cichlid::HDP_BASE[0], 0),
        ip(hw_id::NBIF, 0, spec.nbio, &nbio, 0),
        ip(hw_id::MP0, 0, (13, 0, 0), &mp, 0),
        ip(hw_id::MP1, 0, (13, 0, 0), &sienna_cichlid::MP1_BASE[0], 0),
    ];
    let se = spec.array_count / spec.simd_arrays_per_engine;
    let gc = gc_info_v1_0 {
        gc_num_se: se,
        // A WGP is two CUs; all of them counted as WGP0s.
        gc_num_wgp0_per_sa: spec.cu_per_simd_array / 2,
        gc_num_wgp1_per_sa: 0,
        gc_num_rb_per_se: 4,
        gc_num_gl2c: 24,
        gc_num_gprs: 1536,
        gc_wave_size: spec.wave_front_size,
        gc_max_waves_per_simd: spec.max_waves_per_simd,
        gc_max_scratch_slots_per_cu: spec.max_slots_scratch_cu,
        gc_lds_size: spec.lds_size_in_kb,
        gc_num_sc_per_se: 2,
        gc_num_sa_per_se: spec.simd_arrays_per_engine,
        gc_num_packer_per_sc: 2,
        gc_num_gl2a: 4,
        ..Default::default()
    };
    Layout {
        arch: spec.arch,
        device_id: spec.device_id as u16,
        vram_size: 512 * MIB,
        num_xcc: 1,
        base_addr_64_bit: false,
        ips,
        harvest: Vec::new(),
        gc_info: GcTable::V1_0(gc),
        not_ready: None,
    }
}

fn gfx942(spec: &GpuSpec) -> Layout {
    let al_gc = aldebaran::GC_BASE[0];
    let mut ips = Vec::new();
    for x in 0..spec.num_xcc {
        let s = x * XCC_STRIDE;
        let bases = [al_gc[0] + s, al_gc[1] + s];
        ips.push(ip(hw_id::GC, x as u8, spec.gc, &bases, (x / 2) as u8));
    }
    for aid in 0..4u32 {
        for (k, b) in MI300_SDMA_AID0.iter().enumerate() {
            let inst = (aid * 4) as usize + k;
            ips.push(ip(hw_id::SDMA0, inst as u8, spec.sdma, &[b + aid * AID_STRIDE], aid as u8));
        }
        ips.push(ip(hw_id::MMHUB, aid as u8, (1, 8, 0), &[0x4000 + aid * AID_STRIDE], aid as u8));
    }
    let mut nbio = [0u32; 9];
    nbio[..6].copy_from_slice(&aldebaran::NBIO_BASE[0]);
    nbio[8] = aldebaran::NBIO_BASE[0][5];
    ips.extend([
        ip(hw_id::OSSSYS, 0, (4, 4, 2), &aldebaran::OSSSYS_BASE[0], 0),
        ip(hw_id::HDP, 0, (4, 4, 2), &aldebaran::HDP_BASE[0], 0),
        ip(hw_id::NBIF, 0, spec.nbio, &nbio, 0),
        ip(hw_id::MP0, 0, (13, 0, 6), &aldebaran::MP0_BASE[0], 0),
        ip(hw_id::MP1, 0, (13, 0, 6), &aldebaran::MP1_BASE[0], 0),
    ]);
    let per_xcc_arrays = spec.array_count / spec.num_xcc;
    let v2 = baregpu_drivers::amd::am::discovery::gc_info_v2_0 {
        gc_num_se: per_xcc_arrays / spec.simd_arrays_per_engine,
        gc_num_cu_per_sh: spec.cu_per_simd_array,
        gc_num_sh_per_se: spec.simd_arrays_per_engine,
        gc_num_rb_per_se: 0,
        gc_num_tccs: 16,
        gc_num_gprs: 512,
        gc_wave_size: spec.wave_front_size,
        gc_max_waves_per_simd: spec.max_waves_per_simd,
        gc_max_scratch_slots_per_cu: spec.max_slots_scratch_cu,
        gc_lds_size: spec.lds_size_in_kb,
        gc_num_sc_per_se: 1,
        gc_num_packer_per_sc: 1,
        ..Default::default()
    };
    let gc = gc_info_v2_1 {
        v2_0: v2,
        gc_num_tcp_per_sh: spec.cu_per_simd_array,
        gc_tcp_size_per_cu: 32,
        gc_num_sdp_interface: 16,
        gc_num_cu_per_sqc: 2,
        gc_instruction_cache_size_per_sqc: 64,
        gc_scalar_data_cache_size_per_sqc: 16,
        gc_tcc_size: 4096,
    };
    Layout {
        arch: spec.arch,
        device_id: spec.device_id as u16,
        // Modest for an emulator (the board has 192 GiB); the boot reserves 384 MiB of it.
        vram_size: 1024 * MIB,
        num_xcc: spec.num_xcc,
        base_addr_64_bit: true,
        ips,
        harvest: Vec::new(),
        gc_info: GcTable::V2_1(gc),
        not_ready: None,
    }
}
