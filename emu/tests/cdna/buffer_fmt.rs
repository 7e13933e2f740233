//! Buffer format conversions on the CDNA wave interpreter (kernels built with our assembler),
//! against the numeric formats as the ISA guides define them: UNORM x / (2^n - 1), SNORM
//! max(x / (2^(n-1) - 1), -1), UINT/SINT zero/sign extension, FLOAT as is (16-bit widened);
//! missing components read 0, 0, 0, 1.

use crate::asm::run;

/// s[4:7]: a V# over the buffer with word3 `w3` (gfx9: DFMT at [18:15], NFMT at [14:12]).
fn vsharp(w3: u32) -> String {
    format!("s_mov_b32 s4, s0\ns_and_b32 s5, s1, 0xffff\ns_mov_b32 s6, -1\ns_mov_b32 s7, {w3:#x}\n")
}

/// Lane l's 16 result bytes at 1024 + 16l; returns them as dwords per lane.
const STORE: &str = "v_lshlrev_b32 v1, 4, v0\nglobal_store_dwordx4 v1, v[2:5], s[0:1] offset:1024\ns_endpgm\n";

fn lanes(buf: &[u32]) -> Vec<[u32; 4]> {
    (0..64).map(|l| buf[256 + 4 * l..260 + 4 * l].try_into().unwrap()).collect()
}

#[test]
fn tbuffer_load_unorm_and_snorm_bytes() {
    let mut buf = vec![0u32; 256 + 256];
    for l in 0..64u32 {
        buf[l as usize] = u32::from_le_bytes([l as u8 * 4, 255, 0x80, 0x7f]);
    }
    let src = vsharp(0)
        + "v_lshlrev_b32 v1, 2, v0\n\
           tbuffer_load_format_xy v[2:3], v1, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8_8_8] offen\n\
           tbuffer_load_format_xy v[4:5], v1, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SNORM] offen offset:2\n\
           s_waitcnt vmcnt(0)\n"
        + STORE;
    run("gfx942", &src, &mut buf, 0);
    for (l, got) in lanes(&buf).iter().enumerate() {
        let want = [(4.0 * l as f32) / 255.0, 1.0, -1.0, 1.0].map(f32::to_bits);
        assert_eq!(*got, want, "lane {l}");
    }
}

#[test]
fn buffer_load_format_takes_the_vsharp_format_and_fills_missing_components() {
    // V# format 32 FLOAT (DFMT 4, NFMT 7): x = the float, y = z = 0, w = 1.0.
    let mut buf = vec![0u32; 256 + 256];
    for (l, w) in buf[..64].iter_mut().enumerate() {
        *w = (l as f32 * 1.5 - 7.0).to_bits();
    }
    let src = vsharp(4 << 15 | 7 << 12)
        + "v_lshlrev_b32 v1, 2, v0\nbuffer_load_format_xyzw v[2:5], v1, s[4:7], 0 offen\ns_waitcnt vmcnt(0)\n"
        + STORE;
    run("gfx950", &src, &mut buf, 0);
    for (l, got) in lanes(&buf).iter().enumerate() {
        assert_eq!(*got, [(l as f32 * 1.5 - 7.0).to_bits(), 0, 0, 1f32.to_bits()], "lane {l}");
    }
}

#[test]
fn sint16_loads_sign_extend_and_d16_packs_halves() {
    // V# format 16_16_16_16 SINT (DFMT 12, NFMT 5).
    let mut buf = vec![0u32; 256 + 256];
    for l in 0..64 {
        buf[2 * l] = 0x8001_7fff;
        buf[2 * l + 1] = (l as u32) << 16 | 0xfffe;
    }
    let src = vsharp(12 << 15 | 5 << 12)
        + "v_lshlrev_b32 v1, 3, v0\nbuffer_load_format_xy v[2:3], v1, s[4:7], 0 offen\n\
           buffer_load_format_d16_xyzw v[4:5], v1, s[4:7], 0 offen\ns_waitcnt vmcnt(0)\n"
        + STORE;
    run("gfx942", &src, &mut buf, 0);
    for (l, got) in lanes(&buf).iter().enumerate() {
        assert_eq!(*got, [0x7fff, 0xffff_8001, 0x8001_7fff, (l as u32) << 16 | 0xfffe], "lane {l}");
    }
}

#[test]
fn tbuffer_store_uint16_and_float16() {
    let mut buf = vec![0u32; 256 + 256];
    let src = vsharp(0)
        + "v_lshlrev_b32 v1, 3, v0\nv_add_u32 v2, 0x12340000, v0\nv_mov_b32 v3, 0xabcd\n\
           tbuffer_store_format_xy v[2:3], v1, s[4:7], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_UINT] offen\n\
           v_cvt_f32_u32 v2, v0\n\
           tbuffer_store_format_x v2, v1, s[4:7], 0 format:[BUF_DATA_FORMAT_16,BUF_NUM_FORMAT_FLOAT] offen offset:4\n\
           s_endpgm\n";
    run("gfx950", &src, &mut buf, 0);
    for l in 0..64u32 {
        // f16 of the integer l (exact): exponent and mantissa from l's f32 bits.
        let f = (l as f32).to_bits();
        let h = if l == 0 { 0 } else { ((f >> 23 & 0xff) - 127 + 15) << 10 | (f & 0x7f_ffff) >> 13 };
        assert_eq!(buf[2 * l as usize..2 * l as usize + 2], [0xabcd << 16 | l, h], "lane {l}");
    }
}
