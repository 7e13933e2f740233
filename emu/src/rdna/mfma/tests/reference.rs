//! The tests' own view of the element formats, written from their definitions (OCP MX v1.0,
//! IEEE 754) apart from the emulator's decoders, and the plain
//! matrix product the MFMA results are checked against.

/// A format as its definition states it: sign bit, `e` exponent bits, `m` mantissa bits, bias,
/// and which bit patterns are special.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Def {
    pub name: &'static str,
    pub e: u32,
    pub m: u32,
    pub bias: i32,
    pub special: Special,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// Every pattern is a finite number (FP6, FP4).
    None,
    /// Only S.1111.111 is NaN (OCP E4M3).
    E4m3,
    /// IEEE: the top exponent is infinity (mantissa 0) or NaN.
    Ieee,
}

pub const FP8: Def = Def { name: "fp8", e: 4, m: 3, bias: 7, special: Special::E4m3 };
pub const BF8: Def = Def { name: "bf8", e: 5, m: 2, bias: 15, special: Special::Ieee };
pub const FP6: Def = Def { name: "fp6", e: 2, m: 3, bias: 1, special: Special::None };
pub const BF6: Def = Def { name: "bf6", e: 3, m: 2, bias: 3, special: Special::None };
pub const FP4: Def = Def { name: "fp4", e: 2, m: 1, bias: 1, special: Special::None };

/// The f8f6f4 formats in CBSZ/BLGP code order.
pub const F8F6F4: [Def; 5] = [FP8, BF8, FP6, BF6, FP4];

impl Def {
    pub fn bits(&self) -> u32 {
        1 + self.e + self.m
    }

    /// The value of pattern `x`: (-1)^s · significand · 2^(exponent - m), the significand an
    /// integer with the hidden bit (none for exponent field 0, which has exponent 1 - bias).
    pub fn value(&self, x: u32) -> f64 {
        let top = (1u32 << self.e) - 1;
        let (s, ef, mf) = (x >> (self.e + self.m) & 1, x >> self.m & top, x & ((1 << self.m) - 1));
        match self.special {
            Special::E4m3 if ef == top && mf == (1 << self.m) - 1 => return f64::NAN,
            Special::Ieee if ef == top && mf != 0 => return f64::NAN,
            Special::Ieee if ef == top => return if s == 1 { f64::NEG_INFINITY } else { f64::INFINITY },
            _ => {}
        }
        let significand = if ef == 0 { mf } else { mf | 1 << self.m } as f64;
        let exponent = ef.max(1) as i32 - self.bias - self.m as i32;
        let v = significand * (exponent as f64).exp2();
        if s == 1 {
            -v
        } else {
            v
        }
    }

    /// A random pattern whose value is a multiple of 1/4 within ±8 (`exact`), or any finite
    /// value otherwise.
    pub fn pick(&self, rng: &mut super::harness::Rng, exact: bool) -> (u32, f64) {
        loop {
            let x = (rng.next() as u32) & ((1 << self.bits()) - 1);
            let v = self.value(x);
            if v.is_finite() && (!exact || (v.abs() <= 8.0 && (v * 4.0).fract() == 0.0)) {
                return (x, v);
            }
        }
    }
}

/// D[i][j] = Σ_k A[i][k]·B[k][j]·scale, summed in f64 in K order, plus C, before the one
/// rounding to f32 (the model docs/cdna-mfma.md states). `scale(i, j, k)` is 1 when unscaled.
pub fn product(
    m: usize,
    k: usize,
    a: &[f64],
    b: &[f64],
    c: &[f32],
    scale: &dyn Fn(usize, usize, usize) -> f64,
) -> Vec<f64> {
    let mut d = vec![0f64; m * m];
    for i in 0..m {
        for j in 0..m {
            let mut s = 0f64;
            for kk in 0..k {
                s += a[i * k + kk] * b[kk * m + j] * scale(i, j, kk);
            }
            d[i * m + j] = s + c[i * m + j] as f64;
        }
    }
    d
}

/// Whether `x` is exactly an f32 (the data of exact tests must keep every sum so).
pub fn exact_in_f32(x: f64) -> bool {
    (x as f32) as f64 == x
}
