//! The element formats of MFMA operands and their values. Every format here is exactly
//! representable in f64, so decoding is exact; docs/cdna-mfma.md gives the sources (OCP
//! Microscaling spec v1.0 for E4M3/E5M2/E2M3/E3M2/E2M1/E8M0; the CDNA3 ISA guide for the FNUZ
//! FP8 formats of gfx942).

use crate::rdna::fp::{f16_to_f32, frexp64, ldexp64};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    F64,
    F32,
    /// CDNA3's reduced-precision f32 (1+8+10 bits), held in a 32-bit register.
    Xf32,
    F16,
    Bf16,
    I8,
    /// OCP FP8 E4M3 (FN: no infinity, NaN = S.1111.111), gfx950.
    Fp8,
    /// OCP BF8 E5M2 (IEEE-like), gfx950.
    Bf8,
    /// FP8 E4M3 FNUZ (bias 8, 0x80 = NaN, no infinity, no -0), gfx942.
    Fp8Fnuz,
    /// BF8 E5M2 FNUZ (bias 16, 0x80 = NaN, no infinity, no -0), gfx942.
    Bf8Fnuz,
    /// OCP FP6 E2M3 (no infinity or NaN).
    Fp6,
    /// OCP BF6 E3M2 (no infinity or NaN).
    Bf6,
    /// OCP FP4 E2M1 (no infinity or NaN).
    Fp4,
}

impl Fmt {
    pub fn bits(self) -> u32 {
        match self {
            Fmt::F64 => 64,
            Fmt::F32 | Fmt::Xf32 => 32,
            Fmt::F16 | Fmt::Bf16 => 16,
            Fmt::I8 | Fmt::Fp8 | Fmt::Bf8 | Fmt::Fp8Fnuz | Fmt::Bf8Fnuz => 8,
            Fmt::Fp6 | Fmt::Bf6 => 6,
            Fmt::Fp4 => 4,
        }
    }

    /// The format of an f8f6f4 operand by its CBSZ (A) or BLGP (B) code (LLVM SIDefines.h,
    /// MFMAScaleFormats; AMD's CDNA4 matrix-core blog).
    pub fn f8f6f4(code: u32) -> Option<Fmt> {
        Some(match code {
            0 => Fmt::Fp8,
            1 => Fmt::Bf8,
            2 => Fmt::Fp6,
            3 => Fmt::Bf6,
            4 => Fmt::Fp4,
            _ => return None,
        })
    }

    /// The value of the element with bits `x` (the low `bits()` bits).
    pub fn value(self, x: u64) -> f64 {
        let x32 = x as u32;
        match self {
            Fmt::F64 => f64::from_bits(x),
            Fmt::F32 => f32::from_bits(x32) as f64,
            Fmt::Xf32 => xf32(x32) as f64,
            Fmt::F16 => f16_to_f32(x32 as u16) as f64,
            Fmt::Bf16 => f32::from_bits(x32 << 16) as f64,
            Fmt::I8 => x32 as u8 as i8 as f64,
            Fmt::Fp8 if x32 & 0x7f == 0x7f => f64::NAN,
            Fmt::Fp8 => mini(x32, 4, 3, 7),
            Fmt::Bf8 if x32 & 0x7c == 0x7c => {
                if x32 & 3 == 0 {
                    sign(x32, 8) * f64::INFINITY
                } else {
                    f64::NAN
                }
            }
            Fmt::Bf8 => mini(x32, 5, 2, 15),
            Fmt::Fp8Fnuz | Fmt::Bf8Fnuz if x32 & 0xff == 0x80 => f64::NAN,
            Fmt::Fp8Fnuz => mini(x32, 4, 3, 8),
            Fmt::Bf8Fnuz => mini(x32, 5, 2, 16),
            Fmt::Fp6 => mini(x32, 2, 3, 1),
            Fmt::Bf6 => mini(x32, 3, 2, 3),
            Fmt::Fp4 => mini(x32, 2, 1, 1),
        }
    }
}

/// How a conversion into a narrow format rounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Round {
    /// To nearest, ties to the even pattern.
    Even,
    /// Stochastic, in ROCm's model (hip_f8_impl.h `cast_to_f8`, composable_kernel's
    /// `run_cast_to_f8`): the `d` input bits below the result's last place (`ulp` is the
    /// input's last place at this value) get the low `d` bits of `rand` added, then drop.
    Stochastic { rand: u32, ulp: f64 },
}

impl Fmt {
    /// (exponent bits, mantissa bits, bias) of the formats [`Self::encode`] writes.
    fn shape(self) -> Option<(u32, u32, i32)> {
        Some(match self {
            Fmt::F16 => (5, 10, 15),
            Fmt::Bf16 => (8, 7, 127),
            Fmt::Fp8 => (4, 3, 7),
            Fmt::Bf8 => (5, 2, 15),
            Fmt::Fp8Fnuz => (4, 3, 8),
            Fmt::Bf8Fnuz => (5, 2, 16),
            Fmt::Fp6 => (2, 3, 1),
            Fmt::Bf6 => (3, 2, 3),
            Fmt::Fp4 => (2, 1, 1),
            _ => return None,
        })
    }

    /// The pattern of the largest finite value (sign clear): E4M3's S.1111.111 is its NaN,
    /// E5M2's top exponent holds infinity and NaN; the others use every pattern.
    fn max_bits(self) -> u32 {
        match self {
            Fmt::Fp8 => 0x7e,
            Fmt::Bf8 => 0x7b,
            Fmt::F16 => 0x7bff,
            Fmt::Bf16 => 0x7f7f,
            _ => (1 << (self.bits() - 1)) - 1,
        }
    }

    /// `x` in this narrow format (FP8/BF8 either flavour, FP6, BF6, FP4; f16 and bf16 for
    /// gfx950's stochastic `v_cvt_sr_{f16,bf16}_f32`, IEEE-like as E5M2). Past the largest
    /// finite value (after rounding) E4M3 gives NaN, E5M2 infinity, FNUZ its NaN 0x80 (the
    /// non-saturating conversions of OCP 8-bit FP spec v1.0 §5 and of ROCm's FNUZ casts);
    /// FP6/FP4 have neither and saturate (OCP MX v1.0 §5.3.3 leaves it to the
    /// implementation; saturation is our choice, as is a NaN input giving their largest
    /// value). FNUZ has no -0: a negative value that rounds to zero gives 0x00.
    pub fn encode(self, x: f64, round: Round) -> u32 {
        let (_, m, bias) = self.shape().expect("a narrow format");
        let fnuz = matches!(self, Fmt::Fp8Fnuz | Fmt::Bf8Fnuz);
        let sign = if x.is_sign_negative() { 1 << (self.bits() - 1) } else { 0 };
        let overflow = match self {
            Fmt::Fp8 => sign | 0x7f,
            Fmt::Bf8 if x.is_nan() => sign | 0x7e,
            Fmt::Bf8 => sign | 0x7c,
            Fmt::F16 if x.is_nan() => sign | 0x7e00,
            Fmt::F16 => sign | 0x7c00,
            Fmt::Bf16 if x.is_nan() => sign | 0x7fc0,
            Fmt::Bf16 => sign | 0x7f80,
            Fmt::Fp8Fnuz | Fmt::Bf8Fnuz => 0x80,
            _ => sign | self.max_bits(),
        };
        let a = x.abs();
        if !a.is_finite() {
            return overflow;
        }
        let emin = 1 - bias;
        // The result's last place at this magnitude: 2^(E - m), subnormals 2^(emin - m).
        let e = if a == 0.0 { emin } else { (frexp64(a).1 - 1).max(emin) };
        let q = ldexp64(1.0, e - m as i32);
        let k = match round {
            Round::Even => (a / q).round_ties_even(),
            // No input bit below the result's last place: nothing to round.
            Round::Stochastic { ulp, .. } if q <= ulp => a / q,
            Round::Stochastic { rand, ulp } => {
                let d = frexp64(q / ulp).1 - 1;
                // Exact: a is a whole number of input places (below 2^24), plus 32 bits.
                let mask = if d >= 32 { u32::MAX } else { (1u32 << d) - 1 };
                ((a / ulp + (rand & mask) as f64) / ldexp64(1.0, d)).floor()
            }
        };
        let r = k * q;
        let max = self.value(self.max_bits() as u64);
        if r > max {
            return overflow;
        }
        if r == 0.0 {
            return if fnuz { 0 } else { sign };
        }
        let bits = if r < ldexp64(1.0, emin) {
            r / ldexp64(1.0, emin - m as i32)
        } else {
            let e = frexp64(r).1 - 1;
            ((e + bias) << m) as f64 + r / ldexp64(1.0, e - m as i32) - (1 << m) as f64
        };
        sign | bits as u32
    }
}

fn sign(x: u32, bits: u32) -> f64 {
    if x >> (bits - 1) & 1 != 0 {
        -1.0
    } else {
        1.0
    }
}

/// A finite minifloat with `e` exponent and `m` mantissa bits (sign above them) and the given
/// bias: subnormals at exponent 0, no special values.
fn mini(x: u32, e: u32, m: u32, bias: i32) -> f64 {
    let exp = (x >> m) & ((1 << e) - 1);
    let man = (x & ((1 << m) - 1)) as f64;
    let mag = if exp == 0 {
        man * 2f64.powi(1 - bias - m as i32)
    } else {
        (1.0 + man / (1 << m) as f64) * 2f64.powi(exp as i32 - bias)
    };
    sign(x, 1 + e + m) * mag
}

/// An E8M0 block scale: 2^(e - 127); 0xFF is NaN (OCP MX v1.0 §5.4).
pub fn e8m0(e: u8) -> f64 {
    if e == 0xff {
        f64::NAN
    } else {
        2f64.powi(e as i32 - 127)
    }
}

/// An f32 register read as xf32: the mantissa rounded to 10 bits, to nearest even. The CDNA3
/// guide names the format (1 sign, 8 exponent, 10 mantissa bits) but not how the hardware
/// narrows an f32 to it; this rounding is our choice (docs/cdna-mfma.md).
fn xf32(x: u32) -> f32 {
    let f = f32::from_bits(x);
    if !f.is_finite() {
        return f;
    }
    let drop = 13;
    let half = 1u32 << (drop - 1);
    let lsb = (x >> drop) & 1;
    f32::from_bits((x + half - 1 + lsb) & !((1 << drop) - 1))
}
