//! Image instructions (gfx11 MIMG, gfx12 VIMAGE/VSAMPLE): `vdata, vaddr, rsrc[, samp]` and the
//! modifiers. The modifiers are read first: `dmask`, `d16` and `tfe` decide how many data
//! registers the instruction has, `dim` and `a16` which address ranges and lists it takes (as
//! llvm-mc's assembler takes them: crate::image_taken), and each register operand must match.

use super::lexer::{Line, Tok};
use super::modifier::modifier;
use super::operand::{check_alignment, parse_int, parse_reg, Reg};
use super::parser::{err, Ext, PErr};
use crate::disasm::image::{addr_fields, addr_range_ok, addr_regs, bvh_shape, data_regs, dim, BVH_DMASK};
use crate::image_taken;
use crate::inst::Instruction;

/// The single-bit image flags set by name (the cache-policy ones go through `modifier`).
const FLAGS: [&str; 6] = ["unorm", "r128", "a16", "d16", "lwe", "nv"];

fn image_modifier(i: &mut Instruction, t: &Tok) -> Result<(), PErr> {
    let (name, val) = t.text.split_once(':').unwrap_or((t.text, ""));
    let bad = || (t.col, format!("modifier '{}' is not valid here or out of range", t.text));
    if image_taken::flag_refused(i, name) {
        return err(t, format!("{name} is not valid for {} (llvm-mc 22 refuses it)", i.mnemonic()));
    }
    match name {
        "dmask" => {
            let v = parse_int(val).filter(|v| (0..16).contains(v)).ok_or_else(bad)?;
            i.set_field("dmask", v as u32).then_some(()).ok_or_else(bad)
        }
        "dim" => {
            let v = dim(val).ok_or_else(|| (t.col, format!("bad dim '{val}'")))?;
            i.set_field("dim", v).then_some(()).ok_or_else(bad)
        }
        // gfx12 images have the bit, but llvm-mc 22 refuses `nv` there ("not supported on this
        // GPU"); such words print as `.long` (disasm::raw).
        "nv" if val.is_empty() => Err((t.col, "nv is not supported on this GPU (llvm-mc 22 refuses it)".to_string())),
        n if FLAGS.contains(&n) && val.is_empty() => i.set_field(n, 1).then_some(()).ok_or_else(bad),
        // `noa16`: the flag written as off.
        n if n.strip_prefix("no").is_some_and(|f| FLAGS.contains(&f)) && val.is_empty() => {
            i.set_field(&n[2..], 0).then_some(()).ok_or_else(bad)
        }
        _ => modifier(i, t, Ext::None),
    }
}

/// A vector register (range) operand.
fn vreg(i: &Instruction, t: &Tok) -> Result<Reg, PErr> {
    let r = parse_reg(t.text).filter(|r| r.file == 'v' && r.hi.is_none());
    let r = r.ok_or_else(|| (t.col, format!("expected a VGPR, found '{}'", t.text)))?;
    check_alignment(i.arch, &r).map_err(|e| (t.col, e))?;
    if r.first + r.count > 256 {
        return err(t, format!("register {} is beyond the VGPR file", t.text));
    }
    Ok(r)
}

fn count_check(t: &Tok, what: &str, have: u32, want: u32) -> Result<(), PErr> {
    if have != want {
        return err(t, format!("'{}' has {have} registers, the {what} here takes {want}", t.text));
    }
    Ok(())
}

/// The address operand: one register range (MIMG; gfx12 with one address) or gfx12's list, one
/// register per address field and the rest as a range in the last.
fn addresses(i: &mut Instruction, t: &Tok) -> Result<(), PErr> {
    let fname = i.format().name;
    let want = addr_regs(i);
    let inner = t.text.strip_prefix('[').and_then(|x| x.strip_suffix(']'));
    let Some(inner) = inner else {
        let r = vreg(i, t)?;
        range_taken(i, t, r.count, want)?;
        if fname == "MIMG_NSA" {
            return err(t, "the non-sequential (NSA) form takes an address list");
        }
        if fname != "MIMG" && r.count > 1 {
            return err(t, "the addresses are a list here: [vA, vB, ...]");
        }
        i.set_field(addr_fields(fname)[0], r.first);
        return Ok(());
    };
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    if fname == "MIMG" {
        // llvm-mc takes a one-entry list (`[v[24:25]]`) as the sequential range where its table
        // says so; a longer list is the NSA form.
        let one = parts.len() == 1 && bvh_shape(i).is_none();
        let r = if one { Some(vreg(i, &Tok { text: parts[0], col: t.col })?) } else { None };
        return match r {
            Some(r) if image_taken::list(i, 1, r.count) == Some(true) => {
                i.set_field("vaddr", r.first);
                Ok(())
            }
            _ => err(t, "an address list is the non-sequential (NSA) form"),
        };
    }
    let fields = addr_fields(fname);
    if let Some(shape) = bvh_shape(i) {
        if parts.len() != shape.len() {
            return err(t, format!("{} takes {} address operands", i.mnemonic(), shape.len()));
        }
        for ((p, &n), f) in parts.iter().zip(shape).zip(fields) {
            let pt = Tok { text: p, col: t.col };
            let r = vreg(i, &pt)?;
            count_check(&pt, "address", r.count, u32::from(n))?;
            i.set_field(f, r.first);
        }
        return Ok(());
    }
    if parts.len() > fields.len() {
        return err(t, format!("at most {} address operands", fields.len()));
    }
    let (mut total, mut last) = (0, 0);
    for (k, p) in parts.iter().enumerate() {
        let r = vreg(i, &Tok { text: p, col: t.col })?;
        if r.count > 1 && k + 1 != parts.len() {
            return err(t, "only the last address may be a register range");
        }
        total += r.count;
        last = r.count;
        i.set_field(fields[k], r.first);
    }
    match image_taken::list(i, parts.len() as u32, last) {
        Some(true) => Ok(()),
        Some(false) if !image_taken::any_address(i) => err(t, NO_ADDRESS),
        Some(false) => {
            err(t, format!("llvm-mc 22 takes no list of {} addresses here ({total} registers)", parts.len()))
        }
        None => count_check(t, "address list", total, want),
    }
}

const NO_ADDRESS: &str = "llvm-mc 22 takes no address size for this dim and a16 here";

/// A sequential address range of `have` registers: as the generated table says llvm-mc takes it
/// (`want`, the printed count, names the expected size in the message), else (the BVH forms)
/// the printed count or the next register-tuple size.
fn range_taken(i: &Instruction, t: &Tok, have: u32, want: u32) -> Result<(), PErr> {
    match image_taken::range(i, have) {
        Some(true) => Ok(()),
        Some(false) if !image_taken::any_address(i) => err(t, NO_ADDRESS),
        Some(false) => {
            let want = image_taken::smallest_range(i).unwrap_or(want);
            count_check(t, "address", have, want).and_then(|_| err(t, "llvm-mc 22 takes no such address range here"))
        }
        None if addr_range_ok(i.format().name, have, want) => Ok(()),
        None => count_check(t, "address", have, want),
    }
}

/// A scalar resource or sampler: `count` SGPRs (or trap temporaries), MIMG's field in quads.
fn scalar(i: &mut Instruction, t: &Tok, field: &str, count: u32) -> Result<(), PErr> {
    let r = parse_reg(t.text).filter(|r| matches!(r.file, 's' | 't') && r.hi.is_none());
    let r = r.ok_or_else(|| (t.col, format!("expected {count} SGPRs, found '{}'", t.text)))?;
    count_check(t, field, r.count, count)?;
    let n = if r.file == 't' { 108 + r.first } else { r.first };
    if r.file == 't' && r.first + r.count > 16 {
        return err(t, format!("register {} is beyond the trap registers", t.text));
    }
    let v = if i.format().name.starts_with("MIMG") {
        if n % 4 != 0 {
            return err(t, "the resource must start at a multiple of 4");
        }
        n / 4
    } else {
        n
    };
    if !i.set_field(field, v) {
        return err(t, format!("'{}' cannot be encoded in field {field}", t.text));
    }
    Ok(())
}

pub(super) fn fill(i: &mut Instruction, line: &Line) -> Result<(), PErr> {
    let ops = i.operands();
    let toks = &line.operands;
    if toks.len() != ops.len() {
        let at = toks.last().map(|t| t.col + t.text.len()).unwrap_or(line.rest.col);
        return Err((at, format!("{} needs {} operands, found {}", i.mnemonic(), ops.len(), toks.len())));
    }
    let bvh = bvh_shape(i).is_some();
    if bvh {
        i.set_field("dmask", BVH_DMASK);
        i.set_field("r128", 1);
        // gfx11's MIMG BVH words also carry unorm (gfx12's VIMAGE has no such bit).
        i.set_field("unorm", 1);
    }
    for t in &line.mods {
        if bvh && (t.text.starts_with("dim:") || t.text.starts_with("dmask:") || t.text == "r128") {
            return err(t, format!("modifier '{}' is not valid here", t.text));
        }
        image_modifier(i, t)?;
    }
    if !bvh && !line.mods.iter().any(|t| t.text.starts_with("dim:")) {
        return Err((line.rest.col, "missing dim operand".to_string()));
    }
    if let Some(e) = image_taken::data_refusal(i) {
        let at = line.mods.iter().find(|t| t.text == "d16").map_or(line.rest.col, |t| t.col);
        return Err((at, e));
    }
    for (o, t) in ops.iter().zip(toks) {
        match o.name {
            "vdata" => {
                let r = vreg(i, t)?;
                count_check(t, "data", r.count, data_regs(i))?;
                i.set_field("vdata", r.first);
            }
            "vaddr" | "vaddr0" => addresses(i, t)?,
            n => scalar(i, t, n, u32::from(o.dwords.max(1)))?,
        }
    }
    Ok(())
}
