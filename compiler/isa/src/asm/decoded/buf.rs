//! SMEM and the buffer formats (MUBUF/MTBUF, gfx12 VBUFFER) read as typed values, as
//! disasm::mem's `smem` and `generic` print them.

use baregpu_autogen::isa::OperandKind;

use super::{op, reg, source, sreg};
use crate::asm::value::{Modifier, Typed, Val};
use crate::disasm::mem::{lds_load, null_sgpr, returns, sext};
use crate::inst::Instruction;
use crate::names::{buf_fmt, cpol as cp};
use crate::operand::{is_gfx9, ValType};
use crate::Arch;

fn push(mods: &mut Vec<Modifier<'static>>, name: &'static str, val: Option<Val<'static>>) {
    mods.push(Modifier { name, val, col: 0 });
}

/// The cache-policy modifiers in llvm-mc's order (disasm::mem::cpol).
pub(super) fn cpol(i: &Instruction, mods: &mut Vec<Modifier<'static>>) -> Option<()> {
    for n in cp::set(i) {
        push(mods, n, None);
    }
    if let Some(st) = i.field("scope_th") {
        let (th, scope) = (st >> 2, st & 3);
        if th != 0 {
            // By code: the input may name it any way the table reads (or as a number).
            push(mods, "th", Some(Val::Int(th.into())));
        }
        if scope != 0 {
            push(mods, "scope", Some(Val::Name(cp::scope_name(scope)?)));
        }
    }
    Some(())
}

/// SMEM: the offset is an operand (immediate or SGPR) or, beside an SGPR, `offset:`.
pub(super) fn smem(i: &Instruction, spare: Typed<'static>) -> Option<Typed<'static>> {
    let g9 = is_gfx9(i.arch);
    let Typed { mut ops, mut mods } = spare;
    for o in i.operands() {
        let d = o.dwords.max(1) as u32;
        let v = i.f(o.name);
        let val = match o.kind {
            OperandKind::Sgpr if o.name == "sbase" => sreg(i.arch, v * 2, d)?,
            OperandKind::Sgpr => sreg(i.arch, v, d)?,
            OperandKind::Imm if o.name == "sdata" => Val::Int(v.into()),
            OperandKind::Offset | OperandKind::Ssrc | OperandKind::Imm => {
                let off = i.f("offset");
                if g9 {
                    let (imm, soe) = (i.f("imm"), i.f("soe"));
                    let off = sext(off, 21);
                    if soe != 0 {
                        if imm != 0 {
                            push(&mut mods, "offset", Some(Val::Int(off)));
                        }
                        sreg(i.arch, i.f("soffset"), 1)?
                    } else if imm != 0 {
                        Val::Int(off)
                    } else {
                        sreg(i.arch, i.f("offset"), 1)?
                    }
                } else if i.operands().iter().any(|o| o.name == "soffset") {
                    Val::Int(sext(off, if i.arch == Arch::Gfx1201 { 24 } else { 21 }))
                } else {
                    let so = i.f("soffset");
                    let off = sext(off, if i.arch == Arch::Gfx1201 { 24 } else { 21 });
                    if so != null_sgpr(i.arch) {
                        if off != 0 || i.arch == Arch::Gfx1201 {
                            push(&mut mods, "offset", Some(Val::Int(off)));
                        }
                        sreg(i.arch, so, 1)?
                    } else {
                        Val::Int(off)
                    }
                }
            }
            OperandKind::Special => Val::Name(o.name),
            _ => Val::Int(v.into()),
        };
        ops.push(op(val));
    }
    // The `offset:` beside an SGPR goes before the cache policy, as printed.
    cpol(i, &mut mods)?;
    Some(Typed { ops, mods })
}

/// MUBUF/MTBUF/VBUFFER: vaddr by idxen/offen, the resource, soffset, then format, idxen, offen,
/// offset, cache policy, tfe and lds in llvm-mc's order.
pub(super) fn buffer(i: &Instruction, spare: Typed<'static>) -> Option<Typed<'static>> {
    let m = i.mnemonic();
    let fam = i.format().name;
    let acc = i.field("acc").unwrap_or(0) != 0;
    let file = |a: bool| if a { 'a' } else { 'v' };
    // A returning atomic without its own destination operand writes back into vdata.
    if returns(i)
        && crate::substr::has(m, "_atomic_")
        && !i.operands().iter().any(|o| o.name == "vdst" || o.name == "vdata")
    {
        return None;
    }
    // A gfx12 buffer format no modifier names (disasm::unwritten): read back through the `.long`
    // text.
    if fam == "VBUFFER" && crate::disasm::unwritten::buffer_format_unwritten(i) {
        return None;
    }
    let (offen, idxen) = (i.field("offen").unwrap_or(0) != 0, i.field("idxen").unwrap_or(0) != 0);
    let lds = lds_load(i);
    let tfe = i.field("tfe").unwrap_or(0) != 0;
    let Typed { mut ops, mut mods } = spare;
    for o in i.operands() {
        let d = o.dwords.max(1) as u32;
        let v = i.f(o.name);
        if lds && o.name == "vdata" {
            continue;
        }
        let val = match (o.kind, o.name) {
            (OperandKind::Vgpr | OperandKind::Agpr, "vaddr") => match (offen, idxen) {
                (true, true) => reg('v', v, 2),
                (true, false) | (false, true) => reg('v', v, 1),
                (false, false) => Val::Name("off"),
            },
            (OperandKind::Vgpr | OperandKind::Agpr, _) => {
                let a = o.kind == OperandKind::Agpr || acc && matches!(o.name, "vdst" | "vdata");
                reg(file(a), v, if tfe && o.name == "vdata" { d + 1 } else { d })
            }
            (OperandKind::Sgpr, "srsrc" | "rsrc") => sreg(i.arch, if fam == "VBUFFER" { v } else { v * 4 }, 4)?,
            (OperandKind::Sgpr | OperandKind::Ssrc, "soffset") => source(i.arch, v, 1, || ValType::B32, i.literal)?,
            (OperandKind::Sgpr, _) => sreg(i.arch, v, d)?,
            (OperandKind::Off, _) => Val::Name("off"),
            (OperandKind::Special, _) => Val::Name(o.name),
            _ => Val::Int(v.into()),
        };
        ops.push(op(val));
    }
    if fam == "MTBUF" || fam == "VBUFFER" && m.starts_with("tbuffer") {
        format(i, &mut mods)?;
    }
    if idxen {
        push(&mut mods, "idxen", None);
    }
    if offen {
        push(&mut mods, "offen", None);
    }
    let off = i.f("offset");
    if off != 0 {
        push(&mut mods, "offset", Some(Val::Int(off.into())));
    }
    cpol(i, &mut mods)?;
    if tfe {
        push(&mut mods, "tfe", None);
    }
    if fam == "MUBUF" && i.field("lds").unwrap_or(0) != 0 && !crate::substr::has(m, "lds") {
        push(&mut mods, "lds", None);
    }
    Some(Typed { ops, mods })
}

/// The `format:` modifier as disasm::mem::fmt_mod prints it: the non-default names as a list,
/// a unified format without a name as its number, nothing for the default.
fn format(i: &Instruction, mods: &mut Vec<Modifier<'static>>) -> Option<()> {
    let val = if is_gfx9(i.arch) {
        let (d, n) = (i.f("dfmt"), i.f("nfmt"));
        let mut names = Vec::with_capacity(2);
        if d != buf_fmt::DEFAULT_DFMT {
            names.push(buf_fmt::dfmt_name(d)?);
        }
        if n != buf_fmt::DEFAULT_NFMT {
            names.push(buf_fmt::nfmt_name(n)?);
        }
        if names.is_empty() {
            return Some(());
        }
        Val::Names(names)
    } else {
        let v = i.f("format");
        match buf_fmt::ufmt_name(i.arch, v) {
            _ if v == buf_fmt::DEFAULT_UFMT => return Some(()),
            Some(n) => Val::Names(vec![n]),
            None => Val::Int(v.into()),
        }
    };
    push(mods, "format", Some(val));
    Some(())
}
