//! Throughput of the ISA model over the committed llvm-mc 22 golden vectors (the ones we
//! reproduce exactly): decode (instructions/s), disassembly (decode + text) and assembly
//! (text -> bytes, labels and all). `cargo bench -p baregpu-isa`.

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
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
