//! Building a typed instruction for one candidate opcode from a parsed line.

use baregpu_autogen::isa::{Field, OperandKind, FLAG_LITERAL};

use std::borrow::Cow;

use super::const_mods;
use super::float_text::{float_in_int16, literal_bits, may_be_float};
use super::lexer::{Line, Tok};
use super::modifier::modifier;
use super::operand::{check_alignment, max_sgpr, parse_int, parse_reg, src_code};
use super::symbolic::{exp, gpr_idx, simm16};
use super::value::{Operand, Val};
use crate::inst::{set, Instruction};
use crate::operand::{is_gfx9, src_index};
use crate::operand::{literal_too_wide, reads_16bit_literal, src_val_type, ValType};
use crate::tables::FLAG_LIT16;
use crate::Arch;

pub use super::rules::Rules;
pub use super::start::{start, Cand, Ext};

/// Error: column and reason.
pub type PErr = (usize, String);

pub(super) fn err<T>(t: &Tok, msg: impl Into<String>) -> Result<T, PErr> {
    Err((t.col, msg.into()))
}

/// Writes a source code (and its literal) into `field`, whose definition `fd` the caller looked up.
fn set_src(
    i: &mut Instruction,
    (field, fd): (&str, Option<&Field>),
    code: u32,
    lit: Option<u32>,
    t: &Tok,
) -> Result<(), PErr> {
    if let Some(l) = lit {
        let f = i.format().name;
        if is_gfx9(i.arch) && (f.starts_with("VOP3") || f == "MFMA") {
            // gfx9's 64-bit VALU encodings have no literal dword (llvm-mc: "literal operands are
            // not supported").
            return err(t, format!("'{}': gfx9's 64-bit encoding takes no literal", t.text));
        }
        if f.ends_with("_DPP16") || f.ends_with("_DPP8") {
            // llvm-mc 22 refuses most, but writes VOP3P DPP ones (v_fma_mix*) as the literal code
            // without the literal dword.
            return err(t, format!("'{}': DPP forms take no literal", t.text));
        }
        // One literal dword. The FLAG_LITERAL opcodes' constant (parsed later) must repeat a
        // literal source (v_fmamk_f32 v0, K, K, v1); `start` left a placeholder there.
        if i.literal.is_some_and(|x| x != l) && i.opcode().flags & FLAG_LITERAL == 0 {
            return err(t, "only one literal is allowed");
        }
        i.literal = Some(l);
    }
    let written = fd.is_some_and(|f| {
        let v = if f.hi - f.lo + 1 == 8 && code >= 256 { code - 256 } else { code };
        set(&mut i.words, f, v)
    });
    if !written {
        return err(t, format!("'{}' cannot be encoded in field {field}", t.text));
    }
    Ok(())
}

/// Fills the instruction from the line's operands and modifiers. `typed` is the line's operands
/// in typed form (`value::typed`), read instead of parsing a token again; a token without its
/// typed form there (an empty `typed`, an implied operand) is parsed.
pub fn fill(i: &mut Instruction, line: &Line, typed: &[Operand], ext: Ext, rules: Rules) -> Result<(), PErr> {
    let arch = i.arch;
    let opc = i.opcode();
    let m = opc.mnemonic;
    let fname = i.format().name;
    let ops = i.operands();
    let g9 = is_gfx9(arch);
    // Symbolic whole-line operands.
    if matches!(fname, "SOPP" | "SOPK") && ops.len() == 1 && ops[0].kind == OperandKind::Simm16 {
        let v = simm16(arch, m, &line.rest)?;
        i.set_field("simm16", v);
        return super::gpr_idx_mode::check(i).map_err(|e| (line.rest.col, e));
    }
    if fname == "SOPP" && ops.is_empty() {
        if !line.rest.text.is_empty() {
            let v = super::salu_imm::bare_sopp_value(m, line.rest.text, parse_int(line.rest.text))
                .map_err(|e| (line.rest.col, e))?;
            if !i.set_field("simm16", v) {
                return err(&line.rest, "immediate out of range");
            }
        }
        return Ok(());
    }
    if fname == "EXP" {
        return exp(i, line);
    }
    if crate::disasm::image::is_image(fname) {
        return super::image::fill(i, line);
    }
    // Borrowed: copied only where operands move (a returning atomic's destination, operands
    // that are modifiers); this runs for every candidate of every line.
    let mut toks: Cow<[Tok]> = Cow::Borrowed(&line.operands);
    let mut mods: Cow<[Tok]> = Cow::Borrowed(&line.mods);
    // Returning atomics print a destination the table does not list.
    // `_atomic_` in the mnemonic, read off once per opcode (tables::MNEM_ATOMIC).
    let atomic = i.tables().mnem[i.op as usize] & crate::tables::MNEM_ATOMIC != 0;
    let atomic_ret = toks.len() == ops.len() + 1
        && atomic
        && !ops.iter().any(|o| o.name == "vdst" || o.name == "vdata" && crate::substr::has(fname, "BUF"));
    // toks[k] is typed[k + shift] (the typed list follows the line as written).
    let mut shift = 0isize;
    if atomic_ret {
        shift += 1;
        let t = toks.to_mut().remove(0);
        let r = parse_reg(t.text).ok_or_else(|| (t.col, format!("expected a register, found '{}'", t.text)))?;
        check_alignment(arch, &r).map_err(|e| (t.col, e))?;
        i.set_field("vdst", r.first);
        if fname == "DS" {
            // DS returning forms are separate opcodes.
            return err(&t, "too many operands");
        }
    }
    if !atomic_ret && atomic && matches!(fname, "FLAT" | "GLOBAL" | "SCRATCH") {
        // Any spelling of a returning hint (`TH_ATOMIC_RETURN`, `TH_ATOMIC_RT_RETURN`, `th:1`...):
        // bit 0 of an atomic's hint is "return".
        let returning = |t: &&Tok| {
            t.text
                .strip_prefix("th:")
                .and_then(|v| crate::names::cpol::th_value(crate::names::cpol::Access::Atomic, v.trim()))
                .is_some_and(|c| c & 1 == 1)
        };
        if let Some(t) = mods.iter().find(returning) {
            // gfx12: llvm-mc 22 writes the returning form with destination v0 (clobbering it).
            return err(t, "a returning th: hint needs the returning form's destination (llvm-mc writes v0)");
        }
    }
    // gfx9 MUBUF loads to LDS (`lds`) have no vdata operand.
    let lds_ops: Vec<baregpu_autogen::isa::Operand>;
    let ops = if g9 && fname == "MUBUF" && !crate::substr::has(m, "lds") && mods.iter().any(|t| t.text == "lds") {
        lds_ops = ops.iter().copied().filter(|o| o.name != "vdata").collect();
        &lds_ops[..]
    } else {
        ops
    };
    if implicit_vcc(fname, m, toks.len(), ops) {
        // `v_cmp_*_e32 v1, v2`: the VCC destination is implied.
        toks.to_mut().insert(0, Tok { text: ops[0].name, col: line.rest.col });
        shift -= 1;
    }
    if toks.len() > ops.len() {
        // Extra operands are modifiers that came before a comma-less tail (e.g. `off`).
        let extra = toks.to_mut().split_off(ops.len());
        mods.to_mut().splice(0..0, extra);
    }
    if toks.len() < ops.len() {
        let at = toks.last().map(|t| t.col + t.text.len()).unwrap_or(line.rest.col);
        return Err((at, format!("{m} needs {} operands, found {}", ops.len(), toks.len())));
    }
    let opsel_bits: u32 = 0;
    let mut opsel_bits = opsel_bits;
    // The operands written as a `.l` or `.h` half, or whole in a 16-bit operand (asm::t16_opsel).
    let mut halves = super::t16_opsel::Halves::default();
    for (k, (o, t)) in ops.iter().zip(toks.iter()).enumerate() {
        // Source modifiers, from the typed form where it is this very token.
        let pre = k.checked_add_signed(shift).and_then(|j| typed.get(j)).filter(|o| std::ptr::eq(o.text, t.text));
        let (mut s, mut neg, mut abs, mut sext) = match pre {
            Some(o) => (o.inner, o.neg, o.abs, o.sext),
            None => super::value::src_mods(t.text),
        };
        let idx = src_index(o.name);
        // A constant with modifiers this encoding has no bits for: its folded value (const_mods).
        let folded: String;
        if neg || abs || sext {
            if let Some(f) = idx.and_then(|si| const_mods::folded(i, si, s, const_mods::Mods { neg, abs, sext })) {
                folded = f;
                (s, neg, abs, sext) = (folded.as_str(), false, false, false);
            } else if let Some(e) = idx.and_then(|si| const_mods::refusal(i, si, s, neg || abs)) {
                return err(t, e);
            }
        }
        if (neg || abs || sext) && idx.is_none() {
            return err(t, "modifiers are not allowed on this operand");
        }
        if neg || abs || sext {
            let si = idx.unwrap_or(0);
            if sext && ext == Ext::Sdwa && super::modifier::pk_fmac_drops_mods(i) {
                // Packed f16 sources: llvm-mc 22 reads sext and writes no sext bit.
                return err(t, "sext is not encodable on v_pk_fmac_f16_sdwa's f16 sources (llvm-mc drops it)");
            }
            if let Some(e) = crate::src_mods::refusal(opc, si, neg, abs, sext, ext == Ext::Sdwa) {
                return err(t, e);
            }
            let ok = match (ext, fname) {
                (Ext::Sdwa, _) | (Ext::Dpp16, _) if !fname.starts_with("VOP3") => {
                    (!neg || i.set_field(&format!("src{si}_neg"), 1))
                        && (!abs || i.set_field(&format!("src{si}_abs"), 1))
                        && (!sext || i.set_field(&format!("src{si}_sext"), 1))
                }
                _ if crate::substr::has(m, "_mix") => {
                    (!neg || i.set_field("neg", i.f("neg") | 1 << si))
                        && (!abs || i.set_field("neg_hi", i.f("neg_hi") | 1 << si))
                }
                _ => {
                    (!neg || i.set_field("neg", i.f("neg") | 1 << si))
                        && (!abs || i.set_field("abs", i.f("abs") | 1 << si))
                        && !sext
                }
            };
            if !ok {
                if abs && i.field_def("abs").is_none() && i.field_def("neg").is_some() {
                    // VOP3B (v_div_scale_*, v_mad_*64_*32...) and VINTERP: llvm-mc 22 reads abs
                    // and writes no abs bit.
                    return err(t, format!("'{}': the {fname} encoding has no abs bits (llvm-mc drops abs)", t.text));
                }
                return err(t, "this operand takes no modifiers");
            }
        }
        let d = o.dwords.max(1) as u32;
        match o.kind {
            OperandKind::Special if ext == Ext::Sdwa && o.name == "vcc" && s != "vcc" => {
                // gfx9 VOPC SDWA with an SGPR-pair destination (`sd`).
                named_size(s, 2, m, fname, "sdst").map_err(|e| (t.col, e))?;
                if let Some(r) = parse_reg(s).filter(|r| r.count != 2) {
                    return err(t, format!("'{s}' has {} registers, {m} expects 2 here", r.count));
                }
                let (c, _) = src_code(arch, s, false).map_err(|e| (t.col, e))?;
                if c > 127 || !i.set_field("sdst", c) || !i.set_field("sd", 1) {
                    return err(t, format!("'{s}' cannot be the destination"));
                }
            }
            OperandKind::Special => {
                // `vcc_lo` for the lane mask is wave32's (gfx11+); gfx9 has wave64 only.
                if s != o.name && !(o.name == "vcc" && s == "vcc_lo" && !g9) {
                    return err(t, format!("expected {}, found '{s}'", o.name));
                }
            }
            OperandKind::Sgpr | OperandKind::Vgpr | OperandKind::Agpr | OperandKind::Vsrc | OperandKind::Ssrc => {
                let mut field = o.name;
                if field == "vdsty" {
                    // VOPD: vdsty holds the Y destination without its low bit, which must be the
                    // opposite of vdstx's (filled first, with the X half).
                    let r = parse_reg(s).filter(|r| r.file == 'v' && r.count == 1 && r.first < 256);
                    let r = r.ok_or_else(|| (t.col, format!("expected a VGPR, found '{s}'")))?;
                    if r.first & 1 == i.f("vdstx") & 1 {
                        return err(t, "VOPD destinations must be one even and one odd VGPR");
                    }
                    i.set_field("vdsty", r.first >> 1);
                    continue;
                }
                if ext == Ext::Sdwa && field == "src0" {
                    field = "sdwa_src0";
                }
                if matches!(ext, Ext::Dpp16 | Ext::Dpp8) && field == "src0" {
                    field = "dpp_src0";
                }
                // The field looked up once for its widths below and the write.
                let fd = i.field_def(field);
                if s == "off" {
                    match (fname, field) {
                        ("SCRATCH", "addr" | "vaddr") => {
                            i.set_field("sve", 0);
                        }
                        (_, "saddr") => {}
                        (_, "vaddr") if crate::substr::has(fname, "BUF") => {}
                        _ => return err(t, "'off' is not allowed here"),
                    }
                    continue;
                }
                if field == "ssrc0" && o.kind == OperandKind::Sendmsg {
                    continue;
                }
                // `value` reads a register exactly as `parse_reg` does.
                let r = match pre {
                    Some(o) => match o.val {
                        Val::Reg(r) => Some(r),
                        _ => None,
                    },
                    None => parse_reg(s),
                };
                if let Some(r) = r {
                    check_alignment(arch, &r).map_err(|e| (t.col, e))?;
                    if r.file == 'v' && crate::t16::lo128_breaks(arch, fname, opc, k, r.first + r.count) {
                        return err(t, format!("'{s}': a 16-bit operand of the 32-bit encoding is v0..v127"));
                    }
                    if r.count != d && !any_size(m, fname, field) && !(o.name == "vdst" && r.file == 's') {
                        return err(t, format!("'{s}' has {} registers, {m} expects {d} here", r.count));
                    }
                    if r.file == 'a' {
                        set_acc(i, o.name);
                    }
                    if r.hi.is_none() && r.file == 'v' {
                        halves.whole |= 1 << k;
                    }
                    if let Some(h) = r.hi {
                        let si = idx.unwrap_or(0);
                        if fname.starts_with("VOP3") || fname == "VINTERP" {
                            halves.halves |= 1 << si;
                            if h {
                                opsel_bits |= 1 << si;
                            }
                        } else if h && r.first < 128 {
                            let code = if field == "src0" { 256 + r.first + 128 } else { r.first + 128 };
                            if !i.set_field(field, code) {
                                return err(t, "bad register");
                            }
                            continue;
                        } else if r.first >= 128 {
                            return err(t, format!("register {s} is beyond the 16-bit addressable range"));
                        }
                    }
                }
                // Matrix sources have a rule of their own (asm::matrix refuses scalars there).
                if r.is_none() && !super::matrix::is_matrix_format(fname) {
                    named_size(s, d, m, fname, field).map_err(|e| (t.col, e))?;
                }
                // SGPR or trap-temporary tuples (ttmp0 is scalar register 108).
                let sreg = r.filter(|r| r.file == 's' || r.file == 't' && r.first + r.count <= 16);
                let sbase = sreg.map(|r| if r.file == 't' { 108 + r.first } else { r.first });
                let n = sbase.unwrap_or(0);
                let code = match (o.kind, field, r) {
                    (_, "srsrc", _) if sbase.is_some() => {
                        if n & 3 != 0 {
                            return err(t, "buffer resource must start at a multiple of 4");
                        }
                        (n / 4, None)
                    }
                    (_, "rsrc", _) if sbase.is_some() => (n, None),
                    // vcc, flat_scratch, exec... as a base: the pair's scalar code, halved.
                    (_, "sbase", None) if crate::names::sreg::code(arch, s).is_some_and(|c| c < 128) => {
                        let c = crate::names::sreg::code(arch, s).unwrap_or(0);
                        if c & 1 != 0 {
                            return err(t, "base must be an even register");
                        }
                        (c / 2, None)
                    }
                    (_, "sbase", _) if sbase.is_some() => {
                        if n & 1 != 0 {
                            return err(t, "base must be an even register");
                        }
                        (n / 2, None)
                    }
                    (_, _, Some(r)) if r.file == 'v' || r.file == 'a' => {
                        if r.first + r.count > 256 {
                            return err(t, format!("register {s} is beyond the vector register file"));
                        }
                        let nine = fd.map(|f| f.hi - f.lo == 8).unwrap_or(false);
                        // llvm-mc takes a VGPR in a scalar-only 9-bit source (v_s_*) and prints it
                        // as an invalid register; an 8-bit scalar field cannot hold one.
                        if o.kind == OperandKind::Sgpr || o.kind == OperandKind::Ssrc && !nine {
                            return err(t, format!("'{s}': expected a scalar operand"));
                        }
                        if o.name == "vdst" && (m.starts_with("v_cmp") && fname.starts_with("VOP3")) {
                            return err(t, format!("'{s}': expected a scalar destination"));
                        }
                        let _ = nine;
                        (256 + r.first, None)
                    }
                    _ if s.starts_with("lit(") => {
                        // `lit(X)`: X as a literal even where an inline constant would hold it.
                        let x = s.strip_prefix("lit(").and_then(|x| x.strip_suffix(')')).map(str::trim);
                        let ty = src_val_type(arch, m, idx.unwrap_or(0), d);
                        if let Some(e) = x.and_then(|x| float_in_int16(opc, ty, x)) {
                            return err(t, e);
                        }
                        if let Some(e) = x.and_then(|x| super::float_lit::refusal(ty, x)) {
                            return err(t, e);
                        }
                        let l = x.and_then(|x| literal_bits(ty, x));
                        // A truncating 16-bit source (low16.rs) keeps only those bits of a literal too.
                        let l = if super::low16::low16(i, idx).is_some() { l.map(|l| l & 0xffff) } else { l };
                        match l {
                            Some(l) if o.kind != OperandKind::Sgpr => (255, Some(l)),
                            _ => return err(t, format!("'{s}': expected a 32-bit literal here")),
                        }
                    }
                    _ if super::low16::low16(i, idx).and_then(|ty| super::low16::code(ty, s)).is_some() => {
                        super::low16::low16(i, idx).and_then(|ty| super::low16::code(ty, s)).unwrap_or((0, None))
                    }
                    _ => {
                        let vgpr_ok = matches!(o.kind, OperandKind::Vsrc);
                        let (lit16, packed) =
                            (opc.flags & FLAG_LIT16 != 0, fname.starts_with("VOP3P") || fname == "WMMA");
                        // The type reads the mnemonic: asked only where a float or a literal needs
                        // it (most sources are registers).
                        let ty = || src_val_type(arch, m, idx.unwrap_or(0), d);
                        // A float for two f16 halves is its f16 bits in the low half: a literal.
                        let pk = if may_be_float(s) {
                            let ty = ty();
                            (ty == ValType::PkF16).then(|| super::float_lit::literal(ty, s)).flatten()
                        } else {
                            None
                        };
                        // A register read above (and checked for alignment) is not read again.
                        let code_of = || match &r {
                            Some(r) => super::operand::reg_code(arch, r, s, vgpr_ok),
                            None => src_code(arch, s, vgpr_ok),
                        };
                        let c = match pk.map(|l| (255, Some(l))).ok_or(()).or_else(|_| code_of()) {
                            Ok((255, Some(l)))
                                if literal_too_wide(l)
                                    && reads_16bit_literal(ty(), lit16, packed, f16_halves(arch, m, idx)) =>
                            {
                                return err(
                                    t,
                                    format!("'{s}' does not fit the 16-bit operand (llvm-mc takes -32768..65535)"),
                                );
                            }
                            Ok((255, Some(l))) if const_mods::f16_low_half(l, ty, || f16_halves(arch, m, idx)) => {
                                (255, Some(l & 0xffff))
                            }
                            // 1/(2π) written as a float: inline only where it rounds onto the
                            // constant in the source's width (else a literal, or refused).
                            Ok((248, None)) if may_be_float(s) && !super::float_lit::is_inv_2pi(ty(), s) => {
                                match super::float_lit::literal(ty(), s) {
                                    Some(l) if o.kind != OperandKind::Sgpr => (255, Some(l)),
                                    _ => {
                                        let why = super::float_lit::refusal(ty(), s);
                                        return err(t, why.unwrap_or_else(|| format!("'{s}' takes no literal here")));
                                    }
                                }
                            }
                            Ok(c) => c,
                            Err(e) => match super::float_lit::literal(ty(), s) {
                                _ if float_in_int16(opc, ty(), s).is_some() => {
                                    return err(t, float_in_int16(opc, ty(), s).unwrap_or(e));
                                }
                                Some(l) if o.kind != OperandKind::Sgpr => (255, Some(l)),
                                _ => return err(t, super::float_lit::refusal(ty(), s).unwrap_or(e)),
                            },
                        };
                        // Literal bits an inline constant holds are that constant (llvm-mc's
                        // folding: `0x3f800000` is `1.0`, `0.0` is `0`).
                        match c {
                            (255, Some(l)) => match crate::operand::literal_inline_code(l, ty()) {
                                Some(k) => (k, None),
                                None => c,
                            },
                            _ => c,
                        }
                    }
                };
                if matches!(o.kind, OperandKind::Sgpr) && code.0 > 127 {
                    if let Some(e) = too_wide(i, field, s, code.0) {
                        return err(t, e);
                    }
                    return err(t, format!("'{s}': expected a scalar register"));
                }
                if matches!(o.kind, OperandKind::Vgpr)
                    && code.0 < 256
                    && !matches!(field, "vdst" | "sdata")
                    && fd.map(|f| f.hi - f.lo == 8).unwrap_or(false)
                {
                    return err(t, format!("'{s}': expected a vector register"));
                }
                // SDWA: SGPRs and inline constants (no literals) with the s0/s1 bit.
                if ext == Ext::Sdwa && (field == "sdwa_src0" || field == "vsrc1") && code.0 < 256 {
                    if code.1.is_some() {
                        return err(t, "SDWA takes no literal");
                    }
                    i.set_field(if field == "vsrc1" { "s1" } else { "s0" }, 1);
                    i.set_field(field, code.0);
                    continue;
                }
                if matches!(fname, "SMEM") && o.kind == OperandKind::Sgpr && o.name == "sdata" && code.0 > 127 {
                    return err(t, "bad destination");
                }
                if o.name == "soffset" && fname == "SMEM" && !g9 {
                    i.set_field("soffset", code.0);
                    continue;
                }
                if super::matrix::is_matrix_format(fname) {
                    super::matrix::check(i, o.name, code.0, r.map(|r| r.file)).map_err(|e| (t.col, e))?;
                }
                if let Some(e) = super::buf_soffset::refusal(fname, field, code.0, s) {
                    return err(t, e);
                }
                if let Some(e) = crate::src_kinds::refusal(i, field, code.0) {
                    return err(t, format!("'{s}': {e}"));
                }
                if matches!(field, "src1" | "src2") && matches!(ext, Ext::Dpp16 | Ext::Dpp8) {
                    if let Some(e) = crate::dpp_kinds::refusal(i, field, code.0) {
                        return err(t, e);
                    }
                }
                set_src(i, (field, fd), code.0, code.1, t)?;
            }
            OperandKind::Imm | OperandKind::Simm16 | OperandKind::Label | OperandKind::Offset => {
                if fname == "SMEM" && o.kind == OperandKind::Offset {
                    smem_offset(i, s, t)?;
                    continue;
                }
                if let Some(e) = super::salu_imm::int_literal_refusal(fname, s).filter(|_| o.kind == OperandKind::Imm) {
                    return err(t, e);
                }
                let float_k = if o.kind == OperandKind::Imm && opc.flags & FLAG_LITERAL != 0 {
                    super::float_lit::literal(src_val_type(arch, m, 0, d), s).map(i64::from)
                } else {
                    None
                };
                // The constant of v_fmamk/v_fmaak-style opcodes may be written `lit(K)`.
                let lit_k = s.strip_prefix("lit(").and_then(|x| x.strip_suffix(')')).map(str::trim);
                let v = match (gpr_idx(s), lit_k) {
                    (Some(g), _) if o.kind == OperandKind::Simm16 => g as i64,
                    (_, Some(k)) if float_k.is_none() && opc.flags & FLAG_LITERAL != 0 => {
                        literal_bits(src_val_type(arch, m, 0, d), k)
                            .map(i64::from)
                            .ok_or_else(|| (t.col, format!("'{s}': expected a 32-bit literal here")))?
                    }
                    _ => parse_int(s)
                        .or(float_k)
                        .ok_or_else(|| (t.col, format!("expected an immediate, found '{s}'")))?,
                };
                if o.kind == OperandKind::Imm && (opc.flags & FLAG_LITERAL != 0 || o.name.starts_with("op")) {
                    if v < -(1 << 31) || v > u32::MAX as i64 {
                        return err(t, format!("immediate {s} does not fit in 32 bits"));
                    }
                    if i.field("src0") == Some(255) && i.literal != Some(v as u32) {
                        return err(t, "only one literal is allowed");
                    }
                    i.literal = Some(v as u32);
                    continue;
                }
                if fname == "SMEM" && o.name == "sdata" {
                    // The probe/prefetch size: one rule with the disassembler's (smem_rules).
                    if let Some(e) = super::smem_rules::imm_sdata_refusal(arch, v, s) {
                        return err(t, e);
                    }
                }
                let field = if o.name.starts_with("op") { "simm16" } else { o.name };
                let ok = match o.kind {
                    OperandKind::Label | OperandKind::Simm16 => {
                        if !(-32768..=65535).contains(&v) {
                            return err(t, format!("immediate {s} out of range for 16 bits"));
                        }
                        if let Some(e) = super::salu_imm::sopk_refusal(m, v, s) {
                            return err(t, e);
                        }
                        i.set_field(field, v as u32 & 0xffff)
                    }
                    _ => v >= 0 && i.set_field(field, v as u32),
                };
                if !ok {
                    return err(t, format!("immediate {s} out of range"));
                }
            }
            OperandKind::Hwreg => {
                let v = crate::names::hwreg::parse(arch, s)
                    .or_else(|| parse_int(s).filter(|v| (0..=0xffff).contains(v)).map(|v| v as u32))
                    .ok_or_else(|| (t.col, format!("bad hwreg '{s}'")))?;
                if !i.set_field(o.name, v) {
                    return err(t, format!("hwreg value {v:#x} does not fit the {} field", o.name));
                }
            }
            OperandKind::Sendmsg => {
                // A number is taken as 16 bits and written to the field's width: llvm-mc reads
                // s_sendmsg_rtn's 8-bit message field that way (`0x4c18` is message 0x18).
                let mask = i.field_def(o.name).map_or(0xffff, |f| u32::MAX >> (31 - (f.hi - f.lo).min(31)) as u32);
                let v = crate::names::sendmsg::parse(arch, s)
                    .or_else(|| parse_int(s).filter(|v| (0..=0xffff).contains(v)).map(|v| v as u32 & mask))
                    .ok_or_else(|| (t.col, format!("bad sendmsg '{s}'")))?;
                if !i.set_field(o.name, v) {
                    return err(t, format!("message {v:#x} does not fit the {} field", o.name));
                }
            }
            OperandKind::Attr => {
                let (a, c) = s
                    .strip_prefix("attr")
                    .and_then(|x| x.split_once('.'))
                    .ok_or_else(|| (t.col, "bad attr".to_string()))?;
                let c = "xyzw".find(c).ok_or_else(|| (t.col, "bad channel".to_string()))?;
                let a: u32 = a.parse().map_err(|_| (t.col, "bad attr".to_string()))?;
                super::operand::check_attr(a).map_err(|e| (t.col, e))?;
                i.set_field("attr", a);
                i.set_field("attrchan", c as u32);
            }
            OperandKind::Off => {}
        }
    }
    if opsel_bits != 0 {
        i.set_field("opsel", i.f("opsel") | opsel_bits);
    }
    super::mod_order::check(i, &mods)?;
    halves.high = opsel_bits;
    super::t16_opsel::check(i, halves, &mods)?;
    for t in mods.iter() {
        modifier(i, t, ext)?;
    }
    let _ = max_sgpr;
    // Whole-instruction rules: the modifier bits llvm-mc's assembler writes (isa::modifiers);
    // then those `rules` picked for the candidate: a wide MFMA's C matrix is its destination or
    // apart from it; a 16-bit fmamk/fmaak constant; gfx11 s_waitcnt_*cnt's null; SMEM data,
    // offsets and sizes; GWS gds and data; tfe on a store; gfx9's 4-bit VGPR-indexing mode; the
    // constant bus.
    let col = |k: Option<usize>| k.and_then(|k| toks.get(k)).map_or(line.rest.col, |t| t.col);
    crate::modifiers::check(i).map_err(|(c, e)| {
        let at = match c {
            crate::modifiers::Culprit::Src(si) => col(ops.iter().position(|o| src_index(o.name) == Some(si))),
            crate::modifiers::Culprit::Mod(n) => {
                mods.iter().find(|t| t.text.starts_with(n)).map_or(line.rest.col, |t| t.col)
            }
        };
        (at, e)
    })?;
    super::rules::check(i, rules, ops).map_err(|(k, e)| (col(k), e))?;
    super::const_bus::check(i).map_err(|(k, e)| (col(k), e))
}

/// Operands whose register count is not the table's: `_f8f6f4` A/B matrices (their format
/// sets it), buffer addresses and data, global addresses.
fn any_size(m: &str, fname: &str, field: &str) -> bool {
    (m.ends_with("_f8f6f4") && matches!(field, "src0" | "src1"))
        || (crate::substr::has(fname, "BUF") && matches!(field, "vaddr" | "vdata"))
        || (fname == "GLOBAL" && matches!(field, "addr" | "vaddr"))
}

/// Refuses a named scalar register of the wrong size for a `d`-dword operand (`vcc` in a 32-bit
/// source, `m0` in a 64-bit one), as llvm-mc 22 does (`names::sreg::dwords`).
fn named_size(s: &str, d: u32, m: &str, fname: &str, field: &str) -> Result<(), String> {
    match crate::names::sreg::dwords(s) {
        Some(w) if u32::from(w) != d && !any_size(m, fname, field) => {
            Err(format!("'{s}' is {w} dwords; {m} expects {d} here"))
        }
        _ => Ok(()),
    }
}

/// VOPC written without its VCC destination (`written` operands, one short): llvm-mc 22 takes
/// `v_cmp_lt_f32_e32 v1, v2` on every target.
pub(super) fn implicit_vcc(fname: &str, m: &str, written: usize, ops: &[baregpu_autogen::isa::Operand]) -> bool {
    fname == "VOPC"
        && m.starts_with("v_cmp")
        && written + 1 == ops.len()
        && ops.first().is_some_and(|o| o.kind == OperandKind::Special && matches!(o.name, "vcc" | "vcc_lo"))
}

/// Whether source `idx` of `m` holds packed f16/bf16 halves ([`crate::src_type::halves_read_32bit`]).
fn f16_halves(arch: Arch, m: &str, idx: Option<usize>) -> bool {
    crate::src_type::halves_read_32bit(arch, m, idx.unwrap_or(0))
}

/// Marks an operand as an AGPR: MFMA `acc_cd` (destination and accumulator) and `acc` (one bit
/// per A/B source); memory formats have one `acc` bit for their data. AGPR moves have neither
/// (their fields hold the register itself).
fn set_acc(i: &mut Instruction, name: &str) {
    if i.field_def("acc_cd").is_some() {
        match name {
            "vdst" | "src2" => {
                i.set_field("acc_cd", 1);
            }
            "src0" => {
                i.set_field("acc", i.f("acc") | 1);
            }
            "src1" => {
                i.set_field("acc", i.f("acc") | 2);
            }
            _ => {}
        }
    } else {
        i.set_field("acc", 1);
    }
}

/// Why a named scalar register (code 128+) cannot stand in the 7-bit scalar `field` (scratch
/// saddr, gfx11+ SMEM soffset, gfx12 VBUFFER soffset): llvm-mc 22 writes its low 7 bits there,
/// which name another register (`src_scc` becomes m0), so ours refuses it. None where the field
/// is wider or `s` names no register.
fn too_wide(i: &Instruction, field: &str, s: &str, code: u32) -> Option<String> {
    let seven = i.field_def(field).is_some_and(|f| f.hi - f.lo == 6);
    let reg = crate::names::sreg::code(i.arch, s).is_some();
    (seven && reg).then(|| {
        format!("'{s}' (code {code}) does not fit the 7-bit {field} field (llvm-mc writes {:#x})", code & 0x7f)
    })
}

/// `gpr_idx(SRC0,SRC1,SRC2,DST)`: the VGPR-indexing mode bits.
fn smem_offset(i: &mut Instruction, s: &str, t: &Tok) -> Result<(), PErr> {
    let g9 = is_gfx9(i.arch);
    if let Some(v) = parse_int(s) {
        let bits = if i.arch == Arch::Gfx1201 { 24 } else { 21 };
        if g9 {
            i.set_field("imm", 1);
        }
        if let Some(e) = super::smem_rules::offset_refusal(i, v, s) {
            return err(t, e);
        }
        if !i.set_field("offset", (v as u32) & ((1 << bits) - 1)) {
            return err(t, format!("offset {s} out of range"));
        }
        return Ok(());
    }
    // A named register of another size (`vcc`, `exec`) is refused, as in any 32-bit operand.
    named_size(s, 1, i.mnemonic(), "SMEM", "soffset").map_err(|e| (t.col, e))?;
    let (c, _) = src_code(i.arch, s, false).map_err(|e| (t.col, e))?;
    if c > 127 {
        if let Some(e) = too_wide(i, if g9 { "offset" } else { "soffset" }, s, c) {
            return err(t, e);
        }
        return err(t, format!("'{s}': expected a scalar register or offset"));
    }
    if g9 {
        // An SGPR alone goes in the offset field (imm=0); an `offset:` modifier after it moves it
        // to soffset (soe=1, imm=1).
        i.set_field("imm", 0);
        i.set_field("offset", c);
    } else {
        i.set_field("soffset", c);
    }
    Ok(())
}
