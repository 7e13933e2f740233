//! Text assembler (llvm-mc syntax): one instruction per line, `//` and `;` comments, `name:`
//! labels, SOPP/SOPK branch targets as labels (range-checked).
//!
//! Each candidate encoding of a mnemonic is filled from the typed operands and then checked by
//! decoding it back into typed operands and comparing them with the line's as values
//! (`verify`): the first candidate that means what the line says wins, and the candidates come
//! in llvm-mc's order of preference (e32 before e64, inline constant before literal).

mod expr;
pub mod lexer;
mod modifier;
pub mod operand;
pub mod parser;
mod symbolic;
mod value;
mod verify;
mod vopd;

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use baregpu_autogen::isa::OperandKind;

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
    // `_e32`/`_e64` on a mnemonic the tables know only without it: the same opcode, in the
    // 32-bit or the VOP3 encoding.
    if out.is_empty() {
        if let Some((b, e64)) = m.strip_suffix("_e32").map(|b| (b, false)).or(m.strip_suffix("_e64").map(|b| (b, true)))
        {
            let mut all = Vec::new();
            add(b, Ext::None, &mut all);
            out.extend(all.into_iter().filter(|c| {
                let f = t.format(c.init.fmt).name;
                if e64 {
                    !["VOP1", "VOP2", "VOPC", "VOPD"].iter().any(|p| f.starts_with(p))
                } else {
                    ["VOP1", "VOP2", "VOPC"].iter().any(|p| f.starts_with(p))
                }
            }));
        }
    }
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
    } else if m.starts_with("v_") && !m.ends_with("_e32") && !m.ends_with("_e64") {
        // llvm-mc picks DPP and SDWA by their modifiers when the suffix is left out; they come
        // last, so a line without such modifiers never reaches them.
        for n in dpp_bases(m) {
            add(&n, Ext::Dpp16, &mut out);
            add(&n, Ext::Dpp8, &mut out);
            add(&n, Ext::Sdwa, &mut out);
        }
    }
    out
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
    let want = verify::Want::new(l);
    let mut buf = String::with_capacity(l.rest.text.len() + 32);
    let mut first_err: Option<(usize, String)> = None;
    let mut mismatch: Option<String> = None;
    for c in cands.iter() {
        let mut i = c.init;
        match fill(&mut i, l, c.ext) {
            Ok(()) => {
                if verify::agrees(&i, &want, &mut buf) {
                    return Ok(i);
                }
                if mismatch.is_none() {
                    mismatch = Some(buf.clone());
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
        format!("cannot encode '{}' (closest encoding decodes as '{}')", text.trim(), mismatch.unwrap_or_default()),
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
                    // A label, or an expression of labels and numbers (`loop+4`).
                    Some(t) if !expr::symbols(t.text).is_empty() => {
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
                return Err(IsaError::asm(
                    it.line,
                    col,
                    format!("branch target '{name}' is not a multiple of 4 bytes"),
                ));
            }
            let next = it.at + it.inst.size();
            let delta = (target - next as i64) / 4;
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
