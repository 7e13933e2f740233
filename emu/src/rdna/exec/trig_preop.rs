//! `v_trig_preop_f64`: a 53-bit segment of 2/π, for the large-argument reduction of sin/cos
//! (Payne–Hanek; LLVM's ocml `__ocml_sin_f64` emits it).
//!
//! Rule (AMD CDNA3 ISA guide, V_TRIG_PREOP_F64; the RDNA3 guide has the same): with 2/π =
//! 0.b₁₂₀₀ b₁₁₉₉ … b₀ (binary), `shift = S1[4:0] × 53`, plus `exponent(S0) − 1077` when the
//! biased exponent of S0 is above 1077; the segment is the 53 bits b₁₂₀₀₋ₛₕᵢₑₜ … b₁₁₄₈₋ₛₕᵢₑₜ
//! (bits past b₀ read 0) as an integer, times 2^(−53 − shift), times 2^128 more when the
//! exponent of S0 is 1968 or above (so the last segment of a huge argument does not underflow).
//!
//! The 1201 bits of 2/π are computed once, here, from Machin's formula in fixed point (no table
//! copied from elsewhere); emu/tests/cdna/trig.rs checks them against the host's f64 2/π and,
//! through a clang-built reduction, against the host's `sin` of arguments up to 1.7e308.

use std::sync::OnceLock;

/// Bits of 2/π the instruction can read.
const BITS: usize = 1201;
/// Fraction bits of the fixed-point arithmetic: the 1201 wanted plus guard bits for the
/// truncation errors of the series (a few hundred terms, one ulp each).
const PREC: usize = BITS + 96;
const LIMBS: usize = PREC / 32 + 2;

/// A non-negative fixed-point number: `LIMBS` little-endian 32-bit limbs, `PREC` fraction bits.
type Fix = [u32; LIMBS];

fn one() -> Fix {
    let mut x = [0; LIMBS];
    x[PREC / 32] = 1 << (PREC % 32);
    x
}

fn div_small(x: &mut Fix, d: u32) {
    let mut rem = 0u64;
    for limb in x.iter_mut().rev() {
        let cur = rem << 32 | *limb as u64;
        *limb = (cur / d as u64) as u32;
        rem = cur % d as u64;
    }
}

fn add(x: &mut Fix, y: &Fix) {
    let mut carry = 0u64;
    for (a, b) in x.iter_mut().zip(y) {
        let s = *a as u64 + *b as u64 + carry;
        *a = s as u32;
        carry = s >> 32;
    }
}

fn sub(x: &mut Fix, y: &Fix) {
    let mut borrow = 0i64;
    for (a, b) in x.iter_mut().zip(y) {
        let s = *a as i64 - *b as i64 - borrow;
        *a = s as u32;
        borrow = (s < 0) as i64;
    }
}

fn mul_small(x: &mut Fix, m: u32) {
    let mut carry = 0u64;
    for a in x.iter_mut() {
        let p = *a as u64 * m as u64 + carry;
        *a = p as u32;
        carry = p >> 32;
    }
}

fn is_zero(x: &Fix) -> bool {
    x.iter().all(|&a| a == 0)
}

/// atan(1/n) = Σ (−1)^k / ((2k+1) n^(2k+1)).
fn atan_inv(n: u32) -> Fix {
    let mut power = one();
    div_small(&mut power, n);
    let mut sum = [0; LIMBS];
    for k in 0u32.. {
        let mut term = power;
        div_small(&mut term, 2 * k + 1);
        if is_zero(&term) {
            break;
        }
        if k % 2 == 0 {
            add(&mut sum, &term);
        } else {
            sub(&mut sum, &term);
        }
        div_small(&mut power, n * n);
    }
    sum
}

/// ⌊2/π × 2^1201⌋ as little-endian 32-bit limbs (bit k of the integer is b_k).
fn two_over_pi() -> &'static [u32] {
    static BITS_OF: OnceLock<Vec<u32>> = OnceLock::new();
    BITS_OF.get_or_init(|| {
        // π = 16 atan(1/5) − 4 atan(1/239) (Machin).
        let mut pi = atan_inv(5);
        mul_small(&mut pi, 16);
        let mut t = atan_inv(239);
        mul_small(&mut t, 4);
        sub(&mut pi, &t);
        // Long division of 2 by π, one quotient bit at a time: r/π stays the fraction left.
        let mut r = one();
        mul_small(&mut r, 2);
        let mut q = vec![0u32; BITS.div_ceil(32)];
        for k in (0..BITS).rev() {
            mul_small(&mut r, 2);
            let mut d = r;
            sub(&mut d, &pi);
            // No borrow out of the top limb: r ≥ π.
            if d[LIMBS - 1] >> 31 == 0 {
                r = d;
                q[k / 32] |= 1 << (k % 32);
            }
        }
        q
    })
}

/// The segment `S1[4:0]` of 2/π for the argument `x` (the instruction's result).
pub(super) fn trig_preop(x: f64, seg: u32) -> f64 {
    let exp = (x.to_bits() >> 52 & 0x7ff) as i32;
    let shift = (seg & 31) as i32 * 53 + (exp - 1077).max(0);
    let bits = two_over_pi();
    let bit = |k: i32| if k < 0 { 0 } else { (bits[k as usize / 32] >> (k % 32)) as u64 & 1 };
    let top = BITS as i32 - 1 - shift;
    let m = (0..53).fold(0u64, |m, j| m << 1 | bit(top - j));
    let scale = -53 - shift + if exp >= 1968 { 128 } else { 0 };
    super::ldexp64(m as f64, scale)
}
