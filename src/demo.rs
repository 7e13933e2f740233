//! The main job (`baregpu demo`) on any device: load its tiled fp32 matmul and vector add (AMD:
//! built with our own ISA builder, no LLVM at run time; NVIDIA: clang-built PTX), run a
//! 256x256x256 matmul and a 1M-element vector add through the HCQ runtime, and check both against
//! the host.
//!
//! The inputs are staged in host memory, copied to the device on the copy queue, the kernels run
//! on the compute queue, and the results are copied back to host memory: as ONE graph by default
//! ([`Mode::Graph`], see [`crate::demo_graph`]), or launch by launch and copy by copy
//! ([`Mode::Eager`]) for comparison. Both do the same work and give the same bytes.
//!
//! Then, in either mode, a small transformer block runs through the graph compiler as one HCQ2
//! graph and again on new inputs as a replay ([`crate::demo_transformer`]).

use crate::gpu::{Buffer, DemoKernels, Gpu, Program};
use crate::{Error, Result};
use baregpu_runtime::program::{ArgValue, Launch};
use serde::Serialize;
use std::time::Instant;

/// How the demo's work is submitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// One compiled graph: copies in, both kernels, copies out.
    Graph,
    /// Launch by launch and copy by copy, each ordered on the device timeline.
    Eager,
}

#[derive(Debug, Clone, Serialize)]
pub struct KernelRun {
    pub kernel: String,
    pub gpu_us: Option<f64>,
    pub wall_us: f64,
    pub gflops: Option<f64>,
    /// Largest absolute difference from the host reference.
    pub max_error: f64,
    pub ok: bool,
    /// FNV-1a of the result's bytes: equal in both modes.
    pub checksum: String,
}

/// How a graph run went: its nodes, the queues they ran on, its wall time (run to completion).
#[derive(Debug, Clone, Serialize)]
pub struct GraphRun {
    pub nodes: usize,
    pub queues: String,
    /// Waits the plan put between queues (the kernels on the copies in, the copies out on the
    /// kernels).
    pub waits: usize,
    pub wall_us: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DemoReport {
    pub device: String,
    pub arch: String,
    pub mode: Mode,
    /// With [`Mode::Graph`].
    pub graph: Option<GraphRun>,
    pub runs: Vec<KernelRun>,
    /// The transformer block through the graph compiler ([`crate::demo_transformer`]).
    pub transformer: Option<crate::demo_transformer::TransformerRun>,
}

/// The largest matrix size: every element is checked on the host, which costs size^3.
pub const MAX_SIZE: u32 = 4096;

/// A matrix size the demo runs: a multiple of the kernel's `tile`, at most [`MAX_SIZE`]; checked
/// before anything is built or allocated.
pub(crate) fn check_size(size: u32, tile: u32) -> Result<()> {
    if size == 0 || size % tile != 0 {
        return Err(Error::Usage(format!("matrix size {size} is not a multiple of {tile}")));
    }
    if size > MAX_SIZE {
        return Err(Error::Usage(format!(
            "matrix size {size}: at most {MAX_SIZE} (every element is checked on the host)"
        )));
    }
    Ok(())
}

/// Deterministic pseudo-random inputs in [-1, 1); an error, not an abort, when the host has not
/// the memory.
pub(crate) fn inputs(n: usize, seed: u32) -> Result<Vec<f32>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::Usage(format!("cannot allocate {n} floats of host memory")))?;
    let mut x = seed.wrapping_mul(2654435761).max(1);
    v.extend((0..n).map(|_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        (x as f32 / u32::MAX as f32) * 2.0 - 1.0
    }));
    Ok(v)
}

pub(crate) fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Run the demo on `dev`; `progress` receives a line for each step.
pub fn run(dev: &dyn Gpu, size: u32, mode: Mode, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<DemoReport> {
    let kernels = dev.demo_kernels(size, progress)?;
    let report = workload(dev, size, mode, &kernels, progress);
    for p in kernels.programs {
        // The workload's own error, if any, is the one to report.
        let unloaded = dev.unload(p);
        if report.is_ok() {
            unloaded?;
        }
    }
    let mut report = report?;
    report.transformer = Some(crate::demo_transformer::run(dev, crate::demo_transformer::DEMO_BLOCK, progress)?);
    Ok(report)
}

/// FNV-1a, 64 bits, as hex: a fingerprint of a result's bytes.
pub(crate) fn checksum(bytes: &[u8]) -> String {
    let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    format!("{h:016x}")
}

/// One kernel of the workload: its program, name, arguments and shape.
pub(crate) struct Job<'k> {
    pub program: &'k Program,
    pub kernel: &'static str,
    pub args: Vec<ArgValue>,
    pub shape: Launch,
}

/// The workload's memory: inputs staged in host memory, their device copies, the device results
/// and the host memory they come back to. `inputs[i]` goes to `device[i]`; the kernels write
/// `outputs[0]` (matmul) and `outputs[1]` (vector add) in device memory, copied to `results`.
pub(crate) struct Memory {
    pub staged: [Buffer; 4],
    pub device: [Buffer; 4],
    pub outputs: [Buffer; 2],
    pub results: [Buffer; 2],
}

impl Memory {
    fn alloc(dev: &dyn Gpu, n: usize, len: usize, held: &mut Vec<Buffer>) -> Result<()> {
        // Device memory first: its allocator knows the device's size.
        for bytes in [n * n, n * n, len, len, n * n, len] {
            held.push(dev.alloc((bytes * 4) as u64)?);
        }
        for bytes in [n * n, n * n, len, len, n * n, len] {
            held.push(dev.alloc_host((bytes * 4) as u64)?);
        }
        Ok(())
    }

    fn from(mut held: Vec<Buffer>) -> Memory {
        let mut take = || held.remove(0);
        let device = [take(), take(), take(), take()];
        let outputs = [take(), take()];
        let staged = [take(), take(), take(), take()];
        let results = [take(), take()];
        Memory { staged, device, outputs, results }
    }

    fn all(self) -> Vec<Buffer> {
        let Memory { staged, device, outputs, results } = self;
        device.into_iter().chain(outputs).chain(staged).chain(results).collect()
    }
}

/// What running the kernels measured: per kernel (GPU us, wall us), and the graph run if any.
pub(crate) struct Timings {
    pub kernels: [(Option<f64>, f64); 2],
    pub graph: Option<GraphRun>,
}

/// The demo's workload on any device: a `size`^3 matmul and a 1M-element vector add, each
/// checked against the host.
pub(crate) fn workload(
    dev: &dyn Gpu,
    size: u32,
    mode: Mode,
    kernels: &DemoKernels,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<DemoReport> {
    let (n, len) = (size as usize, 1usize << 20);
    let mut held = Vec::new();
    let r = Memory::alloc(dev, n, len, &mut held).and_then(|()| {
        let mem = Memory::from(std::mem::take(&mut held));
        let r = checked(dev, size, len, mode, kernels, &mem, progress);
        held = mem.all();
        r
    });
    for b in held {
        // The workload's own error, if any, is the one to report.
        let freed = dev.free(b);
        if r.is_ok() {
            freed?;
        }
    }
    r
}

fn checked(
    dev: &dyn Gpu,
    size: u32,
    len: usize,
    mode: Mode,
    kernels: &DemoKernels,
    mem: &Memory,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<DemoReport> {
    let (matmul, vadd) = (&kernels.matmul, &kernels.vector_add);
    let program =
        |i: usize| kernels.programs.get(i).ok_or_else(|| Error::Usage(format!("the demo kernels have no program {i}")));
    let n = size as usize;
    let (a, b, x, y) = (inputs(n * n, 1)?, inputs(n * n, 2)?, inputs(len, 3)?, inputs(len, 4)?);
    for (buf, v) in mem.staged.iter().zip([&a, &b, &x, &y]) {
        dev.write(buf, 0, &bytes(v))?;
    }
    let t = matmul.tile;
    let mut mm_args: Vec<ArgValue> =
        [&mem.device[0], &mem.device[1], &mem.outputs[0]].iter().map(|b| ArgValue::Pointer(b.va())).collect();
    mm_args.extend(std::iter::repeat_n(ArgValue::u32(size), matmul.dims));
    let va_args = [&mem.device[2], &mem.device[3], &mem.outputs[1]].map(|b| ArgValue::Pointer(b.va()));
    let jobs = [
        Job {
            program: program(matmul.program)?,
            kernel: matmul.kernel,
            args: mm_args,
            shape: Launch::new([size / t, size / t, 1], [t, t, 1]),
        },
        Job {
            program: program(vadd.program)?,
            kernel: vadd.kernel,
            args: va_args.into_iter().chain([ArgValue::u32(len as u32)]).collect(),
            shape: Launch::new([len as u32 / vadd.block, 1, 1], [vadd.block, 1, 1]),
        },
    ];
    progress(&format!(
        "running a {n}x{n}x{n} matmul ({} workgroups of {t}x{t}) and a vector add of {len} elements, {}",
        (size / t).pow(2),
        match mode {
            Mode::Graph => "as one graph",
            Mode::Eager => "launch by launch",
        }
    ))?;
    let timings = match mode {
        Mode::Graph => crate::demo_graph::run(dev, mem, &jobs)?,
        Mode::Eager => eager(dev, mem, &jobs)?,
    };
    let read = |b: &Buffer, len: usize| -> Result<(Vec<f32>, String)> {
        let mut raw = vec![0u8; len * 4];
        dev.read(b, 0, &mut raw)?;
        Ok((floats(&raw), checksum(&raw)))
    };
    let ((c, c_sum), (z, z_sum)) = (read(&mem.results[0], n * n)?, read(&mem.results[1], len)?);
    progress("checking the results against the host")?;
    let mut max_error = 0f64;
    for i in 0..n {
        for j in 0..n {
            let want: f64 = (0..n).map(|k| a[i * n + k] as f64 * b[k * n + j] as f64).sum();
            max_error = max_error.max((c[i * n + j] as f64 - want).abs());
        }
    }
    let [(mm_gpu, mm_wall), (va_gpu, va_wall)] = timings.kernels;
    let flops = 2.0 * (n as f64).powi(3);
    let matmul_run = KernelRun {
        kernel: matmul.kernel.into(),
        gpu_us: mm_gpu,
        wall_us: mm_wall,
        gflops: mm_gpu.filter(|&us| us > 0.0).map(|us| flops / us / 1e3),
        max_error,
        // fp32 accumulation of n products of magnitude < 1.
        ok: max_error <= 1e-4 * n as f64,
        checksum: c_sum,
    };
    let max_error =
        z.iter().zip(x.iter().zip(&y)).map(|(z, (x, y))| (*z as f64 - (*x + *y) as f64).abs()).fold(0.0, f64::max);
    let vadd_run = KernelRun {
        kernel: vadd.kernel.into(),
        gpu_us: va_gpu,
        wall_us: va_wall,
        gflops: va_gpu.filter(|&us| us > 0.0).map(|us| len as f64 / us / 1e3),
        max_error,
        ok: max_error == 0.0,
        checksum: z_sum,
    };
    Ok(DemoReport {
        device: dev.label().to_string(),
        arch: dev.arch().to_string(),
        mode,
        graph: timings.graph,
        runs: vec![matmul_run, vadd_run],
        transformer: None,
    })
}

/// The work launch by launch: the inputs copied to the device, each kernel launched and waited
/// for (its own wall time), the results copied back.
fn eager(dev: &dyn Gpu, mem: &Memory, jobs: &[Job; 2]) -> Result<Timings> {
    for (dst, src) in mem.device.iter().zip(&mem.staged) {
        dev.copy(dst, 0, src, 0, src.size())?;
    }
    let mut kernels = [(None, 0.0); 2];
    for (k, j) in kernels.iter_mut().zip(jobs) {
        *k = timed(dev, j)?;
    }
    for (dst, src) in mem.results.iter().zip(&mem.outputs) {
        dev.copy(dst, 0, src, 0, src.size())?;
    }
    dev.synchronize()?;
    Ok(Timings { kernels, graph: None })
}

/// Launch, wait: (GPU us, wall us).
fn timed(dev: &dyn Gpu, j: &Job) -> Result<(Option<f64>, f64)> {
    let t = Instant::now();
    let sub = dev.launch(j.program, j.kernel, &j.args, &j.shape, true)?;
    dev.synchronize()?;
    let wall_us = t.elapsed().as_secs_f64() * 1e6;
    let gpu_us = dev.elapsed_us(&sub);
    dev.release(sub)?;
    Ok((gpu_us, wall_us))
}
