//! A quick check of the commonest lines: a scalar or VALU instruction (no modifiers but VOP3's
//! `clamp` and output modifier) whose operands are registers (low halves included), integers
//! and inline constants.
//! Each operand's field is read from the words and decoded with the readers `valu`/`salu` use
//! (`sreg`, `source`, `reg`, `ext::src_mods`), then compared with the line's value, without
//! building the decoded list. It answers only "the same"; any other case (other modifiers, `.h`
//! halves, a 16-bit literal, DPP/SDWA, `op_sel`) is left to the full reading and comparison.
//! `tests::plain_only_where_full` holds its verdict to theirs.

use baregpu_autogen::isa::OperandKind;

use super::{ext, op, reg, source, sreg, Form};
use crate::asm::operand::Reg;
use crate::asm::value::{Modifier, Operand, Typed, Val};
use crate::disasm::byte_sel;
use crate::disasm::valu::{shape, Ext, Shape};
use crate::inst::Instruction;
use crate::operand::{is_gfx9, src_index, src_val_type, ValType};
use crate::tables::FLAG_LIT16;

/// True when the candidate `i` decodes to the line's operands `w` (no modifiers on either
/// side); false means only "not shown here".
pub fn agrees(i: &Instruction, form: Form, w: &Typed) -> bool {
    if w.ops.len() != i.operands().len() {
        return false;
    }
    match form {
        Form::Salu => w.mods.is_empty() && salu(i, w),
        Form::Valu => valu(i, w),
        _ => false,
    }
}

/// The line's modifiers are `clamp` and the output modifier as `valu` prints them (VOP3 only):
/// the same names with the same values in the same order.
fn same_vop3_mods(i: &Instruction, s: Shape, mods: &[Modifier]) -> bool {
    let (clamp, omod) = match s {
        Shape::Vop3 => (i.f("clamp") != 0, super::omod_parts(i.f("omod"))),
        _ => (false, None),
    };
    let want = usize::from(clamp) + usize::from(omod.is_some());
    let mut it = mods.iter();
    mods.len() == want
        && (!clamp || it.next().is_some_and(|m| m.name == "clamp" && m.val.is_none()))
        && omod.is_none_or(|(n, v)| it.next().is_some_and(|m| m.name == n && m.val == Some(Val::Int(v))))
}

/// A plain operand of the value `got` (as `same_typed` compares registers: a half left
/// implicit is the low one; a written `.h`, which may imply `op_sel`, is left to it).
fn same(a: &Operand, got: Option<Val>) -> bool {
    a.plain() && got.is_some_and(|g| same_val(&a.val, &g))
}

fn same_val(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Reg(x), Val::Reg(y)) => same_reg(x, y),
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Name(x), Val::Name(y)) => x == y,
        (Val::Float(x), Val::Float(y)) => x == y,
        _ => false,
    }
}

fn same_reg(x: &Reg, y: &Reg) -> bool {
    let hi = |r: &Reg| r.hi.unwrap_or(false);
    x.hi != Some(true) && hi(x) == hi(y) && x.file == y.file && x.first == y.first && x.count == y.count
}

/// `salu`'s reading of the register, source and literal operands.
fn salu(i: &Instruction, w: &Typed) -> bool {
    i.operands().iter().zip(&w.ops).all(|(o, a)| {
        let d = o.dwords.max(1) as u32;
        let got = match o.kind {
            OperandKind::Sgpr => sreg(i.arch, i.f(o.name), d),
            OperandKind::Ssrc if i.mnemonic().starts_with("s_sendmsg_rtn") => None,
            OperandKind::Ssrc => {
                let ty = if d == 2 { ValType::B64 } else { ValType::B32 };
                source(i.arch, i.f(o.name), d, || ty, i.literal)
            }
            OperandKind::Imm => Some(Val::Int(i.literal.unwrap_or(0).into())),
            _ => None,
        };
        same(a, got)
    })
}

/// `valu`'s reading of a VOP1/VOP2/VOPC/VOP3 instruction with no DPP/SDWA word, no true16
/// operand and no `op_sel`; its only modifiers are `clamp` and the output modifier.
fn valu(i: &Instruction, w: &Typed) -> bool {
    let (s, ext) = shape(i);
    if ext != Ext::None || !matches!(s, Shape::E32 | Shape::Vop3) {
        return false;
    }
    let t16 = i.tables().t16[i.op as usize];
    let m = i.mnemonic();
    let g9 = is_gfx9(i.arch);
    let bits = ext::Vop3Bits::read(i, s);
    if s == Shape::Vop3
        && (i.f("opsel") != 0
            || g9 && (m.starts_with("v_bitop3") || m.starts_with("v_permlane"))
            || !g9 && byte_sel(m, 0).is_some())
    {
        return false;
    }
    if !same_vop3_mods(i, s, &w.mods) {
        return false;
    }
    i.operands().iter().zip(&w.ops).enumerate().all(|(k, (o, a))| {
        let d = o.dwords.max(1) as u32;
        let got = match o.kind {
            OperandKind::Special => Some(Val::Name(o.name)),
            OperandKind::Sgpr => sreg(i.arch, i.f(o.name), d),
            OperandKind::Vgpr | OperandKind::Agpr | OperandKind::Vsrc => vector(i, s, o, d, t16 >> k & 1 != 0),
            OperandKind::Ssrc => {
                let ty = || src_val_type(i.arch, m, src_index(o.name).unwrap_or(0), d);
                source(i.arch, i.f(o.name), d, ty, i.literal)
            }
            OperandKind::Imm => Some(Val::Int(i.literal.unwrap_or(0).into())),
            _ => Some(Val::Int(i.f(o.name).into())),
        };
        match src_index(o.name).filter(|&x| {
            x < 3 && matches!(o.kind, OperandKind::Vgpr | OperandKind::Agpr | OperandKind::Vsrc | OperandKind::Ssrc)
        }) {
            // A source with its neg/abs, as `valu` reads them (`ext::src_mods`).
            Some(si) if !a.plain() || (bits.neg | bits.abs) != 0 => got.is_some_and(|g| {
                let mut x = op(g);
                ext::src_mods(i, s, ext, bits, si, &mut x).is_some()
                    && (a.neg, a.abs, a.sext) == (x.neg, x.abs, x.sext)
                    && same_val(&a.val, &x.val)
            }),
            _ => same(a, got),
        }
    })
}

/// `vector`'s reading without DPP/SDWA (a compare's or a lane read's destination is a scalar
/// register; `is16`: a true16 operand); `None` (not shown) for a 16-bit literal.
fn vector(i: &Instruction, s: Shape, o: &baregpu_autogen::isa::Operand, d: u32, is16: bool) -> Option<Val<'static>> {
    let m = i.mnemonic();
    let f = i.field_def(o.name)?;
    let v = crate::inst::get(&i.words, f);
    if o.name == "vdst" {
        let is_cmp = m.starts_with("v_cmp");
        if is_cmp && s == Shape::Vop3 || m.starts_with("v_readlane") || m.starts_with("v_readfirstlane") {
            return sreg(i.arch, v, if is_cmp { 1 + u32::from(is_gfx9(i.arch)) } else { d });
        }
    }
    let agpr = o.kind == OperandKind::Agpr;
    let e32_16 = is16 && s == Shape::E32;
    let mut val = if f.hi - f.lo != 8 {
        if e32_16 {
            ext::vgpr(v, d, true)
        } else {
            reg(if agpr { 'a' } else { 'v' }, v, d)
        }
    } else if agpr && v >= 256 {
        reg('a', v - 256, d)
    } else if e32_16 && v >= 256 {
        ext::vgpr(v - 256, d, true)
    } else if v == 255 && i.opcode().flags & FLAG_LIT16 != 0 {
        // A 16-bit literal reads its low half (or, negative, its sign extension: asm::neg16).
        return None;
    } else {
        let si = src_index(o.name).filter(|&x| x < 3);
        source(i.arch, v, d, || src_val_type(i.arch, m, si.unwrap_or(0), d), i.literal)?
    };
    // A true16 VOP3 register: its half is op_sel's bit, 0 here.
    if is16 && s == Shape::Vop3 {
        if let Val::Reg(r @ Reg { file: 'v' | 'a', count: 1, .. }) = &mut val {
            r.hi = Some(false);
        }
    }
    Some(val)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::lexer::split_line;
    use crate::asm::value::typed;
    use crate::Arch;

    /// Over the golden vectors, each also with the lowest and the highest bit of each field
    /// flipped: wherever the quick check answers "the same", the full reading and comparison
    /// (`decoded` and `same_typed`) does too; and the quick check answers for many lines.
    #[test]
    fn plain_only_where_full() {
        for arch in Arch::ALL {
            let (mut lines, mut shown, mut flips) = (0, 0, 0);
            for (text, b) in crate::golden_vectors::golden(arch) {
                let text = text.as_str();
                let Ok(i) = crate::decode(arch, &b) else { continue };
                let Some(l) = split_line(text, 1) else { continue };
                let w = typed(&l);
                let full = |m: &Instruction| {
                    super::super::decoded(m).is_some_and(|g| crate::asm::verify::same_typed(m, &w, &g))
                };
                lines += 1;
                if agrees(&i, super::super::form(&i), &w) {
                    assert!(full(&i), "{}: '{text}'", arch.name());
                    shown += 1;
                }
                for f in i.format().fields.iter().filter(|f| f.name != "op") {
                    for bit in [0, u32::from(f.hi - f.lo).min(31)] {
                        let mut m = i;
                        if !m.set_field(f.name, i.f(f.name) ^ 1 << bit) || !agrees(&m, super::super::form(&m), &w) {
                            continue;
                        }
                        assert!(full(&m), "{}: '{text}' with {} bit {bit} flipped", arch.name(), f.name);
                        flips += 1;
                    }
                }
            }
            eprintln!("{}: {shown} of {lines} lines shown the same; {flips} flipped words", arch.name());
            assert!(shown * 5 > lines, "{}: only {shown} of {lines}", arch.name());
        }
    }
}
