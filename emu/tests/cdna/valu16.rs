//! gfx9's 16-bit VALU operations and packing conversions on the CDNA wave interpreter, against
//! host references: the unfused f16 multiply-adds (`v_mad_f16`, `v_mac_f16`, MADAK, MADMK, the
//! legacy form) against the `half` crate with the sum taken exactly in f64, the 16-bit integer
//! min3/max3/med3 and clamped adds, and `v_cvt_pk_u8_f32` / `v_cvt_pknorm_*` / `v_cvt_norm_*`.

use crate::minifloat::{per_lane, words};
use half::f16;

const ARCHS: [&str; 2] = ["gfx942", "gfx950"];

/// A finite f16 of magnitude 2^-6 .. 2^6 with random sign and mantissa, from a random dword.
fn f16_of(w: u32) -> u16 {
    let exp = 9 + (w >> 10) % 12;
    (w & 0x83ff) as u16 | (exp << 10) as u16
}

/// `a × b + c` rounded as the unfused MAD does: the product to f16, then the (exact, f64) sum.
fn mad16(a: u16, b: u16, c: u16) -> u16 {
    let p = f16::from_f32(f16::from_bits(a).to_f32() * f16::from_bits(b).to_f32());
    f16::from_f64(p.to_f64() + f16::from_bits(c).to_f64()).to_bits()
}

#[test]
fn v_mad_f16_family_rounds_the_product_then_the_sum() {
    let r = words(64 * 3, 0x2468_ace1);
    // a, b, c in the low halves, other f16 values in the high halves (read by op_sel).
    let input: Vec<u32> = r.iter().map(|&w| f16_of(w) as u32 | (f16_of(w.rotate_left(16)) as u32) << 16).collect();
    let out = vec![0xabcd_1234u32; 64 * 6];
    let body = "v_mad_f16 v64, v16, v17, v18\nv_mov_b32 v65, v18\nv_mac_f16 v65, v16, v17\n\
                v_madak_f16 v66, v16, v17, 0x3c00\nv_madmk_f16 v67, v16, 0xc000, v18\n\
                v_mad_legacy_f16 v68, v16, v17, v18\nv_mad_f16 v69, v16, v17, v18 op_sel:[1,1,1,1]";
    for arch in ARCHS {
        let got = per_lane(arch, 3, &input, 6, &out, body);
        for l in 0..64 {
            let w = &input[3 * l..3 * l + 3];
            let (a, b, c) = (w[0] as u16, w[1] as u16, w[2] as u16);
            let hi = |x: u32| (x >> 16) as u16;
            let want = [
                0xabcd_0000 | mad16(a, b, c) as u32,
                (w[2] & 0xffff_0000) | mad16(a, b, c) as u32,
                0xabcd_0000 | mad16(a, b, 0x3c00) as u32,
                0xabcd_0000 | mad16(a, 0xc000, c) as u32,
                mad16(a, b, c) as u32,
                0x1234 | (mad16(hi(w[0]), hi(w[1]), hi(w[2])) as u32) << 16,
            ];
            assert_eq!(got[6 * l..6 * l + 6], want, "{arch} lane {l}: {w:x?}");
        }
    }
}

#[test]
fn integer_16_bit_min3_max3_med3_and_clamped_adds() {
    let input = words(64 * 3, 0x1357_9bdf);
    let out = vec![0u32; 64 * 10];
    let body = "v_min3_u16 v64, v16, v17, v18\nv_max3_u16 v65, v16, v17, v18\nv_med3_u16 v66, v16, v17, v18\n\
                v_min3_i16 v67, v16, v17, v18\nv_max3_i16 v68, v16, v17, v18\nv_med3_i16 v69, v16, v17, v18\n\
                v_mad_i16 v70, v16, v17, v18 clamp\nv_add_i16 v71, v16, v17 clamp\n\
                v_subrev_u16 v72, v16, v17\nv_add_i32 v73, v16, v17 clamp";
    for arch in ARCHS {
        let got = per_lane(arch, 3, &input, 10, &out, body);
        for l in 0..64 {
            let w = &input[3 * l..3 * l + 3];
            let u: Vec<u16> = w.iter().map(|&x| x as u16).collect();
            let i: Vec<i16> = u.iter().map(|&x| x as i16).collect();
            let mut su = u.clone();
            su.sort();
            let mut si = i.clone();
            si.sort();
            let lo = |x: i16| x as u16 as u32;
            let sat16 = |x: i32| lo(x.clamp(-32768, 32767) as i16);
            let want = [
                su[0] as u32,
                su[2] as u32,
                su[1] as u32,
                lo(si[0]),
                lo(si[2]),
                lo(si[1]),
                sat16(i[0] as i32 * i[1] as i32 + i[2] as i32),
                sat16(i[0] as i32 + i[1] as i32),
                u[1].wrapping_sub(u[0]) as u32,
                (w[0] as i32).saturating_add(w[1] as i32) as u32,
            ];
            // v_mad_i16, v_add_i16 (VOP3, OPSEL-capable) keep the high half; v_subrev_u16 zeroes it.
            let got_lo: Vec<u32> =
                got[10 * l..10 * l + 10].iter().enumerate().map(|(k, &x)| if k < 9 { x & 0xffff } else { x }).collect();
            assert_eq!(got_lo, want, "{arch} lane {l}: {w:x?}");
            assert_eq!(got[10 * l + 8] >> 16, 0, "{arch} lane {l}: v_subrev_u16 zeroes the high half");
        }
    }
}

/// Round to nearest even, clamped; NaN gives 0.
fn rne(x: f64, lo: f64, hi: f64) -> u32 {
    if x.is_nan() {
        0
    } else {
        x.round_ties_even().clamp(lo, hi) as i64 as u32
    }
}

fn f32_probes() -> Vec<f32> {
    let mut v = vec![0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.5, 254.5, 255.49, 255.5, 300.0, f32::NAN, f32::INFINITY];
    v.extend(words(64, 0x0bad_f00d).iter().map(|&w| (w % 20001) as f32 / 10000.0 - 1.0));
    v.extend(words(64, 0x5eed_1234).iter().map(|&w| (w % 2601) as f32 / 10.0 - 2.0));
    v
}

#[test]
fn packing_conversions_round_to_nearest_even_and_saturate() {
    let p = f32_probes();
    let input: Vec<u32> =
        (0..64).flat_map(|l| [p[l].to_bits(), p[64 + l].to_bits(), p[128 + l % 13].to_bits()]).collect();
    let out = vec![0x5a5a_5a5au32; 64 * 4];
    // Four v_cvt_pk_u8_f32 fill the bytes of v64 in turn (S1 selects, S2 is the dword kept).
    let body = "v_cvt_pk_u8_f32 v64, v16, 0, v64\nv_cvt_pk_u8_f32 v64, v17, 1, v64\n\
                v_cvt_pk_u8_f32 v64, v18, 2, v64\nv_mov_b32 v3, 3\nv_cvt_pk_u8_f32 v64, v16, v3, v64\n\
                v_cvt_pknorm_i16_f32 v65, v16, v17\nv_cvt_pknorm_u16_f32 v66, v16, v17\n\
                v_cvt_f16_f32 v20, v16\nv_cvt_f16_f32 v21, v17\n\
                v_cvt_pknorm_i16_f16 v67, v20, v21";
    for arch in ARCHS {
        let got = per_lane(arch, 3, &input, 4, &out, body);
        for l in 0..64 {
            let (a, b, c) = (p[l] as f64, p[64 + l] as f64, p[128 + l % 13] as f64);
            let u8_ = |x: f64| rne(x, 0.0, 255.0);
            let sn = |x: f64| rne(x.clamp(-1.0, 1.0) * 32767.0, -32767.0, 32767.0) & 0xffff;
            let un = |x: f64| rne(x.clamp(0.0, 1.0) * 65535.0, 0.0, 65535.0);
            let h = |x: f64| f16::from_f64(x).to_f64();
            let want = [
                u8_(a) | u8_(b) << 8 | u8_(c) << 16 | u8_(a) << 24,
                sn(a) | sn(b) << 16,
                un(a) | un(b) << 16,
                sn(h(a)) | sn(h(b)) << 16,
            ];
            assert_eq!(got[4 * l..4 * l + 4], want, "{arch} lane {l}: {a} {b} {c}");
        }
    }
}

#[test]
fn v_swap_b32_and_v_pk_fmac_f16() {
    let r = words(64 * 3, 0x7777_1111);
    let input: Vec<u32> = r.iter().map(|&w| f16_of(w) as u32 | (f16_of(w.rotate_left(16)) as u32) << 16).collect();
    let out = vec![0u32; 64 * 3];
    // v_swap_b32 in the even lanes only (EXEC 0x5555…); v_pk_fmac_f16 accumulates into v66.
    let body = "v_mov_b32 v64, v16\nv_mov_b32 v65, v17\ns_mov_b32 exec_lo, 0x55555555\ns_mov_b32 exec_hi, 0x55555555\n\
                v_swap_b32 v64, v65\ns_mov_b64 exec, -1\nv_mov_b32 v66, v18\nv_pk_fmac_f16 v66, v16, v17";
    for arch in ARCHS {
        let got = per_lane(arch, 3, &input, 3, &out, body);
        for l in 0..64 {
            let w = &input[3 * l..3 * l + 3];
            let swapped = if l % 2 == 0 { [w[1], w[0]] } else { [w[0], w[1]] };
            // Fused: the product is exact in f64 and these magnitudes keep the sum exact too.
            let fma = |k: u32| {
                let h = |x: u32| f16::from_bits((x >> k) as u16).to_f64();
                f16::from_f64(h(w[0]) * h(w[1]) + h(w[2])).to_bits() as u32
            };
            assert_eq!(got[3 * l..3 * l + 3], [swapped[0], swapped[1], fma(0) | fma(16) << 16], "{arch} lane {l}");
        }
    }
}

/// IEEE 754-2019 minimum (maximum) of f16 values: NaN if any is NaN, −0 below +0.
fn minmax16(v: [u16; 3], max: bool) -> u16 {
    let x = v.map(|h| f16::from_bits(h).to_f64());
    if x.iter().any(|a| a.is_nan()) {
        return 0x7e00;
    }
    // Order by value, then −0 before +0.
    let key = |k: usize| (x[k], !f16::from_bits(v[k]).is_sign_negative());
    let best = (0..3).reduce(|a, b| {
        let (ka, kb) = (key(a), key(b));
        let b_wins = if max { kb > ka } else { kb < ka };
        if b_wins {
            b
        } else {
            a
        }
    });
    v[best.unwrap()]
}

#[test]
fn gfx950_packed_minimum3_maximum3_bitop3_b16_and_cvt_off_f32_i4() {
    let r = words(64 * 3, 0x4242_9999);
    let mut input: Vec<u32> = r.iter().map(|&w| f16_of(w) as u32 | (f16_of(w.rotate_left(16)) as u32) << 16).collect();
    // Some NaNs and signed zeros.
    (input[0], input[1], input[2]) = (0x8000_7e00, 0x0000_3c00, 0x8000_4000);
    (input[3], input[4], input[5]) = (0x0000_8000, 0x8000_0000, 0x3c00_3c00);
    let out = vec![0xdead_beefu32; 64 * 4];
    let body = "v_pk_minimum3_f16 v64, v16, v17, v18\nv_pk_maximum3_f16 v65, v16, v17, v18\n\
                v_bitop3_b16 v66, v16, v17, v18 bitop3:0xe8\nv_cvt_off_f32_i4 v67, v16";
    let got = per_lane("gfx950", 3, &input, 4, &out, body);
    for l in 0..64 {
        let w = &input[3 * l..3 * l + 3];
        let half = |k: u32| [w[0], w[1], w[2]].map(|x| (x >> k) as u16);
        let pk = |max| minmax16(half(0), max) as u32 | (minmax16(half(16), max) as u32) << 16;
        let maj = (w[0] & w[1]) | (w[0] & w[2]) | (w[1] & w[2]);
        let off = ((w[0] & 0xf) as i32 - if w[0] & 8 != 0 { 16 } else { 0 }) as f32 / 16.0;
        let want = [pk(false), pk(true), 0xdead_0000 | (maj & 0xffff), off.to_bits()];
        assert_eq!(got[4 * l..4 * l + 4], want, "lane {l}: {w:x?}");
    }
}
