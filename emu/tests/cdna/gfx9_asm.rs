//! The CDNA wave interpreter on kernels written in gfx9 assembly (built with our assembler), for
//! what clang's corpus does not reach (the MFMAs: emu/src/rdna/mfma/tests). The unified
//! VGPR/AGPR file, with AGPRs from the kernel's ACCUM_OFFSET on. gfx9 v_cmpx (EXEC and VCC), the
//! gfx9 DPP broadcasts and shifts, and an unsupported instruction as an Illegal fault.

use crate::asm::{assemble, dispatch_words};
use baregpu_emu::amd::dispatch::DispatchFault;

/// Bytes of per-lane data.
const LANE: usize = 128;

/// Runs `src` (gfx9 assembly) as one wave64 with s[0:1] = the buffer, ACCUM_OFFSET = `accum`.
fn run(arch: &'static str, src: &str, buf: &mut [u32], accum: u32) {
    dispatch(arch, src, buf, accum).unwrap_or_else(|f| panic!("{arch}: {f:?}\n{src}"));
}

/// As [`run`]; returns the dispatch's result and the code's address.
fn dispatch(arch: &'static str, src: &str, buf: &mut [u32], accum: u32) -> Result<(), (DispatchFault, u64)> {
    dispatch_words(arch, &assemble(arch, src), buf, 0, accum)
}

/// a[k] is v[ACCUM_OFFSET + k]: written as an AGPR, read back as a VGPR.
#[test]
fn agprs_start_at_accum_offset_in_the_unified_file() {
    for arch in ["gfx942", "gfx950"] {
        for accum in [32u32, 128] {
            let src = format!(
                "v_lshlrev_b32 v1, 7, v0\nv_add_u32_e32 v2, 0x3e8, v0\nv_accvgpr_write_b32 a3, v2\n\
                 v_mov_b32 v4, v{}\nglobal_store_dword v1, v4, s[0:1]\ns_endpgm\n",
                accum + 3
            );
            let mut buf = vec![0u32; 64 * LANE / 4];
            run(arch, &src, &mut buf, accum);
            for lane in 0..64 {
                assert_eq!(buf[lane * LANE / 4], 1000 + lane as u32, "{arch} accum_offset {accum} lane {lane}");
            }
        }
    }
}

/// gfx9 `v_cmpx` writes EXEC and VCC (gfx10+ writes EXEC only).
#[test]
fn cmpx_writes_exec_and_vcc_on_gfx9() {
    for arch in ["gfx942", "gfx950"] {
        let src = "v_lshlrev_b32 v1, 7, v0\ns_mov_b64 vcc, 0\nv_cmpx_gt_u32_e32 vcc, 20, v0\n\
                   s_mov_b64 s[4:5], vcc\ns_mov_b64 s[6:7], exec\ns_mov_b64 exec, -1\n\
                   v_mov_b32 v2, s4\nv_mov_b32 v3, s5\nv_mov_b32 v4, s6\nv_mov_b32 v5, s7\n\
                   global_store_dwordx4 v1, v[2:5], s[0:1]\ns_endpgm\n";
        let mut buf = vec![0u32; 64 * LANE / 4];
        run(arch, src, &mut buf, 64);
        assert_eq!(&buf[..4], &[0xf_ffff, 0, 0xf_ffff, 0], "{arch}: VCC and EXEC are lanes 0..19");
    }
}

/// The gfx9 DPP controls RDNA dropped: row_bcast:15, row_bcast:31, wave_shr:1.
#[test]
fn gfx9_dpp_broadcasts_and_wave_shifts() {
    for arch in ["gfx942", "gfx950"] {
        let src =
            "v_lshlrev_b32 v1, 7, v0\nv_mov_b32_e32 v2, 0x3e8\nv_mov_b32_e32 v3, 0x3e8\nv_mov_b32_e32 v4, 0x3e8\n\
                   v_mov_b32_dpp v2, v0 row_bcast:15 row_mask:0xa bank_mask:0xf\n\
                   v_mov_b32_dpp v3, v0 wave_shr:1 row_mask:0xf bank_mask:0xf\n\
                   v_mov_b32_dpp v4, v0 row_bcast:31 row_mask:0xc bank_mask:0xf\n\
                   global_store_dwordx3 v1, v[2:4], s[0:1]\ns_endpgm\n";
        let mut buf = vec![0u32; 64 * LANE / 4];
        run(arch, src, &mut buf, 64);
        for l in 0..64usize {
            let got = &buf[l * LANE / 4..l * LANE / 4 + 3];
            let row = l / 16;
            let bcast15 = if row % 2 == 1 { (row as u32 - 1) * 16 + 15 } else { 1000 };
            let shr = if l == 0 { 1000 } else { l as u32 - 1 };
            let bcast31 = if row >= 2 { 31 } else { 1000 };
            assert_eq!(got, &[bcast15, shr, bcast31], "{arch} lane {l}");
        }
    }
}

/// An instruction the interpreter does not run is an Illegal fault at its PC, as on RDNA.
#[test]
fn unsupported_instruction_is_an_illegal_fault_at_its_pc() {
    for arch in ["gfx942", "gfx950"] {
        // s_nop is 4 bytes; the graphics-only screen partitioning after it is not run by the
        // interpreter (decode/refused.rs).
        let src = "s_nop 0\nv_screen_partition_4se_b32 v1, v2\ns_endpgm\n";
        let mut buf = vec![0u32; 16];
        match dispatch(arch, src, &mut buf, 64) {
            Err((DispatchFault::Illegal { pc, what }, va)) => {
                assert_eq!(pc, va + 4, "{arch}: {what}");
                assert!(what.contains("v_screen_partition_4se_b32") && what.contains("not run"), "{arch}: {what}");
            }
            other => panic!("{arch}: {other:?}"),
        }
    }
}

/// A dword with VOPD's first-dword pattern is no instruction on gfx9 (VOPD is gfx11+): an
/// Illegal fault there, not a dual-issue VALU pair.
#[test]
fn vopd_pattern_is_not_an_instruction_on_gfx9() {
    for arch in ["gfx942", "gfx950"] {
        // 0xc8000000 0x00000000: v_dual_fmac_f32 v0, s0, v0 :: v_dual_fmac_f32 v1, s0, v0 on gfx11;
        // then s_endpgm (0xbf810000).
        let code = [0xc800_0000u32, 0, 0xbf81_0000];
        let mut buf = vec![0u32; 16];
        match dispatch_words(arch, &code, &mut buf, 0, 64) {
            Err((DispatchFault::Illegal { pc, what }, va)) => {
                assert_eq!(pc, va, "{arch}: {what}");
                assert!(what.contains("undecodable"), "{arch}: {what}");
            }
            other => panic!("{arch}: {other:?}"),
        }
    }
}
