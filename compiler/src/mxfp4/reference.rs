//! The host reference of the MXFP4 GEMM and the error measures its results are checked with.

use super::quantize::Mxfp4Matrix;
use super::MxError;

/// bf16 (bit pattern) to f32.
pub fn bf16_to_f32(b: u16) -> f32 {
    f32::from_bits(u32::from(b) << 16)
}

/// f32 to bf16, round to nearest even (NaN stays a quiet NaN).
pub fn f32_to_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return ((bits >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

/// f64 to bf16 with one rounding (to nearest even): through f32 rounded to odd, which keeps
/// the sticky information a second rounding needs.
pub fn f64_to_bf16(x: f64) -> u16 {
    let mut t = x as f32;
    if t.is_finite() && f64::from(t) != x && t.to_bits() & 1 == 0 {
        // Round to odd: step one ulp towards x.
        let toward_zero = f64::from(t).abs() > x.abs();
        let b = t.to_bits();
        t = f32::from_bits(if toward_zero { b - 1 } else { b + 1 });
    }
    f32_to_bf16(t)
}

/// The exact product `A * B^T` (`M` x `N`, row-major) and, per element, the sum of the
/// magnitudes of its products (the scale of an f32 accumulation's error).
#[derive(Debug, Clone, PartialEq)]
pub struct Exact {
    pub values: Vec<f64>,
    pub abs_sums: Vec<f64>,
}

/// `C = A * B^T` in f64: every product of two MXFP4 values is exact in f64, and so is a sum of
/// them while it fits 53 bits.
pub fn gemm_f64(a: &Mxfp4Matrix, b: &Mxfp4Matrix) -> Result<Exact, MxError> {
    if a.k != b.k {
        return Err(MxError::Shape(format!("A has K = {} and B has K = {}", a.k, b.k)));
    }
    let k = a.k;
    let av: Vec<f64> = (0..a.rows * k).map(|i| a.value(i / k, i % k)).collect();
    let bv: Vec<f64> = (0..b.rows * k).map(|i| b.value(i / k, i % k)).collect();
    let mut values = vec![0f64; a.rows * b.rows];
    let mut abs_sums = vec![0f64; a.rows * b.rows];
    for m in 0..a.rows {
        let ar = &av[m * k..(m + 1) * k];
        for n in 0..b.rows {
            let br = &bv[n * k..(n + 1) * k];
            let (mut s, mut sa) = (0f64, 0f64);
            for (x, y) in ar.iter().zip(br) {
                s += x * y;
                sa += (x * y).abs();
            }
            values[m * b.rows + n] = s;
            abs_sums[m * b.rows + n] = sa;
        }
    }
    Ok(Exact { values, abs_sums })
}

/// The reference result: [`gemm_f64`] rounded once to bf16.
pub fn gemm_bf16(a: &Mxfp4Matrix, b: &Mxfp4Matrix) -> Result<Vec<u16>, MxError> {
    Ok(gemm_f64(a, b)?.values.into_iter().map(f64_to_bf16).collect())
}

/// How far a device result is from the exact one.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ErrorReport {
    /// Elements compared.
    pub count: usize,
    /// Elements whose bf16 bits differ from the reference's.
    pub mismatches: usize,
    /// Largest |got - exact|.
    pub max_abs: f64,
    /// Largest |got - exact| / |exact| over the nonzero exact values.
    pub max_rel: f64,
    /// Largest |got - exact| in units of the bound below (<= 1 passes).
    pub max_bound_ratio: f64,
    /// Elements past the bound.
    pub over_bound: usize,
}

impl ErrorReport {
    /// Whether every element is within its bound.
    pub fn within_bound(&self) -> bool {
        self.over_bound == 0
    }
}

/// One bf16 ulp at |x| (the spacing of bf16 values of x's binade; the smallest normal's below).
pub fn bf16_ulp(x: f64) -> f64 {
    let e = if x == 0.0 { -126 } else { super::e2m1::floor_log2(x.abs()).max(-126) };
    2f64.powi(e - 7)
}

/// Compares `got` (bf16 bits) with the exact results: the bound of each element is the bf16
/// rounding of the result (one ulp: rounding of a value that is itself off by the accumulation
/// error may land one step further) plus the f32 accumulation error `k * 2^-24 * sum|a*b|`.
pub fn compare(got: &[u16], exact: &Exact, k: usize) -> ErrorReport {
    let reference: Vec<u16> = exact.values.iter().map(|&x| f64_to_bf16(x)).collect();
    let mut r = ErrorReport { count: got.len(), ..ErrorReport::default() };
    for i in 0..got.len() {
        let g = f64::from(bf16_to_f32(got[i]));
        let e = exact.values[i];
        if got[i] != reference[i] {
            r.mismatches += 1;
        }
        let err = if g.is_nan() || e.is_nan() { f64::INFINITY } else { (g - e).abs() };
        let bound = bf16_ulp(e) + k as f64 * 2f64.powi(-24) * exact.abs_sums[i];
        r.max_abs = r.max_abs.max(err);
        if e != 0.0 {
            r.max_rel = r.max_rel.max(err / e.abs());
        }
        let ratio = if bound > 0.0 {
            err / bound
        } else if err == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        r.max_bound_ratio = r.max_bound_ratio.max(ratio);
        if ratio > 1.0 {
            r.over_bound += 1;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mxfp4::quantize;

    #[test]
    fn bf16_rounding_is_nearest_even_with_one_rounding() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        // 1 + 2^-8 is a tie: stays at 1 (even); 1 + 3*2^-8 rounds up to 1 + 2^-6.
        assert_eq!(f32_to_bf16(1.0 + 2f32.powi(-8)), 0x3f80);
        assert_eq!(f32_to_bf16(1.0 + 3.0 * 2f32.powi(-8)), 0x3f82);
        // A value just above a tie in f64 that f32 would round onto the tie: one rounding goes up.
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
        assert_eq!(f64_to_bf16(x), 0x3f81);
        assert_eq!(f64_to_bf16(1.0 + 2f64.powi(-8)), 0x3f80);
        assert_eq!(f64_to_bf16(-2.5), f32_to_bf16(-2.5));
        assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
    }

    #[test]
    fn reference_gemm_is_a_times_b_transposed() {
        // A = [[1, 2, 0...]], B = [[3, 0.5, 0...], [0, 4, 0...]] with scale 1 (amax 6 in block 2).
        let k = 64;
        let mut a = vec![0f32; k];
        a[0] = 1.0;
        a[1] = 2.0;
        let mut b = vec![0f32; 2 * k];
        b[0] = 3.0;
        b[1] = 0.5;
        b[k + 1] = 4.0;
        let (qa, qb) = (quantize(&a, 1, k).unwrap(), quantize(&b, 2, k).unwrap());
        let exact = gemm_f64(&qa, &qb).unwrap();
        assert_eq!(exact.values, vec![4.0, 8.0]);
        assert_eq!(exact.abs_sums, vec![4.0, 8.0]);
        let refr = gemm_bf16(&qa, &qb).unwrap();
        assert_eq!(refr, vec![0x4080, 0x4100]);
        let ok = compare(&refr, &exact, k);
        assert_eq!((ok.mismatches, ok.over_bound), (0, 0));
        let bad = compare(&[0x4080, 0x4110], &exact, k);
        assert_eq!((bad.mismatches, bad.over_bound), (1, 1));
    }
}
