//! Quick throughput check of decode, disassembly and assembly over the golden vectors, in
//! instructions per second of this thread's CPU time (Linux `schedstat`; wall time elsewhere),
//! so that a loaded machine still gives usable numbers.
//! `cargo run --release -p baregpu-isa --example isa_speed [ARCH]`
//!
//! `ISA_SPEED_STREAM=FILE.s ISA_SPEED_PASSES=N isa_speed ARCH` assembles FILE (say one that
//! `baregpu bench asm --keep DIR` wrote) and decodes its bytes N times in [`decode_pass`], for
//! counting host instructions per decoded instruction (a `.bin` FILE is taken as the bytes):
//! `valgrind --tool=callgrind --toggle-collect='isa_speed::decode_pass' ...`.
//!
//! `ISA_SPEED_SEQ=DIR isa_speed` assembles each architecture's `DIR/ARCH.s` (`bench asm --keep
//! DIR`'s files) a few times in one process, as the bench does, with CPU time, wall time and page
//! faults per pass.

use std::hint::black_box;
use std::time::Instant;

use baregpu_isa::{assemble, assemble_line, decode, disassemble, disassemble_into, Arch, Decoder};

fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Runs `f` (which handles `n` instructions) for about a second; returns instructions/s.
fn rate(n: usize, mut f: impl FnMut()) -> f64 {
    let (c0, t0) = (cpu_ns(), Instant::now());
    let mut k = 0usize;
    while t0.elapsed().as_secs_f64() < 1.0 || k < 3 {
        f();
        k += 1;
    }
    let secs = match (c0, cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e9,
        _ => t0.elapsed().as_secs_f64(),
    };
    (n * k) as f64 / secs
}

/// One pass of the decode loop `baregpu bench asm` times; returns the instructions decoded.
#[inline(never)]
fn decode_pass(d: &Decoder, bytes: &[u8]) -> usize {
    let (mut at, mut n) = (0, 0);
    while at < bytes.len() {
        let i = d.decode_at(bytes, at).unwrap();
        at += i.size();
        n += 1;
        black_box(&i);
    }
    n
}

/// This thread's minor page faults so far (field 10 of `/proc/thread-self/stat`).
fn minor_faults() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // The fields after the command name, which ends at the last ')'.
    s.rsplit_once(')')?.1.split_whitespace().nth(7)?.parse().ok()
}

/// The `ISA_SPEED_SEQ=DIR` mode: each architecture's `DIR/ARCH.s` assembled `ISA_SPEED_PASSES`
/// times (default 3) in one process, in `baregpu bench asm`'s order, with each pass's CPU time,
/// wall time and minor page faults: effects of the process's history (heap, caches) show here.
/// `ISA_SPEED_WARM=1` first assembles the golden vectors, as the bench does.
fn sequence(archs: &[Arch], dir: &std::ffi::OsStr) {
    let passes: usize = std::env::var("ISA_SPEED_PASSES").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    for &arch in archs {
        let path = std::path::Path::new(dir).join(format!("{}.s", arch.name()));
        let src = std::fs::read_to_string(&path).expect("ISA_SPEED_SEQ file");
        if std::env::var_os("ISA_SPEED_WARM").is_some() {
            // As `bench asm` does before it times: every golden vector assembled once.
            let p = format!("{}/../../tests/isa/golden/{}.txt", env!("CARGO_MANIFEST_DIR"), arch.name());
            let golden = std::fs::read_to_string(p).expect("golden file");
            for l in golden.lines().filter(|l| !l.starts_with('#')) {
                if let Some((t, _)) = l.rsplit_once(" ; [") {
                    let _ = black_box(assemble_line(arch, t));
                }
            }
        }
        let mut bytes = Vec::new();
        for pass in 0..passes {
            let (c0, f0, t0) = (cpu_ns(), minor_faults(), Instant::now());
            bytes = assemble(arch, &src).unwrap();
            let wall = t0.elapsed().as_secs_f64();
            let cpu = cpu_ns().zip(c0).map_or(wall, |(b, a)| (b - a) as f64 / 1e9);
            let faults = minor_faults().zip(f0).map_or(0, |(b, a)| b - a);
            println!("{} pass {pass}: {cpu:.3} s CPU, {wall:.3} s wall, {faults} minor faults", arch.name());
        }
        black_box(&bytes);
    }
}

/// The `ISA_SPEED_STREAM` mode (see the module comment).
fn stream(arch: Arch, path: &std::ffi::OsStr) {
    // Raw bytes as they are (`.bin`, which ISA_SPEED_SAVE=FILE writes), else assembly source.
    let bytes = match std::path::Path::new(path).extension().is_some_and(|e| e == "bin") {
        true => std::fs::read(path).expect("stream file"),
        false => assemble(arch, &std::fs::read_to_string(path).expect("stream file")).expect("stream assembles"),
    };
    if let Some(out) = std::env::var_os("ISA_SPEED_SAVE") {
        std::fs::write(out, &bytes).expect("write the stream's bytes");
    }
    let passes: usize = std::env::var("ISA_SPEED_PASSES").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let d = Decoder::new(arch);
    let n: usize = (0..passes).map(|_| decode_pass(&d, black_box(&bytes))).sum();
    println!("{}: {n} instructions decoded in {passes} passes", arch.name());
}

fn main() {
    let archs: Vec<Arch> = match std::env::args().nth(1) {
        Some(a) => vec![Arch::from_name(&a).expect("arch")],
        None => Arch::ALL.to_vec(),
    };
    if let Some(path) = std::env::var_os("ISA_SPEED_FILE") {
        // One assembly of the first ISA_SPEED_LINES lines of a file (`bench asm --keep`'s), for
        // counting instructions under callgrind: a run on a few lines gives the start-up to
        // subtract.
        let src = std::fs::read_to_string(&path).expect("ISA_SPEED_FILE");
        let count = std::env::var("ISA_SPEED_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(usize::MAX);
        let text: String = src.lines().take(count).flat_map(|l| [l, "\n"]).collect();
        for arch in archs {
            black_box(assemble(arch, &text).unwrap());
        }
        return;
    }
    if let Some(dir) = std::env::var_os("ISA_SPEED_SEQ") {
        return sequence(&archs, &dir);
    }
    if let Some(path) = std::env::var_os("ISA_SPEED_STREAM") {
        return archs.into_iter().for_each(|arch| stream(arch, &path));
    }
    for arch in archs {
        let p = format!("{}/../../tests/isa/golden/{}.txt", env!("CARGO_MANIFEST_DIR"), arch.name());
        let src = std::fs::read_to_string(p).expect("golden file");
        let mut text = String::new();
        let mut bytes = Vec::new();
        let mut n = 0;
        for line in src.lines().filter(|l| !l.starts_with('#')) {
            let Some((t, enc)) = line.rsplit_once(" ; [") else { continue };
            let b: Vec<u8> = enc
                .trim_end_matches(']')
                .split(',')
                .filter_map(|x| u8::from_str_radix(x.trim().trim_start_matches("0x"), 16).ok())
                .collect();
            if assemble_line(arch, t).is_ok_and(|x| x == b) && decode(arch, &b).is_ok_and(|i| disassemble(&i) == t) {
                text.push_str(t);
                text.push('\n');
                bytes.extend_from_slice(&b);
                n += 1;
            }
        }
        if std::env::var_os("ISA_SPEED_ASM_ONLY").is_some() {
            // As `baregpu bench asm` does: 200,000 lines, the vectors repeated; the file is left
            // in ISA_SPEED_DIR (for timing llvm-mc on the very same text).
            let lines: Vec<&str> = text.lines().collect();
            let count = std::env::var("ISA_SPEED_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000);
            let big: String = (0..count).map(|k| format!("{}\n", lines[k % lines.len()])).collect();
            if let Some(d) = std::env::var_os("ISA_SPEED_DIR") {
                std::fs::write(std::path::Path::new(&d).join(format!("{}.s", arch.name())), &big).expect("write");
            }
            let (c0, t0) = (cpu_ns(), Instant::now());
            black_box(assemble(arch, &big).unwrap());
            let cpu = match (c0, cpu_ns()) {
                (Some(a), Some(b)) => (b - a) as f64 / 1e9,
                _ => t0.elapsed().as_secs_f64(),
            };
            println!(
                "{}: 200000 lines: assemble {cpu:.3} s CPU, {:.3} s wall",
                arch.name(),
                t0.elapsed().as_secs_f64()
            );
            continue;
        }
        let d = Decoder::new(arch);
        let dec = rate(n, || {
            let mut at = 0;
            while at < bytes.len() {
                let i = d.decode_at(&bytes, at).unwrap();
                at += i.size();
                black_box(&i);
            }
        });
        // A predictable stream: the first eight vectors of each format family, repeated (no
        // branch mispredictions to speak of): an upper bound for real code.
        let mut same = Vec::new();
        let mut at = 0;
        let mut sizes = Vec::new();
        while at < bytes.len() && sizes.len() < 8 {
            let i = d.decode_at(&bytes, at).unwrap();
            sizes.push((at, i.size()));
            at += i.size();
        }
        let mut m = 0;
        while same.len() < bytes.len() {
            let (a, s) = sizes[m % sizes.len()];
            same.extend_from_slice(&bytes[a..a + s]);
            m += 1;
        }
        let dec_same = rate(m, || {
            let mut at = 0;
            while at < same.len() {
                let i = d.decode_at(&same, at).unwrap();
                at += i.size();
                black_box(&i);
            }
        });
        if std::env::var_os("ISA_SPEED_DECODE_ONLY").is_some() {
            println!("{}: decode {:.1} M/s, repetitive {:.1} M/s", arch.name(), dec / 1e6, dec_same / 1e6);
            continue;
        }
        let mut out = String::with_capacity(text.len());
        let dis = rate(n, || {
            out.clear();
            let mut at = 0;
            while at < bytes.len() {
                let i = d.decode_at(&bytes, at).unwrap();
                disassemble_into(&i, &mut out);
                out.push('\n');
                at += i.size();
            }
            black_box(&out);
        });
        let asm = rate(n, || {
            black_box(assemble(arch, &text).unwrap());
        });
        println!(
            "{}: {n} instructions: decode {:.1} M/s ({:.1} M/s on a repetitive stream), disassemble {:.2} M/s, assemble {:.3} M/s (per CPU second)",
            arch.name(),
            dec / 1e6,
            dec_same / 1e6,
            dis / 1e6,
            asm / 1e6
        );
    }
}
