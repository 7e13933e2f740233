//! Whether a filled candidate means what the line says: the candidate is decoded back into typed
//! operands and modifiers, which are compared with the line's as values. Numbers compare by
//! value (`0x05040100` is `0x5040100`, a 16-bit `65524` is `-12`), symbolic and numeric forms of
//! one field by their encoding (`s_waitcnt 0`, `s_getreg_b32 s0, 0x1234`), a modifier written
//! with its default value as if omitted, and modifiers in any order.

use std::borrow::Cow;

use baregpu_autogen::isa::OperandKind;

use super::lexer::{blank_block_comments, split_line, Line};
use super::operand::{float_code_f64, parse_int, Reg};
use super::symbolic::{exp_words, simm16};
use super::value::{f16_bits, typed, typed_into, value, Modifier, Operand, Typed, Val};
use crate::decode::decode;
use crate::disasm::disassemble_into;
use crate::inst::Instruction;
use crate::Arch;

/// The input line, parsed once and compared with every candidate.
pub struct Want<'l, 'a> {
    pub line: &'l Line<'a>,
    pub typed: Typed<'a>,
}

impl<'l, 'a> Want<'l, 'a> {
    #[cfg(test)]
    pub fn new(line: &'l Line<'a>) -> Want<'l, 'a> {
        Want::reuse(line, Typed::default())
    }
    /// The line's typed form written into `spare`'s lists (given back by the caller from the
    /// line before: no allocation per line).
    pub fn reuse(line: &'l Line<'a>, spare: Typed<'a>) -> Want<'l, 'a> {
        Want { line, typed: typed_into(line, spare) }
    }
}

/// Buffers the verification reuses from candidate to candidate and line to line.
#[derive(Default)]
pub struct Scratch {
    /// A candidate's text (the forms `decoded` does not read).
    text: String,
    /// A candidate's decoded operands and modifiers.
    got: Typed<'static>,
}

/// Whether the candidate `i` decodes to the instruction the line describes.
pub fn agrees(i: &Instruction, want: &Want, sc: &mut Scratch) -> bool {
    if !decodes_to_itself(i) {
        return false;
    }
    if let Some(r) = same_field(i, want.line) {
        return r;
    }
    // Most lines: plain operands read straight from their fields.
    let form = super::decoded::form(i);
    if super::decoded::plain::agrees(i, form, &want.typed) {
        return true;
    }
    if let Some(g) = super::decoded::read(i, form, std::mem::take(&mut sc.got)) {
        let r = super::equal_typed::equal(i, &want.typed, &g) || same_typed(i, &want.typed, &g);
        sc.got = g;
        return r;
    }
    by_text(i, want, &mut sc.text)
}

/// The candidate read back through the disassembler's text (the forms `decoded` does not read).
fn by_text(i: &Instruction, want: &Want, buf: &mut String) -> bool {
    buf.clear();
    disassemble_into(i, buf);
    let blanked = blank_block_comments(buf);
    let got = blanked.as_deref().unwrap_or(buf);
    let Some(gl) = split_line(got, 1) else { return false };
    same_line(i, want.line, &want.typed, &gl)
}

/// Whether the candidate's bytes decode to this very instruction (no other opcode or format
/// claims them).
fn decodes_to_itself(i: &Instruction) -> bool {
    let mut bytes = [0u8; 20];
    let n = i.ndwords as usize;
    for (k, w) in i.words[..n].iter().enumerate() {
        bytes[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    if let Some(l) = i.literal {
        bytes[4 * n..4 * n + 4].copy_from_slice(&l.to_le_bytes());
    }
    // All 20 bytes, zeros past the instruction (the decoder's fast path reads 16 at once); a
    // reading longer than the candidate's bytes is refused, as those bytes alone were.
    matches!(decode(i.arch, &bytes), Ok(d) if d.size() <= i.size() && d.op == i.op && d.words == i.words && d.literal == i.literal && d.op_y == i.op_y)
}

/// A line whose one operand is a whole 16-bit field (s_waitcnt vmcnt(0) & lgkmcnt(0),
/// s_delay_alu ..., s_nop 3): whether the field holds the line's value, read straight from it;
/// `None` for other lines.
fn same_field(i: &Instruction, wl: &Line) -> Option<bool> {
    let fname = i.format().name;
    let kinds = i.operands();
    if matches!(fname, "SOPP" | "SOPK") && kinds.len() == 1 && kinds[0].kind == OperandKind::Simm16 {
        return Some(simm16(i.arch, i.mnemonic(), &wl.rest).ok() == i.field("simm16"));
    }
    if fname == "SOPP" && kinds.is_empty() {
        let v = if wl.rest.text.is_empty() { Some(0) } else { parse_int(wl.rest.text).map(|v| v as u32 & 0xffff) };
        return Some(v.is_some() && v == Some(i.field("simm16").unwrap_or(0)));
    }
    None
}

/// Compares one line (or one VOPD half) with its decoded form.
fn same_line(i: &Instruction, wl: &Line, w: &Typed, gl: &Line) -> bool {
    if let Some(r) = same_field(i, wl) {
        return r;
    }
    let arch = i.arch;
    if i.format().name == "EXP" {
        let (a, b) = (exp_words(wl), exp_words(gl));
        return a.len() == b.len()
            && a.iter().zip(&b).all(|(x, y)| same_val(arch, false, &value(x.text), &value(y.text)));
    }
    same_typed(i, w, &typed(gl))
}

/// Compares a line's typed operands and modifiers with the candidate's decoded ones.
pub(in crate::asm) fn same_typed(i: &Instruction, w: &Typed, g: &Typed) -> bool {
    let arch = i.arch;
    let fname = i.format().name;
    let kinds = i.operands();
    // Operands past the instruction's own are modifiers that came without a comma (as `fill`
    // takes them): `global_inv scope:SCOPE_SYS`.
    let (w_ops, w_mods) = split_extra(w, kinds.len());
    let (g_ops, g_mods) = split_extra(g, kinds.len());
    // `v_cmp_*_e32 v1, v2`: the implied VCC destination is left out of the comparison.
    let (kinds, g_ops) = if super::parser::implicit_vcc(fname, i.mnemonic(), w_ops.len(), kinds) {
        (&kinds[1..], &g_ops[1.min(g_ops.len())..])
    } else {
        (kinds, g_ops)
    };
    if w_ops.len() != g_ops.len() {
        return false;
    }
    let sel = written_op_sel(fname, kinds, &w_mods);
    for (k, (a, b)) in w_ops.iter().zip(g_ops).enumerate() {
        let kind = kinds.get(k).map(|o| o.kind);
        // A register without `.l`/`.h` whose half `op_sel` selects (`v1 ... op_sel:[1,0,0,0]` is
        // `v1.h`), as llvm-mc reads it.
        if let (Val::Reg(x @ Reg { hi: None, .. }), Val::Reg(y @ Reg { hi: Some(h), .. })) = (&a.val, &b.val) {
            if sel.get(k).copied().flatten() == Some(*h) && same_reg(&Reg { hi: Some(*h), ..*x }, y) {
                if (a.neg, a.abs, a.sext) == (b.neg, b.abs, b.sext) {
                    continue;
                }
                return false;
            }
        }
        // hwreg/sendmsg: the field's value against the operand's, symbolic or numeric.
        if let Some(o @ baregpu_autogen::isa::Operand { kind: OperandKind::Hwreg | OperandKind::Sendmsg, .. }) =
            kinds.get(k)
        {
            let what = if o.kind == OperandKind::Hwreg { "hwreg" } else { "sendmsg" };
            // A number is written to the field's width (parser.rs, OperandKind::Sendmsg).
            let mask = i.field_def(o.name).map_or(0xffff, |f| u32::MAX >> (31 - (f.hi - f.lo).min(31)) as u32);
            let v = named_value(arch, what, &a.val).map(|v| if matches!(a.val, Val::Int(_)) { v & mask } else { v });
            if !(a.plain() && v.is_some() && v == i.field(o.name)) {
                return false;
            }
            continue;
        }
        if fake16_high_half(i, k, w_ops, &a.val, &b.val) && (a.neg, a.abs) == (b.neg, b.abs) {
            continue;
        }
        // A sequential image address range of another size than printed, as llvm-mc takes it.
        if let (Val::Reg(x), Val::Reg(y), Some("vaddr")) = (&a.val, &b.val, kinds.get(k).map(|o| o.name)) {
            if x.file == y.file && x.first == y.first && crate::disasm::image::range_read_back(i, x.count, y.count) {
                continue;
            }
        }
        if matches!(kinds.get(k).map(|o| o.name), Some("vaddr" | "vaddr0")) && same_image_list(&a.val, &b.val) {
            continue;
        }
        // Registers are never low-16 values (`same_vals` reads numbers only): asked only for others.
        let reg = matches!(a.val, Val::Reg(_)) || matches!(b.val, Val::Reg(_));
        let src = || kinds.get(k).and_then(|o| crate::operand::src_index(o.name));
        if let Some(ty) = (!reg).then(|| super::low16::low16(i, src())).flatten() {
            if let Some(same) = super::low16::same_vals(ty, &a.val, &b.val).filter(|_| a.plain() && b.plain()) {
                if same {
                    continue;
                }
                return false;
            }
        }
        // Asked only where the operands differ: a constant the encoding folded its modifiers into,
        // or a negative integer an f16 source holds as its low 16 bits (const_mods).
        if !same_operand(arch, fname, kind, a, b) && !same_folded(i, src(), a, b) {
            return false;
        }
    }
    let implied = implied_op_sel(fname, crate::disasm::tied_dst_half(i), kinds, w_ops, &w_mods);
    let w_mods = implied.map(Cow::Owned).unwrap_or(w_mods);
    // The selector lists are cut (a copy of the modifiers) only where the line has one.
    let lists = w_mods.iter().any(|m| SELECTOR_LISTS.contains(&m.name) && matches!(m.val, Some(Val::List(_))));
    match lists.then(|| vop3p_sources(i).or_else(|| vop3_opsel_entries(i))).flatten() {
        Some(n) => same_mods(arch, &vop3p_lists(&w_mods, n), &g_mods),
        None => same_mods(arch, &w_mods, &g_mods),
    }
}

/// The VOP3/VOP3P selector lists, one entry per source (and the destination).
pub(super) const SELECTOR_LISTS: [&str; 4] = ["op_sel", "op_sel_hi", "neg_lo", "neg_hi"];

/// The number of sources of a VOP3P (or gfx11 WMMA) instruction, `None` for other formats.
pub(super) fn vop3p_sources(i: &Instruction) -> Option<usize> {
    let f = i.format().name;
    (f.starts_with("VOP3P") || f == "WMMA")
        .then(|| i.operands().iter().filter(|o| matches!(o.name, "src0" | "src1" | "src2")).count())
}

/// How many `op_sel` entries llvm-mc reads on a VOP3 (not VOP3P) instruction with a destination
/// entry (parser's modifier rule); `None` where it reads them all.
fn vop3_opsel_entries(i: &Instruction) -> Option<usize> {
    let f = i.format().name;
    let m = i.mnemonic();
    let vop3 = f.starts_with("VOP3") && !f.starts_with("VOP3P") && f != "WMMA";
    (vop3 && !m.starts_with("v_permlane") && crate::disasm::has_dst(i)).then(|| crate::disasm::vop3_opsel_len(i))
}

/// VOP3P selector lists cut to the instruction's sources (llvm-mc ignores the rest).
fn vop3p_lists<'a>(mods: &[Modifier<'a>], n: usize) -> Vec<Modifier<'a>> {
    mods.iter()
        .map(|m| match &m.val {
            Some(Val::List(v)) if SELECTOR_LISTS.contains(&m.name) && v.len() > n => {
                Modifier { val: Some(Val::List(v[..n].to_vec())), ..m.clone() }
            }
            _ => m.clone(),
        })
        .collect()
}

/// gfx1201 (fake16 in llvm-mc 22) VOPC: llvm-mc still reads `vN.h` (N < 128) in a 16-bit source of
/// the 32-bit encoding as register N + 128, which its disassembler prints as that plain register;
/// it does so only when every VGPR source of the line is written as a half
/// (`v_cmp_eq_f16 vcc_lo, v1.h, v2.l`, not `v_cmp_eq_f16 vcc_lo, v1.h, v2`).
fn fake16_high_half(i: &Instruction, k: usize, w_ops: &[Operand], a: &Val, b: &Val) -> bool {
    let (Val::Reg(x), Val::Reg(y)) = (a, b) else { return false };
    // The registers first: the opcode's mask is looked up only for a written `.h`.
    if x.hi != Some(true) || y.hi.is_some() || i.format().name != "VOPC" {
        return false;
    }
    let mask = crate::t16::lo128_mask(i.arch, i.opcode());
    if mask >> k & 1 == 0 {
        return false;
    }
    let halves = w_ops.iter().enumerate().all(|(j, o)| match &o.val {
        Val::Reg(r) if r.file == 'v' && mask >> j & 1 != 0 => r.hi.is_some(),
        _ => true,
    });
    halves
        && x.file == 'v'
        && y.file == 'v'
        && x.count == 1
        && y.count == 1
        && x.first < 128
        && y.first == x.first + 128
}

/// Per operand, the half the line's own `op_sel` selects (gfx11+ VOP3/VINTERP), else `None`.
fn written_op_sel(fname: &str, kinds: &[baregpu_autogen::isa::Operand], mods: &[Modifier]) -> Vec<Option<bool>> {
    let list = mods.iter().find_map(|m| match (&m.name, &m.val) {
        (&"op_sel", Some(Val::List(v))) => Some(v),
        _ => None,
    });
    let (Some(list), true) = (list, (fname.starts_with("VOP3") && !fname.starts_with("VOP3P")) || fname == "VINTERP")
    else {
        return Vec::new();
    };
    let nsrc = kinds.iter().filter(|o| matches!(o.name, "src0" | "src1" | "src2")).count();
    let bit = |i: usize| Some(list.get(i).copied().unwrap_or(0) != 0);
    kinds
        .iter()
        .map(|k| match k.name {
            "src0" => bit(0),
            "src1" => bit(1),
            "src2" => bit(2),
            "vdst" => bit(nsrc),
            _ => None,
        })
        .collect()
}

/// gfx11+ true16 VOP3 and VINTERP: `.h` registers written without `op_sel` set its bits (llvm-mc's rule), so
/// the line's modifiers gain the `op_sel` they imply (first, where the decoder prints it).
fn implied_op_sel<'a>(
    fname: &str,
    tied: bool,
    kinds: &[baregpu_autogen::isa::Operand],
    ops: &[Operand<'a>],
    mods: &[Modifier<'a>],
) -> Option<Vec<Modifier<'a>>> {
    let vop3 = fname.starts_with("VOP3") && !fname.starts_with("VOP3P") || fname == "VINTERP";
    // An all-zero `op_sel` is as if left out: llvm-mc checks no half against it.
    let zero = |m: &Modifier| matches!(&m.val, Some(Val::List(v)) if v.iter().all(|&x| x == 0));
    if !vop3 || mods.iter().any(|m| m.name == "op_sel" && !zero(m)) {
        return None;
    }
    let nsrc = kinds.iter().filter(|o| matches!(o.name, "src0" | "src1" | "src2")).count();
    // On the stack: this runs for every VOP3 line, and most set no bit.
    let mut bits = [0i64; 4];
    // gfx11 `v_fmac_f16_e64`: the tied src2's entry 2 is the destination's half, which is entry 3
    // (crate::disasm::tied_dst_half), so the list has four entries.
    let dst_at = if tied { 3 } else { nsrc };
    let bits = &mut bits[..(dst_at + 1).min(4)];
    for (o, k) in ops.iter().zip(kinds) {
        let Val::Reg(r) = &o.val else { continue };
        let at = match k.name {
            "src0" => 0,
            "src1" => 1,
            "src2" => 2,
            "vdst" => dst_at,
            _ => continue,
        };
        if r.hi == Some(true) && at < bits.len() {
            bits[at] = 1;
        }
    }
    if bits.iter().all(|&b| b == 0) {
        return None;
    }
    if tied {
        bits[2] = bits[3];
    }
    let mut out = vec![Modifier { name: "op_sel", val: Some(Val::List(bits.to_vec())), col: 0 }];
    out.extend(mods.iter().cloned());
    Some(out)
}

/// The operands up to `n` and the modifiers, with operands past `n` that read as modifiers
/// (`name:value` or a bare name) moved to the modifiers.
pub(super) fn split_extra<'a, 'b>(t: &'b Typed<'a>, n: usize) -> (&'b [Operand<'a>], Cow<'b, [Modifier<'a>]>) {
    let mut k = t.ops.len();
    let modifier_like =
        |o: &Operand| matches!(o.val, Val::Name(_)) || o.text.contains(':') && !matches!(o.val, Val::Reg(_));
    while k > n && modifier_like(&t.ops[k - 1]) {
        k -= 1;
    }
    if k == t.ops.len() {
        return (&t.ops, Cow::Borrowed(&t.mods));
    }
    let mut mods: Vec<Modifier> =
        t.ops[k..].iter().map(|o| super::value::modifier(&super::lexer::Tok { text: o.text, col: o.col })).collect();
    mods.extend(t.mods.iter().cloned());
    (&t.ops[..k], Cow::Owned(mods))
}

/// Whether the line's operand `a` of source `si` is the decoded `b` by `const_mods`' rules.
#[cold]
fn same_folded(i: &Instruction, si: Option<usize>, a: &Operand, b: &Operand) -> bool {
    use super::const_mods::{folded, same_f16_low_half, Mods};
    let Some(si) = si else { return false };
    if !a.plain() && b.plain() {
        let m = Mods { neg: a.neg, abs: a.abs, sext: a.sext };
        return folded(i, si, a.inner, m).is_some_and(|t| same_val(i.arch, false, &value(&t), &b.val));
    }
    match (&a.val, &b.val) {
        (Val::Int(w), Val::Int(g)) => a.plain() && b.plain() && same_f16_low_half(i, si, *w, *g),
        _ => false,
    }
}

fn same_operand(arch: Arch, fname: &str, kind: Option<OperandKind>, a: &Operand, b: &Operand) -> bool {
    if (a.neg, a.abs, a.sext) != (b.neg, b.abs, b.sext) {
        return false;
    }
    let wrap16 = matches!(kind, Some(OperandKind::Simm16 | OperandKind::Label));
    match (&a.val, &b.val) {
        // An SMEM offset of `null` is no offset.
        (Val::Name("null"), Val::Int(0)) | (Val::Int(0), Val::Name("null")) if fname == "SMEM" => true,
        (x, y) => same_val(arch, wrap16, x, y),
    }
}

/// The encoding of a hwreg/sendmsg operand, written symbolically or as a number.
fn named_value(arch: Arch, kind: &str, v: &Val) -> Option<u32> {
    match v {
        Val::Int(n) => u16::try_from(*n).ok().map(u32::from),
        Val::Call(name, args) if *name == kind => {
            let text = format!("{kind}({args})");
            if kind == "hwreg" {
                crate::names::hwreg::parse(arch, &text)
            } else {
                crate::names::sendmsg::parse(arch, &text)
            }
        }
        _ => None,
    }
}

/// Whether two integers are the same field value: equal, or equal as the 16 bits of a branch
/// offset or immediate (`65524` is `-12`), or as the 32 bits of a literal.
fn same_int(wrap16: bool, x: i64, y: i64) -> bool {
    let fits = |v: i64, lo: i64, hi: i64| (lo..=hi).contains(&v);
    x == y
        || wrap16 && fits(x, -32768, 65535) && fits(y, -32768, 65535) && x as u16 == y as u16
        || fits(x, i32::MIN as i64, u32::MAX as i64)
            && fits(y, i32::MIN as i64, u32::MAX as i64)
            && x as u32 == y as u32
}

/// A float written where the instruction holds a literal: the literal is its f32, f16, bf16, the
/// f16 in both halves (v_pk_fmac_f16) or the high half of its f64 bits (the operand type decides
/// which; each is the encoding llvm-mc writes).
fn float_is_literal(f: f64, lit: i64) -> bool {
    let Ok(l) = u32::try_from(lit) else { return false };
    let f32b = (f as f32).to_bits();
    l == f32b
        || f32b & 0xffff == 0 && l == f32b >> 16
        || f16_bits(f).is_some_and(|h| u32::from(h) == l || u32::from(h) * 0x1_0001 == l)
        || super::float_lit::bf16_bits(f).is_some_and(|h| u32::from(h) == l)
        || (f.to_bits() >> 32) as u32 == l
}

fn same_reg(x: &Reg, y: &Reg) -> bool {
    // A true16 half left implicit is the low half.
    let hi = |r: &Reg| r.hi.unwrap_or(false);
    x.file == y.file && x.first == y.first && x.count == y.count && hi(x) == hi(y)
}

/// A bracketed list of registers (an image address list `[v4, v[5:6]]`), else `None`.
fn reg_list(v: &Val) -> Option<Vec<Reg>> {
    match v {
        Val::Names(parts) => parts.iter().map(|p| super::operand::parse_reg(p)).collect(),
        Val::Other(s) => {
            let inner = s.strip_prefix('[')?.strip_suffix(']')?;
            inner.split(',').map(|p| super::operand::parse_reg(p.trim())).collect()
        }
        _ => None,
    }
}

/// Image addresses written as a list whose last range has another size than printed, or as a
/// one-entry list of a printed range: llvm-mc takes such lists where its table says (the fill
/// checked the written shape against crate::image_taken), with the printed form's bytes.
fn same_image_list(a: &Val, b: &Val) -> bool {
    let list = |v: &Val| if let Val::Reg(r) = v { Some(vec![*r]) } else { reg_list(v) };
    let (Some(x), Some(y)) = (list(a), list(b)) else { return false };
    let (Some(p), Some(q)) = (x.last(), y.last()) else { return false };
    x.len() == y.len()
        && x.iter().zip(&y).take(x.len() - 1).all(|(p, q)| same_reg(p, q))
        && (p.file, p.first) == (q.file, q.first)
}

fn same_val(arch: Arch, wrap16: bool, a: &Val, b: &Val) -> bool {
    // The usual pairs first (neither is a register list).
    match (a, b) {
        (Val::Reg(x), Val::Reg(y)) => return same_reg(x, y),
        (Val::Int(x), Val::Int(y)) => return same_int(wrap16, *x, *y),
        _ => {}
    }
    if let (Some(x), Some(y)) = (reg_list(a), reg_list(b)) {
        return x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| same_reg(p, q));
    }
    match (a, b) {
        (Val::Reg(x), Val::Reg(y)) => same_reg(x, y),
        (Val::Name(x), Val::Name(y)) => {
            x == y
                || crate::names::sreg::code(arch, x).is_some_and(|c| crate::names::sreg::code(arch, y) == Some(c))
                // gfx11+: an absent scalar address (`off`) is the null register's code.
                || !crate::operand::is_gfx9(arch) && matches!((*x, *y), ("null", "off") | ("off", "null"))
        }
        (Val::Int(x), Val::Int(y)) => same_int(wrap16, *x, *y),
        (Val::Float(x), Val::Float(y)) => {
            x == y
                || float_code_f64(*x).is_some_and(|c| float_code_f64(*y) == Some(c))
                || super::float_lit::same_rounded(*x, *y)
        }
        (Val::Float(f), Val::Int(l)) | (Val::Int(l), Val::Float(f)) => float_is_literal(*f, *l),
        // `lit(X)`: X's value against the other side's (a literal, or lit of another spelling).
        (Val::Call("lit", x), Val::Call("lit", y)) => same_val(arch, wrap16, &value(x), &value(y)),
        (Val::Call("lit", x), y) | (y, Val::Call("lit", x)) => same_val(arch, wrap16, &value(x), y),
        (Val::Call(n, x), Val::Call(o, y)) => n == o && no_space(x) == no_space(y),
        // A shorter list leaves the rest 0 (op_sel:[1,0] is op_sel:[1,0,0]).
        (Val::List(x), Val::List(y)) => {
            (0..x.len().max(y.len())).all(|k| x.get(k).copied().unwrap_or(0) == y.get(k).copied().unwrap_or(0))
        }
        // ds_swizzle_b32's offset, numeric or as swizzle(...).
        (Val::Int(n), Val::Call("swizzle", args)) | (Val::Call("swizzle", args), Val::Int(n)) => {
            let text = format!("swizzle({args})");
            // A number whose unused bits are set (`offset:65535`) prints as the mode it selects;
            // `fill` wrote the number itself, so printing it the same way is agreement.
            crate::names::swizzle::parse(arch, &text).is_some_and(|v| i64::from(v) == *n)
                || u32::try_from(*n)
                    .is_ok_and(|v| v <= 0xffff && no_space(&crate::names::swizzle::text(arch, v)) == no_space(&text))
        }
        // MTBUF formats by value: a default part may be written or left out
        // (`[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM]` is `[BUF_DATA_FORMAT_8_8_8_8]`).
        (Val::Names(x), Val::Names(y)) => {
            x == y || format_value(arch, x).is_some_and(|v| format_value(arch, y) == Some(v))
        }
        // MTBUF `format:N` against its name(s).
        (Val::Int(n), Val::Names(f)) | (Val::Names(f), Val::Int(n)) => format_value(arch, f) == Some(*n),
        (Val::Other(x), Val::Other(y)) => no_space(x) == no_space(y),
        _ => false,
    }
}

/// The numeric MTBUF format of a `format:[...]` list (names::buf_fmt::list_value); any other name
/// makes it no format at all (the list is then compared as text).
fn format_value(arch: Arch, f: &[&str]) -> Option<i64> {
    crate::names::buf_fmt::list_value(arch, f).map(i64::from)
}

fn no_space(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether a modifier, as written, is its default (the same as leaving it out).
fn is_default(arch: Arch, m: &Modifier) -> bool {
    let zero_list = |v: &[i64]| v.iter().all(|&x| x == 0);
    match (m.name, &m.val) {
        // `nosc0`, `noglc`...: a cache-policy bit written as off.
        (n, None) => n.strip_prefix("no").is_some_and(|f| CPOL.contains(&f) || IMAGE_FLAGS.contains(&f)),
        (
            "offset" | "offset0" | "offset1" | "wait_exp" | "wait_vdst" | "wait_va_vdst" | "wait_vm_vsrc" | "cbsz"
            | "abid" | "blgp" | "byte_sel" | "index_key" | "fi" | "clamp" | "dmask",
            Some(Val::Int(0)),
        ) => true,
        ("mul" | "div", Some(Val::Int(1))) => true,
        // gfx9 sets the bit for `bound_ctrl:0` as well.
        ("bound_ctrl", Some(Val::Int(0))) => !crate::operand::is_gfx9(arch),
        ("row_mask" | "bank_mask", Some(Val::Int(0xf))) => true,
        ("op_sel" | "neg_lo" | "neg_hi" | "neg", Some(Val::List(v))) => zero_list(v),
        // Its default is all ones for packed math and all zeros for mixed precision; which one
        // the instruction takes, `fill` wrote, and the decoder omits it only then.
        ("op_sel_hi", Some(Val::List(v))) => zero_list(v) || v.iter().all(|&x| x == 1),
        ("dst_sel" | "src0_sel" | "src1_sel", Some(Val::Name("DWORD"))) => true,
        ("dst_unused", Some(Val::Name("UNUSED_PRESERVE"))) => true,
        ("scope", Some(v)) => th_scope_code("scope", v) == Some(0),
        // MTBUF: BUF_FMT_8_UNORM (gfx11+) or BUF_DATA_FORMAT_8 and BUF_NUM_FORMAT_UNORM (gfx9).
        ("format", Some(Val::Names(f))) => format_value(arch, f) == Some(1),
        ("format", Some(Val::Int(1))) => true,
        ("th", Some(v)) => th_scope_code("th", v) == Some(0),
        _ => false,
    }
}

const CPOL: [&str; 7] = ["glc", "slc", "dlc", "sc0", "sc1", "nt", "scc"];

/// Image flags (`noa16` is `a16` left out).
const IMAGE_FLAGS: [&str; 8] = ["unorm", "r128", "a16", "d16", "lwe", "nv", "tfe", "glc"];

/// The same modifiers: one written on one side only must be at its default; those on both sides
/// must have the same value and, except cache-policy flags and gfx12 th/scope (which llvm-mc
/// takes in any order), the same order (llvm-mc rejects `mul:2 clamp` for `clamp mul:2`).
fn same_mods(arch: Arch, a: &[Modifier], b: &[Modifier]) -> bool {
    let free = |m: &Modifier| CPOL.contains(&m.name) || matches!(m.name, "th" | "scope");
    // On the stack for the usual few modifiers (this runs on every line).
    let (mut small, mut big) = ([false; 32], Vec::new());
    let used: &mut [bool] = if b.len() <= small.len() {
        &mut small[..b.len()]
    } else {
        big.resize(b.len(), false);
        &mut big
    };
    let mut last_fixed = None;
    for x in a {
        match (0..b.len()).find(|&y| !used[y] && b[y].name == x.name) {
            Some(y) => {
                if !same_mod(arch, x, &b[y]) {
                    return false;
                }
                used[y] = true;
                if !free(x) {
                    if last_fixed.is_some_and(|l| l > y) {
                        return false;
                    }
                    last_fixed = Some(y);
                }
            }
            None if is_default(arch, x) => {}
            None => return false,
        }
    }
    (0..b.len()).all(|y| used[y] || is_default(arch, &b[y]))
}

fn same_mod(arch: Arch, a: &Modifier, b: &Modifier) -> bool {
    a.name == b.name
        && match (&a.val, &b.val) {
            (None, None) => true,
            (Some(Val::Int(0 | 1)), Some(Val::Int(1))) if a.name == "bound_ctrl" && crate::operand::is_gfx9(arch) => {
                true
            }
            // `glc` is `glc:1`.
            (None, Some(Val::Int(1))) | (Some(Val::Int(1)), None) => true,
            // gfx12 cache policies by code: any name the table reads, or a number.
            (Some(x), Some(y)) if matches!(a.name, "th" | "scope") => {
                th_scope_code(a.name, x).is_some_and(|c| th_scope_code(a.name, y) == Some(c))
            }
            // Image dimensions, full (`SQ_RSRC_IMG_2D`) or short (`2D`).
            (Some(Val::Name(x)), Some(Val::Name(y))) if a.name == "dim" => {
                crate::disasm::image::dim(x).is_some_and(|d| crate::disasm::image::dim(y) == Some(d))
            }
            (Some(x), Some(y)) => same_val(arch, false, x, y),
            _ => false,
        }
}

/// The code of a gfx12 `th:` or `scope:` value (already checked against its instruction when
/// it was encoded, so any access kind's name will do).
fn th_scope_code(name: &str, v: &Val) -> Option<u32> {
    use crate::names::cpol;
    match v {
        Val::Int(n) => u32::try_from(*n).ok(),
        Val::Name(t) if name == "th" => cpol::th_code(t),
        Val::Name(t) => cpol::scope(t),
        _ => None,
    }
}

/// VOPD: each half compared on its own.
pub fn agrees_vopd(i: &Instruction, x: (&Line, &Typed), y: (&Line, &Typed), buf: &mut String) -> bool {
    if !decodes_to_itself(i) {
        return false;
    }
    buf.clear();
    disassemble_into(i, buf);
    let Some(k) = buf.find("::") else { return false };
    let (Some(gx), Some(gy)) = (split_line(&buf[..k], 1), split_line(&buf[k + 2..], 1)) else { return false };
    let iy = Instruction { op: i.op_y.unwrap_or(i.op), ..*i };
    same_line(i, x.0, x.1, &gx) && same_line(&iy, y.0, y.1, &gy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::decoded::decoded;

    /// Each golden instruction `decoded` reads, with the lowest and the highest bit of each
    /// field flipped in turn: wherever the changed word still decodes to itself, verification by
    /// decoded values gives the verdict that reading its text back gives, and most such
    /// candidates are refused (a wrong encoding is caught).
    /// The classes that verification by decoded values gained last, which the bit flips must
    /// reach: FLAT/GLOBAL/SCRATCH atomics, DPP16/DPP8, SDWA.
    fn class(i: &Instruction) -> Option<usize> {
        use crate::disasm::valu::{shape, Ext};
        if matches!(i.format().name, "FLAT" | "GLOBAL" | "SCRATCH") && i.mnemonic().contains("_atomic_") {
            return Some(0);
        }
        match shape(i).1 {
            Ext::Dpp16 | Ext::Dpp8 => Some(1),
            Ext::Sdwa => Some(2),
            Ext::None => None,
        }
    }

    /// Returning atomics with `saddr` off, which no golden vector has: their extra destination
    /// puts `off` past the table's operands, where verify reads it as a modifier.
    const EXTRA: [(Arch, &str); 5] = [
        (Arch::Gfx942, "global_atomic_add v4, v[2:3], v1, off sc0"),
        (Arch::Gfx950, "global_atomic_cmpswap_x2 a[4:5], v[2:3], a[6:9], off sc0"),
        (Arch::Gfx950, "flat_atomic_add v4, v[2:3], v1 sc0"),
        (Arch::Gfx1100, "global_atomic_add_u32 v4, v[2:3], v1, off glc"),
        (Arch::Gfx1201, "global_atomic_add_u32 v4, v[2:3], v1, off th:TH_ATOMIC_RETURN"),
    ];

    #[test]
    fn decoded_verdict_is_the_texts() {
        for arch in Arch::ALL {
            let extra: Vec<(String, Vec<u8>)> = EXTRA
                .iter()
                .filter(|e| e.0 == arch)
                .map(|&(_, t)| (t.to_string(), crate::asm::assemble_line(arch, t).expect(t)))
                .collect();
            let n_extra = extra.len();
            let mut extra_seen = 0;
            let (mut checked, mut refused, mut lines, mut by_text_only) = (0, 0, 0, 0);
            // Lines and changed candidates per class (atomics, DPP, SDWA).
            let mut classes = [(0, 0); 3];
            let mut text_formats = std::collections::BTreeMap::new();
            let mut buf = String::new();
            let mut sc = Scratch::default();
            for (text, bytes) in crate::golden_vectors::golden(arch).into_iter().chain(extra) {
                let Ok(i) = decode(arch, &bytes) else { continue };
                if i.size() != bytes.len() {
                    continue;
                }
                if decoded(&i).is_none() {
                    by_text_only += 1;
                    *text_formats.entry(i.format().name).or_insert(0) += 1;
                    continue;
                }
                let class = class(&i);
                let l = split_line(&text, 1).unwrap();
                let want = Want::new(&l);
                if !by_text(&i, &want, &mut buf) {
                    // Golden text our printer spells differently (not a round trip): skip.
                    continue;
                }
                assert!(agrees(&i, &want, &mut sc), "{}: '{text}' refused", arch.name());
                lines += 1;
                extra_seen += usize::from(EXTRA.iter().any(|e| e.1 == text));
                if let Some(c) = class {
                    classes[c].0 += 1;
                }
                for f in i.format().fields.iter().filter(|f| f.name != "op") {
                    let top = u32::from(f.hi - f.lo).min(31);
                    for bit in [0, top] {
                        let mut m = i;
                        if !m.set_field(f.name, i.f(f.name) ^ 1 << bit) || !decodes_to_itself(&m) {
                            continue;
                        }
                        if decoded(&m).is_none() {
                            continue;
                        }
                        let d = agrees(&m, &want, &mut sc);
                        assert_eq!(
                            d,
                            by_text(&m, &want, &mut buf),
                            "{}: '{text}' with {} bit {bit} flipped reads as '{}'",
                            arch.name(),
                            f.name,
                            crate::disasm::disassemble(&m)
                        );
                        checked += 1;
                        refused += usize::from(!d);
                        if let Some(c) = class {
                            classes[c].1 += 1;
                        }
                    }
                }
            }
            eprintln!(
                "{}: {lines} lines, {checked} changed candidates, {refused} refused; {by_text_only} lines read \
                 only as text {text_formats:?}; (lines, changed) of atomics, DPP, SDWA: {classes:?}",
                arch.name()
            );
            assert!(lines > 5000 && refused * 2 > checked, "{}: {lines} lines, {refused}/{checked}", arch.name());
            assert_eq!(extra_seen, n_extra, "{}: an extra line was not read by decoded values", arch.name());
            // Every architecture has FLAT atomics and DPP; gfx942/gfx950 also SDWA.
            let sdwa = matches!(arch, Arch::Gfx942 | Arch::Gfx950);
            for (c, &(l, n)) in classes.iter().enumerate().take(if sdwa { 3 } else { 2 }) {
                assert!(l > 20 && n > 100, "{}: class {c} reached by {l} lines, {n} changed candidates", arch.name());
            }
        }
    }
}
