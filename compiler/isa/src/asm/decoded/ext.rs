//! The DPP16, DPP8 and SDWA parts of a VALU instruction read as typed values, as disasm::valu
//! prints them: src0 from the extra dword, the per-source modifier bits, and the trailing
//! controls (`quad_perm:[..]`, `row_mask:`, `dpp8:[..]`, `dst_sel:`...).

use super::{op, reg, source};
use crate::asm::value::{Modifier, Operand, Val};
use crate::disasm::valu::{sdwa_has_dst_sel, Ext, Shape};
use crate::inst::Instruction;
use crate::names::dpp::{ctrl_parts, sdwa_dst_unused_name, sdwa_sel_name, CtrlArg};
use crate::operand::{src, src_val_type, Src};
use crate::tables::takes_mods;

/// Where a source's value lives in a DPP/SDWA form.
pub(super) enum ExtSrc {
    /// In this 8-bit VGPR field (DPP's and SDWA's src0 in the extra dword).
    Vgpr(u32),
    /// An SDWA scalar source (`s0`/`s1` set): read as a source operand, with its modifiers.
    Scalar(Operand<'static>),
}

/// src0 of a DPP form, or src0/vsrc1 of an SDWA form; `None` for any other operand. The outer
/// `None` (no reading) for a scalar source the printer writes as a plain number.
pub(super) fn ext_src(i: &Instruction, ext: Ext, name: &str, dwords: u32) -> Option<Option<ExtSrc>> {
    let (field, scalar) = match (ext, name) {
        (Ext::Dpp16 | Ext::Dpp8, "src0") => return Some(Some(ExtSrc::Vgpr(i.f("dpp_src0")))),
        (Ext::Sdwa, "src0") => ("sdwa_src0", i.f("s0") != 0),
        (Ext::Sdwa, "vsrc1") => ("vsrc1", i.f("s1") != 0),
        _ => return Some(None),
    };
    let v = i.f(field);
    if !scalar {
        return Some(Some(ExtSrc::Vgpr(v)));
    }
    // SDWA takes no literal; the printer writes its code as `0x0`, which the text path reads.
    if matches!(src(i.arch, v as u16), Src::Literal) {
        return None;
    }
    let ty = || src_val_type(i.arch, i.mnemonic(), usize::from(name != "src0"), dwords);
    let mut x = op(source(i.arch, v, dwords, ty, None)?);
    sdwa_src_mods(i, usize::from(name != "src0"), &mut x)?;
    Some(Some(ExtSrc::Scalar(x)))
}

/// neg/abs (where the opcode takes them) and sext of SDWA source `si`; `None` for a negated
/// name (`-vcc_lo` reads back as one name: the text path).
pub(super) fn sdwa_src_mods(i: &Instruction, si: usize, x: &mut Operand<'static>) -> Option<()> {
    let mods = takes_mods(i.opcode(), si);
    x.neg = mods && i.f(SRC_NEG[si]) != 0;
    x.abs = mods && i.f(SRC_ABS[si]) != 0;
    x.sext = i.f(SRC_SEXT[si]) != 0;
    negated_name(x)
}

const SRC_NEG: [&str; 2] = ["src0_neg", "src1_neg"];
const SRC_ABS: [&str; 2] = ["src0_abs", "src1_abs"];
const SRC_SEXT: [&str; 2] = ["src0_sext", "src1_sext"];

/// `None` where a name is negated without abs (`-vcc_lo` reads back as one name).
pub(super) fn negated_name(x: &Operand) -> Option<()> {
    (!(x.neg && !x.abs && matches!(x.val, Val::Name(_)))).then_some(())
}

/// The VOP3 shape's `neg` and `abs` fields, read once per instruction rather than per source.
#[derive(Clone, Copy)]
pub(super) struct Vop3Bits {
    pub(super) neg: u32,
    pub(super) abs: u32,
}

impl Vop3Bits {
    pub(super) fn read(i: &Instruction, s: Shape) -> Vop3Bits {
        match s {
            Shape::Vop3 => Vop3Bits { neg: i.f("neg"), abs: i.f("abs") },
            _ => Vop3Bits { neg: 0, abs: 0 },
        }
    }
}

/// The source modifiers of source `si` (0..=2) in shape `s` with extension `ext`, as
/// disasm::valu::apply_mods reads them; `bits` is [`Vop3Bits::read`] of the same shape.
pub(super) fn src_mods(
    i: &Instruction,
    s: Shape,
    ext: Ext,
    bits: Vop3Bits,
    si: usize,
    x: &mut Operand<'static>,
) -> Option<()> {
    if (s, ext) == (Shape::E32, Ext::Sdwa) && si < 2 {
        // SDWA's sext applies where neg/abs do not (sdwa_src_mods checks those).
        return sdwa_src_mods(i, si, x);
    }
    // The printer applies no other modifier where the opcode takes none.
    if !takes_mods(i.opcode(), si) {
        return Some(());
    }
    match (s, ext) {
        (Shape::Vop3, _) => {
            x.neg = bits.neg >> si & 1 != 0;
            x.abs = bits.abs >> si & 1 != 0;
        }
        (Shape::E32, Ext::Dpp16) if si < 2 => {
            x.neg = i.f(SRC_NEG[si]) != 0;
            x.abs = i.f(SRC_ABS[si]) != 0;
        }
        (Shape::E32, Ext::Sdwa) if si < 2 => return sdwa_src_mods(i, si, x),
        _ => return Some(()),
    }
    negated_name(x)
}

fn push(mods: &mut Vec<Modifier<'static>>, name: &'static str, val: Option<Val<'static>>) {
    mods.push(Modifier { name, val, col: 0 });
}

fn int(v: u32) -> Option<Val<'static>> {
    Some(Val::Int(v.into()))
}

/// The trailing DPP16/DPP8/SDWA controls in the printer's order.
pub(super) fn ext_mods(i: &Instruction, ext: Ext, mods: &mut Vec<Modifier<'static>>) {
    match ext {
        Ext::Dpp16 => {
            let c = i.f("dpp_ctrl");
            match ctrl_parts(i.arch, c) {
                Some((n, CtrlArg::None)) => push(mods, n, None),
                Some((n, CtrlArg::Int(v))) => push(mods, n, int(v)),
                Some((n, CtrlArg::Lanes(l))) => push(mods, n, Some(Val::List(l.iter().map(|&x| x.into()).collect()))),
                None => push(mods, "dpp_ctrl", int(c)),
            }
            push(mods, "row_mask", int(i.f("row_mask")));
            push(mods, "bank_mask", int(i.f("bank_mask")));
            if i.f("bound_ctrl") != 0 {
                push(mods, "bound_ctrl", int(1));
            }
            if i.f("fi") != 0 {
                push(mods, "fi", int(1));
            }
        }
        Ext::Dpp8 => {
            let l = i.f("lane_sel");
            push(mods, "dpp8", Some(Val::List((0..8).map(|k| i64::from(l >> (3 * k) & 7)).collect())));
            // The DPP8 form with fetch-inactive is told by src0's code (234, Src::Dpp8Fi).
            if i.f("src0") == 234 {
                push(mods, "fi", int(1));
            }
        }
        Ext::Sdwa => sdwa_mods(i, mods),
        Ext::None => {}
    }
}

fn sdwa_mods(i: &Instruction, mods: &mut Vec<Modifier<'static>>) {
    // `v_nop_sdwa` with every selector 0: printed bare.
    if i.operands().is_empty() && i.words[1] == 0 {
        return;
    }
    let f = i.format().name;
    if i.f("clamp") != 0 {
        push(mods, "clamp", None);
    }
    super::omod(i.f("omod"), mods);
    if !f.starts_with("VOPC") && sdwa_has_dst_sel(i.mnemonic()) {
        push(mods, "dst_sel", Some(Val::Name(sdwa_sel_name(i.f("dst_sel")))));
        push(mods, "dst_unused", Some(Val::Name(sdwa_dst_unused_name(i.f("dst_unused")))));
    }
    push(mods, "src0_sel", Some(Val::Name(sdwa_sel_name(i.f("src0_sel")))));
    if !f.starts_with("VOP1") {
        push(mods, "src1_sel", Some(Val::Name(sdwa_sel_name(i.f("src1_sel")))));
    }
}

/// A VGPR field of a DPP/SDWA source: `.l`/`.h` for a true16 operand of the 32-bit shape.
pub(super) fn vgpr(v: u32, d: u32, is16_e32: bool) -> Val<'static> {
    if is16_e32 {
        Val::Reg(crate::asm::operand::Reg { file: 'v', first: v & 0x7f, count: 1, hi: Some(v & 0x80 != 0) })
    } else {
        reg('v', v, d)
    }
}
