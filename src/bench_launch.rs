//! `bench launch`: what the host pays to put work on a GPU, and how long an empty kernel takes
//! from submission to completion. Medians over many iterations. On AMD the program is an
//! `s_endpgm` kernel written by our own assembler and code-object writer (no LLVM); on NVIDIA an
//! empty PTX entry (compiled with ptxas for a real GPU, interpreted on emu-nv).

use crate::{Error, Result};
use baregpu_compiler::codeobj::{write_code_object, Kernel};
use baregpu_isa::Arch;
use baregpu_runtime::amd::AmdDevice;
use baregpu_runtime::hcq::HcqDevice;
use baregpu_runtime::nv::{NvCode, NvDevice, NvIsa};
use baregpu_runtime::program::{CodeObject, Launch};
use serde::Serialize;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct LaunchFigures {
    pub device: String,
    pub iterations: usize,
    /// How (a)'s signal-only submission is made: `bound` (AMD: prebuilt, patched, one doorbell)
    /// or `built` (NVIDIA: a push buffer built per submission).
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

/// A code object with one kernel, `empty`, that ends at once.
pub fn empty_kernel(arch: &str) -> Result<CodeObject> {
    let a = Arch::from_name(arch).ok_or_else(|| Error::Usage(format!("no assembler for {arch}")))?;
    let code = baregpu_isa::assemble(a, "s_endpgm").map_err(|e| Error::Usage(format!("assembling s_endpgm: {e}")))?;
    let bytes = write_code_object(a, &[Kernel::new(a, "empty", code)])
        .map_err(|e| Error::Usage(format!("writing the empty kernel: {e}")))?;
    CodeObject::parse(&bytes).map_err(|e| Error::Usage(format!("loading the empty kernel: {e}")))
}

/// (b) the host cost of each launch of `empty`, and (c) its submission-to-completion time.
fn empty_launches<D: HcqDevice>(
    dev: &D,
    prog: &D::Program,
    shape: &Launch,
    iterations: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let (mut b, mut c) = (Vec::with_capacity(iterations), Vec::with_capacity(iterations));
    for _ in 0..iterations {
        let t = Instant::now();
        let s = dev.launch(prog, "empty", &[], shape, false)?;
        b.push(t.elapsed().as_secs_f64() * 1e6);
        dev.wait_value(dev.submitted_value(&s))?;
        c.push(t.elapsed().as_secs_f64() * 1e6);
        dev.release(s);
    }
    dev.synchronize()?;
    Ok((b, c))
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

pub fn run(dev: &AmdDevice, iterations: usize) -> Result<LaunchFigures> {
    let iterations = check_iterations(iterations)?;
    let prog = dev.load(empty_kernel(&dev.arch)?)?;
    let shape = Launch::new([1, 1, 1], [32, 1, 1]);

    // (a) A bound signal-only buffer: each submission patches its timeline values.
    let mut bound = dev.bind(|_| Vec::new())?;
    let (mut a, mut rt) = (Vec::with_capacity(iterations), Vec::with_capacity(iterations));
    for _ in 0..iterations {
        let t = Instant::now();
        let done = dev.submit_bound(&mut bound, &[])?;
        a.push(t.elapsed().as_secs_f64() * 1e6);
        dev.wait_value(done)?;
        rt.push(t.elapsed().as_secs_f64() * 1e6);
    }
    dev.unbind(bound)?;

    // (b) Enqueue and submit an empty-kernel launch; (c) until it completes.
    let (b, c) = empty_launches(dev, &prog, &shape, iterations)?;
    dev.unload(prog)?;
    Ok(LaunchFigures {
        device: dev.label.clone(),
        iterations,
        signal_only: "bound",
        submit_bound_us: median(a),
        bound_roundtrip_us: median(rt),
        enqueue_launch_us: median(b),
        launch_latency_us: median(c),
    })
}

/// An NVIDIA module with one kernel, `empty`, that returns at once: PTX for the emulated GPU, a
/// ptxas-compiled cubin for a real one.
pub fn empty_nv_kernel(dev: &NvDevice) -> Result<NvCode> {
    let ptx =
        format!(".version 7.8\n.target {}\n.address_size 64\n.visible .entry empty()\n{{\n\tret;\n}}\n", dev.arch);
    let bytes = match dev.isa() {
        NvIsa::Ptx => ptx.into_bytes(),
        NvIsa::Sass => crate::ptxas::compile(&ptx, &dev.arch, "the empty kernel")?,
    };
    NvCode::parse(&bytes).map_err(|e| Error::Usage(format!("loading the empty kernel: {e}")))
}

pub fn run_nv(dev: &NvDevice, iterations: usize) -> Result<LaunchFigures> {
    let iterations = check_iterations(iterations)?;
    let prog = dev.load(empty_nv_kernel(dev)?)?;
    let shape = Launch::new([1, 1, 1], [32, 1, 1]);
    // (a) A signal-only push buffer on the timeline (wait for the previous value, release the next).
    let (mut a, mut rt) = (Vec::with_capacity(iterations), Vec::with_capacity(iterations));
    for _ in 0..iterations {
        let t = Instant::now();
        let value = dev.marker()?;
        a.push(t.elapsed().as_secs_f64() * 1e6);
        dev.wait_value(value)?;
        rt.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let (b, c) = empty_launches(dev, &prog, &shape, iterations)?;
    dev.unload(prog)?;
    Ok(LaunchFigures {
        device: dev.label.clone(),
        iterations,
        signal_only: "built",
        submit_bound_us: median(a),
        bound_roundtrip_us: median(rt),
        enqueue_launch_us: median(b),
        launch_latency_us: median(c),
    })
}
