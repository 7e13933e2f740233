//! Instruction modifiers into fields, as llvm-mc encodes them.

use super::cands::Shape;
use super::encode::{fail, Fail, Fill};
use super::operand::{Mod, Omod};
use crate::disasm::has_dst;
use crate::operand::is_gfx9;
use crate::Arch;

/// `[a, b, c]` of 0/1 as bits (entry 0 is bit 0) and the count.
fn list_bits(what: &str, bits: &[u8]) -> Result<(u32, usize), Fail> {
    let mut v = 0;
    for (k, &b) in bits.iter().enumerate() {
        match b {
            0 => {}
            1 => v |= 1 << k,
            _ => return fail(None, format!("{what}: entry {k} is {b}; 0 or 1 expected")),
        }
    }
    Ok((v, bits.len()))
}

impl Fill<'_> {
    /// Applies the modifiers in order.
    pub fn mods(&mut self, mods: &[Mod]) -> Result<(), Fail> {
        for m in mods {
            self.one_mod(m)?;
        }
        Ok(())
    }

    fn one_mod(&mut self, m: &Mod) -> Result<(), Fail> {
        match m {
            Mod::Clamp => self.put_extra(None, self.c.extra.clamp, "clamp", 1, "clamp"),
            Mod::Omod(o) => {
                let v = match o {
                    Omod::Mul2 => 1,
                    Omod::Mul4 => 2,
                    Omod::Div2 => 3,
                };
                self.put_extra(None, self.c.extra.omod, "omod", v, "an output modifier")
            }
            Mod::OpSel(b) => self.op_sel(b),
            Mod::OpSelHi(b) => {
                let (v, n) = list_bits("op_sel_hi", b)?;
                if self.i.field_def("scale_opsel_hi").is_some() {
                    // The scale sources' op_sel_hi: two bits in one dword, the third apart.
                    self.put_named(None, "scale_opsel_hi", v & 3, "op_sel_hi")?;
                    if v >> 2 != 0 {
                        self.put_named(None, "scale_opsel_hi2", v >> 2 & 1, "op_sel_hi")?;
                    }
                    return Ok(());
                }
                self.put_named(None, "opsel_hi", v & 3, "op_sel_hi")?;
                if n >= 3 && self.i.field_def("opsel_hi2").is_some() {
                    self.put_named(None, "opsel_hi2", v >> 2 & 1, "op_sel_hi")?;
                }
                Ok(())
            }
            Mod::NegLo(b) => {
                let v = list_bits("neg_lo", b)?.0;
                let field = if self.i.mnemonic().starts_with("v_mfma_f64") { "blgp" } else { "neg" };
                self.put_named(None, field, v, "neg_lo")
            }
            Mod::NegHi(b) => {
                let v = list_bits("neg_hi", b)?.0;
                self.put_named(None, "neg_hi", v, "neg_hi")
            }
            Mod::Offset(v) => self.offset(*v),
            Mod::Cbsz(v) => self.put_named(None, "cbsz", *v as u32, "cbsz"),
            Mod::Abid(v) => self.put_named(None, "abid", *v as u32, "abid"),
            Mod::Field(name, v) => self.put_named(None, name, *v, name),
            Mod::Blgp(v) => self.put_named(None, "blgp", *v as u32, "blgp"),
            Mod::Flag(f) => self.put_extra(None, self.c.extra.flags[*f as usize], f.field(), 1, f.field()),
        }
    }

    fn op_sel(&mut self, b: &[u8]) -> Result<(), Fail> {
        let (bits, n) = list_bits("op_sel", b)?;
        if self.i.field_def("scale_opsel").is_some() {
            return self.put_named(None, "scale_opsel", bits, "op_sel");
        }
        // VOP3 (not VOP3P): the last entry is the destination's, bit 3.
        let v = if self.i.mnemonic().starts_with("v_permlane") || !has_dst(&self.i) {
            bits
        } else if self.c.shape == Shape::Vop3 {
            let last = n.saturating_sub(1);
            (bits & ((1 << last) - 1)) | ((bits >> last) & 1) << 3
        } else {
            bits
        };
        let v = v | self.i.f("opsel");
        self.put_named(None, "opsel", v, "op_sel")
    }

    /// `offset:N` of DS, SMEM, FLAT/GLOBAL/SCRATCH and buffer instructions.
    fn offset(&mut self, v: i64) -> Result<(), Fail> {
        match self.c.shape {
            Shape::Ds => {
                if !(0..=0xffff).contains(&v) {
                    return self.failf(None, format_args!("offset:{v} is out of range (0..=65535)"));
                }
                let [f0, f1] = self.c.extra.offsets;
                self.put_extra(None, f0, "offset0", v as u32 & 0xff, "offset")?;
                self.put_extra(None, f1, "offset1", (v as u32) >> 8, "offset")
            }
            Shape::Smem => {
                if !(0..1 << 21).contains(&v) {
                    return self.failf(None, format_args!("offset:{v} is out of range"));
                }
                let x = self.c.extra;
                let read = |p: Option<super::plan::Put>, w: &[u32; 4]| p.map_or(0, |p| p.read(w));
                if is_gfx9(self.arch) {
                    if read(x.imm, &self.i.words) == 0 && read(x.soe, &self.i.words) == 0 {
                        // An SGPR offset given as an operand moves to soffset.
                        let sgpr = read(x.offset, &self.i.words);
                        self.put_extra(None, x.soffset, "soffset", sgpr, "offset")?;
                        self.put_extra(None, x.soe, "soe", 1, "offset")?;
                    }
                    self.put_extra(None, x.imm, "imm", 1, "offset")?;
                }
                self.put_extra(None, x.offset, "offset", v as u32, "offset")
            }
            Shape::Flat | Shape::Buf => {
                let fname = self.i.format().name;
                let Some(p) = self.c.extra.offsets[0] else { return fail(None, "offset: no offset field") };
                let width = p.width() as i64;
                let signed = matches!(fname, "GLOBAL" | "SCRATCH") || self.arch == Arch::Gfx1201 && fname != "VBUFFER";
                let (lo, hi) =
                    if signed { (-(1 << (width - 1)), (1 << (width - 1)) - 1) } else { (0, (1 << width) - 1) };
                let hi = if fname == "FLAT" && self.arch != Arch::Gfx1201 { 0xfff } else { hi };
                if v < lo || v > hi {
                    return self.failf(None, format_args!("offset:{v} is out of range ({lo}..={hi})"));
                }
                self.put_extra(None, Some(p), "offset", (v as u32) & ((1u64 << width) - 1) as u32, "offset")
            }
            _ => self.failf(None, format_args!("offset:{v} is not available in the {} encoding", self.i.format().name)),
        }
    }
}
