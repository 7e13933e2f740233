//! The typed IR the parser produces and the executor runs: per function, instructions with
//! resolved registers, symbols and branch targets.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    Pred,
}

impl Ty {
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "b128" => Ty::B128,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::Bf16,
            "bf16x2" => Ty::Bf16x2,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "pred" => Ty::Pred,
            _ => return None,
        })
    }

    /// Size in bytes (a predicate is stored as one byte).
    pub fn size(self) -> u32 {
        match self {
            Ty::B8 | Ty::U8 | Ty::S8 | Ty::Pred => 1,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 => 2,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::Bf16x2 => 4,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 8,
            Ty::B128 => 16,
        }
    }

    pub fn bits(self) -> u32 {
        self.size() * 8
    }

    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn float(self) -> bool {
        matches!(self, Ty::F16 | Ty::Bf16 | Ty::F32 | Ty::F64 | Ty::F16x2 | Ty::Bf16x2)
    }

    pub fn mask(self) -> u64 {
        if self.size() >= 8 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }
}

/// State spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Generic,
    Global,
    Shared,
    Local,
    Param,
    Const,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Param => "param",
            Space::Const => "const",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sreg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    Clock,
    Clock64,
    GlobalTimer,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
    DynSmemSize,
}

impl Sreg {
    /// The special register spelled `n` (`%tid.x`, `%laneid`, ...).
    pub fn parse(n: &str) -> Option<Sreg> {
        let dim = |s: &str| match s {
            "x" => Some(0),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        if let Some((reg, d)) = n.split_once('.') {
            let d = dim(d)?;
            return Some(match reg {
                "%tid" => Sreg::Tid(d),
                "%ntid" => Sreg::Ntid(d),
                "%ctaid" => Sreg::Ctaid(d),
                "%nctaid" => Sreg::Nctaid(d),
                _ => return None,
            });
        }
        Some(match n {
            "%laneid" => Sreg::LaneId,
            "%warpid" => Sreg::WarpId,
            "%nwarpid" => Sreg::NWarpId,
            "%smid" => Sreg::SmId,
            "%nsmid" => Sreg::NSmId,
            "%gridid" => Sreg::GridId,
            "%clock" => Sreg::Clock,
            "%clock64" => Sreg::Clock64,
            "%globaltimer" => Sreg::GlobalTimer,
            "%lanemask_eq" => Sreg::LanemaskEq,
            "%lanemask_lt" => Sreg::LanemaskLt,
            "%lanemask_le" => Sreg::LanemaskLe,
            "%lanemask_gt" => Sreg::LanemaskGt,
            "%lanemask_ge" => Sreg::LanemaskGe,
            "%dynamic_smem_size" => Sreg::DynSmemSize,
            _ => return None,
        })
    }
}

/// Where a symbol lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sym {
    /// Offset in the CTA's shared memory.
    Shared(u32),
    /// Offset in the frame's local area.
    Local(u32),
    /// Offset in the frame's parameter area.
    Param(u32),
    /// Offset in the module's constant segment.
    Const(u32),
    /// Offset in the module's global-variable segment.
    Global(u32),
    /// A function (its index).
    Func(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Opnd {
    Reg(u32),
    /// An integer literal (bits, sign-extended to 64).
    Int(u64),
    F32(u32),
    F64(u64),
    Sreg(Sreg),
    /// `[base + off]`: base a register, a symbol's address, or nothing.
    Addr(Option<u32>, Option<Sym>, i64),
    /// A symbol used as a value (its address in its space).
    Sym(Sym),
    Vec(Vec<Opnd>),
    /// A branch target (instruction index).
    Label(u32),
    /// `_`.
    Sink,
    /// `%p|%q` (setp's two results).
    Pair(u32, u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rnd {
    None,
    Rn,
    Rz,
    Rm,
    Rp,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Exch,
    Cas,
    And,
    Or,
    Xor,
    Inc,
    Dec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// Multiply/mad width selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    Lo,
    Hi,
    Wide,
    Full,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Mov,
    Ld(Space),
    St(Space),
    Cvta {
        to: bool,
        space: Space,
    },
    Add,
    Sub,
    Mul(Width),
    Mad(Width),
    Fma,
    Div,
    Rem,
    Abs,
    Neg,
    Min,
    Max,
    And,
    Or,
    Xor,
    Not,
    Cnot,
    Shl,
    Shr,
    Setp(Cmp, Option<BoolOp>),
    Selp,
    Cvt,
    Bra,
    Ret,
    Exit,
    Call,
    Bar,
    Nop,
    Atom(Space, AtomOp),
    Red(Space, AtomOp),
    Shfl(ShflMode),
    Vote(VoteMode),
    Activemask,
    Sqrt,
    Rcp,
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
    Clz,
    Popc,
    Brev,
    Bfe,
    Bfi,
    Prmt,
    /// Funnel shift: `left` (shf.l) or right; `wrap` takes the amount mod 32, else clamps at 32.
    Shf {
        left: bool,
        wrap: bool,
    },
    Copysign,
    Testp(u8),
    Trap,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    pub op: Op,
    /// The operation type (the destination type of cvt).
    pub ty: Ty,
    /// cvt's source type; setp/selp/set comparison type is `ty`.
    pub ty2: Ty,
    pub rnd: Rnd,
    pub sat: bool,
    pub ftz: bool,
    /// ld/st vector count (1, 2, 4).
    pub vec: u8,
    pub pred: Option<(u32, bool)>,
    pub ops: Vec<Opnd>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Func {
    pub name: String,
    pub is_entry: bool,
    /// Declared but not defined here (`.extern`).
    pub external: bool,
    /// Byte offsets (in the frame's parameter area) and sizes of the formal parameters.
    pub params: Vec<(u32, u32)>,
    /// The return parameters (offset, size).
    pub rets: Vec<(u32, u32)>,
    /// The whole parameter frame: the formal parameters, then the call sites' `.param`s.
    pub param_size: u32,
    pub local_size: u32,
    pub nregs: u32,
    pub body: Vec<Inst>,
    pub line: u32,
}

impl Func {
    /// Bytes of the formal parameters: what a launch passes (a kernel's parameter block).
    pub fn formal_param_size(&self) -> u32 {
        self.params.iter().map(|&(o, s)| o + s).max().unwrap_or(0)
    }
}
