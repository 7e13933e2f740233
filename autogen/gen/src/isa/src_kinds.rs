//! The `isa_src_kinds` generator: which kinds of operand (a vector register, a scalar register,
//! an inline constant, a literal) llvm-mc 22 takes in each VALU/SALU source of each opcode, per
//! architecture and encoding, found by asking llvm-mc.
//!
//! A 9-bit source field can hold any of the four kinds, but llvm-mc refuses some in some sources:
//! `v_readfirstlane_b32`'s src0 takes only a VGPR, `v_readlane_b32`'s lane select no VGPR,
//! `s_movrels_b32` only an SGPR, gfx11 VINTERP sources only VGPRs. For every source of every
//! opcode (the sources of src_types.rs, plus the one operand of an SOP1 opcode whose table lists
//! none, `s_setpc_b64`), a golden line of that exact mnemonic is assembled as it is (the
//! baseline) and with the source replaced by a VGPR (the line's own vector register where it has
//! one), an SGPR, the inline constant `1` and the literal `0x1234`. A probe is taken when llvm-mc
//! encodes it in the baseline's encoding with the baseline's length (four bytes more for the
//! literal, whose dword must be 0x1234) and prints no `/*Invalid immediate*/` comment (gfx950
//! `v_cvt_scalef32_sr_pk_fp4_f32 v12, -7, ...` assembles to a register's code). A probe
//! llvm-mc writes in another encoding (a longer one) is not taken by this one. Any other answer
//! is an error.
//!
//! Output: `src/isa/src_kinds.rs`, per architecture the opcodes (by their table mnemonic) with a
//! source that refuses a kind its encoding could hold; every other source takes all of them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use baregpu_autogen::isa::src_kinds_bits::{ALL, E, I, L, M, S, V};
use baregpu_autogen::isa::{Arch as Table, Opcode, OperandKind, FLAG_LITERAL};

use super::line_operands::line_operands;
use super::src_types::{operand_range, read_golden, synth_line, Golden};
use super::text::{self, operands};
use super::{llvm, ARCHS, LLVM_INPUT};
use crate::inputs::Inputs;
use crate::{banner, Generated};

const LITERAL: u32 = 0x1234;

/// Golden lines tried per source until one is taken as it is.
const LINES_PER_SOURCE: usize = 3;

/// One source to probe: the opcode, the source index (3: the scalar destination), its width
/// and the lines to probe it in.
struct Target {
    op: &'static Opcode,
    src: usize,
    dwords: u8,
    /// (line, byte range of the source operand).
    lines: Vec<(String, std::ops::Range<usize>)>,
}

/// The probe tokens of a source in `line` at `r`, in the order of the kind bits: a vector
/// register (the line's own, modifiers and all, where it is one; a 16-bit half where the line
/// writes halves), an SGPR, an inline constant, a literal and m0 (gfx12 `s_get_barrier_state`
/// takes m0 but no SGPR).
fn probes(line: &str, r: std::ops::Range<usize>, dwords: u8) -> Vec<String> {
    let own = &line[r.clone()];
    let d = usize::from(dwords.max(1));
    let reg = |c: char| if d == 1 { format!("{c}20") } else { format!("{c}[20:{}]", 19 + d) };
    let halves = line[..r.start].contains(".l") || line[..r.start].contains(".h") || line[r.end..].contains(".l");
    let vgpr = match text::reg(own) {
        Some(('v' | 'a', _, _)) => own.to_string(),
        _ if halves && d == 1 => "v20.l".to_string(),
        _ => reg('v'),
    };
    vec![vgpr, reg('s'), "1".into(), format!("0x{LITERAL:x}"), "m0".into()]
}

/// The number of probes of a source: the four kinds and m0.
const SRC_PROBES: usize = 5;

/// The golden lines of `op` with `n` operands (or lines written from its operand list).
fn lines_of(op: &Opcode, golden: &Golden, n: usize) -> Vec<String> {
    let none = Vec::new();
    let lines: Vec<String> = golden
        .get(op.mnemonic)
        .unwrap_or(&none)
        .iter()
        .filter(|(l, half)| *half == 0 && !l.contains(" :: ") && operands(l, 0).len() == n)
        .take(LINES_PER_SOURCE)
        .map(|(l, _)| l.clone())
        .collect();
    if !lines.is_empty() {
        return lines;
    }
    let lops = line_operands(op);
    let forms = [(false, false), (true, false), (false, true), (true, true)];
    forms.into_iter().filter_map(|(sgpr, sdst)| synth_line(op, &lops, sgpr, sdst)).collect()
}

/// The probe tokens of a scalar destination and their kind bits: an SGPR, m0 and the two
/// halves of exec (gfx12 `v_s_*` refuse exec, and m0 some others refuse). `vcc_lo` and `null`
/// are taken wherever an SGPR is (checked by hand with llvm-mc 22), so they are not probed.
const DST_PROBES: [(&str, u8); 4] = [("s20", S), ("m0", M), ("exec_lo", E), ("exec_hi", E)];

/// A destination that takes every probed kind.
const DST_ALL: u8 = S | M | E;

/// The scalar destinations of VALU opcodes (`v_readfirstlane_b32 s8, v28`, `v_readlane_b32`,
/// compares): the first operand, where the golden line writes an SGPR there; probed with
/// [`DST_PROBES`].
fn dst_targets(table: &'static Table, golden: &Golden) -> Vec<Target> {
    let mut out = Vec::new();
    for op in table.opcodes.iter().filter(|o| o.format.starts_with("VOP") && !o.format.starts_with("VOPD")) {
        let lops = line_operands(op);
        if lops.first().is_none_or(|o| o.name != "vdst" && o.name != "sdst") {
            continue;
        }
        let lines: Vec<(String, std::ops::Range<usize>)> = lines_of(op, golden, lops.len())
            .into_iter()
            .filter_map(|l| {
                let r = operand_range(&l, 0)?;
                let sgpr = l[r.clone()].strip_prefix('s').is_some_and(|n| n.parse::<u32>().is_ok());
                sgpr.then_some((l, r))
            })
            .collect();
        if !lines.is_empty() {
            out.push(Target { op, src: 3, dwords: 1, lines });
        }
    }
    out
}

/// Every source of every opcode of `table` (VOPD halves aside), with the lines to probe it in.
fn targets(table: &'static Table, golden: &Golden) -> Vec<Target> {
    let mut out = Vec::new();
    for op in table.opcodes.iter().filter(|o| !o.format.starts_with("VOPD")) {
        let lops = line_operands(op);
        // An SOP1 opcode whose table lists no operand (the probes saw none move): its golden
        // lines' one operand, a source where it sits in ssrc0 (see `is_ssrc0`).
        let sop1_one = lops.is_empty() && op.format == "SOP1";
        let srcs: Vec<(usize, usize, u8)> = if sop1_one {
            vec![(0, 0, 2)]
        } else {
            lops.iter()
                .enumerate()
                .filter(|(_, o)| matches!(o.kind, OperandKind::Vsrc | OperandKind::Ssrc))
                .filter_map(|(k, o)| Some((k, o.source.filter(|&s| s < 3)?, o.dwords)))
                .collect()
        };
        if srcs.is_empty() {
            continue;
        }
        let lines = if sop1_one { one_operand_lines(op, golden) } else { lines_of(op, golden, lops.len()) };
        for (k, src, dwords) in srcs {
            let mut lines = lines
                .iter()
                .filter_map(|l| {
                    let r = if sop1_one { one_operand(l)? } else { operand_range(l, k)? };
                    Some((l.clone(), r))
                })
                .collect::<Vec<_>>();
            // A scalar source that refuses SGPRs has no baseline in a line written with one
            // (gfx12 `s_get_barrier_state s8, s16`): the same lines with the constant 1 follow.
            if op.format.starts_with("SOP") {
                let ones: Vec<_> = lines
                    .iter()
                    .map(|(l, r)| (format!("{}1{}", &l[..r.start], &l[r.end..]), r.start..r.start + 1))
                    .collect();
                lines.extend(ones);
            }
            if !lines.is_empty() {
                out.push(Target { op, src, dwords, lines });
            }
        }
    }
    out
}

/// The golden lines of an SOP1 opcode whose table lists no operand: `s_setpc_b64 s[28:29]`, whose
/// one operand the table's text reader took for a modifier (it has a colon).
fn one_operand_lines(op: &Opcode, golden: &Golden) -> Vec<String> {
    let none = Vec::new();
    let lines = golden.get(op.mnemonic).unwrap_or(&none).iter().map(|(l, _)| l);
    lines.filter(|l| one_operand(l).is_some()).take(LINES_PER_SOURCE).cloned().collect()
}

/// The byte range of the one 64-bit SGPR pair operand of `line`.
fn one_operand(line: &str) -> Option<std::ops::Range<usize>> {
    let (m, rest) = line.split_once(' ')?;
    let t = rest.trim();
    let pair = t.starts_with("s[") && t.ends_with(']') && !t.contains(',');
    pair.then(|| m.len() + 1..line.len())
}

/// Whether the baseline and a probe differ only in bits 0..8 (an SOP1 `ssrc0`, not `sdst`).
fn is_ssrc0(base: &[u8], probe: &[u8]) -> bool {
    base.len() >= 4 && probe.len() >= 4 && (dword0(base) ^ dword0(probe)) >> 8 == 0
}

/// The first dword of an encoding (0 for a shorter one, which no AMDGPU encoding is).
fn dword0(b: &[u8]) -> u32 {
    b.get(..4).map_or(0, |d| u32::from_le_bytes([d[0], d[1], d[2], d[3]]))
}

/// Whether llvm-mc took probe `kind` (index into the kind bits) against the baseline; `Err` for
/// an answer none of the rules above explains.
fn taken(table: &Table, base: &llvm::Inst, kind: usize, r: &Option<llvm::Inst>) -> Result<bool, String> {
    let Some(p) = r else { return Ok(false) };
    // `-7/*Invalid immediate*/`: llvm-mc wrote another code than the constant's (gfx950
    // `v_cvt_scalef32_sr_pk_fp4_f32 v12, -7, ...` holds v249). A register it prints with
    // `/*Invalid register...*/` (gfx12 `v_s_exp_f16 s5, v24`) is written as given.
    if p.text.contains("/*Invalid immediate") {
        return Ok(false);
    }
    let enc = |b: &[u8]| table.encoding_of(dword0(b)).map(|f| f.name);
    let want = base.bytes.len() + if kind == 3 { 4 } else { 0 };
    if enc(&p.bytes) != enc(&base.bytes) {
        // Another encoding: llvm-mc chose a longer form that takes the kind.
        return if p.bytes.len() > base.bytes.len() {
            Ok(false)
        } else {
            Err(format!("`{}`: a shorter encoding", p.text))
        };
    }
    if p.bytes.len() != want {
        return Err(format!("`{}`: {} bytes, {want} expected", p.text, p.bytes.len()));
    }
    if kind == 3 && p.bytes[want - 4..] != LITERAL.to_le_bytes() {
        return Err(format!("`{}`: the literal is not 0x{LITERAL:x}", p.text));
    }
    Ok(true)
}

/// The kinds a scalar destination takes, from the answers to [`DST_PROBES`] after the baseline;
/// `Err` where llvm-mc takes one half of exec and not the other (no rule here explains that).
fn dst_mask(table: &Table, base: &llvm::Inst, r: &[Option<llvm::Inst>]) -> Result<u8, String> {
    let mut mask = 0;
    let mut exec = Vec::new();
    for ((_, bit), p) in DST_PROBES.iter().zip(r) {
        let t = taken(table, base, 0, p)?;
        if *bit == E {
            exec.push(t);
        }
        if t {
            mask |= bit;
        }
    }
    if exec.iter().any(|&t| t != exec[0]) {
        return Err(format!("`{}`: exec_lo and exec_hi answered differently", base.text));
    }
    Ok(mask)
}

/// The kinds an encoding's source could hold: every one, less the vector registers in scalar
/// encodings (8-bit fields) and the literal where the encoding has no literal dword (gfx9
/// VOP3/VOP3P) or the opcode already carries one (`v_fmamk_f32`).
fn possible(arch: &str, op: &Opcode) -> u8 {
    let gfx9 = matches!(arch, "gfx942" | "gfx950");
    let v = if op.format.starts_with("SOP") { 0 } else { V };
    let l = if gfx9 && matches!(op.format, "VOP3" | "VOP3P") || op.flags & FLAG_LITERAL != 0 { 0 } else { L };
    v | S | I | l
}

/// Per opcode mnemonic, the kinds of src0..src2 and of a scalar destination (ALL where not
/// probed or not restricted), for the opcodes with an operand that refuses a possible kind.
type Kinds = BTreeMap<&'static str, [u8; 4]>;

fn probe_arch(arch: &str) -> Result<Kinds, String> {
    let table =
        baregpu_autogen::isa::ARCHS.iter().find(|a| a.name == arch).ok_or_else(|| format!("no table for {arch}"))?;
    let golden = read_golden(arch)?;
    let mut targets = targets(table, &golden);
    targets.extend(dst_targets(table, &golden));
    let tokens = |t: &Target, line: &str, r: std::ops::Range<usize>| {
        if t.src == 3 {
            DST_PROBES.iter().map(|(p, _)| p.to_string()).collect()
        } else {
            probes(line, r, t.dwords)
        }
    };
    let mut lines = Vec::new();
    for t in &targets {
        for (line, r) in &t.lines {
            lines.push(line.clone());
            for p in tokens(t, line, r.clone()) {
                lines.push(format!("{}{p}{}", &line[..r.start], &line[r.end..]));
            }
        }
    }
    let res = llvm::assemble(arch, &lines)?;
    let mut kinds = Kinds::new();
    let mut errors = Vec::new();
    let mut k = 0;
    for t in &targets {
        let mut found: Option<Result<u8, String>> = None;
        let n = if t.src == 3 { DST_PROBES.len() } else { SRC_PROBES };
        for _ in &t.lines {
            let r = &res[k..k + 1 + n];
            k += 1 + n;
            let Some(base) = &r[0] else { continue };
            if found.is_some() {
                continue;
            }
            // An SOP1 operand the table does not list: a source only where the SGPR moves ssrc0.
            if t.op.operands.is_empty() && !r[2].as_ref().is_some_and(|p| is_ssrc0(&base.bytes, &p.bytes)) {
                found = Some(Ok(ALL));
                continue;
            }
            let mut mask = 0;
            let mut err = None;
            if t.src == 3 {
                found = Some(dst_mask(table, base, &r[1..]));
                continue;
            }
            for kind in 0..4 {
                // The opcode's own literal (K) is a literal already: a second one must equal it.
                if kind == 3 && t.op.flags & FLAG_LITERAL != 0 {
                    continue;
                }
                match taken(table, base, kind, &r[kind + 1]) {
                    Ok(true) => mask |= 1 << kind,
                    Ok(false) => {}
                    Err(e) => err = Some(e),
                }
            }
            // m0 where no SGPR is taken: the source's own kind M (a 64-bit source refuses m0 by
            // its size, so m0's answer counts only here).
            if mask & S == 0 && taken(table, base, 0, &r[5]).unwrap_or(false) {
                mask |= M;
            }
            found = Some(err.map_or(Ok(mask), Err));
        }
        match found {
            // A destination that refuses m0 or exec.
            Some(Ok(mask)) if t.src == 3 && mask != DST_ALL => {
                kinds.entry(t.op.mnemonic).or_insert([ALL; 4])[3] = mask;
            }
            Some(Ok(_)) if t.src == 3 => {}
            Some(Ok(mut mask)) => {
                // An SGPR refused where an inline constant is taken is the constant bus (the line
                // reads vcc or another SGPR already: `v_addc_co_u32_e32`, `v_div_fmas_f32`),
                // which asm::const_bus counts; the kinds it carries are not judged here.
                if mask & I != 0 && mask & (S | M) == 0 && t.op.format.starts_with("VOP") {
                    mask |= S | L;
                }
                let possible = possible(arch, t.op);
                if mask & possible != possible {
                    kinds.entry(t.op.mnemonic).or_insert([ALL; 4])[t.src] = mask | (ALL & !possible);
                }
            }
            Some(Err(e)) => errors.push(format!("{} src{}: {e}", t.op.mnemonic, t.src)),
            None => {}
        }
    }
    llvm::found(arch, &errors, kinds)
}

/// A kind mask as Rust: the names of its bits joined by `|`.
fn mask_expr(m: u8) -> String {
    if m == ALL {
        return "ALL".into();
    }
    let names: Vec<&str> = [(V, "V"), (S, "S"), (I, "I"), (L, "L"), (M, "M"), (E, "E")]
        .iter()
        .filter(|(b, _)| m & b != 0)
        .map(|(_, n)| *n)
        .collect();
    if names.is_empty() {
        "NONE".into()
    } else {
        names.join(" | ")
    }
}

pub fn generate(_inputs: &Inputs) -> Result<Vec<Generated>, String> {
    llvm::check_version()?;
    let tables = llvm::per_arch("isa_src_kinds", ARCHS, |_, a| probe_arch(a))?;
    let mut s = banner("isa_src_kinds", &[&LLVM_INPUT]);
    s.push_str(
        "//! The operand kinds llvm-mc 22 takes in each source of an opcode, per architecture: (table\n\
         //! mnemonic, kinds of src0..src2 and of the scalar destination), sorted by mnemonic, for\n\
         //! the opcodes with an operand that refuses a kind its encoding could hold. Found by\n\
         //! assembling a golden line with the source replaced by a VGPR, an SGPR, an inline constant\n\
         //! and a literal, the destination by an SGPR, m0 and exec_lo/exec_hi (generator\n\
         //! autogen/gen/src/isa/src_kinds.rs). Operands of other opcodes take every kind.\n\n",
    );
    s.push_str("#[allow(unused_imports)]\nuse super::src_kinds_bits::{ALL, E, I, L, M, NONE, S, V};\n\n");
    for (arch, table) in ARCHS.iter().zip(tables) {
        let _ = writeln!(s, "/// {} opcodes of {arch}.", table.len());
        let _ = writeln!(s, "pub static {}: &[(&str, [u8; 4])] = &[", arch.to_uppercase());
        for (m, k) in &table {
            let k: Vec<String> = k.iter().map(|&m| mask_expr(m)).collect();
            let _ = writeln!(s, "    ({m:?}, [{}]),", k.join(", "));
        }
        s.push_str("];\n\n");
    }
    s.pop();
    Ok(vec![Generated { path: PathBuf::from("src/isa/src_kinds.rs"), text: s }])
}
