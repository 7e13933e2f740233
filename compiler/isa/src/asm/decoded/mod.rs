//! An instruction's operands and modifiers read straight from its fields as typed values: what
//! the disassembler would print, parsed back, without the text. The assembler's verification
//! (verify.rs) compares these with the line's operands; it covers the scalar ALU, SMEM,
//! VOP1/VOP2/VOPC/VOP3 with their DPP16/DPP8/SDWA forms, VOP3P/MFMA, DS/FLAT/GLOBAL/SCRATCH
//! (atomics included) and the buffer formats, which are most of real code, and returns `None`
//! for the rest, which verify then reads back through the disassembler's text.
//! `tests::same_as_printed` holds the two readings equal over the golden vectors.

mod buf;
mod ext;
pub(super) mod plain;
mod vop3p;

use baregpu_autogen::isa::OperandKind;

use super::operand::Reg;
use super::value::{Modifier, Operand, Typed, Val};
use crate::disasm::byte_sel;
use crate::disasm::valu::{shape, Ext, Shape};
use crate::inst::Instruction;
use crate::operand::{is_gfx9, src, src_index, src_val_type, Src, ValType};
use crate::tables::FLAG_LIT16;
use crate::Arch;

/// The instruction's operands and modifiers, or `None` for a form this module does not read.
#[cfg(test)]
pub fn decoded(i: &Instruction) -> Option<Typed<'static>> {
    read(i, form(i), Typed::default())
}

/// Which reading an instruction gets: the one definition of the forms this module reads
/// (and [`plain`]'s quick check with it).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    Salu,
    Valu,
    Mem,
    Smem,
    Buffer,
    Vop3p(Shape),
    /// Read back through the disassembler's text.
    Text,
}

/// The [`Form`] of `i` (its format, and the words whose text no line writes).
pub(super) fn form(i: &Instruction) -> Form {
    let f = i.format();
    match f.parent.unwrap_or(f.name) {
        // A register or mode llvm-mc refuses (asm::waitcnt_null, asm::gpr_idx_mode): read back
        // through the `.long` text.
        "SOPK" if super::waitcnt_null::check(i).is_err() => Form::Text,
        "SOPC" if super::gpr_idx_mode::check(i).is_err() => Form::Text,
        "SOP1" | "SOP2" | "SOPC" | "SOPK" => Form::Salu,
        // Modifier bits and fields no line writes (disasm::raw prints the word as `.long`): read
        // back through that text.
        "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3SD"
            if crate::src_mods::refused_bits(i) || super::sdwa_dst::unwritten(i) =>
        {
            Form::Text
        }
        "VOP1" | "VOP2" | "VOP3" | "VOP3SD" | "VOPC" => Form::Valu,
        "DS" | "FLAT" | "GLOBAL" | "SCRATCH" | "SMEM" | "MUBUF" | "MTBUF" | "VBUFFER"
            if crate::disasm::unwritten::unwritten_field(i) =>
        {
            Form::Text
        }
        "DS" | "FLAT" | "GLOBAL" | "SCRATCH" => Form::Mem,
        "SMEM" => Form::Smem,
        "MUBUF" | "MTBUF" | "VBUFFER" => Form::Buffer,
        _ => match shape(i) {
            // A modifier bit llvm-mc's assembler writes for no line (isa::modifiers): `.long`.
            (Shape::Vop3p, Ext::None) if crate::modifiers::refused(i) => Form::Text,
            // A scaled MFMA's third scale selector (disasm::unwritten): `.long`.
            (Shape::Mfma, Ext::None) if crate::disasm::unwritten::scale_third_selector(i) => Form::Text,
            (s @ (Shape::Vop3p | Shape::Mfma), Ext::None) => Form::Vop3p(s),
            _ => Form::Text,
        },
    }
}

/// [`decoded`] of an instruction whose [`form`] the caller found, written into `spare`'s lists
/// (emptied first): the assembler reads back every line it assembles, and reusing one pair of
/// lists spares it two allocations a line.
pub(super) fn read(i: &Instruction, form: Form, mut spare: Typed<'static>) -> Option<Typed<'static>> {
    spare.ops.clear();
    spare.mods.clear();
    match form {
        Form::Salu => salu(i, spare),
        Form::Valu => valu(i, spare),
        Form::Mem => mem(i, spare),
        Form::Smem => buf::smem(i, spare),
        Form::Buffer => buf::buffer(i, spare),
        Form::Vop3p(s) => vop3p::vop3p(i, s, spare),
        Form::Text => None,
    }
}

fn op(val: Val<'static>) -> Operand<'static> {
    // A name keeps its text: verify::split_extra reads an operand past the table's (`off` after
    // a returning atomic's extra destination) as the modifier its text names.
    let text = if let Val::Name(n) = val { n } else { "" };
    Operand { val, neg: false, abs: false, sext: false, col: 0, text, inner: text }
}

fn reg(file: char, first: u32, count: u32) -> Val<'static> {
    Val::Reg(Reg { file, first, count, hi: None })
}

/// A scalar register field of `count` dwords, as `sreg_text` prints it.
fn sreg(arch: Arch, v: u32, count: u32) -> Option<Val<'static>> {
    let wide = count >= 2;
    Some(match src(arch, v as u16) {
        Src::Sgpr(n) => reg('s', n.into(), count),
        Src::Ttmp(n) => reg('t', n.into(), count),
        Src::VccLo if wide => Val::Name("vcc"),
        Src::VccLo => Val::Name("vcc_lo"),
        Src::VccHi => Val::Name("vcc_hi"),
        Src::ExecLo if wide => Val::Name("exec"),
        Src::ExecLo => Val::Name("exec_lo"),
        Src::ExecHi => Val::Name("exec_hi"),
        Src::M0 => Val::Name("m0"),
        Src::Null => Val::Name("null"),
        Src::Named(n, false) if wide => Val::Name(n),
        Src::Named("flat_scratch", hi) => Val::Name(if hi { "flat_scratch_hi" } else { "flat_scratch_lo" }),
        Src::Named("xnack_mask", hi) => Val::Name(if hi { "xnack_mask_hi" } else { "xnack_mask_lo" }),
        Src::Const(c) => Val::Name(c),
        _ => return None,
    })
}

/// A source field's value, as `src_text` prints it. `ty` is asked only for an inline float (it
/// reads the mnemonic; most sources are registers or integers).
fn source(arch: Arch, v: u32, dwords: u32, ty: impl FnOnce() -> ValType, literal: Option<u32>) -> Option<Val<'static>> {
    Some(match src(arch, v as u16) {
        Src::Vgpr(n) => reg('v', n.into(), dwords),
        Src::Int(n) => Val::Int(n.into()),
        Src::Float(c) => Val::Float(crate::operand::float_text(c, ty()).parse().ok()?),
        Src::Literal => Val::Int(literal.unwrap_or(0).into()),
        _ => sreg(arch, v, dwords)?,
    })
}

fn salu(i: &Instruction, spare: Typed<'static>) -> Option<Typed<'static>> {
    let m = i.mnemonic();
    let Typed { mut ops, mods } = spare;
    for o in i.operands() {
        let d = o.dwords.max(1) as u32;
        let v = i.f(o.name);
        let val = match o.kind {
            OperandKind::Sgpr => sreg(i.arch, v, d)?,
            OperandKind::Ssrc if m.starts_with("s_sendmsg_rtn") => return None,
            OperandKind::Ssrc => {
                let ty = if d == 2 { ValType::B64 } else { ValType::B32 };
                source(i.arch, v, d, || ty, i.literal)?
            }
            OperandKind::Label if is_gfx9(i.arch) => Val::Int(v.into()),
            OperandKind::Label => Val::Int((v as u16 as i16).into()),
            OperandKind::Imm => Val::Int(i.literal.unwrap_or(0).into()),
            // Printed symbolically by salu::simm16: the text path.
            OperandKind::Simm16
                if matches!(
                    m,
                    "s_waitcnt"
                        | "s_delay_alu"
                        | "s_waitcnt_depctr"
                        | "s_wait_alu"
                        | "s_set_gpr_idx_on"
                        | "s_set_gpr_idx_mode"
                ) =>
            {
                return None
            }
            OperandKind::Special => Val::Name(o.name),
            // hwreg/sendmsg operands are compared through their field (verify::same_line).
            _ => Val::Int(v.into()),
        };
        ops.push(op(val));
    }
    Some(Typed { ops, mods })
}

fn valu(i: &Instruction, spare: Typed<'static>) -> Option<Typed<'static>> {
    let (s, ext) = shape(i);
    let m = i.mnemonic();
    let g9 = is_gfx9(i.arch);
    let opsel = i.f("opsel");
    if !matches!(s, Shape::E32 | Shape::Vop3)
        || s == Shape::Vop3
            && (opsel != 0 || ext == Ext::Sdwa || g9 && (m.starts_with("v_bitop3") || m.starts_with("v_permlane")))
        || s == Shape::Vop3 && !g9 && byte_sel(m, opsel).is_some()
    {
        return None;
    }
    let t16 = i.tables().t16[i.op as usize];
    let bits = ext::Vop3Bits::read(i, s);
    let Typed { mut ops, mut mods } = spare;
    for (k, o) in i.operands().iter().enumerate() {
        let x = match o.kind {
            OperandKind::Special if ext == Ext::Sdwa && o.name == "vcc" && i.f("sd") != 0 => {
                // gfx9 VOPC SDWA: `sd` sends the result to an SGPR pair instead of VCC.
                op(sreg(i.arch, i.f("sdst"), 2)?)
            }
            OperandKind::Special => op(Val::Name(o.name)),
            OperandKind::Sgpr => op(sreg(i.arch, i.f(o.name), o.dwords.max(1) as u32)?),
            OperandKind::Vgpr | OperandKind::Agpr | OperandKind::Vsrc => {
                vector(i, (s, ext, bits), t16 >> k & 1 != 0, o)?
            }
            OperandKind::Ssrc => {
                let d = o.dwords.max(1) as u32;
                let ty = || src_val_type(i.arch, m, src_index(o.name).unwrap_or(0), d);
                let mut x = op(source(i.arch, i.f(o.name), d, ty, i.literal)?);
                if let Some(si) = src_index(o.name).filter(|&x| x < 3) {
                    ext::src_mods(i, s, ext, bits, si, &mut x)?;
                }
                x
            }
            OperandKind::Imm => op(Val::Int(i.literal.unwrap_or(0).into())),
            _ => op(Val::Int(i.f(o.name).into())),
        };
        ops.push(x);
    }
    if s == Shape::Vop3 {
        if i.f("clamp") != 0 {
            mods.push(Modifier { name: "clamp", val: None, col: 0 });
        }
        omod(i.f("omod"), &mut mods);
    }
    ext::ext_mods(i, ext, &mut mods);
    Some(Typed { ops, mods })
}

/// The output modifier as printed: `mul:2`, `mul:4`, `div:2`, or nothing.
fn omod(v: u32, mods: &mut Vec<Modifier<'static>>) {
    if let Some((name, n)) = omod_parts(v) {
        mods.push(Modifier { name, val: Some(Val::Int(n)), col: 0 });
    }
}

/// [`omod`]'s name and value of an `omod` field value.
fn omod_parts(v: u32) -> Option<(&'static str, i64)> {
    match v {
        1 => Some(("mul", 2)),
        2 => Some(("mul", 4)),
        3 => Some(("div", 2)),
        _ => None,
    }
}

/// A VGPR, AGPR or vector-source operand of a VOP1/VOP2/VOPC/VOP3 form (DPP/SDWA included),
/// with its source modifiers; `is16`: a true16 operand.
fn vector(
    i: &Instruction,
    (s, ext, bits): (Shape, Ext, ext::Vop3Bits),
    is16: bool,
    o: &baregpu_autogen::isa::Operand,
) -> Option<Operand<'static>> {
    let m = i.mnemonic();
    let g9 = is_gfx9(i.arch);
    let is_cmp = m.starts_with("v_cmp");
    let d = o.dwords.max(1) as u32;
    // The field looked up by name once, for its value and its width.
    let fd = i.field_def(o.name);
    let v = fd.map_or(0, |f| crate::inst::get(&i.words, f));
    if o.name == "vdst"
        && (is_cmp && s == Shape::Vop3 || m.starts_with("v_readlane") || m.starts_with("v_readfirstlane"))
    {
        let n = if is_cmp { 1 + u32::from(g9) } else { d };
        return Some(op(sreg(i.arch, v, n)?));
    }
    let si = src_index(o.name).filter(|&x| x < 3);
    let val = match ext::ext_src(i, ext, o.name, d)? {
        Some(ext::ExtSrc::Scalar(x)) => return Some(x),
        Some(ext::ExtSrc::Vgpr(v)) => ext::vgpr(v, d, is16 && s == Shape::E32),
        None => {
            let nine_bit = fd.is_some_and(|f| f.hi - f.lo == 8);
            let agpr = o.kind == OperandKind::Agpr;
            // A gfx9 16-bit literal reads its low half, but a negative integer's sign
            // extension is that integer (asm::neg16).
            let lit16 = i.opcode().flags & FLAG_LIT16 != 0 && super::neg16::signed_literal(i).is_none();
            let lit = if lit16 { i.literal.map(|l| l & 0xffff) } else { i.literal };
            if !nine_bit {
                if is16 && s == Shape::E32 {
                    ext::vgpr(v, d, true)
                } else {
                    reg(if agpr { 'a' } else { 'v' }, v, d)
                }
            } else if agpr && v >= 256 {
                reg('a', v - 256, d)
            } else if is16 && v >= 256 && s == Shape::E32 {
                ext::vgpr(v - 256, d, true)
            } else {
                source(i.arch, v, d, || src_val_type(i.arch, m, si.unwrap_or(0), d), lit)?
            }
        }
    };
    let mut x = op(val);
    // A true16 VOP3 register operand: its half is op_sel's bit, 0 here.
    if let Val::Reg(r @ Reg { file: 'v' | 'a', count: 1, .. }) = &mut x.val {
        if is16 && s == Shape::Vop3 {
            r.hi = Some(false);
        }
    }
    if let Some(si) = si {
        ext::src_mods(i, s, ext, bits, si, &mut x)?;
    }
    Some(x)
}

/// DS and FLAT/GLOBAL/SCRATCH (atomics included: a returning one without a destination operand
/// reads its vdst field first), as disasm::mem prints them; GWS and ds_swizzle go through the
/// text.
fn mem(i: &Instruction, spare: Typed<'static>) -> Option<Typed<'static>> {
    use crate::disasm::mem::{atomic_ret_dst, gws, null_sgpr, sext};
    let fam = i.format().name;
    let m = i.mnemonic();
    let g9 = is_gfx9(i.arch);
    if gws(m) || m == "ds_swizzle_b32" {
        return None;
    }
    let acc = i.field("acc").unwrap_or(0) != 0;
    let null_saddr = |v: u32| v == null_sgpr(i.arch) || g9 && v == 0x7d;
    let Typed { mut ops, mut mods } = spare;
    if let Some((first, n)) = atomic_ret_dst(i) {
        ops.push(op(reg(if acc { 'a' } else { 'v' }, first, n)));
    }
    for o in i.operands() {
        let d = o.dwords.max(1) as u32;
        let v = i.f(o.name);
        let val = match (o.kind, o.name) {
            (OperandKind::Vgpr | OperandKind::Agpr, "addr" | "vaddr") if fam == "GLOBAL" => {
                reg('v', v, if null_saddr(i.f("saddr")) { 2 } else { 1 })
            }
            (OperandKind::Vgpr | OperandKind::Agpr, "addr" | "vaddr") if fam == "SCRATCH" => {
                if i.field("sve").unwrap_or(1) != 0 {
                    reg('v', v, 1)
                } else {
                    Val::Name("off")
                }
            }
            (OperandKind::Vgpr | OperandKind::Agpr, _) => {
                let a = o.kind == OperandKind::Agpr
                    || acc && matches!(o.name, "vdst" | "data" | "data0" | "data1" | "vdata");
                reg(if a { 'a' } else { 'v' }, v, d)
            }
            (OperandKind::Sgpr, "saddr") if null_saddr(v) => Val::Name("off"),
            (OperandKind::Sgpr, _) => sreg(i.arch, v, d)?,
            (OperandKind::Off, _) => Val::Name("off"),
            (OperandKind::Special, _) => Val::Name(o.name),
            _ => Val::Int(v.into()),
        };
        ops.push(op(val));
    }
    let mut push = |name: &'static str, val: Option<Val<'static>>| mods.push(Modifier { name, val, col: 0 });
    if fam == "DS" {
        let (o0, o1) = (i.f("offset0"), i.f("offset1"));
        if i.tables().mnem[i.op as usize] & crate::tables::MNEM_TWO_OFFSETS != 0 {
            if o0 != 0 {
                push("offset0", Some(Val::Int(o0.into())));
            }
            if o1 != 0 {
                push("offset1", Some(Val::Int(o1.into())));
            }
        } else if o0 | o1 << 8 != 0 {
            push("offset", Some(Val::Int((o0 | o1 << 8).into())));
        }
        if i.field("gds").unwrap_or(0) != 0 && !g9 {
            push("gds", None);
        }
    } else {
        let off = i.f("offset");
        let off = match (i.arch, fam) {
            (Arch::Gfx1201, _) => sext(off, 24),
            (Arch::Gfx1100, "FLAT") => off as i64 & 0xfff,
            (_, "FLAT") if g9 => off as i64 & 0x1fff,
            _ => sext(off, 13),
        };
        if off != 0 {
            push("offset", Some(Val::Int(off)));
        }
    }
    for n in crate::names::cpol::set(i) {
        push(n, None);
    }
    if let Some(st) = i.field("scope_th") {
        use crate::names::cpol as cp;
        let (th, scope) = (st >> 2, st & 3);
        if th != 0 {
            push("th", Some(Val::Int(th.into())));
        }
        if scope != 0 {
            push("scope", Some(Val::Name(cp::scope_name(scope)?)));
        }
    }
    if i.field("tfe").unwrap_or(0) != 0 {
        push("tfe", None);
    }
    Some(Typed { ops, mods })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::lexer::{blank_block_comments, split_line};
    use crate::asm::value::typed;

    /// The values of `t`, its operands split from its modifiers as verify does; hwreg and
    /// sendmsg operands, which verify compares by their field, as their kind.
    fn strip(i: &Instruction, t: &Typed) -> Vec<String> {
        let kinds = i.operands();
        let (ops, mods) = crate::asm::verify::split_extra(t, kinds.len());
        let by_field =
            |k: usize| kinds.get(k).is_some_and(|o| matches!(o.kind, OperandKind::Hwreg | OperandKind::Sendmsg));
        let ops = ops.iter().enumerate().map(|(k, o)| match by_field(k) {
            true => format!("{:?}", kinds[k].kind),
            false => format!("{:?} {} {} {}", o.val, o.neg, o.abs, o.sext),
        });
        ops.chain(mods.iter().map(|m| format!("{} {:?}", m.name, m.val))).collect()
    }

    /// Over every golden vector, the typed reading equals the printed text parsed back.
    #[test]
    fn same_as_printed() {
        for arch in Arch::ALL {
            let mut covered = 0;
            for (_, b) in crate::golden_vectors::golden(arch) {
                let Ok(i) = crate::decode(arch, &b) else { continue };
                let Some(d) = decoded(&i) else { continue };
                let text = crate::disassemble(&i);
                let blanked = blank_block_comments(&text);
                let l = split_line(blanked.as_deref().unwrap_or(&text), 1).unwrap();
                assert_eq!(strip(&i, &d), strip(&i, &typed(&l)), "{}: {text}", arch.name());
                covered += 1;
            }
            assert!(covered > 1000, "{}: only {covered} vectors read as typed values", arch.name());
        }
    }
}
