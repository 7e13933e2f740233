//! Scalar ALU and program-flow encodings (SOP1/2/C/K, SOPP) -> ops.

use super::*;

pub(super) fn lower_salu(
    m: &str,
    enc: &str,
    i: &Instruction,
    lit: Option<u32>,
    next: u64,
    resolve: &dyn Fn(u64) -> Tgt,
    gfx12: bool,
) -> Result<Op, String> {
    if let Some(op) = salu_flow(m, i, next, resolve) {
        return Ok(op);
    }
    if let Some(rest) = m.strip_prefix("s_movrel") {
        return lower_movrel(m, rest, i, lit);
    }
    // (op, a width, b width)
    let (op, a64, b64) = salu_sig_arith(m)
        .or_else(|| salu_sig_misc(m))
        .or_else(|| salu_sig_exec_cmp(m))
        .ok_or_else(|| format!("{m}: not supported"))?;
    let _ = gfx12;
    let (a, b) = salu_operands(enc, op, i, lit, a64, b64)?;
    let sdst = i.f("sdst") as u8;
    let dst = if enc == "SOPC" { NULL } else { sdst };
    Ok(Op::Salu { op, dst, a, b, wide: a64 })
}

/// Program-flow and no-op scalar instructions, which need no SALU operation.
fn salu_flow(m: &str, i: &Instruction, next: u64, resolve: &dyn Fn(u64) -> Tgt) -> Option<Op> {
    let sdst = i.f("sdst") as u8;
    match m {
        "s_getpc_b64" => return Some(Op::GetPc { dst: sdst }),
        "s_setpc_b64" => return Some(Op::SetPc { src: i.f("ssrc0") as u8 }),
        "s_swappc_b64" => return Some(Op::SwapPc { dst: sdst, src: i.f("ssrc0") as u8 }),
        "s_call_b64" => {
            let imm = i.f("simm16");
            return Some(Op::CallImm { dst: sdst, tgt: resolve(next.wrapping_add((sext(imm, 16) * 4) as u64)) });
        }
        "s_barrier_signal" | "s_barrier_signal_isfirst" | "s_barrier_init" | "s_barrier_join" | "s_wakeup_barrier" => {
            return Some(Op::Nop)
        }
        "s_waitcnt_vscnt"
        | "s_waitcnt_vmcnt"
        | "s_waitcnt_expcnt"
        | "s_waitcnt_lgkmcnt"
        | "s_version"
        | "s_subvector_loop_begin"
        | "s_subvector_loop_end" => return Some(Op::Nop),
        _ => {}
    }
    None
}

/// Integer arithmetic and bit operations: (op, a is 64-bit, b is 64-bit).
fn salu_sig_arith(m: &str) -> Option<(SOp, bool, bool)> {
    use SOp as S;
    Some(match m {
        "s_add_u32" | "s_add_co_u32" => (S::AddU32, false, false),
        "s_sub_u32" | "s_sub_co_u32" => (S::SubU32, false, false),
        "s_add_i32" | "s_add_co_i32" => (S::AddI32, false, false),
        "s_sub_i32" | "s_sub_co_i32" => (S::SubI32, false, false),
        "s_addc_u32" | "s_add_co_ci_u32" => (S::AddcU32, false, false),
        "s_subb_u32" | "s_sub_co_ci_u32" => (S::SubbU32, false, false),
        "s_min_i32" => (S::MinI32, false, false),
        "s_min_u32" => (S::MinU32, false, false),
        "s_max_i32" => (S::MaxI32, false, false),
        "s_max_u32" => (S::MaxU32, false, false),
        "s_cselect_b32" => (S::Cselect32, false, false),
        "s_cselect_b64" => (S::Cselect64, true, true),
        "s_and_b32" => (S::And32, false, false),
        "s_and_b64" => (S::And64, true, true),
        "s_or_b32" => (S::Or32, false, false),
        "s_or_b64" => (S::Or64, true, true),
        "s_xor_b32" => (S::Xor32, false, false),
        "s_xor_b64" => (S::Xor64, true, true),
        "s_andn2_b32" | "s_and_not1_b32" => (S::Andn232, false, false),
        "s_andn2_b64" | "s_and_not1_b64" => (S::Andn264, true, true),
        "s_orn2_b32" | "s_or_not1_b32" => (S::Orn232, false, false),
        "s_orn2_b64" | "s_or_not1_b64" => (S::Orn264, true, true),
        "s_nand_b32" => (S::Nand32, false, false),
        "s_nand_b64" => (S::Nand64, true, true),
        "s_nor_b32" => (S::Nor32, false, false),
        "s_nor_b64" => (S::Nor64, true, true),
        "s_xnor_b32" => (S::Xnor32, false, false),
        "s_xnor_b64" => (S::Xnor64, true, true),
        "s_lshl_b32" => (S::Lshl32, false, false),
        "s_lshl_b64" => (S::Lshl64, true, false),
        "s_lshr_b32" => (S::Lshr32, false, false),
        "s_lshr_b64" => (S::Lshr64, true, false),
        "s_ashr_i32" => (S::Ashr32, false, false),
        "s_ashr_i64" => (S::Ashr64, true, false),
        "s_bfm_b32" => (S::Bfm32, false, false),
        "s_bfm_b64" => (S::Bfm64, false, false),
        "s_mul_i32" => (S::MulI32, false, false),
        "s_bfe_u32" => (S::BfeU32, false, false),
        "s_bfe_i32" => (S::BfeI32, false, false),
        "s_bfe_u64" => (S::BfeU64, true, false),
        "s_bfe_i64" => (S::BfeI64, true, false),
        "s_absdiff_i32" => (S::AbsdiffI32, false, false),
        "s_lshl1_add_u32" => (S::Lshl1Add, false, false),
        "s_lshl2_add_u32" => (S::Lshl2Add, false, false),
        "s_lshl3_add_u32" => (S::Lshl3Add, false, false),
        "s_lshl4_add_u32" => (S::Lshl4Add, false, false),
        "s_pack_ll_b32_b16" => (S::PackLl, false, false),
        "s_pack_lh_b32_b16" => (S::PackLh, false, false),
        "s_pack_hh_b32_b16" => (S::PackHh, false, false),
        "s_pack_hl_b32_b16" => (S::PackHl, false, false),
        "s_mul_hi_u32" => (S::MulHiU32, false, false),
        "s_mul_hi_i32" => (S::MulHiI32, false, false),
        "s_add_nc_u64" => (S::AddU64, true, true),
        "s_sub_nc_u64" => (S::SubU64, true, true),
        "s_mul_u64" => (S::MulU64, true, true),
        _ => return None,
    })
}

/// Moves, float and bit counts: (op, a is 64-bit, b is 64-bit).
fn salu_sig_misc(m: &str) -> Option<(SOp, bool, bool)> {
    use SOp as S;
    Some(match m {
        "s_add_f32" => (S::AddF32, false, false),
        "s_sub_f32" => (S::SubF32, false, false),
        "s_mul_f32" => (S::MulF32, false, false),
        "s_min_f32" | "s_min_num_f32" => (S::MinF32, false, false),
        "s_max_f32" | "s_max_num_f32" => (S::MaxF32, false, false),
        "s_fmac_f32" => (S::FmacF32, false, false),
        "s_cvt_pk_rtz_f16_f32" => (S::CvtPkRtz, false, false),
        "s_mov_b32" => (S::Mov32, false, false),
        "s_mov_b64" => (S::Mov64, true, true),
        "s_cmov_b32" => (S::Cmov32, false, false),
        "s_cmov_b64" => (S::Cmov64, true, true),
        "s_not_b32" => (S::Not32, false, false),
        "s_not_b64" => (S::Not64, true, true),
        "s_wqm_b32" => (S::Wqm32, false, false),
        "s_wqm_b64" => (S::Wqm64, true, true),
        "s_brev_b32" => (S::Brev32, false, false),
        "s_brev_b64" => (S::Brev64, true, true),
        "s_bcnt0_i32_b32" => (S::Bcnt0_32, false, false),
        "s_bcnt0_i32_b64" => (S::Bcnt0_64, true, true),
        "s_bcnt1_i32_b32" => (S::Bcnt1_32, false, false),
        "s_bcnt1_i32_b64" => (S::Bcnt1_64, true, true),
        "s_ctz_i32_b32" | "s_ff1_i32_b32" => (S::Ctz32, false, false),
        "s_ctz_i32_b64" | "s_ff1_i32_b64" => (S::Ctz64, true, true),
        "s_ff0_i32_b32" => (S::Ff0_32, false, false),
        "s_ff0_i32_b64" => (S::Ff0_64, true, true),
        "s_bitreplicate_b64_b32" => (S::Bitreplicate, false, false),
        "s_clz_i32_u32" | "s_flbit_i32_b32" => (S::Clz32, false, false),
        "s_clz_i32_u64" | "s_flbit_i32_b64" => (S::Clz64, true, true),
        "s_cls_i32" | "s_flbit_i32" => (S::Cls32, false, false),
        "s_cls_i32_i64" | "s_flbit_i32_i64" => (S::Cls64, true, true),
        "s_sext_i32_i8" => (S::Sext8, false, false),
        "s_sext_i32_i16" => (S::Sext16, false, false),
        "s_bitset0_b32" => (S::Bitset0_32, false, false),
        "s_bitset0_b64" => (S::Bitset0_64, false, false),
        "s_bitset1_b32" => (S::Bitset1_32, false, false),
        "s_bitset1_b64" => (S::Bitset1_64, false, false),
        "s_abs_i32" => (S::AbsI32, false, false),
        "s_quadmask_b32" => (S::Quadmask32, false, false),
        "s_quadmask_b64" => (S::Quadmask64, true, true),
        _ => return None,
    })
}

/// EXEC updates, compares and hardware registers: (op, a is 64-bit, b is 64-bit).
fn salu_sig_exec_cmp(m: &str) -> Option<(SOp, bool, bool)> {
    use SOp as S;
    Some(match m {
        "s_and_saveexec_b32" => (S::AndSaveexec, false, false),
        "s_and_saveexec_b64" => (S::AndSaveexec, true, true),
        "s_or_saveexec_b32" => (S::OrSaveexec, false, false),
        "s_or_saveexec_b64" => (S::OrSaveexec, true, true),
        "s_xor_saveexec_b32" => (S::XorSaveexec, false, false),
        "s_xor_saveexec_b64" => (S::XorSaveexec, true, true),
        "s_andn1_saveexec_b32" | "s_and_not0_saveexec_b32" => (S::AndNot0Saveexec, false, false),
        "s_andn1_saveexec_b64" | "s_and_not0_saveexec_b64" => (S::AndNot0Saveexec, true, true),
        "s_andn2_saveexec_b32" | "s_and_not1_saveexec_b32" => (S::AndNot1Saveexec, false, false),
        "s_andn2_saveexec_b64" | "s_and_not1_saveexec_b64" => (S::AndNot1Saveexec, true, true),
        "s_orn1_saveexec_b32" | "s_or_not0_saveexec_b32" => (S::OrNot0Saveexec, false, false),
        "s_orn1_saveexec_b64" | "s_or_not0_saveexec_b64" => (S::OrNot0Saveexec, true, true),
        "s_orn2_saveexec_b32" | "s_or_not1_saveexec_b32" => (S::OrNot1Saveexec, false, false),
        "s_orn2_saveexec_b64" | "s_or_not1_saveexec_b64" => (S::OrNot1Saveexec, true, true),
        "s_nand_saveexec_b32" => (S::NandSaveexec, false, false),
        "s_nand_saveexec_b64" => (S::NandSaveexec, true, true),
        "s_nor_saveexec_b32" => (S::NorSaveexec, false, false),
        "s_nor_saveexec_b64" => (S::NorSaveexec, true, true),
        "s_xnor_saveexec_b32" => (S::XnorSaveexec, false, false),
        "s_xnor_saveexec_b64" => (S::XnorSaveexec, true, true),
        "s_andn1_wrexec_b32" | "s_and_not0_wrexec_b32" => (S::AndNot0Wrexec, false, false),
        "s_andn1_wrexec_b64" | "s_and_not0_wrexec_b64" => (S::AndNot0Wrexec, true, true),
        "s_andn2_wrexec_b32" | "s_and_not1_wrexec_b32" => (S::AndNot1Wrexec, false, false),
        "s_andn2_wrexec_b64" | "s_and_not1_wrexec_b64" => (S::AndNot1Wrexec, true, true),
        "s_cvt_f32_i32" => (S::CvtF32I32, false, false),
        "s_cvt_f32_u32" => (S::CvtF32U32, false, false),
        "s_cvt_i32_f32" => (S::CvtI32F32, false, false),
        "s_cvt_u32_f32" => (S::CvtU32F32, false, false),
        "s_ceil_f32" => (S::CeilF32, false, false),
        "s_floor_f32" => (S::FloorF32, false, false),
        "s_trunc_f32" => (S::TruncF32, false, false),
        "s_rndne_f32" => (S::RndneF32, false, false),
        "s_cvt_f32_f16" => (S::CvtF32F16, false, false),
        "s_cvt_f16_f32" => (S::CvtF16F32, false, false),
        "s_cvt_hi_f32_f16" => (S::CvtHiF32F16, false, false),
        "s_cmp_eq_i32" | "s_cmpk_eq_i32" => (S::CmpEqI32, false, false),
        "s_cmp_lg_i32" | "s_cmpk_lg_i32" => (S::CmpLgI32, false, false),
        "s_cmp_gt_i32" | "s_cmpk_gt_i32" => (S::CmpGtI32, false, false),
        "s_cmp_ge_i32" | "s_cmpk_ge_i32" => (S::CmpGeI32, false, false),
        "s_cmp_lt_i32" | "s_cmpk_lt_i32" => (S::CmpLtI32, false, false),
        "s_cmp_le_i32" | "s_cmpk_le_i32" => (S::CmpLeI32, false, false),
        "s_cmp_eq_u32" | "s_cmpk_eq_u32" => (S::CmpEqU32, false, false),
        "s_cmp_lg_u32" | "s_cmpk_lg_u32" => (S::CmpLgU32, false, false),
        "s_cmp_gt_u32" | "s_cmpk_gt_u32" => (S::CmpGtU32, false, false),
        "s_cmp_ge_u32" | "s_cmpk_ge_u32" => (S::CmpGeU32, false, false),
        "s_cmp_lt_u32" | "s_cmpk_lt_u32" => (S::CmpLtU32, false, false),
        "s_cmp_le_u32" | "s_cmpk_le_u32" => (S::CmpLeU32, false, false),
        "s_cmp_eq_u64" => (S::CmpEqU64, true, true),
        "s_cmp_lg_u64" => (S::CmpLgU64, true, true),
        "s_bitcmp0_b32" => (S::Bitcmp0_32, false, false),
        "s_bitcmp1_b32" => (S::Bitcmp1_32, false, false),
        "s_bitcmp0_b64" => (S::Bitcmp0_64, true, false),
        "s_bitcmp1_b64" => (S::Bitcmp1_64, true, false),
        "s_cmp_lt_f32" => (S::CmpLtF32, false, false),
        "s_cmp_eq_f32" => (S::CmpEqF32, false, false),
        "s_cmp_le_f32" => (S::CmpLeF32, false, false),
        "s_cmp_gt_f32" => (S::CmpGtF32, false, false),
        "s_cmp_lg_f32" => (S::CmpLgF32, false, false),
        "s_cmp_ge_f32" => (S::CmpGeF32, false, false),
        "s_cmp_o_f32" => (S::CmpOF32, false, false),
        "s_cmp_u_f32" => (S::CmpUF32, false, false),
        "s_cmp_nge_f32" => (S::CmpNgeF32, false, false),
        "s_cmp_nlg_f32" => (S::CmpNlgF32, false, false),
        "s_cmp_ngt_f32" => (S::CmpNgtF32, false, false),
        "s_cmp_nle_f32" => (S::CmpNleF32, false, false),
        "s_cmp_neq_f32" => (S::CmpNeqF32, false, false),
        "s_cmp_nlt_f32" => (S::CmpNltF32, false, false),
        "s_movk_i32" => (S::Movk, false, false),
        "s_cmovk_i32" => (S::Cmovk, false, false),
        "s_addk_i32" | "s_addk_co_i32" => (S::Addk, false, false),
        "s_mulk_i32" => (S::Mulk, false, false),
        "s_getreg_b32" => (S::Getreg, false, false),
        "s_setreg_b32" => (S::Setreg, false, false),
        "s_setreg_imm32_b32" => (S::SetregImm, false, false),
        "s_sendmsg_rtn_b32" | "s_sendmsg_rtn_b64" => (S::SendmsgRtn, false, false),
        _ => return None,
    })
}

/// The two SALU sources of an encoding.
fn salu_operands(
    enc: &str,
    op: SOp,
    i: &Instruction,
    lit: Option<u32>,
    a64: bool,
    b64: bool,
) -> Result<(Ss, Ss), String> {
    use SOp as S;
    let sdst = i.f("sdst") as u8;
    let ty = |w: bool| if w { Ty::B64 } else { Ty::B32 };
    Ok(match enc {
        "SOPK" => {
            let imm = i.f("simm16");
            let k = match op {
                S::CmpEqU32 | S::CmpLgU32 | S::CmpGtU32 | S::CmpGeU32 | S::CmpLtU32 | S::CmpLeU32 => imm as u64,
                S::Getreg | S::Setreg | S::SetregImm => imm as u64,
                _ => sext(imm, 16) as u32 as u64,
            };
            match op {
                // s_cmpk: sdst field is the compared register.
                S::CmpEqI32
                | S::CmpLgI32
                | S::CmpGtI32
                | S::CmpGeI32
                | S::CmpLtI32
                | S::CmpLeI32
                | S::CmpEqU32
                | S::CmpLgU32
                | S::CmpGtU32
                | S::CmpGeU32
                | S::CmpLtU32
                | S::CmpLeU32
                | S::Addk
                | S::Mulk
                | S::Setreg => (Ss::R(sdst), Ss::K(k)),
                S::SetregImm => (Ss::K(lit.unwrap_or(0) as u64), Ss::K(k)),
                _ => (Ss::K(k), Ss::K(0)),
            }
        }
        "SOP1" => {
            let s0 = i.f("ssrc0");
            // Bitset: the source is the bit index, the destination is read-modify-written.
            (ssrc(s0, ty(a64), lit)?, Ss::R(sdst))
        }
        _ => (ssrc(i.f("ssrc0"), ty(a64), lit)?, ssrc(i.f("ssrc1"), ty(b64), lit)?),
    })
}

/// SOPP: program flow, barriers, and the hints the emulator has no use for.
pub(super) fn lower_sopp(m: &str, i: &Instruction, next: u64, resolve: &dyn Fn(u64) -> Tgt) -> Result<Op, String> {
    let imm = i.f("simm16");
    let tgt = || resolve(next.wrapping_add((sext(imm, 16) * 4) as u64));
    Ok(match m {
        "s_endpgm" | "s_endpgm_saved" | "s_endpgm_ordered_ps_done" => Op::End,
        "s_branch" => Op::Branch(tgt()),
        "s_cbranch_scc0" => Op::CBranch(Cond::Scc0, tgt()),
        "s_cbranch_scc1" => Op::CBranch(Cond::Scc1, tgt()),
        "s_cbranch_vccz" => Op::CBranch(Cond::Vccz, tgt()),
        "s_cbranch_vccnz" => Op::CBranch(Cond::Vccnz, tgt()),
        "s_cbranch_execz" => Op::CBranch(Cond::Execz, tgt()),
        "s_cbranch_execnz" => Op::CBranch(Cond::Execnz, tgt()),
        "s_barrier" | "s_barrier_wait" => Op::Barrier,
        "s_trap" => Op::Trap,
        m if m.starts_with("s_wait")
            || m.starts_with("s_nop")
            || m.starts_with("s_delay_alu")
            || m.starts_with("s_clause")
            || m.starts_with("s_sendmsg")
            || m.starts_with("s_set_inst_prefetch")
            || m.starts_with("s_inst_prefetch")
            || m == "s_barrier_signal"
            || m == "s_sleep"
            || m == "s_icache_inv"
            || m == "s_code_end"
            || m == "s_setprio"
            || m == "s_sethalt"
            || m == "s_denorm_mode"
            || m == "s_round_mode"
            || m == "s_ttracedata"
            // Hints and debugger controls with no effect here: the performance level, waking
            // waves of the workgroup (none ever sleeps), the debugger's kill request; the
            // conditional debug branches are not taken (no debugger sets their bits).
            || m == "s_wakeup"
            || m == "s_setkill"
            || m == "s_incperflevel"
            || m == "s_decperflevel"
            || m.starts_with("s_cbranch_cdbg")
            || m == "s_singleuse_vdst"
            || m == "s_version" =>
        {
            Op::Nop
        }
        _ => return Err(format!("{m}: not supported")),
    })
}

/// `s_movrels_b32/b64` (SDST = SGPR[SSRC0 + M0]) and `s_movreld_b32/b64` (SGPR[SDST + M0] =
/// SSRC0): scalar moves whose source (destination) register M0 offsets at run time.
fn lower_movrel(m: &str, rest: &str, i: &Instruction, lit: Option<u32>) -> Result<Op, String> {
    let (rel_dst, wide) = match rest {
        "s_b32" => (false, false),
        "s_b64" => (false, true),
        "d_b32" => (true, false),
        "d_b64" => (true, true),
        _ => return Err(format!("{m}: not supported")),
    };
    let src = ssrc(i.f("ssrc0"), if wide { Ty::B64 } else { Ty::B32 }, lit)?;
    if !rel_dst && !matches!(src, Ss::R(_)) {
        return Err(format!("{m}: the source must be an SGPR"));
    }
    Ok(Op::SMovRel { dst: i.f("sdst") as u8, src, wide, rel_dst })
}
