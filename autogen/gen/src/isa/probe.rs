//! Step 2 of the `isa` generator: which operand each field is. Each register or immediate field
//! of each opcode is changed on its own; the operand whose text moves by exactly that change is
//! the field's operand, and its text gives the kind and the size in dwords. The layouts that
//! read an opcode's fields (VOP3SD, MFMA, WMMA) follow from the same probes and the mnemonics.

use std::collections::BTreeMap;

use super::formats::{self, Fmt, Role};
use super::text::{operands, reg, simm16_kind, special_dwords};
use super::{bytes_of, field, get, llvm, set, OpInfo, OperandOut};

/// Per opcode, operand index -> (field, role).
pub(super) type Mapping = Vec<BTreeMap<usize, (&'static str, Role)>>;

/// What the probes found: each operand's field, which fields change some text, and the probed
/// words that decode (golden vector candidates).
pub(super) struct Probed {
    pub mapping: Mapping,
    pub field_effect: BTreeMap<(String, String), bool>,
    pub golden_cands: Vec<(u128, usize)>,
}

/// Probes every field of every opcode.
pub(super) fn probe(arch: &str, fmts: &[Fmt], ops: &[OpInfo]) -> Result<Probed, String> {
    struct Probe {
        op: usize,
        field: &'static str,
        role: Role,
        delta: i64,
        word: u128,
    }
    let vop3sd = fmts.iter().position(|f| f.name == "VOP3SD");
    let mut probes = Vec::new();
    for (oi, o) in ops.iter().enumerate() {
        let f = &fmts[o.fmt];
        let mut fields: Vec<&formats::FieldDef> = f.fields.iter().collect();
        if f.name == "VOP3" {
            fields.extend(vop3sd.map(|i| field(&fmts[i], "sdst").unwrap()));
        }
        for fd in fields {
            let cur = get(o.word, fd.lo, fd.hi);
            let (new, delta) = match fd.role {
                Role::Fixed => continue,
                Role::Vgpr | Role::Sgpr | Role::SSrc | Role::Src => (cur + 4, 4),
                Role::SgprX2 | Role::VdstY => (cur + 2, 4),
                Role::SgprX4 => (cur + 1, 4),
                Role::Simm16 | Role::Imm => (cur + 1, 0),
                Role::Offset => (cur + 4, 0),
                Role::Mod => (cur ^ 1, 0),
            };
            if fd.name == "src0" && (cur == 0xFF) {
                continue;
            }
            probes.push(Probe { op: oi, field: fd.name, role: fd.role, delta, word: set(o.word, fd.lo, fd.hi, new) });
        }
    }
    let plines: Vec<Vec<u8>> = probes.iter().map(|p| bytes_of(p.word, (ops[p.op].len * 8) as u32)).collect();
    let pres = llvm::disassemble(arch, &plines)?;
    let mut field_effect: BTreeMap<(String, String), bool> = BTreeMap::new();
    for f in fmts {
        for fd in &f.fields {
            if fd.role != Role::Fixed {
                field_effect.entry((f.name.to_string(), fd.name.to_string())).or_insert(false);
            }
        }
    }
    let mut mapping: Vec<BTreeMap<usize, (&'static str, Role)>> = (0..ops.len()).map(|_| BTreeMap::new()).collect();
    let mut golden_cands: Vec<(u128, usize)> = Vec::new();
    for (p, r) in probes.iter().zip(pres) {
        let Some(inst) = r else { continue };
        let o = &ops[p.op];
        golden_cands.push((p.word, o.len));
        if inst.text == o.text {
            continue;
        }
        let fname = fmts[o.fmt].name;
        if fname != "VOP3" || p.field != "sdst" {
            field_effect.insert((fname.to_string(), p.field.to_string()), true);
        }
        let half = if fname == "VOPD_Y" { 1 } else { 0 };
        let a = operands(&o.text, half);
        let b = operands(&inst.text, half);
        if a.len() != b.len() {
            continue;
        }
        let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        if p.delta != 0 {
            for &i in &diff {
                if let (Some(x), Some(y)) = (reg(&a[i]), reg(&b[i])) {
                    if x.0 == y.0 && y.1 as i64 - x.1 as i64 == p.delta {
                        mapping[p.op].entry(i).or_insert((p.field, p.role));
                    }
                }
            }
        } else if diff.len() == 1 && p.role != Role::Mod {
            mapping[p.op].entry(diff[0]).or_insert((p.field, p.role));
        }
    }
    Ok(Probed { mapping, field_effect, golden_cands })
}

/// The layout each opcode's fields are read with: VOP3 opcodes whose `sdst` probe moved an SGPR
/// are VOP3SD; VOP3P matrix opcodes are MFMA or WMMA.
pub(super) fn layouts(fmts: &[Fmt], ops: &mut [OpInfo], mapping: &Mapping) {
    let vop3sd = fmts.iter().position(|f| f.name == "VOP3SD");
    if let Some(sd) = vop3sd {
        for (oi, o) in ops.iter_mut().enumerate() {
            if fmts[o.fmt].name == "VOP3" && mapping[oi].values().any(|(f, r)| *f == "sdst" && *r == Role::Sgpr) {
                o.layout = sd;
            }
        }
    }
    let layout_named = |n: &str| fmts.iter().position(|f| f.name == n);
    for o in ops.iter_mut() {
        if fmts[o.fmt].name == "VOP3P" {
            let m = &o.mnemonic;
            if (m.starts_with("v_mfma") || m.starts_with("v_smfmac")) && !m.starts_with("v_mfma_ld_scale") {
                if let Some(l) = layout_named("MFMA") {
                    o.layout = l;
                }
            } else if m.starts_with("v_wmma") || m.starts_with("v_swmmac") {
                if let Some(l) = layout_named("WMMA") {
                    o.layout = l;
                }
            }
        }
    }
}

/// Each opcode's operands from its text and the probes' mapping; returns how many register or
/// immediate operands no field moved.
pub(super) fn operand_outs(fmts: &[Fmt], ops: &mut [OpInfo], mapping: &Mapping) -> usize {
    let mut unmapped = 0;
    for (oi, o) in ops.iter_mut().enumerate() {
        let half = if fmts[o.fmt].name == "VOPD_Y" { 1 } else { 0 };
        let texts = operands(&o.text, half);
        o.operands = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let r = reg(t);
                let dwords = r.map(|r| r.2 - r.1 + 1).unwrap_or_else(|| special_dwords(t));
                match mapping[oi].get(&i) {
                    Some(&(name, role)) => {
                        let class = r.map(|r| r.0).unwrap_or(' ');
                        let kind = match role {
                            Role::Vgpr | Role::VdstY if class == 'a' => "Agpr",
                            Role::Vgpr | Role::VdstY => "Vgpr",
                            Role::Sgpr | Role::SgprX2 | Role::SgprX4 => "Sgpr",
                            Role::SSrc => "Ssrc",
                            Role::Src => "Vsrc",
                            Role::Simm16 => simm16_kind(&o.mnemonic, t),
                            Role::Offset => "Offset",
                            Role::Imm if t.starts_with("attr") => "Attr",
                            Role::Imm => "Imm",
                            Role::Fixed | Role::Mod => "Imm",
                        };
                        OperandOut { name: name.to_string(), kind, dwords }
                    }
                    None => {
                        let kind = match r.map(|r| r.0) {
                            Some('v') => "Vgpr",
                            Some('a') => "Agpr",
                            Some(_) => "Sgpr",
                            None if t == "off" => "Off",
                            None if t.starts_with(|c: char| c.is_ascii_digit() || c == '-') => "Imm",
                            None => "Special",
                        };
                        if kind != "Special" && kind != "Off" {
                            unmapped += 1;
                        }
                        let name = if kind == "Special" || kind == "Off" { t.to_string() } else { format!("op{i}") };
                        OperandOut { name, kind, dwords }
                    }
                }
            })
            .collect();
    }

    unmapped
}
