//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use baregpu_isa::Arch;

pub struct Vector {
    pub line: usize,
    pub text: String,
    pub bytes: Vec<u8>,
}

pub fn golden_path(arch: Arch) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa/golden").join(format!("{}.txt", arch.name()))
}

pub fn load(arch: Arch) -> Vec<Vector> {
    let src = std::fs::read_to_string(golden_path(arch)).expect("golden file");
    let mut out = Vec::new();
    for (n, line) in src.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let Some((text, enc)) = line.rsplit_once(" ; [") else { continue };
        let bytes = enc
            .trim_end_matches(']')
            .split(',')
            .filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
            .collect();
        out.push(Vector { line: n + 1, text: text.to_string(), bytes });
    }
    out
}
