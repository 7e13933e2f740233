//! The `isa_sdwa_dst` generator: which gfx9 SDWA opcodes llvm-mc 22 gives no destination
//! selector, found by asking llvm-mc.
//!
//! Every golden SDWA line of gfx942 and gfx950 with a VGPR destination (VOPC writes a mask and
//! never has one) is assembled without its `dst_sel:`/`dst_unused:` (the baseline), then with
//! `dst_sel:WORD_1` and with `dst_unused:UNUSED_PRESERVE`, before `src0_sel:` (llvm-mc reads them
//! in order). Either both are taken with the baseline's length, or both refused (the fp8/bf8
//! conversions: `v_cvt_f32_fp8_sdwa v8, v24 src0_sel:BYTE_1`); any other answer is an error, and
//! so is an opcode that both architectures have but answer differently (the ISA crate keys the
//! list by mnemonic alone).
//!
//! Output: `src/isa/sdwa_dst.rs`, the base mnemonics (no `_sdwa`/`_e32`) without a selector.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use super::src_types::read_golden;
use super::{llvm, text, LLVM_INPUT};
use crate::inputs::Inputs;
use crate::{banner, Generated};

/// The architectures with SDWA.
const SDWA_ARCHS: [&str; 2] = ["gfx942", "gfx950"];

/// The probes appended to a baseline.
const PROBES: [&str; 2] = [" dst_sel:WORD_1", " dst_unused:UNUSED_PRESERVE"];

/// A line's mnemonic without `_sdwa` and an `_e32` before it.
pub(crate) fn base(m: &str) -> &str {
    let m = m.strip_suffix("_sdwa").unwrap_or(m);
    m.strip_suffix("_e32").unwrap_or(m)
}

/// The baseline of an SDWA line: without its destination selector and unused-bits mode.
fn baseline(line: &str) -> String {
    let keep: Vec<&str> =
        line.split(' ').filter(|t| !t.starts_with("dst_sel:") && !t.starts_with("dst_unused:")).collect();
    keep.join(" ")
}

/// Per base mnemonic, whether its SDWA form takes a destination selector.
fn probe_arch(arch: &str) -> Result<BTreeMap<String, bool>, String> {
    let golden = read_golden(arch)?;
    let mut bases = Vec::new();
    for (m, lines) in &golden {
        if !m.ends_with("_sdwa") {
            continue;
        }
        let Some((line, _)) = lines.iter().find(|(l, half)| *half == 0 && !l.contains(" :: ")) else { continue };
        let dst = text::operands(line, 0).first().and_then(|o| text::reg(o)).is_some_and(|(c, _, _)| c == 'v');
        if dst {
            bases.push((m.clone(), baseline(line)));
        }
    }
    let mut lines = Vec::new();
    for (_, b) in &bases {
        lines.push(b.clone());
        // llvm-mc reads the selectors in order: the destination's before `src0_sel:`.
        let at = b.find(" src0_sel:").unwrap_or(b.len());
        lines.extend(PROBES.iter().map(|p| format!("{}{p}{}", &b[..at], &b[at..])));
    }
    let res = llvm::assemble(arch, &lines)?;
    let mut out = BTreeMap::new();
    let mut errors = Vec::new();
    for ((m, b), r) in bases.iter().zip(res.chunks(1 + PROBES.len())) {
        let Some(base_inst) = &r[0] else {
            errors.push(format!("`{b}`: the baseline is refused"));
            continue;
        };
        let taken: Vec<bool> =
            r[1..].iter().map(|p| p.as_ref().is_some_and(|p| p.bytes.len() == base_inst.bytes.len())).collect();
        if taken.iter().any(|&t| t != taken[0]) {
            errors.push(format!("`{b}`: dst_sel and dst_unused answered differently ({taken:?})"));
            continue;
        }
        out.insert(base(m).to_string(), taken[0]);
    }
    llvm::found(arch, &errors, out)
}

pub fn generate(_inputs: &Inputs) -> Result<Vec<Generated>, String> {
    llvm::check_version()?;
    let mut all: BTreeMap<String, bool> = BTreeMap::new();
    let mut errors = Vec::new();
    for arch in SDWA_ARCHS {
        for (m, takes) in probe_arch(arch)? {
            if all.insert(m.clone(), takes).is_some_and(|t| t != takes) {
                errors.push(format!("{m}: gfx942 and gfx950 differ"));
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let none: Vec<&String> = all.iter().filter(|(_, &t)| !t).map(|(m, _)| m).collect();
    let mut s = banner("isa_sdwa_dst", &[&LLVM_INPUT]);
    s.push_str(
        "//! The gfx9 SDWA opcodes llvm-mc 22 gives no destination selector (it refuses `dst_sel:` and\n\
         //! `dst_unused:` there), by base mnemonic (no `_sdwa` or `_e32`), sorted; the same on\n\
         //! gfx942 and gfx950. Found by assembling each golden SDWA line with each (generator\n\
         //! autogen/gen/src/isa/sdwa_dst.rs). Every other SDWA opcode with a VGPR destination takes\n\
         //! both.\n\n",
    );
    let _ = writeln!(s, "/// {} of {} SDWA opcodes.", none.len(), all.len());
    // Laid out as rustfmt lays it out (max_width 120): on one line where it fits.
    let items: Vec<String> = none.iter().map(|m| format!("{m:?}")).collect();
    let one = format!("pub static NO_DST_SEL: &[&str] = &[{}];", items.join(", "));
    if one.len() <= 120 {
        s.push_str(&one);
        s.push('\n');
    } else {
        s.push_str("pub static NO_DST_SEL: &[&str] = &[\n");
        for m in items {
            let _ = writeln!(s, "    {m},");
        }
        s.push_str("];\n");
    }
    Ok(vec![Generated { path: PathBuf::from("src/isa/sdwa_dst.rs"), text: s }])
}
