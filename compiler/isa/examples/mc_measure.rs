//! Our side of scripts/isa/mc_measure.py (a measurement, not a test): reads llvm-mc's answers
//! (`text ; [bytes]` lines, one file for assembly and one for disassembly) and writes one verdict
//! per line, tab-separated, for the script to count and classify.
//!
//! `mc_measure ARCH ASM_ORACLE DIS_ORACLE OUT_ASM OUT_DIS`
//! - assembly: `ok`, `err\tMESSAGE` or `bytes\tHEX` (assembled, to other bytes).
//! - disassembly: `TEXT_OK\tREASM_OK\tOUR_TEXT` (our text equals llvm-mc's; our text assembles back
//!   with ours to the same bytes), or `decode\tMESSAGE`.

use std::fmt::Write as _;
use std::process::ExitCode;

use baregpu_isa::{assemble_line, decode, disassemble, Arch};

fn parse(line: &str) -> Option<(&str, Vec<u8>)> {
    if line.starts_with('#') {
        return None;
    }
    let (text, enc) = line.rsplit_once(" ; [")?;
    let bytes = enc
        .trim_end_matches(']')
        .split(',')
        .filter(|b| !b.trim().is_empty())
        .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some((text, bytes))
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\t'], " ")
}

fn asm_verdicts(arch: Arch, src: &str) -> String {
    let mut out = String::new();
    for (text, want) in src.lines().filter_map(parse) {
        match assemble_line(arch, text) {
            Ok(b) if b == want => out.push_str("ok\n"),
            Ok(b) => {
                let hex: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
                let _ = writeln!(out, "bytes\t{}", hex.join(""));
            }
            Err(e) => {
                let _ = writeln!(out, "err\t{}", one_line(&e.to_string()));
            }
        }
    }
    out
}

fn dis_verdicts(arch: Arch, src: &str) -> String {
    let mut out = String::new();
    for (llvm_text, bytes) in src.lines().filter_map(parse) {
        match decode(arch, &bytes) {
            Ok(i) if i.size() == bytes.len() => {
                let ours = disassemble(&i);
                let back = matches!(assemble_line(arch, &ours), Ok(b) if b == bytes);
                let _ = writeln!(out, "{}\t{}\t{}", ours == llvm_text, back, one_line(&ours));
            }
            Ok(i) => {
                let _ = writeln!(out, "decode\tdecoded {} bytes of {}", i.size(), bytes.len());
            }
            Err(e) => {
                let _ = writeln!(out, "decode\t{}", one_line(&e.to_string()));
            }
        }
    }
    out
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [arch, asm_in, dis_in, asm_out, dis_out] = args.as_slice() else {
        eprintln!("usage: mc_measure ARCH ASM_ORACLE DIS_ORACLE OUT_ASM OUT_DIS");
        return ExitCode::FAILURE;
    };
    let Some(arch) = Arch::from_name(arch) else {
        eprintln!("mc_measure: unknown architecture {arch}");
        return ExitCode::FAILURE;
    };
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
    let run = || -> Result<(), String> {
        std::fs::write(asm_out, asm_verdicts(arch, &read(asm_in)?)).map_err(|e| format!("{asm_out}: {e}"))?;
        std::fs::write(dis_out, dis_verdicts(arch, &read(dis_in)?)).map_err(|e| format!("{dis_out}: {e}"))
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mc_measure: {e}");
            ExitCode::FAILURE
        }
    }
}
