//! The disassembler is lossless: for every encoding in the golden vectors and the spelling corpus
//! (which holds every SOPP/SOPK word with many 16-bit immediates: waitcnt bits, sendmsg and hwreg
//! ids), our text assembles back to the very same bytes, with ours and, where llvm-mc-22 is
//! installed, with llvm-mc. (arch, format, assembler) triples that do not yet are listed in
//! `tests/lossless_allow.txt`; that list may only shrink. `LOSSLESS_SHOW=n` prints examples.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use baregpu_isa::{assemble_line, decode, disassemble, Arch};

const LLVM_MC: &str = "llvm-mc-22";

/// Every distinct encoding of the golden and spelling files of `arch`.
fn encodings(arch: Arch) -> BTreeSet<Vec<u8>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa");
    let mut out = BTreeSet::new();
    for dir in ["golden", "spelling"] {
        let p = root.join(dir).join(format!("{}.txt", arch.name()));
        let src = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        for l in src.lines().filter(|l| !l.starts_with('#')) {
            let Some((_, enc)) = l.rsplit_once(" ; [") else { continue };
            let bytes: Option<Vec<u8>> = enc
                .trim_end_matches(']')
                .split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
                .collect();
            out.insert(bytes.expect("hex bytes"));
        }
    }
    out
}

/// llvm-mc's bytes for each line (None where it reports a diagnostic); None when not installed.
fn llvm_assemble(arch: Arch, lines: &[String]) -> Option<Vec<Option<Vec<u8>>>> {
    let mut child = Command::new(LLVM_MC)
        .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={}", arch.name()), "-show-encoding"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let input = lines.join("\n") + "\n";
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc output");
    writer.join().expect("writer").expect("write to llvm-mc");
    // An error line prints no encoding; a warned line prints one but does not count as accepted.
    let (mut errors, mut warned) = (BTreeSet::new(), BTreeSet::new());
    for l in String::from_utf8_lossy(&out.stderr).lines() {
        let mut it = l.splitn(4, ':');
        if let (Some("<stdin>"), Some(n), Some(_), Some(rest)) =
            (it.next(), it.next().and_then(|n| n.parse::<usize>().ok()), it.next(), it.next())
        {
            if rest.trim_start().starts_with("error") {
                errors.insert(n - 1)
            } else {
                warned.insert(n - 1)
            };
        }
    }
    let mut encs = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once("; encoding: [").map(|(_, e)| e.trim_end().trim_end_matches(']').to_string()))
        .collect::<Vec<_>>()
        .into_iter();
    let res: Vec<Option<Vec<u8>>> = (0..lines.len())
        .map(|i| {
            if errors.contains(&i) {
                return None;
            }
            let e = encs.next().expect("one encoding per accepted line");
            let bytes = e.split(',').map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("hex"));
            (!warned.contains(&i)).then(|| bytes.collect())
        })
        .collect();
    assert!(encs.next().is_none(), "llvm-mc printed more encodings than lines it accepted");
    Some(res)
}

fn allow_list() -> BTreeSet<(String, String, String)> {
    include_str!("lossless_allow.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            (v[0].to_string(), v[1].to_string(), v[2].to_string())
        })
        .collect()
}

fn run(arch: Arch) {
    let show = std::env::var("LOSSLESS_SHOW").ok().and_then(|s| s.parse::<usize>().ok()).unwrap_or(0);
    let mut rows: Vec<(String, Vec<u8>, String)> = Vec::new();
    for bytes in encodings(arch) {
        // An encoding our decoder does not know is counted (format `<decode>`), not a panic.
        match decode(arch, &bytes) {
            Ok(i) if i.size() == bytes.len() => rows.push((i.format().name.to_string(), bytes, disassemble(&i))),
            _ => rows.push(("<decode>".to_string(), bytes, "undecodable_by_ours".to_string())),
        }
    }
    let texts: Vec<String> = rows.iter().map(|r| r.2.clone()).collect();
    let llvm = llvm_assemble(arch, &texts);
    if llvm.is_none() {
        println!("{LLVM_MC} not installed: only our assembler checked");
    }
    // (format, assembler) -> (total, ok)
    let mut per: BTreeMap<(String, &str), (usize, usize)> = BTreeMap::new();
    for (k, (fmt, bytes, text)) in rows.iter().enumerate() {
        let ours = assemble_line(arch, text);
        let mut verdicts = vec![("ours", matches!(&ours, Ok(b) if b == bytes))];
        if let Some(l) = &llvm {
            verdicts.push(("llvm", l[k].as_ref() == Some(bytes)));
        }
        for (who, ok) in verdicts {
            let c = per.entry((fmt.clone(), who)).or_default();
            c.0 += 1;
            c.1 += ok as usize;
            if !ok && c.0 - c.1 <= show {
                println!("  {fmt} {who}: {bytes:02x?} prints {text:?}; ours gives {ours:02x?}");
            }
        }
    }
    let allow = allow_list();
    let (mut unexpected, mut stale) = (Vec::new(), Vec::new());
    for ((fmt, who), (t, k)) in &per {
        let key = (arch.name().to_string(), fmt.clone(), who.to_string());
        if k != t {
            println!("  FAIL {fmt:<12} {who:<4} {k:>6}/{t:<6}");
            if !allow.contains(&key) {
                unexpected.push(format!("{} {fmt} {who}: {k}/{t}", arch.name()));
            }
        }
    }
    // A listed triple is stale when it now passes or no longer occurs at all.
    for (a, fmt, who) in allow.iter().filter(|(a, ..)| a == arch.name()) {
        if per.get(&(fmt.clone(), who.as_str())).is_none_or(|(t, k)| k == t) {
            stale.push(format!("{a} {fmt} {who}"));
        }
    }
    let n = rows.len();
    println!("{}: {n} encodings printed and assembled back", arch.name());
    assert!(unexpected.is_empty(), "not lossless and not in tests/lossless_allow.txt: {unexpected:#?}");
    assert!(stale.is_empty(), "now lossless: remove from tests/lossless_allow.txt: {stale:#?}");
}

#[test]
fn lossless_gfx1100() {
    run(Arch::Gfx1100);
}

#[test]
fn lossless_gfx1201() {
    run(Arch::Gfx1201);
}

#[test]
fn lossless_gfx942() {
    run(Arch::Gfx942);
}

#[test]
fn lossless_gfx950() {
    run(Arch::Gfx950);
}
