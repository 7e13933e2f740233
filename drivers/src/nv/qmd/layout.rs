//! Where each field lives in each layout: the `MW(hi:lo)` positions of the class headers.

use super::{Field, QmdVersion};

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
