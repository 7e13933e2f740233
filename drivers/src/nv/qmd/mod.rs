//! The QMD (Queue Meta Data): the launch descriptor a compute class reads for a kernel launch
//! (`SEND_PCAS_A` points at it, or a predecessor's `DEPENDENT_QMD_POINTER`).
//!
//! Three layouts, as bit fields whose positions are the `MW(hi:lo)` macros of NVIDIA's class
//! headers (open-gpu-doc `classes/compute/`, snapshot c8607fe5):
//!
//! | version | classes | header block | size |
//! |---|---|---|---|
//! | [`QmdVersion::V3`] | AMPERE_COMPUTE_A/B (c6c0, c7c0), ADA_COMPUTE_A (c9c0) | `clc6c0qmd.h` `NVC6C0_QMDV03_00_*` (identical in `clc9c0qmd.h`) | 0x40 dwords |
//! | [`QmdVersion::V4`] | HOPPER_COMPUTE_A (cbc0) | `clcbc0qmd.h` `NVCBC0_QMDV04_00_*` | 0x60 dwords |
//! | [`QmdVersion::V5`] | BLACKWELL_COMPUTE_A/B (cdc0, cec0) | `clcec0qmd.h` `NVCEC0_QMDV05_00_*` (identical in `clcdc0qmd.h`) | 0x60 dwords |
//!
//! `clcbc0qmd.h` also documents a V03_00 block for Hopper with the C6C0 positions; whether Hopper's
//! scheduler takes it is unverified, so Hopper uses V4 here.
//!
//! [`Field`] names a field independently of the version; [`QmdVersion::bits`] gives its position
//! (and the header's name for it) in one layout, or `None` where that layout has no such field.
//! [`Qmd`] is a QMD image with checked field writes and typed setters that apply each version's
//! encoding (byte, `SHIFTED4`, `SHIFTED6`, `SHIFTED7` units).

use crate::{Error, Result};

/// A QMD layout version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QmdVersion {
    /// `QMDV03_00`: Ampere and Ada (256 bytes).
    V3,
    /// `QMDV04_00`: Hopper (384 bytes).
    V4,
    /// `QMDV05_00`: Blackwell (384 bytes).
    V5,
}

/// The largest QMD, in dwords.
pub const MAX_DWORDS: usize = 0x60;

impl QmdVersion {
    pub const ALL: [QmdVersion; 3] = [QmdVersion::V3, QmdVersion::V4, QmdVersion::V5];

    /// The QMD version a compute class reads, by class id.
    pub fn for_compute_class(class: u32) -> Option<QmdVersion> {
        match class {
            0xc6c0 | 0xc7c0 | 0xc9c0 => Some(QmdVersion::V3),
            0xcbc0 => Some(QmdVersion::V4),
            0xcdc0 | 0xcec0 => Some(QmdVersion::V5),
            _ => None,
        }
    }

    /// Size in dwords: the highest field of V3 ends at bit 2047, of V4 and V5 at bit 3071.
    pub fn dwords(self) -> usize {
        match self {
            QmdVersion::V3 => 0x40,
            QmdVersion::V4 | QmdVersion::V5 => 0x60,
        }
    }

    pub fn bytes(self) -> usize {
        self.dwords() * 4
    }

    /// `QMD_MAJOR_VERSION` value.
    pub fn major(self) -> u64 {
        match self {
            QmdVersion::V3 => 3,
            QmdVersion::V4 => 4,
            QmdVersion::V5 => 5,
        }
    }

    /// The header and the prefix of its field names (for messages and the header cross-check).
    pub fn header(self) -> (&'static str, &'static str) {
        match self {
            QmdVersion::V3 => ("clc6c0qmd.h", "NVC6C0_QMDV03_00_"),
            QmdVersion::V4 => ("clcbc0qmd.h", "NVCBC0_QMDV04_00_"),
            QmdVersion::V5 => ("clcec0qmd.h", "NVCEC0_QMDV05_00_"),
        }
    }

    /// How many release semaphores, dependent QMDs and constant buffers the layout has.
    pub fn release_slots(self) -> u8 {
        3
    }
    pub fn dependent_slots(self) -> u8 {
        2
    }
    pub fn constant_buffers(self) -> u8 {
        8
    }

    /// Right shift applied to the program address (`PROGRAM_ADDRESS_*_SHIFTED4` on V5).
    pub fn program_address_shift(self) -> u32 {
        if self == QmdVersion::V5 {
            4
        } else {
            0
        }
    }

    /// Right shift applied to constant-buffer addresses (`CONSTANT_BUFFER_ADDR_*_SHIFTED6` on V4/V5).
    pub fn constant_buffer_shift(self) -> u32 {
        if self == QmdVersion::V3 {
            0
        } else {
            6
        }
    }

    /// Right shift applied to the shared-memory size (`SHARED_MEMORY_SIZE_SHIFTED7` on V5).
    pub fn shared_memory_shift(self) -> u32 {
        if self == QmdVersion::V5 {
            7
        } else {
            0
        }
    }

    /// Right shift applied to local-memory sizes (`SHADER_LOCAL_MEMORY_*_SIZE_SHIFTED4` on V5).
    pub fn local_memory_shift(self) -> u32 {
        if self == QmdVersion::V5 {
            4
        } else {
            0
        }
    }
}

/// A QMD field, independent of the layout. Indexed fields carry their index (release slot,
/// dependent-QMD slot or constant-buffer bank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    QmdGroupId,
    /// V4/V5 `QMD_TYPE` (GRID_CTA = 2).
    QmdType,
    /// V3 `IS_QUEUE`.
    IsQueue,
    /// V3 only.
    SmGlobalCachingEnable,
    /// `QMD_VERSION` (V3) / `QMD_MINOR_VERSION` (V4, V5).
    QmdMinorVersion,
    QmdMajorVersion,
    ApiVisibleCallLimit,
    SamplerIndex,
    CwdMembarType,
    SassVersion,
    InvalidateTextureHeaderCache,
    InvalidateTextureSamplerCache,
    InvalidateTextureDataCache,
    InvalidateShaderDataCache,
    InvalidateInstructionCache,
    InvalidateShaderConstantCache,
    ProgramAddressLower,
    ProgramAddressUpper,
    ProgramPrefetchAddrLowerShifted,
    ProgramPrefetchAddrUpperShifted,
    ProgramPrefetchSize,
    ProgramPrefetchType,
    RegisterCount,
    BarrierCount,
    SharedMemorySize,
    MinSmConfigSharedMemSize,
    MaxSmConfigSharedMemSize,
    TargetSmConfigSharedMemSize,
    ShaderLocalMemoryLowSize,
    ShaderLocalMemoryHighSize,
    GridWidth,
    GridHeight,
    GridDepth,
    CtaThreadDimension0,
    CtaThreadDimension1,
    CtaThreadDimension2,
    ConstantBufferValid(u8),
    ConstantBufferInvalidate(u8),
    ConstantBufferAddrLower(u8),
    ConstantBufferAddrUpper(u8),
    ConstantBufferSizeShifted4(u8),
    ReleaseEnable(u8),
    ReleaseStructureSize(u8),
    ReleaseMembarType(u8),
    ReleasePayload64b(u8),
    ReleaseAddrLower(u8),
    ReleaseAddrUpper(u8),
    ReleasePayloadLower(u8),
    ReleasePayloadUpper(u8),
    DependentQmdEnable(u8),
    DependentQmdAction(u8),
    DependentQmdPrefetch(u8),
    DependentQmdPointer(u8),
}

impl Field {
    /// Every field, indexed ones for every index any layout has.
    pub fn all() -> Vec<Field> {
        use Field::*;
        let mut v = vec![
            QmdGroupId,
            QmdType,
            IsQueue,
            SmGlobalCachingEnable,
            QmdMinorVersion,
            QmdMajorVersion,
            ApiVisibleCallLimit,
            SamplerIndex,
            CwdMembarType,
            SassVersion,
            InvalidateTextureHeaderCache,
            InvalidateTextureSamplerCache,
            InvalidateTextureDataCache,
            InvalidateShaderDataCache,
            InvalidateInstructionCache,
            InvalidateShaderConstantCache,
            ProgramAddressLower,
            ProgramAddressUpper,
            ProgramPrefetchAddrLowerShifted,
            ProgramPrefetchAddrUpperShifted,
            ProgramPrefetchSize,
            ProgramPrefetchType,
            RegisterCount,
            BarrierCount,
            SharedMemorySize,
            MinSmConfigSharedMemSize,
            MaxSmConfigSharedMemSize,
            TargetSmConfigSharedMemSize,
            ShaderLocalMemoryLowSize,
            ShaderLocalMemoryHighSize,
            GridWidth,
            GridHeight,
            GridDepth,
            CtaThreadDimension0,
            CtaThreadDimension1,
            CtaThreadDimension2,
        ];
        for i in 0..8 {
            v.extend([
                ConstantBufferValid(i),
                ConstantBufferInvalidate(i),
                ConstantBufferAddrLower(i),
                ConstantBufferAddrUpper(i),
                ConstantBufferSizeShifted4(i),
            ]);
        }
        for i in 0..3 {
            v.extend([
                ReleaseEnable(i),
                ReleaseStructureSize(i),
                ReleaseMembarType(i),
                ReleasePayload64b(i),
                ReleaseAddrLower(i),
                ReleaseAddrUpper(i),
                ReleasePayloadLower(i),
                ReleasePayloadUpper(i),
            ]);
        }
        for i in 0..2 {
            v.extend([DependentQmdEnable(i), DependentQmdAction(i), DependentQmdPrefetch(i), DependentQmdPointer(i)]);
        }
        v
    }
}

/// A field's position in one layout: bits `lo..=hi` of the QMD as a little-endian bit string
/// (bit n is bit n%32 of dword n/32), and the header's name for it (without the
/// `NVxxxx_QMDVxx_00_` prefix; `index` is the `(i)` argument of an indexed macro).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits {
    pub name: &'static str,
    pub index: Option<u32>,
    pub hi: u32,
    pub lo: u32,
}

impl Bits {
    pub fn width(&self) -> u32 {
        self.hi - self.lo + 1
    }

    /// The largest value the field holds.
    pub fn max(&self) -> u64 {
        if self.width() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width()) - 1
        }
    }
}

const fn b(name: &'static str, hi: u32, lo: u32) -> Option<Bits> {
    Some(Bits { name, index: None, hi, lo })
}

/// An indexed field `MW((hi0 + i*stride):(lo0 + i*stride))`.
fn bi(name: &'static str, i: u8, count: u8, hi0: u32, lo0: u32, stride: u32) -> Option<Bits> {
    if i >= count {
        return None;
    }
    let i32_ = i as u32;
    Some(Bits { name, index: Some(i32_), hi: hi0 + i32_ * stride, lo: lo0 + i32_ * stride })
}

/// A field with one header macro per slot (`RELEASE0_ENABLE`, `RELEASE1_ENABLE`, ...).
fn per_slot(names: &[&'static str], i: u8, hi_lo: &[(u32, u32)]) -> Option<Bits> {
    let i = i as usize;
    if i >= names.len() {
        return None;
    }
    let (hi, lo) = hi_lo[i];
    Some(Bits { name: names[i], index: None, hi, lo })
}

impl QmdVersion {
    /// Where `field` lives in this layout; `None` if the layout has no such field.
    pub fn bits(self, field: Field) -> Option<Bits> {
        match self {
            QmdVersion::V3 => v3(field),
            QmdVersion::V4 => v4(field),
            QmdVersion::V5 => v5(field),
        }
    }
}

/// `clc6c0qmd.h`, `NVC6C0_QMDV03_00_*`.
fn v3(field: Field) -> Option<Bits> {
    use Field::*;
    match field {
        QmdGroupId => b("QMD_GROUP_ID", 133, 128),
        SmGlobalCachingEnable => b("SM_GLOBAL_CACHING_ENABLE", 134, 134),
        IsQueue => b("IS_QUEUE", 136, 136),
        QmdType => None,
        InvalidateTextureHeaderCache => b("INVALIDATE_TEXTURE_HEADER_CACHE", 186, 186),
        InvalidateTextureSamplerCache => b("INVALIDATE_TEXTURE_SAMPLER_CACHE", 187, 187),
        InvalidateTextureDataCache => b("INVALIDATE_TEXTURE_DATA_CACHE", 188, 188),
        InvalidateShaderDataCache => b("INVALIDATE_SHADER_DATA_CACHE", 189, 189),
        InvalidateInstructionCache => b("INVALIDATE_INSTRUCTION_CACHE", 190, 190),
        InvalidateShaderConstantCache => b("INVALIDATE_SHADER_CONSTANT_CACHE", 191, 191),
        ProgramPrefetchAddrLowerShifted => b("PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED", 287, 256),
        CwdMembarType => b("CWD_MEMBAR_TYPE", 369, 368),
        ApiVisibleCallLimit => b("API_VISIBLE_CALL_LIMIT", 378, 378),
        SamplerIndex => b("SAMPLER_INDEX", 382, 382),
        GridWidth => b("CTA_RASTER_WIDTH", 415, 384),
        GridHeight => b("CTA_RASTER_HEIGHT", 431, 416),
        GridDepth => b("CTA_RASTER_DEPTH", 463, 448),
        DependentQmdPointer(i) => per_slot(&["DEPENDENT_QMD0_POINTER"], i, &[(511, 480)]),
        DependentQmdEnable(i) => {
            per_slot(&["DEPENDENT_QMD0_ENABLE", "DEPENDENT_QMD1_ENABLE"], i, &[(512, 512), (517, 517)])
        }
        DependentQmdAction(i) => {
            per_slot(&["DEPENDENT_QMD0_ACTION", "DEPENDENT_QMD1_ACTION"], i, &[(515, 513), (520, 518)])
        }
        DependentQmdPrefetch(i) => {
            per_slot(&["DEPENDENT_QMD0_PREFETCH", "DEPENDENT_QMD1_PREFETCH"], i, &[(516, 516), (521, 521)])
        }
        SharedMemorySize => b("SHARED_MEMORY_SIZE", 561, 544),
        MinSmConfigSharedMemSize => b("MIN_SM_CONFIG_SHARED_MEM_SIZE", 567, 562),
        MaxSmConfigSharedMemSize => b("MAX_SM_CONFIG_SHARED_MEM_SIZE", 574, 569),
        QmdMinorVersion => b("QMD_VERSION", 579, 576),
        QmdMajorVersion => b("QMD_MAJOR_VERSION", 583, 580),
        CtaThreadDimension0 => b("CTA_THREAD_DIMENSION0", 607, 592),
        CtaThreadDimension1 => b("CTA_THREAD_DIMENSION1", 623, 608),
        CtaThreadDimension2 => b("CTA_THREAD_DIMENSION2", 639, 624),
        ConstantBufferValid(i) => bi("CONSTANT_BUFFER_VALID", i, 8, 640, 640, 1),
        RegisterCount => b("REGISTER_COUNT_V", 656, 648),
        TargetSmConfigSharedMemSize => b("TARGET_SM_CONFIG_SHARED_MEM_SIZE", 662, 657),
        ShaderLocalMemoryLowSize => b("SHADER_LOCAL_MEMORY_LOW_SIZE", 759, 736),
        BarrierCount => b("BARRIER_COUNT", 767, 763),
        ReleaseAddrLower(i) => per_slot(
            &["RELEASE0_ADDRESS_LOWER", "RELEASE1_ADDRESS_LOWER", "RELEASE2_ADDRESS_LOWER"],
            i,
            &[(799, 768), (927, 896), (1695, 1664)],
        ),
        ReleaseAddrUpper(i) => per_slot(
            &["RELEASE0_ADDRESS_UPPER", "RELEASE1_ADDRESS_UPPER", "RELEASE2_ADDRESS_UPPER"],
            i,
            &[(807, 800), (935, 928), (1703, 1696)],
        ),
        ReleaseMembarType(i) => per_slot(
            &["RELEASE0_MEMBAR_TYPE", "RELEASE1_MEMBAR_TYPE", "RELEASE2_MEMBAR_TYPE"],
            i,
            &[(819, 819), (947, 947), (1715, 1715)],
        ),
        ReleaseEnable(i) => per_slot(
            &["RELEASE0_ENABLE", "RELEASE1_ENABLE", "RELEASE2_ENABLE"],
            i,
            &[(823, 823), (951, 951), (1719, 1719)],
        ),
        ReleasePayload64b(i) => per_slot(
            &["RELEASE0_PAYLOAD64B", "RELEASE1_PAYLOAD64B", "RELEASE2_PAYLOAD64B"],
            i,
            &[(829, 829), (957, 957), (1725, 1725)],
        ),
        ReleaseStructureSize(i) => per_slot(
            &["RELEASE0_STRUCTURE_SIZE", "RELEASE1_STRUCTURE_SIZE", "RELEASE2_STRUCTURE_SIZE"],
            i,
            &[(831, 830), (959, 958), (1727, 1726)],
        ),
        ReleasePayloadLower(i) => per_slot(
            &["RELEASE0_PAYLOAD_LOWER", "RELEASE1_PAYLOAD_LOWER", "RELEASE2_PAYLOAD_LOWER"],
            i,
            &[(863, 832), (991, 960), (1759, 1728)],
        ),
        ReleasePayloadUpper(i) => per_slot(
            &["RELEASE0_PAYLOAD_UPPER", "RELEASE1_PAYLOAD_UPPER", "RELEASE2_PAYLOAD_UPPER"],
            i,
            &[(895, 864), (1023, 992), (1791, 1760)],
        ),
        ConstantBufferAddrLower(i) => bi("CONSTANT_BUFFER_ADDR_LOWER", i, 8, 1055, 1024, 64),
        ConstantBufferAddrUpper(i) => bi("CONSTANT_BUFFER_ADDR_UPPER", i, 8, 1072, 1056, 64),
        ConstantBufferInvalidate(i) => bi("CONSTANT_BUFFER_INVALIDATE", i, 8, 1074, 1074, 64),
        ConstantBufferSizeShifted4(i) => bi("CONSTANT_BUFFER_SIZE_SHIFTED4", i, 8, 1087, 1075, 64),
        ProgramAddressLower => b("PROGRAM_ADDRESS_LOWER", 1567, 1536),
        ProgramAddressUpper => b("PROGRAM_ADDRESS_UPPER", 1584, 1568),
        ShaderLocalMemoryHighSize => b("SHADER_LOCAL_MEMORY_HIGH_SIZE", 1623, 1600),
        ProgramPrefetchAddrUpperShifted => b("PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED", 1640, 1632),
        ProgramPrefetchSize => b("PROGRAM_PREFETCH_SIZE", 1649, 1641),
        ProgramPrefetchType => b("PROGRAM_PREFETCH_TYPE", 1651, 1650),
        SassVersion => b("SASS_VERSION", 1663, 1656),
    }
}

/// `clcbc0qmd.h`, `NVCBC0_QMDV04_00_*`.
fn v4(field: Field) -> Option<Bits> {
    use Field::*;
    match field {
        QmdGroupId => b("QMD_GROUP_ID", 21, 16),
        QmdType => b("QMD_TYPE", 25, 23),
        IsQueue | SmGlobalCachingEnable => None,
        ReleaseEnable(i) => bi("RELEASE_ENABLE", i, 3, 320, 320, 16),
        ReleaseStructureSize(i) => bi("RELEASE_STRUCTURE_SIZE", i, 3, 322, 321, 16),
        ReleaseMembarType(i) => bi("RELEASE_MEMBAR_TYPE", i, 3, 323, 323, 16),
        ReleasePayload64b(i) => bi("RELEASE_PAYLOAD64B", i, 3, 332, 332, 16),
        DependentQmdEnable(i) => bi("DEPENDENT_QMD_ENABLE", i, 2, 368, 368, 5),
        DependentQmdAction(i) => bi("DEPENDENT_QMD_ACTION", i, 2, 371, 369, 5),
        DependentQmdPrefetch(i) => bi("DEPENDENT_QMD_PREFETCH", i, 2, 372, 372, 5),
        ConstantBufferValid(i) => bi("CONSTANT_BUFFER_VALID", i, 8, 416, 416, 4),
        ConstantBufferInvalidate(i) => bi("CONSTANT_BUFFER_INVALIDATE", i, 8, 419, 419, 4),
        DependentQmdPointer(i) => {
            per_slot(&["DEPENDENT_QMD0_POINTER", "DEPENDENT_QMD1_POINTER"], i, &[(479, 448), (511, 480)])
        }
        ShaderLocalMemoryLowSize => b("SHADER_LOCAL_MEMORY_LOW_SIZE", 535, 512),
        SassVersion => b("SASS_VERSION", 543, 536),
        ShaderLocalMemoryHighSize => b("SHADER_LOCAL_MEMORY_HIGH_SIZE", 567, 544),
        ApiVisibleCallLimit => b("API_VISIBLE_CALL_LIMIT", 568, 568),
        SamplerIndex => b("SAMPLER_INDEX", 569, 569),
        QmdMinorVersion => b("QMD_MINOR_VERSION", 579, 576),
        QmdMajorVersion => b("QMD_MAJOR_VERSION", 583, 580),
        SharedMemorySize => b("SHARED_MEMORY_SIZE", 601, 584),
        InvalidateTextureHeaderCache => b("INVALIDATE_TEXTURE_HEADER_CACHE", 602, 602),
        InvalidateTextureSamplerCache => b("INVALIDATE_TEXTURE_SAMPLER_CACHE", 603, 603),
        InvalidateTextureDataCache => b("INVALIDATE_TEXTURE_DATA_CACHE", 604, 604),
        InvalidateShaderDataCache => b("INVALIDATE_SHADER_DATA_CACHE", 605, 605),
        InvalidateInstructionCache => b("INVALIDATE_INSTRUCTION_CACHE", 606, 606),
        InvalidateShaderConstantCache => b("INVALIDATE_SHADER_CONSTANT_CACHE", 607, 607),
        MinSmConfigSharedMemSize => b("MIN_SM_CONFIG_SHARED_MEM_SIZE", 613, 608),
        MaxSmConfigSharedMemSize => b("MAX_SM_CONFIG_SHARED_MEM_SIZE", 619, 614),
        TargetSmConfigSharedMemSize => b("TARGET_SM_CONFIG_SHARED_MEM_SIZE", 625, 620),
        ReleaseAddrLower(i) => per_slot(
            &["RELEASE_SEMAPHORE0_ADDR_LOWER", "RELEASE_SEMAPHORE1_ADDR_LOWER", "RELEASE_SEMAPHORE2_ADDR_LOWER"],
            i,
            &[(671, 640), (799, 768), (927, 896)],
        ),
        ReleaseAddrUpper(i) => per_slot(
            &["RELEASE_SEMAPHORE0_ADDR_UPPER", "RELEASE_SEMAPHORE1_ADDR_UPPER", "RELEASE_SEMAPHORE2_ADDR_UPPER"],
            i,
            &[(696, 672), (824, 800), (952, 928)],
        ),
        ReleasePayloadLower(i) => per_slot(
            &[
                "RELEASE_SEMAPHORE0_PAYLOAD_LOWER",
                "RELEASE_SEMAPHORE1_PAYLOAD_LOWER",
                "RELEASE_SEMAPHORE2_PAYLOAD_LOWER",
            ],
            i,
            &[(735, 704), (863, 832), (991, 960)],
        ),
        ReleasePayloadUpper(i) => per_slot(
            &[
                "RELEASE_SEMAPHORE0_PAYLOAD_UPPER",
                "RELEASE_SEMAPHORE1_PAYLOAD_UPPER",
                "RELEASE_SEMAPHORE2_PAYLOAD_UPPER",
            ],
            i,
            &[(767, 736), (895, 864), (1023, 992)],
        ),
        GridWidth => b("GRID_WIDTH", 1055, 1024),
        GridHeight => b("GRID_HEIGHT", 1071, 1056),
        GridDepth => b("GRID_DEPTH", 1103, 1088),
        CwdMembarType => b("CWD_MEMBAR_TYPE", 1137, 1136),
        CtaThreadDimension0 => b("CTA_THREAD_DIMENSION0", 1167, 1152),
        CtaThreadDimension1 => b("CTA_THREAD_DIMENSION1", 1183, 1168),
        CtaThreadDimension2 => b("CTA_THREAD_DIMENSION2", 1199, 1184),
        RegisterCount => b("REGISTER_COUNT", 1208, 1200),
        BarrierCount => b("BARRIER_COUNT", 1215, 1211),
        ProgramAddressLower => b("PROGRAM_ADDRESS_LOWER", 1247, 1216),
        ProgramAddressUpper => b("PROGRAM_ADDRESS_UPPER", 1272, 1248),
        ProgramPrefetchAddrLowerShifted => b("PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED", 1375, 1344),
        ProgramPrefetchAddrUpperShifted => b("PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED", 1392, 1376),
        ProgramPrefetchSize => b("PROGRAM_PREFETCH_SIZE", 1401, 1393),
        ProgramPrefetchType => b("PROGRAM_PREFETCH_TYPE", 1403, 1402),
        ConstantBufferAddrLower(i) => bi("CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6", i, 8, 1567, 1536, 64),
        ConstantBufferAddrUpper(i) => bi("CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6", i, 8, 1586, 1568, 64),
        ConstantBufferSizeShifted4(i) => bi("CONSTANT_BUFFER_SIZE_SHIFTED4", i, 8, 1599, 1587, 64),
    }
}

/// `clcec0qmd.h`, `NVCEC0_QMDV05_00_*`.
fn v5(field: Field) -> Option<Bits> {
    use Field::*;
    match field {
        QmdGroupId => b("QMD_GROUP_ID", 149, 144),
        QmdType => b("QMD_TYPE", 153, 151),
        IsQueue | SmGlobalCachingEnable => None,
        ReleaseEnable(i) => bi("RELEASE_ENABLE", i, 3, 288, 288, 16),
        ReleaseStructureSize(i) => bi("RELEASE_STRUCTURE_SIZE", i, 3, 290, 289, 16),
        ReleaseMembarType(i) => bi("RELEASE_MEMBAR_TYPE", i, 3, 291, 291, 16),
        ReleasePayload64b(i) => bi("RELEASE_PAYLOAD64B", i, 3, 300, 300, 16),
        DependentQmdEnable(i) => bi("DEPENDENT_QMD_ENABLE", i, 2, 336, 336, 8),
        DependentQmdAction(i) => bi("DEPENDENT_QMD_ACTION", i, 2, 339, 337, 8),
        DependentQmdPrefetch(i) => bi("DEPENDENT_QMD_PREFETCH", i, 2, 340, 340, 8),
        DependentQmdPointer(i) => bi("DEPENDENT_QMD_POINTER", i, 2, 415, 384, 32),
        SassVersion => b("SASS_VERSION", 455, 448),
        ApiVisibleCallLimit => b("API_VISIBLE_CALL_LIMIT", 456, 456),
        SamplerIndex => b("SAMPLER_INDEX", 457, 457),
        QmdMinorVersion => b("QMD_MINOR_VERSION", 467, 464),
        QmdMajorVersion => b("QMD_MAJOR_VERSION", 471, 468),
        InvalidateTextureHeaderCache => b("INVALIDATE_TEXTURE_HEADER_CACHE", 472, 472),
        InvalidateTextureSamplerCache => b("INVALIDATE_TEXTURE_SAMPLER_CACHE", 473, 473),
        InvalidateTextureDataCache => b("INVALIDATE_TEXTURE_DATA_CACHE", 474, 474),
        InvalidateShaderDataCache => b("INVALIDATE_SHADER_DATA_CACHE", 475, 475),
        InvalidateInstructionCache => b("INVALIDATE_INSTRUCTION_CACHE", 476, 476),
        InvalidateShaderConstantCache => b("INVALIDATE_SHADER_CONSTANT_CACHE", 477, 477),
        ReleaseAddrLower(i) => per_slot(
            &["RELEASE_SEMAPHORE0_ADDR_LOWER", "RELEASE_SEMAPHORE1_ADDR_LOWER", "RELEASE_SEMAPHORE2_ADDR_LOWER"],
            i,
            &[(511, 480), (799, 768), (927, 896)],
        ),
        ReleaseAddrUpper(i) => per_slot(
            &["RELEASE_SEMAPHORE0_ADDR_UPPER", "RELEASE_SEMAPHORE1_ADDR_UPPER", "RELEASE_SEMAPHORE2_ADDR_UPPER"],
            i,
            &[(536, 512), (824, 800), (952, 928)],
        ),
        ReleasePayloadLower(i) => per_slot(
            &[
                "RELEASE_SEMAPHORE0_PAYLOAD_LOWER",
                "RELEASE_SEMAPHORE1_PAYLOAD_LOWER",
                "RELEASE_SEMAPHORE2_PAYLOAD_LOWER",
            ],
            i,
            &[(575, 544), (863, 832), (991, 960)],
        ),
        ReleasePayloadUpper(i) => per_slot(
            &[
                "RELEASE_SEMAPHORE0_PAYLOAD_UPPER",
                "RELEASE_SEMAPHORE1_PAYLOAD_UPPER",
                "RELEASE_SEMAPHORE2_PAYLOAD_UPPER",
            ],
            i,
            &[(607, 576), (895, 864), (1023, 992)],
        ),
        CwdMembarType => b("CWD_MEMBAR_TYPE", 625, 624),
        ProgramAddressLower => b("PROGRAM_ADDRESS_LOWER_SHIFTED4", 1055, 1024),
        ProgramAddressUpper => b("PROGRAM_ADDRESS_UPPER_SHIFTED4", 1076, 1056),
        ProgramPrefetchSize => b("PROGRAM_PREFETCH_SIZE", 1085, 1077),
        ProgramPrefetchType => b("PROGRAM_PREFETCH_TYPE", 1087, 1086),
        CtaThreadDimension0 => b("CTA_THREAD_DIMENSION0", 1103, 1088),
        CtaThreadDimension1 => b("CTA_THREAD_DIMENSION1", 1119, 1104),
        CtaThreadDimension2 => b("CTA_THREAD_DIMENSION2", 1127, 1120),
        RegisterCount => b("REGISTER_COUNT", 1136, 1128),
        BarrierCount => b("BARRIER_COUNT", 1141, 1137),
        SharedMemorySize => b("SHARED_MEMORY_SIZE_SHIFTED7", 1162, 1152),
        MinSmConfigSharedMemSize => b("MIN_SM_CONFIG_SHARED_MEM_SIZE", 1168, 1163),
        MaxSmConfigSharedMemSize => b("MAX_SM_CONFIG_SHARED_MEM_SIZE", 1174, 1169),
        TargetSmConfigSharedMemSize => b("TARGET_SM_CONFIG_SHARED_MEM_SIZE", 1180, 1175),
        ShaderLocalMemoryLowSize => b("SHADER_LOCAL_MEMORY_LOW_SIZE_SHIFTED4", 1199, 1184),
        ShaderLocalMemoryHighSize => b("SHADER_LOCAL_MEMORY_HIGH_SIZE_SHIFTED4", 1215, 1200),
        GridWidth => b("GRID_WIDTH", 1279, 1248),
        GridHeight => b("GRID_HEIGHT", 1295, 1280),
        GridDepth => b("GRID_DEPTH", 1327, 1312),
        ConstantBufferAddrLower(i) => bi("CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6", i, 8, 1375, 1344, 64),
        ConstantBufferAddrUpper(i) => bi("CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6", i, 8, 1394, 1376, 64),
        ConstantBufferSizeShifted4(i) => bi("CONSTANT_BUFFER_SIZE_SHIFTED4", i, 8, 1407, 1395, 64),
        ConstantBufferValid(i) => bi("CONSTANT_BUFFER_VALID", i, 8, 1856, 1856, 4),
        ConstantBufferInvalidate(i) => bi("CONSTANT_BUFFER_INVALIDATE", i, 8, 1859, 1859, 4),
        ProgramPrefetchAddrLowerShifted => b("PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED", 1919, 1888),
        ProgramPrefetchAddrUpperShifted => b("PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED", 1936, 1920),
    }
}

// Field values named in the headers (the same numbers in V3, V4 and V5).

/// `QMD_TYPE_GRID_CTA` (V4, V5).
pub const QMD_TYPE_GRID_CTA: u64 = 2;
/// `API_VISIBLE_CALL_LIMIT_NO_CHECK`.
pub const API_VISIBLE_CALL_LIMIT_NO_CHECK: u64 = 1;
/// `SAMPLER_INDEX_VIA_HEADER_INDEX`.
pub const SAMPLER_INDEX_VIA_HEADER_INDEX: u64 = 1;
/// `CWD_MEMBAR_TYPE_L1_SYSMEMBAR`.
pub const CWD_MEMBAR_TYPE_L1_SYSMEMBAR: u64 = 1;
/// `DEPENDENT_QMD_ACTION_QMD_SCHEDULE` (`DEPENDENT_QMD0_ACTION_QMD_SCHEDULE` on V3).
pub const DEPENDENT_QMD_ACTION_QMD_SCHEDULE: u64 = 1;
/// `RELEASE_STRUCTURE_SIZE_SEMAPHORE_FOUR_WORDS`: payload, then a timestamp at +8.
pub const RELEASE_STRUCTURE_SIZE_FOUR_WORDS: u64 = 0;
/// `RELEASE_STRUCTURE_SIZE_SEMAPHORE_ONE_WORD`: the payload only.
pub const RELEASE_STRUCTURE_SIZE_ONE_WORD: u64 = 1;
/// `RELEASE_MEMBAR_TYPE_FE_SYSMEMBAR`.
pub const RELEASE_MEMBAR_TYPE_FE_SYSMEMBAR: u64 = 1;

/// A QMD image.
#[derive(Clone, PartialEq, Eq)]
pub struct Qmd {
    version: QmdVersion,
    words: [u32; MAX_DWORDS],
}

impl std::fmt::Debug for Qmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Qmd({:?}, {:08x?})", self.version, self.words())
    }
}

/// A release semaphore written when the launch completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub address: u64,
    pub payload: u64,
    /// Write all 64 bits of the payload (`RELEASE_PAYLOAD64B`; V4/V5 only, V3 has the field but
    /// tinygrad never sets it).
    pub payload64: bool,
    /// FOUR_WORDS (payload and timestamp) or ONE_WORD (payload only).
    pub timestamp: bool,
}

/// Everything a launch needs, for [`Qmd::launch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchDesc {
    /// GPU VA of the kernel's first instruction (`.text.<kernel>` in the uploaded image).
    pub program_address: u64,
    /// Size of the kernel's code, for the instruction prefetch.
    pub program_size: u64,
    pub registers: u32,
    pub barriers: u32,
    /// Total shared memory per CTA in bytes (the static `.nv.shared.<kernel>` size plus dynamic
    /// shared memory plus the 1 KiB the driver reserves on sm_80+; see [`shared_memory_bytes`]).
    pub shared_bytes: u32,
    /// `sm_XY` as `XY` (89, 90, 120): selects the shared-memory carve-out choices and SASS_VERSION.
    pub sm: u32,
    /// Per-thread local memory (stack) in bytes.
    pub local_bytes: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Constant buffers: (bank, GPU VA, size in bytes). Bank 0 is the parameter buffer.
    pub constant_buffers: Vec<(u8, u64, u32)>,
}

/// Shared memory a kernel needs per CTA: its static and dynamic sizes plus the 1 KiB the driver
/// reserves on sm_80 and later, rounded up to 128 bytes (tinygrad `ops_nv.py`, [3rd-party]).
pub fn shared_memory_bytes(static_bytes: u32, dynamic_bytes: u32) -> u32 {
    (0x400 + static_bytes + dynamic_bytes).div_ceil(128) * 128
}

/// The L1/shared carve-outs (KiB) an SM of `sm_XY` can be configured with (CUDA C Programming
/// Guide, "Shared Memory" per compute capability): 8.6/8.7/8.9 and 12.x up to 100 KiB, 8.0 up to
/// 164 KiB, 9.0 and 10.x up to 228 KiB.
pub fn shared_carveouts_kib(sm: u32) -> &'static [u32] {
    match sm {
        80 => &[0, 8, 16, 32, 64, 100, 132, 164],
        90..=119 => &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
        _ => &[0, 8, 16, 32, 64, 100],
    }
}

/// The `*_SM_CONFIG_SHARED_MEM_SIZE` encoding of a carve-out: KiB / 4 + 1. The headers do not
/// document it; this is what Mesa NVK and tinygrad write ([3rd-party], unverified on hardware).
pub fn sm_config_encoding(kib: u32) -> u64 {
    (kib / 4 + 1) as u64
}

/// (min, target, max) SM shared-memory configuration for `shared_bytes` on `sm_XY`: the smallest
/// carve-out that fits, and the largest the SM has.
pub fn sm_config(shared_bytes: u32, sm: u32) -> Result<(u64, u64, u64)> {
    let choices = shared_carveouts_kib(sm);
    let max = *choices.last().unwrap_or(&0);
    let fit =
        choices.iter().copied().find(|&k| k * 1024 >= shared_bytes).ok_or_else(|| {
            Error::Protocol(format!("{shared_bytes} bytes of shared memory exceed sm_{sm}'s {max} KiB"))
        })?;
    // Never below 32 KiB: tinygrad chooses among 32/64/100 KiB only ([3rd-party]).
    let fit = fit.max(32.min(max));
    Ok((sm_config_encoding(fit), sm_config_encoding(fit), sm_config_encoding(max)))
}

/// SASS_VERSION for `sm_XY`: major in the high nibble, minor in the low (0x89, 0x90, 0xc0).
pub fn sass_version(sm: u32) -> u64 {
    (((sm / 10) << 4) | (sm % 10)) as u64
}

impl Qmd {
    /// An all-zero QMD of `version`.
    pub fn zeroed(version: QmdVersion) -> Qmd {
        Qmd { version, words: [0; MAX_DWORDS] }
    }

    /// A QMD with only the version fields set (`QMD_MAJOR_VERSION`, minor 0).
    pub fn new(version: QmdVersion) -> Qmd {
        let mut q = Qmd::zeroed(version);
        q.set(Field::QmdMajorVersion, version.major()).expect("major version fits");
        q
    }

    /// A QMD from its dwords (the length must be the version's size).
    pub fn from_words(version: QmdVersion, words: &[u32]) -> Result<Qmd> {
        if words.len() != version.dwords() {
            return Err(Error::Protocol(format!(
                "QMD {version:?} has {} dwords, got {}",
                version.dwords(),
                words.len()
            )));
        }
        let mut q = Qmd::zeroed(version);
        q.words[..words.len()].copy_from_slice(words);
        Ok(q)
    }

    pub fn version(&self) -> QmdVersion {
        self.version
    }

    pub fn words(&self) -> &[u32] {
        &self.words[..self.version.dwords()]
    }

    /// Little-endian bytes, as the GPU reads them.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words().iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn bits_of(&self, field: Field) -> Result<Bits> {
        self.version.bits(field).ok_or_else(|| {
            Error::Protocol(format!("QMD {:?} ({}) has no field {field:?}", self.version, self.version.header().0))
        })
    }

    /// Write `value` into `field`; an error if the layout lacks the field or the value does not fit.
    pub fn set(&mut self, field: Field, value: u64) -> Result<&mut Self> {
        let bits = self.bits_of(field)?;
        if value > bits.max() {
            return Err(Error::Protocol(format!(
                "QMD {:?} {}{}: {value:#x} does not fit {} bits",
                self.version,
                bits.name,
                bits.index.map(|i| format!("({i})")).unwrap_or_default(),
                bits.width()
            )));
        }
        self.write_bits(bits.lo, bits.width(), value);
        Ok(self)
    }

    /// Read `field`.
    pub fn get(&self, field: Field) -> Result<u64> {
        let bits = self.bits_of(field)?;
        Ok(self.read_bits(bits.lo, bits.width()))
    }

    fn write_bits(&mut self, lo: u32, width: u32, value: u64) {
        let mut done = 0;
        while done < width {
            let bit = lo + done;
            let (word, shift) = ((bit / 32) as usize, bit % 32);
            let n = (32 - shift).min(width - done);
            let mask = if n == 32 { u32::MAX } else { ((1u32 << n) - 1) << shift };
            let part = ((value >> done) as u32) << shift;
            self.words[word] = (self.words[word] & !mask) | (part & mask);
            done += n;
        }
    }

    fn read_bits(&self, lo: u32, width: u32) -> u64 {
        let mut out = 0u64;
        let mut done = 0;
        while done < width {
            let bit = lo + done;
            let (word, shift) = ((bit / 32) as usize, bit % 32);
            let n = (32 - shift).min(width - done);
            let mask = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
            out |= (((self.words[word] >> shift) & mask) as u64) << done;
            done += n;
        }
        out
    }

    /// Split `value >> shift` over a lower (32-bit) and upper field; `align` is checked first.
    fn set_split(&mut self, lower: Field, upper: Field, value: u64, shift: u32, what: &str) -> Result<()> {
        if value & ((1u64 << shift) - 1) != 0 {
            return Err(Error::Protocol(format!("{what} {value:#x} is not {}-byte aligned", 1u64 << shift)));
        }
        let v = value >> shift;
        let upper_bits = self.bits_of(upper)?;
        if (v >> 32) > upper_bits.max() {
            return Err(Error::Protocol(format!(
                "{what} {value:#x} is beyond the QMD {:?} limit (2^{})",
                self.version,
                32 + upper_bits.width() + shift
            )));
        }
        self.set(lower, v & 0xffff_ffff)?;
        self.set(upper, v >> 32)?;
        Ok(())
    }

    /// Program address and its instruction prefetch (`PROGRAM_PREFETCH_ADDR_*_SHIFTED` = addr >> 8,
    /// `PROGRAM_PREFETCH_SIZE` in 256-byte units, capped at the field's width).
    pub fn set_program(&mut self, address: u64, size: u64) -> Result<&mut Self> {
        let shift = self.version.program_address_shift();
        self.set_split(Field::ProgramAddressLower, Field::ProgramAddressUpper, address, shift, "program address")?;
        let prefetch = address >> 8;
        let upper = self.bits_of(Field::ProgramPrefetchAddrUpperShifted)?;
        if (prefetch >> 32) <= upper.max() {
            self.set(Field::ProgramPrefetchAddrLowerShifted, prefetch & 0xffff_ffff)?;
            self.set(Field::ProgramPrefetchAddrUpperShifted, prefetch >> 32)?;
            let max = self.bits_of(Field::ProgramPrefetchSize)?.max();
            self.set(Field::ProgramPrefetchSize, (size >> 8).min(max))?;
        }
        Ok(self)
    }

    pub fn set_registers(&mut self, registers: u32) -> Result<&mut Self> {
        self.set(Field::RegisterCount, registers as u64)
    }

    pub fn set_barriers(&mut self, barriers: u32) -> Result<&mut Self> {
        self.set(Field::BarrierCount, barriers as u64)
    }

    /// Shared memory per CTA (bytes) and the SM carve-out configuration for `sm_XY`.
    pub fn set_shared_memory(&mut self, bytes: u32, sm: u32) -> Result<&mut Self> {
        let shift = self.version.shared_memory_shift();
        let v = (bytes as u64).div_ceil(1 << shift);
        self.set(Field::SharedMemorySize, v)?;
        let (min, target, max) = sm_config(bytes, sm)?;
        self.set(Field::MinSmConfigSharedMemSize, min)?;
        self.set(Field::TargetSmConfigSharedMemSize, target)?;
        self.set(Field::MaxSmConfigSharedMemSize, max)
    }

    /// Per-thread local memory: `low` below the stack, `high` the stack (bytes).
    pub fn set_local_memory(&mut self, low: u32, high: u32) -> Result<&mut Self> {
        let shift = self.version.local_memory_shift();
        self.set(Field::ShaderLocalMemoryLowSize, (low as u64).div_ceil(1 << shift))?;
        self.set(Field::ShaderLocalMemoryHighSize, (high as u64).div_ceil(1 << shift))
    }

    pub fn set_grid(&mut self, grid: [u32; 3]) -> Result<&mut Self> {
        if grid.contains(&0) {
            return Err(Error::Protocol(format!("grid {grid:?} has a zero dimension")));
        }
        self.set(Field::GridWidth, grid[0] as u64)?;
        self.set(Field::GridHeight, grid[1] as u64)?;
        self.set(Field::GridDepth, grid[2] as u64)
    }

    pub fn set_block(&mut self, block: [u32; 3]) -> Result<&mut Self> {
        if block.contains(&0) || block.iter().map(|&d| d as u64).product::<u64>() > 1024 {
            return Err(Error::Protocol(format!("block {block:?} is empty or over 1024 threads")));
        }
        self.set(Field::CtaThreadDimension0, block[0] as u64)?;
        self.set(Field::CtaThreadDimension1, block[1] as u64)?;
        self.set(Field::CtaThreadDimension2, block[2] as u64)
    }

    /// Constant buffer `bank` at `address` (64-byte aligned on V4/V5, 4 on V3) of `size` bytes:
    /// address, `SIZE_SHIFTED4` = ceil(size / 16), VALID and INVALIDATE.
    pub fn set_constant_buffer(&mut self, bank: u8, address: u64, size: u32) -> Result<&mut Self> {
        if bank >= self.version.constant_buffers() {
            return Err(Error::Protocol(format!("constant bank {bank} out of range (0..8)")));
        }
        let shift = self.version.constant_buffer_shift().max(2);
        let what = format!("constant buffer {bank} address");
        let shift_field = self.version.constant_buffer_shift();
        if address & ((1u64 << shift) - 1) != 0 {
            return Err(Error::Protocol(format!("{what} {address:#x} is not {}-byte aligned", 1u64 << shift)));
        }
        self.set_split(
            Field::ConstantBufferAddrLower(bank),
            Field::ConstantBufferAddrUpper(bank),
            address,
            shift_field,
            &what,
        )?;
        self.set(Field::ConstantBufferSizeShifted4(bank), (size as u64).div_ceil(16))?;
        self.set(Field::ConstantBufferValid(bank), 1)?;
        self.set(Field::ConstantBufferInvalidate(bank), 1)
    }

    /// Release semaphore `slot` (0..3) on completion.
    pub fn set_release(&mut self, slot: u8, release: Release) -> Result<&mut Self> {
        if release.address & 3 != 0 {
            return Err(Error::Protocol(format!("release address {:#x} is not 4-byte aligned", release.address)));
        }
        let upper = self.bits_of(Field::ReleaseAddrUpper(slot))?;
        if (release.address >> 32) > upper.max() {
            return Err(Error::Protocol(format!(
                "release address {:#x} is beyond the QMD {:?} limit (2^{})",
                release.address,
                self.version,
                32 + upper.width()
            )));
        }
        if !release.payload64 && release.payload >> 32 != 0 {
            return Err(Error::Protocol(format!("release payload {:#x} needs payload64", release.payload)));
        }
        self.set(Field::ReleaseAddrLower(slot), release.address & 0xffff_ffff)?;
        self.set(Field::ReleaseAddrUpper(slot), release.address >> 32)?;
        self.set(Field::ReleasePayloadLower(slot), release.payload & 0xffff_ffff)?;
        self.set(Field::ReleasePayloadUpper(slot), release.payload >> 32)?;
        let structure =
            if release.timestamp { RELEASE_STRUCTURE_SIZE_FOUR_WORDS } else { RELEASE_STRUCTURE_SIZE_ONE_WORD };
        self.set(Field::ReleaseStructureSize(slot), structure)?;
        self.set(Field::ReleasePayload64b(slot), release.payload64 as u64)?;
        self.set(Field::ReleaseMembarType(slot), RELEASE_MEMBAR_TYPE_FE_SYSMEMBAR)?;
        self.set(Field::ReleaseEnable(slot), 1)
    }

    /// The first release slot not yet enabled.
    pub fn free_release_slot(&self) -> Option<u8> {
        (0..self.version.release_slots()).find(|&s| self.get(Field::ReleaseEnable(s)).unwrap_or(1) == 0)
    }

    /// Chain the QMD at `next` (256-byte aligned, below 2^40) to run after this one:
    /// pointer = next >> 8, action QMD_SCHEDULE, prefetch, enable. V3 has one pointer only.
    pub fn set_dependent(&mut self, slot: u8, next: u64) -> Result<&mut Self> {
        if next & 0xff != 0 || next >> 40 != 0 {
            return Err(Error::Protocol(format!("dependent QMD {next:#x} is not 256-byte aligned below 2^40")));
        }
        self.set(Field::DependentQmdPointer(slot), next >> 8)?;
        self.set(Field::DependentQmdAction(slot), DEPENDENT_QMD_ACTION_QMD_SCHEDULE)?;
        self.set(Field::DependentQmdPrefetch(slot), 1)?;
        self.set(Field::DependentQmdEnable(slot), 1)
    }

    /// The six INVALIDATE_*_CACHE bits.
    pub fn set_invalidate_caches(&mut self, on: bool) -> Result<&mut Self> {
        for f in [
            Field::InvalidateTextureHeaderCache,
            Field::InvalidateTextureSamplerCache,
            Field::InvalidateTextureDataCache,
            Field::InvalidateShaderDataCache,
            Field::InvalidateInstructionCache,
            Field::InvalidateShaderConstantCache,
        ] {
            self.set(f, on as u64)?;
        }
        Ok(self)
    }

    /// A complete launch QMD: version, QMD_GROUP_ID 0x3f, QMD_TYPE GRID_CTA (V4/V5),
    /// SM_GLOBAL_CACHING (V3), API_VISIBLE_CALL_LIMIT NO_CHECK, SAMPLER_INDEX VIA_HEADER_INDEX,
    /// CWD_MEMBAR L1_SYSMEMBAR, cache invalidation, SASS_VERSION, then the launch's own fields.
    pub fn launch(version: QmdVersion, desc: &LaunchDesc) -> Result<Qmd> {
        let mut q = Qmd::new(version);
        q.set(Field::QmdGroupId, 0x3f)?;
        if version == QmdVersion::V3 {
            q.set(Field::SmGlobalCachingEnable, 1)?;
        } else {
            q.set(Field::QmdType, QMD_TYPE_GRID_CTA)?;
        }
        q.set(Field::ApiVisibleCallLimit, API_VISIBLE_CALL_LIMIT_NO_CHECK)?;
        q.set(Field::SamplerIndex, SAMPLER_INDEX_VIA_HEADER_INDEX)?;
        q.set(Field::CwdMembarType, CWD_MEMBAR_TYPE_L1_SYSMEMBAR)?;
        q.set_invalidate_caches(true)?;
        q.set(Field::SassVersion, sass_version(desc.sm))?;
        q.set_program(desc.program_address, desc.program_size)?;
        q.set_registers(desc.registers)?;
        q.set_barriers(desc.barriers)?;
        q.set_shared_memory(desc.shared_bytes, desc.sm)?;
        q.set_local_memory(0, desc.local_bytes)?;
        q.set_grid(desc.grid)?;
        q.set_block(desc.block)?;
        for &(bank, addr, size) in &desc.constant_buffers {
            q.set_constant_buffer(bank, addr, size)?;
        }
        Ok(q)
    }
}
