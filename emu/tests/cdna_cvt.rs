//! gfx950 conversions on the CDNA wave interpreter, in kernels built with our assembler,
//! against plain-Rust expectations from the CDNA4 ISA guide's definitions.

#[path = "cdna/asm.rs"]
mod asm;

use asm::run;

/// bf16 nearest to `x`, ties to the even significand (from the values' distances in f64, not
/// from bit tricks); NaN: any bf16 NaN.
fn bf16_nearest(x: f32) -> u16 {
    let t = (x.to_bits() >> 16) as u16;
    if x.is_infinite() {
        return t;
    }
    let lo = f32::from_bits((t as u32) << 16) as f64;
    let up = t.wrapping_add(1);
    // Past the largest finite bf16 the next pattern is infinity: IEEE rounding measures the
    // distance to 2^128 there.
    let hi = if up & 0x7fff == 0x7f80 {
        2f64.powi(128).copysign(x as f64)
    } else {
        f32::from_bits((up as u32) << 16) as f64
    };
    let (dl, dh) = ((x as f64 - lo).abs(), (hi - x as f64).abs());
    if dl < dh || (dl == dh && t & 1 == 0) {
        t
    } else {
        up
    }
}

#[test]
fn v_cvt_pk_bf16_f32_rounds_to_nearest_even() {
    let vals: Vec<f32> = vec![
        1.0,
        1.0 + 1.0 / 256.0,
        1.0 + 3.0 / 256.0,
        1.0 + 1.0 / 256.0 + 1.0 / 65536.0,
        -2.5e-3,
        f32::MAX,
        -f32::MAX,
        f32::MIN_POSITIVE,
        1.0e-40,
        -0.0,
        f32::INFINITY,
        3.0e38,
        -1.0 - 3.0 / 256.0,
        0.1,
        123456.78,
        -7.0e-39,
    ];
    let mut buf = vec![0u32; 64 * 3];
    for l in 0..64 {
        buf[2 * l] = vals[l % vals.len()].to_bits();
        buf[2 * l + 1] = vals[(l * 7 + 3) % vals.len()].to_bits();
    }
    let src = "v_lshlrev_b32 v1, 3, v0\nglobal_load_dwordx2 v[2:3], v1, s[0:1]\ns_waitcnt vmcnt(0)\n\
               v_cvt_pk_bf16_f32 v4, v2, v3\nv_lshlrev_b32 v1, 2, v0\n\
               global_store_dword v1, v4, s[0:1] offset:512\ns_endpgm\n";
    let orig = buf.clone();
    run("gfx950", src, &mut buf, 0);
    for l in 0..64 {
        let (a, b) = (f32::from_bits(orig[2 * l]), f32::from_bits(orig[2 * l + 1]));
        let want = bf16_nearest(a) as u32 | (bf16_nearest(b) as u32) << 16;
        assert_eq!(buf[128 + l], want, "lane {l}: {a:e}, {b:e}");
    }
}

#[test]
fn v_cvt_pk_bf16_f32_keeps_nans() {
    let mut buf = vec![0u32; 64 * 2];
    buf[0] = 0x7f80_0001; // signalling NaN whose payload is below the bf16 bits
    buf[1] = 0xffc1_2345;
    let src = "global_load_dwordx2 v[2:3], v0, s[0:1]\ns_waitcnt vmcnt(0)\nv_cvt_pk_bf16_f32 v4, v2, v3\n\
               v_mov_b32 v1, 0\nglobal_store_dword v1, v4, s[0:1] offset:256\ns_endpgm\n";
    let src = src.replace("v0, s[0:1]\n", "v1, s[0:1]\n").replacen("global_load", "v_mov_b32 v1, 0\nglobal_load", 1);
    run("gfx950", &src, &mut buf, 0);
    let (lo, hi) = (buf[64] & 0xffff, buf[64] >> 16);
    let nan = |h: u32| h & 0x7f80 == 0x7f80 && h & 0x7f != 0;
    assert!(nan(lo) && nan(hi), "{:#x}", buf[64]);
    assert_eq!(hi & 0x8000, 0x8000, "the sign stays");
}

#[test]
fn v_cvt_f32_bf16_widens() {
    let mut buf = vec![0u32; 64 * 2];
    for l in 0..64u32 {
        buf[l as usize] = 0xdead_0000 | (l * 0x3f1 + 0x3c00) & 0xffff;
    }
    let src = "v_lshlrev_b32 v1, 2, v0\nglobal_load_dword v2, v1, s[0:1]\ns_waitcnt vmcnt(0)\n\
               v_cvt_f32_bf16 v3, v2\nv_cvt_f32_bf16_e64 v4, -v2\nv_sub_f32 v3, v3, v4\n\
               global_store_dword v1, v3, s[0:1] offset:256\ns_endpgm\n";
    let orig = buf.clone();
    run("gfx950", src, &mut buf, 0);
    for l in 0..64 {
        let x = f32::from_bits((orig[l] & 0xffff) << 16);
        let want = x - (-x);
        assert_eq!(buf[64 + l], want.to_bits(), "lane {l}");
    }
}
