//! Buffer accesses (MUBUF) and loads to LDS on the CDNA wave interpreter, in kernels built with
//! our assembler, against expectations derived from the ISA guides' rules (not from the
//! interpreter): address = base + soffset + offset (+ stride × index), NUM_RECORDS range check
//! (bytes for raw buffers, records for structured ones; soffset outside the check), loads out
//! of range read 0, stores out of range are dropped, dword-x{2,3,4} checked per dword; loads to
//! LDS land at M0 + instruction offset + lane × size.

#[path = "cdna/asm.rs"]
mod asm;

use asm::{dispatch, run};
use baregpu_emu::amd::dispatch::DispatchFault;

/// s[4:7] = a raw V# over the buffer (s[0:1]) with NUM_RECORDS = `nr` bytes; s[12:15] = one
/// with `nr` = 4 GiB - 1 for results. gfx9 word3: DFMT 32 (4), NFMT UINT (4).
fn vsharp(nr: u32) -> String {
    format!(
        "s_mov_b32 s4, s0\ns_and_b32 s5, s1, 0xffff\ns_mov_b32 s6, {nr}\ns_mov_b32 s7, 0x24000\n\
         s_mov_b32 s12, s0\ns_and_b32 s13, s1, 0xffff\ns_mov_b32 s14, -1\ns_mov_b32 s15, 0x24000\n"
    )
}

/// Input words: word i = i × 7 + 1 (distinct, non-zero).
fn input(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| i * 7 + 1).collect()
}

const OUT: usize = 1024;

#[test]
fn raw_dword_load_with_soffset_offset_and_range_check() {
    for arch in ["gfx942", "gfx950"] {
        let nr = 128u32;
        let src = vsharp(nr)
            + "v_lshlrev_b32 v1, 2, v0\ns_mov_b32 s8, 16\n\
               buffer_load_dword v2, v1, s[4:7], s8 offen offset:8\ns_waitcnt vmcnt(0)\n\
               v_add_u32 v3, 0x1000, v1\nbuffer_store_dword v2, v3, s[12:15], 0 offen\ns_endpgm\n";
        let mut buf = input(OUT + 64);
        let want: Vec<u32> = (0..64u32)
            .map(|l| {
                // Range check on offset + offen VGPR = 8 + 4l (soffset excluded), 4 bytes.
                if 8 + 4 * l + 4 <= nr {
                    (16 + 8 + 4 * l) / 4 * 7 + 1
                } else {
                    0
                }
            })
            .collect();
        run(arch, &src, &mut buf, 0);
        assert_eq!(buf[OUT..OUT + 64], want[..], "{arch}");
    }
}

#[test]
fn dwordx4_is_range_checked_per_dword() {
    let nr = 16 * 10 + 8;
    let src = vsharp(nr)
        + "v_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v[4:7], v1, s[4:7], 0 offen\ns_waitcnt vmcnt(0)\n\
           v_add_u32 v3, 0x1000, v1\nbuffer_store_dwordx4 v[4:7], v3, s[12:15], 0 offen\ns_endpgm\n";
    let mut buf = input(OUT + 256);
    run("gfx942", &src, &mut buf, 0);
    for l in 0..64u32 {
        for k in 0..4u32 {
            let at = 16 * l + 4 * k;
            let want = if at + 4 <= nr { at / 4 * 7 + 1 } else { 0 };
            assert_eq!(buf[OUT + (4 * l + k) as usize], want, "lane {l} dword {k}");
        }
    }
}

#[test]
fn stores_out_of_range_are_dropped() {
    let nr = 64u32;
    let src = vsharp(nr)
        + "v_lshlrev_b32 v1, 2, v0\nv_add_u32 v2, 1000, v0\nbuffer_store_dword v2, v1, s[4:7], 0 offen\n\
           buffer_store_short v2, v1, s[4:7], 0 offen offset:256\ns_endpgm\n";
    let mut buf = input(OUT);
    let orig = buf.clone();
    run("gfx950", &src, &mut buf, 0);
    for l in 0..64usize {
        let want = if 4 * l + 4 <= nr as usize { 1000 + l as u32 } else { orig[l] };
        assert_eq!(buf[l], want, "dword store, lane {l}");
        // offset 256 + 4l is past NUM_RECORDS for every lane.
        assert_eq!(buf[64 + l], orig[64 + l], "short store, lane {l}");
    }
}

#[test]
fn structured_buffer_checks_the_index_against_records() {
    // Stride 8 (word1[29:16]); IDXEN: v0 = index; NUM_RECORDS = 20 records.
    let src = "s_mov_b32 s4, s0\ns_and_b32 s5, s1, 0xffff\ns_or_b32 s5, s5, 0x80000\ns_mov_b32 s6, 20\n\
               s_mov_b32 s7, 0x24000\n\
               s_mov_b32 s12, s0\ns_and_b32 s13, s1, 0xffff\ns_mov_b32 s14, -1\ns_mov_b32 s15, 0x24000\n\
               buffer_load_dword v2, v0, s[4:7], 0 idxen offset:4\ns_waitcnt vmcnt(0)\n\
               v_lshlrev_b32 v1, 2, v0\nv_add_u32 v3, 0x1000, v1\nbuffer_store_dword v2, v3, s[12:15], 0 offen\n\
               s_endpgm\n";
    let mut buf = input(OUT + 64);
    run("gfx942", src, &mut buf, 0);
    for l in 0..64u32 {
        let want = if l < 20 { (8 * l + 4) / 4 * 7 + 1 } else { 0 };
        assert_eq!(buf[OUT + l as usize], want, "lane {l}");
    }
}

#[test]
fn sub_dword_loads_extend_and_d16_keeps_the_other_half() {
    let src = vsharp(u32::MAX)
        + "v_mov_b32 v2, 0x12345678\nv_mov_b32 v3, 0x12345678\n\
           v_mov_b32 v1, 0\nbuffer_load_sbyte v4, v1, s[4:7], 0 offen offset:3\n\
           buffer_load_ushort v5, v1, s[4:7], 0 offen offset:2\n\
           buffer_load_short_d16_hi v2, v1, s[4:7], 0 offen\n\
           buffer_load_ubyte_d16 v3, v1, s[4:7], 0 offen offset:1\ns_waitcnt vmcnt(0)\n\
           v_lshlrev_b32 v1, 4, v0\nv_add_u32 v1, 0x1000, v1\nbuffer_store_dwordx4 v[2:5], v1, s[12:15], 0 offen\n\
           s_endpgm\n";
    let mut buf = vec![0u32; OUT + 256];
    buf[0] = 0x80f1_c2d3;
    run("gfx950", &src, &mut buf, 0);
    let want = [0xc2d3_5678u32, 0x1234_00c2, 0xffff_ff80, 0x80f1];
    for l in 0..64 {
        assert_eq!(buf[OUT + 4 * l..OUT + 4 * l + 4], want, "lane {l}");
    }
}

#[test]
fn atomics_return_the_old_value_and_skip_out_of_range_lanes() {
    // Every lane adds lane+1 to word (lane % 4) within NUM_RECORDS = 8 bytes: words 0 and 1
    // take the adds of their 16 lanes each, words 2 and 3 stay; the out-of-range lanes return 0.
    let src = vsharp(8)
        + "v_and_b32 v1, 3, v0\nv_lshlrev_b32 v1, 2, v1\nv_add_u32 v2, 1, v0\n\
           buffer_atomic_add v2, v1, s[4:7], 0 offen sc0\ns_waitcnt vmcnt(0)\n\
           v_lshlrev_b32 v1, 2, v0\nv_add_u32 v1, 0x1000, v1\nbuffer_store_dword v2, v1, s[12:15], 0 offen\n\
           s_endpgm\n";
    let mut buf = vec![0u32; OUT + 64];
    buf[..4].copy_from_slice(&[100, 200, 300, 400]);
    run("gfx942", &src, &mut buf, 0);
    let sum = |w: u32| (0..64u32).filter(|l| l % 4 == w).map(|l| l + 1).sum::<u32>();
    assert_eq!(buf[..4], [100 + sum(0), 200 + sum(1), 300, 400]);
    // Whatever order the lanes' adds take, each word's returned values chain: sorted, each is
    // the previous plus that lane's addend, from the initial value on.
    for w in 0..2u32 {
        let mut rets: Vec<(u32, u32)> =
            (0..64u32).filter(|l| l % 4 == w).map(|l| (buf[OUT + l as usize], l + 1)).collect();
        rets.sort();
        let mut x = [100, 200][w as usize];
        for (old, add) in rets {
            assert_eq!(old, x, "word {w}");
            x += add;
        }
    }
    for l in (0..64u32).filter(|l| l % 4 >= 2) {
        assert_eq!(buf[OUT + l as usize], 0, "out-of-range lane {l} returns 0");
    }
}

/// Reads the LDS back: each lane stores LDS dwords [4l, 4l + 4) to OUT + 4l.
const LDS_DUMP: &str = "s_waitcnt vmcnt(0)\ns_barrier\nv_lshlrev_b32 v1, 4, v0\nds_read_b128 v[4:7], v1\n\
                        s_waitcnt lgkmcnt(0)\nv_add_u32 v1, 0x1000, v1\n\
                        buffer_store_dwordx4 v[4:7], v1, s[12:15], 0 offen\ns_endpgm\n";

/// The LDS as dwords after the kernel: OUT.. holds its first 1 KiB.
fn lds_words(buf: &[u32]) -> &[u32] {
    &buf[OUT..OUT + 256]
}

#[test]
fn buffer_load_dword_to_lds_lands_at_m0_plus_offset_plus_lane() {
    // M0 = 32: lane l's dword lands at 32 + 4 + 4l; the VGPR offset 8l picks input word 2l + 1
    // (instruction offset 4 applies to the memory address too); NUM_RECORDS cuts lanes >= 40.
    let src = vsharp(40 * 8)
        + "s_mov_b32 m0, 32\nv_lshlrev_b32 v1, 3, v0\nbuffer_load_dword v1, s[4:7], 0 offen offset:4 lds\n"
        + LDS_DUMP;
    let mut buf = input(OUT + 256);
    run("gfx942", &src, &mut buf, 1024);
    let mut want = vec![0u32; 256];
    for l in 0..64u32 {
        let at = 8 * l + 4;
        want[(32 + 4 + 4 * l) as usize / 4] = if at + 4 <= 40 * 8 { at / 4 * 7 + 1 } else { 0 };
    }
    assert_eq!(lds_words(&buf), &want[..]);
}

#[test]
fn gfx950_buffer_load_dwordx4_to_lds_moves_16_bytes_per_lane() {
    let src = vsharp(u32::MAX)
        + "s_mov_b32 m0, 0\nv_lshlrev_b32 v1, 4, v0\nbuffer_load_dwordx4 v1, s[4:7], 0 offen lds\n"
        + LDS_DUMP;
    let mut buf = input(OUT + 256);
    run("gfx950", &src, &mut buf, 1024);
    let want: Vec<u32> = (0..256u32).map(|i| i * 7 + 1).collect();
    assert_eq!(lds_words(&buf), &want[..]);
}

#[test]
fn global_load_lds_dwordx4_and_ubyte() {
    // gfx950 global_load_lds_dwordx4: lane l's 16 bytes from s[0:1] + 16l to M0 + 16l;
    // then global_load_lds_ubyte (M0 = 512): lane l's byte 4l, zero-extended, at 512 + 4l.
    let src = vsharp(u32::MAX)
        + "s_mov_b32 m0, 0\nv_lshlrev_b32 v1, 4, v0\nglobal_load_lds_dwordx4 v1, s[0:1]\n\
           s_mov_b32 m0, 512\nv_lshlrev_b32 v1, 2, v0\nglobal_load_lds_ubyte v1, s[0:1] offset:0\n"
        + LDS_DUMP;
    let mut buf = input(OUT + 256);
    buf[..64].iter_mut().enumerate().for_each(|(i, w)| *w = 0x8000_00f0 + i as u32);
    let orig = buf.clone();
    run("gfx950", &src, &mut buf, 1024);
    let mut want: Vec<u32> = orig[..256].to_vec();
    for l in 0..64 {
        want[128 + l] = orig[l] & 0xff;
    }
    assert_eq!(lds_words(&buf), &want[..]);
}

#[test]
fn load_to_lds_past_the_allocation_faults() {
    let src = vsharp(u32::MAX)
        + "s_mov_b32 m0, 0x3f0\nv_mov_b32 v1, 0\nbuffer_load_dword v1, s[4:7], 0 offen lds\ns_endpgm\n";
    let mut buf = input(64);
    match dispatch("gfx942", &src, &mut buf, 1024) {
        Err((DispatchFault::Memory { va, write: true, .. }, _)) => {
            assert_eq!(va, baregpu_emu::rdna::decode::SHARED_BASE + 0x3f0 + 4 * 4)
        }
        r => panic!("{r:?}"),
    }
}

#[test]
fn buffer_access_outside_memory_faults_at_its_address() {
    // An in-range access (NUM_RECORDS = 4 GiB - 1) whose address is unmapped.
    let src = vsharp(u32::MAX) + "v_mov_b32 v1, 0x100000\nbuffer_load_dword v2, v1, s[4:7], 0 offen\ns_endpgm\n";
    let mut buf = input(64);
    let base = buf.as_ptr() as u64;
    match dispatch("gfx942", &src, &mut buf, 0) {
        Err((DispatchFault::Memory { va, write: false, .. }, _)) => assert_eq!(va, base + 0x100000),
        r => panic!("{r:?}"),
    }
}
