//! Step 1 of the `isa` generator: the opcodes of every format. Each format's fixed bits and
//! operand templates (with every subset of its optional fields) are combined with every value of
//! the opcode field; an opcode exists where llvm-mc decodes the words as one instruction.

use std::collections::BTreeMap;

use super::formats::Fmt;
use super::{base_word, bytes_of, encoding_of, llvm, set, OpInfo, LITERAL};

/// The opcodes of `arch` llvm-mc decodes, one per (format, opcode value), in that order.
pub(super) fn opcodes(arch: &str, fmts: &[Fmt]) -> Result<Vec<OpInfo>, String> {
    struct Cand {
        fmt: usize,
        op: u32,
        word: u128,
        literal: bool,
    }
    let mut cands = Vec::new();
    for (fi, f) in fmts.iter().enumerate() {
        if !f.enumerate {
            continue;
        }
        let nops = f.op.map(|(lo, hi)| 1u32 << (hi - lo + 1)).unwrap_or(1);
        let home = f.parent.map(|p| fmts.iter().position(|x| x.name == p).unwrap()).unwrap_or(fi);
        let mut templates = Vec::new();
        for t in &f.templates {
            let n = f.optional.len();
            let mut subsets: Vec<u32> = (0..1u32 << n).collect();
            subsets.sort_by_key(|m| (std::cmp::Reverse(m.count_ones()), std::cmp::Reverse(*m)));
            for m in subsets {
                let mut t = t.clone();
                for (k, name) in f.optional.iter().enumerate() {
                    if m & (1 << k) == 0 {
                        t.retain(|x| x.0 != *name);
                    }
                }
                templates.push(t);
            }
        }
        for op in 0..nops {
            for t in &templates {
                let mut w = base_word(f, t);
                if let Some((lo, hi)) = f.op {
                    w = set(w, lo, hi, op as u64);
                }
                if encoding_of(fmts, w as u32) != Some(home) {
                    continue;
                }
                cands.push(Cand { fmt: fi, op, word: w, literal: false });
                if f.literal {
                    cands.push(Cand { fmt: fi, op, word: w | ((LITERAL as u128) << f.bits), literal: true });
                }
            }
        }
    }
    let lines: Vec<Vec<u8>> =
        cands.iter().map(|c| bytes_of(c.word, fmts[c.fmt].bits + if c.literal { 32 } else { 0 })).collect();
    let res = llvm::disassemble(arch, &lines)?;
    let mut found: BTreeMap<(usize, u32), OpInfo> = BTreeMap::new();
    for (c, r) in cands.iter().zip(res) {
        let Some(inst) = r else { continue };
        if found.contains_key(&(c.fmt, c.op)) {
            continue;
        }
        let f = &fmts[c.fmt];
        let text = inst.text.clone();
        let mnemonic = match f.name {
            "VOPD_Y" => text.split(" :: ").nth(1).unwrap_or("").split_whitespace().next().unwrap_or("").to_string(),
            _ => text.split_whitespace().next().unwrap_or("").to_string(),
        };
        if mnemonic.is_empty() {
            continue;
        }
        found.insert(
            (c.fmt, c.op),
            OpInfo {
                mnemonic,
                fmt: c.fmt,
                layout: c.fmt,
                opcode: c.op,
                literal: c.literal,
                word: c.word,
                len: f.bits as usize / 8 + if c.literal { 4 } else { 0 },
                text,
                operands: Vec::new(),
                dpp16: false,
                dpp8: false,
                sdwa: false,
                no_mods: 0,
                lit16: false,
            },
        );
    }
    Ok(found.into_values().collect())
}
