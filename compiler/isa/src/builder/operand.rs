//! Operands and instruction modifiers as values.
//!
//! Immediates are values: `Operand::Int(64)` encodes as the inline constant 64,
//! `Operand::Int(65)` as a 32-bit literal, `1.0f32` as the inline float 1.0 and `3.14f32` as the
//! literal of its bits (the encoder's choice for the value, as llvm-mc's).

use std::num::NonZeroU32;

use super::dpp::{DppCtrl, DstUnused, SdwaSel};
use super::intern::Interned;
use super::label::Label;
pub use super::modified::Base;
use super::reg::{Reg, Special};
use super::symbolic::{Hwreg, Sendmsg};
use crate::names::waitcnt;
use crate::Arch;

/// One instruction operand: 16 bytes and `Copy`, since every constructor call builds an array
/// of them (nothing to allocate or free per instruction).
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// A 64-bit float, for 64-bit operands: an inline constant when it is one, else a 32-bit
    /// literal holding its high half (its low half must be zero).
    F64(f64),
    /// `off` (absent address or base).
    Off,
    /// A branch target, resolved by the builder when it finishes.
    Label(Label),
    /// `s_waitcnt` counters, encoded for the builder's architecture.
    Waitcnt(Waitcnt),
    /// An LDS parameter (`attr3.z`), for `lds_param_load` / `ds_param_load`.
    Attr(Attr),
    /// `hwreg(..)`, resolved for the builder's architecture (interned: larger than the other
    /// operands, and rare).
    Hwreg(Interned<Hwreg>),
    /// `sendmsg(..)` (interned, as `Hwreg`).
    Sendmsg(Interned<Sendmsg>),
    /// A source with modifier bits the other variants do not carry: `-x` / `|x|` set in the
    /// encoding of a constant (llvm-mc's `-|0.5|`), as [`fneg`] and [`fabs`] make it ([`neg`]
    /// and [`abs`] of a constant give a new constant instead); SDWA's `sext(x)` ([`sext`]).
    Modified { x: Base, neg: bool, abs: bool, sext: bool },
}

// Every constructor call builds an array of operands: keep them small.
const _: () = assert!(std::mem::size_of::<Operand>() <= 16);

impl Operand {
    /// Applies `-x` (also written `-op`).
    pub fn negated(self) -> Operand {
        match self {
            Operand::Reg { reg, neg, abs } => Operand::Reg { reg, neg: !neg, abs },
            Operand::Special { reg, neg, abs } => Operand::Special { reg, neg: !neg, abs },
            Operand::F32(f) => Operand::F32(-f),
            Operand::F64(f) => Operand::F64(-f),
            Operand::Int(i) => Operand::Int(i.wrapping_neg()),
            // No source modifier on the rest: the encoder reports the operand as it is.
            other => other,
        }
    }

    /// Applies `|x|`.
    pub fn absolute(self) -> Operand {
        match self {
            Operand::Reg { reg, neg, .. } => Operand::Reg { reg, neg, abs: true },
            Operand::Special { reg, neg, .. } => Operand::Special { reg, neg, abs: true },
            Operand::F32(f) => Operand::F32(f.abs()),
            Operand::F64(f) => Operand::F64(f.abs()),
            Operand::Int(i) => Operand::Int(i.abs()),
            other => other,
        }
    }
}

/// The `-x` source modifier bit, also on a constant (`fneg(0.5)` is 0.5 with the neg bit, where
/// `neg(0.5)` is the constant -0.5).
pub fn fneg(x: impl Into<Operand>) -> Operand {
    match x.into() {
        r @ (Operand::Reg { .. } | Operand::Special { .. }) => r.negated(),
        Operand::Modified { x, neg, abs, sext } => Operand::Modified { x, neg: !neg, abs, sext },
        other => Operand::Modified { x: Base::of(other), neg: true, abs: false, sext: false },
    }
}

/// The `|x|` source modifier bit, also on a constant (see [`fneg`]).
pub fn fabs(x: impl Into<Operand>) -> Operand {
    match x.into() {
        r @ (Operand::Reg { .. } | Operand::Special { .. }) => r.absolute(),
        Operand::Modified { x, neg, sext, .. } => Operand::Modified { x, neg, abs: true, sext },
        other => Operand::Modified { x: Base::of(other), neg: false, abs: true, sext: false },
    }
}

/// `sext(x)`: an SDWA source whose selected bits are sign-extended.
pub fn sext(x: impl Into<Operand>) -> Operand {
    match x.into() {
        Operand::Modified { x, neg, abs, .. } => Operand::Modified { x, neg, abs, sext: true },
        other => Operand::Modified { x: Base::of(other), neg: false, abs: false, sext: true },
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
impl From<f64> for Operand {
    fn from(f: f64) -> Operand {
        Operand::F64(f)
    }
}
/// An LDS parameter: attribute `index` (0..=32, as llvm-mc takes), channel 0..=3 (`x`, `y`, `z`, `w`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Attr {
    pub index: u8,
    pub chan: u8,
}

/// `attrN.c`: `attr(3, 'z')`; a channel other than `x`, `y`, `z`, `w` is an error when built.
pub fn attr(index: u8, chan: char) -> Attr {
    Attr { index, chan: "xyzw".find(chan).map_or(u8::MAX, |c| c as u8) }
}

impl From<Attr> for Operand {
    fn from(a: Attr) -> Operand {
        Operand::Attr(a)
    }
}
impl From<Hwreg> for Operand {
    fn from(h: Hwreg) -> Operand {
        Operand::Hwreg(Interned::new(h))
    }
}
impl From<Sendmsg> for Operand {
    fn from(m: Sendmsg) -> Operand {
        Operand::Sendmsg(Interned::new(m))
    }
}
impl From<Waitcnt> for Operand {
    fn from(w: Waitcnt) -> Operand {
        Operand::Waitcnt(w)
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

/// An instruction modifier (written after the operands); `Copy`, with no heap data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mod {
    /// `clamp`.
    Clamp,
    /// `mul:2`, `mul:4`, `div:2`.
    Omod(Omod),
    /// `op_sel:[..]` (VOP3 16-bit halves: sources then destination; VOP3P: sources).
    OpSel(BitList),
    /// `op_sel_hi:[..]` (VOP3P).
    OpSelHi(BitList),
    /// `neg_lo:[..]` (VOP3P).
    NegLo(BitList),
    /// `neg_hi:[..]` (VOP3P).
    NegHi(BitList),
    /// `offset:N` (DS, FLAT/GLOBAL/SCRATCH, MUBUF).
    Offset(i64),
    /// A one-bit flag (cache policy `glc`, `slc`, `dlc`, `nt`, `sc0`, `sc1`; `tfe`, `offen`,
    /// `idxen`, `lds`). gfx9 `lds` buffer loads (LDS DMA, address in m0) have no data operand:
    /// `buffer_load_dword(vaddr, srsrc, soffset)` with `[flag(Flag::Lds)]`.
    Flag(Flag),
    /// `cbsz:N` (MFMA: A broadcast size; gfx950 `_f8f6f4`: the A format, 0 fp8, 1 bf8, 2 fp6,
    /// 3 bf6, 4 fp4, which sets the A operand's register count: 8, 8, 6, 6, 4).
    Cbsz(u8),
    /// `abid:N` (MFMA).
    Abid(u8),
    /// Any field of the encoding by its table name, for modifiers without a typed form
    /// (`field("wait_va_vdst", 2)` is `wait_vdst:2` of `lds_param_load`); range-checked.
    Field(&'static str, u32),
    /// `blgp:N` (MFMA: B lane group pattern; `_f8f6f4`: the B format, as [`Mod::Cbsz`]).
    Blgp(u8),
    /// A DPP16 lane control ([`super::dpp`]): the instruction takes its DPP16 form.
    Dpp(DppCtrl),
    /// `dpp8:[..]`: the DPP8 form.
    Dpp8([u8; 8]),
    /// `row_mask:N`, `bank_mask:N` (DPP16).
    RowMask(u8),
    BankMask(u8),
    /// `bound_ctrl` (DPP16).
    BoundCtrl,
    /// `fi:1` (DPP16, DPP8).
    Fi,
    /// SDWA selectors (gfx9): the instruction takes its SDWA form.
    DstSel(SdwaSel),
    Src0Sel(SdwaSel),
    Src1Sel(SdwaSel),
    DstUnused(DstUnused),
    /// The DPP16 or SDWA form with its defaults ([`super::dpp::dpp16_form`],
    /// [`super::dpp::sdwa_form`]).
    DppForm,
    SdwaForm,
}

/// The entries of an `op_sel:[..]`-style list, kept as given (up to 8; a longer list is an
/// error when built) without a heap allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitList {
    entries: [u8; 8],
    /// The number of entries given (saturated at 255).
    len: u8,
}

impl BitList {
    pub fn new(bits: &[u8]) -> BitList {
        let mut entries = [0; 8];
        let n = bits.len().min(8);
        entries[..n].copy_from_slice(&bits[..n]);
        BitList { entries, len: bits.len().min(255) as u8 }
    }

    /// The entries kept (the first 8).
    pub fn entries(&self) -> &[u8] {
        &self.entries[..(self.len as usize).min(8)]
    }

    /// The number of entries given.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The one-bit modifiers, each named after the field it sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    Glc,
    Slc,
    Dlc,
    Nt,
    Sc0,
    Sc1,
    Tfe,
    Offen,
    Idxen,
    Lds,
}

/// Every flag, in declaration order (`FLAGS[f as usize] == f`).
pub(crate) const FLAGS: [Flag; 10] =
    [Flag::Glc, Flag::Slc, Flag::Dlc, Flag::Nt, Flag::Sc0, Flag::Sc1, Flag::Tfe, Flag::Offen, Flag::Idxen, Flag::Lds];

impl Flag {
    /// The field it sets (and llvm-mc's spelling).
    pub fn field(self) -> &'static str {
        match self {
            Flag::Glc => "glc",
            Flag::Slc => "slc",
            Flag::Dlc => "dlc",
            Flag::Nt => "nt",
            Flag::Sc0 => "sc0",
            Flag::Sc1 => "sc1",
            Flag::Tfe => "tfe",
            Flag::Offen => "offen",
            Flag::Idxen => "idxen",
            Flag::Lds => "lds",
        }
    }
}

/// `s_waitcnt` counters; a counter not given is not waited for (its field at its maximum).
/// Each is kept as `n + 1` in a `NonZeroU32` (`None`: not given) so that the operand stays
/// small; `u32::MAX`, which fits no counter anyway, is kept as `u32::MAX - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Waitcnt {
    vmcnt: Option<NonZeroU32>,
    expcnt: Option<NonZeroU32>,
    lgkmcnt: Option<NonZeroU32>,
}

fn count(n: u32) -> Option<NonZeroU32> {
    NonZeroU32::new(n.saturating_add(1))
}

impl Waitcnt {
    /// Waits for nothing yet; add counters with [`Waitcnt::vmcnt`] and friends.
    pub fn new() -> Waitcnt {
        Waitcnt::default()
    }
    pub fn vmcnt(mut self, n: u32) -> Waitcnt {
        self.vmcnt = count(n);
        self
    }
    pub fn expcnt(mut self, n: u32) -> Waitcnt {
        self.expcnt = count(n);
        self
    }
    pub fn lgkmcnt(mut self, n: u32) -> Waitcnt {
        self.lgkmcnt = count(n);
        self
    }

    /// The counters given (vmcnt, expcnt, lgkmcnt).
    pub fn counters(&self) -> [Option<u32>; 3] {
        [self.vmcnt, self.expcnt, self.lgkmcnt].map(|c| c.map(|n| n.get() - 1))
    }

    /// The `simm16` of an architecture; `Err` names the counter that does not fit. The field
    /// layout is `names::waitcnt`'s.
    pub fn encode(&self, arch: Arch) -> Result<u32, String> {
        let (vm_max, ex_max, lg_max) = waitcnt::counter_max(arch);
        let get = |v: Option<u32>, max: u32, name: &str| match v {
            None => Ok(max),
            Some(n) if n <= max => Ok(n),
            Some(n) => Err(format!("{name}({n}) does not fit in {} bits", max.count_ones())),
        };
        let [vm, ex, lg] = self.counters();
        let vm = get(vm, vm_max, "vmcnt")?;
        let ex = get(ex, ex_max, "expcnt")?;
        let lg = get(lg, lg_max, "lgkmcnt")?;
        Ok(waitcnt::encode(arch, vm, ex, lg))
    }
}

/// `s_waitcnt vmcnt(n)`.
pub fn vmcnt(n: u32) -> Waitcnt {
    Waitcnt::new().vmcnt(n)
}
/// `s_waitcnt lgkmcnt(n)`.
pub fn lgkmcnt(n: u32) -> Waitcnt {
    Waitcnt::new().lgkmcnt(n)
}
/// `s_waitcnt expcnt(n)`.
pub fn expcnt(n: u32) -> Waitcnt {
    Waitcnt::new().expcnt(n)
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
    Mod::OpSel(BitList::new(bits))
}
/// `op_sel_hi:[..]`.
pub fn op_sel_hi(bits: &[u8]) -> Mod {
    Mod::OpSelHi(BitList::new(bits))
}
/// A one-bit modifier (`flag(Flag::Offen)`).
pub fn flag(f: Flag) -> Mod {
    Mod::Flag(f)
}
/// A field by its table name (see [`Mod::Field`]).
pub fn field(name: &'static str, value: u32) -> Mod {
    Mod::Field(name, value)
}
/// `cbsz:N`.
pub fn cbsz(n: u8) -> Mod {
    Mod::Cbsz(n)
}
/// `abid:N`.
pub fn abid(n: u8) -> Mod {
    Mod::Abid(n)
}
/// `blgp:N`.
pub fn blgp(n: u8) -> Mod {
    Mod::Blgp(n)
}

/// Whether an integer is an inline constant.
pub fn is_inline_int(i: i64) -> bool {
    (-16..=64).contains(&i)
}

/// The source code of an inline integer (128..=208), if it is one.
pub fn inline_int_code(i: i64) -> Option<u32> {
    match i {
        0..=64 => Some(128 + i as u32),
        -16..=-1 => Some((192 - i) as u32),
        _ => None,
    }
}

/// The source code of an inline f32 (the integer 0 for +0.0, 240..=248), if it is one.
pub fn inline_f32_code(f: f32) -> Option<u32> {
    let bits = f.to_bits();
    if bits == 0 {
        return Some(128);
    }
    crate::operand::INLINE_FLOATS.iter().find(|k| k.f32 == bits).map(|k| u32::from(k.code))
}

/// The source code of an inline f64 (the integer 0 for +0.0, 240..=248), if it is one.
pub fn inline_f64_code(f: f64) -> Option<u32> {
    let bits = f.to_bits();
    if bits == 0 {
        return Some(128);
    }
    crate::operand::INLINE_FLOATS.iter().find(|k| k.f64 == bits).map(|k| u32::from(k.code))
}

/// Whether an f32 is an inline constant (as a float or as the integer 0).
pub fn is_inline_f32(f: f32) -> bool {
    inline_f32_code(f).is_some()
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
