//! QMD fields by name, independent of the layout.

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
