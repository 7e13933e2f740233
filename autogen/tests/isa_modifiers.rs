//! Checks the generated modifier table (`isa::modifiers`) against llvm-mc 22 where it is
//! installed: for every probed opcode with a golden line that writes no modifier, llvm-mc must
//! accept the line with `clamp` added, and the mnemonic with `_e64` added, exactly where the table
//! says it takes them; MFMAs likewise with `cbsz:1`, `abid:1`, `blgp:1` and `neg:[1,0,0]`.
//! Skipped, with a printed reason, without llvm-mc-22.

use baregpu_autogen::isa::modifier_bits::{NAME_ABID, NAME_BLGP, NAME_CBSZ, NAME_CLAMP, NAME_E64, NAME_NEG};
use baregpu_autogen::isa::{modifiers, ARCHS};

#[path = "common/llvm_mc.rs"]
mod llvm_mc;
use llvm_mc::LLVM_MC;

/// A golden line of `m` with no modifier, no register half, no note and no DPP.
fn plain_line(golden: &str, m: &str) -> Option<String> {
    golden.lines().find_map(|l| {
        let text = l.split(" ; [").next()?;
        // No `name:value` modifier (register ranges `v[0:3]` have a colon too).
        let modifier = text.split([' ', ',']).any(|w| w.split_once(':').is_some_and(|(n, _)| !n.contains('[')));
        let plain = text.split(' ').next() == Some(m)
            && !modifier
            && !text.contains(['|', '-', '.', '/'])
            && !text.contains("clamp");
        plain.then(|| text.to_string())
    })
}

#[test]
fn modifier_table_agrees_with_llvm_mc() {
    if !std::path::Path::new(LLVM_MC).exists() {
        println!("skipped: {LLVM_MC} not installed");
        return;
    }
    let tables = [modifiers::GFX1100, modifiers::GFX1201, modifiers::GFX942, modifiers::GFX950];
    for (a, t) in ARCHS.iter().zip(tables) {
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0), "{}: not sorted", a.name);
        let path = format!("{}/../tests/isa/golden/{}.txt", env!("CARGO_MANIFEST_DIR"), a.name);
        let golden = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        // (line, the table's verdict, what it checks)
        let mut cases: Vec<(String, bool, &str)> = Vec::new();
        for &(m, _, _, names) in t {
            let Some(line) = plain_line(&golden, m) else { continue };
            cases.push((format!("{line} clamp"), names & NAME_CLAMP != 0, "clamp"));
            if !m.ends_with("_e64") && !m.ends_with("_e32") {
                let rest = line.split_once(' ').map_or("", |(_, r)| r);
                cases.push((format!("{m}_e64 {rest}"), names & NAME_E64 != 0, "_e64"));
            }
            if m.starts_with("v_mfma") || m.starts_with("v_smfmac") {
                let matrix =
                    [("cbsz:1", NAME_CBSZ), ("abid:1", NAME_ABID), ("blgp:1", NAME_BLGP), ("neg:[1,0,0]", NAME_NEG)];
                for (x, bit) in matrix {
                    cases.push((format!("{line} {x}"), names & bit != 0, x));
                }
            }
        }
        let lines: Vec<String> = cases.iter().map(|c| c.0.clone()).collect();
        let bad = llvm_mc::refused(a.name, &lines, true);
        let wrong: Vec<String> = cases
            .iter()
            .enumerate()
            .filter(|(k, c)| c.1 == bad.contains(k))
            .map(|(_, c)| {
                format!("{}: `{}` ({}: the table says {})", a.name, c.0, c.2, if c.1 { "taken" } else { "refused" })
            })
            .collect();
        assert!(wrong.is_empty(), "{} of {} disagree:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
        // The cases the table exists for.
        assert!(cases.iter().any(|c| !c.1), "{}: no refused case checked", a.name);
        println!("{}: {} cases agree with llvm-mc", a.name, cases.len());
    }
    let e64 = |t: &[(&str, u16, u16, u16)], m: &str| t.iter().find(|e| e.0 == m).map(|e| e.3 & NAME_E64 != 0);
    assert_eq!(e64(modifiers::GFX1100, "v_readlane_b32"), Some(false));
    assert_eq!(e64(modifiers::GFX1100, "v_writelane_b32"), Some(false));
}
