//! Floating-point helpers the VALU needs beyond the host's f32/f64: IEEE half precision with
//! round-to-nearest-even conversions, and the AMD-specific division helpers.

/// f16 bits -> f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13) | if man != 0 { 0x40_0000 } else { 0 }
    } else if exp != 0 {
        sign | ((exp + 112) << 23) | (man << 13)
    } else if man == 0 {
        sign
    } else {
        // Subnormal: value = man * 2^-24.
        return f32::from_bits(sign) + if sign != 0 { -(man as f32) } else { man as f32 } * (1.0 / 16_777_216.0);
    };
    f32::from_bits(bits)
}

/// f64 -> f16 bits, round to nearest even (single rounding).
pub fn f64_to_f16(x: f64) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 48) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00 | ((b >> 42) & 0x1ff) as u16;
    }
    let a = x.abs();
    if a.is_infinite() || a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 6.103515625e-05 {
        // Subnormal range: multiples of 2^-24, rounded to nearest even by the host.
        let q = a * 16_777_216.0;
        let r = q.round_ties_even() as u16;
        return sign | r;
    }
    let e = ((b >> 52) & 0x7ff) as i32 - 1023; // -14..=15
    let man = b & ((1u64 << 52) - 1);
    let shift = 42;
    let mut m = (man >> shift) as u32;
    let rem = man & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rem > half || (rem == half && m & 1 != 0) {
        m += 1;
    }
    let mut exp = (e + 15) as u32;
    if m == 0x400 {
        m = 0;
        exp += 1;
    }
    if exp >= 31 {
        return sign | 0x7c00;
    }
    sign | ((exp as u16) << 10) | m as u16
}

pub fn f32_to_f16(x: f32) -> u16 {
    f64_to_f16(x as f64)
}

/// f32 -> f16 rounding toward zero (v_cvt_pk_rtz_f16_f32).
pub fn f32_to_f16_rtz(x: f32) -> u16 {
    let r = f32_to_f16(x);
    let back = f16_to_f32(r);
    if x.is_finite() && back.abs() > x.abs() {
        if r & 0x7fff == 0x7c00 {
            return (r & 0x8000) | 0x7bff;
        }
        r - 1
    } else {
        r
    }
}

pub fn h(x: u32) -> f32 {
    f16_to_f32(x as u16)
}

pub fn exp32(x: f32) -> i32 {
    ((x.to_bits() >> 23) & 0xff) as i32
}
pub fn exp64(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32
}

pub fn ldexp32(x: f32, e: i32) -> f32 {
    ldexp64(x as f64, e) as f32
}

/// Exact for every f64 result in range (scales in steps that stay normal).
pub fn ldexp64(mut x: f64, mut e: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    e = e.clamp(-3000, 3000);
    while e > 1000 {
        x *= f64::from_bits(((1000 + 1023) as u64) << 52);
        e -= 1000;
    }
    while e < -1000 {
        // Scale down without double rounding while staying normal where possible.
        x *= f64::from_bits(((-1000 + 1023) as u64) << 52);
        e += 1000;
    }
    if e < -1022 {
        // Two steps; the second rounds once into the subnormal range.
        x *= f64::from_bits(1u64 << 52); // 2^-1022
        e += 1022;
        return x * f64::from_bits(((e + 1023) as u64) << 52);
    }
    x * f64::from_bits(((e + 1023) as u64) << 52)
}

pub fn frexp_exp32(x: f32) -> i32 {
    if x == 0.0 || !x.is_finite() {
        return 0;
    }
    let (_, e) = frexp64(x as f64);
    e
}

pub fn frexp64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let mut b = x.to_bits();
    let mut e = ((b >> 52) & 0x7ff) as i32;
    let mut adj = 0;
    if e == 0 {
        let y = x * f64::from_bits(((64 + 1023) as u64) << 52);
        b = y.to_bits();
        e = ((b >> 52) & 0x7ff) as i32;
        adj = -64;
    }
    let m = f64::from_bits((b & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, e - 1022 + adj)
}

pub fn fract32(x: f32) -> f32 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f32::NAN };
    }
    (x - x.floor()).min(f32::from_bits(0x3f7f_ffff))
}
pub fn fract64(x: f64) -> f64 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f64::NAN };
    }
    (x - x.floor()).min(f64::from_bits(0x3fef_ffff_ffff_ffff))
}

pub fn div_scale32(s0: f32, s1: f32, s2: f32) -> (f32, bool) {
    let mut vcc = false;
    let mut d = s0;
    if s2 == 0.0 || s1 == 0.0 {
        d = f32::NAN;
    } else if exp32(s2) - exp32(s1) >= 96 {
        vcc = true;
        if s0 == s1 {
            d = ldexp32(s0, 64);
        }
    } else if s1.is_subnormal() {
        d = ldexp32(s0, 64);
    } else if (1.0 / s1 as f64).is_subnormal() && (s2 / s1).is_subnormal() {
        vcc = true;
        if s0 == s1 {
            d = ldexp32(s0, 64);
        }
    } else if (1.0 / s1 as f64).abs() < f32::MIN_POSITIVE as f64 {
        d = ldexp32(s0, -64);
    } else if (s2 / s1).is_subnormal() {
        vcc = true;
        if s0 == s2 {
            d = ldexp32(s0, 64);
        }
    } else if exp32(s2) <= 23 {
        d = ldexp32(s0, 64);
    }
    (d, vcc)
}

pub fn div_scale64(s0: f64, s1: f64, s2: f64) -> (f64, bool) {
    let mut vcc = false;
    let mut d = s0;
    if s2 == 0.0 || s1 == 0.0 {
        d = f64::NAN;
    } else if exp64(s2) - exp64(s1) >= 768 {
        vcc = true;
        if s0 == s1 {
            d = ldexp64(s0, 128);
        }
    } else if s1.is_subnormal() {
        d = ldexp64(s0, 128);
    } else if (1.0 / s1).is_subnormal() && (s2 / s1).is_subnormal() {
        vcc = true;
        if s0 == s1 {
            d = ldexp64(s0, 128);
        }
    } else if (1.0 / s1).is_subnormal() {
        d = ldexp64(s0, -128);
    } else if (s2 / s1).is_subnormal() {
        vcc = true;
        if s0 == s2 {
            d = ldexp64(s0, 128);
        }
    } else if exp64(s2) <= 53 {
        d = ldexp64(s0, 128);
    }
    (d, vcc)
}

pub fn div_fmas32(a: f32, b: f32, c: f32, vcc: bool) -> f32 {
    let r = a.mul_add(b, c);
    if !vcc {
        r
    } else if exp32(c) > 127 {
        ldexp32(r, -64)
    } else {
        ldexp32(r, 64)
    }
}
pub fn div_fmas64(a: f64, b: f64, c: f64, vcc: bool) -> f64 {
    let r = a.mul_add(b, c);
    if !vcc {
        r
    } else if exp64(c) > 1023 {
        ldexp64(r, -128)
    } else {
        ldexp64(r, 128)
    }
}

/// V_DIV_FIXUP: s0 quotient, s1 denominator, s2 numerator (computed in f64 for every width).
pub fn div_fixup(s0: f64, s1: f64, s2: f64, max_exp_diff: i32, exp1: i32, exp2: i32, emax: i32) -> f64 {
    let neg = s1.is_sign_negative() != s2.is_sign_negative();
    let sgn = |v: f64| if neg { -v } else { v };
    if s2.is_nan() {
        s2
    } else if s1.is_nan() {
        s1
    } else if (s1 == 0.0 && s2 == 0.0) || (s1.is_infinite() && s2.is_infinite()) {
        f64::NAN
    } else if s1 == 0.0 || s2.is_infinite() {
        sgn(f64::INFINITY)
    } else if s1.is_infinite() || s2 == 0.0 || exp2 - exp1 < -max_exp_diff {
        sgn(0.0)
    } else if exp1 == emax {
        sgn(f64::INFINITY)
    } else if s0.is_nan() {
        // The iteration produced NaN where the inputs were finite: the hardware returns the
        // properly signed quotient of the host's division.
        sgn((s2 / s1).abs())
    } else {
        sgn(s0.abs())
    }
}

/// V_CMP_CLASS mask bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denorm, 5 -0, 6 +0, 7 +denorm,
/// 8 +normal, 9 +inf.
pub fn class64(x: f64, quiet_bit: bool) -> u32 {
    let n = x.is_sign_negative();
    let bit = if x.is_nan() {
        if quiet_bit {
            1
        } else {
            0
        }
    } else if x.is_infinite() {
        if n {
            2
        } else {
            9
        }
    } else if x == 0.0 {
        if n {
            5
        } else {
            6
        }
    } else if x.is_subnormal() {
        if n {
            4
        } else {
            7
        }
    } else if n {
        3
    } else {
        8
    };
    1 << bit
}

pub fn class32(x: f32) -> u32 {
    if x.is_subnormal() {
        return if x < 0.0 { 1 << 4 } else { 1 << 7 };
    }
    class64(x as f64, x.to_bits() & 0x40_0000 != 0)
}
pub fn class16(x: u16) -> u32 {
    let exp = (x >> 10) & 0x1f;
    let neg = x & 0x8000 != 0;
    if exp == 0 && x & 0x3ff != 0 {
        return if neg { 1 << 4 } else { 1 << 7 };
    }
    if exp == 0x1f && x & 0x3ff != 0 {
        return if x & 0x200 != 0 { 2 } else { 1 };
    }
    class64(f16_to_f32(x) as f64, false)
}
pub fn class_f64(x: f64) -> u32 {
    if x.is_subnormal() {
        return if x < 0.0 { 1 << 4 } else { 1 << 7 };
    }
    class64(x, x.to_bits() & (1u64 << 51) != 0)
}

/// Float -> int conversions saturate and map NaN to 0, as the hardware does.
pub fn f2i(x: f64) -> i32 {
    if x.is_nan() {
        0
    } else {
        x.clamp(i32::MIN as f64, i32::MAX as f64) as i32
    }
}
pub fn f2u(x: f64) -> u32 {
    if x.is_nan() {
        0
    } else {
        x.clamp(0.0, u32::MAX as f64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trip() {
        for h in 0..=0xffffu16 {
            let f = f16_to_f32(h);
            if f.is_nan() {
                continue;
            }
            assert_eq!(f32_to_f16(f), h, "{h:#x}");
        }
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00, "tie to even");
        assert_eq!(f32_to_f16(1.0 + 3.0 / 2048.0), 0x3c02);
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(65519.0), 0x7bff);
    }
}
