//! The `isa_modifiers` generator: which modifier bits of a VOP3, VOP3P or VINTERP word llvm-mc
//! 22's ASSEMBLER writes for each opcode (gfx11/gfx12 WMMA too), and whether it takes the explicit `_e64` suffix.
//!
//! The disassembler-derived neg/abs flags (`Opcode::flags`, isa/forms.rs) say what llvm-mc
//! prints; its assembler refuses more: neg/abs on gfx1100 `v_readlane_b32`'s lane select,
//! `op_sel` on gfx9 `v_add_f32_e64` or `v_interp_p2_f32`, `op_sel_hi` on gfx950
//! `v_dot2_f32_f16`, `_e64` on gfx1100 `v_readlane_b32`. For every such opcode, one golden line
//! of that mnemonic is assembled as it is (the baseline) and with one modifier added: `op_sel`
//! with each entry set alone (on a line with 16-bit register halves, also each `.l` operand
//! written `.h`: llvm-mc refuses an `op_sel` entry of a half), `op_sel_hi`, `neg_lo` and `neg_hi`
//! with each entry alone, neg and abs on each source, `clamp`, `mul:2`, `mul:4`, and the mnemonic
//! with `_e64` added where it has no suffix. llvm-mc's `/*...*/` notes are taken out of the lines
//! first. A probe llvm-mc accepts must be the baseline's
//! encoding and length, and differ from it only in the modifier bits of the first two dwords
//! ([`MOD_BITS`]); the bits it changes are writable. The `_e64` probe must give the baseline's
//! bytes. Any other answer is an error. A modifier llvm-mc accepts and writes no bit for (an
//! `op_sel` entry past the destination's) adds nothing.
//!
//! llvm-mc also takes some modifiers it writes no bit for, and refuses others whatever their
//! value (`op_sel` on gfx9 `v_trunc_f32_e64`): each opcode's entry says which modifier names (and
//! `_e64`) llvm-mc takes at all, from the probes it accepted and the golden lines' own modifiers.
//!
//! Output: `src/isa/modifiers.rs`, per architecture every probed opcode (by table mnemonic) with
//! its baseline's modifier bits, the bits some line writes, and the names it takes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use baregpu_autogen::isa::modifier_bits::{
    layout_mask, pack, MOD_BITS, NAME_ABID, NAME_BLGP, NAME_CBSZ, NAME_CLAMP, NAME_E64, NAME_NEG, NAME_NEG_HI,
    NAME_NEG_LO, NAME_OMOD, NAME_OP_SEL, NAME_OP_SEL_HI, NAME_OP_SEL_WHOLE,
};
use baregpu_autogen::isa::{Arch as Table, Opcode, OperandKind};

use super::line_operands::line_operands;
use super::src_types::{operand_range, read_golden, synth_line};
use super::text::operands;
use super::{llvm, ARCHS, LLVM_INPUT};
use crate::inputs::Inputs;
use crate::{banner, Generated};

/// Golden lines tried per opcode until one assembles as it is.
const LINES_PER_OP: usize = 4;

/// The opcodes probed: VOP3 (with VOPC/VOP1/VOP2 promoted to it), VOP3P, VINTERP and MFMA,
/// less v_permlane*_swap, whose modifier bits hold fi/bound_ctrl.
fn probed(op: &Opcode) -> bool {
    let m = op.mnemonic;
    matches!(op.format, "VOP3" | "VOP3P" | "VINTERP")
        && matches!(op.layout, "VOP3" | "VOP3SD" | "VOP3P" | "VINTERP" | "WMMA" | "MFMA")
        && !(m.starts_with("v_permlane") && m.contains("_swap"))
}

/// A line's fit for a baseline: fewer modifiers written first.
fn plain(l: &str) -> usize {
    [" op_sel", " neg_", " clamp", " mul:", " div:", "|", "-", "byte_sel", " dpp", "fi:", "row_", "quad_perm"]
        .iter()
        .filter(|p| l.contains(*p))
        .count()
}

/// The probe lines of one baseline line of `op`, each with the name bit of the modifier it
/// writes (`modifier_bits::NAME_*`; 0 for neg/abs and v_bitop3's table, `NAME_E64` for the
/// suffix).
fn probes(op: &Opcode, line: &str) -> Vec<(String, u16)> {
    let (mn, rest) = line.split_once(' ').unwrap_or((line, ""));
    let mut out = Vec::new();
    // VINTERP's wait_exp must come last (llvm-mc refuses a modifier after it).
    let with = |m: &str| match line.find(" wait_exp:") {
        Some(at) => format!("{} {m}{}", &line[..at], &line[at..]),
        None => format!("{line} {m}"),
    };
    let halves = rest.contains(".l") || rest.contains(".h");
    let n = operands(line, 0).len();
    if halves {
        for k in 0..n {
            if let Some(r) = operand_range(line, k) {
                if let Some(reg) = line[r.clone()].strip_suffix(".l") {
                    out.push((format!("{}{reg}.h{}", &line[..r.start], &line[r.end..]), NAME_OP_SEL));
                }
            }
        }
        // The halves written as whole registers, with an op_sel list that sets nothing.
        let whole = line.replace(".l,", ",").replace(".l ", " ");
        let whole = whole.strip_suffix(".l").unwrap_or(&whole);
        let at = whole.find(" wait_exp:").unwrap_or(whole.len());
        out.push((format!("{} op_sel:[0,0,0,0]{}", &whole[..at], &whole[at..]), NAME_OP_SEL_WHOLE));
    }
    // On a line with halves too: llvm-mc takes op_sel entries of its 32-bit operands
    // (`v_alignbyte_b32 v8, v24, v40, v56.l op_sel:[1,0,0,0]`); without halves, they are its
    // whole registers.
    if !line.contains(" op_sel:") {
        let bit = if halves { NAME_OP_SEL } else { NAME_OP_SEL | NAME_OP_SEL_WHOLE };
        for k in 0..4 {
            out.push((with(&format!("op_sel:[{}]", one_hot(4, k))), bit));
        }
    }
    for (name, bit) in [("op_sel_hi", NAME_OP_SEL_HI), ("neg_lo", NAME_NEG_LO), ("neg_hi", NAME_NEG_HI)] {
        if !line.contains(&format!(" {name}:")) {
            for k in 0..3 {
                out.push((with(&format!("{name}:[{}]", one_hot(3, k))), bit));
            }
        }
    }
    // gfx12 byte selects live in op_sel's bits.
    let tail = [
        ("clamp", NAME_CLAMP),
        ("mul:2", NAME_OMOD),
        ("mul:4", NAME_OMOD),
        ("byte_sel:1", 0),
        ("byte_sel:2", 0),
        ("index_key:1", 0),
        ("index_key:2", 0),
    ];
    for (m, bit) in tail {
        if !line.contains(&format!(" {}", &m[..3])) && !line.contains(" div:") {
            out.push((with(m), bit));
        }
    }
    for (k, o) in line_operands(op).iter().enumerate() {
        if !matches!(o.kind, OperandKind::Vsrc | OperandKind::Ssrc) || o.source.is_none_or(|s| s > 2) {
            continue;
        }
        if let Some(r) = operand_range(line, k) {
            let t = &line[r.clone()];
            // A register: neg/abs on a constant fold into its value (asm::const_mods).
            if super::text::reg(t.trim_end_matches(".l")).is_some() {
                out.push((format!("{}-{t}{}", &line[..r.start], &line[r.end..]), 0));
                out.push((format!("{}|{t}|{}", &line[..r.start], &line[r.end..]), 0));
            }
        }
    }
    if !mn.ends_with("_e64") && !mn.ends_with("_e32") {
        out.push((format!("{mn}_e64 {rest}").trim_end().to_string(), NAME_E64));
    }
    // v_bitop3's truth table lives in the abs, omod and neg bits: each bit written.
    if mn.starts_with("v_bitop3") {
        out.extend((0..8).map(|k| (with(&format!("bitop3:{:#x}", 1 << k)), 0)));
    }
    if op.layout == "MFMA" {
        out.extend(matrix_probes(line));
    }
    out
}

/// MFMA probes: each bit of `cbsz`, `abid` and `blgp`, and each entry of `neg` (which the f64
/// MFMAs write in blgp's bits). An `_f8f6f4` MFMA's cbsz and blgp name the A and B formats,
/// whose size its src0 and src1 take: 8 registers for fp8/bf8 (0, 1), 6 for fp6/bf6 (2), 4 for
/// fp4 (4).
fn matrix_probes(line: &str) -> Vec<(String, u16)> {
    let f8f6f4 = line.split(' ').next().is_some_and(|m| m.ends_with("_f8f6f4"));
    let sized = |k: usize, v: u32| -> String {
        let regs = [8, 8, 6, 6, 4][v.min(4) as usize];
        match operand_range(line, k) {
            Some(r) if f8f6f4 => match super::text::reg(&line[r.clone()]) {
                Some((c, a, _)) => format!("{}{c}[{a}:{}]{}", &line[..r.start], a + regs - 1, &line[r.end..]),
                None => line.to_string(),
            },
            _ => line.to_string(),
        }
    };
    let mut out = Vec::new();
    for v in [1, 2, 4] {
        out.push((format!("{} cbsz:{v}", sized(1, v)), NAME_CBSZ));
        out.push((format!("{} blgp:{v}", sized(2, v)), NAME_BLGP));
    }
    for v in [1, 2, 4, 8] {
        out.push((format!("{line} abid:{v}"), NAME_ABID));
    }
    for k in 0..3 {
        out.push((format!("{line} neg:[{}]", one_hot(3, k)), NAME_NEG));
    }
    out
}

/// The name bits of what a baseline line writes already (its suffix, its modifiers): taken.
fn written(line: &str) -> u16 {
    let mn = line.split(' ').next().unwrap_or("");
    let e64 = if mn.ends_with("_e64") || mn.ends_with("_e32") { NAME_E64 } else { 0 };
    let mods = [
        (" op_sel:", NAME_OP_SEL),
        (" op_sel_hi:", NAME_OP_SEL_HI),
        (" neg_lo:", NAME_NEG_LO),
        (" neg_hi:", NAME_NEG_HI),
        (" clamp", NAME_CLAMP),
        (" mul:", NAME_OMOD),
        (" div:", NAME_OMOD),
        (" cbsz:", NAME_CBSZ),
        (" abid:", NAME_ABID),
        (" blgp:", NAME_BLGP),
        (" neg:", NAME_NEG),
    ];
    let names = mods.iter().filter(|(t, _)| line.contains(t)).fold(e64, |a, (_, b)| a | b);
    let halves = line.contains(".l") || line.contains(".h");
    if names & NAME_OP_SEL != 0 && !halves {
        names | NAME_OP_SEL_WHOLE
    } else {
        names
    }
}

/// `line` without the modifiers the probes add, its high halves written low.
fn without_modifiers(line: &str) -> String {
    let names = [
        "op_sel:",
        "op_sel_hi:",
        "neg_lo:",
        "neg_hi:",
        "clamp",
        "mul:",
        "div:",
        "byte_sel:",
        "index_key:",
        "bitop3:",
        "cbsz:",
        "abid:",
        "blgp:",
        "neg:",
    ];
    let (head, tail) = line.split_once(' ').unwrap_or((line, ""));
    let kept: Vec<&str> = tail.split(' ').filter(|t| !names.iter().any(|n| t.starts_with(n))).collect();
    // A high half is op_sel too: the low one is the baseline.
    format!("{head} {}", kept.join(" ")).trim_end().replace(".h", ".l")
}

/// `line` without llvm-mc's `/*...*/` notes (`v24/*Invalid register, operand has ...*/`, whose
/// comma would split an operand).
fn strip_comments(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some((a, b)) = rest.split_once("/*") {
        out.push_str(a);
        rest = b.split_once("*/").map_or("", |(_, c)| c);
    }
    out.push_str(rest);
    out
}

/// `line` with `_e64` added to its mnemonic.
fn with_e64(line: &str) -> String {
    match line.split_once(' ') {
        Some((m, rest)) => format!("{m}_e64 {rest}"),
        None => format!("{line}_e64"),
    }
}

fn one_hot(n: usize, k: usize) -> String {
    (0..n).map(|i| if i == k { "1" } else { "0" }).collect::<Vec<_>>().join(",")
}

/// The first eight bytes of an encoding as one little-endian number.
fn qword(b: &[u8]) -> u64 {
    let mut q = [0u8; 8];
    let n = b.len().min(8);
    q[..n].copy_from_slice(&b[..n]);
    u64::from_le_bytes(q)
}

/// What one opcode's probes found.
#[derive(Clone, Copy)]
struct Found {
    /// The baseline's modifier bits (packed, see `modifier_bits::pack`).
    default: u16,
    /// The modifier bits some accepted probe changed (packed).
    writable: u16,
    /// The modifiers (and `_e64`) llvm-mc takes at all, written or not (`modifier_bits::NAME_*`).
    names: u16,
}

type Found2 = BTreeMap<&'static str, Found>;

/// One baseline line of an opcode: the opcode, the line, its probes (with their name bits) and
/// the modifier names the opcode's golden lines write.
type Target = (&'static Opcode, String, Vec<(String, u16)>, u16);

fn probe_arch(arch: &str) -> Result<Found2, String> {
    let table: &Table =
        baregpu_autogen::isa::ARCHS.iter().find(|a| a.name == arch).ok_or_else(|| format!("no table for {arch}"))?;
    let golden = read_golden(arch)?;
    let none = Vec::new();
    // (opcode, baseline line, probes, names the golden lines write)
    let mut targets: Vec<Target> = Vec::new();
    for op in table.opcodes.iter().filter(|o| probed(o)) {
        let lines: Vec<String> = golden
            .get(op.mnemonic)
            .unwrap_or(&none)
            .iter()
            .filter(|(l, half)| *half == 0 && !l.contains(" :: ") && !l.contains("dpp") && !l.contains("row_"))
            .map(|(l, _)| strip_comments(l))
            .collect();
        // Each line's own modifiers are taken; the probes start from the line without them.
        let taken: u16 = lines.iter().fold(0, |a, l| a | written(l));
        let mut lines: Vec<String> = lines.iter().map(|l| without_modifiers(l)).collect();
        lines.dedup();
        if lines.is_empty() {
            // No golden line (gfx950 `v_dot2_f32_f16`, gfx1100 `v_writelane_b32`): lines written
            // from the operand list, as src_kinds.rs does.
            let lops = line_operands(op);
            let forms = [(false, false), (true, false), (false, true), (true, true)];
            lines = forms.into_iter().filter_map(|(sgpr, sdst)| synth_line(op, &lops, sgpr, sdst)).collect();
        }
        lines.sort_by_key(|l| plain(l));
        lines.truncate(LINES_PER_OP);
        // A VOP3 opcode llvm-mc prints without a suffix though a 32-bit encoding shares its name
        // (`v_nop`, `v_pipeflush`): its golden lines are the 32-bit one's, so it is probed with
        // `_e64` written.
        if op.format == "VOP3" && !op.mnemonic.ends_with("_e64") {
            let e64: Vec<String> = lines.iter().map(|l| with_e64(l)).collect();
            lines.extend(e64);
        }
        for l in lines {
            let p = probes(op, &l);
            targets.push((op, l, p, taken));
        }
    }
    let mut lines = Vec::new();
    for (_, l, p, _) in &targets {
        lines.push(l.clone());
        lines.extend(p.iter().map(|(l, _)| l.clone()));
    }
    let res = llvm::assemble(arch, &lines)?;
    let mut found = Found2::new();
    let mut errors = Vec::new();
    let mut k = 0;
    for (op, line, p, taken) in &targets {
        let r = &res[k..k + 1 + p.len()];
        k += 1 + p.len();
        let Some(base) = &r[0] else { continue };
        let enc = |b: &[u8]| table.encoding_of(qword(b) as u32).map(|f| f.name);
        if found.contains_key(op.mnemonic) || enc(&base.bytes) != Some(op.format) {
            continue;
        }
        let b = qword(&base.bytes);
        let mask = layout_mask(op.layout);
        let mut f = Found { default: pack(b) & mask, writable: 0, names: taken | written(line) };
        for ((probe, name), ans) in p.iter().zip(&r[1..]) {
            let Some(a) = ans else { continue };
            f.names |= name;
            if *name == NAME_E64 {
                if a.bytes != base.bytes {
                    errors.push(format!("`{probe}`: other bytes than `{line}`"));
                }
                continue;
            }
            let d = qword(&a.bytes) ^ b;
            let outside = d & !MOD_BITS != 0 || pack(d) & !mask != 0;
            if a.bytes.len() != base.bytes.len() || enc(&a.bytes) != enc(&base.bytes) || outside {
                errors.push(format!("`{probe}`: {:x?} against {:x?}", a.bytes, base.bytes));
                continue;
            }
            f.writable |= pack(d);
        }
        found.insert(op.mnemonic, f);
    }
    llvm::found(arch, &errors, found)
}

pub fn generate(_inputs: &Inputs) -> Result<Vec<Generated>, String> {
    llvm::check_version()?;
    let tables = llvm::per_arch("isa_modifiers", ARCHS, |_, a| probe_arch(a))?;
    let mut s = banner("isa_modifiers", &[&LLVM_INPUT]);
    s.push_str(
        "//! The modifier bits llvm-mc 22's assembler writes, per architecture: (table mnemonic, the\n\
         //! baseline line's modifier bits, the bits some modifier changes, the modifiers llvm-mc\n\
         //! takes at all), sorted by mnemonic, for every VOP3, VOP3P and VINTERP opcode probed. Bits\n\
         //! packed by `modifier_bits::pack`; names as `modifier_bits::NAME_*`. Found by assembling a\n\
         //! golden line with each modifier added (generator autogen/gen/src/isa/modifiers.rs).\n\n",
    );
    for (arch, table) in ARCHS.iter().zip(tables) {
        let _ = writeln!(s, "/// {} opcodes of {arch}.", table.len());
        let _ = writeln!(s, "pub static {}: &[(&str, u16, u16, u16)] = &[", arch.to_uppercase());
        for (m, f) in &table {
            let _ = writeln!(s, "    ({m:?}, 0x{:04x}, 0x{:04x}, 0x{:04x}),", f.default, f.writable, f.names);
        }
        s.push_str("];\n\n");
    }
    s.pop();
    Ok(vec![Generated { path: PathBuf::from("src/isa/modifiers.rs"), text: s }])
}
