//! Instruction modifiers into fields, as llvm-mc encodes them.

use super::cands::Shape;
use super::dpp::dpp8_lanes;
use super::encode::{fail, Fail, Fill};
use super::operand::{BitList, Mod, Omod};
use crate::asm::parser::Ext;
use crate::disasm::has_dst;
use crate::offset_range::offset_range;
use crate::operand::is_gfx9;
use crate::tables::Tables;

/// The src0 code of DPP8 with fetch-inactive (`fi:1`).
const DPP8_FI: u32 = 0xea;

/// `[a, b, c]` of 0/1 as bits (entry 0 is bit 0) and the count.
fn list_bits(what: &str, bits: &BitList) -> Result<(u32, usize), Fail> {
    if bits.len() > bits.entries().len() {
        return fail(None, format!("{what}: {} entries; at most 8", bits.len()));
    }
    let mut v = 0;
    for (k, &b) in bits.entries().iter().enumerate() {
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
            Mod::Dpp(c) => {
                let v = c.value(self.arch).map_err(|e| Fail::new(None, e))?;
                self.put_named(None, "dpp_ctrl", v, "a DPP16 control")
            }
            Mod::Dpp8(lanes) => {
                let v = dpp8_lanes(lanes).map_err(|e| Fail::new(None, e))?;
                self.put_named(None, "lane_sel", v, "dpp8")
            }
            // They select the form (`dpp::ext_of`) and write nothing.
            Mod::DppForm | Mod::SdwaForm => Ok(()),
            Mod::RowMask(n) => self.put_named(None, "row_mask", u32::from(*n), "row_mask"),
            Mod::BankMask(n) => self.put_named(None, "bank_mask", u32::from(*n), "bank_mask"),
            Mod::BoundCtrl | Mod::Fi if self.c.ext == Ext::None => self.swap_bits(m),
            Mod::BoundCtrl => self.put_named(None, "bound_ctrl", 1, "bound_ctrl"),
            Mod::Fi if self.c.ext == Ext::Dpp8 => self.dpp8_fi(),
            Mod::Fi => self.put_named(None, "fi", 1, "fi"),
            Mod::DstSel(_) | Mod::DstUnused(_) if crate::asm::sdwa_dst::refusal(&self.i, "dst_sel").is_some() => {
                fail(None, "llvm-mc's SDWA form of this opcode has no destination selector")
            }
            Mod::DstSel(s) => self.put_named(None, "dst_sel", *s as u32, "dst_sel"),
            Mod::Src0Sel(s) => self.put_named(None, "src0_sel", *s as u32, "src0_sel"),
            Mod::Src1Sel(s) => self.put_named(None, "src1_sel", *s as u32, "src1_sel"),
            Mod::DstUnused(u) => self.put_named(None, "dst_unused", *u as u32, "dst_unused"),
        }
    }

    /// gfx950 `v_permlane*_swap` (VOP3, no DPP form): `fi` and `bound_ctrl` are op_sel bits 0
    /// and 1, as llvm-mc encodes them.
    fn swap_bits(&mut self, m: &Mod) -> Result<(), Fail> {
        if !self.i.mnemonic().contains("_swap") {
            return fail(None, "fi and bound_ctrl need a DPP form of the instruction");
        }
        let bit = if *m == Mod::Fi { 1 } else { 2 };
        let v = self.i.f("opsel") | bit;
        self.put_named(None, "opsel", v, "fi/bound_ctrl")
    }

    /// DPP8 with `fi:1` is its own encoding: src0 holds 0xea instead of 0xe9.
    fn dpp8_fi(&mut self) -> Result<(), Fail> {
        let t = Tables::get(self.arch);
        let name = self.i.format().name;
        let layout = t.layout[self.i.op as usize] as usize;
        let alt = t.mods[layout].iter().copied().find(|&m| {
            let f = t.format(m);
            f.name == name && f.select.iter().any(|s| s.2 == DPP8_FI)
        });
        let Some(fmt) = alt else { return fail(None, "fi: no DPP8 fetch-inactive encoding") };
        self.i.fmt = fmt;
        self.put_named(None, "src0", DPP8_FI, "fi")
    }

    fn op_sel(&mut self, b: &BitList) -> Result<(), Fail> {
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
                let x = self.c.extra;
                let width = x.offset.map_or(21, |p| p.width());
                let (lo, hi) = crate::asm::smem_rules::offset_range(&self.i);
                if v < lo || v > hi {
                    return self.failf(None, format_args!("offset:{v} is out of range ({lo}..={hi})"));
                }
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
                self.put_extra(None, x.offset, "offset", (v as u32) & ((1u64 << width) - 1) as u32, "offset")
            }
            Shape::Flat | Shape::Buf => {
                let fname = self.i.format().name;
                let Some(p) = self.c.extra.offsets[0] else { return fail(None, "offset: no offset field") };
                let width = p.width();
                let (lo, hi) = offset_range(self.arch, fname, width);
                if v < lo || v > hi {
                    return self.failf(None, format_args!("offset:{v} is out of range ({lo}..={hi})"));
                }
                self.put_extra(None, Some(p), "offset", (v as u32) & ((1u64 << width) - 1) as u32, "offset")
            }
            _ => self.failf(None, format_args!("offset:{v} is not available in the {} encoding", self.i.format().name)),
        }
    }
}
