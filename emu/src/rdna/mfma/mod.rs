//! CDNA matrix fused multiply-add (`v_mfma_*`, `v_smfmac_*`, gfx950's `v_mfma_scale_*`) of
//! gfx942 and gfx950. [`variants`] says what a mnemonic computes, [`layout`] where every
//! element lives, [`formats`] what its bits are worth, [`run`] executes; docs/cdna-mfma.md
//! writes the layouts and the arithmetic model down with their sources.

pub mod formats;
pub mod layout;
mod run;
#[cfg(test)]
mod tests;
pub mod variants;

use super::gfx9::ACC;
use super::ops::*;
use baregpu_isa::Instruction;
pub use formats::Fmt;
pub use layout::{d_slot, Geom};
pub use variants::{Out, Variant};

/// The E8M0 block scales of a `v_mfma_scale_*`: the VGPRs holding them and the byte of each
/// (op_sel/op_sel_hi of the `v_mfma_ld_scale_b32` half).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scales {
    pub a: u16,
    pub b: u16,
    pub a_byte: u8,
    pub b_byte: u8,
}

/// One MFMA with its registers in the pre-decoded form's numbering (AGPRs as `ACC + k`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mfma {
    pub v: Variant,
    /// A's and B's element formats (f8f6f4: as CBSZ/BLGP chose).
    pub fa: Fmt,
    pub fb: Fmt,
    pub a: u16,
    pub b: u16,
    /// C: registers, or an inline constant for every element. SMFMAC: D's registers.
    pub c: Vs,
    pub d: u16,
    /// SMFMAC: the VGPR of A's compression indices.
    pub idx: u16,
    /// Broadcasts (dense non-f8f6f4 forms); SMFMAC: CBSZ/ABID choose the index set.
    pub cbsz: u8,
    pub abid: u8,
    pub blgp: u8,
    /// f64: negate A (bit 0), B (bit 1), C (bit 2); the BLGP field's bits.
    pub neg: u8,
    pub scales: Option<Scales>,
}

/// `v_mfma_*`/`v_smfmac_*` → [`Op::Mfma`], or `None` if `m` is no MFMA.
pub fn lower(m: &str, i: &Instruction, lit: Option<u32>) -> Option<Result<Op, String>> {
    if m == "v_mfma_ld_scale_b32" {
        return Some(Err(format!("{m}: only as the first half of a v_mfma_scale_* (no scaled MFMA follows)")));
    }
    let v = Variant::parse(i.arch, m)?;
    Some(lower_variant(m, v, i, lit).map(|x| Op::Mfma(Box::new(x))))
}

fn lower_variant(m: &str, v: Variant, i: &Instruction, lit: Option<u32>) -> Result<Mfma, String> {
    let (cbsz, abid, blgp) = (i.f("cbsz"), i.f("abid"), i.f("blgp"));
    let (mut fa, mut fb) = (v.a, v.b);
    if v.f8f6f4 {
        let bad = |f: &str, c: u32| format!("{m}: {f}:{c} is no operand format (0..=4)");
        fa = Fmt::f8f6f4(cbsz).ok_or_else(|| bad("cbsz", cbsz))?;
        fb = Fmt::f8f6f4(blgp).ok_or_else(|| bad("blgp", blgp))?;
        if abid != 0 {
            return Err(format!("{m}: abid must be 0"));
        }
    } else if v.sparse {
        // CBSZ/ABID pick the set of compression indices (checked against the lane's bits when run).
        if blgp != 0 {
            return Err(format!("{m}: blgp is not supported"));
        }
    } else if (1u32 << cbsz) > v.blocks as u32 || abid >= 1 << cbsz {
        // 2^CBSZ blocks share A from block ABID of their group: both must stay in range.
        return Err(format!("{m}: cbsz:{cbsz} abid:{abid} out of range for {} block(s)", v.blocks));
    }
    let acc = i.f("acc");
    let cd = if i.f("acc_cd") != 0 { ACC } else { 0 };
    let reg = |field: &str, agpr: bool| (i.f(field) & 0xff) as u16 + if agpr { ACC } else { 0 };
    let vgpr = |field: &str, what: &str| match i.f(field) {
        f if f >= 256 => Ok((f & 0xff) as u16),
        _ => Err(format!("{m}: the {what} must be a VGPR")),
    };
    let d = (i.f("vdst") & 0xff) as u16 + cd;
    let (c, idx) = if v.sparse {
        (Vs::V(d), vgpr("src2", "compression index")?)
    } else {
        let c = match i.f("src2") {
            f if f >= 256 => Vs::V((f & 0xff) as u16 + cd),
            f => Vs::S(super::decode::ssrc(f, if v.out == Out::F64 { Ty::F64 } else { Ty::B32 }, lit)?),
        };
        (c, 0)
    };
    let scales = if v.scaled {
        let (sel, hi) = (i.f("scale_opsel"), i.f("scale_opsel_hi"));
        Some(Scales {
            a: vgpr("scale_src0", "A scale")?,
            b: vgpr("scale_src1", "B scale")?,
            a_byte: ((sel & 1) | (hi & 1) << 1) as u8,
            b_byte: ((sel >> 1 & 1) | (hi >> 1 & 1) << 1) as u8,
        })
    } else {
        None
    };
    let f64 = v.out == Out::F64;
    Ok(Mfma {
        v,
        fa,
        fb,
        a: reg("src0", acc & 1 != 0),
        b: reg("src1", acc & 2 != 0),
        c,
        d,
        idx,
        cbsz: if v.f8f6f4 { 0 } else { cbsz as u8 },
        abid: if v.f8f6f4 { 0 } else { abid as u8 },
        blgp: if v.f8f6f4 || f64 { 0 } else { blgp as u8 },
        neg: if f64 { blgp as u8 } else { 0 },
        scales,
    })
}

// The single-block view the CDNA assembly tests (emu/tests/cdna_asm.rs) were written against.

/// The element type of a single-block f32/f16/bf16/i8 MFMA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MfmaTy {
    F32,
    F16,
    Bf16,
    I8,
}

impl MfmaTy {
    pub fn bits(self) -> u32 {
        match self {
            MfmaTy::F32 => 32,
            MfmaTy::F16 | MfmaTy::Bf16 => 16,
            MfmaTy::I8 => 8,
        }
    }
}

/// The shape of a single-block f32/f16/bf16/i8 MFMA mnemonic: (element type, M, K).
pub fn shape(m: &str) -> Option<(MfmaTy, u8, u8)> {
    let v = Variant::parse(baregpu_isa::Arch::Gfx950, m)?;
    let ty = match v.a {
        Fmt::F32 => MfmaTy::F32,
        Fmt::F16 => MfmaTy::F16,
        Fmt::Bf16 => MfmaTy::Bf16,
        Fmt::I8 => MfmaTy::I8,
        _ => return None,
    };
    (v.blocks == 1 && !v.sparse && v.m >= 16).then_some((ty, v.m, v.k))
}

/// Elements of A (and of B) each lane holds in a single-block MFMA.
pub fn per_lane(m: u8, k: u8) -> usize {
    single(m, k).per_lane()
}

/// Where A[i][k] (and B[k][i]) of a single-block MFMA lives: (lane, element).
pub fn a_slot(m: u8, kk: u8, i: usize, k: usize) -> (usize, usize) {
    single(m, kk).slot(0, i, k)
}

/// A single-block geometry whose lane holds one chunk of K: every single-block f32/f16/bf16/i8
/// form does (at most 128 bits a lane), so the element width does not matter here.
fn single(m: u8, k: u8) -> Geom {
    Geom { m, k, blocks: 1, bits: 1 }
}
