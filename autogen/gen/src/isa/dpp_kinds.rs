//! The `isa_dpp_kinds` generator: which kinds of operand (a vector register, a scalar register,
//! an inline constant) llvm-mc 22 takes in src1 and src2 of each gfx11/gfx12 VOP3/VOP3P DPP16
//! and DPP8 form, found by asking llvm-mc.
//!
//! The DPP word holds src0 (a VGPR), but src1 and src2 stay 9-bit fields, and llvm-mc refuses
//! some kinds there: on gfx1100 a VOP3 DPP src1 takes only a VGPR, `v_fma_mix*` src1 and gfx12
//! `v_dot4_f32_{fp8,bf8}_*` src1/src2 too. Every golden DPP line of a VOP3/VOP3SD/VOP3P opcode is
//! assembled as it is (the baseline) and with src1 or src2 replaced by a VGPR (the line's own
//! where it is one), an SGPR and the inline constant `1`. A probe is taken when llvm-mc encodes
//! it with the baseline's length and src0 code (the DPP marker) and prints no `/*Invalid`
//! comment; any other answer than that or a refusal is an error. A literal is never taken in a
//! DPP form (`isa::ext_forms` refuses it), so it is not probed.
//!
//! Output: `src/isa/dpp_kinds.rs`, per architecture the (table mnemonic, DPP8 or DPP16) forms
//! with a source that refuses a kind; every other DPP source takes all of them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use baregpu_autogen::isa::src_kinds_bits::{ALL, I, S, V};
use baregpu_autogen::isa::{Opcode, OperandKind, FLAG_DPP16, FLAG_DPP8};

use super::line_operands::line_operands;
use super::src_types::{operand_range, read_golden, synth_line};
use super::{llvm, text, LLVM_INPUT};
use crate::inputs::Inputs;
use crate::{banner, Generated};

/// The architectures with VOP3/VOP3P DPP forms.
const DPP_ARCHS: [&str; 2] = ["gfx1100", "gfx1201"];

/// Golden lines tried per form until one is taken as it is.
const LINES_PER_FORM: usize = 2;

/// The kind bits of the probes, in the order of [`probes`].
const KINDS: [u8; 3] = [V, S, I];

/// One form to probe: the opcode, DPP8 or DPP16, and per line the byte ranges of src1/src2.
struct Target {
    op: &'static Opcode,
    dpp8: bool,
    /// (line, [(source index, byte range)]).
    lines: Vec<(String, Vec<SrcRange>)>,
}

/// A source index and the byte range of that source in a line.
type SrcRange = (usize, std::ops::Range<usize>);

/// The probe tokens of a source: a vector register (the line's own where it is one), an SGPR
/// and an inline constant.
fn probes(own: &str, dwords: u8) -> [String; 3] {
    let d = usize::from(dwords.max(1));
    let reg = |c: char| if d == 1 { format!("{c}20") } else { format!("{c}[20:{}]", 19 + d) };
    let vgpr = match text::reg(own) {
        Some(('v', _, _)) => own.to_string(),
        _ => reg('v'),
    };
    [vgpr, reg('s'), "1".into()]
}

/// The table opcode of a DPP line's mnemonic (`v_add_f32_e64_dpp` is `v_add_f32_e64`,
/// `v_fma_mix_f32_e64_dpp` is `v_fma_mix_f32`), where it is a VOP3-family opcode.
fn opcode_of(table: &'static baregpu_autogen::isa::Arch, m: &str) -> Option<&'static Opcode> {
    let base = m.strip_suffix("_dpp")?;
    let vop3 = |o: &&Opcode| matches!(o.format, "VOP3" | "VOP3SD" | "VOP3P");
    let find = |n: &str| table.opcodes.iter().filter(vop3).find(|o| o.mnemonic == n);
    find(base).or_else(|| find(base.strip_suffix("_e64")?))
}

/// The src1/src2 operands of `op` that are 9-bit sources: (line position, source index).
fn dpp_sources(op: &Opcode) -> Vec<(usize, usize)> {
    let lops = line_operands(op);
    let srcs = lops.iter().enumerate().filter(|(_, o)| o.kind == OperandKind::Vsrc);
    srcs.filter_map(|(k, o)| Some((k, o.source.filter(|&s| s == 1 || s == 2)?))).collect()
}

/// Adds `line` to `t` with the byte ranges of its sources, up to [`LINES_PER_FORM`] lines.
fn add_line(t: &mut Target, line: &str, srcs: &[(usize, usize)]) {
    if t.lines.len() >= LINES_PER_FORM {
        return;
    }
    let ranges: Option<Vec<_>> = srcs.iter().map(|&(k, s)| Some((s, operand_range(line, k)?))).collect();
    if let Some(ranges) = ranges {
        t.lines.push((line.to_string(), ranges));
    }
}

/// DPP lines of `op` written from its operand list (`v_cndmask_b32_e64_dpp` has no golden line),
/// with its lane mask as an SGPR in the second.
fn synth_dpp_lines(op: &Opcode, dpp8: bool) -> Vec<String> {
    let lops = line_operands(op);
    let name =
        if op.mnemonic.ends_with("_e64") { format!("{}_dpp", op.mnemonic) } else { format!("{}_e64_dpp", op.mnemonic) };
    let ctrl = if dpp8 { " dpp8:[0,1,2,3,4,5,6,7]" } else { " quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf" };
    [false, true]
        .into_iter()
        .filter_map(|sgpr| synth_line(op, &lops, sgpr, false))
        .filter_map(|l| Some(format!("{name}{}{ctrl}", l.strip_prefix(op.mnemonic)?)))
        .collect()
}

fn targets(arch: &str) -> Result<Vec<Target>, String> {
    let table =
        baregpu_autogen::isa::ARCHS.iter().find(|a| a.name == arch).ok_or_else(|| format!("no table for {arch}"))?;
    let golden = read_golden(arch)?;
    let mut by_form: BTreeMap<(&'static str, bool), Target> = BTreeMap::new();
    for (m, lines) in &golden {
        let Some(op) = opcode_of(table, m) else { continue };
        let srcs = dpp_sources(op);
        if srcs.is_empty() {
            continue;
        }
        for (line, _) in lines.iter().filter(|(l, half)| *half == 0 && !l.contains(" :: ")) {
            let dpp8 = line.contains("dpp8:");
            let t = by_form.entry((op.mnemonic, dpp8)).or_insert_with(|| Target { op, dpp8, lines: Vec::new() });
            add_line(t, line, &srcs);
        }
    }
    // The forms the table gives an opcode that no golden line shows.
    let vop3 = table.opcodes.iter().filter(|o| matches!(o.format, "VOP3" | "VOP3SD" | "VOP3P"));
    for op in vop3 {
        let srcs = dpp_sources(op);
        for (dpp8, flag) in [(false, FLAG_DPP16), (true, FLAG_DPP8)] {
            if srcs.is_empty() || op.flags & flag == 0 || by_form.contains_key(&(op.mnemonic, dpp8)) {
                continue;
            }
            let mut t = Target { op, dpp8, lines: Vec::new() };
            for l in synth_dpp_lines(op, dpp8) {
                add_line(&mut t, &l, &srcs);
            }
            by_form.insert((op.mnemonic, dpp8), t);
        }
    }
    Ok(by_form.into_values().filter(|t| !t.lines.is_empty()).collect())
}

/// Whether llvm-mc took a probe against the baseline; `Err` for an answer no rule explains.
fn taken(base: &llvm::Inst, p: &Option<llvm::Inst>) -> Result<bool, String> {
    let Some(p) = p else { return Ok(false) };
    if p.text.contains("/*Invalid") {
        return Ok(false);
    }
    // The VOP3 DPP marker (0xfa DPP16, 0xe9 DPP8) is src0's code, the fifth byte.
    if p.bytes.len() != base.bytes.len() || p.bytes.get(4) != base.bytes.get(4) {
        return Err(format!("`{}`: another form than `{}`", p.text, base.text));
    }
    Ok(true)
}

/// Per (table mnemonic, DPP8), the kinds of src0..src2 (src0 ALL: the DPP word's VGPR).
type Kinds = BTreeMap<(&'static str, bool), [u8; 3]>;

fn probe_arch(arch: &str) -> Result<Kinds, String> {
    let targets = targets(arch)?;
    let mut lines = Vec::new();
    for t in &targets {
        for (line, ranges) in &t.lines {
            lines.push(line.clone());
            for (s, r) in ranges {
                let dwords = line_operands(t.op).iter().find(|o| o.source == Some(*s)).map_or(1, |o| o.dwords);
                for p in probes(&line[r.clone()], dwords) {
                    lines.push(format!("{}{p}{}", &line[..r.start], &line[r.end..]));
                }
            }
        }
    }
    let res = llvm::assemble(arch, &lines)?;
    let mut kinds = Kinds::new();
    let mut errors = Vec::new();
    let mut k = 0;
    for t in &targets {
        let mut found: Option<[u8; 3]> = None;
        for (_, ranges) in &t.lines {
            let n = 1 + KINDS.len() * ranges.len();
            let r = &res[k..k + n];
            k += n;
            let Some(base) = &r[0] else { continue };
            if found.is_some() {
                continue;
            }
            let mut masks = [ALL; 3];
            for (j, (s, _)) in ranges.iter().enumerate() {
                let mut mask = 0;
                for (kind, bit) in KINDS.iter().enumerate() {
                    match taken(base, &r[1 + j * KINDS.len() + kind]) {
                        Ok(true) => mask |= bit,
                        Ok(false) => {}
                        Err(e) => errors.push(format!("{} src{s}: {e}", t.op.mnemonic)),
                    }
                }
                // The literal is judged elsewhere: a restriction here is among V, S and I.
                masks[*s] = mask | (ALL & !(V | S | I));
            }
            found = Some(masks);
        }
        match found {
            Some(m) if m != [ALL; 3] => {
                kinds.insert((t.op.mnemonic, t.dpp8), m);
            }
            Some(_) => {}
            None => errors.push(format!("{} dpp8={}: no baseline llvm-mc takes", t.op.mnemonic, t.dpp8)),
        }
    }
    llvm::found(arch, &errors, kinds)
}

/// A kind mask as Rust: the names of its bits joined by `|`.
fn mask_expr(m: u8) -> String {
    if m == ALL {
        return "ALL".into();
    }
    let names: Vec<&str> = [(V, "V"), (S, "S"), (I, "I"), (ALL & !(V | S | I), "L")]
        .iter()
        .filter(|(b, _)| m & b != 0)
        .map(|(_, n)| *n)
        .collect();
    names.join(" | ")
}

pub fn generate(_inputs: &Inputs) -> Result<Vec<Generated>, String> {
    llvm::check_version()?;
    let tables = llvm::per_arch("isa_dpp_kinds", &DPP_ARCHS, |_, a| probe_arch(a))?;
    let mut s = banner("isa_dpp_kinds", &[&LLVM_INPUT]);
    s.push_str(
        "//! The operand kinds llvm-mc 22 takes in the sources of gfx11/gfx12 VOP3/VOP3P DPP16 and\n\
         //! DPP8 forms, per architecture: (table mnemonic, DPP8 (else DPP16), kinds of src0..src2),\n\
         //! sorted, for the forms with a source that refuses a VGPR, an SGPR or an inline constant.\n\
         //! Found by assembling a golden DPP line with src1 or src2 replaced by each (generator\n\
         //! autogen/gen/src/isa/dpp_kinds.rs). Other DPP sources take every kind but literals,\n\
         //! which no DPP form takes.\n\n",
    );
    s.push_str("#[allow(unused_imports)]\nuse super::src_kinds_bits::{ALL, I, L, S, V};\n\n");
    for (arch, table) in DPP_ARCHS.iter().zip(tables) {
        let _ = writeln!(s, "/// {} forms of {arch}.", table.len());
        let _ = writeln!(s, "pub static {}: &[(&str, bool, [u8; 3])] = &[", arch.to_uppercase());
        for ((m, dpp8), k) in &table {
            let k: Vec<String> = k.iter().map(|&m| mask_expr(m)).collect();
            let _ = writeln!(s, "    ({m:?}, {dpp8}, [{}]),", k.join(", "));
        }
        s.push_str("];\n\n");
    }
    s.pop();
    Ok(vec![Generated { path: PathBuf::from("src/isa/dpp_kinds.rs"), text: s }])
}
