//! `bench launch`: what the host pays to put work on a GPU, and how long an empty kernel takes
//! from submission to completion. Medians over many iterations, on any device: the empty kernel
//! is the device's own (AMD: `s_endpgm` from our assembler and code-object writer, no LLVM;
//! NVIDIA: an empty PTX entry, compiled with ptxas for a real GPU, interpreted on emu-nv).

use crate::gpu::Gpu;
use crate::{Error, Result};
use baregpu_runtime::program::{CodeObject, Launch};
use serde::Serialize;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct LaunchFigures {
    pub device: String,
    pub iterations: usize,
    /// How (a)'s signal-only submission is made: `graph` (a one-node graph compiled once, run
    /// per submission: patched words, one doorbell), on every vendor.
    pub signal_only: &'static str,
    /// (a) Host cost of submitting a signal-only command buffer.
    pub submit_bound_us: f64,
    /// Submission to completion of that signal-only buffer: the queue's own latency.
    pub bound_roundtrip_us: f64,
    /// (b) Host cost of building and submitting a launch of an empty kernel.
    pub enqueue_launch_us: f64,
    /// (c) Submission to completion of an empty kernel, as the host sees it.
    pub launch_latency_us: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// An AMD code object with one kernel, `empty`, that ends at once (for tests that drive an
/// `AmdDevice` directly).
pub fn empty_kernel(arch: &str) -> Result<CodeObject> {
    let bytes = crate::gpu::empty_amd_code_object(arch)?;
    CodeObject::parse(&bytes).map_err(|e| Error::Usage(format!("loading the empty kernel: {e}")))
}

/// The most iterations a measurement takes: the samples are kept for the median.
pub const MAX_ITERATIONS: usize = 10_000_000;

/// Iterations are taken as asked, within 1..=[`MAX_ITERATIONS`].
fn check_iterations(iterations: usize) -> Result<usize> {
    match iterations {
        1..=MAX_ITERATIONS => Ok(iterations),
        n => Err(Error::Usage(format!("--iterations {n}: expected 1 to {MAX_ITERATIONS}"))),
    }
}

/// (a) the host cost of each signal-only submission, and its submission-to-completion time.
fn signal_only(dev: &dyn Gpu, iterations: usize) -> Result<(&'static str, Vec<f64>, Vec<f64>)> {
    let mut s = dev.signal_only()?;
    let (mut a, mut rt) = (Vec::with_capacity(iterations), Vec::with_capacity(iterations));
    for _ in 0..iterations {
        let t = Instant::now();
        s.submit()?;
        a.push(t.elapsed().as_secs_f64() * 1e6);
        s.wait()?;
        rt.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let how = s.how();
    s.close()?;
    Ok((how, a, rt))
}

/// (b) the host cost of each launch of `empty`, and (c) its submission-to-completion time.
fn empty_launches(dev: &dyn Gpu, iterations: usize) -> Result<(Vec<f64>, Vec<f64>)> {
    let prog = dev.empty_kernel()?;
    let shape = Launch::new([1, 1, 1], [32, 1, 1]);
    let (mut b, mut c) = (Vec::with_capacity(iterations), Vec::with_capacity(iterations));
    for _ in 0..iterations {
        let t = Instant::now();
        let s = dev.launch(&prog, "empty", &[], &shape, false)?;
        b.push(t.elapsed().as_secs_f64() * 1e6);
        dev.wait(&s)?;
        c.push(t.elapsed().as_secs_f64() * 1e6);
        dev.release(s)?;
    }
    dev.synchronize()?;
    dev.unload(prog)?;
    Ok((b, c))
}

pub fn run(dev: &dyn Gpu, iterations: usize) -> Result<LaunchFigures> {
    let iterations = check_iterations(iterations)?;
    let (how, a, rt) = signal_only(dev, iterations)?;
    let (b, c) = empty_launches(dev, iterations)?;
    Ok(LaunchFigures {
        device: dev.label().to_string(),
        iterations,
        signal_only: how,
        submit_bound_us: median(a),
        bound_roundtrip_us: median(rt),
        enqueue_launch_us: median(b),
        launch_latency_us: median(c),
    })
}
