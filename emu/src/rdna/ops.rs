//! The pre-decoded instruction form: what the wave loop executes. Operands are resolved
//! (registers as indices, inline constants and literals as typed values, branch targets as
//! instruction indices).

/// How a VALU source or result is typed: selects inline-constant values, modifiers and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    B16,
    F16,
    B32,
    F32,
    B64,
    F64,
    /// A lane mask (wave32: one SGPR, wave64: a pair).
    Mask,
}

impl Ty {
    pub fn is64(self) -> bool {
        matches!(self, Ty::B64 | Ty::F64)
    }
    pub fn is16(self) -> bool {
        matches!(self, Ty::B16 | Ty::F16)
    }
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }
}

/// A scalar source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ss {
    /// SGPR file index 0..=127 (VCC, TTMP, M0, NULL, EXEC included).
    R(u8),
    K(u64),
    Scc,
    Vccz,
    Execz,
}

/// A vector source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vs {
    V(u16),
    S(Ss),
}

/// `Op::Smem::n` values above 16: sub-dword loads into one SGPR (gfx12).
pub const SMEM_U8: u8 = 0x81;
pub const SMEM_I8: u8 = 0x82;
pub const SMEM_U16: u8 = 0x83;
pub const SMEM_I16: u8 = 0x84;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tgt {
    Idx(u32),
    Pc(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

macro_rules! ops {
    ($name:ident { $($v:ident),* $(,)? }) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name { $($v),* }
    };
}

ops!(SOp {
    // SOP2
    AddU32,
    SubU32,
    AddI32,
    SubI32,
    AddcU32,
    SubbU32,
    MinI32,
    MinU32,
    MaxI32,
    MaxU32,
    Cselect32,
    Cselect64,
    And32,
    And64,
    Or32,
    Or64,
    Xor32,
    Xor64,
    Andn232,
    Andn264,
    Orn232,
    Orn264,
    Nand32,
    Nand64,
    Nor32,
    Nor64,
    Xnor32,
    Xnor64,
    Lshl32,
    Lshl64,
    Lshr32,
    Lshr64,
    Ashr32,
    Ashr64,
    Bfm32,
    Bfm64,
    MulI32,
    BfeU32,
    BfeI32,
    BfeU64,
    BfeI64,
    AbsdiffI32,
    Lshl1Add,
    Lshl2Add,
    Lshl3Add,
    Lshl4Add,
    PackLl,
    PackLh,
    PackHh,
    PackHl,
    MulHiU32,
    MulHiI32,
    AddU64,
    SubU64,
    MulU64,
    AddF32,
    SubF32,
    MulF32,
    MinF32,
    MaxF32,
    FmacF32,
    CvtPkRtz,
    // SOP1
    Mov32,
    Mov64,
    Cmov32,
    Cmov64,
    Not32,
    Not64,
    Wqm32,
    Wqm64,
    Brev32,
    Brev64,
    Bcnt0_32,
    Bcnt0_64,
    Bcnt1_32,
    Bcnt1_64,
    Ctz32,
    Ctz64,
    Clz32,
    Clz64,
    Cls32,
    Cls64,
    Sext8,
    Sext16,
    Bitset0_32,
    Bitset0_64,
    Bitset1_32,
    Bitset1_64,
    AbsI32,
    Quadmask32,
    Quadmask64,
    AndSaveexec,
    OrSaveexec,
    XorSaveexec,
    AndNot0Saveexec,
    AndNot1Saveexec,
    OrNot0Saveexec,
    OrNot1Saveexec,
    NandSaveexec,
    NorSaveexec,
    XnorSaveexec,
    AndNot0Wrexec,
    AndNot1Wrexec,
    CvtF32I32,
    CvtF32U32,
    CvtI32F32,
    CvtU32F32,
    CeilF32,
    FloorF32,
    TruncF32,
    RndneF32,
    CvtF32F16,
    CvtF16F32,
    CvtHiF32F16,
    // SOPC
    CmpEqI32,
    CmpLgI32,
    CmpGtI32,
    CmpGeI32,
    CmpLtI32,
    CmpLeI32,
    CmpEqU32,
    CmpLgU32,
    CmpGtU32,
    CmpGeU32,
    CmpLtU32,
    CmpLeU32,
    CmpEqU64,
    CmpLgU64,
    Bitcmp0_32,
    Bitcmp1_32,
    Bitcmp0_64,
    Bitcmp1_64,
    CmpLtF32,
    CmpEqF32,
    CmpLeF32,
    CmpGtF32,
    CmpLgF32,
    CmpGeF32,
    CmpOF32,
    CmpUF32,
    CmpNgeF32,
    CmpNlgF32,
    CmpNgtF32,
    CmpNleF32,
    CmpNeqF32,
    CmpNltF32,
    // SOPK
    Movk,
    Cmovk,
    Addk,
    Mulk,
    Getreg,
    Setreg,
    SetregImm,
    SendmsgRtn,
});

ops!(VOp {
    // 32-bit integer
    AddU32,
    SubU32,
    SubrevU32,
    MulLo,
    MulHiU,
    MulHiI,
    MulU24,
    MulI24,
    MulHiU24,
    MulHiI24,
    LshlRev,
    LshrRev,
    AshrRev,
    And,
    Or,
    Xor,
    Xnor,
    MinI,
    MaxI,
    MinU,
    MaxU,
    Bfm,
    Bcnt,
    MbcntLo,
    MbcntHi,
    Add3,
    LshlAdd,
    AddLshl,
    LshlOr,
    AndOr,
    Or3,
    Xor3,
    Xad,
    BfeU,
    BfeI,
    Bfi,
    Alignbit,
    Alignbyte,
    Perm,
    MadU24,
    MadI24,
    Min3I,
    Max3I,
    Med3I,
    Min3U,
    Max3U,
    Med3U,
    Mov,
    MovRelD,
    MovRelS,
    MovRelSD,
    MovRelSD2,
    Not,
    Bfrev,
    Clz,
    Ctz,
    Cls,
    Cndmask,
    SadU32,
    SadU8,
    SadHiU8,
    SadU16,
    MsadU8,
    LerpU8,
    MovB16,
    CndmaskB16,
    AddU16,
    SubU16,
    MulLoU16,
    LshlRevB16,
    LshrRevB16,
    AshrRevB16,
    AndB16,
    OrB16,
    XorB16,
    NotB16,
    MaxU16,
    MinU16,
    MaxI16,
    MinI16,
    AddI16,
    SubI16,
    MadU16,
    PackB32F16,
    CvtPkI16I32,
    CvtPkU16U32,
    SextI32I16,
    Bcnt16,
    // carries
    AddCo,
    SubCo,
    SubrevCo,
    AddCoCi,
    SubCoCi,
    SubrevCoCi,
    MadU64U32,
    MadI64I32,
    // 64-bit integer
    LshlRev64,
    LshrRev64,
    AshrRev64,
    AddU64,
    Mov64,
    // f32
    AddF32,
    SubF32,
    SubrevF32,
    MulF32,
    MulLegacyF32,
    MinF32,
    MaxF32,
    MinimumF32,
    MaximumF32,
    LdexpF32,
    FmaF32,
    FmaLegacyF32,
    DivFixupF32,
    DivFmasF32,
    DivScaleF32,
    Med3F32,
    Min3F32,
    Max3F32,
    RcpF32,
    RsqF32,
    SqrtF32,
    ExpF32,
    LogF32,
    SinF32,
    CosF32,
    FloorF32,
    CeilF32,
    TruncF32,
    RndneF32,
    FractF32,
    FrexpMantF32,
    FrexpExpF32,
    CvtF32I32,
    CvtF32U32,
    CvtI32F32,
    CvtU32F32,
    CvtF32Ubyte0,
    CvtF32Ubyte1,
    CvtF32Ubyte2,
    CvtF32Ubyte3,
    CvtRpiI32F32,
    CvtFlrI32F32,
    ClassF32,
    CvtPkRtzF16F32,
    CvtPkNormI16F32,
    CvtPkF32ToF16,
    // f16
    CvtF32F16,
    CvtF16F32,
    AddF16,
    SubF16,
    SubrevF16,
    MulF16,
    FmaF16,
    MaxF16,
    MinF16,
    LdexpF16,
    SqrtF16,
    RcpF16,
    RsqF16,
    ExpF16,
    LogF16,
    FloorF16,
    CeilF16,
    TruncF16,
    RndneF16,
    FractF16,
    CvtF16I16,
    CvtF16U16,
    CvtI16F16,
    CvtU16F16,
    DivFixupF16,
    ClassF16,
    Med3F16,
    Min3F16,
    Max3F16,
    FmaMixF32,
    FmaMixLoF16,
    FmaMixHiF16,
    CvtI32I16F16,
    CvtU32U16F16,
    // f64
    AddF64,
    MulF64,
    FmaF64,
    MinF64,
    MaxF64,
    MinimumF64,
    MaximumF64,
    LdexpF64,
    DivScaleF64,
    DivFmasF64,
    DivFixupF64,
    RcpF64,
    RsqF64,
    SqrtF64,
    FloorF64,
    CeilF64,
    TruncF64,
    RndneF64,
    FractF64,
    FrexpMantF64,
    FrexpExpF64,
    CvtF64I32,
    CvtF64U32,
    CvtI32F64,
    CvtU32F64,
    CvtF64F32,
    CvtF32F64,
    ClassF64,
    // lanes
    ReadLane,
    ReadFirstLane,
    WriteLane,
    PermlaneX16,
    Permlane16,
    // VOP3P packed 16-bit
    PkAddF16,
    PkMulF16,
    PkFmaF16,
    PkMaxF16,
    PkMinF16,
    PkAddU16,
    PkSubU16,
    PkAddI16,
    PkSubI16,
    PkMulLoU16,
    PkLshlrevB16,
    PkLshrrevB16,
    PkAshrrevI16,
    PkMaxI16,
    PkMinI16,
    PkMaxU16,
    PkMinU16,
    PkMadU16,
    PkMadI16,
    Dot2F32F16,
    Dot2F32Bf16,
    // gfx9 integer dot products (exec/cdna4.rs)
    Dot2I32I16,
    Dot2U32U16,
    Dot4I32I8,
    Dot4U32U8,
    Dot8I32I4,
    Dot8U32U4,
    // gfx9 (CDNA)
    LshlAddU64,
    Bitop3,
    // gfx950 (CDNA4)
    CvtPkBf16F32,
    CvtF32Bf16,
    Prng,
    // gfx9 16-bit multiply-adds with a 32-bit addend
    MadU32U16,
    MadI32I16,
    // compares: Cmp(ty, cond) encoded separately
    Cmp,
});

/// Compare condition, with the class test as a condition of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    F,
    Lt,
    Eq,
    Le,
    Gt,
    Lg,
    Ne,
    Ge,
    O,
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    Neq,
    Nlt,
    T,
    Class,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpTy {
    F16,
    F32,
    F64,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dpp {
    None,
    /// dpp_ctrl, row_mask, bank_mask, bound_ctrl, fi
    D16 {
        ctrl: u16,
        row_mask: u8,
        bank_mask: u8,
        bound_ctrl: bool,
        fi: bool,
    },
    D8 {
        sel: u32,
        fi: bool,
    },
}

/// gfx9 SDWA: which bytes or words of each source the operation reads, and where its result
/// goes in the destination. Selects: 0..=3 BYTE_n, 4 WORD_0, 5 WORD_1, 6 DWORD.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sdwa {
    pub v: Valu,
    pub src_sel: [u8; 2],
    /// Integer sources: sign-extend the selected part (else zero-extend).
    pub sext: [bool; 2],
    pub dst_sel: u8,
    /// 0: the other destination bits are zeroed, 1: sign-extended from the result, 2: kept.
    pub dst_unused: u8,
}

/// One VALU operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Valu {
    pub op: VOp,
    pub cmp: (CmpOp, CmpTy),
    /// VGPR destination (or SGPR for readlane/readfirstlane, compare destination SGPR).
    pub dst: u16,
    /// Carry-out/VCC-style SGPR destination (124 = null).
    pub sdst: u8,
    pub src: [Vs; 3],
    pub nsrc: u8,
    pub tys: [Ty; 3],
    pub dty: Ty,
    pub neg: u8,
    pub abs: u8,
    /// 16-bit halves: bits 0..=2 sources, bit 3 destination.
    pub opsel: u8,
    /// VOP3P: opsel_hi (fma_mix: which sources are f16).
    pub opsel_hi: u8,
    pub clamp: bool,
    pub omod: u8,
    /// Compare writes EXEC (v_cmpx).
    pub cmpx: bool,
    /// Compare writes VCC (e32) rather than `dst` as an SGPR.
    pub dpp: Dpp,
    /// An 8-bit immediate of the operation: v_bitop3's truth table.
    pub imm: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemKind {
    Global,
    Flat,
    Scratch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemOp {
    /// Load of `bytes` per lane; sign/zero extension for sub-dword loads; d16: to the lo/hi half.
    Load {
        bytes: u8,
        sign: bool,
        d16: u8,
    },
    Store {
        bytes: u8,
        d16hi: bool,
    },
    Atomic {
        op: AtomicOp,
        wide: bool,
        ret: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Swap,
    Cmpswap,
    Add,
    Sub,
    Smin,
    Umin,
    Smax,
    Umax,
    And,
    Or,
    Xor,
    Inc,
    Dec,
    AddF32,
    MinF32,
    MaxF32,
    AddF64,
    MinF64,
    MaxF64,
    CondSub,
    SubClamp,
    /// gfx9: two f16 (bf16) adds on the halves of a dword.
    PkAddF16,
    PkAddBf16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VMem {
    pub kind: MemKind,
    pub op: MemOp,
    pub vdst: u16,
    pub data: u16,
    pub addr: u16,
    /// SGPR base (pair for global, single for scratch); None = off.
    pub saddr: Option<u8>,
    /// Scratch: whether the VGPR address is used.
    pub use_vaddr: bool,
    pub offset: i32,
}

/// Which buffer resource (V#) layout the words in the SGPRs follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VsharpLayout {
    /// gfx9 (CDNA3/4): stride 14 bits at word1[29:16], swizzle at word1[31], dfmt/nfmt in word3,
    /// no OOB_SELECT.
    Gfx9,
    /// gfx11/gfx12: stride 14 bits at word1[29:16], swizzle at word1[31:30], the unified 7-bit
    /// FORMAT at word3[18:12] (gfx12: [17:12]), OOB_SELECT at word3[29:28].
    Gfx11,
    Gfx12,
}

/// A format conversion of a buffer access (`buffer_*_format_*`, `tbuffer_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufFmt {
    /// Components moved (x, xy, xyz, xyzw).
    pub comps: u8,
    /// Components are 16-bit, two to a VGPR (`_d16_`); `hi`: one, in the high half.
    pub d16: bool,
    pub hi: bool,
    /// `tbuffer_*`: the format the instruction gives (gfx9: dfmt | nfmt << 4; gfx11+: FORMAT);
    /// `None`: the V#'s.
    pub inst: Option<u8>,
}

/// A buffer access (MUBUF, MTBUF, gfx12 VBUFFER): the address comes from a buffer resource
/// (V#) in four SGPRs, an SGPR offset, an instruction offset, and a VGPR offset and/or index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufAccess {
    pub op: MemOp,
    pub fmt: Option<BufFmt>,
    pub layout: VsharpLayout,
    pub vdata: u16,
    pub vaddr: u16,
    /// First of the four V# SGPRs.
    pub srsrc: u8,
    pub soffset: Ss,
    pub offset: u32,
    pub offen: bool,
    pub idxen: bool,
    /// A load written to the LDS (at M0 + offset + lane × size), not to `vdata`.
    pub lds: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DsOp {
    Load {
        bytes: u8,
        sign: bool,
        d16: u8,
    },
    Store {
        bytes: u8,
        d16hi: bool,
    },
    Load2 {
        bytes: u8,
    },
    /// `ds_read_addtid_b32` / `ds_write_addtid_b32`: a dword at OFFSET + M0[15:0] + lane × 4
    /// (no address VGPR).
    LoadTid,
    StoreTid,
    /// gfx950 `ds_read_b64_tr_b{4,8,16}` / `ds_read_b96_tr_b6`: `bytes` per lane of
    /// `bits`-wide elements, transposed across each 16 lanes (exec/ds_tr.rs).
    LoadTr {
        bytes: u8,
        bits: u8,
    },
    Store2 {
        bytes: u8,
    },
    Atomic {
        op: AtomicOp,
        wide: bool,
        ret: bool,
    },
    Nop,
    /// ds_bpermute_b32 / ds_permute_b32 / ds_swizzle_b32
    Bpermute,
    Permute,
    Swizzle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ds {
    pub op: DsOp,
    pub vdst: u16,
    pub addr: u16,
    pub data0: u16,
    pub data1: u16,
    pub off0: u32,
    pub off1: u32,
}

/// A conversion between f32/f16/bf16 and the narrow formats (gfx942 FP8/BF8 FNUZ; gfx950
/// OCP FP8/BF8 and the `v_cvt_scalef32_*` with FP6/BF6/FP4): `n` elements read packed from
/// the element sources, each scaled, converted and packed into the destination, whose other
/// bits are kept (decode/cvt8.rs gives the sources).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cvt8 {
    pub from: super::mfma::Fmt,
    pub to: super::mfma::Fmt,
    pub n: u8,
    /// The element sources (1 or 2, as src0 and src1), each `regs` dwords; the elements lie
    /// packed in their concatenation from bit `src_bit` on.
    pub srcs: u8,
    pub regs: u8,
    pub src_bit: u8,
    pub src: [Vs; 2],
    /// Stochastic rounding's random dword (`v_cvt_sr_*`): else round to nearest even.
    pub rand: Option<Vs>,
    /// The scale (`v_cvt_scalef32_*`): its f32 exponent field as an E8M0 factor.
    pub scale: Option<Vs>,
    pub dst: u16,
    pub dst_regs: u8,
    pub dst_bit: u8,
    /// f32 element sources: source modifiers (bit k: source k).
    pub neg: u8,
    pub abs: u8,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Nop,
    End,
    Branch(Tgt),
    CBranch(Cond, Tgt),
    Barrier,
    GetPc {
        dst: u8,
    },
    SetPc {
        src: u8,
    },
    SwapPc {
        dst: u8,
        src: u8,
    },
    CallImm {
        dst: u8,
        tgt: Tgt,
    },
    /// `wide`: the 64-bit form of an operation whose width the op does not say (saveexec).
    Salu {
        op: SOp,
        dst: u8,
        a: Ss,
        b: Ss,
        wide: bool,
    },
    Smem {
        dst: u8,
        n: u8,
        base: u8,
        off: i64,
        soff: Ss,
        buffer: bool,
    },
    Valu(Valu),
    /// gfx9 `s_memtime` (`real`: `s_memrealtime`): a 64-bit counter into an SGPR pair.
    Clock {
        dst: u8,
        real: bool,
    },
    /// gfx12 `v_s_*`: a VALU operation on uniform scalar sources whose one result goes to an
    /// SGPR (`dst`).
    ScalarValu(Valu),
    Vopd(Box<[Valu; 2]>),
    /// gfx9 `v_accvgpr_*`: a move within the unified VGPR/AGPR file (AGPRs as `gfx9::ACC + k`).
    AccMove {
        dst: u16,
        src: Vs,
    },
    /// gfx9 `s_set_gpr_idx_on`: M0[7:0] = the index, M0[15:12] = which VALU operands it offsets
    /// (src0, src1, src2, dst), until `s_set_gpr_idx_off` ([`Op::GprIdxOff`]).
    GprIdxOn {
        src: Ss,
        mode: u8,
    },
    GprIdxOff,
    /// gfx950 `v_permlane16_swap_b32` / `v_permlane32_swap_b32`: VDST's odd rows of 16 (or
    /// upper 32 lanes) trade places with SRC's even rows (lower 32 lanes); both are written.
    PermlaneSwap {
        vdst: u16,
        src: u16,
        half: bool,
        fi: bool,
        bound_ctrl: bool,
    },
    /// gfx9 SDWA forms of VOP1, VOP2 and VOPC.
    Sdwa(Box<Sdwa>),
    /// Narrow-format conversions (boxed: the other operations stay small).
    Cvt8(Box<Cvt8>),
    /// gfx9 `v_mfma_*` (boxed: the other operations stay small).
    Mfma(Box<super::mfma::Mfma>),
    Mem(VMem),
    /// Buffer accesses (boxed: the other operations stay small).
    Buf(Box<BufAccess>),
    /// gfx9 `global_load_lds_*` / `scratch_load_lds_*`: the load's data goes to the LDS at
    /// M0 + offset + lane × size.
    MemLds(VMem),
    Ds(Ds),
    Trap,
    Illegal(String),
}

#[derive(Clone, Debug)]
pub struct Inst {
    pub pc: u64,
    /// Bytes, literal included.
    pub size: u32,
    pub op: Op,
}
