//! Executing an MFMA over the whole wave: gather A, B (and the scales or sparse indices) by the
//! layouts into plain matrices, multiply, add C, scatter D. EXEC is not consulted: every lane's
//! registers are read and written (CDNA3 ISA §7). The arithmetic model (docs/cdna-mfma.md):
//! products exact in f64 (every product of these formats is, and so is scaling an element by
//! its E8M0 block scale first), summed in f64 in K order, C added, one rounding to f32; i8
//! exact, wrapping i32; f64 a chain of fused multiply-adds in K order starting from C.

use super::formats::{e8m0, Fmt};
use super::layout::{blgp_lane, cbsz_block, d_slot_blocks, d_slot_f64, index_bit, Geom};
use super::variants::Out;
use super::Mfma;
use crate::rdna::exec::Wave;
use crate::rdna::ops::{Ss, Vs};

/// A's rows and B's columns as K-contiguous vectors, each element already times its scale:
/// `a[(b·M + i)·K + k]`, `b[(b·M + j)·K + k]`.
struct Operands {
    a: Vec<f64>,
    b: Vec<f64>,
}

/// Where an operand's elements come from: its geometry, first register, decoder, block scales
/// (lane i + M·kb: row/column i, K block kb) and sign (f64 NEG).
struct Src<'a> {
    g: Geom,
    r: usize,
    d: &'a Decoder,
    scales: Option<&'a [f64]>,
    sign: f64,
}

/// Element values by bit pattern: a table for the formats of at most 8 bits.
struct Decoder {
    fmt: Fmt,
    table: Vec<f64>,
}

impl Decoder {
    fn new(fmt: Fmt) -> Decoder {
        let table = if fmt.bits() <= 8 { (0..1u64 << fmt.bits()).map(|x| fmt.value(x)).collect() } else { Vec::new() };
        Decoder { fmt, table }
    }

    fn value(&self, x: u64) -> f64 {
        self.table.get(x as usize).copied().unwrap_or_else(|| self.fmt.value(x))
    }
}

impl<const W: usize> Wave<W> {
    /// The raw bits of element `e` of a lane's operand at unified VGPR `r`.
    fn bits_at(&self, r: usize, bits: u32, lane: usize, e: usize) -> u64 {
        let off = e * bits as usize;
        let (word, sh) = (r + off / 32, off % 32);
        let lo = self.v[word][lane] as u64;
        let hi = if sh + bits as usize > 32 { self.v[word + 1][lane] as u64 } else { 0 };
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        ((hi << 32 | lo) >> sh) & mask
    }

    fn operand_regs(&self, r: u16, n: usize, what: &str) -> Result<usize, String> {
        let r = self.unified(r) as usize;
        if r + n > self.v.len() {
            return Err(format!("v_mfma: {what} outside the register file"));
        }
        Ok(r)
    }

    /// D = A·B + C over the whole wave.
    pub fn mfma(&mut self, x: &Mfma) -> Result<(), String> {
        if W != 64 {
            return Err("v_mfma: wave64 only".into());
        }
        let v = &x.v;
        let ops = self.gather(x)?;
        let (m, k, nb) = (v.m as usize, v.k as usize, v.blocks as usize);
        let nregs = v.d_regs();
        let d = self.operand_regs(x.d, nregs, "D")?;
        let mut out: Vec<[u32; W]> = match x.c {
            Vs::V(r) => {
                let r = self.operand_regs(r, nregs, "C")?;
                self.v[r..r + nregs].to_vec()
            }
            Vs::S(Ss::K(_)) => vec![[0; W]; nregs],
            Vs::S(_) => return Err("v_mfma: C from an SGPR is not supported".into()),
        };
        // An inline constant C is every element's value; otherwise C is read where D goes.
        let konst = if let Vs::S(Ss::K(k)) = x.c { Some(k) } else { None };
        for b in 0..nb {
            for i in 0..m {
                let ar = &ops.a[(b * m + i) * k..][..k];
                for j in 0..m {
                    let bc = &ops.b[(b * m + j) * k..][..k];
                    if v.out == Out::F64 {
                        let (lane, reg) = d_slot_f64(v.m, b, i, j);
                        let cv = konst.unwrap_or(out[reg][lane] as u64 | (out[reg + 1][lane] as u64) << 32);
                        let c = f64::from_bits(cv) * if x.neg & 4 != 0 { -1.0 } else { 1.0 };
                        let bits = ar.iter().zip(bc).fold(c, |s, (a, b)| a.mul_add(*b, s)).to_bits();
                        (out[reg][lane], out[reg + 1][lane]) = (bits as u32, (bits >> 32) as u32);
                        continue;
                    }
                    let (lane, reg) = d_slot_blocks(v.m, b, i, j);
                    let cv = konst.map_or(out[reg][lane], |k| k as u32);
                    let sum = ar.iter().zip(bc).fold(0f64, |s, (a, b)| s + a * b);
                    out[reg][lane] = if v.out == Out::I32 {
                        (cv as i32).wrapping_add(sum as i64 as i32) as u32
                    } else {
                        ((sum + f32::from_bits(cv) as f64) as f32).to_bits()
                    };
                }
            }
        }
        self.v[d..d + nregs].copy_from_slice(&out);
        Ok(())
    }

    /// A and B as K-contiguous rows and columns, by the layouts and the modifiers, each element
    /// times its E8M0 block scale (exact: a power of two within f64's range).
    fn gather(&self, x: &Mfma) -> Result<Operands, String> {
        let v = &x.v;
        let (m, k, nb) = (v.m as usize, v.k as usize, v.blocks as usize);
        let (ga, gb) = (v.a_geom(x.fa), v.b_geom(x.fb));
        let ra = self.operand_regs(x.a, ga.regs(), "A")?;
        let rb = self.operand_regs(x.b, gb.regs(), "B")?;
        let (da, db) = (Decoder::new(x.fa), Decoder::new(x.fb));
        // Lane i + M·kb holds the scale of row (A) or column (B) i for K block kb.
        let scales = match x.scales {
            Some(s) => {
                let (sa, sb) = (self.operand_regs(s.a, 1, "A scale")?, self.operand_regs(s.b, 1, "B scale")?);
                let byte = |r: usize, at: u8| -> Vec<f64> {
                    (0..64).map(|l| e8m0((self.v[r][l] >> (8 * at)) as u8)).collect()
                };
                Some((byte(sa, s.a_byte), byte(sb, s.b_byte)))
            }
            None => None,
        };
        let sign = |bit: u8| if x.neg & bit != 0 { -1.0 } else { 1.0 };
        let (sa, sb) = (scales.as_ref().map(|s| &s.0[..]), scales.as_ref().map(|s| &s.1[..]));
        let (srca, srcb) = (
            Src { g: ga, r: ra, d: &da, scales: sa, sign: sign(1) },
            Src { g: gb, r: rb, d: &db, scales: sb, sign: sign(2) },
        );
        let mut a = vec![0f64; nb * m * k];
        if v.sparse {
            self.gather_sparse(x, ga, ra, &da, &mut a)?;
        } else {
            for b in 0..nb {
                let src = cbsz_block(x.cbsz as u32, x.abid as u32, b);
                for i in 0..m {
                    for grp in 0..ga.groups() {
                        self.lane_into(&srca, &mut a[(b * m + i) * k..][..k], ga.lane(src, i, grp), i, grp);
                    }
                }
            }
        }
        let mut bm = vec![0f64; nb * m * k];
        for b in 0..nb {
            for j in 0..m {
                for grp in 0..gb.groups() {
                    let lane = blgp_lane(x.blgp as u32, gb.lane(b, j, grp));
                    self.lane_into(&srcb, &mut bm[(b * m + j) * k..][..k], lane, j, grp);
                }
            }
        }
        Ok(Operands { a, b: bm })
    }

    /// One lane's elements (row or column `row`, lane group `grp`) into `out`, a row of A or a
    /// column of B indexed by K.
    fn lane_into(&self, src: &Src, out: &mut [f64], lane: usize, row: usize, grp: usize) {
        let m = src.g.m as usize;
        for e in 0..src.g.per_lane() {
            let kk = src.g.k_of(grp, e);
            let s = src.scales.map_or(src.sign, |sc| src.sign * sc[row + m * (kk / 32)]);
            out[kk] = src.d.value(self.bits_at(src.r, src.g.bits, lane, e)) * s;
        }
    }

    /// 4:2 sparse A: each pair of stored values belongs to a group of four K, at the positions
    /// the group's 4-bit index holds (bits 1:0 the first value's, 3:2 the second's).
    fn gather_sparse(&self, x: &Mfma, ga: Geom, ra: usize, da: &Decoder, a: &mut [f64]) -> Result<(), String> {
        let v = &x.v;
        let (m, k) = (v.m as usize, v.k as usize);
        let idx = self.operand_regs(x.idx, 1, "the compression index")?;
        if index_bit(ga, x.cbsz as u32, x.abid as u32, ga.per_lane() - 1) + 4 > 32 {
            return Err(format!("v_smfmac: abid:{} selects no index set", x.abid));
        }
        for i in 0..m {
            for kc in 0..ga.k as usize {
                let (lane, e) = ga.slot(0, i, kc);
                let val = da.value(self.bits_at(ra, ga.bits, lane, e));
                let nib = self.v[idx][lane] >> index_bit(ga, x.cbsz as u32, x.abid as u32, e) & 0xf;
                let pos = (nib >> (2 * (kc % 2)) & 3) as usize;
                a[i * k + 4 * (kc / 2) + pos] += val;
            }
        }
        Ok(())
    }
}
