//! The rarely emitted gfx9 operations, in our assembler's kernels, against host references
//! written from the ISA guides' rules in a form of their own: the cube-map coordinates (against
//! the OpenGL face table), the quad SADs (byte windows), `v_ashr_pk_i8_i32`,
//! `v_cvt_pkaccum_u8_f32`, `v_cvt_norm_*` and `v_sat_pk_u8_i16`; the scalar `s_ff0`,
//! `s_bitreplicate`, `s_set_gpr_idx_idx/mode`, scalar scratch; `ds_wrxchg2*`; the hints run as
//! no-ops; the refused instructions' messages.

use crate::asm::{assemble, dispatch_words, SCRATCH_LANE};
use crate::minifloat::{per_lane, per_lane_lds, words};
use baregpu_emu::amd::dispatch::DispatchFault;
use half::f16;

const ARCHS: [&str; 2] = ["gfx942", "gfx950"];

/// OpenGL 4.6 table 8.19: (face, sc, tc, ma) of the direction (x, y, z), faces +X −X +Y −Y +Z −Z.
fn gl_cube_face(x: f32, y: f32, z: f32) -> (f32, f32, f32, f32) {
    let faces = [(x, -z, -y, 0.0), (x, z, -y, 1.0), (y, x, z, 2.0), (y, x, -z, 3.0), (z, x, -y, 4.0), (z, -x, -y, 5.0)];
    let i = if z.abs() >= x.abs() && z.abs() >= y.abs() {
        4 + (z < 0.0) as usize
    } else if y.abs() >= x.abs() {
        2 + (y < 0.0) as usize
    } else {
        (x < 0.0) as usize
    };
    let (ma, sc, tc, id) = faces[i];
    (id, sc, tc, ma)
}

#[test]
fn cube_map_coordinates_follow_the_opengl_face_table() {
    let r = words(64 * 3, 0x0c0b_e123);
    let input: Vec<u32> = r.iter().map(|&w| ((w % 2001) as f32 / 100.0 - 10.0).to_bits()).collect();
    let body = "v_cubeid_f32 v64, v16, v17, v18\nv_cubesc_f32 v65, v16, v17, v18\n\
                v_cubetc_f32 v66, v16, v17, v18\nv_cubema_f32 v67, v16, v17, v18";
    for arch in ARCHS {
        let got = per_lane(arch, 3, &input, 4, &vec![0; 64 * 4], body);
        for l in 0..64 {
            let [x, y, z] = [0, 1, 2].map(|k| f32::from_bits(input[3 * l + k]));
            let (id, sc, tc, ma) = gl_cube_face(x, y, z);
            // AMD's ma is twice the major axis (the s, t divide by it and add 0.5 to get 0..1).
            let want = [id, sc, tc, 2.0 * ma].map(f32::to_bits);
            assert_eq!(got[4 * l..4 * l + 4], want, "{arch} lane {l}: ({x}, {y}, {z})");
        }
    }
}

/// The four SADs of the 4-byte windows of `s0` at byte 0..3 against `s1`, each plus `acc[k]`;
/// `masked`: bytes where `s1` is 0 count nothing.
fn window_sads(s0: u64, s1: u32, acc: [u64; 4], masked: bool) -> [u64; 4] {
    let (a, b) = (s0.to_le_bytes(), s1.to_le_bytes());
    std::array::from_fn(|k| {
        acc[k] + (0..4).filter(|&j| !masked || b[j] != 0).map(|j| a[k + j].abs_diff(b[j]) as u64).sum::<u64>()
    })
}

#[test]
fn quad_sads_against_byte_windows() {
    let r = words(64 * 8, 0x5ad5_ad00);
    let mut input = r.clone();
    for l in 0..64 {
        // Some zero bytes in S1 for the masked forms; accumulators near 0xffff for the clamp.
        input[8 * l + 2] &= [0xffff_ffff, 0x00ff_ff00, 0xff00_00ff, 0][l % 4];
        if l % 2 == 0 {
            input[8 * l + 4] |= 0xfff0_fff0;
        }
    }
    // S0 in v[16:17], S1 in v18, S2 in v[20:21] (16-bit accumulators) and v[20:23] (32-bit).
    let body = "v_qsad_pk_u16_u8 v[64:65], v[16:17], v18, v[20:21]\n\
                v_mqsad_pk_u16_u8 v[66:67], v[16:17], v18, v[20:21]\n\
                v_qsad_pk_u16_u8 v[68:69], v[16:17], v18, v[20:21] clamp\n\
                v_mqsad_u32_u8 v[70:73], v[16:17], v18, v[20:23]";
    for arch in ARCHS {
        let got = per_lane(arch, 8, &input, 10, &vec![0; 64 * 10], body);
        for l in 0..64 {
            let w = &input[8 * l..8 * l + 8];
            let (s0, s1) = (w[0] as u64 | (w[1] as u64) << 32, w[2]);
            let acc16 = std::array::from_fn(|k| (w[4 + k / 2] >> (16 * (k % 2)) & 0xffff) as u64);
            let acc32 = std::array::from_fn(|k| w[4 + k] as u64);
            let pack = |s: [u64; 4], f: &dyn Fn(u64) -> u64| {
                let v = s.map(f);
                [(v[0] | v[1] << 16) as u32, (v[2] | v[3] << 16) as u32]
            };
            let want: Vec<u32> = [
                pack(window_sads(s0, s1, acc16, false), &|x| x & 0xffff),
                pack(window_sads(s0, s1, acc16, true), &|x| x & 0xffff),
                pack(window_sads(s0, s1, acc16, false), &|x| x.min(0xffff)),
            ]
            .concat()
            .into_iter()
            .chain(window_sads(s0, s1, acc32, true).map(|x| x as u32))
            .collect();
            assert_eq!(got[10 * l..10 * l + 10], want[..], "{arch} lane {l}: {w:x?}");
        }
    }
}

#[test]
fn gfx950_ashr_pk_i8_saturates_each_shifted_source() {
    let r = words(64 * 3, 0xa5a5_0001);
    let input: Vec<u32> = (0..64)
        .flat_map(|l| [r[3 * l] as i32 >> (r[3 * l] % 24), r[3 * l + 1] as i32 >> 20, r[3 * l + 2] as i32])
        .map(|x| x as u32)
        .collect();
    // The high half of v64 is kept (a 16-bit result without OPSEL).
    let body = "v_ashr_pk_i8_i32 v64, v16, v17, v18\nv_ashr_pk_u8_i32 v65, v16, v17, v18";
    let got = per_lane("gfx950", 3, &input, 2, &vec![0xdead_0000; 128], body);
    for l in 0..64 {
        let (x, y, s) = (input[3 * l] as i32, input[3 * l + 1] as i32, input[3 * l + 2] & 31);
        let b = |v: i32, lo: i32, hi: i32| ((v >> s).clamp(lo, hi) as u8) as u32;
        let want =
            [0xdead_0000 | b(x, -128, 127) | b(y, -128, 127) << 8, 0xdead_0000 | b(x, 0, 255) | b(y, 0, 255) << 8];
        assert_eq!(got[2 * l..2 * l + 2], want, "{arch} lane {l}: {x} {y} >> {s}", arch = "gfx950");
    }
}

/// `x` rounded to nearest even and clamped to `[lo, hi]` (NaN: 0), as a 16-bit pattern.
fn rne16(x: f64, lo: f64, hi: f64) -> u32 {
    if x.is_nan() {
        0
    } else {
        (x.round_ties_even().clamp(lo, hi) as i32 as u32) & 0xffff
    }
}

#[test]
fn cvt_pkaccum_cvt_norm_and_sat_pk_u8_i16() {
    let r = words(64 * 3, 0x0042_4242);
    let probes = [0.0f32, -0.0, 1.0, -1.0, 0.5, 1e-5, 2.0, -7.0, f32::NAN, 0.25, -0.75, 0.999_9];
    let input: Vec<u32> = (0..64)
        .flat_map(|l| {
            let a = if l < probes.len() { probes[l] } else { (r[3 * l] % 3001) as f32 / 1000.0 - 1.5 };
            [a.to_bits(), f16::from_f32(a).to_bits() as u32 | 0x7bff_0000, r[3 * l + 2]]
        })
        .collect();
    // pkaccum writes byte (lane % 4) of v64, keeping the rest; the norms and sat_pk write the
    // low half of v65..v67 and keep the high half.
    let body = "v_and_b32 v3, 3, v0\nv_cvt_pkaccum_u8_f32 v64, v16, v3\nv_cvt_norm_i16_f16 v65, v17\n\
                v_cvt_norm_u16_f16 v66, v17\nv_sat_pk_u8_i16 v67, v18";
    for arch in ARCHS {
        let got = per_lane(arch, 3, &input, 4, &vec![0x5a5a_5a5a; 64 * 4], body);
        for l in 0..64 {
            let w = &input[3 * l..3 * l + 3];
            let (a, h) = (f32::from_bits(w[0]) as f64, f16::from_bits(w[1] as u16).to_f64());
            let sh = 8 * (l as u32 % 4);
            let sat = |x: u32| ((x as u16 as i16).clamp(0, 255)) as u32;
            let want = [
                (0x5a5a_5a5a & !(0xff << sh)) | rne16(a, 0.0, 255.0) << sh,
                0x5a5a_0000 | rne16(h.clamp(-1.0, 1.0) * 32767.0, -32767.0, 32767.0),
                0x5a5a_0000 | rne16(h.clamp(0.0, 1.0) * 65535.0, 0.0, 65535.0),
                0x5a5a_0000 | sat(w[2]) | sat(w[2] >> 16) << 8,
            ];
            assert_eq!(got[4 * l..4 * l + 4], want, "{arch} lane {l}: {a} {h} {:#x}", w[2]);
        }
    }
}

/// Runs scalar code and returns s[20:27] (moved to v64..v71 of lane 0).
fn scalar(arch: &'static str, body: &str) -> Vec<u32> {
    let mut src = body.to_string();
    for k in 0..8 {
        src += &format!("\nv_mov_b32 v{}, s{}", 64 + k, 20 + k);
    }
    per_lane(arch, 1, &[0; 64], 8, &vec![0; 64 * 8], &src)[..8].to_vec()
}

#[test]
fn scalar_ff0_bitreplicate_and_hints() {
    // The hints and debugger branches run as no-ops: the branch over s_mov is not taken.
    let body = "s_mov_b32 s10, 0x0000ffff\ns_ff0_i32_b32 s20, s10\ns_mov_b32 s11, -1\ns_ff0_i32_b32 s21, s11\n\
                s_mov_b32 s12, 0\ns_mov_b32 s13, 0x7\ns_mov_b32 s12, -1\ns_ff0_i32_b64 s22, s[12:13]\n\
                s_mov_b32 s14, 0x80000005\ns_bitreplicate_b64_b32 s[24:25], s14\n\
                s_wakeup\ns_setkill 0\ns_incperflevel 1\ns_decperflevel 1\ns_atc_probe 7, s[0:1], 0x0\n\
                v_clrexcp\ns_mov_b32 s23, 1\ns_cbranch_cdbgsys 1\ns_mov_b32 s23, 2\ns_nop 0";
    for arch in ARCHS {
        let got = scalar(arch, body);
        assert_eq!(got[..6], [16, u32::MAX, 35, 2, 0x0000_0033, 0xc000_0000], "{arch}");
    }
}

#[test]
fn gpr_idx_idx_and_mode_set_the_fields_of_m0() {
    // SRC0 indexing with index 2 (then 3 via s_set_gpr_idx_idx), then DST indexing via
    // s_set_gpr_idx_mode; M0 shows both fields.
    let body = "v_mov_b32 v18, 18\nv_mov_b32 v19, 19\ns_set_gpr_idx_on 2, gpr_idx(SRC0)\nv_mov_b32 v64, v16\n\
                s_mov_b32 s10, 3\ns_set_gpr_idx_idx s10\nv_mov_b32 v65, v16\ns_set_gpr_idx_mode gpr_idx(DST)\n\
                v_mov_b32 v64, 7\ns_set_gpr_idx_off\nv_mov_b32 v66, m0";
    for arch in ARCHS {
        let got = per_lane(arch, 4, &[0; 256], 8, &vec![0; 64 * 8], body);
        // v64 = v18; v65 = v19; then v[64 + 3] = 7; M0 = index 3, mode DST (bit 3 of 15:12).
        assert_eq!(got[..4], [18, 19, 0x8003, 7], "{arch}");
    }
}

#[test]
fn scalar_scratch_round_trip_and_bounds() {
    let body = "s_mov_b32 s10, 0x11111111\ns_mov_b32 s11, 0x22222222\ns_mov_b64 s[2:3], 0x100\n\
                s_scratch_store_dwordx2 s[10:11], s[2:3], 0x8\n\
                s_scratch_load_dword s20, s[2:3], 0xc\ns_scratch_load_dwordx2 s[22:23], s[2:3], 0x8\ns_waitcnt lgkmcnt(0)";
    for arch in ARCHS {
        assert_eq!(scalar(arch, body)[..4], [0x2222_2222, 0, 0x1111_1111, 0x2222_2222], "{arch}");
        // Past the wave's 64 × SCRATCH_LANE bytes: a memory fault.
        let src = format!("s_mov_b64 s[2:3], {}\ns_scratch_load_dword s5, s[2:3], 0x0\ns_endpgm\n", 64 * SCRATCH_LANE);
        let mut buf = vec![0u32; 16];
        match dispatch_words(arch, &assemble(arch, &src), &mut buf, 0, 64) {
            Err((DispatchFault::Memory { write: false, .. }, _)) => {}
            other => panic!("{arch}: {other:?}"),
        }
    }
}

#[test]
fn ds_wrxchg2_swaps_two_addresses() {
    let input = words(64 * 4, 0x0d5e_0d5e);
    // Lane l's LDS dwords at 8l and 8l + 4, and at 1024 + 4l + 256 and + 512 for the st64
    // forms, pre-filled by ds_write2.
    let body = "v_lshlrev_b32 v3, 3, v0\nv_mov_b32 v5, 0x400\nv_lshl_add_u32 v4, v0, 2, v5\nds_write2_b32 v3, v16, v17 offset1:1\n\
                ds_write2st64_b32 v4, v16, v17 offset0:1 offset1:2\ns_waitcnt lgkmcnt(0)\n\
                ds_wrxchg2_rtn_b32 v[64:65], v3, v18, v19 offset1:1\n\
                ds_wrxchg2st64_rtn_b32 v[66:67], v4, v19, v18 offset0:1 offset1:2\n\
                ds_read2_b32 v[68:69], v3 offset1:1\nds_read2st64_b32 v[70:71], v4 offset0:1 offset1:2\n\
                s_waitcnt lgkmcnt(0)";
    for arch in ARCHS {
        let got = per_lane_lds(arch, 4096, 4, &input, 8, &vec![0; 64 * 8], body);
        for l in 0..64 {
            let w = &input[4 * l..4 * l + 4];
            assert_eq!(got[8 * l..8 * l + 8], [w[0], w[1], w[0], w[1], w[2], w[3], w[3], w[2]], "{arch} lane {l}");
        }
    }
}

#[test]
fn refused_instructions_name_themselves_and_the_reason() {
    for arch in ARCHS {
        for (src, name) in [
            ("ds_gws_init v2 offset:0 gds", "ds_gws_init"),
            ("s_cbranch_join s2", "s_cbranch_join"),
            ("v_exp_legacy_f32 v1, v2", "v_exp_legacy_f32"),
        ] {
            let mut buf = vec![0u32; 16];
            match dispatch_words(arch, &assemble(arch, &format!("{src}\ns_endpgm\n")), &mut buf, 0, 64) {
                Err((DispatchFault::Illegal { what, .. }, _)) => {
                    assert!(what.contains(name) && what.contains("not run: "), "{arch}: {what}")
                }
                other => panic!("{arch} {src}: {other:?}"),
            }
        }
    }
}
