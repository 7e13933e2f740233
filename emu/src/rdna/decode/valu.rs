//! VALU encodings (VOP1/2/3/3P/C, DPP) -> `Valu`.

use super::*;

pub(in crate::rdna) fn blank(op: VOp, tys: [Ty; 3], dty: Ty) -> Valu {
    Valu {
        op,
        cmp: (CmpOp::F, CmpTy::U32),
        dst: 0,
        sdst: NULL,
        src: [Vs::S(Ss::K(0)); 3],
        nsrc: 0,
        tys,
        dty,
        neg: 0,
        abs: 0,
        opsel: 0,
        opsel_hi: 0,
        clamp: false,
        omod: 0,
        cmpx: false,
        dpp: Dpp::None,
        imm: 0,
        zero_hi: false,
        fast: false,
    }
}

pub(super) fn lower_valu(
    arch: Arch,
    m: &str,
    enc: &str,
    layout: &str,
    i: &Instruction,
    lit: Option<u32>,
) -> Result<Op, String> {
    let unsupported = || format!("{m}: not supported");
    let b = base(m);
    // v_clrexcp clears the exception flags, which the emulator does not keep.
    if b == "v_nop" || b == "v_pipeflush" || b == "v_clrexcp" {
        return Ok(Op::Nop);
    }
    if let Some(op) = gfx9::is_gfx9(arch).then(|| super::cvt8::lower(arch, m, i, lit)).flatten() {
        return op;
    }
    if let Some(op) = b.strip_prefix("v_s_") {
        // gfx12 scalar transcendentals: VOP3 with an SGPR in the vdst field and scalar sources.
        let vector = format!("v_{op}");
        return match lower_valu(arch, &vector, enc, layout, i, lit)? {
            Op::Valu(v) if enc == "VOP3" && arity(v.op) == 1 => Ok(Op::ScalarValu(v)),
            _ => Err(unsupported()),
        };
    }
    let mut v = if let Some((c, t, x)) = cmp_sig(b) {
        let st = cmp_src_ty(t);
        let mut v = blank(VOp::Cmp, [st, if c == CmpOp::Class { Ty::B32 } else { st }, Ty::B32], Ty::Mask);
        v.cmp = (c, t);
        v.cmpx = x;
        v.nsrc = 2;
        v
    } else {
        let (op, tys, dty) = valu_sig(b).ok_or_else(unsupported)?;
        let mut v = blank(op, tys, dty);
        v.nsrc = arity(op);
        v
    };
    match enc {
        "VOP1" | "VOP2" | "VOPC" => lower_vop12c(&mut v, arch, m, enc, layout, i, lit)?,
        "VOP3" | "VOP3P" => lower_vop3(&mut v, m, b, enc, layout, i, lit)?,
        _ => return Err(unsupported()),
    }
    if b == "v_pk_fmac_f16" {
        // gfx9: D = S0 × S1 + D on both halves, in order (the VOP2 form has no OPSEL; the
        // VOP3 form's ABS bits would be read as NEG_HI, which it does not have).
        if v.abs != 0 || v.opsel != 0 {
            return Err(format!("{m}: abs and op_sel not supported"));
        }
        v.src[2] = Vs::V(v.dst);
        v.opsel_hi = 0b111;
    }
    if b == "v_cvt_pkaccum_u8_f32" {
        // The destination is the accumulator: the other three bytes are kept.
        v.src[2] = Vs::V(v.dst);
    }
    if v.op == VOp::Bitop3 {
        // gfx950: the truth table sits in the NEG (bits 2:0), ABS (5:3) and OMOD (7:6) fields.
        v.imm = (i.f("neg") | i.f("abs") << 3 | i.f("omod") << 6) as u8;
        (v.neg, v.abs, v.omod) = (0, 0, 0);
    }
    // Decided here, once: whether the 16-bit result clears the destination's high half.
    // OPSEL[3] (a write to the high half) keeps the low half whatever the operation.
    v.zero_hi = gfx9::is_gfx9(arch) && v.dty.is16() && v.opsel & 8 == 0 && gfx9::zeroes_high16(b);
    if v.op == VOp::Cmp && enc != "VOPC" {
        // VOP3 compares: vdst is the SGPR destination.
        v.dst = i.f("vdst") as u16;
    }
    // v_cmpx writes EXEC; on gfx9 also the compare's SGPR destination (VCC for e32).
    if v.cmpx && !gfx9::is_gfx9(arch) {
        v.dst = 126;
    }
    v.fast = crate::rdna::exec::fast(&v);
    Ok(Op::Valu(v))
}

/// 16-bit operands of the 32-bit encodings: VGPR bit 7 selects the high half (RDNA's true16);
/// gfx9 has no halves there, bit 7 is v128 and up.
fn t16(field: u32, ty: Ty, gfx9: bool) -> (u32, bool) {
    if ty.is16() && !gfx9 {
        (field & !0x80, field & 0x80 != 0)
    } else {
        (field, false)
    }
}

/// The operands of VOP1, VOP2 and VOPC (with their DPP forms).
fn lower_vop12c(
    v: &mut Valu,
    arch: Arch,
    m: &str,
    enc: &str,
    layout: &str,
    i: &Instruction,
    lit: Option<u32>,
) -> Result<(), String> {
    let b = base(m);
    let gfx9 = gfx9::is_gfx9(arch);
    let s0 = i.f("src0");
    let (s0, h0) = if s0 >= 256 {
        let (r, h) = t16(s0 - 256, v.tys[0], gfx9);
        (r + 256, h)
    } else {
        (s0, false)
    };
    if !layout.ends_with("_DPP16") && !layout.ends_with("_DPP8") {
        v.src[0] = vsrc(s0, v.tys[0], lit)?;
    }
    v.opsel |= h0 as u8;
    if enc != "VOP1" {
        let (r, h) = t16(i.f("vsrc1"), v.tys[1], gfx9);
        v.src[1] = Vs::V(r as u16);
        v.opsel |= (h as u8) << 1;
    }
    if enc == "VOPC" {
        v.dst = VCC as u16;
    } else {
        let (r, h) = t16(i.f("vdst"), v.dty, gfx9);
        v.dst = r as u16;
        v.opsel |= (h as u8) << 3;
    }
    // DPP: the source register is in the modifier dword.
    if layout.ends_with("_DPP16") {
        let (r, h) = t16(i.f("dpp_src0"), v.tys[0], gfx9);
        v.src[0] = Vs::V(r as u16);
        v.opsel = (v.opsel & !1) | h as u8;
        v.neg |= i.f("src0_neg") as u8 | (i.f("src1_neg") as u8) << 1;
        v.abs |= i.f("src0_abs") as u8 | (i.f("src1_abs") as u8) << 1;
        v.dpp = Dpp::D16 {
            ctrl: i.f("dpp_ctrl") as u16,
            row_mask: i.f("row_mask") as u8,
            bank_mask: i.f("bank_mask") as u8,
            bound_ctrl: i.f("bound_ctrl") != 0,
            fi: i.f("fi") != 0,
        };
    } else if layout.ends_with("_DPP8") {
        let (r, h) = t16(i.f("dpp_src0"), v.tys[0], gfx9);
        v.src[0] = Vs::V(r as u16);
        v.opsel = (v.opsel & !1) | h as u8;
        v.dpp = Dpp::D8 { sel: i.f("lane_sel"), fi: s0 == 234 };
    }
    implicit_operands(v, b, lit)?;
    if v.nsrc == 3
        && (matches!(v.op, VOp::FmaF32 | VOp::FmaF16 | VOp::FmaF64 | VOp::FmaLegacyF32 | VOp::MadF16 | VOp::PkFmaF16)
            || dot_c(b))
    {
        // fine
    } else if v.nsrc == 3
        && !matches!(v.op, VOp::Cndmask | VOp::CndmaskB16 | VOp::AddCoCi | VOp::SubCoCi | VOp::SubrevCoCi)
    {
        return Err(format!("{m}: not supported"));
    }
    Ok(())
}

/// Implicit operands of the 32-bit forms (VCC, the accumulator, the literal K).
fn implicit_operands(v: &mut Valu, b: &str, lit: Option<u32>) -> Result<(), String> {
    match (v.op, b) {
        (VOp::Cndmask | VOp::CndmaskB16, _) => v.src[2] = Vs::S(Ss::R(VCC)),
        (VOp::AddCoCi | VOp::SubCoCi | VOp::SubrevCoCi, _) => {
            v.src[2] = Vs::S(Ss::R(VCC));
            v.sdst = VCC;
        }
        (VOp::AddCo | VOp::SubCo | VOp::SubrevCo, _) => v.sdst = VCC,
        (VOp::FmaF32 | VOp::FmaF16 | VOp::FmaF64 | VOp::FmaLegacyF32 | VOp::MadF16, _)
            if b.starts_with("v_fmac") || b.starts_with("v_mac") =>
        {
            v.src[2] = Vs::V(v.dst);
            if v.dty.is16() {
                v.opsel |= (v.opsel >> 3 & 1) << 2;
            }
        }
        (VOp::FmaF32 | VOp::FmaF16 | VOp::MadF16, _) if b.ends_with("mk_f32") || b.ends_with("mk_f16") => {
            // d = s0 * K + s1
            v.src[2] = v.src[1];
            v.src[1] = Vs::S(Ss::K(lit.ok_or("literal missing")? as u64 & mask_of(v.tys[1])));
            v.opsel = (v.opsel & !0b110) | ((v.opsel & 2) << 1);
        }
        (VOp::FmaF32 | VOp::FmaF16 | VOp::MadF16, _) if b.ends_with("ak_f32") || b.ends_with("ak_f16") => {
            v.src[2] = Vs::S(Ss::K(lit.ok_or("literal missing")? as u64 & mask_of(v.tys[2])));
        }
        (_, b) if dot_c(b) => dot_c_operands(v),
        (VOp::ReadFirstLane, _) => {}
        _ => {}
    }
    Ok(())
}

/// The operands of VOP3 and VOP3P (with their DPP forms).
fn lower_vop3(
    v: &mut Valu,
    m: &str,
    b: &str,
    enc: &str,
    layout: &str,
    i: &Instruction,
    lit: Option<u32>,
) -> Result<(), String> {
    let vdst = i.f("vdst");
    v.dst = vdst as u16;
    let dpp = layout.ends_with("_DPP16") || layout.ends_with("_DPP8");
    for k in 0..3 {
        let f = ["src0", "src1", "src2"][k];
        let s = i.f(f);
        let ty = v.tys[k];
        if k == 0 && dpp {
            continue;
        }
        v.src[k] = vsrc(s, ty, lit)?;
    }
    v.neg = i.f("neg") as u8;
    v.clamp = i.f("clamp") != 0;
    if enc == "VOP3" {
        v.omod = i.f("omod") as u8;
        if layout.starts_with("VOP3SD") {
            v.sdst = i.f("sdst") as u8;
        } else {
            v.abs = i.f("abs") as u8;
            v.opsel = i.f("opsel") as u8;
        }
    } else {
        v.opsel = i.f("opsel") as u8;
        v.opsel_hi = (i.f("opsel_hi") | i.f("opsel_hi2") << 2) as u8;
        v.abs = i.f("neg_hi") as u8; // fma_mix: neg_hi is abs
        let mix = matches!(v.op, VOp::FmaMixF32 | VOp::FmaMixLoF16 | VOp::FmaMixHiF16);
        if !mix && !crate::rdna::exec::packed(v.op) && !crate::rdna::exec::int_dot(v.op) {
            return Err(format!("{m}: not supported"));
        }
    }
    if layout.ends_with("_DPP16") {
        v.src[0] = Vs::V(i.f("dpp_src0") as u16);
        v.dpp = Dpp::D16 {
            ctrl: i.f("dpp_ctrl") as u16,
            row_mask: i.f("row_mask") as u8,
            bank_mask: i.f("bank_mask") as u8,
            bound_ctrl: i.f("bound_ctrl") != 0,
            fi: i.f("fi") != 0,
        };
    } else if layout.ends_with("_DPP8") {
        v.src[0] = Vs::V(i.f("dpp_src0") as u16);
        v.dpp = Dpp::D8 { sel: i.f("lane_sel"), fi: i.f("src0") == 234 };
    }
    if b.starts_with("v_fmac") || b.starts_with("v_mac") {
        v.src[2] = Vs::V(v.dst);
    }
    if dot_c(b) {
        dot_c_operands(v);
    }
    Ok(())
}

/// gfx9's `v_dot*c_*`: the dot product accumulating into VDST.
fn dot_c(b: &str) -> bool {
    ["v_dot2c_", "v_dot4c_", "v_dot8c_"].iter().any(|p| b.starts_with(p))
}

/// The accumulator is VDST; the 16-bit float forms take each source's two halves in order
/// (the VOP3P default OPSEL_HI, which these encodings lack).
fn dot_c_operands(v: &mut Valu) {
    v.src[2] = Vs::V(v.dst);
    v.opsel_hi = 0b111;
}
