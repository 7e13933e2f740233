//! The instruction lists `builder` checks against llvm-mc: what the RDNA and CDNA targets
//! share and what each has alone, 64-bit operands, and every named hardware register and message.

use baregpu_isa::builder::*;

/// Instructions common to the RDNA targets (gfx1100, gfx1201).
pub fn rdna_common(b: &mut Builder) {
    f64_operands(b);
    b.v_add_f32(v(1), v(2), v(3));
    b.v_add_f32(v(1), s(2), v(3));
    b.v_add_f32(v(1), v(2), s(3)); // src1 SGPR: e64
    b.v_add_f32(v(1), 1.0f32, v(3));
    b.v_add_f32(v(1), -4.0f32, v(3));
    b.v_add_f32(v(1), std::f32::consts::PI, v(3)); // literal
    b.v_add_f32(v(1), v(3), std::f32::consts::PI); // literal in src1: e64
    b.v_add_f32(v(1), neg(v(2)), abs(v(3)));
    b.v_add_f32(v(1), neg(abs(v(2))), v(3));
    b.v_sub_f32(v(1), -v(2), -s(3));
    b.mods([clamp()]).v_add_f32(v(1), v(2), v(3));
    b.mods([Mod::Omod(Omod::Mul2)]).v_mul_f32(v(1), v(2), v(3));
    b.mods([Mod::Omod(Omod::Div2), clamp()]).v_mul_f32(v(1), v(2), v(3));
    b.v_fmac_f32(v(8), v(16), v(32));
    b.v_fma_f32(v(1), neg(v(2)), s(3), 0.5f32);
    b.v_mov_b32(v(255), 0);
    b.v_mov_b32(v(4), 64);
    b.v_mov_b32(v(4), 65);
    b.v_mov_b32(v(4), -16);
    b.v_mov_b32(v(4), -17);
    b.v_mov_b32(v(4), lit(0xdead_beef));
    b.v_mov_b32(v(4), m0());
    b.v_mov_b32(v(4), exec_lo());
    b.v_mov_b32(v(4), null());
    b.v_mov_b32(v(4), ttmp(9));
    b.v_and_b32(v(1), 0x3ff, v(0));
    b.v_bfe_u32(v(2), v(0), 10, 10);
    b.v_lshlrev_b32(v(3), 2, v(3));
    b.v_mul_lo_u32(v(3), v(11), s(12));
    b.v_add_nc_u32(v(3), 64, v(3));
    b.v_add_nc_u32(v(3), v(3), s(16)); // SGPR in src1: e64
    b.v_cmp_gt_u32(vcc_lo(), s(4), v(1));
    b.v_cmp_gt_u32(s(6), v(1), v(2)); // non-VCC destination: e64
    b.v_cndmask_b32(v(1), v(2), v(3), vcc_lo());
    b.v_cndmask_b32(v(1), 0, v(3), s(5));
    b.v_add_co_u32(v(5), vcc_lo(), s(4), v(3));
    b.v_add_co_ci_u32(v(6), vcc_lo(), s(5), v(4), vcc_lo());
    b.v_add_co_ci_u32(v(6), null(), s(5), v(4), vcc_lo());
    b.mods([op_sel(&[1, 0, 0]), Mod::NegLo(BitList::new(&[0, 1, 0]))]).v_pk_fma_f16(v(1), v(2), v(3), v(4));
    b.v_cvt_f32_u32(v(7), v(6));
    b.v_readfirstlane_b32(s(9), v(1));
    b.s_mov_b32(s(1), lit(0x1234_5678));
    b.s_mov_b32(s(105), 0.5f32);
    b.s_mov_b32(m0(), s(3));
    b.s_mov_b64(s(2..4), exec());
    b.s_mov_b64(vcc(), s(4..=5));
    b.s_movk_i32(s(3), 0x1234);
    b.s_and_b32(s(15), ttmp(7), 0xffff);
    b.s_lshl_b32(s(17), s(15), 4);
    b.s_cmp_lg_u32(s(13), 0);
    b.s_load_b32(s(12), s(0..2), 0x20);
    b.s_load_b256(s(4..12), s(0..2), 0);
    b.s_load_b64(s(v_range(0, 0).first as i32..2), s(0..2), 0x10);
    // SMEM offsets with an SGPR soffset are signed (21 bits here, 24 on gfx12).
    b.mods([offset(-0x10_0000)]).s_load_b32(s(0), s(24..26), s(2));
    b.global_load_b32(v(9), v(3), s(4..6));
    b.global_store_b32(v(3), v(8), s(8..10));
    b.mods([offset(1024)]).ds_store_b32(v(5), v(10));
    b.mods([offset(16)]).ds_load_b128(v(16..20), v(6));
    b.ds_load_b32(v(32), v(7));
    b.s_nop(0);
    b.s_endpgm();
}

pub fn gfx1100_only(b: &mut Builder) {
    b.s_add_i32(s(13), s(13), -1);
    b.s_add_u32(s(0), s(0), 0x100);
    // gfx1201 too in llvm-mc, but the crate's assembler does not take the 64-bit vaddr form there yet.
    b.global_load_b32(v(9), v(2..4), off());
    b.mods([offset(-64)]).global_load_b128(v(12..16), v(2..4), off());
    b.s_waitcnt(vmcnt(0));
    b.s_waitcnt(vmcnt(0).lgkmcnt(0));
    b.s_barrier();
    b.v_add_f16(v(1).h(), v(2).l(), v(3).l()); // true16 (gfx11 syntax)
    b.v_add_f16(v(1).h(), v(2).l(), v(3).h()); // op_sel derived
    b.v_mad_u64_u32(v(1..3), null(), v(3), s(4), v(5..7));
    b.v_dot2_f32_f16(v(1), v(2), v(3), v(4));
    b.v_wmma_f32_16x16x16_f16(v(0..8), v(8..16), v(16..24), v(0..8));
    b.mods([field("wait_va_vdst", 2)]).lds_param_load(v(1), attr(3, 'z'));
    b.lds_param_load(v(2), attr(32, 'w'));
}

pub fn gfx1201_only(b: &mut Builder) {
    b.s_add_co_i32(s(13), s(13), -1);
    b.s_add_co_u32(s(0), s(0), 0x100);
    b.s_wait_loadcnt(0);
    b.s_wait_dscnt(0);
    b.s_wait_kmcnt(0);
    b.s_barrier_signal(-1);
    b.s_barrier_wait(-1);
    b.mods([field("wait_va_vdst", 2)]).ds_param_load(v(1), attr(3, 'z'));
    b.v_mad_co_u64_u32(v(1..3), null(), v(3), s(4), v(5..7));
    b.mods([offset(-0x1d_aee8)]).s_load_b32(s(0), s(24..26), s(2));
    b.mods([offset(0x7f_ffff)]).s_load_b32(s(0), s(24..26), s(2));
}

pub fn cdna(b: &mut Builder) {
    b.v_add_f32(v(1), v(2), v(3));
    b.v_add_f32(v(1), v(2), s(3));
    b.v_add_f32(v(1), 2.0f32, v(3));
    b.v_add_f32(v(1), 1.5f32, v(3));
    b.v_add_f32(v(1), neg(v(2)), abs(v(3)));
    b.mods([clamp()]).v_add_f32(v(1), v(2), v(3));
    b.v_fmac_f32(v(8), v(16), v(32));
    b.v_fma_f32(v(1), v(2), s(3), 1.0f32);
    b.v_mov_b32(v(4), 65);
    b.v_mov_b32(v(4), m0());
    b.v_cmp_gt_u32(vcc(), s(4), v(1));
    b.v_cmp_gt_u32(s(6..8), v(1), v(2));
    b.v_cndmask_b32(v(1), v(2), v(3), vcc());
    b.v_add_co_u32(v(5), vcc(), s(4), v(3));
    b.v_addc_co_u32(v(6), vcc(), v(5), v(4), vcc());
    b.v_lshlrev_b32(v(3), 2, v(3));
    b.v_mul_lo_u32(v(3), v(11), s(12));
    // AGPRs: moves, an MFMA accumulating in AGPRs, a load into AGPRs.
    b.v_accvgpr_read_b32(v(1), a(1));
    b.v_accvgpr_write_b32(a(0), v(1));
    b.v_accvgpr_write_b32(a(2), 7);
    b.v_mfma_f32_32x32x8_f16(a(0..16), v(16..18), v(18..20), a(0..16));
    b.global_load_dword(a(4), v(2..4), off());
    b.v_mfma_f32_32x32x8_f16(v(0..16), v(16..18), v(18..20), v(0..16));
    b.s_mov_b32(s(101), 0);
    b.s_mov_b64(exec(), s(2..4));
    b.s_load_dword(s(12), s(0..2), 0x20);
    b.mods([offset(-1)]).s_load_dword(s(0), s(24..26), s(2));
    b.s_load_dwordx4(s(4..8), s(0..2), 0);
    b.s_add_u32(s(0), s(0), 0x100);
    b.s_cmp_lg_u32(s(13), 0);
    b.global_load_dword(v(1), v(2..4), off());
    b.mods([offset(16)]).global_load_dwordx4(v(4..8), v(2), s(4..6));
    b.global_store_dword(v(2..4), v(1), off());
    b.mods([offset(1024)]).ds_write_b32(v(5), v(10));
    b.ds_read_b128(v(16..20), v(6));
    b.s_waitcnt(vmcnt(0).lgkmcnt(0));
    b.s_barrier();
    b.s_nop(1);
    b.v_add_f64(v(0..2), 0.5f64, v(2..4));
    b.v_add_f64(v(0..2), 0x4000_0000, v(2..4)); // high half 2.0: inline
    b.s_mov_b64(s(0..2), -17);
    b.s_mov_b64(s(0..2), lit(0x8000_0000));
    b.s_endpgm();
}

/// gfx950 only: the scaled MFMA (two extra scale sources, a 128-bit encoding).
pub fn gfx950_only(b: &mut Builder) {
    b.v_mfma_scale_f32_16x16x128_f8f6f4(v(8..12), v(24..32), v(40..48), v(56..60), v(20), v(21));
    b.mods([op_sel(&[1, 0, 0])]).v_mfma_scale_f32_16x16x128_f8f6f4(
        v(8..12),
        v(24..32),
        v(40..48),
        v(56..60),
        v(20),
        v(21),
    );
}

/// 64-bit operands on gfx11/gfx12 (VOP3 and gfx12 VOP2 take literals): an f64 literal is its
/// high half; an integer literal is 32 bits.
pub fn f64_operands(b: &mut Builder) {
    b.v_add_f64(v(0..2), 1.5f64, v(2..4));
    b.v_add_f64(v(0..2), 2.0f64, v(2..4));
    b.v_add_f64(v(0..2), 0.15915494309189532f64, v(2..4));
    b.v_add_f64(v(0..2), -17, v(2..4));
    b.v_add_f64(v(0..2), 0x3ff8_0001, v(2..4));
    b.v_add_f64(v(0..2), 0x4000_0000, v(2..4));
    b.v_fma_f64(v(0..2), v(2..4), 1.5f32, v(4..6));
    b.s_mov_b64(s(0..2), lit(0xffff_ffff));
    b.s_mov_b64(s(0..2), -17);
    b.v_lshlrev_b64(v(0..2), 3, 0x12345);
}

/// Every hardware register and message of the architecture, by name (the name table of
/// `names`), and register bit ranges.
pub fn symbolic_operands(b: &mut Builder) {
    let arch = b.arch();
    for &(_, name) in baregpu_isa::names::hwreg::table(arch) {
        b.s_getreg_b32(s(0), hwreg(name));
        b.s_getreg_b32(s(1), hwreg_bits(name, 3, 5));
    }
    b.s_setreg_b32(hwreg_bits("HW_REG_MODE", 0, 4), s(1));
    b.s_getreg_b32(s(0), hwreg(63u32));
    for &(_, name) in baregpu_isa::names::sendmsg::table(arch) {
        match name {
            "MSG_GS" | "MSG_GS_DONE" => b.s_sendmsg(sendmsg_op(name, "GS_OP_EMIT", 1)),
            "MSG_SYSMSG" => b.s_sendmsg(sendmsg_op(name, "SYSMSG_OP_TTRACE_PC", 0)),
            _ if name.starts_with("MSG_RTN") => b.s_sendmsg_rtn_b32(s(2), sendmsg(name)),
            _ => b.s_sendmsg(sendmsg(name)),
        };
    }
}
