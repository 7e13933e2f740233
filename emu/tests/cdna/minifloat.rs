//! Test-side references for the narrow float formats, written from the specs, not from the
//! interpreter: OCP 8-bit Floating Point v1.0 (E4M3 "FN": no infinity, S.1111.111 NaN; E5M2
//! IEEE-like), OCP Microscaling v1.0 §5.3 (FP6 E2M3, BF6 E3M2, FP4 E2M1: no infinity or NaN),
//! and the FNUZ variants of gfx942 (CDNA3 ISA guide; LLVM's Float8E4M3FNUZ/Float8E5M2FNUZ:
//! bias 8/16, 0x80 the only NaN, no infinity, no −0). Encoding is a brute-force search for
//! the nearest value, ties to the even pattern. Plus a harness running one instruction
//! sequence per lane.

#![allow(dead_code)]

use crate::asm::run;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum F {
    E4m3,
    E5m2,
    E4m3Fnuz,
    E5m2Fnuz,
    E2m3,
    E3m2,
    E2m1,
}

impl F {
    /// (exponent bits, mantissa bits, bias).
    pub fn shape(self) -> (u32, u32, i32) {
        match self {
            F::E4m3 => (4, 3, 7),
            F::E5m2 => (5, 2, 15),
            F::E4m3Fnuz => (4, 3, 8),
            F::E5m2Fnuz => (5, 2, 16),
            F::E2m3 => (2, 3, 1),
            F::E3m2 => (3, 2, 3),
            F::E2m1 => (2, 1, 1),
        }
    }
    pub fn bits(self) -> u32 {
        let (e, m, _) = self.shape();
        1 + e + m
    }
    fn fnuz(self) -> bool {
        matches!(self, F::E4m3Fnuz | F::E5m2Fnuz)
    }

    /// The value of pattern `c`; NaN for the NaN patterns, ±inf for E5M2's infinities.
    pub fn value(self, c: u32) -> f64 {
        let (e, m, bias) = self.shape();
        let top = 1 << (e + m);
        let neg = c & top != 0;
        let mag = c & (top - 1);
        let (ex, man) = (mag >> m, mag & ((1 << m) - 1));
        match self {
            _ if self.fnuz() && c == 0x80 => return f64::NAN,
            F::E4m3 if mag == 0x7f => return f64::NAN,
            F::E5m2 if ex == 31 && man != 0 => return f64::NAN,
            F::E5m2 if ex == 31 => return if neg { f64::NEG_INFINITY } else { f64::INFINITY },
            _ => {}
        }
        let v = if ex == 0 {
            man as f64 * 2f64.powi(1 - bias - m as i32)
        } else {
            (1.0 + man as f64 / (1 << m) as f64) * 2f64.powi(ex as i32 - bias)
        };
        if neg {
            -v
        } else {
            v
        }
    }

    /// The largest finite value's pattern.
    pub fn max_code(self) -> u32 {
        (0..1u32 << (self.bits() - 1))
            .filter(|&c| self.value(c).is_finite())
            .max_by(|&a, &b| self.value(a).partial_cmp(&self.value(b)).unwrap())
            .unwrap()
    }

    /// `x` rounded to nearest, ties to the even pattern; past the largest finite value by
    /// at least half a step (the step above it as if the exponent went on) the overflow
    /// value: E4M3's NaN, E5M2's infinity, FNUZ's 0x80; FP6/FP4 saturate.
    pub fn nearest(self, x: f64) -> u32 {
        let top = 1u32 << (self.bits() - 1);
        let sign = if x.is_sign_negative() { top } else { 0 };
        let ovf = match self {
            F::E4m3 => sign | 0x7f,
            F::E5m2 => sign | 0x7c,
            F::E4m3Fnuz | F::E5m2Fnuz => 0x80,
            _ => sign | self.max_code(),
        };
        if x.is_nan() {
            return match self {
                F::E5m2 => sign | 0x7e,
                _ => ovf,
            };
        }
        let a = x.abs();
        let mc = self.max_code();
        let max = self.value(mc);
        // The value above the largest, were there one, lies one step of the top binade on.
        let half = max + (max - self.value(mc - 1)) / 2.0;
        if a > half || (a == half && mc & 1 == 1) {
            return ovf;
        }
        let mut best = 0u32;
        for c in 0..=mc {
            let (d, db) = ((self.value(c) - a).abs(), (self.value(best) - a).abs());
            if d < db || (d == db && c & 1 == 0 && best & 1 == 1) {
                best = c;
            }
        }
        if best == 0 && self.fnuz() {
            return 0;
        }
        sign | best
    }

    /// The two neighbours `lo <= |x| < hi` (magnitudes' patterns) of a finite in-range `x`.
    pub fn bracket(self, a: f64) -> (u32, u32) {
        let mc = self.max_code();
        let lo = (0..=mc).filter(|&c| self.value(c) <= a).max().unwrap();
        (lo, (lo + 1).min(mc))
    }
}

/// Runs `body` on every lane: lane l's `k_in` input dwords (from `input[l*k_in..]`) in
/// v16.., its `k_out` output dwords in v64.. (first loaded from `out[l*k_out..]`, so what a
/// conversion keeps is visible); returns the output dwords after the body.
pub fn per_lane(arch: &'static str, k_in: usize, input: &[u32], k_out: usize, out: &[u32], body: &str) -> Vec<u32> {
    per_lane_lds(arch, 0, k_in, input, k_out, out, body)
}

/// As [`per_lane`], with `lds` bytes of LDS.
pub fn per_lane_lds(
    arch: &'static str,
    lds: u32,
    k_in: usize,
    input: &[u32],
    k_out: usize,
    out: &[u32],
    body: &str,
) -> Vec<u32> {
    assert!(k_in <= 32 && k_out <= 32);
    let mut buf = input.to_vec();
    buf.resize(64 * k_in, 0);
    let in_bytes = buf.len() * 4;
    buf.extend_from_slice(out);
    buf.resize(64 * (k_in + k_out), 0);
    let mut src = format!(
        "v_mul_u32_u24 v1, {}, v0\nv_mul_u32_u24 v2, {}, v0\nv_add_u32 v2, 0x{in_bytes:x}, v2\n",
        4 * k_in,
        4 * k_out
    );
    for j in 0..k_in {
        src += &format!("global_load_dword v{}, v1, s[0:1] offset:{}\n", 16 + j, 4 * j);
    }
    for j in 0..k_out {
        src += &format!("global_load_dword v{}, v2, s[0:1] offset:{}\n", 64 + j, 4 * j);
    }
    src += "s_waitcnt vmcnt(0)\n";
    src += body;
    src += "\ns_nop 4\n";
    for j in 0..k_out {
        src += &format!("global_store_dword v2, v{}, s[0:1] offset:{}\n", 64 + j, 4 * j);
    }
    src += "s_endpgm\n";
    run(arch, &src, &mut buf, lds);
    buf[64 * k_in..].to_vec()
}

/// f32 inputs that probe a format: every finite value, the midpoints between neighbours and
/// the f32 values next to them, values past the largest, below the smallest, zeros, NaN and
/// infinities, each with both signs.
pub fn probes(f: F) -> Vec<f32> {
    let mc = f.max_code();
    let mut v: Vec<f32> = vec![0.0, f32::INFINITY, f32::NAN, 1e-30, 1e30];
    for c in 0..=mc {
        let x = f.value(c) as f32;
        v.push(x);
        let y = if c < mc { f.value(c + 1) } else { f.value(c) * 1.125 } as f32;
        let mid = (x + y) / 2.0;
        v.extend([mid, f32::from_bits(mid.to_bits() + 1), f32::from_bits(mid.to_bits() - 1)]);
    }
    v.push(f.value(mc) as f32 * 2.0);
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// A deterministic stream of dwords.
pub fn words(n: usize, mut seed: u32) -> Vec<u32> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        })
        .collect()
}
