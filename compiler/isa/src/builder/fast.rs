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

/// How the fast path takes an operand other than a register (registers: [`RegRule`]).
#[derive(Clone, Copy, Debug)]
enum How {
    /// A register-only field. `vector`: the field holds only VGPRs or AGPRs, so a constant or a
    /// named register rules the encoding out.
    Reg {
        vector: bool,
    },
    /// A source: an inline constant or the literal (registers by the slot's rules). `wide`: a
    /// 64-bit operand, or one that reads a 16-bit literal (its constants are left to the general
    /// path).
    Src {
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

/// How a slot takes a plain register of one file: [`Fast`]'s checks as numbers, kept in the
/// slot, so that a register operand costs no branch on the slot's kind.
#[derive(Clone, Copy, Debug)]
struct RegRule {
    file: RegFile,
    /// The run length taken; [`RegRule::NONE`]: none (a rule that takes nothing).
    count: i32,
    /// The highest first register.
    last_first: u32,
    /// Added to the register number (256 for a VGPR in a 9-bit source field).
    base: u16,
    /// Alignment mask the first register must clear.
    align: u8,
    shift: u8,
}

impl RegRule {
    /// No register count equals it (counts are `i16`).
    const NONE: i32 = i32::MIN;

    const NO: RegRule =
        RegRule { file: RegFile::Ttmp, count: RegRule::NONE, last_first: 0, base: 0, align: 0, shift: 0 };

    /// `None` where the numbers do not fit the rule's fields (left to the general path).
    fn of(f: &Fast) -> Option<RegRule> {
        Some(RegRule {
            file: f.file,
            count: f.count as i32,
            last_first: u32::try_from(f.last_first).ok()?,
            base: u16::try_from(f.base).ok()?,
            align: u8::try_from(f.align).ok()?,
            shift: f.shift,
        })
    }
}

/// One operand's plan: the registers it takes (of two files at most: a source's VGPRs and
/// SGPRs), the verdict on any other register by file, how it takes the rest, and where its
/// field is.
#[derive(Clone, Copy, Debug)]
struct FastSlot {
    rules: [RegRule; 2],
    miss: [Verdict; 4],
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

    #[inline(always)]
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
    /// A VALU encoding with more sources that may read a scalar value (an SGPR or the
    /// literal) than the constant bus takes: the fill counts them after the operands.
    bus_check: bool,
    /// The constant bus limit (`asm::const_bus::limit`); 0 where the instruction reads a lane
    /// mask no source names (`asm::const_bus::reads_lane_mask`): with any scalar value read,
    /// the general fill decides the bus. (gfx9: one scalar value, gfx10+: two).
    bus_limit: u8,
    /// DS: the `offset0`/`offset1` fields of `offset:`.
    ds_offsets: Option<[Place; 2]>,
    /// DS: both offset bytes as one 16-bit field, where they lie side by side (every DS
    /// layout), written inline.
    ds16: Option<Place>,
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
/// (the registers used are noted in the caller's array).
pub(crate) struct Filled {
    pub words: [u32; 4],
    pub lit: Option<u32>,
    pub target: Option<Label>,
    pub vcc: bool,
}

/// The SGPR run a source of `dwords` takes, as [`super::encode`]'s scalar check: the file, the
/// count, the range and the tuple alignment.
/// Whether source slot `s` of `c` reads a 16-bit literal (the general path checks its range).
fn reads_16bit(c: &super::cands::Cand, s: &Slot) -> bool {
    let Some(si) = baregpu_autogen::isa::sources::source_index(s.op.name) else { return false };
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

/// A slot's registers: the rules, and the verdict on a register no rule takes, by file.
type Regs = ([RegRule; 2], [Verdict; 4]);

/// The plan of one operand: how it takes registers and anything else.
fn how(arch: Arch, s: &Slot, t16: bool, valu: bool, at: Place) -> (Regs, How) {
    let no_regs: Regs = ([RegRule::NO; 2], [Verdict::Unsure; 4]);
    let unsure = (no_regs, How::Unsure);
    let dwords = s.op.dwords.max(1) as i16;
    // Register codes are ORed in unchecked, so the field must hold every code the rules give
    // (an inline constant or the literal's 255 too, for a source).
    let (regs, how) = match s.act {
        _ if t16 => return unsure,
        Act::Vreg { .. } | Act::Sgpr { .. } => {
            let Some(fast) = s.fast.filter(|f| at.holds(f)) else { return unsure };
            let Some(rule) = RegRule::of(&fast) else { return unsure };
            let vector = matches!(s.act, Act::Vreg { .. });
            // A scalar register in a VGPR-only field certainly fails (as `plan::admits` says).
            let miss = [RegFile::Sgpr, RegFile::Vgpr, RegFile::Agpr, RegFile::Ttmp].map(|f| {
                match vector && matches!(f, RegFile::Sgpr | RegFile::Ttmp) {
                    true => Verdict::No,
                    false => Verdict::Unsure,
                }
            });
            (([rule, RegRule::NO], miss), How::Reg { vector })
        }
        Act::Src { nine, vsrc } => {
            let vgpr = s.fast.filter(|f| f.file == RegFile::Vgpr && nine && vsrc);
            let Some(sgpr) = sgpr_fast(arch, dwords, valu) else { return unsure };
            if !(vgpr.as_ref().is_none_or(|f| at.holds(f)) && at.holds(&sgpr) && at.mask >= 255) {
                return unsure;
            }
            let Some(s_rule) = RegRule::of(&sgpr) else { return unsure };
            // The VGPR first, the common source.
            let rules = match vgpr.as_ref().map(RegRule::of) {
                Some(Some(v_rule)) => [v_rule, s_rule],
                Some(None) => return unsure,
                None => [s_rule, RegRule::NO],
            };
            ((rules, no_regs.1), How::Src { wide: dwords > 1 })
        }
        Act::Imm { float } => {
            let short = matches!(s.op.kind, K::Simm16 | K::Label | K::Hwreg | K::Sendmsg);
            let how = How::Imm { short, float, label: s.op.kind == K::Label, waitcnt: s.op.kind == K::Simm16 };
            (no_regs, how)
        }
        Act::Fixed => match Special::ALL.iter().find(|r| r.name() == s.op.name) {
            Some(&r) => (no_regs, How::Fixed(r)),
            None => return unsure,
        },
        Act::Off => (no_regs, How::Off),
        _ => return unsure,
    };
    (regs, how)
}

impl FastPlan {
    /// The plan of a candidate, where it can have one.
    pub fn of(c: &super::cands::Cand) -> Option<FastPlan> {
        // Matrix ops refuse scalar sources (asm::matrix): the general path checks them.
        if c.ext != Ext::None || c.lds_slots.is_some() || c.cd_pair.is_some() || c.f8f6f4 || c.shape == Shape::Matrix {
            return None;
        }
        // GWS rules (asm::gws: gds, an even gfx9 register), the unsigned SOPK compares
        // (asm::salu_imm) and sources that refuse some kinds (src_kinds): the general path
        // checks them.
        if c.shape == Shape::Ds && crate::asm::gws::applies(&c.init)
            || c.shape == Shape::Salu && crate::asm::salu_imm::unsigned_sopk(c.init.mnemonic())
            || crate::src_kinds::restricted(c.init.arch, c.init.op)
        {
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
                let ((rules, miss), how) = match (at, s.act) {
                    (Some(_), _) | (None, Act::Fixed | Act::Off) => {
                        how(arch, s, c.t16 >> k & 1 != 0, valu, at.unwrap_or_default())
                    }
                    _ => (([RegRule::NO; 2], [Verdict::Unsure; 4]), How::Unsure),
                };
                let how = match how {
                    How::Src { wide } => How::Src { wide: wide || reads_16bit(c, s) },
                    h => h,
                };
                FastSlot { rules, miss, how, at: at.unwrap_or_default() }
            })
            .collect::<Box<[FastSlot]>>();
        let place = |p: Option<Put>| p.as_ref().and_then(Place::of);
        let lit_ok = match c.shape {
            Shape::Salu | Shape::E32 => true,
            Shape::Vop3 | Shape::Vop3p => !is_gfx9(arch),
            _ => false,
        };
        let ds_offsets = match (c.shape, c.extra.offsets) {
            (Shape::Ds, [a, b]) if !crate::asm::mem_mods::ds_no_offset(&c.init) => {
                place(a).zip(place(b)).map(|(a, b)| [a, b])
            }
            _ => None,
        };
        let ds16 = ds_offsets.and_then(|[lo, hi]| {
            let side_by_side = lo.mask == 0xff && hi.mask == 0xff && hi.word == lo.word && hi.shift == lo.shift + 8;
            side_by_side.then_some(Place { mask: 0xffff, ..lo })
        });
        let lane_read = valu && crate::asm::const_bus::reads_lane_mask(&c.init);
        let bus_limit = if lane_read { 0 } else { crate::asm::const_bus::limit(arch, c.init.mnemonic()) as u8 };
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
        // Each source reads one scalar value at most: with no more of them than the bus takes,
        // it cannot overflow and is not counted.
        // (Register-only fields are not counted: `plan::fast` marks none of them.)
        let readers = slots.iter().filter(|s| matches!(s.how, How::Src { .. })).count();
        let bus_check = valu && readers > bus_limit as usize;
        Some(FastPlan { slots, words, lit_ok, bus_check, bus_limit, ds_offsets, ds16, arch })
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
        Filled { words: self.words, lit: None, target: None, vcc: false }
    }

    /// Encodes `ops` with `mods` into `out` (as [`FastPlan::start`] made it), or says why not.
    /// The registers named are noted in `used` (per file, the highest + 1), also when the
    /// verdict is not [`Verdict::Fits`]: the caller keeps a copy to put back.
    #[inline(always)]
    pub fn fill(&self, out: &mut Filled, ops: &[Operand], mods: &[Mod], used: &mut [u32; 4]) -> Verdict {
        if ops.len() != self.slots.len() {
            return Verdict::No;
        }
        // Indexed (both lengths equal): cheaper than a zip of two slice iterators here.
        // Last operand first: the verdict does not depend on the order (a set of checks, one
        // literal, the bus counted after), and an `_e32` form is most often ruled out by its
        // last, VGPR-only source (an SGPR in `vsrc1`), found before the others are filled.
        let slots = &self.slots[..ops.len()];
        for k in (0..ops.len()).rev() {
            let (x, s) = (&ops[k], &slots[k]);
            let v = match x {
                // The common operand: one lookup by file, no branch on the slot's kind.
                Operand::Reg { reg, neg, abs } => {
                    let f = reg.file as usize & 3;
                    let r = match reg.file {
                        x if x == s.rules[0].file => &s.rules[0],
                        x if x == s.rules[1].file => &s.rules[1],
                        _ => return s.miss[f],
                    };
                    // A negative first is a large unsigned one.
                    if *neg
                        || *abs
                        || reg.half.is_some()
                        || reg.count as i32 != r.count
                        || reg.first as u32 > r.last_first
                        || reg.first & r.align as i32 != 0
                    {
                        return s.miss[f];
                    }
                    // The highest register + 1 (first and count are checked: no overflow).
                    let end = reg.first as u32 + reg.count as u32;
                    used[f] = used[f].max(end);
                    ((reg.first as u32) >> r.shift) + r.base as u32
                }
                _ => match self.other(s, x, out) {
                    Ok(Some(v)) => v,
                    Ok(None) => continue,
                    Err(v) => return v,
                },
            };
            // Register codes and source constants fit (checked when planned); immediates
            // were checked against the field in `other`.
            s.at.or(&mut out.words, v);
        }
        if self.bus_check && !self.bus_fits(ops, out.lit) {
            return Verdict::Unsure;
        }
        match mods {
            [] => Verdict::Fits,
            [Mod::Offset(v)] => match self.ds16 {
                // The template keeps the started offsets (for no `offset:`): replaced.
                Some(p) if (0..=0xffff).contains(v) => {
                    p.clear(&mut out.words);
                    p.or(&mut out.words, *v as u32);
                    Verdict::Fits
                }
                _ => self.ds_offset(&mut out.words, *v),
            },
            _ => Verdict::Unsure,
        }
    }

    /// A DS `offset:` into `offset0`/`offset1` (out of line: it keeps the operand loop's
    /// registers free).
    #[inline(never)]
    fn ds_offset(&self, words: &mut [u32; 4], v: i64) -> Verdict {
        let [lo, hi] = unsure!(self.ds_offsets);
        if !(0..=0xffff).contains(&v) {
            return Verdict::Unsure;
        }
        let v = v as u32;
        // The template keeps the started offsets (for no `offset:`): replace them. Where the
        // two bytes lie side by side (every DS layout), as one 16-bit field.
        if lo.mask == 0xff && hi.mask == 0xff && hi.word == lo.word && hi.shift == lo.shift + 8 {
            let both = Place { mask: 0xffff, ..lo };
            both.clear(words);
            both.or(words, v);
            return Verdict::Fits;
        }
        lo.clear(words);
        hi.clear(words);
        match lo.write(words, v & 0xff) && hi.write(words, v >> 8) {
            true => Verdict::Fits,
            false => Verdict::Unsure,
        }
    }

    /// An operand other than a register: its field value, `None` for one with no field
    /// (a fixed register, `off`), or the verdict. Inlined: the call and its packed result cost
    /// more than the registers it takes from the operand loop.
    #[inline(always)]
    fn other(&self, s: &FastSlot, x: &Operand, out: &mut Filled) -> Result<Option<u32>, Verdict> {
        let v = match (&s.how, x) {
            (How::Reg { vector: true }, Operand::Special { .. } | Operand::Int(_))
            | (How::Reg { vector: true }, Operand::F32(_) | Operand::F64(_)) => return Err(Verdict::No),
            (How::Src { wide: false }, Operand::Int(v)) => match inline_int_code(*v) {
                Some(c) => c,
                None if (i32::MIN as i64..=u32::MAX as i64).contains(v) => {
                    self.literal(&mut out.lit, *v as u32).ok_or(Verdict::Unsure)?
                }
                None => return Err(Verdict::Unsure),
            },
            (How::Src { wide: false }, Operand::F32(x)) => match inline_f32_code(*x) {
                Some(c) => c,
                None => self.literal(&mut out.lit, x.to_bits()).ok_or(Verdict::Unsure)?,
            },
            (How::Imm { short, float, label, waitcnt }, x) => {
                let v: i64 = match x {
                    Operand::Int(v) => *v,
                    Operand::F32(f) if *float => f.to_bits() as i64,
                    Operand::Label(l) if *label => {
                        out.target = Some(*l);
                        0
                    }
                    Operand::Waitcnt(w) if *waitcnt => w.encode(self.arch).map_err(|_| Verdict::Unsure)? as i64,
                    _ => return Err(Verdict::Unsure),
                };
                let v = match *short {
                    true if (-32768..=65535).contains(&v) => v as u32 & 0xffff,
                    false if (0..=u32::MAX as i64).contains(&v) => v as u32,
                    _ => return Err(Verdict::Unsure),
                };
                if v & !s.at.mask != 0 {
                    return Err(Verdict::Unsure);
                }
                v
            }
            (How::Fixed(r), Operand::Special { reg, neg: false, abs: false }) if reg == r => {
                out.vcc |= r.is_vcc();
                return Ok(None);
            }
            (How::Off, Operand::Off) => return Ok(None),
            _ => return Err(Verdict::Unsure),
        };
        Ok(Some(v))
    }

    /// The literal `v` (the one a source may take): its source code, 255.
    #[inline]
    fn literal(&self, lit: &mut Option<u32>, v: u32) -> Option<u32> {
        if !self.lit_ok {
            return None;
        }
        match *lit {
            Some(l) if l != v => None,
            _ => {
                *lit = Some(v);
                Some(255)
            }
        }
    }

    /// Whether the scalar values `ops` read (SGPRs, the literal `lit`) fit the constant bus; for
    /// a plan with `bus_check` only, once the operands are in (a set of values: no order).
    #[cold]
    #[inline(never)]
    fn bus_fits(&self, ops: &[Operand], lit: Option<u32>) -> bool {
        let mut bus = Bus { codes: [0; 2], n: 0 };
        for (x, s) in ops.iter().zip(&self.slots[..]) {
            // An SGPR a source took (its code is its number).
            if let (Operand::Reg { reg, .. }, How::Src { .. }) = (x, &s.how) {
                // A register counts once per width (`s0` and `s[0:1]` are two values).
                let value = reg.first as u32 | (reg.count as u32) << 16;
                if reg.file == RegFile::Sgpr && !bus.read(self.bus_limit, value) {
                    return false;
                }
            }
        }
        lit.is_none() || bus.read(self.bus_limit, 255)
    }
}
