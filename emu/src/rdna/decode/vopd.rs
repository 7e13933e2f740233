//! VOPD (gfx11+ dual issue): two VALU operations in one instruction.

use super::*;

/// Whether a first dword is VOPD (which the opcode tables do not list), and its size in bytes.
pub fn vopd_size(w0: u32, w1: u32) -> Option<usize> {
    if w0 & 0xfc00_0000 != 0xc800_0000 {
        return None;
    }
    let opx = (w0 >> 22) & 0xf;
    let opy = (w0 >> 17) & 0x1f;
    let lit = (w0 & 0x1ff) == 255 || (w1 & 0x1ff) == 255 || matches!(opx, 1 | 2) || matches!(opy, 1 | 2);
    Some(if lit { 12 } else { 8 })
}

/// VOPD: two VOP2-like operations, decoded here from the raw dwords.
pub fn lower_vopd(w0: u32, w1: u32, lit: Option<u32>) -> Result<Op, String> {
    let opx = (w0 >> 22) & 0xf;
    let opy = (w0 >> 17) & 0x1f;
    let src0x = w0 & 0x1ff;
    let vsrc1x = (w0 >> 9) & 0xff;
    let src0y = w1 & 0x1ff;
    let vsrc1y = (w1 >> 9) & 0xff;
    let vdstx = (w1 >> 24) & 0xff;
    let vdsty = (((w1 >> 17) & 0x7f) << 1) | ((vdstx & 1) ^ 1);
    let one = |op: u32, s0: u32, s1: u32, d: u32| -> Result<Valu, String> {
        let (vop, name) = match op {
            0 => (VOp::FmaF32, "v_dual_fmac_f32"),
            1 => (VOp::FmaF32, "v_dual_fmaak_f32"),
            2 => (VOp::FmaF32, "v_dual_fmamk_f32"),
            3 => (VOp::MulF32, "v_dual_mul_f32"),
            4 => (VOp::AddF32, "v_dual_add_f32"),
            5 => (VOp::SubF32, "v_dual_sub_f32"),
            6 => (VOp::SubrevF32, "v_dual_subrev_f32"),
            7 => (VOp::MulLegacyF32, "v_dual_mul_dx9_zero_f32"),
            8 => (VOp::Mov, "v_dual_mov_b32"),
            9 => (VOp::Cndmask, "v_dual_cndmask_b32"),
            10 => (VOp::MaxF32, "v_dual_max_f32"),
            11 => (VOp::MinF32, "v_dual_min_f32"),
            16 => (VOp::AddU32, "v_dual_add_nc_u32"),
            17 => (VOp::LshlRev, "v_dual_lshlrev_b32"),
            18 => (VOp::And, "v_dual_and_b32"),
            _ => return Err(format!("v_dual opcode {op}: not supported")),
        };
        let ty = if matches!(vop, VOp::Mov | VOp::Cndmask | VOp::AddU32 | VOp::LshlRev | VOp::And) {
            Ty::B32
        } else {
            Ty::F32
        };
        let mut v = blank(vop, [ty, ty, Ty::Mask], ty);
        v.dst = d as u16;
        v.src[0] = vsrc(s0, ty, lit)?;
        v.src[1] = Vs::V(s1 as u16);
        v.nsrc = if vop == VOp::Mov { 1 } else { 2 };
        // The FMAs' third source is an f32 (the blank's third type is the cndmask's lane mask).
        if matches!(op, 0..=2) {
            v.tys[2] = ty;
        }
        match op {
            0 => {
                v.src[2] = Vs::V(d as u16);
                v.nsrc = 3;
            }
            1 => {
                v.src[2] = Vs::S(Ss::K(lit.unwrap_or(0) as u64));
                v.nsrc = 3;
            }
            2 => {
                v.src[2] = v.src[1];
                v.src[1] = Vs::S(Ss::K(lit.unwrap_or(0) as u64));
                v.nsrc = 3;
            }
            9 => {
                v.src[2] = Vs::S(Ss::R(VCC));
                v.nsrc = 3;
            }
            _ => {}
        }
        let _ = name;
        Ok(v)
    };
    let x = one(opx, src0x, vsrc1x, vdstx)?;
    let y = one(opy, src0y, vsrc1y, vdsty)?;
    Ok(Op::Vopd(Box::new([x, y])))
}
