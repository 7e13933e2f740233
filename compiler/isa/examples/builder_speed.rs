//! Throughput of the typed instruction builder: instructions built, encoded and finished (branches
//! patched, bytes written) per second of this thread's CPU time (Linux `schedstat`; wall time
//! elsewhere), over a GEMM-like instruction mix of 200,000 instructions per architecture.
//! `cargo run --release -p baregpu-isa --example builder_speed [ARCH]`; `BUILDER_SPEED_RUNS=N` times
//! exactly N runs.

use std::hint::black_box;
use std::time::Instant;

use baregpu_isa::builder::*;
use baregpu_isa::Arch;

fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// One loop iteration of a tiled GEMM (loads, LDS, FMAs, scalar bookkeeping, a backward branch):
/// 64 instructions.
fn rdna_step(b: &mut Builder, top: Label, gfx12: bool) {
    b.global_load_b32(v(9), v(3), s(4..6)).global_load_b32(v(10), v(4), s(6..8));
    b.v_add_nc_u32(v(3), 64, v(3)).v_add_nc_u32(v(4), s(16), v(4));
    if gfx12 {
        b.s_wait_loadcnt(0);
    } else {
        b.s_waitcnt(vmcnt(0));
    }
    b.ds_store_b32(v(5), v(9)).mods([offset(1024)]).ds_store_b32(v(5), v(10));
    for j in 0..4 {
        b.mods([offset(16 * j)]).ds_load_b128(v(16 + 4 * j..20 + 4 * j), v(6));
    }
    for k in 0..16 {
        b.mods([offset(1024 + 64 * k)]).ds_load_b32(v(32 + k), v(7));
    }
    for k in 0..16 {
        b.v_fmac_f32(v(8), v(16 + k), v(32 + k));
    }
    for k in 0..8 {
        b.v_mul_f32(v(48 + k), 0.5f32, v(16 + k)).v_add_f32(v(56 + k), v(48 + k), s(20 + k));
    }
    b.v_mov_b32(v(1), 0x1234_5678).v_cmp_gt_u32(vcc_lo(), s(4), v(1));
    if gfx12 {
        b.s_add_co_i32(s(13), s(13), -1);
    } else {
        b.s_add_i32(s(13), s(13), -1);
    }
    b.s_cmp_lg_u32(s(13), 0).s_cbranch_scc1(top);
}

/// The same for gfx9 (CDNA): 64 instructions.
fn cdna_step(b: &mut Builder, top: Label) {
    b.global_load_dword(v(9), v(3), s(4..6)).global_load_dword(v(10), v(4), s(6..8));
    b.v_add_u32(v(3), 64, v(3)).v_add_u32(v(4), s(16), v(4));
    b.s_waitcnt(vmcnt(0));
    b.ds_write_b32(v(5), v(9)).mods([offset(1024)]).ds_write_b32(v(5), v(10));
    for j in 0..4 {
        b.mods([offset(16 * j)]).ds_read_b128(v(16 + 4 * j..20 + 4 * j), v(6));
    }
    for k in 0..16 {
        b.mods([offset(1024 + 64 * k)]).ds_read_b32(v(32 + k), v(7));
    }
    for k in 0..16 {
        b.v_fmac_f32(v(8), v(16 + k), v(32 + k));
    }
    for k in 0..8 {
        b.v_mul_f32(v(48 + k), 0.5f32, v(16 + k)).v_add_f32(v(56 + k), v(48 + k), s(20 + k));
    }
    b.v_mov_b32(v(1), 0x1234_5678).v_cmp_gt_u32(vcc(), s(4), v(1));
    b.s_add_i32(s(13), s(13), -1).s_cmp_lg_u32(s(13), 0).s_cbranch_scc1(top);
}

/// Builds and finishes `steps` iterations; returns the instruction count and the code size.
fn build(arch: Arch, steps: usize) -> (usize, usize) {
    let mut b = Builder::new(arch);
    for _ in 0..steps {
        let top = b.here("top");
        match arch {
            Arch::Gfx942 | Arch::Gfx950 => cdna_step(&mut b, top),
            _ => rdna_step(&mut b, top, arch == Arch::Gfx1201),
        }
    }
    b.s_endpgm();
    let code = b.finish().unwrap_or_else(|e| panic!("{}: {e}", arch.name()));
    (b.len(), black_box(code).len())
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
