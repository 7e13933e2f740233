//! gfx9 dot products on the CDNA wave interpreter (VOP3P `v_dot*` and the VOP2 `v_dot*c`
//! forms, which accumulate into VDST), against the Vega/CDNA3 ISA guides' definition:
//! D = S2 + Σ S0[k] × S1[k] over the packed elements, integers summed exactly and wrapped to
//! 32 bits (CLAMP: saturated); the float forms with data whose products and sums are exact.

use crate::minifloat::per_lane;

fn lcg(seed: &mut u64) -> u32 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 32) as u32
}

/// The reference: `z + Σ x[k] × y[k]` over elements of `bits`.
fn dot(x: u32, y: u32, z: u32, bits: u32, signed: bool, clamp: bool) -> u32 {
    let el = |w: u32, k: u32| -> i64 {
        let e = ((w >> (k * bits)) as u64 & ((1u64 << bits) - 1)) as i64;
        if signed && e >= 1 << (bits - 1) {
            e - (1 << bits)
        } else {
            e
        }
    };
    let mut s = if signed { z as i32 as i64 } else { z as i64 };
    for k in 0..32 / bits {
        s += el(x, k) * el(y, k);
    }
    if clamp {
        s = if signed { s.clamp(i32::MIN as i64, i32::MAX as i64) } else { s.clamp(0, u32::MAX as i64) };
    }
    s as u32
}

#[test]
fn integer_dot_products_sum_exactly_wrap_or_clamp() {
    let mut seed = 5;
    let mut input = vec![];
    for _ in 0..64 {
        // Large accumulators so that clamping and wrapping show.
        input.extend([lcg(&mut seed), lcg(&mut seed), lcg(&mut seed) | 0x7ff0_0000]);
    }
    let ops = [
        ("v_dot2_i32_i16", 16, true),
        ("v_dot2_u32_u16", 16, false),
        ("v_dot4_i32_i8", 8, true),
        ("v_dot4_u32_u8", 8, false),
        ("v_dot8_i32_i4", 4, true),
        ("v_dot8_u32_u4", 4, false),
    ];
    let mut body = String::new();
    for (k, (op, _, _)) in ops.iter().enumerate() {
        body += &format!("{op} v{}, v16, v17, v18\n{op} v{}, v16, v17, v18 clamp\n", 64 + 2 * k, 65 + 2 * k);
    }
    for (k, op) in ["v_dot2c_i32_i16", "v_dot4c_i32_i8", "v_dot8c_i32_i4"].iter().enumerate() {
        body += &format!("v_mov_b32 v{r}, v18\n{op} v{r}, v16, v17\n", r = 76 + k);
    }
    for arch in ["gfx942", "gfx950"] {
        let out = per_lane(arch, 3, &input, 15, &[0; 64 * 15], &body);
        for l in 0..64 {
            let (x, y, z) = (input[3 * l], input[3 * l + 1], input[3 * l + 2]);
            for (k, (op, bits, signed)) in ops.iter().enumerate() {
                assert_eq!(out[15 * l + 2 * k], dot(x, y, z, *bits, *signed, false), "{arch} {op} lane {l}");
                assert_eq!(out[15 * l + 2 * k + 1], dot(x, y, z, *bits, *signed, true), "{arch} {op} clamp lane {l}");
            }
            for (k, bits) in [16, 8, 4].iter().enumerate() {
                assert_eq!(out[15 * l + 12 + k], dot(x, y, z, *bits, true, false), "{arch} dot{}c lane {l}", 32 / bits);
            }
        }
    }
}

#[test]
fn float_dot2_forms_read_both_halves_and_accumulate() {
    // Small integers: every product and sum exact in f32.
    let h = |n: i32| -> u32 { half::from_f32(n as f32) };
    let mut seed = 9;
    let mut input = vec![];
    for _ in 0..64 {
        let n: Vec<i32> = (0..5).map(|_| (lcg(&mut seed) % 41) as i32 - 20).collect();
        input.extend([h(n[0]) | h(n[1]) << 16, h(n[2]) | h(n[3]) << 16, (n[4] as f32).to_bits()]);
        input.extend([bf(n[0]) | bf(n[1]) << 16, bf(n[2]) | bf(n[3]) << 16]);
    }
    let body = "v_mov_b32 v64, v18\nv_dot2c_f32_f16 v64, v16, v17\nv_dot2_f32_f16 v65, v16, v17, v18\n\
                v_dot2_f32_bf16 v66, v19, v20, v18\nv_mov_b32 v67, v18\nv_dot2c_f32_bf16 v67, v19, v20\n";
    let out = per_lane("gfx950", 5, &input, 4, &[0; 64 * 4], body);
    for l in 0..64 {
        let i = &input[5 * l..5 * l + 5];
        let f16v = |w: u32, s: u32| half::to_f32((w >> s) & 0xffff);
        let want = f16v(i[0], 0) * f16v(i[1], 0) + f16v(i[0], 16) * f16v(i[1], 16) + f32::from_bits(i[2]);
        for k in 0..4 {
            assert_eq!(f32::from_bits(out[4 * l + k]), want, "lane {l} form {k}");
        }
    }
}

fn bf(n: i32) -> u32 {
    (n as f32).to_bits() >> 16
}

/// f16 of small integers (exact both ways).
mod half {
    pub fn from_f32(x: f32) -> u32 {
        if x == 0.0 {
            return 0;
        }
        let b = x.to_bits();
        let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
        (b >> 31) << 15 | (exp as u32) << 10 | (b & 0x7f_ffff) >> 13
    }
    pub fn to_f32(h: u32) -> f32 {
        if h & 0x7fff == 0 {
            return 0.0;
        }
        let exp = ((h >> 10) & 31) as i32 - 15 + 127;
        f32::from_bits((h >> 15) << 31 | (exp as u32) << 23 | (h & 1023) << 13)
    }
}
