//! Running llvm-mc 22 in batches and matching its answers back to the input lines.
//!
//! llvm-mc reads its `--disassemble` input as one byte stream: an instruction that needs a
//! literal eats the bytes of the next line. So every input line is followed by a marker of four
//! `s_movk_i32 s100+(i>>16), i` words (the line's index), and the output is split at the
//! markers; a line is valid when llvm-mc warned nothing about it and decoded exactly one
//! instruction of exactly the line's length.

use std::io::Write;
use std::process::{Command, Stdio};

pub const LLVM_PACKAGE: &str = "llvm-22";
pub const LLVM_VERSION: &str = "1:22.1.8-1~deb12u1";
const LLVM_MC: &str = "/usr/bin/llvm-mc-22";
const MARKER_SGPR: u32 = 100;

/// Fails unless the pinned llvm-22 package is the one installed.
pub fn check_version() -> Result<(), String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Version}", LLVM_PACKAGE])
        .output()
        .map_err(|e| format!("dpkg-query: {e} (the isa generator needs Debian package {LLVM_PACKAGE})"))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || version.is_empty() {
        return Err(format!("{LLVM_PACKAGE} is not installed: apt-get install {LLVM_PACKAGE}={LLVM_VERSION}"));
    }
    if version != LLVM_VERSION {
        return Err(format!(
            "{LLVM_PACKAGE} {version} is installed but the ISA tables are pinned to {LLVM_VERSION}: \
             apt-get install {LLVM_PACKAGE}={LLVM_VERSION}"
        ));
    }
    if !std::path::Path::new(LLVM_MC).exists() {
        return Err(format!("{LLVM_MC} missing although {LLVM_PACKAGE} {version} is installed"));
    }
    Ok(())
}

/// One decoded or assembled instruction: canonical text and encoding bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    pub text: String,
    pub bytes: Vec<u8>,
}

fn run(cpu: &str, input: String, disassemble: bool) -> Result<(String, String), String> {
    let mut cmd = Command::new(LLVM_MC);
    if disassemble {
        cmd.arg("--disassemble");
    }
    cmd.args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}"), "-show-encoding"]);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{LLVM_MC}: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().map_err(|e| format!("{LLVM_MC}: {e}"))?;
    writer.join().map_err(|_| "stdin writer panicked".to_string())?.map_err(|e| format!("{LLVM_MC} stdin: {e}"))?;
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned()))
}

fn marker_word(i: usize) -> u32 {
    let hi = (i >> 16) as u32;
    assert!(hi < 2, "batch too large");
    0xB000_0000 | ((MARKER_SGPR + hi) << 16) | (i as u32 & 0xFFFF)
}

fn marker_index(bytes: &[u8]) -> Option<usize> {
    if bytes.len() != 4 {
        return None;
    }
    let w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let sgpr = (w >> 16) & 0xFFFF;
    if sgpr == (0xB000 | MARKER_SGPR) || sgpr == (0xB000 | (MARKER_SGPR + 1)) {
        Some((((sgpr & 0xFF) - MARKER_SGPR) as usize) << 16 | (w & 0xFFFF) as usize)
    } else {
        None
    }
}

/// Parses `\ttext ; encoding: [0x..,..]` lines, splitting them by the markers.
fn split_output(stdout: &str, stderr: &str, n: usize) -> Vec<Option<Inst>> {
    let mut per_line: Vec<Vec<Inst>> = vec![Vec::new(); n];
    let mut current = 0usize;
    for line in stdout.lines() {
        let Some(pos) = line.find("; encoding: [") else { continue };
        let text = line[..pos].trim().to_string();
        let enc = &line[pos + "; encoding: [".len()..];
        let enc = enc.trim_end().trim_end_matches(']');
        let bytes: Vec<u8> = enc
            .split(',')
            .filter(|s| !s.is_empty())
            .filter_map(|s| u8::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok())
            .collect();
        if let Some(i) = marker_index(&bytes) {
            if text.starts_with("s_movk_i32") {
                current = i + 1;
                continue;
            }
        }
        if current < n {
            per_line[current].push(Inst { text, bytes });
        }
    }
    let mut bad = vec![false; n];
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix("<stdin>:") else { continue };
        let Some(num) = rest.split(':').next().and_then(|s| s.parse::<usize>().ok()) else { continue };
        if num >= 1 && num % 2 == 1 && (num - 1) / 2 < n {
            bad[(num - 1) / 2] = true;
        }
    }
    per_line.into_iter().zip(bad).map(|(mut v, bad)| if !bad && v.len() == 1 { v.pop() } else { None }).collect()
}

/// Disassembles each line of bytes on its own; `None` where llvm-mc rejects it or decodes
/// something of another length.
pub fn disassemble(cpu: &str, lines: &[Vec<u8>]) -> Result<Vec<Option<Inst>>, String> {
    let mut out = Vec::with_capacity(lines.len());
    for (chunk_no, chunk) in lines.chunks(100_000).enumerate() {
        let _ = chunk_no;
        let mut input = String::new();
        for (i, l) in chunk.iter().enumerate() {
            for b in l {
                input.push_str(&format!("0x{b:02x} "));
            }
            input.push('\n');
            let m = marker_word(i).to_le_bytes();
            for _ in 0..4 {
                for b in m {
                    input.push_str(&format!("0x{b:02x} "));
                }
            }
            input.push('\n');
        }
        let (stdout, stderr) = run(cpu, input, true)?;
        let res = split_output(&stdout, &stderr, chunk.len());
        out.extend(res.into_iter().zip(chunk).map(|(r, l)| r.filter(|r| r.bytes.len() == l.len())));
    }
    Ok(out)
}

/// Assembles each line of text on its own; `None` where llvm-mc reports an error.
pub fn assemble(cpu: &str, lines: &[String]) -> Result<Vec<Option<Inst>>, String> {
    let mut out = Vec::with_capacity(lines.len());
    for chunk in lines.chunks(100_000) {
        let mut input = String::new();
        for (i, l) in chunk.iter().enumerate() {
            input.push_str(l);
            input.push('\n');
            let w = marker_word(i);
            input.push_str(&format!("s_movk_i32 s{}, 0x{:x}\n", (w >> 16) & 0x7F, w & 0xFFFF));
        }
        let (stdout, stderr) = run(cpu, input, false)?;
        out.extend(split_output(&stdout, &stderr, chunk.len()));
    }
    Ok(out)
}

/// `probe(k, arch)` for every architecture at once, one thread each (each runs its own llvm-mc):
/// the results in `archs`' order, or every architecture's error, one a line. `what` names the
/// generator in the error of a worker that panicked.
pub fn per_arch<'a, T: Send>(
    what: &str,
    archs: &[&'a str],
    probe: impl Fn(usize, &'a str) -> Result<T, String> + Sync,
) -> Result<Vec<T>, String> {
    let results: Vec<Result<T, String>> = std::thread::scope(|s| {
        let probe = &probe;
        let handles: Vec<_> = archs.iter().enumerate().map(|(k, &a)| s.spawn(move || probe(k, a))).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(format!("{what} worker panicked")))).collect()
    });
    let errors: Vec<&str> = results.iter().filter_map(|r| r.as_ref().err().map(String::as_str)).collect();
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    Ok(results.into_iter().filter_map(Result::ok).collect())
}

/// What one architecture's probe found, or the answers it could not explain, each on a line of
/// its own prefixed with the architecture.
pub fn found<T>(arch: &str, errors: &[String], value: T) -> Result<T, String> {
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(format!("{arch}: {}", errors.join(&format!("\n{arch}: "))))
    }
}
