//! Immediate operands into a candidate's fields: 16-bit immediates, branch targets, memory
//! and SMEM offsets, the literal constant of v_fmamk-style opcodes and 64-bit literals.

use baregpu_autogen::isa::OperandKind as K;

use super::super::cands::Shape;
use super::super::operand::Operand;
use super::super::plan::{Put, Slot};
use super::{describe, fail, Fail, Fill};
use crate::operand::is_gfx9;

impl Fill<'_> {
    /// A 64-bit operand's literal: 32 bits, the high half of the f64 (as the hardware reads it);
    /// a value whose low half is not zero does not fit.
    pub(super) fn f64_literal(&mut self, k: usize, x: f64) -> Result<u32, Fail> {
        if self.c.shape == Shape::Salu {
            // A scalar 64-bit source extends its 32-bit literal as an integer: no f64 fits
            // (the assembler's rule, asm::float_lit).
            return self.failf(Some(k), format_args!("the f64 {x}: a 64-bit scalar source takes only inline floats"));
        }
        let bits = x.to_bits();
        if bits as u32 != 0 {
            return self.failf(
                Some(k),
                format_args!("the f64 {x} needs 64 bits; a literal holds the high 32 (its low half must be 0)"),
            );
        }
        self.literal(k, (bits >> 32) as u32)?;
        Ok(255)
    }

    /// The SMEM offset operand: an immediate byte offset or an SGPR.
    pub(super) fn smem_offset(&mut self, k: usize, x: &Operand) -> Result<(), Fail> {
        let g9 = is_gfx9(self.arch);
        if let Operand::Int(v) = x {
            let bits = crate::asm::smem_rules::offset_bits(&self.i);
            // The assembler's range: signed, a buffer's unsigned with one bit fewer.
            if let Some(e) = crate::asm::smem_rules::offset_refusal(&self.i, *v, &v.to_string()) {
                return self.failf(Some(k), format_args!("{e}"));
            }
            let x = self.c.extra;
            if g9 {
                self.put_extra(Some(k), x.imm, "imm", 1, "offset")?;
            }
            return self.put_extra(Some(k), x.offset, "offset", (*v as u32) & ((1u64 << bits) - 1) as u32, "offset");
        }
        let code = self.scalar(k, x, 1)?;
        if code > 127 {
            return self.failf(Some(k), format_args!("{} cannot be an offset register", describe(x)));
        }
        if g9 {
            // An SGPR alone goes in the offset field (imm = 0); an `offset:` modifier after it
            // moves it to soffset.
            let x = self.c.extra;
            self.put_extra(Some(k), x.imm, "imm", 0, "offset")?;
            self.put_extra(Some(k), x.offset, "offset", code, "offset")
        } else {
            self.put_extra(Some(k), self.c.extra.soffset, "soffset", code, "offset")
        }
    }

    /// 16-bit immediates (simm16, hwreg, sendmsg), branch targets, memory offsets and the
    /// literal constant of v_fmamk-style opcodes.
    pub(super) fn immediate(&mut self, k: usize, x: &Operand, s: &Slot, p: &Put, float: bool) -> Result<(), Fail> {
        let kind = s.op.kind;
        let v: i64 = match x {
            Operand::Int(v) => *v,
            Operand::F32(f) if float => f.to_bits() as i64,
            Operand::Waitcnt(w) if kind == K::Simm16 => w.encode(self.arch).map_err(|m| Fail::new(Some(k), m))? as i64,
            Operand::Hwreg(h) if kind == K::Hwreg => {
                let h = h.get().ok_or_else(|| Fail::new(Some(k), "an interned hwreg that does not exist"))?;
                h.value(self.arch).map_err(|m| Fail::new(Some(k), m))? as i64
            }
            Operand::Sendmsg(m) if kind == K::Sendmsg => {
                let m = m.get().ok_or_else(|| Fail::new(Some(k), "an interned sendmsg that does not exist"))?;
                m.value(self.arch).map_err(|e| Fail::new(Some(k), e))? as i64
            }
            Operand::Label(l) if kind == K::Label => {
                self.target = Some(*l);
                0
            }
            other => {
                return self
                    .failf(Some(k), format_args!("{} where an immediate is required ({:?})", describe(other), kind))
            }
        };
        if kind == K::Simm16 {
            // The unsigned SOPK compares (the assembler's rule, asm::salu_imm).
            if let Some(e) = crate::asm::salu_imm::sopk_refusal(self.i.mnemonic(), v, &v.to_string()) {
                return self.failf(Some(k), format_args!("{e}"));
            }
        }
        let v = match kind {
            K::Simm16 | K::Label | K::Hwreg | K::Sendmsg if (-32768..=65535).contains(&v) => v as u32 & 0xffff,
            K::Simm16 | K::Label | K::Hwreg | K::Sendmsg => {
                return self.failf(Some(k), format_args!("immediate {v} does not fit in 16 bits"))
            }
            _ if v < 0 || v > u32::MAX as i64 => {
                return self.failf(Some(k), format_args!("immediate {v} is out of range"))
            }
            _ => v as u32,
        };
        self.put(k, p, v)
    }

    /// The literal constant of v_fmamk-style opcodes: an integer or a float's bits.
    pub(super) fn literal_const(&mut self, k: usize, x: &Operand) -> Result<(), Fail> {
        let v: i64 = match x {
            Operand::Int(v) => *v,
            Operand::F32(f) => f.to_bits() as i64,
            other => {
                return self.failf(Some(k), format_args!("{} where a literal constant is required", describe(other)))
            }
        };
        if !(i32::MIN as i64..=u32::MAX as i64).contains(&v) {
            return self.failf(Some(k), format_args!("immediate {v} does not fit in 32 bits"));
        }
        match self.lit {
            Some(l) if l != v as u32 => fail(Some(k), "a second literal: only one fits"),
            _ => {
                self.lit = Some(v as u32);
                Ok(())
            }
        }
    }
}
