//! FP8/BF8 conversions of gfx942 (FNUZ) and gfx950 (OCP) on the CDNA wave interpreter, in
//! kernels built with our assembler, against the spec-derived references of minifloat.rs.
//! Operand selects as clang-22 lowers `__builtin_amdgcn_cvt_pk_fp8_f32(a, b, old, word)`
//! (op_sel:[0,0,1] for the high word), `__builtin_amdgcn_cvt_sr_fp8_f32(x, r, old, byte)`
//! (op_sel:[0,0,b0,b1]) and `__builtin_amdgcn_cvt_f32_fp8(src, byte)` (SDWA BYTE_n).

use crate::minifloat::{per_lane, probes, F};

const ARCHS: [(&str, F, F); 2] = [("gfx942", F::E4m3Fnuz, F::E5m2Fnuz), ("gfx950", F::E4m3, F::E5m2)];

/// `got` is the reference pattern `want`, or both are NaN.
fn same(f: F, got: u32, want: u32) -> bool {
    got == want || (f.value(got).is_nan() && f.value(want).is_nan())
}

#[test]
fn v_cvt_pk_fp8_bf8_f32_round_to_nearest_even_with_overflow_rules() {
    for (arch, fp8, bf8) in ARCHS {
        for (f, op) in [(fp8, "v_cvt_pk_fp8_f32"), (bf8, "v_cvt_pk_bf8_f32")] {
            let vals = probes(f);
            let body = format!(
                "{op} v64, v16, v17\n{op} v64, v18, v19 op_sel:[0,0,1]\n{op} v65, v20, v21\n\
                 {op} v65, v22, v23 op_sel:[0,0,1]\n{op} v66, -v16, |v17| op_sel:[0,0,1]\n"
            );
            for chunk in vals.chunks(8 * 64) {
                let input: Vec<u32> = chunk.iter().map(|x| x.to_bits()).collect();
                let keep: Vec<u32> = (0..64 * 3).map(|k| 0x9e37_79b9u32.wrapping_mul(k as u32 + 1)).collect();
                let out = per_lane(arch, 8, &input, 3, &keep, &body);
                for (j, x) in chunk.iter().enumerate() {
                    let (l, k) = (j / 8, j % 8);
                    let got = out[3 * l + k / 4] >> (8 * (k % 4)) & 0xff;
                    let want = f.nearest(*x as f64);
                    assert!(same(f, got, want), "{arch} {op} {x:e}: {got:#x}, want {want:#x}");
                    if k < 2 {
                        // Source modifiers, into the high word; the low word is kept.
                        let y = if k == 0 { -*x } else { x.abs() };
                        let got = out[3 * l + 2] >> (16 + 8 * k) & 0xff;
                        assert!(same(f, got, f.nearest(y as f64)), "{arch} {op} modifiers {y:e}");
                    }
                }
                for l in 0..chunk.len().div_ceil(8) {
                    assert_eq!(out[3 * l + 2] & 0xffff, keep[3 * l + 2] & 0xffff, "{arch} {op}: the low word is kept");
                }
            }
        }
    }
}

#[test]
fn v_cvt_f32_fp8_bf8_decode_every_pattern_with_byte_and_word_selects() {
    for (arch, fp8, bf8) in ARCHS {
        for (f, t) in [(fp8, "fp8"), (bf8, "bf8")] {
            // Lane l holds patterns 4l..4l+3.
            let input: Vec<u32> =
                (0..64u32).map(|l| u32::from_le_bytes([0, 1, 2, 3].map(|b| (4 * l + b) as u8))).collect();
            let body = format!(
                "v_cvt_f32_{t}_e32 v64, v16\nv_cvt_f32_{t}_sdwa v65, v16 src0_sel:BYTE_1\n\
                 v_cvt_f32_{t}_sdwa v66, v16 src0_sel:BYTE_2\nv_cvt_f32_{t}_sdwa v67, v16 src0_sel:BYTE_3\n\
                 v_cvt_pk_f32_{t}_e32 v[68:69], v16\nv_cvt_pk_f32_{t}_sdwa v[70:71], v16 src0_sel:WORD_1\n"
            );
            let out = per_lane(arch, 1, &input, 8, &[0; 64 * 8], &body);
            for l in 0..64 {
                let got = &out[8 * l..8 * l + 8];
                for b in 0..4 {
                    let want = f.value(4 * l as u32 + b as u32);
                    for (what, g) in [("single", got[b]), ("packed", got[4 + b])] {
                        let g = f32::from_bits(g) as f64;
                        let ok = g == want || (g.is_nan() && want.is_nan());
                        assert!(ok, "{arch} {t} {what} pattern {:#x}: {g}, want {want}", 4 * l + b);
                    }
                }
            }
        }
    }
}

/// The random dwords that make lane l add l/64 of the result's step: the top 6 of the `d`
/// input bits below the result's last place (ROCm's model adds the low `d` bits).
fn rand(l: usize, d: u32) -> u32 {
    (l as u32) << (d - 6)
}

#[test]
fn v_cvt_sr_fp8_f32_rounds_by_the_random_bits_into_the_selected_byte() {
    for (arch, fp8, bf8) in ARCHS {
        for (f, op, d) in [(fp8, "v_cvt_sr_fp8_f32", 20), (bf8, "v_cvt_sr_bf8_f32", 21)] {
            // 5/16 of the way from 1.5 up to its neighbour (both normal in every format).
            let (lo, hi) = f.bracket(1.5);
            let step = f.value(hi) - f.value(lo);
            let x = (f.value(lo) + step * 5.0 / 16.0) as f32;
            let exact = f.value(lo + 1) as f32;
            let mut input = vec![];
            for l in 0..64 {
                input.extend([x.to_bits(), rand(l, d), exact.to_bits(), (-x).to_bits()]);
            }
            let body = format!(
                "{op} v64, v16, v17\n{op} v64, v18, v17 op_sel:[0,0,1,0]\n\
                 {op} v64, v19, v17 op_sel:[0,0,0,1]\nv_mov_b32 v65, 0\n{op} v65, v16, v65 op_sel:[0,0,1,1]\n\
                 v_mov_b32 v66, -1\n{op} v66, v16, v66\n"
            );
            let out = per_lane(arch, 4, &input, 3, &[0x5a5a_5a5a; 64 * 3], &body);
            let mut ups = 0;
            let sign = 1 << (f.bits() - 1);
            for l in 0..64 {
                let w = out[3 * l];
                let b0 = w & 0xff;
                assert!(b0 == lo || b0 == hi, "{arch} {op} lane {l}: {b0:#x} is neither neighbour");
                ups += (b0 == hi) as u32;
                assert_eq!(w >> 8 & 0xff, lo + 1, "{arch} {op}: an exact value stays");
                assert_eq!(w >> 16 & 0xff, b0 | sign, "{arch} {op}: -x rounds as x, by magnitude");
                assert_eq!(w >> 24, 0x5a, "{arch} {op}: byte 3 is kept");
                assert_eq!(out[3 * l + 1], lo << 24, "{arch} {op}: random 0 truncates, into byte 3");
                assert_eq!(out[3 * l + 2] & 0xff, hi, "{arch} {op}: all-ones random rounds up");
                assert_eq!(out[3 * l + 2] >> 8, 0xff_ffff, "{arch} {op}: bytes 1..3 kept");
            }
            assert_eq!(ups, 20, "{arch} {op}: 5/16 of the 64 evenly spread random values round up");
        }
    }
}

#[test]
fn v_cvt_sr_f16_bf16_f32_round_by_the_random_bits_into_the_selected_half() {
    // gfx950 `__builtin_amdgcn_cvt_sr_{f16,bf16}_f32(old, x, rand, hi)`: op_sel:[0,0,1] writes
    // the high half. 5/16 of a step above 1.5, with the random top bits spread over 64 lanes.
    for (op, lo, step, d) in
        [("v_cvt_sr_f16_f32", 0x3e00u32, 2f32.powi(-10), 13), ("v_cvt_sr_bf16_f32", 0x3fc0, 2f32.powi(-7), 16)]
    {
        let x = 1.5 + step * 5.0 / 16.0;
        let input: Vec<u32> = (0..64).flat_map(|l| [x.to_bits(), rand(l, d)]).collect();
        let body = format!("{op} v64, v16, v17 op_sel:[0,0,1]\n");
        let out = per_lane("gfx950", 2, &input, 1, &[0x1234_5678; 64], &body);
        let ups = out.iter().filter(|&&w| w >> 16 == lo + 1).count();
        assert!(out.iter().all(|&w| w >> 16 == lo || w >> 16 == lo + 1), "{op}: {out:x?}");
        assert!(out.iter().all(|&w| w & 0xffff == 0x5678), "{op}: the low half is kept");
        assert_eq!(out[0] >> 16, lo, "{op}: random 0 truncates");
        assert_eq!(ups, 20, "{op}: 5/16 of the lanes round up");
    }
}
