//! Typed operands into one candidate encoding's fields: every value is checked against the
//! operand's kind and the field's width, and a failure names the operand and says why. Nothing
//! here reads or writes text.

use std::borrow::Cow;
use std::fmt;

mod describe;
mod imm;
mod regs;

pub(crate) use describe::describe;

use baregpu_autogen::isa::Field;

use super::cands::{Cand, Shape};
use super::label::Label;
use super::operand::{inline_f32_code, inline_f64_code, inline_int_code, Operand};
use super::plan::{Act, Put, Slot};
use super::reg::{RegFile, Special};
use crate::asm::parser::Ext;
use crate::inst::{set, Instruction};
use crate::operand::{is_gfx9, src_index};
use crate::tables::takes_mods;
use crate::Arch;

/// Why a candidate cannot hold the operands: the operand (index into the operands; `None` for
/// the instruction as a whole or a modifier) and the reason. Quiet failures (the builder is
/// still trying encodings) carry nothing: a failure is then one word, returned in registers.
#[derive(Debug)]
pub(crate) struct Fail(Option<Box<Why>>);

#[derive(Debug)]
pub(crate) struct Why {
    pub operand: Option<usize>,
    pub msg: Cow<'static, str>,
}

impl Fail {
    #[cold]
    pub fn new(operand: Option<usize>, msg: impl Into<Cow<'static, str>>) -> Fail {
        Fail(Some(Box::new(Why { operand, msg: msg.into() })))
    }

    /// The reason (a quiet failure: "no encoding").
    pub fn why(self) -> Why {
        self.0.map_or(Why { operand: None, msg: "no encoding".into() }, |w| *w)
    }

    pub fn operand(&self) -> Option<usize> {
        self.0.as_ref().and_then(|w| w.operand)
    }
}

#[cold]
pub(crate) fn fail<T>(operand: Option<usize>, msg: impl Into<Cow<'static, str>>) -> Result<T, Fail> {
    Err(Fail::new(operand, msg))
}

/// The instruction being filled, with what the operands decided so far.
pub(crate) struct Fill<'a> {
    pub c: &'a Cand,
    /// The candidate's operands (without the data operand of an LDS-DMA buffer load).
    slots: &'a [Slot],
    pub i: Instruction,
    pub arch: Arch,
    pub lit: Option<u32>,
    pub target: Option<Label>,
    /// op_sel bits of 16-bit register halves (VOP3 true16).
    pub opsel: u32,
    /// Distinct scalar values the VALU reads (the constant bus), the literal counted once.
    bus: [u32; 4],
    nbus: usize,
    /// Per register file (by `RegFile as usize`), the highest register named + 1.
    pub used: [u32; 4],
    /// VCC (or half of it) is named.
    pub vcc: bool,
    /// `_f8f6f4` matrix ops: the A and B operands' register counts when not the table's 8.
    ab_regs: [i64; 2],
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
    /// `lds`: the instruction has the `lds` modifier (gfx9 buffer loads to LDS: no data
    /// operand).
    pub fn new(c: &'a Cand, arch: Arch, lds: bool) -> Fill<'a> {
        let slots = match &c.lds_slots {
            Some(s) if lds => s,
            _ => &c.slots,
        };
        Fill {
            c,
            slots,
            i: c.init,
            arch,
            lit: None,
            target: None,
            opsel: 0,
            bus: [0; 4],
            nbus: 0,
            used: [0; 4],
            vcc: false,
            ab_regs: [0; 2],
            quiet: false,
        }
    }

    /// A failure whose message is formatted only when it will be shown.
    #[cold]
    #[inline(never)]
    pub fn failf<T>(&self, operand: Option<usize>, msg: fmt::Arguments) -> Result<T, Fail> {
        if self.quiet {
            return Err(Fail(None));
        }
        Err(Fail::new(operand, msg.to_string()))
    }

    #[inline(always)]
    fn put(&mut self, k: usize, p: &Put, v: u32) -> Result<(), Fail> {
        if p.write(&mut self.i.words, v) {
            Ok(())
        } else {
            self.put_fail(k, p, v)
        }
    }

    #[cold]
    #[inline(never)]
    fn put_fail(&self, k: usize, p: &Put, v: u32) -> Result<(), Fail> {
        self.failf(Some(k), format_args!("value {v} does not fit in field {} ({} bits)", p.f.name, p.width()))
    }

    /// Sets a field by name (modifier bits); `what` names the operand or modifier.
    pub fn put_named(&mut self, k: Option<usize>, name: &str, v: u32, what: &str) -> Result<(), Fail> {
        match self.i.field_def(name) {
            Some(f) if set(&mut self.i.words, f, v) => Ok(()),
            Some(f) => fail(k, format!("{what}: value {v} does not fit in {} bits", width(f))),
            None => fail(k, format!("{what} is not available in the {} encoding", self.i.format().name)),
        }
    }

    /// Sets a field resolved in advance ([`super::plan::Extra`]); the name is looked up only to
    /// explain a failure.
    #[inline]
    pub fn put_extra(&mut self, k: Option<usize>, p: Option<Put>, name: &str, v: u32, what: &str) -> Result<(), Fail> {
        match p {
            Some(p) if p.write(&mut self.i.words, v) => Ok(()),
            _ => self.put_named(k, name, v, what),
        }
    }

    fn literal(&mut self, k: usize, v: u32) -> Result<(), Fail> {
        let ok = self.c.ext == Ext::None
            && match self.c.shape {
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

    /// A 32-bit integer literal for a 16-bit source must be a 16-bit value, as the assembler
    /// requires (`operand::literal_too_wide`); the sources that keep its low 16 bits excepted.
    fn int16_fits(&self, k: usize, name: &str, dwords: u8, v: u32) -> Result<(), Fail> {
        if !crate::operand::literal_too_wide(v) || crate::asm::low16::low16(&self.i, src_index(name)).is_some() {
            return Ok(());
        }
        let slot = baregpu_autogen::isa::sources::source_index(name).unwrap_or(0);
        let ty = crate::operand::src_val_type(self.arch, self.i.mnemonic(), slot, dwords.into());
        let lit16 = self.i.opcode().flags & crate::tables::FLAG_LIT16 != 0;
        let packed = matches!(self.c.shape, Shape::Vop3p | Shape::Matrix);
        let halves = crate::src_type::halves_read_32bit(self.arch, self.i.mnemonic(), slot);
        if crate::operand::reads_16bit_literal(ty, lit16, packed, halves) {
            return self
                .failf(Some(k), format_args!("0x{v:x} does not fit the 16-bit operand (llvm-mc takes -32768..65535)"));
        }
        Ok(())
    }

    /// Counts a scalar value read by a VALU instruction against the constant bus
    /// ([`crate::asm::const_bus::limit`]; the same SGPR or the one literal counts once).
    fn bus_read(&mut self, k: usize, code: u32) -> Result<(), Fail> {
        if !self.c.shape.is_valu() || self.bus[..self.nbus].contains(&code) {
            return Ok(());
        }
        // One value always fits; the limit (the 64-bit shifts take one) is asked only past it.
        let limit = if self.nbus == 0 { 1 } else { crate::asm::const_bus::limit(self.arch, self.i.mnemonic()) };
        if self.nbus >= limit {
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
                if !reg.fits(self.arch) {
                    reg.check(self.arch).map_err(|m| Fail::new(Some(k), m))?;
                }
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
                if reg.count != dwords as i16 {
                    return self.failf(Some(k), format_args!("{reg} is {} registers; {dwords} expected", reg.count));
                }
                Ok(base + reg.first as u32)
            }
            Operand::Special { reg, .. } => {
                let (code, size) = special_code(self.arch, *reg).map_err(|m| Fail::new(Some(k), m))?;
                if size != 0 && size != dwords {
                    return self.failf(Some(k), format_args!("{} is {size} dwords; {dwords} expected", reg.name()));
                }
                Ok(code)
            }
            other => self.failf(Some(k), format_args!("{} where a scalar register is required", describe(other))),
        }
    }

    /// Fills every operand; then the caller applies the modifiers and [`Fill::finish`]es.
    #[inline]
    pub fn operands(&mut self, ops: &[Operand]) -> Result<(), Fail> {
        let want = self.slots.len();
        if ops.len() != want {
            return self.failf(None, format_args!("{} operands given, {want} expected", ops.len()));
        }
        for (k, (x, s)) in ops.iter().zip(self.slots.iter()).enumerate() {
            self.operand(k, x, s)?;
        }
        if let Some((d, c)) = self.c.cd_pair {
            let agpr = |x: &Operand| matches!(x, Operand::Reg { reg, .. } if reg.file == RegFile::Agpr);
            let (d, c) = (d as usize, c as usize);
            if matches!(ops[c], Operand::Reg { .. }) && agpr(&ops[d]) != agpr(&ops[c]) {
                return self.failf(
                    Some(c),
                    format_args!(
                        "the destination and src2 share one register-file bit (acc_cd): both VGPRs or both AGPRs"
                    ),
                );
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn operand(&mut self, k: usize, x: &Operand, s: &Slot) -> Result<(), Fail> {
        if let (Some(f), Some(p), Operand::Reg { reg, neg: false, abs: false }) = (&s.fast, &s.put, x) {
            if reg.file == f.file
                && reg.count == f.count
                && reg.half.is_none()
                && (0..=f.last_first).contains(&reg.first)
                && reg.first & f.align == 0
            {
                let code = reg.first as u32;
                if f.bus {
                    self.bus_read(k, code)?;
                }
                self.note(f.file, reg.end());
                return self.put(k, p, (code >> f.shift) + f.base);
            }
        }
        self.operand_general(k, x, s)
    }

    #[inline(never)]
    fn operand_general(&mut self, k: usize, x: &Operand, s: &Slot) -> Result<(), Fail> {
        if let Operand::Modified { x, neg, abs, sext } = x {
            if *neg || *abs {
                self.source_mods(k, s.op.name, *neg, *abs)?;
            }
            if *sext {
                let si = src_index(s.op.name).unwrap_or(0);
                if let Some(e) = crate::src_mods::refusal(self.i.opcode(), si, false, false, true, true) {
                    return fail(Some(k), e);
                }
                let field = match src_index(s.op.name) {
                    Some(0) if self.c.ext == Ext::Sdwa => "src0_sext",
                    Some(1) if self.c.ext == Ext::Sdwa => "src1_sext",
                    _ => return fail(Some(k), "sext(x) needs an SDWA source (give an SDWA selector)"),
                };
                self.put_named(Some(k), field, 1, "sext")?;
            }
            return self.operand_general(k, &x.get(), s);
        }
        match x {
            Operand::Reg { reg, .. } => self.note(reg.file, reg.end().max(0)),
            Operand::Special { reg, .. } if reg.is_vcc() => self.vcc = true,
            _ => {}
        }
        if let Operand::Reg { neg, abs, .. } | Operand::Special { neg, abs, .. } = *x {
            if neg || abs {
                self.source_mods(k, s.op.name, neg, abs)?;
            }
        }
        match (&s.act, &s.put) {
            (&Act::Sgpr { shift, off_ok }, Some(p)) => self.sgpr(k, x, s, p, shift, off_ok),
            (&Act::Vreg { nine, agpr, off_ok }, Some(p)) => self.vgpr(k, x, s, p, nine, agpr, off_ok),
            (&Act::Src { nine, vsrc }, Some(p)) => self.source(k, x, s, p, nine, vsrc),
            (&Act::Imm { float }, Some(p)) => self.immediate(k, x, s, p, float),
            (Act::Literal, _) => self.literal_const(k, x),
            (Act::Fixed, _) => match x {
                Operand::Special { reg, .. } if reg.name() == s.op.name => Ok(()),
                // gfx9 VOPC SDWA: a scalar pair other than vcc goes in `sdst`, with `sd` set.
                Operand::Reg { .. } | Operand::Special { .. } if self.c.ext == Ext::Sdwa && s.op.name == "vcc" => {
                    self.sdwa_sdst(k, x)
                }
                _ => self.failf(Some(k), format_args!("{} where {} is required", describe(x), s.op.name)),
            },
            (Act::Off, _) => match x {
                Operand::Off => Ok(()),
                _ => self.failf(Some(k), format_args!("{} where off is required", describe(x))),
            },
            (Act::SmemOffset, _) => self.smem_offset(k, x),
            (Act::VopdDstY, Some(p)) => self.vopd_dst_y(k, x, p),
            (&Act::SdwaSrc { second }, Some(p)) => self.sdwa_source(k, x, s, p, if second { "s1" } else { "s0" }),
            (Act::Attr, _) => match x {
                Operand::Attr(a) if a.chan > 3 => fail(Some(k), "the channel is not x, y, z or w"),
                // The field has 6 bits; llvm-mc takes attr0..attr32 (the attributes there are).
                Operand::Attr(a) if a.index > 32 => fail(Some(k), "the attribute is not attr0..attr32"),
                Operand::Attr(a) => {
                    self.put_named(Some(k), "attr", a.index as u32, "the attribute")?;
                    self.put_named(Some(k), "attrchan", a.chan as u32, "the channel")
                }
                _ => self
                    .failf(Some(k), format_args!("{} where an LDS parameter (attr(n, 'x')) is required", describe(x))),
            },
            _ => self.failf(Some(k), format_args!("operand {} has no field", s.op.name)),
        }
    }

    fn source_mods(&mut self, k: usize, name: &str, neg: bool, abs: bool) -> Result<(), Fail> {
        let Some(si) = src_index(name).filter(|&s| s < 3) else {
            return self.failf(Some(k), format_args!("operand {name} takes no -x / |x| modifiers"));
        };
        if let Some(e) = crate::src_mods::refusal(self.i.opcode(), si, neg, abs, false, false) {
            return fail(Some(k), e);
        }
        let m = self.i.mnemonic();
        let what = if neg { "-x" } else { "|x|" };
        if self.c.ext != Ext::None && self.c.shape == Shape::E32 && takes_mods(self.i.opcode(), si) {
            // DPP16 and SDWA forms of VOP1/VOP2/VOPC: a neg and an abs bit per source.
            let (nf, af) = (["src0_neg", "src1_neg"][si.min(1)], ["src0_abs", "src1_abs"][si.min(1)]);
            if neg {
                self.put_named(Some(k), nf, 1, "-x")?;
            }
            if abs {
                self.put_named(Some(k), af, 1, "|x|")?;
            }
            return Ok(());
        }
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

    /// A source: a register, a named register, an inline constant or a literal.
    #[inline]
    fn source(&mut self, k: usize, x: &Operand, s: &Slot, p: &Put, nine: bool, vsrc: bool) -> Result<(), Fail> {
        let dwords = s.op.dwords.max(1);
        let code = match x {
            Operand::Reg { reg, .. } if matches!(reg.file, RegFile::Vgpr | RegFile::Agpr) => {
                if !vsrc || !nine {
                    return self.failf(Some(k), format_args!("{reg} where a scalar source is required"));
                }
                self.vreg(k, reg, dwords)?;
                if reg.file == RegFile::Agpr {
                    if self.c.extra.acc_cd.is_none() {
                        return self.failf(Some(k), format_args!("{reg}: this instruction reads no AGPRs"));
                    }
                    self.acc(k, s.op.name)?;
                }
                256 + self.half_code(k, reg, p.f)?
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
                // A 64-bit float operand reads a 32-bit literal as its high half; llvm-mc encodes
                // one that makes an inline f64 as that constant.
                None if dwords > 1 && self.i.mnemonic().contains("f64") => {
                    match inline_f64_code(f64::from_bits((*v as u32 as u64) << 32)) {
                        Some(c) => c,
                        None => self.literal(k, *v as u32).map(|()| 255)?,
                    }
                }
                None => {
                    self.int16_fits(k, s.op.name, dwords, *v as u32)?;
                    self.literal(k, *v as u32)?;
                    255
                }
            },
            Operand::F32(x) => match inline_f32_code(*x) {
                Some(c) => c,
                None if dwords > 1 => self.f64_literal(k, *x as f64)?,
                None => {
                    self.literal(k, x.to_bits())?;
                    255
                }
            },
            Operand::F64(x) => match inline_f64_code(*x) {
                Some(c) => c,
                None if dwords > 1 => self.f64_literal(k, *x)?,
                None => return self.failf(Some(k), format_args!("the f64 {x} where a 32-bit operand is required")),
            },
            other => {
                return self.failf(Some(k), format_args!("{} where a source operand is required", describe(other)))
            }
        };
        if self.c.shape == Shape::Matrix {
            // The sources llvm-mc refuses in a matrix op, the assembler's rule (asm::matrix).
            let file = match x {
                Operand::Reg { reg, .. } => reg.file.prefix().chars().next(),
                _ => None,
            };
            crate::asm::matrix::check(&self.i, s.op.name, code, file).or_else(|e| fail(Some(k), e))?;
        }
        let v = if !nine && code >= 256 { code - 256 } else { code };
        if !nine && code > 255 && vsrc {
            return fail(Some(k), "a vector register does not fit this 8-bit field");
        }
        self.put(k, p, v)
    }

    /// An SDWA source (gfx9): a VGPR by number; a scalar register or an inline constant by its
    /// code, with the source's `s` bit set. SDWA takes no literal.
    fn sdwa_source(&mut self, k: usize, x: &Operand, s: &Slot, p: &Put, sbit: &str) -> Result<(), Fail> {
        let dwords = s.op.dwords.max(1);
        let code = match x {
            Operand::Reg { reg, .. } if reg.file == RegFile::Vgpr => {
                self.vreg(k, reg, dwords)?;
                return self.put(k, p, reg.first as u32);
            }
            Operand::Reg { .. } | Operand::Special { .. } => {
                let c = self.scalar(k, x, dwords)?;
                self.bus_read(k, c)?;
                c
            }
            Operand::Int(v) => match inline_int_code(*v) {
                Some(c) => c,
                None => return self.failf(Some(k), format_args!("SDWA takes no literal ({v})")),
            },
            Operand::F32(f) => match inline_f32_code(*f) {
                Some(c) => c,
                None => return self.failf(Some(k), format_args!("SDWA takes no literal ({f})")),
            },
            other => return self.failf(Some(k), format_args!("{} where an SDWA source is required", describe(other))),
        };
        self.put_named(Some(k), sbit, 1, "a scalar SDWA source")?;
        self.put(k, p, code)
    }

    /// The finished instruction: op_sel of the halves, the literal.
    /// Completes the instruction (`self.i`): op_sel of the halves, the literal.
    #[inline]
    pub fn finish(&mut self) -> Result<(), Fail> {
        if self.opsel != 0 {
            let p = self.c.extra.opsel;
            let v = p.map_or(0, |p| p.read(&self.i.words)) | self.opsel;
            self.put_extra(None, p, "opsel", v, "a 16-bit high half")?;
        }
        self.i.literal = self.lit;
        if self.lit.is_some() && crate::asm::buf_soffset::refused(&self.i) {
            let k = self.slots.iter().position(|s| s.op.name == "soffset");
            return self.failf(k, format_args!("a buffer soffset takes no literal (an SGPR or an inline constant)"));
        }
        // Kinds llvm-mc refuses in a source or destination (`v_readfirstlane_b32 s0, s1`): the
        // assembler's rule. Such opcodes have no fast plan.
        if let Some((n, e)) = crate::src_kinds::first_refusal(&self.i) {
            return self.failf(self.slots.iter().position(|s| s.op.name == n), format_args!("{e}"));
        }
        if self.c.ext != Ext::None {
            if let Some((n, e)) = crate::dpp_kinds::first_refusal(&self.i) {
                return self.failf(self.slots.iter().position(|s| s.op.name == n), format_args!("{e}"));
            }
        }
        if self.c.f8f6f4 {
            self.f8f6f4_sizes()?;
        }
        // Modifier bits llvm-mc's assembler writes for the opcode (the assembler's rule).
        if let Err((c, e)) = crate::modifiers::check(&self.i) {
            let k = match c {
                crate::modifiers::Culprit::Src(si) => {
                    self.slots.iter().position(|s| crate::operand::src_index(s.op.name) == Some(si))
                }
                crate::modifiers::Culprit::Mod(_) => None,
            };
            return self.failf(k, format_args!("{e}"));
        }
        // SMEM data, offsets and sizes; GWS gds and data; tfe on a store (the assembler's rules).
        if matches!(self.c.shape, Shape::Smem | Shape::Ds | Shape::Buf) {
            let r = crate::asm::smem_rules::check(&self.i)
                .and_then(|()| crate::asm::gws::check(&self.i))
                .and_then(|()| crate::asm::store_tfe::check(&self.i));
            if let Err(e) = r {
                return self.failf(None, format_args!("{e}"));
            }
        }
        // A memory modifier the opcode has no operand for (the assembler's rule, on the bits).
        if matches!(self.c.shape, Shape::Smem | Shape::Ds | Shape::Buf | Shape::Flat)
            && crate::asm::mem_mods::word_refused(&self.i)
        {
            return self.failf(None, format_args!("{} has no operand for a modifier it sets", self.i.mnemonic()));
        }
        // The bus as llvm-mc counts it (widths, implicit lane-mask reads, SDWA), where a scalar
        // value was read: `bus_read` counts the sources' codes only.
        if self.nbus > 0 && self.c.shape.is_valu() {
            if let Err((k, e)) = crate::asm::const_bus::check(&self.i) {
                return self.failf(k, format_args!("{e}"));
            }
        }
        Ok(())
    }

    /// A gfx950 `_f8f6f4` op's A and B register counts follow their formats (`cbsz`, `blgp`):
    /// fp8/bf8 8 registers, fp6/bf6 6, fp4 4.
    fn f8f6f4_sizes(&self) -> Result<(), Fail> {
        for (n, (fmt, src)) in [("cbsz", "src0"), ("blgp", "src1")].into_iter().enumerate() {
            let want = match self.i.f(fmt) {
                0 | 1 => 8,
                2 | 3 => 6,
                4 => 4,
                v => return self.failf(None, format_args!("{fmt}:{v} is not a format (0..=4)")),
            };
            let got = if self.ab_regs[n] == 0 { 8 } else { self.ab_regs[n] };
            if got != want {
                let k = self.slots.iter().position(|s| s.op.name == src);
                return self
                    .failf(k, format_args!("{got} registers; {fmt}:{} (the format) takes {want}", self.i.f(fmt)));
            }
        }
        Ok(())
    }

    /// Counts a register the instruction names (for [`super::ResourceTracker`]).
    #[inline(always)]
    fn note(&mut self, file: RegFile, end: i64) {
        let e = &mut self.used[file as usize];
        *e = (*e).max(end as u32);
    }
}
