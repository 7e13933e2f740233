//! CDNA matrix fused multiply-add (`v_mfma_*`): the single-block f32/f16/bf16/i8 variants of
//! gfx942 and gfx950. The per-lane layouts of A, B and C/D and the arithmetic model are written
//! down, with their sources, in docs/cdna-mfma.md; [`a_slot`] and [`d_slot`] are the one
//! definition of the layouts, used both by the execution here and by the tests.

use super::exec::Wave;
use super::fp::f16_to_f32;
use super::gfx9::ACC;
use super::ops::*;
use baregpu_isa::Instruction;

/// The element type of A and B.
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

/// One MFMA: D (M×M) = A (M×K) · B (K×M) + C. Registers in the pre-decoded form's numbering
/// (AGPRs as `ACC + k`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mfma {
    pub ty: MfmaTy,
    pub m: u8,
    pub k: u8,
    pub a: u16,
    pub b: u16,
    /// C: registers, or an inline constant for every element.
    pub c: Vs,
    pub d: u16,
}

/// The shape of a single-block MFMA mnemonic: (element type, M, K); multi-block (`_2b`, `_4b`,
/// `_16b`) and the FP8/xf32 forms are not here.
pub fn shape(m: &str) -> Option<(MfmaTy, u8, u8)> {
    let rest = m.strip_prefix("v_mfma_f32_").or_else(|| m.strip_prefix("v_mfma_i32_"))?;
    let (dims, ty) = rest.split_once('_')?;
    let ty = match ty {
        "f32" => MfmaTy::F32,
        "f16" => MfmaTy::F16,
        "bf16" => MfmaTy::Bf16,
        "i8" if m.starts_with("v_mfma_i32_") => MfmaTy::I8,
        _ => return None,
    };
    if (ty == MfmaTy::I8) != m.starts_with("v_mfma_i32_") {
        return None;
    }
    let mut d = dims.split('x').map(|x| x.parse::<u8>().ok());
    let (mm, n, k) = (d.next()??, d.next()??, d.next()??);
    if mm != n || !matches!(mm, 16 | 32) || d.next().is_some() {
        return None;
    }
    // Each lane must hold a whole number of 32-bit registers of A.
    let per_lane = k as u32 / (64 / mm as u32);
    if per_lane == 0 || !(per_lane * ty.bits()).is_multiple_of(32) {
        return None;
    }
    Some((ty, mm, k))
}

/// Elements of A (and of B) each lane holds.
pub fn per_lane(m: u8, k: u8) -> usize {
    k as usize / (64 / m as usize)
}

/// Where A[i][k] lives (and B[k][i]): (lane, element index within the lane's registers).
pub fn a_slot(m: u8, kk: u8, i: usize, k: usize) -> (usize, usize) {
    let per = per_lane(m, kk);
    (i + m as usize * (k / per), k % per)
}

/// Where D[row][col] (and C) lives: (lane, register).
pub fn d_slot(m: u8, row: usize, col: usize) -> (usize, usize) {
    let groups = 64 / m as usize;
    let (g, r) = ((row % (4 * groups)) / 4, (row / (4 * groups)) * 4 + row % 4);
    (col + m as usize * g, r)
}

/// `v_mfma_*` → [`Op::Mfma`], or `None` if `m` is not a single-block MFMA.
pub fn lower(m: &str, i: &Instruction, lit: Option<u32>) -> Option<Result<Op, String>> {
    let (ty, mm, k) = shape(m)?;
    let r = (|| {
        if i.f("cbsz") != 0 || i.f("abid") != 0 || i.f("blgp") != 0 {
            return Err(format!("{m}: CBSZ/ABID/BLGP broadcasts are not supported"));
        }
        let acc = i.f("acc");
        let cd = if i.f("acc_cd") != 0 { ACC } else { 0 };
        let reg = |field: &str, agpr: bool| (i.f(field) & 0xff) as u16 + if agpr { ACC } else { 0 };
        let c = match i.f("src2") {
            f if f >= 256 => Vs::V((f & 0xff) as u16 + cd),
            f => Vs::S(super::decode::ssrc(f, Ty::B32, lit)?),
        };
        Ok(Op::Mfma(Box::new(Mfma {
            ty,
            m: mm,
            k,
            a: reg("src0", acc & 1 != 0),
            b: reg("src1", acc & 2 != 0),
            c,
            d: (i.f("vdst") & 0xff) as u16 + cd,
        })))
    })();
    Some(r)
}

fn bf16(x: u32) -> f32 {
    f32::from_bits(x << 16)
}

impl<const W: usize> Wave<W> {
    /// Element `e` of a lane's A/B registers starting at unified VGPR `r`, widened.
    fn element(&self, ty: MfmaTy, r: usize, lane: usize, e: usize) -> f64 {
        let bits = ty.bits() as usize;
        let word = self.v[r + e * bits / 32][lane];
        let x = (word >> ((e * bits) % 32)) & ((1u64 << bits) - 1) as u32;
        match ty {
            MfmaTy::F32 => f32::from_bits(x) as f64,
            MfmaTy::F16 => f16_to_f32(x as u16) as f64,
            MfmaTy::Bf16 => bf16(x) as f64,
            MfmaTy::I8 => x as u8 as i8 as f64,
        }
    }

    /// D = A·B + C over the whole wave (EXEC is not consulted: every lane's registers are read
    /// and written). Model: products exact in f64 (every f32/f16/bf16 product is), summed in f64
    /// in K order, C added, rounded once to f32; i8: exact, wrapping i32 (docs/cdna-mfma.md).
    pub fn mfma(&mut self, x: &Mfma) -> Result<(), String> {
        if W != 64 {
            return Err("v_mfma: wave64 only".into());
        }
        let (m, k) = (x.m as usize, x.k as usize);
        let (a, b, d) = (self.unified(x.a) as usize, self.unified(x.b) as usize, self.unified(x.d) as usize);
        let nregs = m * m / 64;
        if d + nregs > self.v.len() || a.max(b) + per_lane(x.m, x.k) * x.ty.bits() as usize / 32 > self.v.len() {
            return Err("v_mfma: registers outside the register file".into());
        }
        let c: Vec<[u32; W]> = match x.c {
            Vs::V(r) => {
                let r = self.unified(r) as usize;
                self.v.get(r..r + nregs).ok_or("v_mfma: C outside the register file")?.to_vec()
            }
            Vs::S(Ss::K(v)) => vec![[v as u32; W]; nregs],
            Vs::S(_) => return Err("v_mfma: C from an SGPR is not supported".into()),
        };
        let mut out = vec![[0u32; W]; nregs];
        for row in 0..m {
            for col in 0..m {
                let (lane, reg) = d_slot(x.m, row, col);
                let mut sum = 0f64;
                let mut isum = 0i64;
                for kk in 0..k {
                    let (la, ea) = a_slot(x.m, x.k, row, kk);
                    let (lb, eb) = a_slot(x.m, x.k, col, kk);
                    let p = self.element(x.ty, a, la, ea) * self.element(x.ty, b, lb, eb);
                    if x.ty == MfmaTy::I8 {
                        isum += p as i64;
                    } else {
                        sum += p;
                    }
                }
                let cv = c[reg][lane];
                out[reg][lane] = if x.ty == MfmaTy::I8 {
                    (cv as i32).wrapping_add(isum as i32) as u32
                } else {
                    ((sum + f32::from_bits(cv) as f64) as f32).to_bits()
                };
            }
        }
        self.v[d..d + nregs].copy_from_slice(&out);
        Ok(())
    }
}
