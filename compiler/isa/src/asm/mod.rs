//! Text assembler (llvm-mc syntax): one instruction per line, `//` and `;` comments, `name:`
//! labels, SOPP/SOPK branch targets as labels (range-checked).
//!
//! Each candidate encoding of a mnemonic is filled from the operands and then checked by
//! disassembling it back: the first candidate whose text equals the input (normalised) wins, so
//! the automatic choices (e32 before e64, inline constant before literal) follow llvm-mc's.

pub mod lexer;
pub mod operand;
pub mod parser;
mod vopd;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use baregpu_autogen::isa::OperandKind;

use crate::disasm::disassemble_into;
use crate::error::{IsaError, Result};
use crate::inst::Instruction;
use crate::tables::Tables;
use crate::Arch;
use lexer::{blank_block_comments, split_line, strip_comment, Line};
use parser::{fill, start, Cand, Ext};

fn candidates_uncached(arch: Arch, m: &str) -> Vec<Cand> {
    let t = Tables::get(arch);
    let mut out = Vec::new();
    let add = |name: &str, ext: Ext, out: &mut Vec<Cand>| {
        if let Some(v) = t.by_mnemonic.get(name) {
            for &op in v {
                if let Some(init) = start(arch, op, ext) {
                    out.push(Cand { op, ext, init });
                }
            }
        }
    };
    add(m, Ext::None, &mut out);
    forced_encoding(t, arch, m, &mut out);
    if !m.ends_with("_e32") && !m.ends_with("_e64") {
        add(&format!("{m}_e32"), Ext::None, &mut out);
        add(&format!("{m}_e64"), Ext::None, &mut out);
    }
    let dpp_bases = |b: &str| vec![format!("{b}_e32"), b.to_string(), format!("{b}_e64")];
    if let Some(b) = m.strip_suffix("_e64_dpp") {
        for n in [format!("{b}_e64"), b.to_string()] {
            add(&n, Ext::Dpp16, &mut out);
            add(&n, Ext::Dpp8, &mut out);
        }
    } else if let Some(b) = m.strip_suffix("_dpp") {
        for n in dpp_bases(b) {
            add(&n, Ext::Dpp16, &mut out);
            add(&n, Ext::Dpp8, &mut out);
        }
    } else if let Some(b) = m.strip_suffix("_sdwa") {
        for n in dpp_bases(b) {
            add(&n, Ext::Sdwa, &mut out);
        }
    } else if m.starts_with("v_cmp") {
        add(&format!("{m}_e32"), Ext::Dpp16, &mut out);
        add(&format!("{m}_e32"), Ext::Dpp8, &mut out);
    }
    out
}

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
        let fits = if e64 { f.starts_with("VOP3") || f == "VINTERP" } else { matches!(f, "VOP1" | "VOP2" | "VOPC") };
        if let Some(init) = start(arch, op, Ext::None).filter(|_| fits) {
            out.push(Cand { op, ext: Ext::None, init });
        }
    }
}

type CandCache = RwLock<HashMap<String, Arc<[Cand]>>>;

/// The candidate encodings of a (lower-case) mnemonic, each with its started instruction;
/// computed once per mnemonic and architecture.
fn candidates(arch: Arch, m: &str) -> Arc<[Cand]> {
    static CACHE: [OnceLock<CandCache>; 4] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let cache = CACHE[arch as usize].get_or_init(Default::default);
    if let Some(c) = cache.read().unwrap_or_else(|e| e.into_inner()).get(m) {
        return c.clone();
    }
    let c: Arc<[Cand]> = candidates_uncached(arch, m).into();
    let mut w = cache.write().unwrap_or_else(|e| e.into_inner());
    // Unknown mnemonics are not cached: a stream of garbage must not grow the cache.
    if !c.is_empty() && w.len() < 1 << 16 {
        w.insert(m.to_string(), c.clone());
    }
    c
}

/// Appends `s` normalised: whitespace runs as one space, none at the ends or next to a comma.
pub(crate) fn norm_into(s: &str, out: &mut String) {
    let mut space = false;
    let mut last = out.as_bytes().last().copied().unwrap_or(0);
    let mut bytes = std::mem::take(out).into_bytes();
    for &c in s.as_bytes() {
        if c.is_ascii_whitespace() {
            space = true;
            continue;
        }
        if space && c != b',' && last != 0 && last != b',' {
            bytes.push(b' ');
        }
        space = false;
        last = c;
        bytes.push(c);
    }
    // Only ASCII whitespace was dropped and ASCII spaces added: still UTF-8.
    *out = String::from_utf8(bytes).unwrap_or_default();
}

fn unsuffixed(s: &str) -> Option<&str> {
    s.strip_suffix("_e32").or_else(|| s.strip_suffix("_e64"))
}

/// Whether a candidate's text `got` reads as the input: the same operand text, and the same
/// mnemonic or the input's plus the `_e32`/`_e64` suffix that llvm-mc prints.
pub(crate) fn reads_as(got: &str, m: &str, want_rest: &str, buf: &mut String) -> bool {
    let blanked = blank_block_comments(got);
    let got = blanked.as_deref().unwrap_or(got);
    let (gm, grest) = got.split_once(' ').unwrap_or((got, ""));
    // The suffix on either side: llvm-mc prints `v_add_f32_e32` for `v_add_f32` and `v_nop` for
    // `v_nop_e64` (the candidates already have the encoding the suffix asks for).
    let same = gm == m || unsuffixed(gm) == Some(m) || unsuffixed(m) == Some(gm);
    if !same {
        return false;
    }
    buf.clear();
    norm_into(grest, buf);
    buf == want_rest || buf.len() == want_rest.len() && same_modifier_set(buf, want_rest)
}

/// Whether two operand texts differ only in the order of their cache-policy flags (llvm-mc
/// accepts `sc1 nt` for the `nt sc1` it prints; other modifiers keep their order).
fn same_modifier_set(a: &str, b: &str) -> bool {
    const CPOL: [&str; 6] = ["glc", "slc", "dlc", "sc0", "sc1", "nt"];
    fn split(s: &str) -> (Vec<&str>, Vec<&str>) {
        let (rest, mut cpol): (Vec<&str>, Vec<&str>) = s.split(' ').partition(|t| !CPOL.contains(t));
        cpol.sort_unstable();
        (rest, cpol)
    }
    let (x, y) = (split(a), split(b));
    x.1.len() > 1 && x == y
}

/// Assembles one instruction (the text of one line, no label) into a typed instruction.
/// `line` and `col0` position errors.
pub fn assemble_inst(arch: Arch, text: &str, line: usize, col0: usize) -> Result<Instruction> {
    let l = split_line(text, col0).ok_or_else(|| IsaError::asm(line, col0, "empty line"))?;
    assemble_parsed(arch, &l, text, line)
}

fn assemble_parsed(arch: Arch, l: &Line, text: &str, line: usize) -> Result<Instruction> {
    let lower;
    let m = if l.mnemonic.text.bytes().any(|b| b.is_ascii_uppercase()) {
        lower = l.mnemonic.text.to_ascii_lowercase();
        lower.as_str()
    } else {
        l.mnemonic.text
    };
    // An alias or deprecated name (alias.rs) is assembled, and read back, as its llvm-mc name.
    let canonical;
    let m = match candidates(arch, m).is_empty().then(|| crate::alias::resolve(arch, m)).flatten() {
        Some(c) => {
            canonical = c;
            canonical.as_str()
        }
        None => m,
    };
    if l.rest.text.contains("::") {
        return vopd::assemble(arch, l, m, text, line);
    }
    let cands = candidates(arch, m);
    if cands.is_empty() {
        return Err(IsaError::asm(
            line,
            l.mnemonic.col,
            format!("unknown mnemonic '{}' for {}", l.mnemonic.text, arch.name()),
        ));
    }
    let mut want_rest = String::with_capacity(l.rest.text.len());
    norm_into(l.rest.text, &mut want_rest);
    let mut buf = String::with_capacity(want_rest.len() + 8);
    let mut got = String::with_capacity(m.len() + want_rest.len() + 16);
    let mut first_err: Option<(usize, String)> = None;
    let mut mismatch: Option<String> = None;
    for c in cands.iter() {
        let mut i = c.init;
        match fill(&mut i, l, c.ext) {
            Ok(()) => {
                got.clear();
                disassemble_into(&i, &mut got);
                if reads_as(&got, m, &want_rest, &mut buf) {
                    return Ok(i);
                }
                // llvm-mc always prints the scaled MFMA's op_sel_hi, whose default it accepts
                // left out.
                if i.field_def("scale_opsel_hi").is_some() && !want_rest.contains("op_sel_hi:") {
                    let short = got.replace(" op_sel_hi:[0,0,0]", "");
                    if reads_as(&short, m, &want_rest, &mut buf) {
                        return Ok(i);
                    }
                }
                if mismatch.is_none() {
                    mismatch = Some(got.clone());
                }
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
        format!("cannot encode '{}' (closest encoding reads back as '{}')", text.trim(), mismatch.unwrap_or_default()),
    ))
}

/// Assembles one instruction line (no labels) into bytes.
pub fn assemble_line(arch: Arch, line: &str) -> Result<Vec<u8>> {
    let blanked = blank_block_comments(line);
    let text = strip_comment(blanked.as_deref().unwrap_or(line));
    Ok(assemble_inst(arch, text, 1, 1)?.encode())
}

fn branch_operand(i: &Instruction) -> bool {
    i.operands().iter().any(|o| o.kind == OperandKind::Label)
}

/// Assembles a whole source: labels (`name:`), comments, one instruction per line; branch targets
/// may be labels.
pub fn assemble(arch: Arch, src: &str) -> Result<Vec<u8>> {
    // Pass 1: sizes and label addresses. Label operands are assembled as 0 first.
    struct Item<'a> {
        line: usize,
        text: &'a str,
        col: usize,
        inst: Instruction,
        at: usize,
        label: Option<(&'a str, usize)>,
    }
    let mut labels: HashMap<&str, usize> = HashMap::new();
    let mut items = Vec::new();
    let mut at = 0usize;
    let lines: Vec<String> = src.lines().map(|l| blank_block_comments(l).unwrap_or_else(|| l.to_string())).collect();
    for (n, raw) in lines.iter().enumerate() {
        let lno = n + 1;
        let mut s = strip_comment(raw);
        let mut col = 1;
        while let Some((name, rest)) = s.split_once(':') {
            let nm = name.trim();
            if nm.is_empty()
                || !nm.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
                || nm.contains(' ')
            {
                break;
            }
            if nm.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                break;
            }
            if labels.insert(nm, at).is_some() {
                return Err(IsaError::asm(lno, col, format!("label '{nm}' defined twice")));
            }
            col += name.len() + 1;
            s = rest;
        }
        if s.trim().is_empty() {
            continue;
        }
        // A label operand: the last comma-separated operand of a branch.
        let l = split_line(s, col).expect("non-empty");
        let probe = assemble_parsed(arch, &l, s, lno);
        let (inst, label) = match probe {
            Ok(i) => (i, None),
            Err(e) => {
                let last = l.operands.last().cloned();
                match last {
                    Some(t)
                        if t.text.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '.') =>
                    {
                        let off = t.col - col;
                        let replaced = format!("{}0{}", &s[..off], &s[off + t.text.len()..]);
                        match assemble_inst(arch, &replaced, lno, col) {
                            Ok(i) if branch_operand(&i) => (i, Some((t.text, t.col))),
                            _ => return Err(e),
                        }
                    }
                    _ => return Err(e),
                }
            }
        };
        let size = inst.size();
        items.push(Item { line: lno, text: s, col, inst, at, label });
        at += size;
    }
    let mut out = Vec::with_capacity(at);
    for mut it in items {
        let _ = it.text;
        if let Some((name, col)) = it.label {
            let target =
                *labels.get(name).ok_or_else(|| IsaError::asm(it.line, col, format!("undefined label '{name}'")))?;
            let next = it.at + it.inst.size();
            let delta = (target as i64 - next as i64) / 4;
            if !(-32768..=32767).contains(&delta) {
                return Err(IsaError::asm(it.line, col, format!("branch to '{name}' out of range ({delta} dwords)")));
            }
            it.inst.set_field("simm16", delta as u16 as u32);
        }
        let _ = it.col;
        it.inst.encode_into(&mut out);
    }
    Ok(out)
}
