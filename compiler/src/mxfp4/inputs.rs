//! Test inputs: random matrices quantized the ordinary way, and "exact" ones on which every
//! product and every partial sum of the GEMM is exact in f32, so that any summation order gives
//! the reference's bits.

use super::quantize::{quantize, Mxfp4Matrix};
use super::{MxError, BLOCK};
use baregpu_runtime::graph::rng::Rng;

/// Uniform in [-1, 1), from the runtime's seeded generator (the same seed gives the same
/// inputs on every machine).
fn unit(r: &mut Rng) -> f32 {
    (r.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

/// A `rows` x `k` matrix of values uniform in [-1, 1) times a per-row magnitude 2^(-3..=3),
/// quantized with [`quantize`].
pub fn random(rows: usize, k: usize, seed: u64) -> Result<Mxfp4Matrix, MxError> {
    let mut r = Rng::new(seed);
    let mut v = Vec::with_capacity(rows * k);
    for _ in 0..rows {
        let mag = 2f32.powi((r.next_u64() % 7) as i32 - 3);
        v.extend((0..k).map(|_| unit(&mut r) * mag));
    }
    quantize(&v, rows, k)
}

/// The largest K for which [`exact`] inputs keep every partial sum exact in f32.
pub const EXACT_MAX_K: usize = 4096;

/// A `rows` x `k` matrix of random E2M1 codes with scales 2^-1, 2^0 or 2^1: a product of two
/// elements is a multiple of 2^-4 of magnitude at most 36 * 4, so a sum of up to
/// [`EXACT_MAX_K`] of them stays below 2^20 on a grid of 2^-4: 24 bits, exact in f32.
pub fn exact(rows: usize, k: usize, seed: u64) -> Result<Mxfp4Matrix, MxError> {
    if !k.is_multiple_of(BLOCK) {
        return Err(MxError::Shape(format!("K = {k} is not a multiple of {BLOCK}")));
    }
    let mut r = Rng::new(seed);
    let data = (0..rows * k / 2).map(|_| r.next_u64() as u8).collect();
    let scales = (0..rows * k / BLOCK).map(|_| 126 + (r.next_u64() % 3) as u8).collect();
    Mxfp4Matrix::from_parts(rows, k, data, scales)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mxfp4::reference::gemm_f64;

    #[test]
    fn exact_inputs_sum_exactly_in_f32_in_any_order() {
        let (a, b) = (exact(4, 1024, 1).unwrap(), exact(3, 1024, 2).unwrap());
        let c = gemm_f64(&a, &b).unwrap();
        for m in 0..4 {
            for n in 0..3 {
                // Forward and backward f32 sums agree with the f64 one.
                let prods: Vec<f32> = (0..1024).map(|i| (a.value(m, i) * b.value(n, i)) as f32).collect();
                let fwd: f32 = prods.iter().sum();
                let bwd: f32 = prods.iter().rev().sum();
                assert_eq!(f64::from(fwd), c.values[m * 3 + n]);
                assert_eq!(fwd, bwd);
            }
        }
    }

    #[test]
    fn generators_repeat_and_differ_by_seed() {
        assert_eq!(random(2, 64, 7).unwrap(), random(2, 64, 7).unwrap());
        assert_ne!(random(2, 64, 7).unwrap(), random(2, 64, 8).unwrap());
        assert!(exact(2, 64, 1).unwrap().scales.iter().all(|&s| (126..=128).contains(&s)));
    }
}
