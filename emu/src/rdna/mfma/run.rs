//! Executing an MFMA over the whole wave: gather A, B, C (and the scales or sparse indices) by
//! the layouts into plain matrices, multiply, scatter D. EXEC is not consulted: every lane's
//! registers are read and written (CDNA3 ISA §7). The arithmetic model (docs/cdna-mfma.md):
//! products exact in f64 (every product of these formats is), scaled exactly by the E8M0
//! scales, summed in f64 in K order, C added, one rounding to f32; i8 exact, wrapping i32;
//! f64 a chain of fused multiply-adds in K order starting from C.

use super::formats::e8m0;
use super::layout::{blgp_lane, cbsz_block, d_slot_blocks, d_slot_f64, Geom};
use super::variants::Out;
use super::Mfma;
use crate::rdna::exec::Wave;
use crate::rdna::ops::{Ss, Vs};

/// One wave's dense operands: A[b][i][k], B[b][k][j], C[b][i][j] and the per-32-K scales.
struct Operands {
    a: Vec<f64>,
    b: Vec<f64>,
    /// Scale of A row i / B column j for K block kb: `[i * kblocks + kb]`; empty when unscaled.
    sa: Vec<f64>,
    sb: Vec<f64>,
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
        let c: Vec<[u32; W]> = match x.c {
            Vs::V(r) => {
                let r = self.operand_regs(r, nregs, "C")?;
                self.v[r..r + nregs].to_vec()
            }
            Vs::S(Ss::K(_)) => Vec::new(),
            Vs::S(_) => return Err("v_mfma: C from an SGPR is not supported".into()),
        };
        let konst = if let Vs::S(Ss::K(k)) = x.c { k } else { 0 };
        let mut out = c.clone();
        out.resize(nregs, [0; W]);
        let kblocks = k / 32;
        for b in 0..nb {
            for i in 0..m {
                for j in 0..m {
                    let dot = |step: &mut dyn FnMut(f64, f64, usize)| {
                        for kk in 0..k {
                            step(ops.a[(b * m + i) * k + kk], ops.b[(b * k + kk) * m + j], kk);
                        }
                    };
                    if v.out == Out::F64 {
                        let (lane, reg) = d_slot_f64(v.m, b, i, j);
                        let cv =
                            if c.is_empty() { konst } else { c[reg][lane] as u64 | (c[reg + 1][lane] as u64) << 32 };
                        let mut acc = f64::from_bits(cv) * if x.neg & 4 != 0 { -1.0 } else { 1.0 };
                        dot(&mut |a, b, _| acc = a.mul_add(b, acc));
                        let bits = acc.to_bits();
                        (out[reg][lane], out[reg + 1][lane]) = (bits as u32, (bits >> 32) as u32);
                        continue;
                    }
                    let (lane, reg) = d_slot_blocks(v.m, b, i, j);
                    let cv = if c.is_empty() { konst as u32 } else { c[reg][lane] };
                    let mut sum = 0f64;
                    if ops.sa.is_empty() {
                        dot(&mut |a, b, _| sum += a * b);
                    } else {
                        let (sa, sb) = (&ops.sa[i * kblocks..], &ops.sb[j * kblocks..]);
                        dot(&mut |a, b, kk| sum += a * b * (sa[kk / 32] * sb[kk / 32]));
                    }
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

    /// A, B and the scales as plain matrices, by the layouts and the modifiers.
    fn gather(&self, x: &Mfma) -> Result<Operands, String> {
        let v = &x.v;
        let (m, k, nb) = (v.m as usize, v.k as usize, v.blocks as usize);
        let (ga, gb) = (v.a_geom(x.fa), v.b_geom(x.fb));
        let ra = self.operand_regs(x.a, ga.regs(), "A")?;
        let rb = self.operand_regs(x.b, gb.regs(), "B")?;
        let sign = |bit: u8| if x.neg & bit != 0 { -1.0 } else { 1.0 };
        let mut a = vec![0f64; nb * m * k];
        if v.sparse {
            self.gather_sparse(x, ga, ra, &mut a)?;
        } else {
            for b in 0..nb {
                let src = cbsz_block(x.cbsz as u32, x.abid as u32, b);
                for i in 0..m {
                    for kk in 0..k {
                        let (lane, e) = ga.slot(src, i, kk);
                        a[(b * m + i) * k + kk] = x.fa.value(self.bits_at(ra, ga.bits, lane, e)) * sign(1);
                    }
                }
            }
        }
        let mut bm = vec![0f64; nb * k * m];
        for b in 0..nb {
            for kk in 0..k {
                for j in 0..m {
                    let (lane, e) = gb.slot(b, j, kk);
                    let lane = blgp_lane(x.blgp as u32, lane);
                    bm[(b * k + kk) * m + j] = x.fb.value(self.bits_at(rb, gb.bits, lane, e)) * sign(2);
                }
            }
        }
        let (mut sa, mut sb) = (Vec::new(), Vec::new());
        if let Some(s) = x.scales {
            let (ra, rb) = (self.operand_regs(s.a, 1, "A scale")?, self.operand_regs(s.b, 1, "B scale")?);
            // Lane i + M·kb holds the scale of row (A) or column (B) i for K block kb.
            let scale = |r: usize, byte: u8, i: usize, kb: usize| e8m0((self.v[r][i + m * kb] >> (8 * byte)) as u8);
            for i in 0..m {
                for kb in 0..k / 32 {
                    sa.push(scale(ra, s.a_byte, i, kb));
                    sb.push(scale(rb, s.b_byte, i, kb));
                }
            }
        }
        Ok(Operands { a, b: bm, sa, sb })
    }

    /// 4:2 sparse A: each pair of stored values belongs to a group of four K, at the positions
    /// the group's 4-bit index holds (bits 1:0 the first value's, 3:2 the second's). A lane's
    /// index nibbles follow its stored values in order; with CBSZ 0, ABID picks which set of
    /// nibbles in the index VGPR (AMD's Matrix Instruction Calculator, CDNA3 SMFMAC).
    fn gather_sparse(&self, x: &Mfma, ga: Geom, ra: usize, a: &mut [f64]) -> Result<(), String> {
        let v = &x.v;
        let (m, k) = (v.m as usize, v.k as usize);
        let idx = self.operand_regs(x.idx, 1, "the compression index")?;
        let nibbles = ga.per_lane() / 2;
        let set = if x.cbsz == 0 { x.abid as usize } else { 0 };
        if 4 * nibbles * (set + 1) > 32 {
            return Err(format!("v_smfmac: abid:{} selects no index set", x.abid));
        }
        for i in 0..m {
            for kc in 0..ga.k as usize {
                let (lane, e) = ga.slot(0, i, kc);
                let val = x.fa.value(self.bits_at(ra, ga.bits, lane, e));
                let nib = self.v[idx][lane] >> (4 * (nibbles * set + e / 2)) & 0xf;
                let pos = (nib >> (2 * (kc % 2)) & 3) as usize;
                a[i * k + 4 * (kc / 2) + pos] += val;
            }
        }
        Ok(())
    }
}
