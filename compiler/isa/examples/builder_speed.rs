//! Throughput of the typed instruction builder: instructions built, encoded and finished (branches
//! patched, bytes written) per second of this thread's CPU time (Linux `schedstat`; wall time
//! elsewhere), over the GEMM-like instruction mix of `builder::speed` (200,000 instructions per
//! architecture).
//! `cargo run --release -p baregpu-isa --example builder_speed [ARCH]`; `BUILDER_SPEED_RUNS=N` times
//! exactly N runs.

use std::hint::black_box;
use std::time::Instant;

use baregpu_isa::builder::speed;
use baregpu_isa::Arch;

fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Builds and finishes `steps` iterations; returns the instruction count and the code size.
fn build(arch: Arch, steps: usize) -> (usize, usize) {
    let (n, code) = speed::gemm_loop(arch, steps).unwrap_or_else(|e| panic!("{}: {e}", arch.name()));
    (n, black_box(code).len())
}

fn main() {
    let archs: Vec<Arch> = match std::env::args().nth(1) {
        Some(a) => vec![Arch::from_name(&a).expect("arch")],
        None => Arch::ALL.to_vec(),
    };
    for arch in archs {
        let steps = 200_000 / 64;
        let (n, bytes) = build(arch, steps); // warm-up: the per-architecture tables
        let (c0, t0) = (cpu_ns(), Instant::now());
        // BUILDER_SPEED_RUNS: a fixed number of runs (for instruction-counting profilers).
        let fixed: Option<usize> = std::env::var("BUILDER_SPEED_RUNS").ok().and_then(|s| s.parse().ok());
        let mut k = 0;
        while fixed.map_or(t0.elapsed().as_secs_f64() < 1.0 || k < 3, |f| k < f) {
            build(arch, steps);
            k += 1;
        }
        let secs = match (c0, cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e9,
            _ => t0.elapsed().as_secs_f64(),
        };
        println!(
            "{}: {n} instructions ({bytes} bytes) built and encoded: {:.1} M instructions/s (per CPU second)",
            arch.name(),
            (n * k) as f64 / secs / 1e6
        );
    }
}
