//! `bench asm`'s builder lines: the typed instruction builder (no text) building, encoding and
//! finishing the reference GEMM loop of `isa::builder::speed`, against its goal of
//! [`speed::GOAL`] instructions per second, by the wall clock and per CPU second of the thread.

use std::time::{Duration, Instant};

use baregpu::{Error, Result};
use baregpu_compiler::isa::builder::speed;
use baregpu_compiler::isa::Arch;

use super::super::out;
use super::decode::{load_average, thread_cpu};

/// Loop bodies per timed run (64 instructions each: 200,000 instructions).
const STEPS: usize = 200_000 / 64;

/// The fewest timed runs per architecture: a run is about 10 ms, so a best of 3 is at the mercy
/// of one page-fault burst or scheduler slice; 30 runs (about 0.3 s) give the best a fair
/// chance. Each run is a whole user build: a new builder, its buffers allocated and faulted in
/// afresh, and the code finished, as a code generator builds each kernel.
const MIN_RUNS: usize = 30;

/// Times the builder on each architecture (the best of `runs`, at least [`MIN_RUNS`]), one line
/// each, then whether the goal is met on every one.
pub fn measure(archs: &[Arch], runs: usize, json: bool) -> Result<()> {
    let mut slowest: Option<(Arch, f64, Option<f64>)> = None;
    for &arch in archs {
        let build = || speed::gemm_loop(arch, STEPS).map_err(|e| Error::Usage(format!("bench builder: {e}")));
        let (n, code) = build()?; // warm-up: the per-architecture tables
        let (mut wall, mut cpu) = (Duration::MAX, None::<Duration>);
        for _ in 0..runs.max(MIN_RUNS) {
            let (t0, c0) = (Instant::now(), thread_cpu());
            std::hint::black_box(build()?);
            wall = wall.min(t0.elapsed());
            if let (Some(a), Some(b)) = (c0, thread_cpu()) {
                cpu = Some(cpu.map_or(b - a, |c| c.min(b - a)));
            }
        }
        let rate = n as f64 / wall.as_secs_f64();
        let cpu_rate = cpu.filter(|c| !c.is_zero()).map(|c| n as f64 / c.as_secs_f64());
        if slowest.is_none_or(|s| rate < s.1) {
            slowest = Some((arch, rate, cpu_rate));
        }
        if json {
            out::line(serde_json::json!({
                "bench": "builder",
                "arch": arch.name(),
                "instructions": n,
                "bytes": code.len(),
                "ours_s": wall.as_secs_f64(),
                "ours_inst_per_s": rate,
                "cpu_inst_per_s": cpu_rate,
                "goal_inst_per_s": speed::GOAL,
            }))?;
        } else {
            let c = cpu_rate.map_or(String::new(), |c| format!(", {:.2} M inst/s per CPU second", c / 1e6));
            out::line(format_args!(
                "{:<7} {:<8} {n} instructions built and encoded: {:.4} s ({:.2} M inst/s{c})",
                "builder",
                arch.name(),
                wall.as_secs_f64(),
                rate / 1e6
            ))?;
        }
    }
    let Some((arch, rate, cpu)) = slowest else { return Ok(()) };
    let load = load_average();
    let met = |x: f64| x >= speed::GOAL;
    if json {
        return out::line(serde_json::json!({
            "bench": "builder_goal",
            "goal_inst_per_s": speed::GOAL,
            "met": met(rate),
            "met_cpu": cpu.map(met),
            "slowest_arch": arch.name(),
            "slowest_inst_per_s": rate,
            "load_average": load,
        }));
    }
    let verdict = |x: f64| if met(x) { "met" } else { "NOT met" };
    let mut line = format!(
        "builder goal >= {:.0} M inst/s on every arch: {} wall-clock (slowest {} {:.2} M inst/s)",
        speed::GOAL / 1e6,
        verdict(rate),
        arch.name(),
        rate / 1e6
    );
    if let Some(c) = cpu {
        line += &format!(", {} per CPU second ({:.2} M inst/s)", verdict(c), c / 1e6);
    }
    if let Some(l) = load {
        line += &format!("; load average {l:.2}");
    }
    out::line(line)
}
