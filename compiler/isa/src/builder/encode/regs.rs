//! Register operands into a candidate's fields: scalar and vector register fields, their
//! ranges, sizes, AGPR bits and true16 halves, the gfx9 SDWA scalar destination and the VOPD
//! Y destination.

use baregpu_autogen::isa::Field;

use super::super::cands::Shape;
use super::super::operand::Operand;
use super::super::plan::{Put, Slot};
use super::super::reg::{Half, Reg, RegFile};
use super::{describe, fail, Fail, Fill};
use crate::operand::src_index;

impl Fill<'_> {
    /// A register-only scalar field (destinations, bases, resources, `saddr`).
    #[inline]
    pub(super) fn sgpr(
        &mut self,
        k: usize,
        x: &Operand,
        s: &Slot,
        p: &Put,
        shift: u8,
        off_ok: bool,
    ) -> Result<(), Fail> {
        if matches!(x, Operand::Off) {
            if off_ok {
                // `start` left the field at null/off.
                return Ok(());
            }
            return self.failf(Some(k), format_args!("off where a scalar register is required ({})", s.op.name));
        }
        let code = self.scalar(k, x, s.op.dwords.max(1))?;
        if code > 127 {
            return self.failf(Some(k), format_args!("{} cannot be a scalar register operand", describe(x)));
        }
        if code & ((1 << shift) - 1) != 0 {
            return match shift {
                1 => fail(Some(k), "the base must start at an even register"),
                _ => fail(Some(k), "the buffer resource must start at a multiple of 4"),
            };
        }
        self.put(k, p, code >> shift)
    }

    /// A VGPR (or AGPR) field; a 9-bit field holds it as 256 + n.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn vgpr(
        &mut self,
        k: usize,
        x: &Operand,
        s: &Slot,
        p: &Put,
        nine: bool,
        agpr: bool,
        off_ok: bool,
    ) -> Result<(), Fail> {
        let reg = match x {
            Operand::Reg { reg, .. } if matches!(reg.file, RegFile::Vgpr | RegFile::Agpr) => reg,
            Operand::Off if off_ok => {
                // SCRATCH without a VGPR address: sve = 0; buffers without vaddr leave it 0.
                if self.c.format == "SCRATCH" {
                    self.put_extra(Some(k), self.c.extra.sve, "sve", 0, "off")?;
                }
                return Ok(());
            }
            _ => {
                return self.failf(
                    Some(k),
                    format_args!("{} where a vector register is required ({})", describe(x), s.op.name),
                )
            }
        };
        self.vreg(k, reg, s.op.dwords)?;
        if (reg.file == RegFile::Agpr) != agpr {
            if agpr {
                return self.failf(Some(k), format_args!("{reg} where an AGPR is required"));
            }
            self.acc(k, s.op.name)?;
        }
        let n = self.half_code(k, reg, p.f)?;
        self.put(k, p, if nine { 256 + n } else { n })
    }

    /// Checks a VGPR/AGPR operand's file, range and size.
    #[inline]
    pub(super) fn vreg(&mut self, k: usize, reg: &Reg, dwords: u8) -> Result<(), Fail> {
        if reg.fits(self.arch) && reg.count == dwords.max(1) as i16 {
            return Ok(());
        }
        self.vreg_size(k, reg, dwords)
    }

    /// A register run whose size differs from the table's: allowed where the size is the
    /// program's choice (f8f6f4 A/B, buffer and flat addresses and data).
    #[cold]
    #[inline(never)]
    pub(super) fn vreg_size(&mut self, k: usize, reg: &Reg, dwords: u8) -> Result<(), Fail> {
        reg.check(self.arch).map_err(|m| Fail::new(Some(k), m))?;
        if reg.count == dwords.max(1) as i16 {
            return Ok(());
        }
        let o = self.slots[k].op;
        let flexible = self.c.f8f6f4 && matches!(o.name, "src0" | "src1")
            || self.c.shape == Shape::Buf && matches!(o.name, "vaddr" | "vdata")
            || self.c.shape == Shape::Flat && matches!(o.name, "addr" | "vaddr") && reg.count <= 2;
        if !flexible {
            return self.failf(Some(k), format_args!("{reg} is {} registers; {} expected", reg.count, dwords.max(1)));
        }
        if self.c.f8f6f4 {
            self.ab_regs[(o.name == "src1") as usize] = reg.count as i64;
        }
        Ok(())
    }

    /// Marks an AGPR in a VGPR operand: MFMA `acc_cd` (destination and accumulator) and `acc`
    /// (one bit per A/B source); memory formats have one `acc` bit for their data.
    pub(super) fn acc(&mut self, k: usize, name: &str) -> Result<(), Fail> {
        let x = self.c.extra;
        if x.acc_cd.is_some() {
            return match name {
                "vdst" | "src2" => self.put_extra(Some(k), x.acc_cd, "acc_cd", 1, "an AGPR"),
                "src0" | "src1" => {
                    let v = x.acc.map_or(0, |p| p.read(&self.i.words)) | if name == "src0" { 1 } else { 2 };
                    self.put_extra(Some(k), x.acc, "acc", v, "an AGPR")
                }
                _ => fail(Some(k), "an AGPR is not allowed here"),
            };
        }
        self.put_extra(Some(k), x.acc, "acc", 1, "an AGPR")
    }

    /// The register number of a VGPR for a field, with its true16 half: in VOP1/VOP2/VOPC the
    /// half is bit 7 of the register number; in VOP3 it is an op_sel bit.
    #[inline]
    pub(super) fn half_code(&mut self, k: usize, reg: &Reg, f: &Field) -> Result<u32, Fail> {
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

    /// A gfx9 VOPC SDWA destination other than vcc: an SGPR pair (or trap or special pair) whose
    /// code fits the 7-bit `sdst` field, with `sd` set (as llvm-mc encodes `v_cmp_*_sdwa s[6:7]`).
    pub(super) fn sdwa_sdst(&mut self, k: usize, x: &Operand) -> Result<(), Fail> {
        let c = self.scalar(k, x, 2)?;
        if c > 127 {
            return self.failf(Some(k), format_args!("{} cannot be an SDWA compare's destination", describe(x)));
        }
        self.put_named(Some(k), "sdst", c, "the destination")?;
        self.put_named(Some(k), "sd", 1, "the destination")
    }

    /// The VOPD Y destination: one VGPR of the other parity than the X destination (already
    /// filled), stored halved.
    pub(super) fn vopd_dst_y(&mut self, k: usize, x: &Operand, p: &Put) -> Result<(), Fail> {
        let reg = match x {
            Operand::Reg { reg, .. } if reg.file == RegFile::Vgpr && reg.half.is_none() => reg,
            _ => return self.failf(Some(k), format_args!("{} where a VGPR is required", describe(x))),
        };
        self.vreg(k, reg, 1)?;
        let n = reg.first as u32;
        if n & 1 == self.i.f("vdstx") & 1 {
            return self.failf(Some(k), format_args!("{reg}: VOPD destinations must be one even and one odd VGPR"));
        }
        self.put(k, p, n >> 1)
    }
}
