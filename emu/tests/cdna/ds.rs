//! LDS operations on the CDNA wave interpreter, in kernels built with our assembler, against
//! plain-Rust expectations from the ISA guides.

use crate::asm::{self, run};

/// The DS address is ADDR + OFFSET in 32 bits: a negative VGPR base with a positive offset
/// reaches the LDS below the offset (LLVM folds `252 - 4l` into ADDR = -4l, OFFSET = 252).
#[test]
fn ds_address_wraps_at_32_bits() {
    let src = "v_lshlrev_b32 v1, 2, v0\nv_add_u32 v2, 0x500, v0\nds_write_b32 v1, v2\ns_waitcnt lgkmcnt(0)\n\
               v_sub_u32 v3, 0, v1\nds_read_b32 v4, v3 offset:252\ns_waitcnt lgkmcnt(0)\n\
               global_store_dword v1, v4, s[0:1]\ns_endpgm\n";
    for arch in ["gfx942", "gfx950"] {
        let mut buf = vec![0u32; 64];
        run(arch, src, &mut buf, 256);
        let want: Vec<u32> = (0..64u32).map(|l| 0x500 + (252 - 4 * l) / 4).collect();
        assert_eq!(buf, want, "{arch}");
    }
}

/// A workgroup may allocate the board's LDS: 64 KiB on gfx942, 160 KiB on gfx950, and all of it
/// is addressable; one granule more is refused at dispatch.
#[test]
fn lds_allocation_limits() {
    use baregpu_emu::amd::dispatch::DispatchFault;
    let src = "v_mov_b32 v1, s2\nv_mov_b32 v2, 0x5a5a\nds_write_b32 v1, v2\ns_waitcnt lgkmcnt(0)\n\
               ds_read_b32 v3, v1\ns_waitcnt lgkmcnt(0)\nv_mov_b32 v1, 0\nglobal_store_dword v1, v3, s[0:1]\n\
               s_endpgm\n";
    for (arch, kib) in [("gfx942", 64u32), ("gfx950", 160)] {
        let bytes = kib << 10;
        // s2 = the last dword of the allocation (set by the kernel itself).
        let src = format!("s_mov_b32 s2, {}\n{src}", bytes - 4);
        let mut buf = vec![0u32; 4];
        asm::run(arch, &src, &mut buf, bytes);
        assert_eq!(buf[0], 0x5a5a, "{arch}");
        match asm::dispatch(arch, &src, &mut buf, bytes + 512) {
            Err((DispatchFault::Illegal { what, .. }, _)) => assert!(what.contains("LDS"), "{arch}: {what}"),
            r => panic!("{arch}: {r:?}"),
        }
    }
}

/// gfx9 ds_cmpst_rtn_b32 (MEM = MEM == DATA ? DATA2 : MEM, the old value returned) and
/// ds_wrxchg_rtn_b32 (a swap), per the Vega/CDNA3 ISA guides.
#[test]
fn ds_cmpst_and_wrxchg() {
    // LDS word l = 10 + l; lane l compares with 10 + (l & ~1) (equal for even lanes) and stores
    // 500 + l; then swaps in 900 + l at word 64 + l (which held 0).
    let src = "v_lshlrev_b32 v1, 2, v0\nv_add_u32 v2, 10, v0\nds_write_b32 v1, v2\ns_waitcnt lgkmcnt(0)\n\
               v_and_b32 v3, -2, v0\nv_add_u32 v3, 10, v3\nv_add_u32 v4, 500, v0\n\
               ds_cmpst_rtn_b32 v5, v1, v3, v4\nv_add_u32 v6, 900, v0\nds_wrxchg_rtn_b32 v7, v1, v6 offset:256\n\
               s_waitcnt lgkmcnt(0)\nds_read_b32 v8, v1\nds_read_b32 v9, v1 offset:256\ns_waitcnt lgkmcnt(0)\n\
               v_lshlrev_b32 v1, 4, v0\nv_mov_b32 v6, v8\nv_mov_b32 v4, v7\nv_mov_b32 v7, v9\n\
               global_store_dwordx4 v1, v[4:7], s[0:1]\ns_endpgm\n";
    let mut buf = vec![0u32; 256];
    run("gfx942", src, &mut buf, 1024);
    for l in 0..64u32 {
        let now = if l % 2 == 0 { 500 + l } else { 10 + l };
        assert_eq!(buf[4 * l as usize..4 * l as usize + 4], [0, 10 + l, now, 900 + l], "lane {l}");
    }
}
