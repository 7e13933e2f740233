//! Scalar arithmetic the ALUs share: bit casts, min/max/median, bit fields, output modifiers.

use super::*;

pub(super) fn f(x: u64) -> f32 {
    f32::from_bits(x as u32)
}
pub(super) fn fb(x: f32) -> u64 {
    x.to_bits() as u64
}
pub(super) fn d(x: u64) -> f64 {
    f64::from_bits(x)
}
pub(super) fn db(x: f64) -> u64 {
    x.to_bits()
}
pub(super) fn hf(x: u64) -> f32 {
    f16_to_f32(x as u16)
}
pub(super) fn hb(x: f32) -> u64 {
    f32_to_f16(x) as u64
}
pub(super) fn sx16(x: u64) -> i32 {
    x as u16 as i16 as i32
}

pub(super) fn min3<T: PartialOrd + Copy>(a: T, b: T, c: T) -> T {
    let m = if b < a { b } else { a };
    if c < m {
        c
    } else {
        m
    }
}
pub(super) fn max3<T: PartialOrd + Copy>(a: T, b: T, c: T) -> T {
    let m = if b > a { b } else { a };
    if c > m {
        c
    } else {
        m
    }
}
pub(super) fn med3<T: PartialOrd + Copy>(a: T, b: T, c: T) -> T {
    let mx = max3(a, b, c);
    if mx == a {
        if b > c {
            b
        } else {
            c
        }
    } else if mx == b {
        if a > c {
            a
        } else {
            c
        }
    } else if a > b {
        a
    } else {
        b
    }
}
pub(super) fn fmed3(a: f32, b: f32, c: f32) -> f32 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return a.min(b).min(c);
    }
    med3(a, b, c)
}
pub(super) fn fmin(a: f32, b: f32) -> f32 {
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}
pub(super) fn fmax(a: f32, b: f32) -> f32 {
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}
pub(super) fn dmin(a: f64, b: f64) -> f64 {
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}
pub(super) fn dmax(a: f64, b: f64) -> f64 {
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}
pub(super) fn bfe(x: u32, off: u32, w: u32) -> u32 {
    let (off, w) = (off & 31, w & 31);
    if w == 0 {
        0
    } else {
        (x >> off) & (((1u64 << w) - 1) as u32)
    }
}
pub(super) fn bfe_i(x: u32, off: u32, w: u32) -> u32 {
    let (off, w) = (off & 31, w & 31);
    if w == 0 {
        0
    } else {
        let v = (x >> off) as i32;
        let sh = 32 - w;
        ((v << sh) >> sh) as u32
    }
}
pub(super) fn perm(a: u32, b: u32, sel: u32) -> u32 {
    let bytes = ((a as u64) << 32) | b as u64;
    let mut r = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) & 0xff;
        let v: u32 = match s {
            0..=7 => ((bytes >> (8 * s)) & 0xff) as u32,
            8 => {
                if bytes >> 15 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            9 => {
                if bytes >> 31 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            10 => {
                if bytes >> 47 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            11 => {
                if bytes >> 63 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        r |= v << (8 * k);
    }
    r
}
pub(super) fn cls32(x: i32) -> u32 {
    if x == 0 || x == -1 {
        u32::MAX
    } else {
        (if x < 0 { (!x).leading_zeros() } else { x.leading_zeros() }) - 1 + 1
    }
}

/// gfx950 `v_bitop3`: each result bit is `table[s0 << 2 | s1 << 1 | s2]` of the source bits.
pub(super) fn bitop3(table: u8, a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for k in 0..8 {
        if table >> k & 1 != 0 {
            let pick = |x: u32, bit: u32| if k >> bit & 1 != 0 { x } else { !x };
            r |= pick(a, 2) & pick(b, 1) & pick(c, 0);
        }
    }
    r
}

pub(super) fn omod32(x: f32, omod: u8, clamp: bool) -> f32 {
    let x = match omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if clamp {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    }
}
pub(super) fn omod64(x: f64, omod: u8, clamp: bool) -> f64 {
    let x = match omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if clamp {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    }
}
