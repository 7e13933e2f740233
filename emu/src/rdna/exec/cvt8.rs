//! The narrow-format conversions ([`Cvt8`]): each active lane reads its packed elements,
//! scales them, converts and packs them into the destination (decode/cvt8.rs says where
//! everything lives; docs/cdna-narrow-formats.md gives the model and its sources).
//!
//! The arithmetic: every element's value is exact in f64, and so is its product with the
//! scale, so each result is rounded once. The scale is the f32's exponent field read as an
//! E8M0 factor 2^(e − 127): a conversion to a narrow format divides by it, one from a narrow
//! format multiplies (the CDNA4 guide's `v_cvt_scalef32_*`; composable_kernel's mxf8 casts
//! compute `x / scale`). For a scale that is a power of two, as the MX formats' are, this is
//! the f32's value; that a mantissa would be ignored is our reading.

use super::cdna4::f32_to_bf16_rne;
use super::*;
use crate::rdna::mfma::formats::{e8m0, Round};
use crate::rdna::mfma::Fmt;

/// Bits `[pos, pos + w)` of the packed words (w ≤ 32).
fn get(words: &[u32], pos: u32, w: u32) -> u32 {
    let i = (pos / 32) as usize;
    let pair = words[i] as u64 | (*words.get(i + 1).unwrap_or(&0) as u64) << 32;
    (pair >> (pos % 32)) as u32 & mask(w)
}

fn put(words: &mut [u32], pos: u32, w: u32, x: u32) {
    let i = (pos / 32) as usize;
    let sh = pos % 32;
    let m = (mask(w) as u64) << sh;
    let mut pair = words[i] as u64 | (*words.get(i + 1).unwrap_or(&0) as u64) << 32;
    pair = (pair & !m) | ((x as u64) << sh & m);
    words[i] = pair as u32;
    if let Some(hi) = words.get_mut(i + 1) {
        *hi = (pair >> 32) as u32;
    }
}

fn mask(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1 << w) - 1
    }
}

/// The last place of an f32/f16/bf16 input at the value `a` (stochastic rounding's unit).
fn ulp(from: Fmt, a: f64) -> f64 {
    let (m, emin) = match from {
        Fmt::F16 => (10, -14),
        Fmt::Bf16 => (7, -126),
        _ => (23, -126),
    };
    let e = if a == 0.0 { emin } else { (frexp64(a).1 - 1).max(emin) };
    ldexp64(1.0, e - m)
}

/// `x` in a format at least 16 bits wide: f32 from f64 rounds to nearest even (exact for
/// every narrow value times a scale in f32's range), f16 and bf16 too.
fn encode_wide(to: Fmt, x: f64) -> u32 {
    match to {
        Fmt::F16 => f64_to_f16(x) as u32,
        Fmt::Bf16 => f32_to_bf16_rne((x as f32).to_bits()),
        _ => (x as f32).to_bits(),
    }
}

impl<const W: usize> Wave<W> {
    /// The dwords of a source of `n` registers, lane by lane.
    fn words(&self, s: Vs, n: u8) -> Vec<[u32; W]> {
        (0..n as u16)
            .map(|k| {
                let s = match s {
                    Vs::V(r) => Vs::V(r + k),
                    Vs::S(Ss::R(r)) => Vs::S(Ss::R(r + k as u8)),
                    other => other,
                };
                self.vsrc(s, Ty::B32, false).map(|x| x as u32)
            })
            .collect()
    }

    pub(super) fn cvt8(&mut self, c: &Cvt8) {
        let exec = self.exec();
        let mut srcs = self.words(c.src[0], c.regs);
        if c.srcs == 2 {
            srcs.extend(self.words(c.src[1], c.regs));
        }
        let rand = c.rand.map(|r| self.vsrc(r, Ty::B32, false));
        let scale = c.scale.map(|s| self.vsrc(s, Ty::B32, false));
        let (win, wout) = (c.from.bits(), c.to.bits());
        let per_src = c.n as u32 / c.srcs as u32;
        let mut inw = vec![0u32; srcs.len()];
        let mut out = vec![0u32; c.dst_regs as usize];
        for l in 0..W {
            if exec >> l & 1 == 0 {
                continue;
            }
            for (k, r) in srcs.iter().enumerate() {
                inw[k] = r[l];
            }
            for (k, o) in out.iter_mut().enumerate() {
                *o = self.v[c.dst as usize + k][l];
            }
            let factor = scale.map_or(1.0, |s| e8m0((s[l] >> 23) as u8));
            for e in 0..c.n as u32 {
                let mut x = c.from.value(get(&inw, c.src_bit as u32 + e * win, win) as u64);
                let k = e / per_src;
                if c.abs >> k & 1 != 0 {
                    x = x.abs();
                }
                if c.neg >> k & 1 != 0 {
                    x = -x;
                }
                let bits = if wout < 16 || rand.is_some() {
                    let y = x / factor;
                    let round = match &rand {
                        Some(r) => Round::Stochastic { rand: r[l] as u32, ulp: ulp(c.from, x.abs()) / factor },
                        None => Round::Even,
                    };
                    c.to.encode(y, round)
                } else {
                    encode_wide(c.to, x * factor)
                };
                put(&mut out, c.dst_bit as u32 + e * wout, wout, bits);
            }
            for (k, o) in out.iter().enumerate() {
                self.v[c.dst as usize + k][l] = *o;
            }
        }
    }
}
