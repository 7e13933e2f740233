//! IP discovery: the table the VBIOS leaves at the top of VRAM (`vram_size − 64 KiB`, 10 KiB
//! long) that names every IP block of the chip with its version and the MMIO segment bases of
//! its registers, plus the harvest table (blocks fused off) and `gc_info` (shader engine counts).
//!
//! Layouts: `drivers/gpu/drm/amd/include/discovery.h`; parsing rules (checksums, die ids, 32/64-bit
//! base addresses): `amdgpu_discovery.c` (`amdgpu_discovery_init`, `amdgpu_discovery_reg_base_init`),
//! linux-source-6.12 6.12.117. Hardware ids: `soc15_hw_ip.h`. The emulator writes its table with
//! these same structs (`emu::am::tables`).

#![allow(non_camel_case_types)]

use super::raw::{self, layout, raw_structs};
use crate::{Error, Result};
use std::fmt;

/// Where the table sits: `vram_size − DISCOVERY_TMR_OFFSET` (`amdgpu_discovery.h`).
pub const DISCOVERY_TMR_OFFSET: u64 = 64 << 10;
/// How many bytes the kernel reads there (`DISCOVERY_TMR_SIZE`).
pub const DISCOVERY_TMR_SIZE: usize = 10 << 10;

/// Hardware ids of IP blocks (`soc15_hw_ip.h`): the `hw_id` of a discovery entry.
pub mod hw_id {
    pub const MP1: u16 = 1;
    pub const MP2: u16 = 2;
    pub const THM: u16 = 3;
    pub const SMUIO: u16 = 4;
    pub const FUSE: u16 = 5;
    pub const CLKA: u16 = 6;
    pub const PWR: u16 = 10;
    pub const GC: u16 = 11;
    /// `UVD_HWID`, which `VCN_HWID` aliases.
    pub const VCN: u16 = 12;
    pub const ATHUB: u16 = 35;
    pub const MMHUB: u16 = 34;
    pub const OSSSYS: u16 = 40;
    pub const HDP: u16 = 41;
    pub const SDMA0: u16 = 42;
    pub const SDMA1: u16 = 43;
    pub const DF: u16 = 46;
    pub const SDMA2: u16 = 68;
    pub const SDMA3: u16 = 69;
    pub const PCIE: u16 = 70;
    pub const LSDMA: u16 = 91;
    /// `NBIF_HWID`: the kernel's `NBIO_HWIP` maps to it (`hw_id_map`).
    pub const NBIF: u16 = 108;
    pub const UMC: u16 = 150;
    pub const XGMI: u16 = 200;
    pub const DMU: u16 = 271;
    pub const MP0: u16 = 255;

    /// The name `soc15_hw_ip.h` gives an id, for errors and traces.
    pub fn name(id: u16) -> Option<&'static str> {
        Some(match id {
            MP1 => "MP1",
            MP2 => "MP2",
            THM => "THM",
            SMUIO => "SMUIO",
            FUSE => "FUSE",
            CLKA => "CLKA",
            PWR => "PWR",
            GC => "GC",
            VCN => "VCN",
            ATHUB => "ATHUB",
            MMHUB => "MMHUB",
            OSSSYS => "OSSSYS",
            HDP => "HDP",
            SDMA0 => "SDMA0",
            SDMA1 => "SDMA1",
            DF => "DF",
            SDMA2 => "SDMA2",
            SDMA3 => "SDMA3",
            PCIE => "PCIE",
            LSDMA => "LSDMA",
            NBIF => "NBIF",
            UMC => "UMC",
            XGMI => "XGMI",
            DMU => "DMU",
            MP0 => "MP0",
            _ => return None,
        })
    }
}

/// `BINARY_SIGNATURE`.
pub const BINARY_SIGNATURE: u32 = 0x2821_1407;
/// `DISCOVERY_TABLE_SIGNATURE` ("IPDS").
pub const DISCOVERY_TABLE_SIGNATURE: u32 = 0x5344_5049;
/// `GC_TABLE_ID` ("GC").
pub const GC_TABLE_ID: u32 = 0x4347;
/// `HARVEST_TABLE_SIGNATURE` ("HARV").
pub const HARVEST_TABLE_SIGNATURE: u32 = 0x5652_4148;

/// Indices of `binary_header.table_list` (`enum table`).
pub const TABLE_IP_DISCOVERY: usize = 0;
pub const TABLE_GC: usize = 1;
pub const TABLE_HARVEST_INFO: usize = 2;
/// `TOTAL_TABLES`.
pub const TOTAL_TABLES: usize = 6;
/// Entries of `ip_discovery_header.die_info`.
pub const MAX_DIES: usize = 16;
/// Entries of `harvest_table.list`.
pub const HARVEST_ENTRIES: usize = 32;

/// `table_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct table_info {
    /// Byte offset from the start of the binary; 0 when the table is absent.
    pub offset: u16,
    /// Byte sum of the table.
    pub checksum: u16,
    pub size: u16,
    pub padding: u16,
}
layout!(table_info, 8, { offset: 0, checksum: 2, size: 4, padding: 6 });

/// `binary_header`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct binary_header {
    pub binary_signature: u32,
    pub version_major: u16,
    pub version_minor: u16,
    /// Byte sum of the binary after this field, up to `binary_size`.
    pub binary_checksum: u16,
    pub binary_size: u16,
    pub table_list: [table_info; TOTAL_TABLES],
}
layout!(binary_header, 60, {
    binary_signature: 0, version_major: 4, version_minor: 6, binary_checksum: 8, binary_size: 10, table_list: 12
});

/// First byte the binary checksum covers: just after `binary_checksum`.
pub const BINARY_CHECKSUM_START: usize = std::mem::offset_of!(binary_header, binary_checksum) + 2;

/// `die_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct die_info {
    pub die_id: u16,
    /// Byte offset of the die's `die_header` from the start of the binary.
    pub die_offset: u16,
}
layout!(die_info, 4, { die_id: 0, die_offset: 2 });

/// `ip_discovery_header`. `flags` bit 0 is `base_addr_64_bit` (version 4 only; padding before).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ip_discovery_header {
    pub signature: u32,
    pub version: u16,
    pub size: u16,
    pub id: u32,
    pub num_dies: u16,
    pub die_info: [die_info; MAX_DIES],
    pub flags: u8,
    pub reserved2: u8,
}
layout!(ip_discovery_header, 80, {
    signature: 0, version: 4, size: 6, id: 8, num_dies: 12, die_info: 14, flags: 78, reserved2: 79
});

/// `ip_discovery_header.flags` bit: base addresses are 64-bit.
pub const BASE_ADDR_64_BIT: u8 = 1;

/// `die_header`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct die_header {
    pub die_id: u16,
    pub num_ips: u16,
}
layout!(die_header, 4, { die_id: 0, num_ips: 2 });

/// `ip_v4` (and `ip`/`ip_v3`, which share its 8 bytes) without the base addresses that follow
/// it. `sub_revision` is bits 3:0 of `variant_sub_revision`, `variant` bits 7:4 (version ≥ 3;
/// before that the low nibble is the harvest bits).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ip_v4 {
    pub hw_id: u16,
    pub instance_number: u8,
    pub num_base_address: u8,
    pub major: u8,
    pub minor: u8,
    pub revision: u8,
    pub variant_sub_revision: u8,
}
layout!(ip_v4, 8, {
    hw_id: 0, instance_number: 2, num_base_address: 3, major: 4, minor: 5, revision: 6, variant_sub_revision: 7
});

/// `gpu_info_header`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct gpu_info_header {
    pub table_id: u32,
    pub version_major: u16,
    pub version_minor: u16,
    /// Bytes of header and data.
    pub size: u32,
}
layout!(gpu_info_header, 12, { table_id: 0, version_major: 4, version_minor: 6, size: 8 });

/// `gc_info_v1_0` (RDNA: work-group processors per shader array). v1.1–v1.3 append fields.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct gc_info_v1_0 {
    pub header: gpu_info_header,
    pub gc_num_se: u32,
    pub gc_num_wgp0_per_sa: u32,
    pub gc_num_wgp1_per_sa: u32,
    pub gc_num_rb_per_se: u32,
    pub gc_num_gl2c: u32,
    pub gc_num_gprs: u32,
    pub gc_num_max_gs_thds: u32,
    pub gc_gs_table_depth: u32,
    pub gc_gsprim_buff_depth: u32,
    pub gc_parameter_cache_depth: u32,
    pub gc_double_offchip_lds_buffer: u32,
    pub gc_wave_size: u32,
    pub gc_max_waves_per_simd: u32,
    pub gc_max_scratch_slots_per_cu: u32,
    pub gc_lds_size: u32,
    pub gc_num_sc_per_se: u32,
    pub gc_num_sa_per_se: u32,
    pub gc_num_packer_per_sc: u32,
    pub gc_num_gl2a: u32,
}
layout!(gc_info_v1_0, 88, { header: 0, gc_num_se: 12, gc_wave_size: 56, gc_lds_size: 68, gc_num_gl2a: 84 });

/// `gc_info_v2_0` (CDNA/GFX9: compute units per shader array). v2.1 appends fields.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct gc_info_v2_0 {
    pub header: gpu_info_header,
    pub gc_num_se: u32,
    pub gc_num_cu_per_sh: u32,
    pub gc_num_sh_per_se: u32,
    pub gc_num_rb_per_se: u32,
    pub gc_num_tccs: u32,
    pub gc_num_gprs: u32,
    pub gc_num_max_gs_thds: u32,
    pub gc_gs_table_depth: u32,
    pub gc_gsprim_buff_depth: u32,
    pub gc_parameter_cache_depth: u32,
    pub gc_double_offchip_lds_buffer: u32,
    pub gc_wave_size: u32,
    pub gc_max_waves_per_simd: u32,
    pub gc_max_scratch_slots_per_cu: u32,
    pub gc_lds_size: u32,
    pub gc_num_sc_per_se: u32,
    pub gc_num_packer_per_sc: u32,
}
layout!(gc_info_v2_0, 80, { header: 0, gc_num_se: 12, gc_wave_size: 56, gc_lds_size: 68, gc_num_packer_per_sc: 76 });

/// `gc_info_v2_1`: v2.0 and cache sizes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct gc_info_v2_1 {
    pub v2_0: gc_info_v2_0,
    pub gc_num_tcp_per_sh: u32,
    pub gc_tcp_size_per_cu: u32,
    pub gc_num_sdp_interface: u32,
    pub gc_num_cu_per_sqc: u32,
    pub gc_instruction_cache_size_per_sqc: u32,
    pub gc_scalar_data_cache_size_per_sqc: u32,
    pub gc_tcc_size: u32,
}
layout!(gc_info_v2_1, 108, { v2_0: 0, gc_num_tcp_per_sh: 80, gc_tcc_size: 104 });

/// Sizes of `gc_info_v1_1`, `_v1_2`, `_v1_3` (each appends u32s to v1.0): a table of that minor
/// version is at least this long.
const GC_INFO_V1_SIZES: [usize; 4] = [88, 100, 132, 164];
/// Sizes of `gc_info_v2_0`, `_v2_1`.
const GC_INFO_V2_SIZES: [usize; 2] = [80, 108];

/// `harvest_info_header`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct harvest_info_header {
    pub signature: u32,
    pub version: u32,
}
layout!(harvest_info_header, 8, { signature: 0, version: 4 });

/// `harvest_info`: one IP instance fused off; `hw_id == 0` ends the list.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct harvest_info {
    pub hw_id: u16,
    pub number_instance: u8,
    pub reserved: u8,
}
layout!(harvest_info, 4, { hw_id: 0, number_instance: 2, reserved: 3 });

/// `harvest_table`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct harvest_table {
    pub header: harvest_info_header,
    pub list: [harvest_info; HARVEST_ENTRIES],
}
layout!(harvest_table, 136, { header: 0, list: 8 });

raw_structs!(
    table_info,
    binary_header,
    die_info,
    ip_discovery_header,
    die_header,
    ip_v4,
    gpu_info_header,
    gc_info_v1_0,
    gc_info_v2_0,
    gc_info_v2_1,
    harvest_info_header,
    harvest_info,
    harvest_table
);

/// What errors call the table.
const TABLE: &str = "IP discovery table";

/// An IP block's hardware version (`major.minor.revision`), ordered as the kernel's
/// `IP_VERSION` compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IpVersion {
    pub major: u8,
    pub minor: u8,
    pub revision: u8,
}

impl IpVersion {
    pub const fn new(major: u8, minor: u8, revision: u8) -> IpVersion {
        IpVersion { major, minor, revision }
    }

    /// The `11_0_0` form firmware file names use (`gc_11_0_0_pfp.bin`).
    pub fn underscored(&self) -> String {
        format!("{}_{}_{}", self.major, self.minor, self.revision)
    }
}

impl fmt::Display for IpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.revision)
    }
}

/// One entry of a die's IP list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpBlock {
    pub die: u16,
    pub hw_id: u16,
    pub instance: u8,
    pub version: IpVersion,
    /// `variant` and `sub_revision` (0 before table version 3).
    pub variant: u8,
    pub sub_revision: u8,
    /// Segment bases in dwords. 64-bit entries are cut to bits 29:0 as the kernel does (the bits
    /// above follow an ASIC-specific format).
    pub bases: Vec<u32>,
}

/// The GC table: shader engine and cache counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcInfo {
    /// v1.x: the v1.0 fields (later minors append ones we do not use).
    V1 { minor: u16, info: gc_info_v1_0 },
    /// v2.x: the v2.0 fields.
    V2 { minor: u16, info: gc_info_v2_0 },
}

impl GcInfo {
    pub fn num_se(&self) -> u32 {
        match self {
            GcInfo::V1 { info, .. } => info.gc_num_se,
            GcInfo::V2 { info, .. } => info.gc_num_se,
        }
    }

    /// Shader arrays per engine.
    pub fn num_sh_per_se(&self) -> u32 {
        match self {
            GcInfo::V1 { info, .. } => info.gc_num_sa_per_se,
            GcInfo::V2 { info, .. } => info.gc_num_sh_per_se,
        }
    }

    /// Compute units per shader array (a WGP is two CUs; `gfx_v11_0` counts it so).
    pub fn num_cu_per_sh(&self) -> u32 {
        match self {
            GcInfo::V1 { info, .. } => 2 * (info.gc_num_wgp0_per_sa.saturating_add(info.gc_num_wgp1_per_sa)),
            GcInfo::V2 { info, .. } => info.gc_num_cu_per_sh,
        }
    }

    pub fn wave_size(&self) -> u32 {
        match self {
            GcInfo::V1 { info, .. } => info.gc_wave_size,
            GcInfo::V2 { info, .. } => info.gc_wave_size,
        }
    }

    /// LDS per work-group in KiB.
    pub fn lds_size(&self) -> u32 {
        match self {
            GcInfo::V1 { info, .. } => info.gc_lds_size,
            GcInfo::V2 { info, .. } => info.gc_lds_size,
        }
    }

    pub fn max_waves_per_simd(&self) -> u32 {
        match self {
            GcInfo::V1 { info, .. } => info.gc_max_waves_per_simd,
            GcInfo::V2 { info, .. } => info.gc_max_waves_per_simd,
        }
    }
}

/// One harvested (fused-off) IP instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Harvested {
    pub hw_id: u16,
    pub instance: u8,
}

/// A parsed discovery table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovery {
    /// `binary_header.version_major/minor`.
    pub binary_version: (u16, u16),
    /// `ip_discovery_header.version` (1–4).
    pub table_version: u16,
    /// Every IP entry of every die, in table order.
    pub ips: Vec<IpBlock>,
    pub harvest: Vec<Harvested>,
    pub gc_info: Option<GcInfo>,
}

impl Discovery {
    /// Parse a table read from VRAM (at least `binary_size` bytes; the usual read is
    /// [`DISCOVERY_TMR_SIZE`]). Truncated or inconsistent tables are `Malformed` errors.
    pub fn parse(bytes: &[u8]) -> Result<Discovery> {
        let bhdr: binary_header = raw::read(bytes, 0, TABLE, "binary_header")?;
        if bhdr.binary_signature != BINARY_SIGNATURE {
            return Err(bad(format!(
                "binary signature {:#010x}, expected {BINARY_SIGNATURE:#010x} (no table at VRAM top − 64 KiB?)",
                bhdr.binary_signature
            )));
        }
        let size = bhdr.binary_size as usize;
        if size < std::mem::size_of::<binary_header>() || size > bytes.len() {
            return Err(bad(format!("binary_size {size:#x} outside [{:#x}, {:#x}]", 60, bytes.len())));
        }
        let bin = &bytes[..size];
        check_sum(&bin[BINARY_CHECKSUM_START..], bhdr.binary_checksum, "binary")?;

        let ip_table = &bhdr.table_list[TABLE_IP_DISCOVERY];
        if ip_table.offset == 0 {
            return Err(bad("no IP discovery table (table_list[IP_DISCOVERY].offset is 0)"));
        }
        let (table_version, ips) = parse_ips(bin, ip_table)?;
        let harvest = parse_harvest(bin, &bhdr.table_list[TABLE_HARVEST_INFO])?;
        let gc_info = parse_gc_info(bin, &bhdr.table_list[TABLE_GC])?;
        Ok(Discovery { binary_version: (bhdr.version_major, bhdr.version_minor), table_version, ips, harvest, gc_info })
    }

    /// The entry for `hw_id` instance `instance` (the first, if a table lists one twice).
    pub fn ip(&self, hw_id: u16, instance: u8) -> Option<&IpBlock> {
        self.ips.iter().find(|ip| ip.hw_id == hw_id && ip.instance == instance)
    }

    /// The entry, or an error naming what the driver looked for.
    pub fn require(&self, hw_id: u16, instance: u8) -> Result<&IpBlock> {
        self.ip(hw_id, instance).ok_or_else(|| {
            let name = hw_id::name(hw_id).unwrap_or("?");
            bad(format!("no {name} (hw_id {hw_id}) instance {instance}"))
        })
    }

    /// Version of instance 0 of `hw_id`.
    pub fn version(&self, hw_id: u16) -> Option<IpVersion> {
        self.ips.iter().filter(|ip| ip.hw_id == hw_id).min_by_key(|ip| ip.instance).map(|ip| ip.version)
    }

    /// Segment base `segment` (dwords) of `hw_id` instance `instance`.
    pub fn base(&self, hw_id: u16, instance: u8, segment: usize) -> Option<u32> {
        self.ip(hw_id, instance)?.bases.get(segment).copied()
    }

    /// Instance numbers present for `hw_id`, ascending.
    pub fn instances(&self, hw_id: u16) -> Vec<u8> {
        let mut v: Vec<u8> = self.ips.iter().filter(|ip| ip.hw_id == hw_id).map(|ip| ip.instance).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn is_harvested(&self, hw_id: u16, instance: u8) -> bool {
        self.harvest.iter().any(|h| h.hw_id == hw_id && h.instance == instance)
    }
}

fn bad(reason: impl Into<String>) -> Error {
    Error::malformed(TABLE, reason)
}

fn check_sum(bytes: &[u8], expected: u16, what: &str) -> Result<()> {
    let sum = raw::byte_sum16(bytes);
    if sum != expected {
        return Err(bad(format!("{what} checksum {sum:#06x}, table says {expected:#06x}")));
    }
    Ok(())
}

/// The IP list of every die.
fn parse_ips(bin: &[u8], info: &table_info) -> Result<(u16, Vec<IpBlock>)> {
    let off = info.offset as usize;
    let ihdr: ip_discovery_header = raw::read(bin, off, TABLE, "ip_discovery_header")?;
    if ihdr.signature != DISCOVERY_TABLE_SIGNATURE {
        return Err(bad(format!("ip_discovery_header signature {:#010x} at {off:#x}", ihdr.signature)));
    }
    let table = raw::slice(bin, off, ihdr.size as usize, TABLE, "ip_discovery_header.size")?;
    check_sum(table, info.checksum, "IP discovery data table")?;
    if ihdr.num_dies as usize > MAX_DIES || ihdr.num_dies == 0 {
        return Err(bad(format!("num_dies {} outside 1..={MAX_DIES}", ihdr.num_dies)));
    }
    let wide = ihdr.version >= 4 && ihdr.flags & BASE_ADDR_64_BIT != 0;
    let mut ips = Vec::new();
    for (i, die) in ihdr.die_info[..ihdr.num_dies as usize].iter().enumerate() {
        let dhdr: die_header = raw::read(bin, die.die_offset as usize, TABLE, &format!("die {i} header"))?;
        if dhdr.die_id as usize != i {
            return Err(bad(format!("die {i} header at {:#x} says die_id {}", die.die_offset, dhdr.die_id)));
        }
        let mut pos = die.die_offset as usize + std::mem::size_of::<die_header>();
        for j in 0..dhdr.num_ips {
            let (ip, next) = parse_ip(bin, pos, wide, ihdr.version, i as u16, j)?;
            ips.push(ip);
            pos = next;
        }
    }
    Ok((ihdr.version, ips))
}

/// One `ip_v4` entry at `pos` and its base addresses; returns the entry and the next one's offset.
fn parse_ip(bin: &[u8], pos: usize, wide: bool, version: u16, die: u16, j: u16) -> Result<(IpBlock, usize)> {
    let what = format!("die {die} IP entry {j}");
    let e: ip_v4 = raw::read(bin, pos, TABLE, &what)?;
    let n = e.num_base_address as usize;
    let stride = if wide { 8 } else { 4 };
    let start = pos + std::mem::size_of::<ip_v4>();
    raw::slice(bin, start, n * stride, TABLE, &format!("{what} ({} base addresses)", n))?;
    let mut bases = Vec::with_capacity(n);
    for k in 0..n {
        let b = if wide {
            // amdgpu_discovery_reg_base_init: lower 32 bits, dword address, top 2 bits cleared.
            (raw::u64_at(bin, start + k * 8, TABLE, &what)? as u32) & 0x3FFF_FFFF
        } else {
            raw::u32_at(bin, start + k * 4, TABLE, &what)?
        };
        bases.push(b);
    }
    let (variant, sub_revision) =
        if version >= 3 { (e.variant_sub_revision >> 4, e.variant_sub_revision & 0xF) } else { (0, 0) };
    let ip = IpBlock {
        die,
        hw_id: e.hw_id,
        instance: e.instance_number,
        version: IpVersion::new(e.major, e.minor, e.revision),
        variant,
        sub_revision,
        bases,
    };
    Ok((ip, start + n * stride))
}

fn parse_harvest(bin: &[u8], info: &table_info) -> Result<Vec<Harvested>> {
    if info.offset == 0 {
        return Ok(Vec::new());
    }
    let off = info.offset as usize;
    let t: harvest_table = raw::read(bin, off, TABLE, "harvest_table")?;
    if t.header.signature != HARVEST_TABLE_SIGNATURE {
        return Err(bad(format!("harvest table signature {:#010x} at {off:#x}", t.header.signature)));
    }
    check_sum(raw::bytes_of(&t), info.checksum, "harvest table")?;
    Ok(t.list
        .iter()
        .take_while(|h| h.hw_id != 0)
        .map(|h| Harvested { hw_id: h.hw_id, instance: h.number_instance })
        .collect())
}

fn parse_gc_info(bin: &[u8], info: &table_info) -> Result<Option<GcInfo>> {
    if info.offset == 0 {
        return Ok(None);
    }
    let off = info.offset as usize;
    let h: gpu_info_header = raw::read(bin, off, TABLE, "gc_info header")?;
    if h.table_id != GC_TABLE_ID {
        return Err(bad(format!("gc_info table_id {:#x} at {off:#x}, expected {GC_TABLE_ID:#x}", h.table_id)));
    }
    let table = raw::slice(bin, off, h.size as usize, TABLE, "gc_info.size")?;
    check_sum(table, info.checksum, "gc_info")?;
    let sizes: &[usize] = match h.version_major {
        1 => &GC_INFO_V1_SIZES,
        2 => &GC_INFO_V2_SIZES,
        v => return Err(bad(format!("gc_info version {v}.{} (we read 1.x and 2.x)", h.version_minor))),
    };
    // A later minor than we know still carries every field of the last one we know.
    let need = sizes[(h.version_minor as usize).min(sizes.len() - 1)];
    if table.len() < need {
        return Err(bad(format!(
            "gc_info v{}.{} is {:#x} bytes, that version has {need:#x}",
            h.version_major,
            h.version_minor,
            table.len()
        )));
    }
    Ok(Some(match h.version_major {
        1 => GcInfo::V1 { minor: h.version_minor, info: raw::read(table, 0, TABLE, "gc_info_v1_0")? },
        _ => GcInfo::V2 { minor: h.version_minor, info: raw::read(table, 0, TABLE, "gc_info_v2_0")? },
    }))
}
