//! gfx950 lane operations on the CDNA wave interpreter (kernels built with our assembler):
//! v_permlane16/32_swap_b32 against LLVM's definition ("swaps the odd rows of the first
//! operand with the even rows of the second operand", rows of 16 lanes; permlane32: the upper
//! 32 lanes of the first with the lower 32 of the second), v_prng_b32 against the CDNA4 ISA
//! guide's `S0 << 1 ^ (S0[31] ? 197 : 0)`.

use crate::asm::run;

/// v2 = 1000 + lane, v3 = 2000 + lane, then `op`, then v2, v3 stored at lane × 8.
fn swap(op: &str, exec_lo: u32) -> Vec<u32> {
    let src = format!(
        "v_add_u32 v2, 1000, v0\nv_add_u32 v3, 2000, v0\ns_mov_b32 exec_lo, {exec_lo:#x}\n{op}\n\
         s_mov_b64 exec, -1\nv_lshlrev_b32 v1, 3, v0\nglobal_store_dwordx2 v1, v[2:3], s[0:1]\ns_endpgm\n"
    );
    let mut buf = vec![0u32; 128];
    run("gfx950", &src, &mut buf, 0);
    buf
}

#[test]
fn permlane16_swap_trades_odd_rows_of_vdst_with_even_rows_of_src() {
    let got = swap("v_permlane16_swap_b32 v2, v3", u32::MAX);
    for l in 0..64u32 {
        let row = l / 16;
        let (d, s) = if row % 2 == 1 { (2000 + l - 16, 2000 + l) } else { (1000 + l, 1000 + l + 16) };
        assert_eq!(got[2 * l as usize..2 * l as usize + 2], [d, s], "lane {l}");
    }
}

#[test]
fn permlane32_swap_trades_upper_half_of_vdst_with_lower_half_of_src() {
    let got = swap("v_permlane32_swap_b32_e64 v2, v3", u32::MAX);
    for l in 0..64u32 {
        let (d, s) = if l >= 32 { (2000 + l - 32, 2000 + l) } else { (1000 + l, 1000 + l + 32) };
        assert_eq!(got[2 * l as usize..2 * l as usize + 2], [d, s], "lane {l}");
    }
}

#[test]
fn permlane_swap_with_inactive_partners() {
    // EXEC = lanes 0..23 and 32..63 (exec_lo = 0x00ffffff): lanes 24..31 are not written.
    // Lanes 8..15 of SRC read lanes 24..31 of VDST, which are inactive: without fi they keep
    // their value; bound_ctrl zeroes them instead; fi reads them.
    for (mods, inactive) in [("", None), (" bound_ctrl:1", Some(0)), (" fi:1", Some(1))] {
        let got = swap(&format!("v_permlane16_swap_b32_e64 v2, v3{mods}"), 0x00ff_ffff);
        for l in 0..64u32 {
            let on = |x: u32| !(24..32).contains(&x);
            let active = on(l);
            let row = l / 16;
            let partner = if row % 2 == 1 { l - 16 } else { l + 16 };
            let partner_on = on(partner);
            let keep = [1000 + l, 2000 + l];
            let swapped = if row % 2 == 1 { [2000 + partner, 2000 + l] } else { [1000 + l, 1000 + partner] };
            let want = if !active {
                keep
            } else if partner_on || inactive == Some(1) {
                swapped
            } else if inactive == Some(0) {
                if row % 2 == 1 {
                    [0, 2000 + l]
                } else {
                    [1000 + l, 0]
                }
            } else {
                keep
            };
            assert_eq!(got[2 * l as usize..2 * l as usize + 2], want, "{mods:?} lane {l}");
        }
    }
}

#[test]
fn prng_steps_the_lfsr() {
    let mut buf: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let orig = buf.clone();
    let src = "v_lshlrev_b32 v1, 2, v0\nglobal_load_dword v2, v1, s[0:1]\ns_waitcnt vmcnt(0)\n\
               v_prng_b32 v3, v2\nv_prng_b32_e64 v3, v3\nglobal_store_dword v1, v3, s[0:1]\ns_endpgm\n";
    run("gfx950", src, &mut buf, 0);
    let step = |x: u32| (x << 1) ^ if x & 0x8000_0000 != 0 { 197 } else { 0 };
    for l in 0..64 {
        assert_eq!(buf[l], step(step(orig[l])), "lane {l}");
    }
}

/// gfx90a+ DPP row_newbcast:n: every lane of a row reads lane n of its row (DPP_CTRL 0x150 + n);
/// wave_rol:1 / wave_ror:1 rotate the whole wave by one lane; row_ror:n rotates within a row.
#[test]
fn dpp_row_newbcast_and_wave_rotates() {
    let src = "v_add_u32 v1, 100, v0\n\
               v_mov_b32_dpp v2, v1 row_newbcast:5 row_mask:0xf bank_mask:0xf\n\
               v_mov_b32_dpp v3, v1 wave_rol:1 row_mask:0xf bank_mask:0xf\n\
               v_mov_b32_dpp v4, v1 wave_ror:1 row_mask:0xf bank_mask:0xf\n\
               v_mov_b32_dpp v5, v1 row_ror:3 row_mask:0xf bank_mask:0xf\n\
               v_lshlrev_b32 v1, 4, v0\nglobal_store_dwordx4 v1, v[2:5], s[0:1]\ns_endpgm\n";
    for arch in ["gfx942", "gfx950"] {
        let mut buf = vec![0u32; 256];
        run(arch, src, &mut buf, 0);
        for l in 0..64u32 {
            let row = l & !15;
            // Data moves right (to higher lanes) under ror/shr: wave_ror:1 gives lane l lane l - 1,
            // wave_rol:1 lane l + 1, row_ror:3 lane l - 3 of its row (rotating).
            let want = [100 + row + 5, 100 + (l + 1) % 64, 100 + (l + 63) % 64, 100 + row + (l % 16 + 13) % 16];
            assert_eq!(buf[4 * l as usize..4 * l as usize + 4], want, "{arch} lane {l}");
        }
    }
}
