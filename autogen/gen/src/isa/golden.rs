//! Step 3 of the `isa` generator: golden vectors. Each candidate is disassembled, its text
//! assembled again and the bytes disassembled once more; a line is kept when the text is stable.

use std::collections::BTreeSet;

use super::{bytes_of, llvm};

/// The golden lines (`text ; [bytes]`) of the candidates (words, length in bytes), and how many
/// assembled back to the very bytes they came from.
pub(super) fn golden(arch: &str, mut golden_cands: Vec<(u128, usize)>) -> Result<(Vec<String>, usize), String> {
    let mut seen = BTreeSet::new();
    golden_cands.retain(|c| seen.insert(*c));
    let glines: Vec<Vec<u8>> = golden_cands.iter().map(|c| bytes_of(c.0, (c.1 * 8) as u32)).collect();
    let g1 = llvm::disassemble(arch, &glines)?;
    let texts: Vec<String> = g1.iter().map(|r| r.as_ref().map(|i| i.text.clone()).unwrap_or_default()).collect();
    let g2 = llvm::assemble(arch, &texts)?;
    let enc2: Vec<Vec<u8>> = g2.iter().map(|r| r.as_ref().map(|i| i.bytes.clone()).unwrap_or_default()).collect();
    let g3 = llvm::disassemble(arch, &enc2)?;
    let mut golden = Vec::new();
    let mut gseen = BTreeSet::new();
    let mut same = 0;
    for (((orig, a), b), c) in glines.iter().zip(&g1).zip(&g2).zip(&g3) {
        let (Some(a), Some(b), Some(c)) = (a, b, c) else { continue };
        if a.text.is_empty() || c.text != a.text || b.bytes.is_empty() {
            continue;
        }
        if &b.bytes == orig {
            same += 1;
        }
        let enc: Vec<String> = b.bytes.iter().map(|x| format!("0x{x:02x}")).collect();
        let line = format!("{} ; [{}]", a.text, enc.join(","));
        if gseen.insert(line.clone()) {
            golden.push(line);
        }
    }
    Ok((golden, same))
}
