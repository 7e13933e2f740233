//! The element and scale formats of OCP Microscaling (MX) v1.0: E2M1 (FP4) elements and E8M0
//! scales.
//!
//! E2M1: one sign bit, two exponent bits (bias 1), one mantissa bit; the codes 0..=7 are
//! 0, 0.5, 1, 1.5, 2, 3, 4, 6 and bit 3 is the sign. No infinity, no NaN. E8M0: the value
//! 2^(e - 127); e = 255 is NaN.

/// The magnitudes of the E2M1 codes 0..=7.
pub const E2M1_VALUES: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
/// The largest E2M1 magnitude.
pub const E2M1_MAX: f64 = 6.0;
/// The exponent of [`E2M1_MAX`]'s leading bit (emax of the element format, 6 = 1.5 * 2^2).
pub const E2M1_EMAX: i32 = 2;
/// The E8M0 bias; also the code of the scale 1.0.
pub const E8M0_BIAS: i32 = 127;
/// The E8M0 NaN code.
pub const E8M0_NAN: u8 = 0xff;

/// The value of an E2M1 code (the low four bits of `code`).
pub fn e2m1_to_f32(code: u8) -> f32 {
    let m = E2M1_VALUES[(code & 7) as usize];
    if code & 8 != 0 {
        -m
    } else {
        m
    }
}

/// The E2M1 code nearest to `x`, ties to the even code, magnitudes past 6 saturating to 6
/// (the MX spec's conversion for element formats without infinity). NaN gives +0.
pub fn f64_to_e2m1(x: f64) -> u8 {
    if x.is_nan() {
        return 0;
    }
    let sign = if x.is_sign_negative() { 8 } else { 0 };
    let a = x.abs();
    if a >= E2M1_MAX {
        return sign | 7;
    }
    // The codes below and above `a`; E2M1_VALUES is sorted.
    let hi = E2M1_VALUES.iter().position(|&v| f64::from(v) >= a).unwrap_or(7);
    if hi == 0 {
        return 0;
    }
    let (lo_v, hi_v) = (f64::from(E2M1_VALUES[hi - 1]), f64::from(E2M1_VALUES[hi]));
    let code = if a - lo_v < hi_v - a {
        hi - 1
    } else if a - lo_v > hi_v - a {
        hi
    } else if (hi - 1) % 2 == 0 {
        hi - 1
    } else {
        hi
    };
    // -0 stays +0: the sign of a zero code carries nothing.
    if code == 0 {
        0
    } else {
        sign | code as u8
    }
}

/// The value of an E8M0 scale code (NaN for 255).
pub fn e8m0_to_f64(code: u8) -> f64 {
    if code == E8M0_NAN {
        f64::NAN
    } else {
        2f64.powi(i32::from(code) - E8M0_BIAS)
    }
}

/// `floor(log2(a))` of a finite positive f64, exactly (from the bits).
pub fn floor_log2(a: f64) -> i32 {
    let bits = a.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: the leading one's position in the 52-bit fraction.
        let frac = bits & ((1u64 << 52) - 1);
        -1074 + (63 - frac.leading_zeros() as i32)
    } else {
        exp - 1023
    }
}

/// The shared scale of a block whose largest magnitude is `amax`, as the OCP MX v1.0 spec
/// computes it: X = 2^(floor(log2(amax)) - emax_elem), clamped to E8M0's range. A block of zeros
/// gets 1.0 (code 127; any scale would do); a non-finite `amax` gives NaN (code 255).
pub fn e8m0_for_amax(amax: f64) -> u8 {
    if !amax.is_finite() {
        return E8M0_NAN;
    }
    if amax == 0.0 {
        return E8M0_BIAS as u8;
    }
    let e = (floor_log2(amax) - E2M1_EMAX).clamp(-E8M0_BIAS, E8M0_BIAS);
    (e + E8M0_BIAS) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips() {
        for code in 0u8..16 {
            let v = e2m1_to_f32(code);
            let back = f64_to_e2m1(f64::from(v));
            // -0 (code 8) comes back as +0.
            assert_eq!(back, if code == 8 { 0 } else { code }, "code {code}");
        }
    }

    #[test]
    fn ties_go_to_the_even_code() {
        // Midpoints between neighbours: 0.25 0.75 1.25 1.75 2.5 3.5 5.
        let want = [(0.25, 0.0), (0.75, 1.0), (1.25, 1.0), (1.75, 2.0), (2.5, 2.0), (3.5, 4.0), (5.0, 4.0)];
        for (x, w) in want {
            assert_eq!(e2m1_to_f32(f64_to_e2m1(x)), w, "{x}");
            assert_eq!(e2m1_to_f32(f64_to_e2m1(-x)), -w, "-{x}");
        }
        assert_eq!(e2m1_to_f32(f64_to_e2m1(0.26)), 0.5);
        assert_eq!(e2m1_to_f32(f64_to_e2m1(5.01)), 6.0);
        assert_eq!(e2m1_to_f32(f64_to_e2m1(1e9)), 6.0);
        assert_eq!(e2m1_to_f32(f64_to_e2m1(-7.0)), -6.0);
    }

    #[test]
    fn scale_follows_the_spec_rule() {
        // amax 6 -> floor(log2 6) = 2 -> X = 2^0.
        assert_eq!(e8m0_for_amax(6.0), 127);
        assert_eq!(e8m0_for_amax(7.99), 127);
        assert_eq!(e8m0_for_amax(8.0), 128);
        assert_eq!(e8m0_for_amax(1.0), 125);
        assert_eq!(e8m0_for_amax(0.0), 127);
        assert_eq!(e8m0_for_amax(f64::INFINITY), 255);
        assert_eq!(e8m0_for_amax(f64::MIN_POSITIVE), 0);
        assert_eq!(e8m0_for_amax(2f64.powi(200)), 254);
        assert_eq!(floor_log2(5e-324), -1074);
        assert_eq!(e8m0_to_f64(127), 1.0);
        assert!(e8m0_to_f64(255).is_nan());
    }
}
