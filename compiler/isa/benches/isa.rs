//! Throughput of the ISA model over the committed llvm-mc 22 golden vectors (the ones we
//! reproduce exactly): decode (instructions/s), disassembly (decode + text) and assembly
//! (text -> bytes, labels and all); and decoding of clang-built kernels' `.text` (the code-object
//! fixtures), a realistic instruction mix. `cargo bench -p baregpu-isa`; `-- decode` for decoding
//! alone. Criterion's `thrpt` is in instructions (elements) per second; the goal for decoding is
//! 50 M/s on every architecture.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use baregpu_isa::{assemble, assemble_line, decode, decode_at, disassemble, disassemble_into, Arch, Decoder};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// (text, bytes) of the golden vectors that round-trip through our assembler and disassembler.
fn vectors(arch: Arch) -> Vec<(String, Vec<u8>)> {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/isa/golden").join(format!("{}.txt", arch.name()));
    let src = std::fs::read_to_string(p).expect("golden file");
    let mut out = Vec::new();
    for line in src.lines().filter(|l| !l.starts_with('#')) {
        let Some((text, enc)) = line.rsplit_once(" ; [") else { continue };
        let bytes: Vec<u8> = enc
            .trim_end_matches(']')
            .split(',')
            .filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
            .collect();
        let ok = assemble_line(arch, text).is_ok_and(|b| b == bytes)
            && decode(arch, &bytes).is_ok_and(|i| disassemble(&i) == text);
        if ok {
            out.push((text.to_string(), bytes));
        }
    }
    out
}

/// The code-object fixtures built by clang for `arch`.
fn kernel_objects(arch: Arch) -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut out = Vec::new();
    for dir in ["rdna", "codeobj", "hsaco"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        v.sort();
        // fixture-gfx1100-O2.hsaco, gfx1100.hsaco, basic-gfx1100.hsaco, ...
        let tag = |p: &PathBuf| {
            let stem = p.file_stem().and_then(|n| n.to_str()).unwrap_or("");
            p.extension().is_some_and(|e| e == "hsaco") && stem.split('-').any(|w| w == arch.name())
        };
        out.extend(v.into_iter().filter(tag));
    }
    out
}

/// The `.text` section of an ELF64 little-endian object, if it has one.
fn elf_text(elf: &[u8]) -> Option<&[u8]> {
    let u16_at = |o: usize| Some(u16::from_le_bytes(elf.get(o..o + 2)?.try_into().ok()?) as usize);
    let u32_at = |o: usize| Some(u32::from_le_bytes(elf.get(o..o + 4)?.try_into().ok()?) as usize);
    let u64_at = |o: usize| Some(u64::from_le_bytes(elf.get(o..o + 8)?.try_into().ok()?) as usize);
    if elf.get(..5)? != b"\x7fELF\x02" {
        return None;
    }
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(0x28)?, u16_at(0x3a)?, u16_at(0x3c)?, u16_at(0x3e)?);
    let sh = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(sh(shstrndx) + 0x18)?;
    (0..shnum).find_map(|i| {
        let name = strtab + u32_at(sh(i))?;
        if elf.get(name..name + 6)? != b".text\0" {
            return None;
        }
        let (off, size) = (u64_at(sh(i) + 0x18)?, u64_at(sh(i) + 0x20)?);
        elf.get(off..off + size)
    })
}

/// The fixtures' `.text` sections, each up to the first instruction our tables do not know yet
/// (said on stderr), concatenated, with their instruction count.
fn kernels(arch: Arch) -> (Vec<u8>, u64) {
    let mut bytes = Vec::new();
    let mut n = 0;
    for p in kernel_objects(arch) {
        let elf = std::fs::read(&p).expect("fixture");
        let text = elf_text(&elf).unwrap_or_else(|| panic!("{}: no .text", p.display()));
        let mut at = 0;
        while at < text.len() {
            match decode_at(arch, text, at) {
                Ok(i) => {
                    at += i.size();
                    n += 1;
                }
                Err(e) => {
                    eprintln!("{}: benched up to {e}", p.display());
                    break;
                }
            }
        }
        bytes.extend_from_slice(&text[..at]);
    }
    (bytes, n)
}

fn bench(c: &mut Criterion) {
    for arch in Arch::ALL {
        let v = vectors(arch);
        let n = v.len() as u64;
        let bytes: Vec<u8> = v.iter().flat_map(|(_, b)| b.iter().copied()).collect();
        let text: String = v.iter().map(|(t, _)| format!("{t}\n")).collect();
        let mut g = c.benchmark_group(arch.name());
        g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
        g.throughput(Throughput::Elements(n));
        g.bench_function("decode", |b| {
            b.iter(|| {
                let mut at = 0;
                while at < bytes.len() {
                    let i = decode_at(arch, &bytes, at).unwrap();
                    at += i.size();
                    black_box(&i);
                }
            })
        });
        let d = Decoder::new(arch);
        g.bench_function("decode_tables", |b| {
            b.iter(|| {
                let mut at = 0;
                while at < bytes.len() {
                    let i = d.decode_at(&bytes, at).unwrap();
                    at += i.size();
                    black_box(&i);
                }
            })
        });
        g.bench_function("disassemble", |b| {
            let mut out = String::with_capacity(text.len());
            b.iter(|| {
                out.clear();
                let mut at = 0;
                while at < bytes.len() {
                    let i = d.decode_at(&bytes, at).unwrap();
                    disassemble_into(&i, &mut out);
                    out.push('\n');
                    at += i.size();
                }
                black_box(&out);
            })
        });
        g.bench_function("assemble", |b| b.iter(|| black_box(assemble(arch, &text).unwrap())));
        g.finish();

        let (kbytes, kn) = kernels(arch);
        if kn > 0 {
            let mut g = c.benchmark_group(arch.name());
            g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
            g.throughput(Throughput::Elements(kn));
            g.bench_function("decode_kernels", |b| {
                b.iter(|| {
                    let mut at = 0;
                    while at < kbytes.len() {
                        let i = d.decode_at(&kbytes, at).unwrap();
                        at += i.size();
                        black_box(&i);
                    }
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
