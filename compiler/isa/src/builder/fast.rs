//! The builder's fast path: the common operands (plain register runs, inline constants, one
//! literal, immediates, labels) of the simple encodings, checked and written by a plan resolved
//! once per candidate, with no [`super::encode::Fill`] to set up and no error plumbing.
//!
//! It gives the same verdict and the same words as the general path ([`super::encode`]) or no
//! verdict at all: anything it does not handle (modifiers other than a DS `offset:`, register
//! halves, AGPR pairs, a value that does not fit...) is [`Verdict::Unsure`], and the builder then
//! fills that candidate the general way, which makes every check and every error message.

use baregpu_autogen::isa::OperandKind as K;

use super::cands::Shape;
use super::label::Label;
use super::operand::{inline_f32_code, inline_int_code, Mod, Operand};
use super::plan::{Act, Fast, Put, Slot};
use super::reg::{Reg, RegFile, Special};
use crate::asm::parser::Ext;
use crate::operand::is_gfx9;
use crate::Arch;

/// How the fast path takes one operand.
#[derive(Clone, Copy, Debug)]
enum How {
    /// A register-only field: a plain run as `Fast` says. `vector`: the field holds only VGPRs
    /// or AGPRs, so any other kind of operand rules the encoding out.
    Reg {
        fast: Fast,
        vector: bool,
    },
    /// A source: a VGPR run (`vgpr`, where the field holds one), an SGPR run, an inline
    /// constant or the literal. `wide`: a 64-bit operand, or one that reads a 16-bit literal
    /// (its constants are left to the general path).
    Src {
        vgpr: Option<Fast>,
        sgpr: Fast,
        wide: bool,
    },
    /// An immediate field: `short` a 16-bit one (simm16, branch target), else any u32;
    /// `float`: an f32 is taken as its bits; `label`, `waitcnt`: the field takes those.
    Imm {
        short: bool,
        float: bool,
        label: bool,
        waitcnt: bool,
    },
    /// The named register the encoding implies.
    Fixed(Special),
    Off,
    /// Left to the general path.
    Unsure,
}

/// One operand's plan: how, and where its field is.
#[derive(Clone, Copy, Debug)]
struct FastSlot {
    how: How,
    /// The field (`Fixed` and `Off` have none: 0s, never written).
    at: Place,
}

/// A field within one dword: where and how wide.
#[derive(Clone, Copy, Debug, Default)]
struct Place {
    /// The field's mask before the shift.
    mask: u32,
    word: u8,
    shift: u8,
}

impl Place {
    /// `None` for a field across two dwords (left to the general path).
    fn of(p: &Put) -> Option<Place> {
        let (lo, hi) = (p.f.lo as u32, p.f.hi as u32);
        (lo / 32 == hi / 32 && hi < 128).then(|| Place {
            mask: u32::MAX >> (31 - (hi - lo)),
            word: (lo / 32) as u8,
            shift: (lo % 32) as u8,
        })
    }

    /// Writes `v` into the field, which the plan's template has cleared; false (nothing
    /// written) when it does not fit.
    #[inline(always)]
    fn write(self, words: &mut [u32; 4], v: u32) -> bool {
        if v & !self.mask != 0 {
            return false;
        }
        self.or(words, v);
        true
    }

    /// [`Place::write`] of a value known to fit (a register code the plan has checked).
    #[inline(always)]
    fn or(self, words: &mut [u32; 4], v: u32) {
        words[self.word as usize & 3] |= v << self.shift;
    }

    fn clear(self, words: &mut [u32; 4]) {
        words[self.word as usize & 3] &= !(self.mask << self.shift);
    }

    /// Whether every code of a register run `f` takes fits the field.
    fn holds(self, f: &Fast) -> bool {
        ((f.last_first as u32) >> f.shift) + f.base <= self.mask
    }
}

/// A candidate's fast plan (only candidates without DPP/SDWA, LDS DMA, MFMA register-file pairs
/// or `_f8f6f4` sizes have one).
#[derive(Debug)]
pub(crate) struct FastPlan {
    slots: Box<[FastSlot]>,
    /// The candidate's started words with every operand field cleared: operands are ORed in.
    words: [u32; 4],
    /// The encoding takes a literal.
    lit_ok: bool,
    /// A VALU encoding: scalar values count against the constant bus.
    valu: bool,
    /// The constant bus limit (gfx9: one scalar value, gfx10+: two).
    bus_limit: u8,
    /// DS: the `offset0`/`offset1` fields of `offset:`.
    ds_offsets: Option<[Place; 2]>,
    arch: Arch,
}

/// The fast path's answer for one candidate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Verdict {
    /// Encoded (in the [`Filled`] given).
    Fits,
    /// The general path would fail too: try the next candidate.
    No,
    /// Fill this candidate the general way.
    Unsure,
}

/// What the fast path made of an instruction: the words, the literal, the branch target,
/// registers used.
pub(crate) struct Filled {
    pub words: [u32; 4],
    pub lit: Option<u32>,
    pub target: Option<Label>,
    /// Per register file (by `RegFile as usize`), the highest register named + 1.
    pub used: [u32; 4],
    pub vcc: bool,
}

/// The SGPR run a source of `dwords` takes, as [`super::encode`]'s scalar check: the file, the
/// count, the range and the tuple alignment.
/// Whether source slot `s` of `c` reads a 16-bit literal (the general path checks its range).
fn reads_16bit(c: &super::cands::Cand, s: &Slot) -> bool {
    let Some(si) = crate::src_type::src_slot(s.op.name) else { return false };
    let ty = crate::operand::src_val_type(c.init.arch, c.init.mnemonic(), si, s.op.dwords.max(1).into());
    let lit16 = c.init.opcode().flags & crate::tables::FLAG_LIT16 != 0;
    let halves = crate::src_type::halves_read_32bit(c.init.arch, c.init.mnemonic(), si);
    crate::operand::reads_16bit_literal(ty, lit16, matches!(c.shape, Shape::Vop3p | Shape::Matrix), halves)
}

fn sgpr_fast(arch: Arch, dwords: i16, bus: bool) -> Option<Fast> {
    let size = RegFile::Sgpr.size(arch) as i32;
    let align = Reg::new(RegFile::Sgpr, 0, dwords as i64).align(arch) - 1;
    (size >= dwords as i32).then_some(Fast {
        file: RegFile::Sgpr,
        count: dwords,
        last_first: size - dwords as i32,
        align,
        base: 0,
        shift: 0,
        bus,
    })
}

fn how(arch: Arch, s: &Slot, t16: bool, valu: bool) -> How {
    let dwords = s.op.dwords.max(1) as i16;
    match s.act {
        _ if t16 => How::Unsure,
        Act::Vreg { .. } | Act::Sgpr { .. } => match s.fast {
            Some(fast) => How::Reg { fast, vector: matches!(s.act, Act::Vreg { .. }) },
            None => How::Unsure,
        },
        Act::Src { nine, vsrc } => {
            let vgpr = s.fast.filter(|f| f.file == RegFile::Vgpr && nine && vsrc);
            match sgpr_fast(arch, dwords, valu) {
                Some(sgpr) => How::Src { vgpr, sgpr, wide: dwords > 1 },
                None => How::Unsure,
            }
        }
        Act::Imm { float } => {
            let short = matches!(s.op.kind, K::Simm16 | K::Label | K::Hwreg | K::Sendmsg);
            How::Imm { short, float, label: s.op.kind == K::Label, waitcnt: s.op.kind == K::Simm16 }
        }
        Act::Fixed => Special::ALL.iter().find(|r| r.name() == s.op.name).map_or(How::Unsure, |&r| How::Fixed(r)),
        Act::Off => How::Off,
        _ => How::Unsure,
    }
}

impl FastPlan {
    /// The plan of a candidate, where it can have one.
    pub fn of(c: &super::cands::Cand) -> Option<FastPlan> {
        // Matrix ops refuse scalar sources (asm::matrix): the general path checks them.
        if c.ext != Ext::None || c.lds_slots.is_some() || c.cd_pair.is_some() || c.f8f6f4 || c.shape == Shape::Matrix {
            return None;
        }
        let arch = c.init.arch;
        let valu = c.shape.is_valu();
        let slots = c
            .slots
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let at = s.put.as_ref().and_then(Place::of);
                let how = match (at, s.act) {
                    (Some(_), _) | (None, Act::Fixed | Act::Off) => how(arch, s, c.t16 >> k & 1 != 0, valu),
                    _ => How::Unsure,
                };
                let how = match how {
                    How::Src { vgpr, sgpr, wide } => How::Src { vgpr, sgpr, wide: wide || reads_16bit(c, s) },
                    h => h,
                };
                FastSlot { how, at: at.unwrap_or_default() }
            })
            .collect::<Box<[FastSlot]>>();
        let place = |p: Option<Put>| p.as_ref().and_then(Place::of);
        let lit_ok = match c.shape {
            Shape::Salu | Shape::E32 => true,
            Shape::Vop3 | Shape::Vop3p => !is_gfx9(arch),
            _ => false,
        };
        let ds_offsets = match (c.shape, c.extra.offsets) {
            (Shape::Ds, [a, b]) => place(a).zip(place(b)).map(|(a, b)| [a, b]),
            _ => None,
        };
        let bus_limit = if is_gfx9(arch) { 1 } else { 2 };
        let mut slots: Box<[FastSlot]> = slots;
        // Register codes are ORed in unchecked, so each field must hold every code it may get
        // (an inline constant or the literal's 255 too, for a source).
        for s in slots.iter_mut() {
            let ok = match &s.how {
                How::Reg { fast, .. } => s.at.holds(fast),
                How::Src { vgpr, sgpr, .. } => {
                    vgpr.as_ref().is_none_or(|f| s.at.holds(f)) && s.at.holds(sgpr) && s.at.mask >= 255
                }
                _ => true,
            };
            if !ok {
                s.how = How::Unsure;
            }
        }
        let mut words = c.init.words;
        let mut seen = [0u32; 4];
        for s in slots.iter().filter(|s| s.at.mask != 0) {
            let (w, m) = (s.at.word as usize & 3, s.at.mask << s.at.shift);
            // Two operands in one field (ORing both would differ from the last write winning).
            if seen[w] & m != 0 {
                return None;
            }
            seen[w] |= m;
            s.at.clear(&mut words);
        }
        // The DS offsets are written the same way.
        if let Some(p) = &ds_offsets {
            for q in p {
                let (w, m) = (q.word as usize & 3, q.mask << q.shift);
                if seen[w] & m != 0 {
                    return None;
                }
                seen[w] |= m;
            }
        }
        Some(FastPlan { slots, words, lit_ok, valu, bus_limit, ds_offsets, arch })
    }
}

/// The constant bus: distinct scalar values a VALU instruction reads.
struct Bus {
    codes: [u32; 2],
    n: u8,
}

impl Bus {
    /// Counts `code`; false when it is one too many.
    #[inline(always)]
    fn read(&mut self, limit: u8, code: u32) -> bool {
        if self.codes[..self.n as usize].contains(&code) {
            return true;
        }
        if self.n >= limit {
            return false;
        }
        self.codes[self.n as usize] = code;
        self.n += 1;
        true
    }
}

/// A plain register run `fast` takes: its field value.
#[inline(always)]
fn reg_code(f: &Fast, reg: &Reg) -> Option<u32> {
    // A negative first is a large unsigned one.
    let ok = reg.file == f.file
        && reg.count == f.count
        && reg.half.is_none()
        && reg.first as u32 <= f.last_first as u32
        && reg.first & f.align == 0;
    ok.then(|| ((reg.first as u32) >> f.shift) + f.base)
}

macro_rules! unsure {
    ($e:expr) => {
        match $e {
            Some(v) => v,
            None => return Verdict::Unsure,
        }
    };
}

impl FastPlan {
    /// What [`FastPlan::fill`] starts from.
    #[inline(always)]
    pub fn start(&self) -> Filled {
        Filled { words: self.words, lit: None, target: None, used: [0; 4], vcc: false }
    }

    /// Encodes `ops` with `mods` into `out` (as [`FastPlan::start`] made it), or says why not.
    #[inline]
    pub fn fill(&self, out: &mut Filled, ops: &[Operand], mods: &[Mod]) -> Verdict {
        if ops.len() != self.slots.len() {
            return Verdict::No;
        }
        let mut bus = Bus { codes: [0; 2], n: 0 };
        // Indexed (both lengths equal): cheaper than a zip of two slice iterators here.
        let slots = &self.slots[..ops.len()];
        for k in 0..ops.len() {
            let (x, s) = (&ops[k], &slots[k]);
            let v = match (&s.how, x) {
                (How::Reg { fast, vector }, Operand::Reg { reg, neg: false, abs: false }) => {
                    let Some(code) = reg_code(fast, reg) else {
                        return not_vector(*vector, reg);
                    };
                    // (`fast.bus` is set for VALU encodings only.)
                    if fast.bus && !bus.read(self.bus_limit, reg.first as u32) {
                        return Verdict::Unsure;
                    }
                    note(&mut out.used, reg);
                    code
                }
                (How::Reg { vector: true, .. }, Operand::Reg { reg, .. }) => return not_vector(true, reg),
                (How::Reg { vector: true, .. }, Operand::Special { .. } | Operand::Int(_))
                | (How::Reg { vector: true, .. }, Operand::F32(_) | Operand::F64(_)) => return Verdict::No,
                (How::Src { vgpr, sgpr, .. }, Operand::Reg { reg, neg: false, abs: false }) => {
                    if let Some(code) = vgpr.as_ref().and_then(|f| reg_code(f, reg)) {
                        note(&mut out.used, reg);
                        code
                    } else {
                        let code = unsure!(reg_code(sgpr, reg));
                        if self.valu && !bus.read(self.bus_limit, code) {
                            return Verdict::Unsure;
                        }
                        note(&mut out.used, reg);
                        code
                    }
                }
                (How::Src { wide: false, .. }, Operand::Int(v)) => match inline_int_code(*v) {
                    Some(c) => c,
                    None if (i32::MIN as i64..=u32::MAX as i64).contains(v) => {
                        unsure!(self.literal(&mut out.lit, &mut bus, *v as u32))
                    }
                    None => return Verdict::Unsure,
                },
                (How::Src { wide: false, .. }, Operand::F32(x)) => match inline_f32_code(*x) {
                    Some(c) => c,
                    None => unsure!(self.literal(&mut out.lit, &mut bus, x.to_bits())),
                },
                (How::Imm { short, float, label, waitcnt }, x) => {
                    let v: i64 = match x {
                        Operand::Int(v) => *v,
                        Operand::F32(f) if *float => f.to_bits() as i64,
                        Operand::Label(l) if *label => {
                            out.target = Some(*l);
                            0
                        }
                        Operand::Waitcnt(w) if *waitcnt => unsure!(w.encode(self.arch).ok()) as i64,
                        _ => return Verdict::Unsure,
                    };
                    let v = match *short {
                        true if (-32768..=65535).contains(&v) => v as u32 & 0xffff,
                        false if (0..=u32::MAX as i64).contains(&v) => v as u32,
                        _ => return Verdict::Unsure,
                    };
                    if v & !s.at.mask != 0 {
                        return Verdict::Unsure;
                    }
                    v
                }
                (How::Fixed(r), Operand::Special { reg, neg: false, abs: false }) if reg == r => {
                    out.vcc |= r.is_vcc();
                    continue;
                }
                (How::Off, Operand::Off) => continue,
                _ => return Verdict::Unsure,
            };
            // Register codes and source constants fit (checked when planned); immediates
            // were checked against the field above.
            s.at.or(&mut out.words, v);
        }
        match mods {
            [] => {}
            [Mod::Offset(v)] => {
                let [lo, hi] = unsure!(self.ds_offsets);
                // The template keeps the started offsets (for no `offset:`): replace them.
                lo.clear(&mut out.words);
                hi.clear(&mut out.words);
                if !(0..=0xffff).contains(v) || !lo.write(&mut out.words, *v as u32 & 0xff) {
                    return Verdict::Unsure;
                }
                if !hi.write(&mut out.words, (*v as u32) >> 8) {
                    return Verdict::Unsure;
                }
            }
            _ => return Verdict::Unsure,
        }
        Verdict::Fits
    }

    /// The literal `v` (the one a source may take): its source code, 255.
    #[inline]
    fn literal(&self, lit: &mut Option<u32>, bus: &mut Bus, v: u32) -> Option<u32> {
        if !self.lit_ok {
            return None;
        }
        match *lit {
            Some(l) if l != v => return None,
            Some(_) => {}
            None => {
                *lit = Some(v);
                if self.valu && !bus.read(self.bus_limit, 255) {
                    return None;
                }
            }
        }
        Some(255)
    }
}

/// The verdict on a register a `How::Reg` slot did not take: a scalar one in a VGPR-only field
/// certainly fails (the general path's check, as `plan::admits` makes it); anything else is
/// left to the general path.
#[inline]
fn not_vector(vector: bool, reg: &Reg) -> Verdict {
    match vector && !matches!(reg.file, RegFile::Vgpr | RegFile::Agpr) {
        true => Verdict::No,
        false => Verdict::Unsure,
    }
}

#[inline(always)]
fn note(used: &mut [u32; 4], reg: &Reg) {
    let e = &mut used[reg.file as usize];
    *e = (*e).max(reg.end() as u32);
}
