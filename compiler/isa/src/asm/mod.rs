//! Text assembler (llvm-mc syntax): one instruction per line, `//` and `;` comments, `name:`
//! labels, SOPP/SOPK branch targets as labels (range-checked).
//!
//! Each candidate encoding of a mnemonic is filled from the typed operands and then checked by
//! decoding it back into typed operands and comparing them with the line's as values
//! (`verify`): the first candidate that means what the line says wins, and the candidates come
//! in llvm-mc's order of preference (e32 before e64, inline constant before literal).

pub(crate) mod buf_soffset;
pub(crate) mod const_bus;
pub(crate) mod const_mods;
mod data;
mod decoded;
mod equal_typed;
mod expr;
mod float_lit;
mod float_text;
pub(crate) mod gpr_idx_mode;
pub(crate) mod gws;
mod image;
pub(crate) mod k16;
pub mod lexer;
mod lines;
pub(crate) mod low16;
pub(crate) mod matrix;
pub(crate) mod mem_mods;
pub(crate) mod mfma_overlap;
mod mod_order;
pub(crate) mod modifier;
pub(crate) mod neg16;
pub mod operand;
pub mod parser;
mod rules;
pub(crate) mod salu_imm;
pub(crate) mod sdwa_dst;
pub(crate) mod smem_rules;
mod start;
pub(crate) mod store_tfe;
mod symbolic;
mod t16_opsel;
pub(crate) mod value;
mod verify;
mod vopd;
pub(crate) mod waitcnt_null;

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use baregpu_autogen::isa::OperandKind;

use crate::error::{IsaError, Result};
use crate::fnv::FnvBuild;
use crate::inst::Instruction;
use crate::tables::Tables;
use crate::Arch;
use lexer::{blank_block_comments, split_line_reuse, strip_comment, Line};
use parser::{fill, start, Cand, Ext};
use value::Typed;

fn candidates_uncached(arch: Arch, m: &str) -> Vec<Cand> {
    let t = Tables::get(arch);
    let mut out = Vec::new();
    let add = |name: &str, ext: Ext, out: &mut Vec<Cand>| {
        if let Some(v) = t.by_mnemonic.get(name) {
            for &op in v {
                // A DPP/SDWA form llvm-mc 22 does not have for the opcode (ext_forms) is no
                // candidate.
                if let Some(init) = start(arch, op, ext).filter(|i| crate::ext_forms::refusal(i).is_none()) {
                    out.push(Cand::new(op, ext, init));
                }
            }
        }
    };
    add(m, Ext::None, &mut out);
    if m.starts_with("image_") {
        // gfx11: the same opcodes with a non-sequential address list.
        add(m, Ext::Nsa, &mut out);
    }
    if out.is_empty() {
        forced_encoding(t, arch, m, &mut out);
    }
    if !m.ends_with("_e32") && !m.ends_with("_e64") {
        add(&suffixed(m, "_e32"), Ext::None, &mut out);
        add(&suffixed(m, "_e64"), Ext::None, &mut out);
    }
    let dpp_bases = |b: &str| [suffixed(b, "_e32"), b.to_string(), suffixed(b, "_e64")];
    if let Some(b) = m.strip_suffix("_e64_dpp") {
        // gfx9 has no VOP3 DPP: llvm-mc 22 refuses every `_e64_dpp` there (`v_nop_e64_dpp`).
        let vop3_dpp =
            if crate::operand::is_gfx9(arch) { Vec::new() } else { vec![suffixed(b, "_e64"), b.to_string()] };
        for n in vop3_dpp {
            add(&n, Ext::Dpp16, &mut out);
            add(&n, Ext::Dpp8, &mut out);
        }
        // A 32-bit-only opcode (gfx11 `v_dot2acc_f32_f16`, named without a suffix) has no VOP3
        // DPP form: llvm-mc 22 refuses `_e64_dpp` on it.
        out.retain(|c| c.ext == Ext::None || !matches!(t.op(c.op).format, "VOP1" | "VOP2" | "VOPC"));
    } else if let Some(b) = m.strip_suffix("_dpp") {
        // `_dpp` names the DPP form of a 32-bit encoding; llvm-mc 22 refuses it for the VOP3
        // forms ("dpp variant of this instruction is not supported"), which take `_e64_dpp`.
        for n in dpp_bases(b) {
            add(&n, Ext::Dpp16, &mut out);
            add(&n, Ext::Dpp8, &mut out);
        }
        out.retain(|c| c.ext == Ext::None || matches!(t.op(c.op).format, "VOP1" | "VOP2" | "VOPC"));
    } else if let Some(b) = m.strip_suffix("_sdwa") {
        for n in dpp_bases(b) {
            add(&n, Ext::Sdwa, &mut out);
        }
    } else if m.starts_with("v_") && !m.ends_with("_e32") && !m.ends_with("_e64") {
        // llvm-mc picks DPP and SDWA by their modifiers when the suffix is left out; they come
        // last, so a line without such modifiers never reaches them. VOPC too: a scalar or
        // constant src1 (`v_cmp_lt_f32 vcc_lo, v1, s2 dpp8:[..]`) takes the VOP3 DPP form.
        for n in dpp_bases(m) {
            add(&n, Ext::Dpp16, &mut out);
            add(&n, Ext::Dpp8, &mut out);
            add(&n, Ext::Sdwa, &mut out);
        }
    }
    out
}

/// `m` with `suffix` appended (`format!` costs several times more, once per name a new
/// mnemonic tries).
fn suffixed(m: &str, suffix: &str) -> String {
    let mut s = String::with_capacity(m.len() + suffix.len());
    s.push_str(m);
    s.push_str(suffix);
    s
}

/// VOP2 instructions to llvm-mc whose only encoding on these targets is VOP3: it reads them with
/// `_e32` as well and writes the VOP3 encoding (checked with llvm-mc 22 on all four targets).
const E32_AS_VOP3: [&str; 2] = ["v_readlane_b32", "v_writelane_b32"];

/// `_e32`/`_e64` on a name llvm-mc prints without a suffix (`v_nop_e64`, `v_fma_f32_e64`): the
/// name's opcodes in a 32-bit (VOP1/VOP2/VOPC) or a 64-bit VALU encoding.
fn forced_encoding(t: &Tables, arch: Arch, m: &str, out: &mut Vec<Cand>) {
    let (base, e64) = match (m.strip_suffix("_e64"), m.strip_suffix("_e32")) {
        (Some(b), _) => (b, true),
        (_, Some(b)) => (b, false),
        _ => return,
    };
    for &op in t.by_mnemonic.get(base).map(Vec::as_slice).unwrap_or(&[]) {
        let f = t.op(op).format;
        let fits = if e64 {
            f.starts_with("VOP3") || f == "VINTERP"
        } else {
            matches!(f, "VOP1" | "VOP2" | "VOPC") || E32_AS_VOP3.contains(&base)
        };
        // llvm-mc has no e64 variant of some VOP3-only opcodes (gfx1100 `v_readlane_b32`).
        let fits = fits && !(e64 && crate::modifiers::e64_refused(arch, op));
        if let Some(init) = start(arch, op, Ext::None).filter(|_| fits) {
            out.push(Cand::new(op, Ext::None, init));
        }
    }
}

type CandMap = HashMap<&'static str, &'static [Cand], FnvBuild>;

/// Most mnemonics kept per architecture: the tables' names with their suffixes are far fewer, so
/// this bounds only a stream of odd names that still resolve.
const CACHE_MAX: usize = 1 << 16;

/// The candidate encodings of a (lower-case) mnemonic, each with its started instruction;
/// computed once per mnemonic and architecture. Kept for the life of the process (bounded by
/// [`CACHE_MAX`]), so a lookup hands out a plain slice: each thread asks its last answer first
/// (code repeats a mnemonic line after line), then its own map, without a lock or a reference
/// count (this runs once per line assembled).
fn candidates(arch: Arch, m: &str) -> Cow<'static, [Cand]> {
    type Last = Option<(Arch, &'static str, &'static [Cand])>;
    thread_local! {
        static LAST: Cell<Last> = const { Cell::new(None) };
        static LOCAL: [RefCell<CandMap>; 4] = Default::default();
    }
    if let Some((a, k, c)) = LAST.with(Cell::get) {
        if a == arch && k == m {
            return Cow::Borrowed(c);
        }
    }
    let (key, c) = match LOCAL.with(|l| l[arch as usize].borrow().get_key_value(m).map(|(&k, &c)| (k, c))) {
        Some(kc) => kc,
        None => match candidates_shared(arch, m) {
            Ok((k, c)) => {
                LOCAL.with(|l| l[arch as usize].borrow_mut().insert(k, c));
                (k, c)
            }
            Err(owned) => return Cow::Owned(owned),
        },
    };
    LAST.with(|l| l.set(Some((arch, key, c))));
    Cow::Borrowed(c)
}

/// The process-wide cache behind [`candidates`]: the kept key and candidates, or the
/// candidates of a mnemonic not kept (unknown, or the cache full).
fn candidates_shared(arch: Arch, m: &str) -> std::result::Result<(&'static str, &'static [Cand]), Vec<Cand>> {
    static SHARED: [OnceLock<RwLock<CandMap>>; 4] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let shared = SHARED[arch as usize].get_or_init(Default::default);
    let found = shared.read().unwrap_or_else(|e| e.into_inner()).get_key_value(m).map(|(&k, &c)| (k, c));
    if let Some(kc) = found {
        return Ok(kc);
    }
    let c = candidates_uncached(arch, m);
    let mut w = shared.write().unwrap_or_else(|e| e.into_inner());
    // Unknown mnemonics are not cached: a stream of garbage must not grow the cache.
    if c.is_empty() || w.len() >= CACHE_MAX {
        return Err(c);
    }
    Ok(match w.get_key_value(m) {
        Some((&k, &c)) => (k, c),
        None => {
            let k: &'static str = Box::leak(m.into());
            let c: &'static [Cand] = Box::leak(c.into_boxed_slice());
            w.insert(k, c);
            (k, c)
        }
    })
}

/// Lists one assembly reuses from line to line (the split line, its typed form, the
/// verification's buffers): no heap allocation per line once they have grown.
#[derive(Default)]
struct Reuse<'a> {
    line: Line<'a>,
    want: Typed<'a>,
    check: verify::Scratch,
}

/// Assembles one instruction (the text of one line, no label) into a typed instruction.
/// `line` and `col0` position errors.
pub fn assemble_inst(arch: Arch, text: &str, line: usize, col0: usize) -> Result<Instruction> {
    let mut r = Reuse::default();
    let l = split_line_reuse(text, col0, Line::default()).ok_or_else(|| IsaError::asm(line, col0, "empty line"))?;
    assemble_parsed(arch, &l, text, line, &mut r)
}

fn assemble_parsed<'a>(arch: Arch, l: &Line<'a>, text: &str, line: usize, r: &mut Reuse<'a>) -> Result<Instruction> {
    let lower;
    let m = if l.mnemonic.text.bytes().any(|b| b.is_ascii_uppercase()) {
        lower = l.mnemonic.text.to_ascii_lowercase();
        lower.as_str()
    } else {
        l.mnemonic.text
    };
    // An alias or deprecated name (alias.rs) is assembled, and read back, as its llvm-mc name.
    let canonical;
    let mut cands = candidates(arch, m);
    let m = match cands.is_empty().then(|| crate::alias::resolve(arch, m)).flatten() {
        Some(c) => {
            canonical = c;
            cands = candidates(arch, &canonical);
            canonical.as_str()
        }
        None => m,
    };
    if vopd_line(l.rest.text) {
        return vopd::assemble(arch, l, m, text, line);
    }
    if cands.is_empty() {
        return Err(IsaError::asm(line, l.mnemonic.col, no_candidate(arch, m, l.mnemonic.text)));
    }
    let want = verify::Want::reuse(l, std::mem::take(&mut r.want));
    let res = pick(&cands, l, &want, &mut r.check, text, line);
    r.want = want.typed;
    res
}

/// Whether a line's operands hold `::` (a VOPD pair); one byte scan, which a two-byte
/// substring search costs more than on these short lines.
fn vopd_line(rest: &str) -> bool {
    rest.as_bytes().windows(2).any(|w| w == b"::")
}

/// Why no encoding reads mnemonic `m`: an unknown name, or a DPP/SDWA suffix on an instruction
/// llvm-mc 22 has in no such form (`ext_forms`; `_dpp` names the 32-bit encoding's DPP form).
fn no_candidate(arch: Arch, m: &str, written: &str) -> String {
    let form = [("_e64_dpp", "VOP3 DPP"), ("_dpp", "32-bit DPP"), ("_sdwa", "SDWA"), ("_e64", "e64")]
        .into_iter()
        .find_map(|(suf, form)| m.strip_suffix(suf).map(|b| (b, form)))
        .filter(|(b, _)| !candidates(arch, b).is_empty());
    match form {
        Some((b, form)) => format!("'{m}': llvm-mc 22 has no {form} form of {b} on {}", arch.name()),
        None => format!("unknown mnemonic '{written}' for {}", arch.name()),
    }
}

/// The first candidate that fills from the line and reads back as what it says; else the error
/// of the candidate that got furthest, or the closest encoding's text.
fn pick(
    cands: &[Cand],
    l: &Line,
    want: &verify::Want,
    sc: &mut verify::Scratch,
    text: &str,
    line: usize,
) -> Result<Instruction> {
    let mut first_err: Option<(usize, String)> = None;
    // The first candidate that fills but means something else, disassembled for the error.
    let mut mismatch: Option<Instruction> = None;
    for c in cands.iter() {
        let mut i = c.init;
        match fill(&mut i, l, &want.typed.ops, c.ext, c.rules) {
            Ok(()) => {
                if verify::agrees(&i, want, sc) {
                    return Ok(i);
                }
                mismatch.get_or_insert(i);
            }
            Err(e) => {
                if first_err.as_ref().is_none_or(|f| e.0 > f.0) {
                    first_err = Some(e);
                }
            }
        }
    }
    if let Some((col, msg)) = first_err {
        return Err(IsaError::asm(line, col, msg));
    }
    Err(IsaError::asm(
        line,
        l.rest.col,
        format!(
            "cannot encode '{}' (closest encoding decodes as '{}')",
            text.trim(),
            mismatch.map(|i| crate::disasm::disassemble(&i)).unwrap_or_default()
        ),
    ))
}

/// Assembles one instruction line (no labels) into bytes.
pub fn assemble_line(arch: Arch, line: &str) -> Result<Vec<u8>> {
    let blanked = blank_block_comments(line);
    let text = strip_comment(blanked.as_deref().unwrap_or(line));
    if let Some(raw) = data::long(text, 1, 1) {
        return raw;
    }
    Ok(assemble_inst(arch, text, 1, 1)?.encode())
}

fn branch_operand(i: &Instruction) -> bool {
    i.operands().iter().any(|o| o.kind == OperandKind::Label)
}

/// The most errors one source reports before it stops.
pub const MAX_ERRORS: usize = 20;

/// One instruction of a source after the first pass.
struct Item<'a> {
    line: usize,
    /// `None` for a `.long` line, whose bytes are `raw`.
    inst: Option<Instruction>,
    raw: Vec<u8>,
    at: usize,
    /// The branch target expression and its column, resolved in the second pass.
    label: Option<(&'a str, usize)>,
}

/// Errors of a whole source, up to [`MAX_ERRORS`].
#[derive(Default)]
struct Errors(Vec<IsaError>);

impl Errors {
    fn push(&mut self, e: IsaError) {
        if self.0.len() < MAX_ERRORS {
            self.0.push(e);
        }
    }
    fn full(&self) -> bool {
        self.0.len() >= MAX_ERRORS
    }
    /// One error as itself, several as [`IsaError::AsmMany`].
    fn into_result(mut self) -> Result<()> {
        match self.0.len() {
            0 => Ok(()),
            1 => Err(self.0.remove(0)),
            _ => Err(IsaError::AsmMany(self.0)),
        }
    }
}

/// Takes the `name:` labels off the front of a line; returns the rest and its column.
fn take_labels<'a>(
    mut s: &'a str,
    lno: usize,
    at: usize,
    labels: &mut HashMap<&'a str, usize>,
    errs: &mut Errors,
) -> (&'a str, usize) {
    if !label_first(s) {
        return (s, 1);
    }
    let mut col = 1;
    while let Some((name, rest)) = s.split_once(':') {
        let nm = name.trim();
        let ident = !nm.is_empty()
            && nm.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
            && !nm.starts_with(|c: char| c.is_ascii_digit());
        if !ident {
            break;
        }
        if labels.insert(nm, at).is_some() {
            errs.push(IsaError::asm(lno, col, format!("label '{nm}' defined twice")));
        }
        col += name.len() + 1;
        s = rest;
    }
    (s, col)
}

/// Whether the line may start with a label: blanks, name characters, blanks, then `:` (or a
/// non-ASCII byte, which `take_labels` judges). Most lines have none, and a `:` of a modifier
/// (`offset:16`) comes after a character no label has, so one scan of the front decides.
fn label_first(s: &str) -> bool {
    // Name characters by one table load (this scans every line's mnemonic).
    static NAME: [bool; 256] = {
        let mut t = [false; 256];
        let mut c = 0;
        while c < 256 {
            let b = c as u8;
            t[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$';
            c += 1;
        }
        t
    };
    let b = s.as_bytes();
    let blank = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let name = |c: u8| NAME[c as usize];
    let mut k = 0;
    while k < b.len() && blank(b[k]) {
        k += 1;
    }
    while k < b.len() && name(b[k]) {
        k += 1;
    }
    while k < b.len() && blank(b[k]) {
        k += 1;
    }
    b.get(k).is_some_and(|&c| c == b':' || c >= 0x80)
}

/// Assembles one line's instruction; a branch whose target is a label (or an expression of
/// labels) is assembled with target 0 and the expression returned for the second pass.
fn first_pass_line<'a>(
    arch: Arch,
    s: &'a str,
    col: usize,
    lno: usize,
    r: &mut Reuse<'a>,
) -> Result<(Instruction, Option<(&'a str, usize)>)> {
    let l =
        split_line_reuse(s, col, std::mem::take(&mut r.line)).ok_or_else(|| IsaError::asm(lno, col, "empty line"))?;
    let res = assemble_parsed(arch, &l, s, lno, r);
    let last = l.operands.last().cloned();
    r.line = l;
    let e = match res {
        Ok(i) => return Ok((i, None)),
        Err(e) => e,
    };
    match last {
        Some(t) if !expr::symbols(t.text).is_empty() => {
            let off = t.col - col;
            let replaced = format!("{}0{}", &s[..off], &s[off + t.text.len()..]);
            match assemble_inst(arch, &replaced, lno, col) {
                Ok(i) if branch_operand(&i) => Ok((i, Some((t.text, t.col)))),
                _ => Err(e),
            }
        }
        _ => Err(e),
    }
}

/// Writes a branch's target into its offset field.
fn resolve(it: &mut Item, labels: &HashMap<&str, usize>) -> Result<()> {
    let (Some((name, col)), Some(inst)) = (it.label, it.inst.as_mut()) else { return Ok(()) };
    let mut undefined = None;
    let target = expr::eval(name, &mut |sym| {
        let v = labels.get(sym).map(|&a| a as i64);
        if v.is_none() {
            undefined.get_or_insert_with(|| sym.to_string());
        }
        v
    });
    let target = match (target, undefined) {
        (Some(t), _) => t,
        (None, Some(u)) => return Err(IsaError::asm(it.line, col, format!("undefined label '{u}'"))),
        (None, None) => return Err(IsaError::asm(it.line, col, format!("bad branch target '{name}'"))),
    };
    if target.rem_euclid(4) != 0 {
        return Err(IsaError::asm(it.line, col, format!("branch target '{name}' is not a multiple of 4 bytes")));
    }
    let next = it.at + inst.size();
    let delta = (target - next as i64) / 4;
    if !(-32768..=32767).contains(&delta) || !inst.set_field("simm16", delta as u16 as u32) {
        return Err(IsaError::asm(it.line, col, format!("branch to '{name}' out of range ({delta} dwords)")));
    }
    Ok(())
}

/// Assembles a whole source: labels (`name:`), comments, one instruction per line; branch targets
/// may be labels. Every bad line is reported (up to [`MAX_ERRORS`]), and no bytes come back
/// when any line is bad.
pub fn assemble(arch: Arch, src: &str) -> Result<Vec<u8>> {
    let mut labels: HashMap<&str, usize> = HashMap::new();
    let mut items = Vec::new();
    let mut errs = Errors::default();
    let mut at = 0usize;
    // Lines borrowed from the source; only one with a block comment is copied (one search of
    // the whole source spares the others a search each, and a source without any a list).
    let blanked: Vec<Option<String>> = match src.contains("/*") {
        true => lines::lines(src).map(blank_block_comments).collect(),
        false => Vec::new(),
    };
    let mut reuse = Reuse::default();
    for (n, line) in lines::lines(src).enumerate() {
        let raw = match blanked.get(n) {
            Some(Some(b)) => b.as_str(),
            _ => line,
        };
        if errs.full() {
            break;
        }
        let lno = n + 1;
        let (s, col) = take_labels(strip_comment(raw), lno, at, &mut labels, &mut errs);
        if s.trim().is_empty() {
            continue;
        }
        if let Some(raw) = data::long(s, lno, col) {
            match raw {
                Ok(raw) => {
                    let n = raw.len();
                    items.push(Item { line: lno, inst: None, raw, at, label: None });
                    at += n;
                }
                Err(e) => errs.push(e),
            }
            continue;
        }
        match first_pass_line(arch, s, col, lno, &mut reuse) {
            Ok((inst, label)) => {
                items.push(Item { line: lno, inst: Some(inst), raw: Vec::new(), at, label });
                at += inst.size();
            }
            Err(e) => errs.push(e),
        }
    }
    let mut out = Vec::with_capacity(at);
    for it in &mut items {
        match resolve(it, &labels) {
            Ok(()) => match &it.inst {
                Some(i) => i.encode_into(&mut out),
                None => out.extend_from_slice(&it.raw),
            },
            Err(e) => errs.push(e),
        }
    }
    errs.0.sort_by_key(|e| match e {
        IsaError::Asm { line, col, .. } => (*line, *col),
        _ => (0, 0),
    });
    errs.into_result()?;
    Ok(out)
}
