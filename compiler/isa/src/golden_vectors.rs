//! The golden vectors (tests/isa/golden/ARCH.txt: llvm-mc 22's text and bytes) for the crate's
//! unit tests, read in one place.

use crate::Arch;

/// The golden vectors of `arch` as (text, bytes), comment lines left out.
pub(crate) fn golden(arch: Arch) -> Vec<(String, Vec<u8>)> {
    let p = format!("{}/../../tests/isa/golden/{}.txt", env!("CARGO_MANIFEST_DIR"), arch.name());
    let src = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
    let mut out = Vec::new();
    for line in src.lines().filter(|l| !l.starts_with('#')) {
        let Some((text, enc)) = line.rsplit_once(" ; [") else { continue };
        let b = enc
            .trim_end_matches(']')
            .split(',')
            .filter_map(|x| u8::from_str_radix(x.trim().trim_start_matches("0x"), 16).ok())
            .collect();
        out.push((text.to_string(), b));
    }
    out
}
