//! Spelling corpus (tests/isa/spelling/<arch>.txt): the golden vectors rewritten in the other
//! spellings llvm-mc 22 accepts (scripts/isa/spelling_corpus.py), each with llvm-mc's bytes. Every
//! line must assemble to exactly those bytes. The issue requires 100%; the (arch, class) pairs that
//! still fail are listed in `tests/spelling_allow.txt`, and that list may only shrink: a listed
//! class that now passes fails the test until its line is removed. `SPELLING_SHOW=n` prints up to
//! n failing lines per class.
//!
//! The same check runs on tests/isa/llvm_mc/<arch>.txt: instruction lines of LLVM's own MC tests
//! (inputs not written here) with llvm-mc 22's bytes, one class per source file
//! (scripts/isa/mc_measure.py --vectors).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use baregpu_isa::{assemble_line, Arch};

struct Line {
    class: String,
    line: usize,
    text: String,
    bytes: Vec<u8>,
}

fn load(dir: &str, arch: Arch) -> Vec<Line> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/isa")
        .join(dir)
        .join(format!("{}.txt", arch.name()));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut class = String::from("<none>");
    let mut out = Vec::new();
    for (n, l) in src.lines().enumerate() {
        if let Some(c) = l.strip_prefix("# class ") {
            class = c.trim().to_string();
            continue;
        }
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let (text, enc) = l.rsplit_once(" ; [").unwrap_or_else(|| panic!("{}:{}: no ` ; [`", path.display(), n + 1));
        let bytes = enc
            .trim_end_matches(']')
            .split(',')
            .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("byte"))
            .collect();
        out.push(Line { class: class.clone(), line: n + 1, text: text.to_string(), bytes });
    }
    out
}

/// `(arch, class)` pairs allowed to fail today.
fn allow_list() -> BTreeSet<(String, String)> {
    include_str!("spelling_allow.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            (it.next().unwrap_or_default().to_string(), it.next().unwrap_or_default().to_string())
        })
        .collect()
}

fn run(dir: &str, arch: Arch) {
    let show = std::env::var("SPELLING_SHOW").ok().and_then(|s| s.parse::<usize>().ok()).unwrap_or(0);
    let lines = load(dir, arch);
    assert!(!lines.is_empty(), "empty spelling corpus for {}", arch.name());
    // class -> (total, ok)
    let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for l in &lines {
        let got = assemble_line(arch, &l.text);
        let ok = matches!(&got, Ok(b) if *b == l.bytes);
        let c = per.entry(&l.class).or_default();
        c.0 += 1;
        c.1 += ok as usize;
        if !ok && c.0 - c.1 <= show {
            println!("  {} line {}: {:?} want {:02x?} got {:?}", l.class, l.line, l.text, l.bytes, got);
        }
    }
    let total: usize = per.values().map(|c| c.0).sum();
    let ok: usize = per.values().map(|c| c.1).sum();
    println!(
        "{}: {ok}/{total} ({:.2}%) spellings assemble to llvm-mc's bytes",
        arch.name(),
        100.0 * ok as f64 / total as f64
    );
    let allow = allow_list();
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    for (class, (t, k)) in &per {
        let listed = allow.contains(&(arch.name().to_string(), class.to_string()));
        if k != t {
            println!("  FAIL {class:<40} {k:>5}/{t:<5}{}", if listed { "" } else { "  (not in spelling_allow.txt)" });
            if !listed {
                unexpected.push(format!("{} {class}: {k}/{t}", arch.name()));
            }
        } else if listed {
            stale.push(format!("{} {class}", arch.name()));
        }
    }
    assert!(unexpected.is_empty(), "spelling classes failing and not in tests/spelling_allow.txt: {unexpected:#?}");
    assert!(stale.is_empty(), "classes now at 100%: remove them from tests/spelling_allow.txt: {stale:#?}");
}

#[test]
fn spelling_gfx1100() {
    run("spelling", Arch::Gfx1100);
}

#[test]
fn llvm_mc_tests_gfx1100() {
    run("llvm_mc", Arch::Gfx1100);
}

#[test]
fn spelling_gfx1201() {
    run("spelling", Arch::Gfx1201);
}

#[test]
fn llvm_mc_tests_gfx1201() {
    run("llvm_mc", Arch::Gfx1201);
}

#[test]
fn spelling_gfx942() {
    run("spelling", Arch::Gfx942);
}

#[test]
fn llvm_mc_tests_gfx942() {
    run("llvm_mc", Arch::Gfx942);
}

#[test]
fn spelling_gfx950() {
    run("spelling", Arch::Gfx950);
}

#[test]
fn llvm_mc_tests_gfx950() {
    run("llvm_mc", Arch::Gfx950);
}
