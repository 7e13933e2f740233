//! gfx950 conversions on the CDNA wave interpreter, in kernels built with our assembler,
//! against plain-Rust expectations from the CDNA4 ISA guide's definitions.

use crate::asm::run;

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

#[test]
fn mad_u32_u16_and_mad_i32_i16() {
    // v2 = lane | 0xfff0 << 16 (op_sel picks the high half of src1); v3 = 7 - lane.
    let src = "v_lshlrev_b32 v1, 16, v0\nv_or_b32 v2, 0xfff00000, v0\nv_sub_u32 v3, 7, v0\n\
               v_mad_u32_u16 v4, v2, v2, v3 op_sel:[0,1,0,0]\nv_mad_i32_i16 v5, v2, v2, v3 op_sel:[0,1,0,0]\n\
               v_lshlrev_b32 v1, 3, v0\nglobal_store_dwordx2 v1, v[4:5], s[0:1]\ns_endpgm\n";
    let mut buf = vec![0u32; 128];
    run("gfx942", src, &mut buf, 0);
    for l in 0..64u32 {
        let c = 7u32.wrapping_sub(l);
        let u = (l * 0xfff0).wrapping_add(c);
        let i = (l as i32 * -16).wrapping_add(c as i32) as u32;
        assert_eq!(buf[2 * l as usize..2 * l as usize + 2], [u, i], "lane {l}");
    }
}

/// f16 bits of a small integer (exact).
fn h16(n: i32) -> u32 {
    if n == 0 {
        return 0;
    }
    let f = (n as f32).to_bits();
    (f >> 31) << 15 | (((f >> 23 & 0xff) as i32 - 127 + 15) as u32) << 10 | (f & 0x7f_ffff) >> 13
}

#[test]
fn packed_16bit_float_atomic_adds() {
    // Every lane adds (1, 2) as f16 to word 0 (global) and (1, -3) as bf16 to LDS word 0 (ds,
    // returning); small integers keep every partial sum exact. Word 1 gets lane's own add only.
    let src = format!(
        "v_mov_b32 v2, {f16:#x}\nv_mov_b32 v1, 0\nglobal_atomic_pk_add_f16 v1, v2, s[0:1]\n\
         v_mov_b32 v3, {bf:#x}\nds_write_b32 v1, v1\ns_waitcnt lgkmcnt(0)\nds_pk_add_rtn_bf16 v4, v1, v3\n\
         s_waitcnt vmcnt(0) lgkmcnt(0)\nds_read_b32 v5, v1\ns_waitcnt lgkmcnt(0)\n\
         global_store_dword v1, v5, s[0:1] offset:4\ns_endpgm\n",
        f16 = h16(1) | h16(2) << 16,
        bf = (1f32.to_bits() >> 16) | ((-3f32).to_bits() >> 16) << 16
    );
    let mut buf = vec![0u32; 4];
    buf[0] = h16(10) | h16(-100) << 16;
    run("gfx950", &src, &mut buf, 256);
    assert_eq!(buf[0], h16(10 + 64) | h16(-100 + 128) << 16, "{:#x}", buf[0]);
    assert_eq!(buf[1], (64f32.to_bits() >> 16) | ((-192f32).to_bits() >> 16) << 16, "{:#x}", buf[1]);
}
