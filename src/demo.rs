//! The main job (`baregpu demo`): build a tiled fp32 matmul and a vector add with our own ISA
//! builder (no LLVM at run time), load them on a device, run a 256x256x256 matmul and a vector
//! add through the HCQ runtime, and check both against the host.

use crate::{Error, Result};
use baregpu_compiler::kernels::{self, MATMUL_NAME, MATMUL_TILE, VECTOR_ADD_BLOCK, VECTOR_ADD_NAME};
use baregpu_isa::Arch;
use baregpu_runtime::amd::AmdDevice;
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
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

/// Deterministic pseudo-random inputs in [-1, 1).
pub(crate) fn inputs(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2654435761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x as f32 / u32::MAX as f32) * 2.0 - 1.0
        })
        .collect()
}

pub(crate) fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(crate) fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn code_object(
    arch: Arch,
    build: fn(Arch) -> std::result::Result<Vec<u8>, kernels::KernelError>,
) -> Result<CodeObject> {
    let raw = build(arch).map_err(|e| Error::Usage(format!("building the demo kernels: {e}")))?;
    CodeObject::parse(&raw).map_err(|e| Error::Usage(format!("loading the demo kernels: {e}")))
}

/// Run the demo on `dev`; `progress` receives a line for each step.
pub fn run(dev: &AmdDevice, size: u32, progress: &mut dyn FnMut(&str)) -> Result<DemoReport> {
    let arch = Arch::from_name(&dev.arch)
        .filter(|a| matches!(a, Arch::Gfx1100 | Arch::Gfx1201))
        .ok_or_else(|| Error::Usage(format!("{}: the demo kernels are written for gfx1100 and gfx1201", dev.label)))?;
    if size == 0 || size % MATMUL_TILE != 0 {
        return Err(Error::Usage(format!("matrix size {size} is not a multiple of {MATMUL_TILE}")));
    }
    let mut runs = Vec::new();

    progress(&format!("building {MATMUL_NAME} and {VECTOR_ADD_NAME} for {} with the ISA builder", dev.arch));
    let mm = dev.load(code_object(arch, kernels::matmul_code_object)?)?;
    let va = dev.load(code_object(arch, kernels::vector_add_code_object)?)?;

    // Matmul: C = A . B, all size x size.
    let n = size as usize;
    let (a, b) = (inputs(n * n, 1), inputs(n * n, 2));
    let buf = |len: usize| dev.alloc((len * 4) as u64);
    let (ba, bb, bc) = (buf(n * n)?, buf(n * n)?, buf(n * n)?);
    dev.write(&ba, 0, &bytes(&a))?;
    dev.write(&bb, 0, &bytes(&b))?;
    progress(&format!("running a {n}x{n}x{n} matmul ({} workgroups of 16x16)", (size / MATMUL_TILE).pow(2)));
    let args = [ArgValue::Pointer(ba.va()), ArgValue::Pointer(bb.va()), ArgValue::Pointer(bc.va())]
        .into_iter()
        .chain([ArgValue::u32(size), ArgValue::u32(size), ArgValue::u32(size)])
        .collect::<Vec<_>>();
    let shape = Launch::new([size / MATMUL_TILE, size / MATMUL_TILE, 1], [MATMUL_TILE, MATMUL_TILE, 1]);
    let t = Instant::now();
    let sub = dev.launch(&mm, MATMUL_NAME, &args, &shape, true)?;
    dev.synchronize()?;
    let wall_us = t.elapsed().as_secs_f64() * 1e6;
    let gpu_us = dev.elapsed_us(&sub);
    dev.release(sub);
    let mut out = vec![0u8; n * n * 4];
    dev.read(&bc, 0, &mut out)?;
    let c = floats(&out);
    progress("checking the matmul against the host");
    let mut max_error = 0f64;
    let mut ok = true;
    for i in 0..n {
        for j in 0..n {
            let want: f64 = (0..n).map(|k| a[i * n + k] as f64 * b[k * n + j] as f64).sum();
            let err = (c[i * n + j] as f64 - want).abs();
            max_error = max_error.max(err);
            // fp32 accumulation of n products of magnitude < 1.
            ok &= err <= 1e-4 * n as f64;
        }
    }
    let flops = 2.0 * (n as f64).powi(3);
    runs.push(KernelRun {
        kernel: MATMUL_NAME.into(),
        gpu_us,
        wall_us,
        gflops: gpu_us.filter(|&us| us > 0.0).map(|us| flops / us / 1e3),
        max_error,
        ok,
    });

    // Vector add over 1M elements.
    let len = 1 << 20;
    let (x, y) = (inputs(len, 3), inputs(len, 4));
    let (bx, by, bz) = (buf(len)?, buf(len)?, buf(len)?);
    dev.write(&bx, 0, &bytes(&x))?;
    dev.write(&by, 0, &bytes(&y))?;
    progress(&format!("running a vector add of {len} elements"));
    let args =
        [ArgValue::Pointer(bx.va()), ArgValue::Pointer(by.va()), ArgValue::Pointer(bz.va()), ArgValue::u32(len as u32)];
    let t = Instant::now();
    let sub = dev.launch(
        &va,
        VECTOR_ADD_NAME,
        &args,
        &Launch::new([len as u32 / VECTOR_ADD_BLOCK, 1, 1], [VECTOR_ADD_BLOCK, 1, 1]),
        true,
    )?;
    dev.synchronize()?;
    let wall_us = t.elapsed().as_secs_f64() * 1e6;
    let gpu_us = dev.elapsed_us(&sub);
    dev.release(sub);
    let mut out = vec![0u8; len * 4];
    dev.read(&bz, 0, &mut out)?;
    let z = floats(&out);
    let max_error =
        z.iter().zip(x.iter().zip(&y)).map(|(z, (x, y))| (*z as f64 - (*x + *y) as f64).abs()).fold(0.0, f64::max);
    runs.push(KernelRun {
        kernel: VECTOR_ADD_NAME.into(),
        gpu_us,
        wall_us,
        gflops: gpu_us.filter(|&us| us > 0.0).map(|us| len as f64 / us / 1e3),
        max_error,
        ok: max_error == 0.0,
    });

    for b in [ba, bb, bc, bx, by, bz] {
        dev.free(b)?;
    }
    dev.unload(mm)?;
    dev.unload(va)?;
    Ok(DemoReport { device: dev.label.clone(), arch: dev.arch.clone(), runs })
}
