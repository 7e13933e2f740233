//! gfx950's scaled conversions (`v_cvt_scalef32_*`) on the CDNA wave interpreter, against the
//! spec-derived references of minifloat.rs. The scale is an f32 power of two 2^s (an E8M0
//! block scale as an f32, as composable_kernel and Triton pass it): a conversion to a narrow
//! format converts x / 2^s, one from a narrow format gives value × 2^s (CDNA4 ISA guide).
//! Operand selects as clang-22 lowers the `__builtin_amdgcn_cvt_scalef32_*` builtins: source
//! byte = op_sel[0] | op_sel[1] << 1, source word = op_sel[0], destination byte =
//! op_sel[2] | op_sel[3] << 1, destination word or half = op_sel[3].

use crate::minifloat::{per_lane, F};

/// Lane l's scale exponent: −3..=4.
fn sexp(l: usize) -> i32 {
    (l % 8) as i32 - 3
}
fn scale_bits(l: usize) -> u32 {
    ((127 + sexp(l)) as u32) << 23
}

/// f16 bits → value (IEEE binary16).
fn f16(h: u32) -> f64 {
    let (e, m) = ((h >> 10) & 31, (h & 1023) as f64);
    let v = match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e as i32 - 15),
    };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

fn lcg(seed: &mut u64) -> u32 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 33) as u32
}

/// A value near the range of `f` (× the lane's scale): a pattern's value or a point between.
fn sample(f: F, seed: &mut u64, l: usize) -> f32 {
    let c = lcg(seed) % (f.max_code() + 1);
    let t = (lcg(seed) % 9) as f64 / 8.0;
    let v = f.value(c) + t * (f.value((c + 1).min(f.max_code())) - f.value(c));
    let s = if lcg(seed) & 1 == 0 { v } else { -v };
    (s * 2f64.powi(sexp(l))) as f32
}

fn same(f: F, got: u32, want: u32) -> bool {
    got == want || (f.value(got).is_nan() && f.value(want).is_nan())
}

#[test]
fn scalef32_pk_to_fp8_bf8_fp4_divides_by_the_scale() {
    let mut seed = 7;
    for (f, op, bits) in [
        (F::E4m3, "v_cvt_scalef32_pk_fp8_f32", 8),
        (F::E5m2, "v_cvt_scalef32_pk_bf8_f32", 8),
        (F::E2m1, "v_cvt_scalef32_pk_fp4_f32", 4),
    ] {
        let mut input = vec![];
        for l in 0..64 {
            input.extend((0..4).map(|_| sample(f, &mut seed, l).to_bits()));
            input.push(scale_bits(l));
        }
        // fp8: the two words; fp4: bytes 1 and 2 (byte 0 and 3 kept).
        let (s0, s1) = if bits == 8 { ("", "op_sel:[0,0,0,1]") } else { ("op_sel:[0,0,1,0]", "op_sel:[0,0,0,1]") };
        let body = format!("{op} v64, v16, v17, v20 {s0}\n{op} v64, v18, v19, v20 {s1}\n");
        let out = per_lane("gfx950", 5, &input, 1, &[0xa5a5_a5a5; 64], &body);
        for l in 0..64 {
            let x: Vec<f64> = (0..4).map(|k| f32::from_bits(input[5 * l + k]) as f64 / 2f64.powi(sexp(l))).collect();
            let w = out[l];
            let (first, width) = if bits == 8 { (0, 8) } else { (8, 4) };
            for (k, x) in x.iter().enumerate() {
                let got = w >> (first + width * k) & ((1 << width) - 1);
                let want = f.nearest(*x);
                assert!(same(f, got, want), "{op} lane {l} element {k}: {x:e} → {got:#x}, want {want:#x}");
            }
            if bits == 4 {
                assert_eq!(w & 0xff0000ff, 0xa50000a5, "{op}: bytes 0 and 3 kept");
            }
        }
    }
}

#[test]
fn scalef32_from_fp8_bf8_fp4_multiplies_by_the_scale() {
    // Lane l's source dword: patterns 4l..4l+3 (fp4: the same bytes, two patterns each).
    let input: Vec<u32> = (0..64u32)
        .flat_map(|l| [u32::from_le_bytes([0, 1, 2, 3].map(|b| (4 * l + b) as u8)), scale_bits(l as usize)])
        .collect();
    for (f, t) in [(F::E4m3, "fp8"), (F::E5m2, "bf8")] {
        let body = format!(
            "v_cvt_scalef32_f32_{t} v64, v16, v17\nv_cvt_scalef32_f32_{t} v65, v16, v17 op_sel:[1,0,0]\n\
             v_cvt_scalef32_f32_{t} v66, v16, v17 op_sel:[0,1,0]\nv_cvt_scalef32_f32_{t} v67, v16, v17 op_sel:[1,1,0]\n\
             v_cvt_scalef32_pk_f32_{t} v[68:69], v16, v17\nv_cvt_scalef32_pk_f32_{t} v[70:71], v16, v17 op_sel:[1,0,0]\n\
             v_cvt_scalef32_f16_{t} v72, v16, v17 op_sel:[0,1,1]\nv_cvt_scalef32_pk_f16_{t} v73, v16, v17 op_sel:[1,0,0]\n\
             v_cvt_scalef32_pk_bf16_{t} v74, v16, v17\n"
        );
        let out = per_lane("gfx950", 2, &input, 11, &[0x1234_5678; 64 * 11], &body);
        for l in 0..64 {
            let o = &out[11 * l..11 * l + 11];
            let want = |b: usize| f.value(4 * l as u32 + b as u32) * 2f64.powi(sexp(l));
            let eq = |g: f64, w: f64| {
                g == w || (g.is_nan() && w.is_nan()) || (w.abs() > 65504.0 && g == w.signum() * f64::INFINITY)
            };
            for b in 0..4 {
                assert!(eq(f32::from_bits(o[b]) as f64, want(b)), "{t} lane {l} byte {b}");
                assert!(eq(f32::from_bits(o[4 + b]) as f64, want(b)), "{t} lane {l} packed {b}");
            }
            assert!(
                eq(f16(o[8] >> 16), want(2)) && o[8] & 0xffff == 0x5678,
                "{t} lane {l}: f16 of byte 2 in the high half"
            );
            assert!(eq(f16(o[9] & 0xffff), want(2)) && eq(f16(o[9] >> 16), want(3)), "{t} lane {l}: pk f16 word 1");
            let bf = |h: u32| f32::from_bits(h << 16) as f64;
            assert!(eq(bf(o[10] & 0xffff), want(0)) && eq(bf(o[10] >> 16), want(1)), "{t} lane {l}: pk bf16");
        }
    }
    let body = "v_cvt_scalef32_pk_f32_fp4 v[64:65], v16, v17 op_sel:[0,1,0]\nv_cvt_scalef32_pk_f16_fp4 v66, v16, v17 op_sel:[1,1,0]\n";
    let out = per_lane("gfx950", 2, &input, 3, &[0; 64 * 3], body);
    for l in 0..64 {
        let byte = |b: u32| (4 * l as u32 + b) & 0xff;
        let want = |c: u32| F::E2m1.value(c) * 2f64.powi(sexp(l));
        let o = &out[3 * l..3 * l + 3];
        assert_eq!(f32::from_bits(o[0]) as f64, want(byte(2) & 15), "fp4 lane {l} byte 2 low");
        assert_eq!(f32::from_bits(o[1]) as f64, want(byte(2) >> 4), "fp4 lane {l} byte 2 high");
        assert_eq!((f16(o[2] & 0xffff), f16(o[2] >> 16)), (want(byte(3) & 15), want(byte(3) >> 4)), "fp4 lane {l} f16");
    }
}

#[test]
fn scalef32_pk32_fp6_bf6_pack_32_elements_in_six_dwords() {
    let mut seed = 11;
    for (f, t) in [(F::E2m3, "fp6"), (F::E3m2, "bf6")] {
        // f32 → 6-bit: two sets of 16 (src0 elements 0..15, src1 16..31).
        let mut input = vec![];
        for l in 0..64 {
            input.extend((0..32).map(|_| sample(f, &mut seed, l).to_bits()));
        }
        let scales: Vec<u32> = (0..64).map(scale_bits).collect();
        let body = format!("v_mov_b32 v70, v64\nv_cvt_scalef32_2xpk16_{t}_f32 v[64:69], v[16:31], v[32:47], v70\n");
        let out = per_lane("gfx950", 32, &input, 6, &expand(&scales, 6), &body);
        for l in 0..64 {
            for e in 0..32 {
                let x = f32::from_bits(input[32 * l + e]) as f64 / 2f64.powi(sexp(l));
                let got = elem6(&out[6 * l..6 * l + 6], e);
                assert_eq!(got, f.nearest(x), "{t} lane {l} element {e}: {x:e}");
            }
        }
        // 6-bit → f32 and → f16: random patterns.
        let codes: Vec<u32> = (0..64 * 6).map(|_| lcg(&mut seed)).collect();
        let mut input = codes.clone();
        for l in 0..64 {
            input.insert(7 * l + 6, scale_bits(l));
        }
        let body = format!("v_cvt_scalef32_pk32_f32_{t} v[64:95], v[16:21], v22\n");
        let out = per_lane("gfx950", 7, &input, 32, &[0; 64 * 32], &body);
        let body = format!("v_cvt_scalef32_pk32_f16_{t} v[64:79], v[16:21], v22\n");
        let half = per_lane("gfx950", 7, &input, 16, &[0; 64 * 16], &body);
        for l in 0..64 {
            for e in 0..32 {
                let want = f.value(elem6(&codes[6 * l..6 * l + 6], e)) * 2f64.powi(sexp(l));
                assert_eq!(f32::from_bits(out[32 * l + e]) as f64, want, "{t} lane {l} element {e}");
                let h = half[16 * l + e / 2] >> (16 * (e % 2)) & 0xffff;
                assert_eq!(f16(h), want, "{t} → f16 lane {l} element {e}");
            }
        }
    }
}

/// Each lane's value repeated `n` times.
fn expand(v: &[u32], n: usize) -> Vec<u32> {
    v.iter().flat_map(|&x| std::iter::repeat_n(x, n)).collect()
}

/// The 6-bit element `e` of packed dwords (element e at bits 6e..6e+6).
fn elem6(w: &[u32], e: usize) -> u32 {
    let bit = 6 * e;
    let pair = w[bit / 32] as u64 | (*w.get(bit / 32 + 1).unwrap_or(&0) as u64) << 32;
    (pair >> (bit % 32)) as u32 & 63
}

#[test]
fn scalef32_stochastic_rounding_truncates_with_zero_bits_and_rounds_up_with_ones() {
    let mut seed = 3;
    for (f, op) in [(F::E4m3, "v_cvt_scalef32_sr_fp8_f32"), (F::E5m2, "v_cvt_scalef32_sr_bf8_f32")] {
        let mut input = vec![];
        for l in 0..64 {
            input.extend([sample(f, &mut seed, l).to_bits(), 0, u32::MAX, scale_bits(l)]);
        }
        let body = format!("{op} v64, v16, v17, v19 op_sel:[0,0,1,0]\n{op} v64, v16, v18, v19 op_sel:[0,0,1,1]\n");
        let out = per_lane("gfx950", 4, &input, 1, &[0x7777_7777; 64], &body);
        for l in 0..64 {
            let x = f32::from_bits(input[4 * l]) as f64 / 2f64.powi(sexp(l));
            let w = out[l];
            let (down, up) = (w >> 8 & 0xff, w >> 24);
            let (lo, hi) = f.bracket(x.abs().min(f.value(f.max_code())));
            let sign = if x.is_sign_negative() { 0x80 } else { 0 };
            let exact = f.value(lo) == x.abs();
            assert_eq!(down, lo | sign, "{op} lane {l}: {x:e} truncates");
            let want_up = if exact { lo } else { hi };
            assert_eq!(up, want_up | sign, "{op} lane {l}: {x:e} rounds up");
            assert_eq!(w & 0x00ff_00ff, 0x0077_0077, "{op}: bytes 0 and 2 kept");
        }
    }
}
