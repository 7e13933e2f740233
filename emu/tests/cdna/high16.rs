//! What a 16-bit VALU result does to the high half of its 32-bit destination: on gfx9
//! (gfx942, gfx950) most 16-bit operations zero it, the OPSEL-capable and accumulating ones
//! keep it (LLVM's `GCNSubtarget::zeroesHigh16BitsOfDest`), SDWA follows DST_UNUSED; on RDNA
//! (gfx1100) every 16-bit operation keeps it. Also: gfx9's 32-bit encodings have no true16
//! halves, so their VGPR fields' bit 7 is v128 and up.

use crate::asm::run;

/// The high half every destination holds before the operation.
const HI: u32 = 0xdead_0000;

/// Runs `ops` (each writing one of v10.. in order) on lane 0 with v1 = 1.0h, v2 = 2.0h,
/// v3 = 1.0f and every destination preset to `HI`; returns the destinations.
fn results(arch: &'static str, ops: &[&str], store: &str) -> Vec<u32> {
    let mut src = String::from("s_mov_b64 exec, 1\nv_mov_b32 v1, 0x3c00\nv_mov_b32 v2, 0x4000\nv_mov_b32 v3, 1.0\n");
    for k in 0..ops.len() {
        src += &format!("v_mov_b32 v{}, 0x{HI:x}\n", 10 + k);
    }
    for op in ops {
        src += op;
        src += "\n";
    }
    src += "v_mov_b32 v9, 0\n";
    for k in 0..ops.len() {
        src += &format!("{store} v9, v{}, s[0:1] offset:{}\n", 10 + k, 4 * k);
    }
    src += "s_endpgm\n";
    let mut buf = vec![0u32; ops.len()];
    run(arch, &src, &mut buf, 0);
    buf
}

#[test]
fn gfx9_16bit_ops_zero_the_high_half_except_the_opsel_forms() {
    let ops = [
        "v_add_f16 v10, v1, v2",
        "v_lshrrev_b16 v11, 1, v2",
        "v_cvt_f16_f32 v12, v3",
        "v_add_f16_e64 v13, v1, v2",
        "v_mad_legacy_u16 v14, v1, v2, v2",
        "v_fma_f16 v15, v1, v2, v2",
        "v_med3_f16 v16, v1, v2, v2",
        "v_mad_u16 v17, v1, v2, v2",
        "v_add_f16_sdwa v18, v1, v2 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE",
        "v_add_f16_sdwa v19, v1, v2 dst_sel:WORD_0 dst_unused:UNUSED_PAD",
    ];
    // 1 + 2 = 3.0h; 0x4000 >> 1; 1.0f -> 1.0h; 0x3c00 * 0x4000 + 0x4000 = 0x4000 (mod 2^16);
    // 1 * 2 + 2 = 4.0h; med3(1, 2, 2) = 2.0h.
    let want = [0x4200, 0x2000, 0x3c00, 0x4200, 0x4000, HI | 0x4400, HI | 0x4000, HI | 0x4000, HI | 0x4200, 0x4200];
    for arch in ["gfx942", "gfx950"] {
        let got = results(arch, &ops, "global_store_dword");
        for (k, op) in ops.iter().enumerate() {
            assert_eq!(got[k], want[k], "{arch}: {op}: {:#x} want {:#x}", got[k], want[k]);
        }
    }
}

#[test]
fn rdna_16bit_ops_keep_the_high_half() {
    let ops =
        ["v_add_f16 v10, v1, v2", "v_lshrrev_b16 v11, 1, v2", "v_cvt_f16_f32 v12, v3", "v_fma_f16 v13, v1, v2, v2"];
    let want = [HI | 0x4200, HI | 0x2000, HI | 0x3c00, HI | 0x4400];
    let got = results("gfx1100", &ops, "global_store_b32");
    for (k, op) in ops.iter().enumerate() {
        assert_eq!(got[k], want[k], "gfx1100: {op}: {:#x} want {:#x}", got[k], want[k]);
    }
}

#[test]
fn gfx9_16bit_ops_of_the_32bit_encodings_address_vgprs_above_127() {
    // gfx9 has no true16 halves: VGPR field bit 7 is v128 and up, not a high half.
    let src = "s_mov_b64 exec, 1\nv_mov_b32 v1, 0x3c00\nv_mov_b32 v130, 0x4000\nv_mov_b32 v131, 0x5555\n\
               v_mov_b32 v3, 0x7777\nv_add_f16 v131, v1, v130\nv_mul_f16 v132, v130, v130\n\
               v_mov_b32 v9, 0\nglobal_store_dword v9, v131, s[0:1]\nglobal_store_dword v9, v3, s[0:1] offset:4\n\
               global_store_dword v9, v132, s[0:1] offset:8\ns_endpgm\n";
    for arch in ["gfx942", "gfx950"] {
        let mut buf = vec![0u32; 3];
        run(arch, src, &mut buf, 0);
        assert_eq!(buf, [0x4200, 0x7777, 0x4400], "{arch}: 1 + 2, v3 untouched, 2 * 2");
    }
}
