//! Typed operands into one candidate encoding's fields: every value is checked against the
//! operand's kind and the field's width, and a failure names the operand and says why. Nothing
//! here reads or writes text.

use std::borrow::Cow;
use std::fmt;

use baregpu_autogen::isa::{Field, OperandKind as K, FLAG_LITERAL};

use super::cands::{Cand, Shape};
use super::label::Label;
use super::operand::{inline_f32_code, inline_int_code, Operand};
use super::reg::{Half, Reg, RegFile, Special};
use crate::inst::{set, Instruction};
use crate::operand::{is_gfx9, src_index};
use crate::tables::takes_mods;
use crate::Arch;

/// Why a candidate cannot hold the operands: the operand (index into the operands; `None` for
/// the instruction as a whole or a modifier) and the reason.
#[derive(Debug, Clone)]
pub(crate) struct Fail {
    pub operand: Option<usize>,
    pub msg: Cow<'static, str>,
}

#[cold]
pub(crate) fn fail<T>(operand: Option<usize>, msg: impl Into<Cow<'static, str>>) -> Result<T, Fail> {
    Err(Fail { operand, msg: msg.into() })
}

/// The instruction being filled, with what the operands decided so far.
pub(crate) struct Fill<'a> {
    pub c: &'a Cand,
    pub i: Instruction,
    pub arch: Arch,
    pub lit: Option<u32>,
    pub target: Option<Label>,
    /// op_sel bits of 16-bit register halves (VOP3 true16).
    pub opsel: u32,
    /// Distinct scalar values the VALU reads (the constant bus), the literal counted once.
    bus: [u32; 4],
    nbus: usize,
    /// Failures carry no message: the builder tries the next encoding, and asks again for the
    /// reasons only when every encoding failed (formatting them is most of a failure's cost).
    pub quiet: bool,
}

/// A named register's scalar operand code and its size in dwords (0: any size).
fn special_code(arch: Arch, s: Special) -> Result<(u32, u8), String> {
    s.check(arch)?;
    let g9 = is_gfx9(arch);
    Ok(match s {
        Special::Vcc => (106, 2),
        Special::VccLo => (106, 1),
        Special::VccHi => (107, 1),
        Special::Exec => (126, 2),
        Special::ExecLo => (126, 1),
        Special::ExecHi => (127, 1),
        Special::M0 => (if g9 { 124 } else { 125 }, 1),
        Special::Null => (124, 0),
        Special::FlatScratch => (102, 2),
        Special::Vccz => (251, 1),
        Special::Execz => (252, 1),
        Special::Scc => (253, 1),
    })
}

fn width(f: &Field) -> u16 {
    f.hi - f.lo + 1
}

impl<'a> Fill<'a> {
    pub fn new(c: &'a Cand, arch: Arch) -> Fill<'a> {
        Fill { c, i: c.init, arch, lit: None, target: None, opsel: 0, bus: [0; 4], nbus: 0, quiet: false }
    }

    /// A failure whose message is formatted only when it will be shown.
    #[cold]
    #[inline(never)]
    pub fn failf<T>(&self, operand: Option<usize>, msg: fmt::Arguments) -> Result<T, Fail> {
        let msg = if self.quiet { Cow::Borrowed("") } else { Cow::Owned(msg.to_string()) };
        Err(Fail { operand, msg })
    }

    #[inline]
    fn put(&mut self, k: usize, f: &Field, v: u32) -> Result<(), Fail> {
        if set(&mut self.i.words, f, v) {
            Ok(())
        } else {
            self.failf(Some(k), format_args!("value {v} does not fit in field {} ({} bits)", f.name, width(f)))
        }
    }

    /// Sets a field by name (modifier bits); `what` names the operand or modifier.
    pub fn put_named(&mut self, k: Option<usize>, name: &str, v: u32, what: &str) -> Result<(), Fail> {
        match self.i.field_def(name) {
            Some(f) if set(&mut self.i.words, f, v) => Ok(()),
            Some(f) => fail(k, format!("{what}: value {v} does not fit in {} bits", width(f))),
            None => fail(k, format!("{what} is not available in the {} encoding", self.i.format().name)),
        }
    }

    /// Sets a field resolved in advance; the name is looked up only to explain a failure.
    #[inline]
    pub fn put_known(&mut self, f: Option<&'static Field>, name: &str, v: u32, what: &str) -> Result<(), Fail> {
        match f {
            Some(f) if set(&mut self.i.words, f, v) => Ok(()),
            _ => self.put_named(None, name, v, what),
        }
    }

    fn literal(&mut self, k: usize, v: u32) -> Result<(), Fail> {
        let ok = match self.c.shape {
            Shape::Salu | Shape::E32 => true,
            Shape::Vop3 | Shape::Vop3p => !is_gfx9(self.arch),
            _ => false,
        };
        if !ok {
            return self
                .failf(Some(k), format_args!("the {} encoding takes no literal (0x{v:x})", self.i.format().name));
        }
        match self.lit {
            Some(l) if l != v => {
                self.failf(Some(k), format_args!("a second literal (0x{v:x}, 0x{l:x} already): only one fits"))
            }
            Some(_) => Ok(()),
            None => {
                self.lit = Some(v);
                self.bus_read(k, 255)
            }
        }
    }

    /// Counts a scalar value read by a VALU instruction against the constant bus (gfx9: one,
    /// gfx10+: two; the same SGPR or the one literal counts once).
    fn bus_read(&mut self, k: usize, code: u32) -> Result<(), Fail> {
        if !self.c.shape.is_valu() || self.bus[..self.nbus].contains(&code) {
            return Ok(());
        }
        let limit = if is_gfx9(self.arch) { 1 } else { 2 };
        if self.nbus == limit {
            return self
                .failf(Some(k), format_args!("more than {limit} scalar values or literals (the constant bus limit)"));
        }
        self.bus[self.nbus] = code;
        self.nbus += 1;
        Ok(())
    }

    /// A scalar register or named register: its code (0..=127 for registers, more for named
    /// sources) after the file, alignment and size checks.
    #[inline]
    fn scalar(&self, k: usize, x: &Operand, dwords: u8) -> Result<u32, Fail> {
        match x {
            Operand::Reg { reg, .. } => {
                reg.check(self.arch).map_err(|m| Fail { operand: Some(k), msg: m.into() })?;
                let base = match reg.file {
                    RegFile::Sgpr => 0,
                    RegFile::Ttmp => 108,
                    _ => {
                        return self
                            .failf(Some(k), format_args!("{reg} is a vector register; a scalar one is required"))
                    }
                };
                if reg.half.is_some() {
                    return self.failf(Some(k), format_args!("{reg}: a scalar register has no 16-bit halves"));
                }
                if reg.count != dwords as i64 {
                    return self.failf(Some(k), format_args!("{reg} is {} registers; {dwords} expected", reg.count));
                }
                Ok(base + reg.first as u32)
            }
            Operand::Special { reg, .. } => {
                let (code, size) =
                    special_code(self.arch, *reg).map_err(|m| Fail { operand: Some(k), msg: m.into() })?;
                if size != 0 && size != dwords {
                    return self.failf(Some(k), format_args!("{} is {size} dwords; {dwords} expected", reg.name()));
                }
                Ok(code)
            }
            other => self.failf(Some(k), format_args!("{} where a scalar register is required", describe(other))),
        }
    }

    /// Fills every operand; then the caller applies the modifiers and [`Fill::finish`]es.
    pub fn operands(&mut self, ops: &[Operand]) -> Result<(), Fail> {
        let want = self.c.slots.len();
        if ops.len() != want {
            return self.failf(None, format_args!("{} operands given, {want} expected", ops.len()));
        }
        for (k, x) in ops.iter().enumerate() {
            self.operand(k, x)?;
        }
        Ok(())
    }

    fn operand(&mut self, k: usize, x: &Operand) -> Result<(), Fail> {
        let o = self.c.slots[k].op;
        let (neg, abs) = match x {
            Operand::Reg { neg, abs, .. } | Operand::Special { neg, abs, .. } => (*neg, *abs),
            _ => (false, false),
        };
        if neg || abs {
            self.source_mods(k, o.name, neg, abs)?;
        }
        let field = self.c.slots[k].field;
        match o.kind {
            K::Special => match x {
                Operand::Special { reg, .. } if reg.name() == o.name => Ok(()),
                _ => self.failf(Some(k), format_args!("{} where {} is required", describe(x), o.name)),
            },
            K::Off => match x {
                Operand::Off => Ok(()),
                _ => self.failf(Some(k), format_args!("{} where off is required", describe(x))),
            },
            K::Sgpr => self.sgpr(k, x, field),
            K::Vgpr | K::Agpr if self.c.scalar_vdst && o.name == "vdst" => self.sgpr(k, x, field),
            K::Vgpr | K::Agpr => self.vgpr(k, x, field),
            K::Vsrc | K::Ssrc => self.source(k, x, field),
            K::Offset if self.c.shape == Shape::Smem => self.smem_offset(k, x),
            K::Simm16 | K::Hwreg | K::Sendmsg | K::Label | K::Offset | K::Imm => self.immediate(k, x, field),
            K::Attr => fail(Some(k), "LDS parameter operands are not supported by the builder"),
        }
    }

    fn source_mods(&mut self, k: usize, name: &str, neg: bool, abs: bool) -> Result<(), Fail> {
        let Some(si) = src_index(name).filter(|&s| s < 3) else {
            return self.failf(Some(k), format_args!("operand {name} takes no -x / |x| modifiers"));
        };
        let m = self.i.mnemonic();
        let what = if neg { "-x" } else { "|x|" };
        if !matches!(self.c.shape, Shape::Vop3 | Shape::Vop3p) || !takes_mods(self.i.opcode(), si) {
            return self.failf(Some(k), format_args!("{what} needs a VOP3 encoding whose source {si} takes modifiers"));
        }
        let (nf, af) = if m.contains("_mix") { ("neg", "neg_hi") } else { ("neg", "abs") };
        if neg {
            let v = self.i.f(nf) | 1 << si;
            self.put_named(Some(k), nf, v, "-x")?;
        }
        if abs {
            let v = self.i.f(af) | 1 << si;
            self.put_named(Some(k), af, v, "|x|")?;
        }
        Ok(())
    }

    /// A register-only scalar field (destinations, bases, resources, `saddr`).
    #[inline]
    fn sgpr(&mut self, k: usize, x: &Operand, field: Option<&'static Field>) -> Result<(), Fail> {
        let o = self.c.slots[k].op;
        let Some(f) = field else { return self.failf(Some(k), format_args!("operand {} has no field", o.name)) };
        if matches!(x, Operand::Off) {
            return match o.name {
                // `start` left the field at null/off.
                "saddr" | "soffset" => Ok(()),
                _ => self.failf(Some(k), format_args!("off where a scalar register is required ({})", o.name)),
            };
        }
        let code = self.scalar(k, x, o.dwords.max(1))?;
        if code > 127 {
            return self.failf(Some(k), format_args!("{} cannot be a scalar register operand", describe(x)));
        }
        let v = match o.name {
            "sbase" if code & 1 != 0 => return fail(Some(k), "the base must start at an even register"),
            "sbase" => code / 2,
            "srsrc" if code & 3 != 0 => return fail(Some(k), "the buffer resource must start at a multiple of 4"),
            "srsrc" => code / 4,
            _ => code,
        };
        self.put(k, f, v)
    }

    /// A VGPR (or AGPR) field; a 9-bit field holds it as 256 + n.
    #[inline]
    fn vgpr(&mut self, k: usize, x: &Operand, field: Option<&'static Field>) -> Result<(), Fail> {
        let o = self.c.slots[k].op;
        let Some(f) = field else { return self.failf(Some(k), format_args!("operand {} has no field", o.name)) };
        let reg = match x {
            Operand::Reg { reg, .. } if matches!(reg.file, RegFile::Vgpr | RegFile::Agpr) => reg,
            Operand::Off if o.name.contains("addr") && matches!(self.c.shape, Shape::Flat | Shape::Buf) => {
                // SCRATCH without a VGPR address: sve = 0; buffers without vaddr leave it 0.
                if self.c.format == "SCRATCH" {
                    self.put_named(Some(k), "sve", 0, "off")?;
                }
                return Ok(());
            }
            _ => {
                return self
                    .failf(Some(k), format_args!("{} where a vector register is required ({})", describe(x), o.name))
            }
        };
        self.vreg(k, reg, o.dwords)?;
        let is_agpr = reg.file == RegFile::Agpr;
        if is_agpr != (o.kind == K::Agpr) {
            if o.kind == K::Agpr {
                return self.failf(Some(k), format_args!("{reg} where an AGPR is required"));
            }
            self.acc(k, o.name)?;
        }
        let n = self.half_code(k, reg, f)?;
        self.put(k, f, if width(f) == 9 { 256 + n } else { n })
    }

    /// Checks a VGPR/AGPR operand's file, range and size.
    #[inline]
    fn vreg(&self, k: usize, reg: &Reg, dwords: u8) -> Result<(), Fail> {
        reg.check(self.arch).map_err(|m| Fail { operand: Some(k), msg: m.into() })?;
        if reg.count == dwords.max(1) as i64 {
            return Ok(());
        }
        // The name comparisons only when the size differs (rare).
        let o = self.c.slots[k].op;
        let flexible = self.c.f8f6f4 && matches!(o.name, "src0" | "src1")
            || self.c.shape == Shape::Buf && matches!(o.name, "vaddr" | "vdata")
            || self.c.shape == Shape::Flat && matches!(o.name, "addr" | "vaddr") && reg.count <= 2;
        if !flexible {
            return self.failf(Some(k), format_args!("{reg} is {} registers; {} expected", reg.count, dwords.max(1)));
        }
        Ok(())
    }

    /// Marks an AGPR in a VGPR operand: MFMA `acc_cd` (destination and accumulator) and `acc`
    /// (one bit per A/B source); memory formats have one `acc` bit for their data.
    fn acc(&mut self, k: usize, name: &str) -> Result<(), Fail> {
        if self.i.field_def("acc_cd").is_some() {
            return match name {
                "vdst" | "src2" => self.put_named(Some(k), "acc_cd", 1, "an AGPR"),
                "src0" | "src1" => {
                    let v = self.i.f("acc") | if name == "src0" { 1 } else { 2 };
                    self.put_named(Some(k), "acc", v, "an AGPR")
                }
                _ => fail(Some(k), "an AGPR is not allowed here"),
            };
        }
        self.put_named(Some(k), "acc", 1, "an AGPR")
    }

    /// The register number of a VGPR for a field, with its true16 half: in VOP1/VOP2/VOPC the
    /// half is bit 7 of the register number; in VOP3 it is an op_sel bit.
    #[inline]
    fn half_code(&mut self, k: usize, reg: &Reg, f: &Field) -> Result<u32, Fail> {
        let n = reg.first as u32;
        let is16 = self.c.t16 >> k & 1 != 0;
        let Some(half) = reg.half else { return Ok(n) };
        if !is16 {
            return self.failf(Some(k), format_args!("{reg}: this operand is not a 16-bit register half"));
        }
        if self.c.shape == Shape::E32 {
            if n >= 128 {
                return self.failf(Some(k), format_args!("{reg} is beyond the 16-bit addressable VGPRs (v0..v127)"));
            }
            return Ok(if half == Half::Hi { n + 128 } else { n });
        }
        if half == Half::Hi {
            let si = src_index(f.name).unwrap_or(0);
            self.opsel |= 1 << si;
        }
        Ok(n)
    }

    /// A source: a register, a named register, an inline constant or a literal.
    #[inline]
    fn source(&mut self, k: usize, x: &Operand, field: Option<&'static Field>) -> Result<(), Fail> {
        let o = self.c.slots[k].op;
        let Some(f) = field else { return self.failf(Some(k), format_args!("operand {} has no field", o.name)) };
        let nine = width(f) == 9;
        let dwords = o.dwords.max(1);
        let code = match x {
            Operand::Reg { reg, .. } if matches!(reg.file, RegFile::Vgpr | RegFile::Agpr) => {
                if o.kind == K::Ssrc || !nine {
                    return self.failf(Some(k), format_args!("{reg} where a scalar source is required"));
                }
                self.vreg(k, reg, dwords)?;
                if reg.file == RegFile::Agpr {
                    if self.i.field_def("acc_cd").is_none() {
                        return self.failf(Some(k), format_args!("{reg}: this instruction reads no AGPRs"));
                    }
                    self.acc(k, o.name)?;
                }
                256 + self.half_code(k, reg, f)?
            }
            Operand::Reg { .. } | Operand::Special { .. } => {
                let c = self.scalar(k, x, dwords)?;
                self.bus_read(k, c)?;
                c
            }
            Operand::Int(v) => match inline_int_code(*v) {
                Some(c) => c,
                None if !(i32::MIN as i64..=u32::MAX as i64).contains(v) => {
                    return self.failf(Some(k), format_args!("immediate {v} does not fit in 32 bits"))
                }
                None if dwords > 1 => {
                    return self.failf(Some(k), format_args!("a 64-bit operand takes no literal ({v})"))
                }
                None => {
                    self.literal(k, *v as u32)?;
                    255
                }
            },
            Operand::F32(x) => match inline_f32_code(*x) {
                Some(c) => c,
                None if dwords > 1 => {
                    return self.failf(Some(k), format_args!("a 64-bit operand takes no f32 literal ({x})"))
                }
                None => {
                    self.literal(k, x.to_bits())?;
                    255
                }
            },
            other => {
                return self.failf(Some(k), format_args!("{} where a source operand is required", describe(other)))
            }
        };
        let v = if !nine && code >= 256 { code - 256 } else { code };
        if !nine && code > 255 && o.kind == K::Vsrc {
            return fail(Some(k), "a vector register does not fit this 8-bit field");
        }
        self.put(k, f, v)
    }

    /// The SMEM offset operand: an immediate byte offset or an SGPR.
    fn smem_offset(&mut self, k: usize, x: &Operand) -> Result<(), Fail> {
        let g9 = is_gfx9(self.arch);
        if let Operand::Int(v) = x {
            let bits = if self.arch == Arch::Gfx1201 { 24 } else { 21 };
            if *v < -(1 << (bits - 1)) || *v >= 1 << bits {
                return self.failf(Some(k), format_args!("offset {v} does not fit in {bits} bits"));
            }
            if g9 {
                self.put_named(Some(k), "imm", 1, "offset")?;
            }
            return self.put_named(Some(k), "offset", (*v as u32) & ((1 << bits) - 1), "offset");
        }
        let code = self.scalar(k, x, 1)?;
        if code > 127 {
            return self.failf(Some(k), format_args!("{} cannot be an offset register", describe(x)));
        }
        if g9 {
            // An SGPR alone goes in the offset field (imm = 0); an `offset:` modifier after it
            // moves it to soffset.
            self.put_named(Some(k), "imm", 0, "offset")?;
            self.put_named(Some(k), "offset", code, "offset")
        } else {
            self.put_named(Some(k), "soffset", code, "offset")
        }
    }

    /// 16-bit immediates (simm16, hwreg, sendmsg), branch targets, memory offsets and the
    /// literal constant of v_fmamk-style opcodes.
    fn immediate(&mut self, k: usize, x: &Operand, field: Option<&'static Field>) -> Result<(), Fail> {
        let o = self.c.slots[k].op;
        let literal = self.i.opcode().flags & FLAG_LITERAL != 0 || o.name.starts_with("op");
        let v: i64 = match x {
            Operand::Int(v) => *v,
            Operand::F32(f) if literal => f.to_bits() as i64,
            Operand::Waitcnt(w) if o.kind == K::Simm16 => {
                w.encode(self.arch).map_err(|m| Fail { operand: Some(k), msg: m.into() })? as i64
            }
            Operand::Label(l) if o.kind == K::Label => {
                self.target = Some(*l);
                0
            }
            other => {
                return self
                    .failf(Some(k), format_args!("{} where an immediate is required ({:?})", describe(other), o.kind))
            }
        };
        if literal && o.kind == K::Imm {
            if !(i32::MIN as i64..=u32::MAX as i64).contains(&v) {
                return self.failf(Some(k), format_args!("immediate {v} does not fit in 32 bits"));
            }
            return match self.lit {
                Some(l) if l != v as u32 => fail(Some(k), "a second literal: only one fits"),
                _ => {
                    self.lit = Some(v as u32);
                    Ok(())
                }
            };
        }
        let f = match field.or_else(|| self.i.field_def("simm16")) {
            Some(f) => f,
            None => return self.failf(Some(k), format_args!("operand {} has no field", o.name)),
        };
        let v = match o.kind {
            K::Simm16 | K::Label | K::Hwreg | K::Sendmsg if (-32768..=65535).contains(&v) => v as u32 & 0xffff,
            K::Simm16 | K::Label | K::Hwreg | K::Sendmsg => {
                return self.failf(Some(k), format_args!("immediate {v} does not fit in 16 bits"))
            }
            _ if v < 0 || v > u32::MAX as i64 => {
                return self.failf(Some(k), format_args!("immediate {v} is out of range"))
            }
            _ => v as u32,
        };
        self.put(k, f, v)
    }

    /// The finished instruction: op_sel of the halves, the literal.
    pub fn finish(mut self) -> Result<(Instruction, Option<Label>), Fail> {
        if self.opsel != 0 {
            let v = self.i.f("opsel") | self.opsel;
            self.put_named(None, "opsel", v, "a 16-bit high half")?;
        }
        if self.lit.is_some() {
            self.i.literal = self.lit;
        }
        Ok((self.i, self.target))
    }
}

/// An operand as a short phrase for errors (formatted only when shown).
pub(crate) fn describe(x: &Operand) -> Describe<'_> {
    Describe(x)
}

pub(crate) struct Describe<'a>(&'a Operand);

impl fmt::Display for Describe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Operand::Reg { reg, .. } => write!(f, "{reg}"),
            Operand::Special { reg, .. } => f.write_str(reg.name()),
            Operand::Int(v) => write!(f, "the immediate {v}"),
            Operand::F32(x) => write!(f, "the float {x}"),
            Operand::Off => f.write_str("off"),
            Operand::Label(l) => write!(f, "label {}", l.index()),
            Operand::Waitcnt(_) => f.write_str("waitcnt counters"),
        }
    }
}
