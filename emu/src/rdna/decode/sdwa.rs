//! gfx9 SDWA (VOP1/VOP2/VOPC with src0 = 0xf9 and a second dword): the operation lowers as
//! its plain 32-bit form with SRC0 from the SDWA dword, plus the byte/word selects.
//!
//! Source: AMD "Vega" and "Instinct MI300 (CDNA3)" ISA guides, SDWA encoding: SRC0[7:0],
//! DST_SEL[10:8], DST_UNUSED[12:11], CLAMP[13], OMOD[15:14], SRC0_SEL[18:16], SRC0_SEXT[19],
//! SRC0_NEG[20], SRC0_ABS[21], S0[23] (SRC0 is an SGPR), SRC1_* at [31:24]; VOPC: SDST[14:8]
//! and SD[15] (write SDST, else VCC) in place of DST_*/CLAMP/OMOD.

use super::*;

pub(super) fn lower(arch: Arch, m: &str, i: &Instruction) -> Option<Result<Op, String>> {
    let layout = i.format().name;
    let enc = layout.strip_suffix("_SDWA")?;
    Some(lower_sdwa(arch, m, enc, i))
}

fn lower_sdwa(arch: Arch, m: &str, enc: &str, i: &Instruction) -> Result<Op, String> {
    let t = i.tables();
    let mut plain = *i;
    plain.fmt = t.format_index(enc).ok_or_else(|| format!("{m}: no {enc} layout"))?;
    plain.ndwords = 1;
    plain.literal = None;
    // The plain form's SRC0: a VGPR (256 + n) or, with S0, an SGPR (M0 at 124 on gfx9).
    let n = i.f("sdwa_src0");
    let src0 = if i.f("s0") != 0 { gfx9_sgpr(n) } else { 256 + n };
    plain.set_field("src0", src0);
    let mut v = match lower_valu(arch, m, enc, enc, &plain, None)? {
        Op::Valu(v) => v,
        Op::Cvt8(c) => return cvt8_sdwa(m, *c, i),
        _ => return Err(format!("{m} (SDWA): not supported")),
    };
    if enc != "VOP1" && i.f("s1") != 0 {
        v.src[1] = Vs::S(ssrc(gfx9_sgpr(i.f("vsrc1")), Ty::B32, None)?);
    }
    v.neg = (i.f("src0_neg") | i.f("src1_neg") << 1) as u8;
    v.abs = (i.f("src0_abs") | i.f("src1_abs") << 1) as u8;
    if enc == "VOPC" {
        if i.f("sd") != 0 {
            v.dst = gfx9_sgpr(i.f("sdst")) as u16;
        }
    } else {
        v.clamp = i.f("clamp") != 0;
        v.omod = i.f("omod") as u8;
    }
    let sel = |f: &str| -> Result<u8, String> {
        let s = i.f(f) as u8;
        if s > 6 {
            return Err(format!("{m}: SDWA select {s} is reserved"));
        }
        Ok(s)
    };
    let (dst_sel, dst_unused) = if enc == "VOPC" { (6, 0) } else { (sel("dst_sel")?, i.f("dst_unused") as u8) };
    if dst_unused > 2 {
        return Err(format!("{m}: SDWA dst_unused {dst_unused} is reserved"));
    }
    let src1_sel = if enc == "VOP1" { 6 } else { sel("src1_sel")? };
    Ok(Op::Sdwa(Box::new(Sdwa {
        v,
        src_sel: [sel("src0_sel")?, src1_sel],
        sext: [i.f("src0_sext") != 0, i.f("src1_sext") != 0],
        dst_sel,
        dst_unused,
    })))
}

/// `v_cvt_f32_fp8_sdwa` and kin (gfx942/gfx950): SRC0_SEL picks the byte (or word) the
/// elements start at, as LLVM selects `llvm.amdgcn.cvt.f32.fp8`'s byte (llvm.amdgcn.cvt.fp8.ll);
/// a whole-dword result with no other modifier is all these forms have.
fn cvt8_sdwa(m: &str, mut c: Cvt8, i: &Instruction) -> Result<Op, String> {
    let plain = i.f("dst_sel") == 6 && i.f("clamp") == 0 && i.f("omod") == 0;
    let mods = i.f("src0_sext") | i.f("src0_neg") | i.f("src0_abs");
    if !plain || mods != 0 {
        return Err(format!("{m}: SDWA with a destination select or source modifiers is not supported"));
    }
    c.src_bit = match i.f("src0_sel") {
        s @ 0..=3 => 8 * s as u8,
        4 | 6 => 0,
        5 => 16,
        s => return Err(format!("{m}: SDWA select {s} is reserved")),
    };
    Ok(Op::Cvt8(Box::new(c)))
}

/// An SGPR number of the gfx9 encoding in the pre-decoded numbering (M0 and NULL swapped).
fn gfx9_sgpr(n: u32) -> u32 {
    match n {
        124 => 125,
        125 => 124,
        n => n,
    }
}
