//! llvm-mc 22's verdicts for the table tests that check generated tables against it.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::process::{Command, Stdio};

pub const LLVM_MC: &str = "/usr/bin/llvm-mc-22";

/// The line numbers (from 0) llvm-mc reports an error for, and with `warnings` a warning too
/// (it warns where it takes a line but drops part of it).
pub fn refused(arch: &str, lines: &[String], warnings: bool) -> BTreeSet<usize> {
    let mut child = Command::new(LLVM_MC)
        .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={arch}"), "-show-encoding"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc");
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc output");
    writer.join().expect("writer").expect("write");
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines()
        .filter(|l| warnings || l.contains(": error:"))
        .filter_map(|l| l.strip_prefix("<stdin>:")?.split_once(':')?.0.parse::<usize>().ok())
        .map(|n| n - 1)
        .collect()
}
