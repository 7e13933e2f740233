//! VOP3P (packed math, mixed precision, dot products, WMMA) and MFMA read as typed values, as
//! disasm::valu prints them with no DPP.

use baregpu_autogen::isa::OperandKind;

use super::{op, reg, source, sreg};
use crate::asm::operand::Reg;
use crate::asm::value::{Modifier, Operand, Typed, Val};
use crate::disasm::valu::{mfma_acc, mfma_regs, Shape};
use crate::inst::Instruction;
use crate::operand::{src_index, src_val_type};
use crate::tables::{takes_mods, FLAG_LIT16};

/// One register or source operand (vdst, src0..src2) with its `.l`/`.h` half and, for the
/// mixed-precision ops, its neg/abs.
fn vector(i: &Instruction, s: Shape, k: usize, o: &baregpu_autogen::isa::Operand) -> Option<Operand<'static>> {
    let m = i.mnemonic();
    let v = i.f(o.name);
    let d = o.dwords.max(1) as u32;
    let vgpr_field = i.field_def(o.name).is_none_or(|f| f.hi - f.lo != 8);
    let agpr = o.kind == OperandKind::Agpr;
    let acc = s == Shape::Mfma && mfma_acc(i, o.name) || agpr && !vgpr_field && v >= 256;
    let d = if s == Shape::Mfma { mfma_regs(i, o.name, d) } else { d };
    let mut val = if vgpr_field {
        reg(if acc || agpr { 'a' } else { 'v' }, v, d)
    } else if acc && v >= 256 {
        reg('a', v - 256, d)
    } else {
        let lit = if i.opcode().flags & FLAG_LIT16 != 0 { i.literal.map(|l| l & 0xffff) } else { i.literal };
        source(i.arch, v, d, || src_val_type(i.arch, m, src_index(o.name).unwrap_or(0), d), lit)?
    };
    let idx = src_index(o.name);
    let is16 = i.tables().t16[i.op as usize] >> k & 1 != 0;
    if let Val::Reg(r @ Reg { count: 1, .. }) = &mut val {
        if is16 && (vgpr_field || v >= 256) {
            r.hi = Some(i.f("opsel") >> idx.unwrap_or(0) & 1 != 0);
        }
    }
    with_mods(i, s, idx, op(val))
}

/// neg/abs of a mixed-precision source (in the neg and neg_hi fields); the others take none.
fn with_mods(i: &Instruction, s: Shape, idx: Option<usize>, mut x: Operand<'static>) -> Option<Operand<'static>> {
    let Some(si) = idx.filter(|&k| k < 3) else { return Some(x) };
    if s != Shape::Vop3p || !crate::substr::has(i.mnemonic(), "_mix") || !takes_mods(i.opcode(), si) {
        return Some(x);
    }
    x.neg = i.f("neg") >> si & 1 != 0;
    x.abs = i.f("neg_hi") >> si & 1 != 0;
    // `-vcc_lo` reads back as one name, not a negated one: the text path (as decoded::valu).
    if x.neg && !x.abs && matches!(x.val, Val::Name(_)) {
        return None;
    }
    Some(x)
}

/// VOP3P or MFMA (`s`), no DPP.
pub(super) fn vop3p(i: &Instruction, s: Shape, spare: Typed<'static>) -> Option<Typed<'static>> {
    let kinds = i.operands();
    let Typed { mut ops, mut mods } = spare;
    for (k, o) in kinds.iter().enumerate() {
        let x = match o.kind {
            OperandKind::Special => op(Val::Name(o.name)),
            OperandKind::Sgpr => op(sreg(i.arch, i.f(o.name), o.dwords.max(1) as u32)?),
            OperandKind::Vgpr | OperandKind::Agpr | OperandKind::Vsrc => vector(i, s, k, o)?,
            OperandKind::Ssrc => {
                let (v, d) = (i.f(o.name), o.dwords.max(1) as u32);
                // A VGPR in a scalar-only source prints with a comment: the text path.
                if v >= 256 {
                    return None;
                }
                with_mods(
                    i,
                    s,
                    src_index(o.name),
                    op(source(
                        i.arch,
                        v,
                        d,
                        || src_val_type(i.arch, i.mnemonic(), src_index(o.name).unwrap_or(0), d),
                        i.literal,
                    )?),
                )?
            }
            OperandKind::Imm => op(Val::Int(i.literal.unwrap_or(0).into())),
            _ => op(Val::Int(i.f(o.name).into())),
        };
        ops.push(x);
    }
    let nsrc = kinds.iter().filter(|o| matches!(o.name, "src0" | "src1" | "src2" | "vsrc1")).count();
    if s == Shape::Mfma {
        mfma_mods(i, &mut mods);
    } else {
        packed_mods(i, nsrc, &mut mods);
    }
    Some(Typed { ops, mods })
}

fn bits(v: u32, n: usize) -> Val<'static> {
    Val::List((0..n).map(|k| i64::from(v >> k & 1)).collect())
}

fn push(mods: &mut Vec<Modifier<'static>>, name: &'static str, val: Option<Val<'static>>) {
    mods.push(Modifier { name, val, col: 0 });
}

/// As disasm::valu::vop3p_mods: op_sel (or a sparse WMMA's index_key), op_sel_hi where it is
/// not the default, neg_lo/neg_hi (packed math only), clamp.
fn packed_mods(i: &Instruction, nsrc: usize, mods: &mut Vec<Modifier<'static>>) {
    let mix = crate::substr::has(i.mnemonic(), "_mix");
    let opsel = i.f("opsel");
    let hi = i.f("opsel_hi") | i.f("opsel_hi2") << 2;
    let full = (1u32 << nsrc) - 1;
    if i.mnemonic().starts_with("v_swmmac") {
        if opsel & 3 != 0 {
            push(mods, "index_key", Some(Val::Int((opsel & 3).into())));
        }
    } else if opsel & full != 0 {
        push(mods, "op_sel", Some(bits(opsel, nsrc)));
    }
    if hi & full != if mix { 0 } else { full } {
        push(mods, "op_sel_hi", Some(bits(hi, nsrc)));
    }
    if !mix {
        let (nl, nh) = (i.f("neg"), i.f("neg_hi"));
        if nl & full != 0 {
            push(mods, "neg_lo", Some(bits(nl, nsrc)));
        }
        if nh & full != 0 {
            push(mods, "neg_hi", Some(bits(nh, nsrc)));
        }
    }
    if i.f("clamp") != 0 {
        push(mods, "clamp", None);
    }
}

/// As disasm::valu::mfma_mods: the scale word's op_sel/op_sel_hi (gfx950 scaled MFMA), then
/// cbsz, abid and blgp (an f64 MFMA's blgp is its `neg`).
fn mfma_mods(i: &Instruction, mods: &mut Vec<Modifier<'static>>) {
    let x2 = i.field_def("scale_opsel").is_some();
    if x2 {
        let sel = i.f("scale_opsel") & 3;
        if sel != 0 {
            push(mods, "op_sel", Some(bits(sel, 3)));
        }
        push(mods, "op_sel_hi", Some(bits(i.f("scale_opsel_hi") & 3, 3)));
    }
    let f64 = i.mnemonic().starts_with("v_mfma_f64");
    for n in ["cbsz", "abid", "blgp"] {
        let v = i.f(n);
        if v == 0 || x2 && n == "abid" {
            continue;
        }
        if f64 && n == "blgp" {
            push(mods, "neg", Some(bits(v, 3)));
        } else {
            push(mods, n, Some(Val::Int(v.into())));
        }
    }
}
