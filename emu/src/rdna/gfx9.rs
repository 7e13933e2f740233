//! What the gfx9 encodings of CDNA3 (gfx942) and CDNA4 (gfx950) differ in from RDNA's, for the
//! one interpreter both run on: SGPR numbers, SMEM offsets, the AGPR half of the unified vector
//! register file, and the gfx9-only operations. Everything else (opcode semantics, operand
//! modifiers, memory, LDS, barriers, faults) is the shared lowering in [`super::decode`].
//!
//! Sources: AMD "Instinct MI300 (CDNA3) ISA Reference Guide" §3 (SGPR encodings: M0 = 124,
//! 125 reserved; RDNA3: NULL = 124, M0 = 125), §4.1 (SMEM IMM/SOE), §10.1 (AGPRs, ACCUM_OFFSET),
//! and LLVM's AMDGPUUsage (COMPUTE_PGM_RSRC3 for GFX90A/GFX942: ACCUM_OFFSET in bits 5:0, in
//! units of 4 VGPRs, minus one).

use super::ops::*;
use baregpu_autogen::isa::OperandKind;
use baregpu_isa::{Arch, Instruction};

/// Pre-decoded VGPR indices at and above this are AGPRs (`ACC + k` is `a[k]`): where they live in
/// the unified file depends on the kernel's ACCUM_OFFSET, known at dispatch, not at decode.
pub const ACC: u16 = 512;

/// Whether `arch` uses the gfx9 encodings (wave64 only, AGPRs).
pub fn is_gfx9(arch: Arch) -> bool {
    matches!(arch, Arch::Gfx942 | Arch::Gfx950)
}

/// Whether a gfx9 16-bit VALU operation (mnemonic without `_e32`/`_e64`) writing the low half
/// of its destination zeroes the high half: the pre-gfx9 behaviour most 16-bit operations
/// kept. Those gfx9 gave OPSEL (`v_mad_u16`, `v_fma_f16`, `v_div_fixup_f16`, med3/min3/max3,
/// the mix forms) and the accumulating forms (`v_fmac_f16`, `v_mac_f16`, the MADAK/MADMK and
/// FMAAK/FMAMK forms) keep it; SDWA follows its own DST_UNUSED. The list is LLVM's
/// `GCNSubtarget::zeroesHigh16BitsOfDest` (GCNSubtarget.cpp) for generations <= GFX9, where
/// the `_legacy` mnemonics are the pre-gfx9 V_MAD_F16/U16/I16, V_FMA_F16, V_DIV_FIXUP_F16.
pub fn zeroes_high16(m: &str) -> bool {
    matches!(
        m,
        "v_cvt_f16_f32"
            | "v_cvt_f16_u16"
            | "v_cvt_f16_i16"
            | "v_rcp_f16"
            | "v_rsq_f16"
            | "v_sqrt_f16"
            | "v_log_f16"
            | "v_exp_f16"
            | "v_sin_f16"
            | "v_cos_f16"
            | "v_floor_f16"
            | "v_ceil_f16"
            | "v_trunc_f16"
            | "v_rndne_f16"
            | "v_fract_f16"
            | "v_frexp_mant_f16"
            | "v_frexp_exp_i16_f16"
            | "v_ldexp_f16"
            | "v_lshlrev_b16"
            | "v_lshrrev_b16"
            | "v_ashrrev_i16"
            | "v_add_u16"
            | "v_sub_u16"
            | "v_subrev_u16"
            | "v_mul_lo_u16"
            | "v_add_f16"
            | "v_sub_f16"
            | "v_subrev_f16"
            | "v_mul_f16"
            | "v_max_f16"
            | "v_min_f16"
            | "v_max_u16"
            | "v_min_u16"
            | "v_max_i16"
            | "v_min_i16"
            | "v_mad_legacy_f16"
            | "v_mad_legacy_u16"
            | "v_mad_legacy_i16"
            | "v_fma_legacy_f16"
            | "v_div_fixup_legacy_f16"
    )
}

/// The first VGPR of the AGPRs in the unified file: COMPUTE_PGM_RSRC3.ACCUM_OFFSET.
pub fn accum_offset(rsrc3: u32) -> usize {
    ((rsrc3 & 0x3f) as usize + 1) * 4
}

/// Bytes of LDS a workgroup may allocate: what the emulated board reports (64 KiB; gfx950: 160).
pub fn lds_limit(arch: Arch) -> u32 {
    crate::amd::gpus::GpuSpec::for_arch(arch.name()).map_or(64, |s| s.lds_size_in_kb) << 10
}

/// M0 in the pre-decoded form's numbering (see [`canonical_sgprs`]).
const M0: u8 = 125;

/// The pre-decoded form numbers SGPRs as gfx10+ does (124 NULL, 125 M0); gfx9 has M0 at 124
/// and nothing at 125: swap the two in every scalar operand field.
pub fn canonical_sgprs(i: &Instruction) -> Instruction {
    let mut out = *i;
    for o in i.operands() {
        if !matches!(o.kind, OperandKind::Sgpr | OperandKind::Ssrc | OperandKind::Vsrc) {
            continue;
        }
        match i.field(o.name) {
            Some(124) => {
                out.set_field(o.name, 125);
            }
            Some(125) => {
                out.set_field(o.name, 124);
            }
            _ => {}
        }
    }
    // SMEM's offset field holds an SGPR number when IMM is clear.
    if i.format().name == "SMEM" && i.f("imm") == 0 {
        match i.f("offset") {
            124 => out.set_field("offset", 125),
            125 => out.set_field("offset", 124),
            _ => true,
        };
    }
    out
}

/// SMEM's address offset: an immediate (IMM), an SGPR (SOE, or the offset field without IMM),
/// or both.
pub fn smem_offsets(i: &Instruction) -> Result<(i64, Ss), String> {
    let (imm, soe) = (i.f("imm") != 0, i.f("soe") != 0);
    let off = i.f("offset");
    let sgpr = |n: u32| super::decode::ssrc(n, Ty::B32, None);
    Ok(match (imm, soe) {
        (true, false) => (sext(off, 21), Ss::K(0)),
        (true, true) => (sext(off, 21), sgpr(i.f("soffset"))?),
        (false, true) => (0, sgpr(i.f("soffset"))?),
        (false, false) => (0, sgpr(off & 0xff)?),
    })
}

pub fn sext(v: u32, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v as u64) << s) as i64 >> s
}

/// A VGPR or AGPR field: AGPRs become `ACC + k`.
fn vreg(i: &Instruction, field: &str, agpr: bool) -> u16 {
    let r = (i.f(field) & 0xff) as u16;
    if agpr {
        ACC + r
    } else {
        r
    }
}

/// `v_accvgpr_read/write/mov_b32`: one move between the two halves of the unified file.
pub fn lower_accvgpr(m: &str, i: &Instruction, lit: Option<u32>) -> Option<Result<Op, String>> {
    let b = m.strip_suffix("_e64").unwrap_or(m);
    let (dst_acc, src_acc) = match b {
        "v_accvgpr_read_b32" => (false, true),
        "v_accvgpr_write_b32" => (true, false),
        "v_accvgpr_mov_b32" => (true, true),
        _ => return None,
    };
    let dst = vreg(i, "vdst", dst_acc);
    let s0 = i.f("src0");
    let src = if src_acc { Ok(Vs::V(ACC + (s0 & 0xff) as u16)) } else { super::decode::vsrc(s0, Ty::B32, lit) };
    Some(src.map(|src| Op::AccMove { dst, src }))
}

/// `s_set_gpr_idx_on` / `s_set_gpr_idx_off`: VGPR indexing by M0.
pub fn lower_gpr_idx(m: &str, i: &Instruction, lit: Option<u32>) -> Option<Result<Op, String>> {
    match m {
        "s_set_gpr_idx_on" => {
            let src = super::decode::ssrc(i.f("ssrc0"), Ty::B32, lit);
            Some(src.map(|src| Op::GprIdxOn { src, mode: (i.f("ssrc1") & 0xf) as u8 }))
        }
        "s_set_gpr_idx_off" => Some(Ok(Op::GprIdxOff)),
        // M0[7:0] = S0[7:0] (SOP1); M0[15:12] = SIMM16[3:0] (SOPP); the indexing stays as it is.
        "s_set_gpr_idx_idx" => Some(super::decode::ssrc(i.f("ssrc0"), Ty::B32, lit).map(|a| Op::Salu {
            op: SOp::GprIdxIdx,
            dst: M0,
            a,
            b: Ss::R(M0),
            wide: false,
        })),
        "s_set_gpr_idx_mode" => Some(Ok(Op::Salu {
            op: SOp::GprIdxMode,
            dst: M0,
            a: Ss::K((i.f("simm16") & 0xf) as u64),
            b: Ss::R(M0),
            wide: false,
        })),
        _ => None,
    }
}

/// VMEM and DS data registers that are AGPRs (the `acc` bit of gfx90a+).
pub fn acc_fields(i: &Instruction) -> bool {
    i.f("acc") != 0
}

/// The packed-f32 VOP3P operations of gfx90a+ (`v_pk_add/mul/fma/mov_*32`) as two f32
/// operations on the halves of 64-bit register pairs: OPSEL picks each source's half for the low
/// result, OPSEL_HI for the high one; NEG and NEG_HI negate them.
pub fn lower_pk_f32(m: &str, i: &Instruction, lit: Option<u32>) -> Option<Result<Op, String>> {
    let (op, n) = match m {
        "v_pk_add_f32" => (VOp::AddF32, 2),
        "v_pk_mul_f32" => (VOp::MulF32, 2),
        "v_pk_fma_f32" => (VOp::FmaF32, 3),
        "v_pk_mov_b32" => (VOp::Mov, 2),
        _ => return None,
    };
    let (opsel, opsel_hi) = (i.f("opsel"), i.f("opsel_hi") | i.f("opsel_hi2") << 2);
    let half = |k: usize, sel: u32| -> Result<Vs, String> {
        let f = i.f(["src0", "src1", "src2"][k]);
        let s = super::decode::vsrc(f, Ty::F32, lit)?;
        Ok(match s {
            Vs::V(r) => Vs::V(r + sel as u16),
            Vs::S(Ss::R(r)) => Vs::S(Ss::R(r + sel as u8)),
            s => s,
        })
    };
    let one = |hi: bool| -> Result<Valu, String> {
        let sel = if hi { opsel_hi } else { opsel };
        let mut v = super::decode::blank(op, [Ty::F32; 3], Ty::F32);
        v.dst = (i.f("vdst") + hi as u32) as u16;
        v.neg = (if hi { i.f("neg_hi") } else { i.f("neg") }) as u8;
        if op == VOp::Mov {
            // The low result is a half of src0, the high result a half of src1.
            v.nsrc = 1;
            v.src[0] = if hi { half(1, sel >> 1 & 1)? } else { half(0, sel & 1)? };
            v.neg = 0;
        } else {
            v.nsrc = n;
            for k in 0..n as usize {
                v.src[k] = half(k, sel >> k & 1)?;
            }
        }
        Ok(v)
    };
    Some((|| Ok(Op::Vopd(Box::new([one(false)?, one(true)?]))))())
}
