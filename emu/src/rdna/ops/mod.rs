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

mod opcodes;
pub use opcodes::{SOp, VOp};

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
    /// A 16-bit result written to the low half zeroes the high half (most gfx9 16-bit
    /// operations, [`super::gfx9::zeroes_high16`]); otherwise the high half is kept.
    pub zero_hi: bool,
    /// The wave loop's fast path runs it (exec/fast.rs decides, once).
    pub fast: bool,
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
    /// gfx9 LDS forms (CDNA3 ISA guide, DS opcodes), with DATA as `cmp` and DATA2 as `src`:
    /// `ds_rsub` (DATA − MEM), `ds_mskor` ((MEM & ~DATA) | DATA2), `ds_wrap` (MEM ≥ DATA ?
    /// MEM − DATA : MEM + DATA2), `ds_cmpst_f32/f64` (a compare-and-store by float equality).
    Rsub,
    Mskor,
    Wrap,
    CmpswapF,
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
    /// gfx9 `ds_wrxchg2{,st64}_rtn_b{32,64}`: two swaps, DATA0 at OFFSET0 and DATA1 at
    /// OFFSET1; VDST gets both values before, OFFSET0's first.
    Xchg2 {
        bytes: u8,
    },
    Atomic {
        op: AtomicOp,
        wide: bool,
        ret: bool,
    },
    Nop,
    /// `ds_append` / `ds_consume` (`consume`): the LDS dword at M0 + OFFSET grows (shrinks) by
    /// the number of active lanes; every active lane gets the value before.
    Append {
        consume: bool,
    },
    /// ds_bpermute_b32 / ds_permute_b32 / ds_swizzle_b32
    Bpermute,
    Permute,
    Swizzle,
}

/// gfx9 scalar writes to memory: `s_store_*` / `s_buffer_store_*` (`n` SGPRs from `data`) and
/// `s_atomic_*` / `s_buffer_atomic_*` (the data and compare SGPRs from `data`, as VMEM atomics
/// read them from VGPRs). The address is formed as for [`Op::Smem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemWrite {
    pub kind: SmemWriteKind,
    pub data: u8,
    pub base: u8,
    pub off: i64,
    pub soff: Ss,
    /// `base` is a buffer resource (V#): its 48-bit base address.
    pub buffer: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmemWriteKind {
    Store {
        n: u8,
    },
    /// gfx9 `s_scratch_load_*` / `s_scratch_store_*` (`store`): `n` dwords at this wave's
    /// scratch plus SBASE (a pair holding a byte offset), OFFSET and SOFFSET (exec/smem.rs).
    Scratch {
        n: u8,
        store: bool,
    },
    /// `ret` (GLC): the value before the operation goes to `data`.
    Atomic {
        op: AtomicOp,
        wide: bool,
        ret: bool,
    },
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
    /// `s_movrels_*` / `s_movreld_*`: a scalar move (`wide`: of a pair) whose source register
    /// (`rel_dst`: destination register) M0 offsets at run time.
    SMovRel {
        dst: u8,
        src: Ss,
        wide: bool,
        rel_dst: bool,
    },
    /// gfx9 scalar stores and atomics (boxed: the other operations stay small).
    SmemWrite(Box<SmemWrite>),
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
    /// gfx9 `v_swap_b32`: VGPRs `a` and `b` trade values in the active lanes.
    VSwap {
        a: u16,
        b: u16,
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
    /// It issues to or waits on a memory counter (see [`super::waitcnt`]).
    pub counters: bool,
}
