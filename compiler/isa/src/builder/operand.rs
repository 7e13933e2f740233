//! Operands and instruction modifiers, and how they render in llvm-mc's syntax.
//!
//! Immediates are values, not text: `Operand::Int(64)` renders as the inline constant `64`,
//! `Operand::Int(65)` as the literal `0x41`, `1.0f32` as the inline float `1.0` and `3.14f32` as
//! the literal of its bits. Which encoding results (inline constant or 32-bit literal) is the
//! encoder's choice for the value, as llvm-mc's.

use std::fmt::Write;

use super::label::Label;
use super::reg::{Reg, Special};

/// One instruction operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A register or register range with the VOP3 source modifiers `-x` (neg) and `|x|` (abs).
    Reg { reg: Reg, neg: bool, abs: bool },
    /// A named special register (`vcc_lo`, `exec`, `m0`, `null`...) with source modifiers.
    Special { reg: Special, neg: bool, abs: bool },
    /// An integer: an inline constant (-16..=64) when it is one, else a 32-bit literal.
    Int(i64),
    /// A 32-bit float: an inline constant (0.5, 1.0, 2.0, 4.0, their negations, 1/(2*pi), 0) when
    /// it is one, else the literal of its bits.
    F32(f32),
    /// `off` (absent address or base).
    Off,
    /// A branch target, resolved by the builder when it finishes.
    Label(Label),
    /// Text passed through as is (`vmcnt(0) lgkmcnt(0)`, `hwreg(HW_REG_MODE)`, `sendmsg(...)`).
    Raw(String),
}

impl Operand {
    /// Applies `-x` (also written `-op`).
    pub fn negated(self) -> Operand {
        match self {
            Operand::Reg { reg, neg, abs } => Operand::Reg { reg, neg: !neg, abs },
            Operand::Special { reg, neg, abs } => Operand::Special { reg, neg: !neg, abs },
            Operand::F32(f) => Operand::F32(-f),
            Operand::Int(i) => Operand::Int(i.wrapping_neg()),
            other => Operand::Raw(format!("-{}", render_plain(&other))),
        }
    }

    /// Applies `|x|`.
    pub fn absolute(self) -> Operand {
        match self {
            Operand::Reg { reg, neg, .. } => Operand::Reg { reg, neg, abs: true },
            Operand::Special { reg, neg, .. } => Operand::Special { reg, neg, abs: true },
            Operand::F32(f) => Operand::F32(f.abs()),
            Operand::Int(i) => Operand::Int(i.abs()),
            other => Operand::Raw(format!("|{}|", render_plain(&other))),
        }
    }
}

/// `-x`: negates a source (a register with the neg modifier, or the value of a constant).
pub fn neg(x: impl Into<Operand>) -> Operand {
    x.into().negated()
}

/// `|x|`: absolute value of a source.
pub fn abs(x: impl Into<Operand>) -> Operand {
    x.into().absolute()
}

impl std::ops::Neg for Operand {
    type Output = Operand;
    fn neg(self) -> Operand {
        self.negated()
    }
}

impl std::ops::Neg for Reg {
    type Output = Operand;
    /// `-v(1)`: the register with the neg source modifier.
    fn neg(self) -> Operand {
        Operand::from(self).negated()
    }
}

impl std::ops::Neg for Special {
    type Output = Operand;
    fn neg(self) -> Operand {
        Operand::from(self).negated()
    }
}

/// A 32-bit value (for example the bit pattern of an f16 pair); inline when it is an inline
/// integer constant, else a literal.
pub fn lit(value: u32) -> Operand {
    Operand::Int(value as i64)
}

/// `off`.
pub fn off() -> Operand {
    Operand::Off
}

/// Text passed through as is (waitcnt fields, `hwreg(...)`, `sendmsg(...)`).
pub fn raw(text: impl Into<String>) -> Operand {
    Operand::Raw(text.into())
}

impl From<Reg> for Operand {
    fn from(reg: Reg) -> Operand {
        Operand::Reg { reg, neg: false, abs: false }
    }
}
impl From<Special> for Operand {
    fn from(reg: Special) -> Operand {
        Operand::Special { reg, neg: false, abs: false }
    }
}
impl From<Label> for Operand {
    fn from(l: Label) -> Operand {
        Operand::Label(l)
    }
}
impl From<f32> for Operand {
    fn from(f: f32) -> Operand {
        Operand::F32(f)
    }
}
impl From<&str> for Operand {
    fn from(s: &str) -> Operand {
        Operand::Raw(s.to_string())
    }
}
macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand {
            fn from(i: $t) -> Operand {
                Operand::Int(i as i64)
            }
        }
    )*};
}
from_int!(i8, i16, i32, i64, u8, u16, u32);

/// The output modifier of VOP3 float results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Omod {
    Mul2,
    Mul4,
    Div2,
}

/// An instruction modifier (written after the operands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mod {
    /// `clamp`.
    Clamp,
    /// `mul:2`, `mul:4`, `div:2`.
    Omod(Omod),
    /// `op_sel:[..]` (VOP3 16-bit halves: sources then destination; VOP3P: sources).
    OpSel(Vec<u8>),
    /// `op_sel_hi:[..]` (VOP3P).
    OpSelHi(Vec<u8>),
    /// `neg_lo:[..]` (VOP3P).
    NegLo(Vec<u8>),
    /// `neg_hi:[..]` (VOP3P).
    NegHi(Vec<u8>),
    /// `offset:N` (DS, FLAT/GLOBAL/SCRATCH, MUBUF).
    Offset(i64),
    /// Cache-policy bits (gfx9-gfx11 `glc`, `slc`, `dlc`, `nt`, `sc0`, `sc1`).
    Flag(&'static str),
    /// Anything else, as text (`th:TH_LOAD_NT`, `scope:SCOPE_SYS`, `offset0:4 offset1:8`...).
    Raw(String),
}

/// `clamp`.
pub fn clamp() -> Mod {
    Mod::Clamp
}
/// `offset:N`.
pub fn offset(n: i64) -> Mod {
    Mod::Offset(n)
}
/// `op_sel:[..]`.
pub fn op_sel(bits: &[u8]) -> Mod {
    Mod::OpSel(bits.to_vec())
}

fn list(bits: &[u8]) -> String {
    let v: Vec<String> = bits.iter().map(|b| b.to_string()).collect();
    format!("[{}]", v.join(","))
}

impl Mod {
    pub(crate) fn render(&self) -> String {
        match self {
            Mod::Clamp => "clamp".into(),
            Mod::Omod(Omod::Mul2) => "mul:2".into(),
            Mod::Omod(Omod::Mul4) => "mul:4".into(),
            Mod::Omod(Omod::Div2) => "div:2".into(),
            Mod::OpSel(b) => format!("op_sel:{}", list(b)),
            Mod::OpSelHi(b) => format!("op_sel_hi:{}", list(b)),
            Mod::NegLo(b) => format!("neg_lo:{}", list(b)),
            Mod::NegHi(b) => format!("neg_hi:{}", list(b)),
            Mod::Offset(n) => format!("offset:{n}"),
            Mod::Flag(f) => f.to_string(),
            Mod::Raw(s) => s.clone(),
        }
    }
}

/// The f32 values with an inline-constant encoding, with llvm-mc's spelling.
const INLINE_F32: [(u32, &str); 9] = [
    (0x3f00_0000, "0.5"),
    (0xbf00_0000, "-0.5"),
    (0x3f80_0000, "1.0"),
    (0xbf80_0000, "-1.0"),
    (0x4000_0000, "2.0"),
    (0xc000_0000, "-2.0"),
    (0x4080_0000, "4.0"),
    (0xc080_0000, "-4.0"),
    (0x3e22_f983, "0.15915494"),
];

/// Whether an integer is an inline constant.
pub fn is_inline_int(i: i64) -> bool {
    (-16..=64).contains(&i)
}

/// Whether an f32 is an inline constant (as a float or as the integer 0).
pub fn is_inline_f32(f: f32) -> bool {
    f.to_bits() == 0 || INLINE_F32.iter().any(|&(b, _)| b == f.to_bits())
}

/// How integers are spelled in one rendering attempt: the encoder accepts an instruction only if
/// it reads back as written, and llvm-mc writes some immediates (SMEM offsets, `simm16`s) in hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IntStyle {
    /// Inline constants in decimal, literals as 32-bit hex.
    Canonical,
    /// Always 32-bit hex.
    Hex32,
    /// Always 16-bit hex (negative `simm16`s).
    Hex16,
    /// Always decimal.
    Decimal,
    /// 16-bit unsigned decimal (a negative `simm16` some printers show unsigned).
    Dec16,
}

pub(crate) const INT_STYLES: [IntStyle; 5] =
    [IntStyle::Canonical, IntStyle::Hex32, IntStyle::Hex16, IntStyle::Decimal, IntStyle::Dec16];

pub(crate) fn render_int(i: i64, style: IntStyle) -> String {
    match style {
        IntStyle::Canonical if is_inline_int(i) => i.to_string(),
        IntStyle::Canonical | IntStyle::Hex32 => format!("0x{:x}", i as u32),
        IntStyle::Hex16 => format!("0x{:x}", i as u16),
        IntStyle::Decimal => i.to_string(),
        IntStyle::Dec16 => (i as u16).to_string(),
    }
}

fn render_f32(f: f32) -> String {
    let bits = f.to_bits();
    if bits == 0 {
        return "0".into();
    }
    match INLINE_F32.iter().find(|&&(b, _)| b == bits) {
        Some((_, s)) => s.to_string(),
        None => format!("0x{bits:x}"),
    }
}

fn render_plain(op: &Operand) -> String {
    render(op, IntStyle::Canonical, "0")
}

/// Renders an operand; `label` is the text a label operand takes.
pub(crate) fn render(op: &Operand, style: IntStyle, label: &str) -> String {
    let with_mods = |text: String, neg: bool, abs: bool| {
        let mut s = String::new();
        if neg {
            s.push('-');
        }
        if abs {
            let _ = write!(s, "|{text}|");
        } else {
            s.push_str(&text);
        }
        s
    };
    match op {
        Operand::Reg { reg, neg, abs } => with_mods(reg.to_string(), *neg, *abs),
        Operand::Special { reg, neg, abs } => with_mods(reg.name().to_string(), *neg, *abs),
        Operand::Int(i) => render_int(*i, style),
        Operand::F32(f) => render_f32(*f),
        Operand::Off => "off".into(),
        Operand::Label(_) => label.to_string(),
        Operand::Raw(s) => s.clone(),
    }
}

/// Builds an operand array from mixed values: `ops![v(1), s(2), 1.0f32, 64]`.
#[macro_export]
macro_rules! ops {
    () => {
        [] as [$crate::builder::Operand; 0]
    };
    ($($x:expr),+ $(,)?) => {
        [$($crate::builder::Operand::from($x)),+]
    };
}
