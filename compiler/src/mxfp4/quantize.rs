//! Quantizing f32/bf16 matrices to MXFP4 along K and back.

use super::e2m1::{e2m1_to_f32, e8m0_for_amax, e8m0_to_f64, f64_to_e2m1, E8M0_BIAS};
use super::{MxError, BLOCK};

/// An MXFP4 matrix of `rows` x `k` in the natural layout: `data` holds `rows` rows of `k / 2`
/// bytes (element `2i` in the low nibble of byte `i`), `scales` holds `rows` rows of `k / 32`
/// E8M0 codes, one per 32 elements along K.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mxfp4Matrix {
    pub rows: usize,
    pub k: usize,
    pub data: Vec<u8>,
    pub scales: Vec<u8>,
}

impl Mxfp4Matrix {
    /// A matrix from raw bytes, checking the sizes (`k` a multiple of 32).
    pub fn from_parts(rows: usize, k: usize, data: Vec<u8>, scales: Vec<u8>) -> Result<Mxfp4Matrix, MxError> {
        if !k.is_multiple_of(BLOCK) {
            return Err(MxError::Shape(format!("K = {k} is not a multiple of {BLOCK}")));
        }
        let (want_d, want_s) = (rows * k / 2, rows * k / BLOCK);
        if data.len() != want_d {
            return Err(MxError::Shape(format!(
                "{} data bytes for {rows} x {k} elements; {want_d} expected",
                data.len()
            )));
        }
        if scales.len() != want_s {
            return Err(MxError::Shape(format!(
                "{} scale bytes for {rows} x {k} elements; {want_s} expected",
                scales.len()
            )));
        }
        Ok(Mxfp4Matrix { rows, k, data, scales })
    }

    /// The E2M1 code of element (`r`, `c`).
    pub fn code(&self, r: usize, c: usize) -> u8 {
        let byte = self.data[r * self.k / 2 + c / 2];
        if c.is_multiple_of(2) {
            byte & 0xf
        } else {
            byte >> 4
        }
    }

    /// The E8M0 code of the block holding element (`r`, `c`).
    pub fn scale(&self, r: usize, c: usize) -> u8 {
        self.scales[r * self.k / BLOCK + c / BLOCK]
    }

    /// The value of element (`r`, `c`): element times its block's scale (exact in f64).
    pub fn value(&self, r: usize, c: usize) -> f64 {
        f64::from(e2m1_to_f32(self.code(r, c))) * e8m0_to_f64(self.scale(r, c))
    }

    /// Every value, row-major, as f32 (exact unless a scale is out of f32's range).
    pub fn dequantize(&self) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.rows * self.k);
        for r in 0..self.rows {
            for c in 0..self.k {
                out.push(self.value(r, c) as f32);
            }
        }
        out
    }
}

/// Quantizes a row-major `rows` x `k` f32 matrix block by block (32 elements along K): the
/// scale by the OCP MX v1.0 rule ([`e8m0_for_amax`]), each element divided by it and rounded to
/// the nearest E2M1 value, ties to even, saturating at 6. A block holding NaN or an infinity gets
/// the NaN scale and zero elements.
pub fn quantize(values: &[f32], rows: usize, k: usize) -> Result<Mxfp4Matrix, MxError> {
    if !k.is_multiple_of(BLOCK) {
        return Err(MxError::Shape(format!("K = {k} is not a multiple of {BLOCK}")));
    }
    if values.len() != rows * k {
        return Err(MxError::Shape(format!("{} values for {rows} x {k}", values.len())));
    }
    let mut data = vec![0u8; rows * k / 2];
    let mut scales = vec![0u8; rows * k / BLOCK];
    for (b, block) in values.chunks_exact(BLOCK).enumerate() {
        let amax = if block.iter().any(|x| x.is_nan()) {
            f64::NAN
        } else {
            block.iter().fold(0f64, |m, &x| m.max(f64::from(x).abs()))
        };
        let code = e8m0_for_amax(amax);
        scales[b] = code;
        if code == super::e2m1::E8M0_NAN {
            continue;
        }
        // Dividing by a power of two is exact in f64 for every f32 input.
        let inv = 2f64.powi(E8M0_BIAS - i32::from(code));
        for (i, &x) in block.iter().enumerate() {
            let q = f64_to_e2m1(f64::from(x) * inv);
            let at = b * BLOCK / 2 + i / 2;
            data[at] |= if i % 2 == 0 { q } else { q << 4 };
        }
    }
    Ok(Mxfp4Matrix { rows, k, data, scales })
}

/// [`quantize`] of bf16 values (bit patterns).
pub fn quantize_bf16(values: &[u16], rows: usize, k: usize) -> Result<Mxfp4Matrix, MxError> {
    let f: Vec<f32> = values.iter().map(|&b| f32::from_bits(u32::from(b) << 16)).collect();
    quantize(&f, rows, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn representable_values_round_trip_exactly() {
        // Each block: a power-of-two scale times E2M1 values, with a 6 or -6 setting amax so that
        // the spec's rule gives back the same scale.
        let (rows, k) = (3, 64);
        let mut vals = Vec::new();
        for r in 0..rows {
            for c in 0..k {
                let scale = 2f32.powi(r as i32 * 3 - 4 + (c / 32) as i32);
                let m = if c % 32 == 0 { 6.0 } else { e2m1_to_f32(((r * 7 + c * 5) % 16) as u8) };
                vals.push(m * scale);
            }
        }
        let q = quantize(&vals, rows, k).unwrap();
        assert_eq!(q.dequantize(), vals);
        let again = quantize(&q.dequantize(), rows, k).unwrap();
        assert_eq!(again, q);
    }

    #[test]
    fn rounding_error_is_within_half_a_step() {
        let (rows, k) = (4, 128);
        let mut seed = 12345u64;
        let vals: Vec<f32> = (0..rows * k)
            .map(|_| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((seed >> 33) as f32 / (1u64 << 31) as f32 - 0.5) * 10.0
            })
            .collect();
        let q = quantize(&vals, rows, k).unwrap();
        for r in 0..rows {
            for c in 0..k {
                let x = f64::from(vals[r * k + c]);
                let s = e8m0_to_f64(q.scale(r, c));
                let err = (q.value(r, c) - x).abs();
                // The coarsest E2M1 step is 2 (between 4 and 6); saturation past 6 is at most 2.
                assert!(err <= 1.0 * s + 1e-12 || x.abs() > 6.0 * s, "({r},{c}) {x} -> {}", q.value(r, c));
                assert!(err <= 2.0 * s, "({r},{c}) {x} -> {}", q.value(r, c));
            }
        }
    }

    #[test]
    fn nan_blocks_get_the_nan_scale_and_sizes_are_checked() {
        let mut vals = vec![1.0f32; 64];
        vals[40] = f32::NAN;
        let q = quantize(&vals, 1, 64).unwrap();
        assert_eq!(q.scales, vec![125, 255]);
        assert!(quantize(&vals, 1, 63).is_err());
        assert!(quantize(&vals, 2, 64).is_err());
        assert!(Mxfp4Matrix::from_parts(1, 64, vec![0; 31], vec![0; 2]).is_err());
        assert!(Mxfp4Matrix::from_parts(1, 64, vec![0; 32], vec![0; 2]).is_ok());
    }

    #[test]
    fn bf16_inputs_quantize_like_their_f32_values() {
        let bf: Vec<u16> = (0..64u16).map(|i| 0x3f80 + i * 3).collect();
        let f: Vec<f32> = bf.iter().map(|&b| f32::from_bits(u32::from(b) << 16)).collect();
        assert_eq!(quantize_bf16(&bf, 2, 32).unwrap(), quantize(&f, 2, 32).unwrap());
    }
}
