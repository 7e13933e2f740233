//! The main job (`baregpu demo`) on any device: load its tiled fp32 matmul and vector add (AMD:
//! built with our own ISA builder, no LLVM at run time; NVIDIA: clang-built PTX), run a
//! 256x256x256 matmul and a 1M-element vector add through the HCQ runtime, and check both against
//! the host.

use crate::gpu::{Buffer, DemoKernels, Gpu, Program};
use crate::{Error, Result};
use baregpu_runtime::program::{ArgValue, Launch};
use serde::Serialize;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct KernelRun {
    pub kernel: String,
    pub gpu_us: Option<f64>,
    pub wall_us: f64,
    pub gflops: Option<f64>,
    /// Largest absolute difference from the host reference.
    pub max_error: f64,
    pub ok: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct DemoReport {
    pub device: String,
    pub arch: String,
    pub runs: Vec<KernelRun>,
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
pub fn run(dev: &dyn Gpu, size: u32, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<DemoReport> {
    let kernels = dev.demo_kernels(size, progress)?;
    let report = workload(dev, size, &kernels, progress);
    for p in kernels.programs {
        // The workload's own error, if any, is the one to report.
        let unloaded = dev.unload(p);
        if report.is_ok() {
            unloaded?;
        }
    }
    report
}

/// The demo's workload on any device: a `size`^3 matmul and a 1M-element vector add, each
/// checked against the host.
pub(crate) fn workload(
    dev: &dyn Gpu,
    size: u32,
    kernels: &DemoKernels,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<DemoReport> {
    let (matmul, vadd) = (&kernels.matmul, &kernels.vector_add);
    let program =
        |i: usize| kernels.programs.get(i).ok_or_else(|| Error::Usage(format!("the demo kernels have no program {i}")));
    let (mm, va) = (program(matmul.program)?, program(vadd.program)?);
    let mut runs = Vec::new();
    let n = size as usize;
    let buf = |len: usize| dev.alloc((len * 4) as u64);
    // Device memory first: its allocator knows the device's size.
    let (ba, bb, bc) = (buf(n * n)?, buf(n * n)?, buf(n * n)?);
    let (a, b) = (inputs(n * n, 1)?, inputs(n * n, 2)?);
    dev.write(&ba, 0, &bytes(&a))?;
    dev.write(&bb, 0, &bytes(&b))?;
    let t = matmul.tile;
    progress(&format!("running a {n}x{n}x{n} matmul ({} workgroups of {t}x{t})", (size / t).pow(2)))?;
    let mut args = vec![ArgValue::Pointer(ba.va()), ArgValue::Pointer(bb.va()), ArgValue::Pointer(bc.va())];
    args.extend(std::iter::repeat_n(ArgValue::u32(size), matmul.dims));
    let shape = Launch::new([size / t, size / t, 1], [t, t, 1]);
    let (c, wall_us, gpu_us) = timed(dev, mm, matmul.kernel, &args, &shape, &bc, n * n)?;
    progress("checking the matmul against the host")?;
    let mut max_error = 0f64;
    for i in 0..n {
        for j in 0..n {
            let want: f64 = (0..n).map(|k| a[i * n + k] as f64 * b[k * n + j] as f64).sum();
            max_error = max_error.max((c[i * n + j] as f64 - want).abs());
        }
    }
    let flops = 2.0 * (n as f64).powi(3);
    runs.push(KernelRun {
        kernel: matmul.kernel.into(),
        gpu_us,
        wall_us,
        gflops: gpu_us.filter(|&us| us > 0.0).map(|us| flops / us / 1e3),
        max_error,
        // fp32 accumulation of n products of magnitude < 1.
        ok: max_error <= 1e-4 * n as f64,
    });

    let len = 1usize << 20;
    let (x, y) = (inputs(len, 3)?, inputs(len, 4)?);
    let (bx, by, bz) = (buf(len)?, buf(len)?, buf(len)?);
    dev.write(&bx, 0, &bytes(&x))?;
    dev.write(&by, 0, &bytes(&y))?;
    progress(&format!("running a vector add of {len} elements"))?;
    let args =
        [ArgValue::Pointer(bx.va()), ArgValue::Pointer(by.va()), ArgValue::Pointer(bz.va()), ArgValue::u32(len as u32)];
    let shape = Launch::new([len as u32 / vadd.block, 1, 1], [vadd.block, 1, 1]);
    let (z, wall_us, gpu_us) = timed(dev, va, vadd.kernel, &args, &shape, &bz, len)?;
    let max_error =
        z.iter().zip(x.iter().zip(&y)).map(|(z, (x, y))| (*z as f64 - (*x + *y) as f64).abs()).fold(0.0, f64::max);
    runs.push(KernelRun {
        kernel: vadd.kernel.into(),
        gpu_us,
        wall_us,
        gflops: gpu_us.filter(|&us| us > 0.0).map(|us| len as f64 / us / 1e3),
        max_error,
        ok: max_error == 0.0,
    });
    for b in [ba, bb, bc, bx, by, bz] {
        dev.free(b)?;
    }
    Ok(DemoReport { device: dev.label().to_string(), arch: dev.arch().to_string(), runs })
}

/// Launch, wait, and read `len` floats of `out`: (values, wall us, GPU us).
fn timed(
    dev: &dyn Gpu,
    prog: &Program,
    kernel: &str,
    args: &[ArgValue],
    shape: &Launch,
    out: &Buffer,
    len: usize,
) -> Result<(Vec<f32>, f64, Option<f64>)> {
    let t = Instant::now();
    let sub = dev.launch(prog, kernel, args, shape, true)?;
    dev.synchronize()?;
    let wall_us = t.elapsed().as_secs_f64() * 1e6;
    let gpu_us = dev.elapsed_us(&sub);
    dev.release(sub)?;
    let mut raw = vec![0u8; len * 4];
    dev.read(out, 0, &mut raw)?;
    Ok((floats(&raw), wall_us, gpu_us))
}
