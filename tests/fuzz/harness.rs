//! Runs one fuzz target: the seeds as they are, then mutated inputs, each under `catch_unwind`
//! and a watchdog. A panic or a slow input is recorded with its iteration, the target's seed and
//! the input (hex or text, and a file to replay); the test fails at the end with every distinct
//! failure. A hang past [`hang_limit`] aborts the process after printing the input.
//!
//! Environment: `BAREGPU_FUZZ_ITERS=N` mutated inputs per target (instead of its default),
//! `BAREGPU_FUZZ_SEED=S` another deterministic run, `BAREGPU_FUZZ_REPLAY=TARGET:FILE` runs one
//! target on one input only (a failure's saved file), panicking as the target does.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::mutate::Rng;

/// How an input is shown in a report.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Show {
    Hex,
    Text,
}

/// An input slower than this is a failure (a hang bound, loose for a loaded 2-core CI machine).
fn slow_limit() -> Duration {
    Duration::from_secs(env_u64("BAREGPU_FUZZ_SLOW_S").unwrap_or(10))
}

/// An input still running after this aborts the run (the watchdog cannot stop a thread).
fn hang_limit() -> Duration {
    Duration::from_secs(env_u64("BAREGPU_FUZZ_HANG_S").unwrap_or(60))
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let parsed = match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => v.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={v}: not a number")))
}

/// The mutated-input count of a target: `BAREGPU_FUZZ_ITERS`, else its default.
pub fn iterations(default: usize) -> usize {
    env_u64("BAREGPU_FUZZ_ITERS").map_or(default, |n| n as usize)
}

/// The target's seed: a hash of its name, changed by `BAREGPU_FUZZ_SEED`.
pub fn target_seed(name: &str) -> u64 {
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    h ^ env_u64("BAREGPU_FUZZ_SEED").unwrap_or(0)
}

/// A short printable form of an input.
pub fn preview(input: &[u8], show: Show) -> String {
    const MAX: usize = 600;
    match show {
        Show::Text => {
            let s = String::from_utf8_lossy(&input[..input.len().min(MAX)]);
            format!("{s:?}{}", if input.len() > MAX { " ..." } else { "" })
        }
        Show::Hex => {
            let h: Vec<String> = input.iter().take(MAX / 3).map(|b| format!("{b:02x}")).collect();
            format!("{}{}", h.join(""), if input.len() > MAX / 3 { " ..." } else { "" })
        }
    }
}

struct Failure {
    iter: usize,
    what: String,
    input: Vec<u8>,
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default()
}

/// The input being run, for the watchdog.
struct Current {
    started: Option<Instant>,
    iter: usize,
    input: Vec<u8>,
}

fn watchdog(name: &'static str, seed: u64, show: Show, cur: Arc<Mutex<Current>>, done: Arc<AtomicBool>) {
    let limit = hang_limit();
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let c = cur.lock().unwrap_or_else(|e| e.into_inner());
        if c.started.is_some_and(|t| t.elapsed() > limit) {
            eprintln!(
                "fuzz {name}: input {} (seed {seed:#x}) still running after {limit:?}: a hang. {} bytes: {}",
                c.iter,
                c.input.len(),
                preview(&c.input, show)
            );
            let p = save(name, c.iter, &c.input);
            eprintln!("saved to {p}; replay with BAREGPU_FUZZ_REPLAY={name}:{p}");
            std::process::abort();
        }
    }
}

fn save(name: &str, iter: usize, input: &[u8]) -> String {
    let p = format!("{}/fuzz-{name}-{iter}.bin", env!("CARGO_TARGET_TMPDIR"));
    match std::fs::write(&p, input) {
        Ok(()) => p,
        Err(e) => format!("(not saved: {e})"),
    }
}

/// Fuzzes `check` with the `seeds` and `iterations(default_iters)` inputs made by `mutate`
/// (which gets the generator, one seed and all seeds). `check` panics on a broken property.
pub fn fuzz(
    name: &'static str,
    default_iters: usize,
    show: Show,
    seeds: &[Vec<u8>],
    mutate: impl Fn(&mut Rng, &[u8], &[Vec<u8>]) -> Vec<u8>,
    check: impl Fn(&[u8]),
) {
    assert!(!seeds.is_empty(), "fuzz {name}: no seed inputs");
    if let Ok(r) = std::env::var("BAREGPU_FUZZ_REPLAY") {
        if let Some(path) = r.strip_prefix(name).and_then(|p| p.strip_prefix(':')) {
            let input = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            check(&input);
        }
        return;
    }
    let seed = target_seed(name);
    let iters = iterations(default_iters);
    let mut rng = Rng::new(seed);
    let cur = Arc::new(Mutex::new(Current { started: None, iter: 0, input: Vec::new() }));
    let done = Arc::new(AtomicBool::new(false));
    let dog = {
        let (cur, done) = (cur.clone(), done.clone());
        std::thread::spawn(move || watchdog(name, seed, show, cur, done))
    };
    let t0 = Instant::now();
    let mut failures: Vec<Failure> = Vec::new();
    let mut slowest = Duration::ZERO;
    for iter in 0..seeds.len() + iters {
        let input = match seeds.get(iter) {
            Some(s) => s.clone(),
            None => {
                let k = rng.below(seeds.len());
                mutate(&mut rng, &seeds[k], seeds)
            }
        };
        {
            // A copy for the watchdog's report.
            let mut c = cur.lock().unwrap_or_else(|e| e.into_inner());
            c.input.clear();
            c.input.extend_from_slice(&input);
            (c.started, c.iter) = (Some(Instant::now()), iter);
        }
        let t = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(|| check(&input)));
        let took = t.elapsed();
        cur.lock().unwrap_or_else(|e| e.into_inner()).started = None;
        slowest = slowest.max(took);
        let what = match r {
            Err(p) => Some(format!("panic: {}", panic_text(&*p))),
            Ok(()) if took > slow_limit() => Some(format!("slow: {took:?} for one input")),
            Ok(()) => None,
        };
        if let Some(what) = what {
            // One report per distinct failure (the first input that shows it).
            if failures.len() < 8 && !failures.iter().any(|f| f.what == what) {
                failures.push(Failure { iter, what, input });
            }
        }
    }
    done.store(true, Ordering::Relaxed);
    let _ = dog.join();
    println!(
        "fuzz {name}: {} seeds + {iters} mutated inputs in {:.1} s (slowest {} ms), seed {seed:#x}, {} failures",
        seeds.len(),
        t0.elapsed().as_secs_f64(),
        slowest.as_millis(),
        failures.len()
    );
    if !failures.is_empty() {
        let mut report = String::new();
        for f in &failures {
            let p = save(name, f.iter, &f.input);
            report.push_str(&format!(
                "\n  input {} (seed {seed:#x}): {}\n    {} bytes: {}\n    replay: BAREGPU_FUZZ_REPLAY={name}:{p}\n",
                f.iter,
                f.what,
                f.input.len(),
                preview(&f.input, show)
            ));
        }
        panic!("fuzz {name}: {} distinct failures{report}", failures.len());
    }
}
