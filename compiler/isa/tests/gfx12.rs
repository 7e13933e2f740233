//! gfx1201 (and shared gfx11) encodings checked against llvm-mc 22 output: each line's text must
//! assemble to llvm-mc's bytes, and the bytes must disassemble to llvm-mc's canonical text.

use baregpu_isa::{assemble_line, decode, disassemble, Arch};

/// (input text, llvm-mc's bytes, llvm-mc's disassembly of those bytes).
const CASES: &[(Arch, &str, &[u8], &str)] = &[
    (Arch::Gfx1201, "global_load_b32 v1, v[2:3], off", &[0x7c, 0, 0x05, 0xee, 0x01, 0, 0, 0, 0x02, 0, 0, 0], ""),
    (Arch::Gfx1201, "s_barrier_wait 0xffff", &[0xff, 0xff, 0x94, 0xbf], ""),
    (Arch::Gfx1201, "v_dual_mul_f32 v0, v1, v2 :: v_dual_mov_b32 v3, v4", &[1, 5, 0xd0, 0xc8, 4, 1, 2, 0], ""),
    (
        Arch::Gfx1201,
        "v_dual_fmaak_f32 v0, v1, v2, 0x1234 :: v_dual_add_f32 v3, v6, v7",
        &[0x01, 0x05, 0x48, 0xc8, 0x06, 0x0f, 0x02, 0x00, 0x34, 0x12, 0x00, 0x00],
        "",
    ),
    (Arch::Gfx1100, "v_dual_mul_f32 v0, v1, v2 :: v_dual_mov_b32 v3, v4", &[1, 5, 0xd0, 0xc8, 4, 1, 2, 0], ""),
    (Arch::Gfx1100, "v_cmpx_gt_u32_e64 v1, v2", &[0x7e, 0x00, 0xcc, 0xd4, 0x01, 0x05, 0x02, 0x00], ""),
    (
        Arch::Gfx1201,
        "v_add_co_u32_e64_dpp v1, s5, v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
        &[0x01, 0x05, 0x00, 0xd7, 0xfa, 0x06, 0x02, 0x00, 0x02, 0xb1, 0x00, 0xff],
        "",
    ),
    (
        Arch::Gfx1201,
        "buffer_load_b32 v1, v2, s[4:7], s3 offen",
        &[0x03, 0x00, 0x05, 0xc4, 0x01, 0x08, 0x80, 0x40, 0x02, 0x00, 0x00, 0x00],
        "",
    ),
    (Arch::Gfx1201, "v_s_exp_f32 s1, s2", &[0x01, 0x00, 0x80, 0xd6, 0x02, 0x00, 0x00, 0x00], ""),
    (Arch::Gfx1201, "s_prefetch_data s[2:3], 0x100, s5, 7", &[0xc1, 0xc1, 0x04, 0xf4, 0x00, 0x01, 0x00, 0x0a], ""),
    (Arch::Gfx1201, "v_cvt_f32_fp8_e64 v8, v24 byte_sel:1", &[0x08, 0x10, 0xec, 0xd5, 0x18, 0x01, 0x00, 0x00], ""),
    (Arch::Gfx1201, "v_cvt_sr_fp8_f32 v1, v2, v3 byte_sel:3", &[0x01, 0x60, 0x6b, 0xd7, 0x02, 0x07, 0x02, 0x00], ""),
    (
        Arch::Gfx1201,
        "v_permlane16_b32 v1, v2, s3, s4 op_sel:[0,1]",
        &[0x01, 0x10, 0x5b, 0xd6, 0x02, 0x07, 0x10, 0x00],
        "",
    ),
    (
        Arch::Gfx1201,
        "ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,4,1)",
        &[0x3c, 0x00, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x01],
        "",
    ),
    (
        Arch::Gfx1201,
        "ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"01pi0\")",
        &[0x06, 0x09, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x01],
        "",
    ),
    (
        Arch::Gfx1100,
        "ds_swizzle_b32 v1, v2 offset:swizzle(ROTATE,1,1)",
        &[0x20, 0xc4, 0xd4, 0xd8, 0x02, 0x00, 0x00, 0x01],
        "",
    ),
    (Arch::Gfx1201, "s_sendmsg_rtn_b32 s16, sendmsg(MSG_RTN_GET_SE_AID_ID)", &[0x87, 0x4c, 0x90, 0xbe], ""),
];

#[test]
fn llvm_mc_encodings() {
    for &(arch, text, bytes, canon) in CASES {
        let got = assemble_line(arch, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(got, bytes, "{} {text}", arch.name());
        let i = decode(arch, bytes).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(disassemble(&i), if canon.is_empty() { text } else { canon }, "{}", arch.name());
    }
}
