//! gfx9 operations clang emits outside the big families, on the CDNA wave interpreter: the
//! clocks (`s_memtime` for `__builtin_readcyclecounter`, `s_memrealtime`), the legacy 16-bit
//! multiply-add (`v_mad_legacy_u16/i16`, clang's `short` a * b + c) and the LDS accesses
//! addressed by lane id (`ds_{read,write}_addtid_b32`).

use crate::asm::run;

#[test]
fn s_memtime_counts_instructions_and_s_memrealtime_advances() {
    let src = "s_memtime s[4:5]\ns_waitcnt lgkmcnt(0)\ns_nop 0\ns_nop 0\ns_memtime s[6:7]\n\
               s_memrealtime s[8:9]\ns_waitcnt lgkmcnt(0)\ns_memrealtime s[10:11]\ns_waitcnt lgkmcnt(0)\n\
               v_mov_b32 v2, 0\n";
    let mut src = src.to_string();
    for k in 0..8 {
        src += &format!("v_mov_b32 v1, s{}\nglobal_store_dword v2, v1, s[0:1] offset:{}\n", 4 + k, 4 * k);
    }
    src += "s_endpgm\n";
    for arch in ["gfx942", "gfx950"] {
        let mut buf = vec![0u32; 8];
        run(arch, &src, &mut buf, 0);
        let t = |k: usize| buf[2 * k] as u64 | (buf[2 * k + 1] as u64) << 32;
        // The shader clock counts this wave's instructions: the waitcnt, two nops and itself.
        assert_eq!(t(1) - t(0), 4, "{arch}: {buf:x?}");
        assert!(t(0) > 0 && t(3) >= t(2), "{arch}: {buf:x?}");
    }
}

#[test]
fn v_mad_legacy_16_writes_the_low_half_and_zeroes_the_high() {
    // CDNA ISA guides: OPSEL[3] = 0 writes the low half, the high half zero.
    let mut buf: Vec<u32> =
        (0..64u32).flat_map(|l| [(l * 3 + 1) | 0xabcd_0000, 0x1_0000 + l * 2917, 0xfff0 + l]).collect();
    buf.resize(64 * 5, 0);
    let src = "v_mul_u32_u24 v9, 12, v0\nglobal_load_dwordx3 v[10:12], v9, s[0:1]\ns_waitcnt vmcnt(0)\n\
               v_mov_b32 v4, -1\nv_mov_b32 v5, -1\n\
               v_mad_legacy_u16 v4, v10, v11, v12\nv_mad_legacy_i16 v5, v10, v11, v12\n\
               v_lshlrev_b32 v9, 3, v0\nglobal_store_dwordx2 v9, v[4:5], s[0:1] offset:768\ns_endpgm\n";
    let orig = buf.clone();
    run("gfx942", src, &mut buf, 0);
    for l in 0..64 {
        let (a, b, c) = (orig[3 * l] & 0xffff, orig[3 * l + 1] & 0xffff, orig[3 * l + 2] & 0xffff);
        let want = (a * b + c) & 0xffff;
        assert_eq!([buf[192 + 2 * l], buf[193 + 2 * l]], [want, want], "lane {l}");
    }
}

#[test]
fn ds_addtid_accesses_use_m0_and_the_lane_id() {
    let src = "s_mov_b32 m0, 0x10040\nv_mul_u32_u24 v1, 7, v0\nds_write_addtid_b32 v1 offset:8\n\
               s_waitcnt lgkmcnt(0)\nv_lshlrev_b32 v2, 2, v0\nds_read_b32 v4, v2 offset:0x48\n\
               s_mov_b32 m0, 0x44\nds_read_addtid_b32 v5 offset:4\ns_waitcnt lgkmcnt(0)\n\
               v_lshlrev_b32 v9, 3, v0\nglobal_store_dwordx2 v9, v[4:5], s[0:1]\ns_endpgm\n";
    for arch in ["gfx942", "gfx950"] {
        let mut buf = vec![0u32; 128];
        run(arch, src, &mut buf, 1024);
        for l in 0..64u32 {
            let w = [buf[2 * l as usize], buf[2 * l as usize + 1]];
            assert_eq!(w, [7 * l, 7 * l], "{arch} lane {l}: LDS 0x48 + 4l holds 7l, read both ways");
        }
    }
}

/// Σ |a[k] − b[k]| over `bits`-wide elements, skipping b[k] = 0 when `masked`.
fn sad(a: u32, b: u32, bits: u32, masked: bool) -> u32 {
    let el = |w: u32, k: u32| (w as u64 >> (k * bits) & ((1 << bits) - 1)) as i64;
    (0..32 / bits).filter(|&k| !masked || el(b, k) != 0).map(|k| (el(a, k) - el(b, k)).unsigned_abs() as u32).sum()
}

#[test]
fn sad_msad_and_lerp_work_per_byte() {
    // `__builtin_amdgcn_{sad_u8,sad_hi_u8,sad_u16,msad_u8,lerp}` (ISA guides: V_SAD_U8 …).
    let mut buf = vec![0u32; 64 * 3 + 64 * 5];
    let mut seed = 0x1357_9bdfu32;
    for (k, w) in buf[..192].iter_mut().enumerate() {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        // Some zero bytes in S1 for MSAD.
        *w = if k % 3 == 1 { seed & 0xff00_ffff } else { seed };
    }
    let src = "v_mul_u32_u24 v9, 12, v0\nglobal_load_dwordx3 v[10:12], v9, s[0:1]\ns_waitcnt vmcnt(0)\n\
               v_sad_u8 v16, v10, v11, v12\nv_sad_hi_u8 v17, v10, v11, v12\nv_sad_u16 v18, v10, v11, v12\n\
               v_msad_u8 v19, v10, v11, v12\nv_lerp_u8 v20, v10, v11, v12\n\
               v_mul_u32_u24 v9, 20, v0\nglobal_store_dwordx4 v9, v[16:19], s[0:1] offset:768\n\
               global_store_dword v9, v20, s[0:1] offset:784\ns_endpgm\n";
    let orig = buf.clone();
    run("gfx942", src, &mut buf, 0);
    for l in 0..64 {
        let (a, b, c) = (orig[3 * l], orig[3 * l + 1], orig[3 * l + 2]);
        let lerp = (0..4).fold(0, |d, k| {
            let e = |w: u32| w >> (8 * k) & 0xff;
            d | (e(a) + e(b) + (e(c) & 1)) >> 1 << (8 * k)
        });
        let want = [
            sad(a, b, 8, false).wrapping_add(c),
            (sad(a, b, 8, false) << 16).wrapping_add(c),
            sad(a, b, 16, false).wrapping_add(c),
            sad(a, b, 8, true).wrapping_add(c),
            lerp,
        ];
        assert_eq!(buf[192 + 5 * l..197 + 5 * l], want, "lane {l}");
    }
}

#[test]
fn s_movrels_and_s_movreld_index_sgprs_by_m0() {
    let mut src = String::from(
        "s_mov_b32 s10, 10\ns_mov_b32 s11, 11\ns_mov_b32 s12, 12\ns_mov_b32 s13, 13\ns_mov_b32 s14, 14\n\
         s_mov_b32 s15, 15\ns_mov_b32 m0, 3\ns_movrels_b32 s4, s10\ns_movreld_b32 s20, 0x1234\n\
         s_mov_b32 m0, 2\ns_movrels_b64 s[6:7], s[12:13]\ns_mov_b64 s[8:9], -2\ns_movreld_b64 s[26:27], s[8:9]\n\
         v_mov_b32 v2, 0\n",
    );
    for (k, s) in ["s4", "s23", "s6", "s7", "s28", "s29", "s20", "s26"].iter().enumerate() {
        src += &format!("v_mov_b32 v1, {s}\nglobal_store_dword v2, v1, s[0:1] offset:{}\n", 4 * k);
    }
    src += "s_endpgm\n";
    for arch in ["gfx942", "gfx950"] {
        let mut buf = vec![0u32; 8];
        run(arch, &src, &mut buf, 0);
        // s4 = s[10 + 3]; s[20 + 3] = 0x1234; s[6:7] = s[14:15]; s[28:29] = -2; s20, s26 untouched (0).
        assert_eq!(buf, [13, 0x1234, 14, 15, u32::MAX - 1, u32::MAX, 0, 0], "{arch}");
    }
}
