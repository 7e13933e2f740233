//! Rarely emitted VALU operations in clang-22 builds (tests/kernels/cdna_special.cl), run
//! directly and through the driver, against host references: `v_trig_preop_f64` in a
//! Payne–Hanek reduction checked against the host's `sin` (arguments up to 1.7e308, so the deep
//! bits of 2/π the instruction reads are checked), and `v_ashr_pk_u8_i32` as LLVM selects it.

use crate::common::wave::{load, run, Arg, Buf, Program};

const ARCHS: [&str; 2] = ["gfx942", "gfx950"];

fn program(arch: &'static str) -> Program {
    load(&format!("cdna/special-{arch}.hsaco"), arch)
}

/// A deterministic stream of u64.
fn randoms(n: usize, mut s: u64) -> Vec<u64> {
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
        .collect()
}

/// Arguments from 1 to f64::MAX: chosen ones (the exponent-1968 boundary of the 2^128 scaling
/// among them) and random ones of every exponent.
fn arguments() -> Vec<f64> {
    let mut x = vec![
        1.0,
        -3.0,
        1e5,
        123456789.0,
        1.5 * 2f64.powi(60),
        1e22,
        -1e22,
        1e100,
        5e200,
        1e300,
        -1e300,
        f64::MAX,
        2f64.powi(945),
        2f64.powi(944) * 1.999,
    ];
    for r in randoms(64 - x.len(), 0x9e37_79b9_7f4a_7c15) {
        let exp = 1023 + (r >> 53) % 1024;
        let sign = r >> 63 << 63;
        x.push(f64::from_bits(sign | exp << 52 | (r & ((1 << 52) - 1))));
    }
    x
}

/// x × 2/π modulo 4 from the kernel's exact product pairs: the quarter turns of x.
fn quarter_turns(o: &[f64]) -> f64 {
    // Each product's high part modulo 4 is exact (it is a multiple of its ulp).
    let m4 = |h: f64| h - 4.0 * (h / 4.0).floor();
    (m4(o[3]) + o[4] + m4(o[5]) + o[6] + o[7] + o[8]).rem_euclid(4.0)
}

#[test]
fn clang_trig_preop_reduction_matches_host_sin() {
    let x = arguments();
    for arch in ARCHS {
        let p = program(arch);
        let (bx, bo) = (Buf::from(&x), Buf::new(64 * 9 * 8));
        run(&p, "trig_reduce", &[Arg::Buf(&bx), Arg::Buf(&bo)], [1, 1, 1], [64, 1, 1]);
        let out: Vec<f64> = bo.get(64 * 9);
        for (l, &v) in x.iter().enumerate() {
            let o = &out[9 * l..9 * l + 9];
            if v.abs() < 2f64.powi(54) {
                // No bits skipped: the first two segments are 2/π to 106 bits.
                assert!(
                    o[0] <= std::f64::consts::FRAC_2_PI && o[0] + o[1] == std::f64::consts::FRAC_2_PI,
                    "{arch} {v}: {o:?}"
                );
            }
            let t = quarter_turns(o);
            let (q, th) = (t.floor(), (t - t.floor()) * std::f64::consts::FRAC_PI_2);
            let s = [th.sin(), th.cos(), -th.sin(), -th.cos()][q as usize % 4];
            assert!((s - v.sin()).abs() < 1e-12, "{arch} lane {l}: sin({v:e}) = {}, reduced {t}: {s}", v.sin());
        }
    }
}

#[test]
fn clang_ashr_pack_saturates_to_bytes() {
    let r = randoms(64 * 3, 0x1234_5678_9abc_def1);
    // Values around the byte range after the shift, and shifts past 31 (OpenCL masks them).
    let a: Vec<i32> = (0..64)
        .flat_map(|l| {
            let s = (r[3 * l + 2] % 40) as i32;
            let v = |w: u64| ((w as i32) >> (w % 31)) << (s & 31) >> 1;
            [v(r[3 * l]), v(r[3 * l + 1]), s]
        })
        .collect();
    for arch in ARCHS {
        let p = program(arch);
        let (ba, bo) = (Buf::from(&a), Buf::new(64 * 2));
        run(&p, "ashr_pack", &[Arg::Buf(&ba), Arg::Buf(&bo)], [1, 1, 1], [64, 1, 1]);
        let out: Vec<u16> = bo.get(64);
        for l in 0..64 {
            let (x, y, s) = (a[3 * l], a[3 * l + 1], a[3 * l + 2] & 31);
            let b = |v: i32| (v >> s).clamp(0, 255) as u16;
            assert_eq!(out[l], b(x) | b(y) << 8, "{arch} lane {l}: {x} {y} >> {s}");
        }
    }
}
