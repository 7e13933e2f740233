//! The narrow-format conversions and transposing LDS reads as clang-22 builds them from the
//! builtins (tests/kernels/cdna_cvt8.cl, tests/fixtures/cdna/build.sh), run directly and
//! through the driver: what each builtin's byte/word argument selects is clang's definition,
//! independent of how the interpreter decodes the op_sel and SDWA fields clang emits; the
//! values come from the spec-derived references of minifloat.rs.

use crate::common::wave::{load, run, Arg, Buf, Program};
use crate::minifloat::F;

fn program(arch: &'static str) -> Program {
    load(&format!("cdna/cvt8-{arch}.hsaco"), arch)
}

const ARCHS: [(&str, F, F); 2] = [("gfx942", F::E4m3Fnuz, F::E5m2Fnuz), ("gfx950", F::E4m3, F::E5m2)];

fn same(f: F, got: u32, want: u32) -> bool {
    got == want || (f.value(got).is_nan() && f.value(want).is_nan())
}

fn values(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i as f32 * 0.37).sin() * 2f32.powi(i as i32 % 24 - 12)).collect()
}

#[test]
fn clang_fp8_pack_unpack_and_stochastic_builtins() {
    for (arch, fp8, bf8) in ARCHS {
        let p = program(arch);
        let x = values(256);
        let (bx, bo) = (Buf::from(&x), Buf::new(128 * 4));
        run(&p, "fp8_pack", &[Arg::Buf(&bx), Arg::Buf(&bo)], [1, 1, 1], [64, 1, 1]);
        let out: Vec<u32> = bo.get(128);
        for i in 0..64 {
            let (w, b) = (out[2 * i], out[2 * i + 1]);
            for k in 0..4 {
                let want = fp8.nearest(x[4 * i + k] as f64);
                assert!(same(fp8, w >> (8 * k) & 0xff, want), "{arch} fp8_pack lane {i} byte {k}");
            }
            for k in 0..2 {
                assert!(same(bf8, b >> (16 + 8 * k) & 0xff, bf8.nearest(x[4 * i + k] as f64)), "{arch} bf8 {i}");
            }
            assert_eq!(b & 0xffff, 0x5a5a, "{arch}: the builtin's old value keeps word 0");
        }
        let words: Vec<u32> = (0..64u32).map(|i| 0x0403_0201u32.wrapping_mul(4 * i + 1) ^ i << 24).collect();
        let (bw, bf) = (Buf::from(&words), Buf::new(64 * 8 * 4));
        run(&p, "fp8_unpack", &[Arg::Buf(&bw), Arg::Buf(&bf)], [1, 1, 1], [64, 1, 1]);
        let f: Vec<f32> = bf.get(64 * 8);
        for i in 0..64 {
            let byte = |k: u32| words[i] >> (8 * k) & 0xff;
            let wants = [0, 1, 2, 3].map(|k| fp8.value(byte(k))).into_iter().chain([
                bf8.value(byte(2)),
                bf8.value(byte(3)),
                fp8.value(byte(0)),
                fp8.value(byte(1)),
            ]);
            for (k, want) in wants.enumerate() {
                let g = f[8 * i + k] as f64;
                assert!(g == want || (g.is_nan() && want.is_nan()), "{arch} fp8_unpack lane {i} [{k}]: {g} {want}");
            }
        }
        // Random 0 truncates, all-ones rounds up; into byte 2.
        let rnd: Vec<u32> = (0..64).map(|i| if i % 2 == 0 { 0 } else { u32::MAX }).collect();
        let xs: Vec<f32> = (0..64).map(|i| 1.0 + (i as f32 + 0.3) / 70.0).collect();
        let (bx, br, bo) = (Buf::from(&xs), Buf::from(&rnd), Buf::new(64 * 4));
        run(&p, "fp8_sr", &[Arg::Buf(&bx), Arg::Buf(&br), Arg::Buf(&bo)], [1, 1, 1], [64, 1, 1]);
        let out: Vec<u32> = bo.get(64);
        for i in 0..64 {
            let (lo, hi) = fp8.bracket(xs[i] as f64);
            let want = if i % 2 == 0 { lo } else { hi };
            assert_eq!(out[i], 0x5a00_5a5a | want << 16, "{arch} fp8_sr lane {i}");
        }
    }
}

#[test]
fn clang_scalef32_and_transpose_builtins_on_gfx950() {
    let p = program("gfx950");
    let x = values(256);
    let s: Vec<f32> = (0..64).map(|i| 2f32.powi(i % 7 - 3)).collect();
    let (bx, bs, bo) = (Buf::from(&x), Buf::from(&s), Buf::new(128 * 4));
    run(&p, "scale_pack", &[Arg::Buf(&bx), Arg::Buf(&bs), Arg::Buf(&bo)], [1, 1, 1], [64, 1, 1]);
    let out: Vec<u32> = bo.get(128);
    for i in 0..64 {
        let y = |k: usize| x[4 * i + k] as f64 / s[i] as f64;
        let (w, q) = (out[2 * i], out[2 * i + 1]);
        assert_eq!(w & 0xffff, 0x1234, "scale_pack lane {i}: word 0 kept");
        for k in 0..2 {
            assert!(same(F::E4m3, w >> (16 + 8 * k) & 0xff, F::E4m3.nearest(y(k))), "scale_pack fp8 lane {i}");
            assert_eq!(q >> (16 + 4 * k) & 0xf, F::E2m1.nearest(y(2 + k)), "scale_pack fp4 lane {i}");
        }
        assert_eq!(q & 0xff00_ffff, 0x5a00_5a5a, "scale_pack lane {i}: bytes 0, 1, 3 kept");
    }
    let words: Vec<u32> = (0..64u32).map(|i| 0x9e37_79b9u32.wrapping_mul(i + 1)).collect();
    let (bw, bf) = (Buf::from(&words), Buf::new(64 * 3 * 4));
    run(&p, "scale_unpack", &[Arg::Buf(&bw), Arg::Buf(&bs), Arg::Buf(&bf)], [1, 1, 1], [64, 1, 1]);
    let f: Vec<f32> = bf.get(64 * 3);
    for i in 0..64 {
        let sc = s[i] as f64;
        let want = [
            F::E4m3.value(words[i] >> 24) * sc,
            F::E2m1.value(words[i] >> 8 & 15) * sc,
            F::E2m1.value(words[i] >> 12 & 15) * sc,
        ];
        for k in 0..3 {
            let g = f[3 * i + k] as f64;
            assert!(g == want[k] || (g.is_nan() && want[k].is_nan()), "scale_unpack lane {i} [{k}]");
        }
    }
    // Transposing reads of one wave's 512 bytes, each byte (half) its own index.
    let bytes: Vec<u8> = (0..512u32).map(|b| (b * 7 + b / 256) as u8).collect();
    let (bb, bo) = (Buf::from(&bytes), Buf::new(512));
    run(&p, "tr8", &[Arg::Buf(&bb), Arg::Buf(&bo)], [1, 1, 1], [64, 1, 1]);
    let got: Vec<u8> = bo.get(512);
    for l in 0..64 {
        let (blk, r) = (l / 16, l % 16);
        for j in 0..8 {
            // Lane r < 8: byte r of lanes 0, 2, ..; r >= 8: byte r - 8 of lanes 1, 3, ...
            let src = 16 * blk + 2 * j + r / 8;
            assert_eq!(got[8 * l + j], bytes[8 * src + r % 8], "tr8 lane {l} byte {j}");
        }
    }
    let halves: Vec<u16> = (0..256u16).collect();
    let (bh, bo) = (Buf::from(&halves), Buf::new(512));
    run(&p, "tr16", &[Arg::Buf(&bh), Arg::Buf(&bo)], [1, 1, 1], [64, 1, 1]);
    let got: Vec<u16> = bo.get(256);
    for l in 0..64 {
        let (blk, a, b) = (l / 16, (l % 16) / 4, l % 4);
        for j in 0..4 {
            // Lane 4a + b: element b of lanes a, a + 4, a + 8, a + 12.
            assert_eq!(got[4 * l + j] as usize, 4 * (16 * blk + a + 4 * j) + b, "tr16 lane {l} element {j}");
        }
    }
}
