//! The clang-built fixtures (tests/fixtures/hsaco, tests/fixtures/codeobj) disassembled with
//! `baregpu disasm` re-assemble byte-identically: each kernel's listing through `baregpu asm` must
//! give the kernel's code bytes, and each listed instruction on its own must give its own bytes.
//! Lines that do not yet are listed in tests/fixture_asm_allow.txt (`FIXTURE | TEXT`); that list
//! may only shrink (a listed line that now assembles fails the test), and issue 12 wants it empty.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use baregpu_isa::{assemble_line, decode, Arch};
use baregpu_runtime::program::CodeObject;

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for dir in ["hsaco", "codeobj"] {
        for e in std::fs::read_dir(root.join(dir)).expect("fixture dir") {
            let p = e.expect("dir entry").path();
            if p.extension().is_some_and(|x| x == "hsaco") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 8, "fixtures missing: {out:?}");
    out
}

fn fixture_name(p: &Path) -> String {
    let dir = p.parent().and_then(|d| d.file_name()).map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
    format!("{dir}/{}", p.file_name().expect("file name").to_string_lossy())
}

fn allow_list() -> BTreeSet<(String, String)> {
    include_str!("fixture_asm_allow.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(" | ").map(|(f, t)| (f.trim().to_string(), t.trim().to_string())))
        .collect()
}

fn baregpu(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .env_remove("BAREGPU_LOG")
        .env_remove("BAREGPU_SYSROOT")
        .output()
        .expect("run baregpu")
}

/// The `--offsets` listing split into functions: (name, [(file offset, instruction text)]).
fn functions(listing: &str) -> Vec<(String, Vec<(usize, String)>)> {
    let mut out: Vec<(String, Vec<(usize, String)>)> = Vec::new();
    for l in listing.lines() {
        if let Some(rest) = l.strip_prefix("/*0x") {
            let (off, text) = rest.split_once("*/").expect("offset comment");
            let off = usize::from_str_radix(off, 16).expect("hex offset");
            out.last_mut().expect("instruction before a function name").1.push((off, text.trim().to_string()));
        } else if let Some(name) = l.strip_suffix(':') {
            out.push((name.to_string(), Vec::new()));
        }
    }
    out
}

#[test]
fn fixture_disassembly_reassembles_byte_identically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let allow = allow_list();
    let mut failing = BTreeSet::new();
    let (mut lines, mut good) = (0usize, 0usize);
    for path in fixtures() {
        let name = fixture_name(&path);
        let data = std::fs::read(&path).expect("read fixture");
        let co = CodeObject::parse(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        let arch = Arch::from_name(&co.arch).unwrap_or_else(|| panic!("{name}: arch {}", co.arch));
        let dis = baregpu(&["disasm", "--offsets", path.to_str().expect("utf-8 path")]);
        assert!(dis.status.success(), "{name}: disasm: {}", String::from_utf8_lossy(&dis.stderr));
        let listing = String::from_utf8_lossy(&dis.stdout).into_owned();
        let fs = functions(&listing);
        assert!(!fs.is_empty(), "{name}: no functions in the listing");
        for (fname, insts) in fs {
            let Some(&(start, _)) = insts.first() else { continue };
            // Each instruction on its own: its bytes are the file's at its offset.
            let mut end = start;
            let mut all_ok = true;
            for (at, text) in &insts {
                assert_eq!(*at, end, "{name} {fname}: listing offsets not contiguous");
                let len = decode(arch, &data[*at..]).unwrap_or_else(|e| panic!("{name} {fname}+{at:#x}: {e}")).size();
                let want = &data[*at..at + len];
                lines += 1;
                if matches!(assemble_line(arch, text), Ok(b) if b == want) {
                    good += 1;
                } else {
                    all_ok = false;
                    failing.insert((name.clone(), text.clone()));
                }
                end = at + len;
            }
            // The whole function's listing through the CLI, where every line assembles.
            if all_ok {
                let src = dir.path().join(format!("{fname}.s"));
                let body: Vec<&str> = insts.iter().map(|(_, t)| t.as_str()).collect();
                std::fs::write(&src, body.join("\n") + "\n").expect("write listing");
                let out = baregpu(&["asm", "--arch", arch.name(), "-o", "-", src.to_str().expect("utf-8 path")]);
                assert!(out.status.success(), "{name} {fname}: asm: {}", String::from_utf8_lossy(&out.stderr));
                assert_eq!(out.stdout, &data[start..end], "{name} {fname}: asm(disasm(code)) != code");
            }
        }
    }
    println!("fixture listings: {good}/{lines} lines re-assemble to their bytes");
    let new: Vec<_> = failing.difference(&allow).map(|(f, t)| format!("{f} | {t}")).collect();
    let stale: Vec<_> = allow.difference(&failing).map(|(f, t)| format!("{f} | {t}")).collect();
    assert!(
        new.is_empty(),
        "lines that do not re-assemble and are not in tests/fixture_asm_allow.txt:\n{}",
        new.join("\n")
    );
    assert!(
        stale.is_empty(),
        "lines that now re-assemble: remove them from tests/fixture_asm_allow.txt:\n{}",
        stale.join("\n")
    );
}
