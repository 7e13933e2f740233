//! gfx9 SDWA on the CDNA wave interpreter (kernels built with our assembler), against the
//! Vega/CDNA3 ISA guides' rules: a source's selected byte or word, zero- or sign-extended
//! (SEXT), then ABS/NEG for float operands; the result's low bits placed in the destination's
//! selected byte or word, the other bits zeroed (UNUSED_PAD), sign-extended above and zeroed
//! below (UNUSED_SEXT) or kept (UNUSED_PRESERVE); VOPC SDWA writes an SGPR pair.

use crate::asm::run;

/// f16 bits of a small integer (exact).
fn h(n: i32) -> u32 {
    if n == 0 {
        return 0;
    }
    let f = (n as f32).to_bits();
    let sign = f >> 31;
    let exp = (f >> 23 & 0xff) as i32 - 127 + 15;
    sign << 15 | (exp as u32) << 10 | (f & 0x7f_ffff) >> 13
}

#[test]
fn sdwa_selects_extends_and_places() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut rnd = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 32) as u32
    };
    // Per lane: v1, v2 (high half an f16 integer), v3 (low half an f16 integer).
    let mut buf = vec![0u32; 64 * 16];
    let mut ints = vec![];
    for l in 0..64 {
        let (a, b) = ((rnd() % 129) as i32 - 64, (rnd() % 129) as i32 - 64);
        ints.push((a, b));
        buf[4 * l] = rnd();
        buf[4 * l + 1] = h(a) << 16 | (rnd() & 0xffff);
        buf[4 * l + 2] = (rnd() & 0xffff_0000) | h(b);
    }
    let src = "v_lshlrev_b32 v9, 4, v0\nglobal_load_dwordx3 v[10:12], v9, s[0:1]\ns_waitcnt vmcnt(0)\n\
        v_mov_b32 v1, v10\nv_mov_b32 v2, v11\nv_mov_b32 v3, v12\n\
        v_mov_b32 v4, v3\n\
        v_add_u32_sdwa v4, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:BYTE_0\n\
        v_mov_b32_sdwa v5, sext(v2) dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_3\n\
        v_cmp_lt_i32_sdwa s[2:3], v1, sext(v2) src0_sel:WORD_0 src1_sel:BYTE_2\n\
        v_cndmask_b32 v6, 0, 1, s[2:3]\n\
        v_mov_b32 v7, -1\n\
        v_add_f16_sdwa v7, -v2, |v3| dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_0\n\
        v_cvt_f32_f16_sdwa v8, v2 src0_sel:WORD_1\n\
        v_lshlrev_b32 v9, 5, v0\nv_add_u32 v9, 0x400, v9\n\
        global_store_dwordx4 v9, v[4:7], s[0:1]\nglobal_store_dword v9, v8, s[0:1] offset:16\ns_endpgm\n";
    let orig = buf.clone();
    run("gfx942", src, &mut buf, 0);
    for l in 0..64 {
        let (v1, v2, v3) = (orig[4 * l], orig[4 * l + 1], orig[4 * l + 2]);
        let r = (v1 >> 16).wrapping_add(v2 & 0xff);
        let v4 = (v3 & 0xffff) | (r & 0xffff) << 16;
        let b3 = (v2 >> 24) as u8 as i8 as i32 as u32;
        let v5 = (b3 & 0xff) << 8 | if b3 & 0x80 != 0 { 0xffff_0000 } else { 0 };
        let v6 = (((v1 & 0xffff) as i32) < ((v2 >> 16) as u8 as i8 as i32)) as u32;
        let (a, b) = ints[l];
        let v7 = h(-a + b.abs());
        let v8 = (a as f32).to_bits();
        let got = &buf[256 + 8 * l..256 + 8 * l + 5];
        assert_eq!(got, [v4, v5, v6, v7, v8], "lane {l}: v1 {v1:#x} v2 {v2:#x} v3 {v3:#x}");
    }
}

#[test]
fn sdwa_vopc_writes_vcc_by_default_and_takes_sgpr_sources() {
    // v_cmp_eq_u32_sdwa vcc, s4, v1 (src0 an SGPR via S0): the low byte of s4 against v1's
    // byte 1; v_cndmask reads VCC.
    let src = "s_mov_b32 s4, 0x1234ab07\nv_lshlrev_b32 v1, 8, v0\n\
               v_cmp_eq_u32_sdwa vcc, s4, v1 src0_sel:BYTE_0 src1_sel:BYTE_1\n\
               v_cndmask_b32 v2, 0, 1, vcc\nv_lshlrev_b32 v1, 2, v0\nglobal_store_dword v1, v2, s[0:1]\ns_endpgm\n";
    let mut buf = vec![0u32; 64];
    run("gfx942", src, &mut buf, 0);
    for l in 0..64u32 {
        assert_eq!(buf[l as usize], (l == 7) as u32, "lane {l}");
    }
}
