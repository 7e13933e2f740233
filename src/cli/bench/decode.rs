//! `bench asm`'s decoder lines: bytes -> typed instructions alone, against the goal of
//! [`GOAL`] instructions per second on every architecture.
//!
//! Each run is timed by the wall clock and by the thread's CPU time: on a shared machine the
//! wall clock also counts other processes' turns, so both are reported and the goal is judged
//! by each.

use std::time::{Duration, Instant};

use baregpu::{Error, Result};
use baregpu_compiler::isa::{self as isa, Arch};

use super::super::out;

/// The decoder's speed goal, instructions per second on every architecture.
pub const GOAL: f64 = 50e6;

/// Instructions a timed run decodes (the stream passed over as often as needed), so that a run
/// spans many scheduler ticks (the CPU clock below advances by ticks).
const RUN_INSTRUCTIONS: usize = 5_000_000;

/// One architecture's decoding speed, instructions per second.
#[derive(Clone, Copy, Debug)]
pub struct Rate {
    pub arch: Arch,
    pub wall: f64,
    /// Per CPU second of this thread, where the system says.
    pub cpu: Option<f64>,
}

/// This thread's CPU time (Linux: `/proc/thread-self/schedstat`, nanoseconds on a CPU).
pub(super) fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(s.split_whitespace().next()?.parse().ok()?))
}

/// Times decoding `bytes` (`count` instructions), the best of `runs`, and prints its line.
pub fn measure(arch: Arch, bytes: &[u8], count: usize, distinct: usize, runs: usize, json: bool) -> Result<Rate> {
    let dec = isa::Decoder::new(arch);
    let passes = (RUN_INSTRUCTIONS / count).max(1);
    let (mut wall, mut cpu) = (Duration::MAX, None::<Duration>);
    for _ in 0..runs.max(1) {
        let (t0, c0) = (Instant::now(), thread_cpu());
        for _ in 0..passes {
            let mut at = 0;
            while at < bytes.len() {
                let i = dec.decode_at(bytes, at).map_err(|e| Error::Usage(format!("bench decode: {e}")))?;
                at += i.size();
                std::hint::black_box(&i);
            }
        }
        wall = wall.min(t0.elapsed());
        if let (Some(a), Some(b)) = (c0, thread_cpu()) {
            cpu = Some(cpu.map_or(b - a, |c| c.min(b - a)));
        }
    }
    let per_pass = |d: Duration| d.as_secs_f64() / passes as f64;
    let rate = Rate {
        arch,
        wall: count as f64 / per_pass(wall),
        cpu: cpu.filter(|c| !c.is_zero()).map(|c| count as f64 / per_pass(c)),
    };
    if json {
        let v = serde_json::json!({
            "bench": "decode",
            "arch": arch.name(),
            "instructions": count,
            "distinct": distinct,
            "bytes": bytes.len(),
            "ours_s": per_pass(wall),
            "ours_inst_per_s": rate.wall,
            "cpu_inst_per_s": rate.cpu,
            "goal_inst_per_s": GOAL,
        });
        out::line(v)?;
    } else {
        let cpu = rate.cpu.map_or(String::new(), |c| format!(", {:.2} M inst/s per CPU second", c / 1e6));
        out::line(format_args!(
            "{:<7} {:<8} {count} instructions: ours {:.4} s ({:.2} M inst/s{cpu})",
            "decode",
            arch.name(),
            per_pass(wall),
            rate.wall / 1e6
        ))?;
    }
    Ok(rate)
}

/// The 1-minute load average (Linux), to read the wall-clock figures by.
pub(super) fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// One line: whether decoding reached [`GOAL`] on every architecture measured, by each clock.
pub fn summary(rates: &[Rate], json: bool) -> Result<()> {
    let slowest = |f: &dyn Fn(&Rate) -> Option<f64>| {
        let v: Option<Vec<(Arch, f64)>> = rates.iter().map(|r| f(r).map(|x| (r.arch, x))).collect();
        v?.into_iter().min_by(|a, b| a.1.total_cmp(&b.1))
    };
    let Some((wall_arch, wall)) = slowest(&|r| Some(r.wall)) else { return Ok(()) };
    let cpu = slowest(&|r| r.cpu);
    let load = load_average();
    if json {
        let v = serde_json::json!({
            "bench": "decode_goal",
            "goal_inst_per_s": GOAL,
            "met": wall >= GOAL,
            "slowest_arch": wall_arch.name(),
            "slowest_inst_per_s": wall,
            "met_cpu": cpu.map(|c| c.1 >= GOAL),
            "slowest_cpu_arch": cpu.map(|c| c.0.name()),
            "slowest_cpu_inst_per_s": cpu.map(|c| c.1),
            "load_average": load,
        });
        out::line(v)
    } else {
        let verdict = |x: f64| if x >= GOAL { "met" } else { "NOT met" };
        let mut line = format!(
            "decode goal >= {:.0} M inst/s on every arch: {} wall-clock (slowest {} {:.2} M inst/s)",
            GOAL / 1e6,
            verdict(wall),
            wall_arch.name(),
            wall / 1e6
        );
        if let Some((a, c)) = cpu {
            line += &format!(", {} per CPU second (slowest {} {:.2} M inst/s)", verdict(c), a.name(), c / 1e6);
        }
        if let Some(l) = load {
            line += &format!("; load average {l:.2}");
        }
        out::line(line)
    }
}
