//! gfx9's scalar stores and atomics (`s_store_*`, `s_atomic_*`, the `s_buffer_*` forms through a
//! V#) and the LDS counters `ds_append` / `ds_consume`, on the CDNA wave interpreter; the
//! expected memory is worked out by hand from the ISA guide's definitions.

use crate::asm::run;

const ARCHS: [&str; 2] = ["gfx942", "gfx950"];

/// s[12:15]: a V# whose base is the buffer (s[0:1]), for the `s_buffer_*` forms.
const VSHARP: &str = "s_mov_b32 s12, s0\ns_and_b32 s13, s1, 0xffff\ns_mov_b32 s14, -1\ns_mov_b32 s15, 0\n";

#[test]
fn scalar_stores_write_sgprs_at_the_smem_address() {
    let src = format!(
        "{VSHARP}s_mov_b32 s4, 0x11111111\ns_mov_b32 s5, 0x22222222\ns_mov_b32 s6, 0x33333333\n\
         s_mov_b32 s7, 0x44444444\ns_store_dword s4, s[0:1], 0x0\ns_store_dwordx2 s[4:5], s[0:1], 0x8\n\
         s_store_dwordx4 s[4:7], s[0:1], 0x10\ns_mov_b32 s8, 0x24\ns_store_dword s7, s[0:1], s8\n\
         s_buffer_store_dword s6, s[12:15], 0x30\ns_buffer_store_dwordx2 s[6:7], s[12:15], 0x38\n\
         s_dcache_wb\ns_endpgm\n"
    );
    for arch in ARCHS {
        let mut buf = vec![0u32; 16];
        run(arch, &src, &mut buf, 0);
        let (a, b, c, d) = (0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444);
        assert_eq!(buf, [a, 0, a, b, a, b, c, d, 0, d, 0, 0, c, 0, c, d], "{arch}");
    }
}

#[test]
fn scalar_atomics_update_memory_and_return_the_old_value_with_glc() {
    let src = format!(
        "{VSHARP}s_mov_b32 s4, 5\ns_atomic_add s4, s[0:1], 0x40 glc\n\
         s_mov_b32 s5, 7\ns_atomic_smax s5, s[0:1], 0x44\n\
         s_mov_b32 s6, 0x55\ns_mov_b32 s7, 42\ns_atomic_cmpswap s[6:7], s[0:1], 0x48 glc\n\
         s_mov_b32 s8, 1\ns_mov_b32 s9, 0\ns_atomic_add_x2 s[8:9], s[0:1], 0x50 glc\n\
         s_mov_b32 s10, 0xff\ns_buffer_atomic_xor s10, s[12:15], 0x58 glc\n\
         s_mov_b32 s16, 9\ns_mov_b32 s17, 8\ns_atomic_cmpswap s[16:17], s[0:1], 0x5c glc\n\
         s_waitcnt lgkmcnt(0)\nv_mov_b32 v2, 0\n\
         v_mov_b32 v1, s4\nglobal_store_dword v2, v1, s[0:1] offset:0x80\n\
         v_mov_b32 v1, s5\nglobal_store_dword v2, v1, s[0:1] offset:0x84\n\
         v_mov_b32 v1, s6\nglobal_store_dword v2, v1, s[0:1] offset:0x88\n\
         v_mov_b32 v1, s8\nglobal_store_dword v2, v1, s[0:1] offset:0x8c\n\
         v_mov_b32 v1, s9\nglobal_store_dword v2, v1, s[0:1] offset:0x90\n\
         v_mov_b32 v1, s10\nglobal_store_dword v2, v1, s[0:1] offset:0x94\n\
         v_mov_b32 v1, s16\nglobal_store_dword v2, v1, s[0:1] offset:0x98\n\
         s_endpgm\n"
    );
    for arch in ARCHS {
        let mut buf = vec![0u32; 40];
        buf[16] = 100;
        buf[17] = -3i32 as u32;
        buf[18] = 42;
        (buf[20], buf[21]) = (u32::MAX, 6);
        buf[22] = 0x0f0f;
        buf[23] = 1234;
        run(arch, &src, &mut buf, 0);
        // add, smax (no return), cmpswap (equal: swapped), add_x2 (carries), xor, cmpswap
        // (compare value 8 differs: unchanged).
        assert_eq!(buf[16..24], [105, 7, 0x55, 0, 0, 7, 0x0ff0, 1234], "{arch}: memory");
        assert_eq!(buf[32..39], [100, 7, 42, u32::MAX, 6, 0x0f0f, 1234], "{arch}: returned");
    }
}

#[test]
fn ds_append_and_consume_count_active_lanes_at_m0() {
    let src = "v_mov_b32 v1, 10\nv_mov_b32 v2, 0\nds_write_b32 v2, v1 offset:16\ns_waitcnt lgkmcnt(0)\n\
               v_mov_b32 v5, -1\ns_mov_b32 m0, 8\nds_append v4 offset:8\ns_waitcnt lgkmcnt(0)\n\
               s_mov_b32 exec_lo, 0xff\ns_mov_b32 exec_hi, 0\nds_consume v5 offset:8\ns_waitcnt lgkmcnt(0)\n\
               s_mov_b64 exec, -1\nds_read_b32 v6, v2 offset:16\ns_waitcnt lgkmcnt(0)\n\
               v_lshlrev_b32 v9, 4, v0\nglobal_store_dwordx3 v9, v[4:6], s[0:1]\ns_endpgm\n";
    for arch in ARCHS {
        let mut buf = vec![0u32; 64 * 4];
        run(arch, src, &mut buf, 1024);
        for l in 0..64 {
            let want = [10, if l < 8 { 74 } else { u32::MAX }, 66];
            assert_eq!(buf[4 * l..4 * l + 3], want, "{arch} lane {l}");
        }
    }
}

#[test]
fn lds_rsub_mskor_wrap_and_float_cmpst() {
    let mut input = vec![0u32; 64 * 10];
    let mut seed = 0x0dd_ba11u32;
    let mut next = || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        seed
    };
    for l in 0..64 {
        let w = &mut input[10 * l..10 * l + 10];
        for x in w.iter_mut() {
            *x = next();
        }
        // Half the lanes wrap (MEM >= DATA), half add DATA2.
        if l % 2 == 0 {
            w[1] = w[0] >> 3;
        } else {
            w[0] >>= 3;
            w[1] = w[0] + 1 + (w[1] >> 29);
        }
        // cmpst_f32: +0 vs −0 (equal floats), same value, different values, NaN vs the same NaN.
        (w[3], w[4]) = match l % 4 {
            0 => (0, 0x8000_0000),
            1 => (w[3] & 0x3fff_ffff, w[3] & 0x3fff_ffff),
            2 => (0x3f80_0000, 0x4000_0000),
            _ => (0x7fc0_0001, 0x7fc0_0001),
        };
    }
    let body = "v_lshlrev_b32 v3, 5, v0\nds_write_b32 v3, v16\nds_write_b32 v3, v16 offset:4\n\
                ds_write_b32 v3, v16 offset:8\nds_write_b32 v3, v19 offset:12\nds_write_b64 v3, v[22:23] offset:16\n\
                s_waitcnt lgkmcnt(0)\nds_rsub_u32 v3, v17\nds_mskor_b32 v3, v17, v18 offset:4\n\
                ds_wrap_rtn_b32 v64, v3, v17, v18 offset:8\nds_cmpst_rtn_f32 v65, v3, v20, v21 offset:12\n\
                ds_rsub_rtn_u64 v[66:67], v3, v[24:25] offset:16\ns_waitcnt lgkmcnt(0)\n\
                ds_read_b32 v68, v3\nds_read_b32 v69, v3 offset:4\nds_read_b32 v70, v3 offset:8\n\
                ds_read_b32 v71, v3 offset:12\nds_read_b64 v[72:73], v3 offset:16\ns_waitcnt lgkmcnt(0)";
    for arch in ARCHS {
        let got = crate::minifloat::per_lane_lds(arch, 64 * 32, 10, &input, 10, &[0; 640], body);
        for l in 0..64 {
            let w = &input[10 * l..10 * l + 10];
            let (a, b, c) = (w[0], w[1], w[2]);
            let wrap = if a >= b { a - b } else { a.wrapping_add(c) };
            let eq = f32::from_bits(w[3]) == f32::from_bits(w[4]);
            let (m, d) = (w[6] as u64 | (w[7] as u64) << 32, w[8] as u64 | (w[9] as u64) << 32);
            let rsub64 = d.wrapping_sub(m);
            let want = [
                a,
                w[3],
                m as u32,
                (m >> 32) as u32,
                b.wrapping_sub(a),
                (a & !b) | c,
                wrap,
                if eq { w[5] } else { w[3] },
                rsub64 as u32,
                (rsub64 >> 32) as u32,
            ];
            assert_eq!(got[10 * l..10 * l + 10], want, "{arch} lane {l}: {w:x?}");
        }
    }
}
