//! The main job on NVIDIA devices: the same workload as [`crate::demo`] (a tiled fp32 matmul and
//! a 1M-element vector add, checked against the host) from OpenCL C kernels that clang-22 compiled
//! to PTX (tests/fixtures/ptx/kernels.cl, rebuilt by its build.sh). The emulated GPU interprets
//! the PTX; a real GPU gets it compiled by ptxas.

use crate::demo::{bytes, floats, inputs, DemoReport, KernelRun};
use crate::{Error, Result};
use baregpu_runtime::nv::{NvCode, NvDevice, NvIsa};
use baregpu_runtime::program::{ArgValue, Launch};
use std::time::Instant;

const KERNELS: &str = include_str!("../tests/fixtures/ptx/kernels.ptx");
/// `TILE` of `matmul_tiled`.
pub const TILE: u32 = 8;
const VECTOR_ADD_BLOCK: u32 = 256;

pub fn run(dev: &NvDevice, size: u32, progress: &mut dyn FnMut(&str)) -> Result<DemoReport> {
    if size == 0 || size % TILE != 0 {
        return Err(Error::Usage(format!("matrix size {size} is not a multiple of {TILE}")));
    }
    let ptx = KERNELS.replace(".target sm_90", &format!(".target {}", dev.arch));
    let code = match dev.isa {
        NvIsa::Ptx => {
            progress(&format!("loading the clang-built PTX kernels (interpreted by {})", dev.label));
            ptx.into_bytes()
        }
        NvIsa::Sass => {
            progress(&format!("compiling the clang-built PTX kernels for {} with ptxas", dev.arch));
            crate::ptxas::compile(&ptx, &dev.arch, "the demo kernels")?
        }
    };
    let code = NvCode::parse(&code).map_err(|e| Error::Usage(format!("loading the demo kernels: {e}")))?;
    let prog = dev.load(code)?;
    let mut runs = Vec::new();

    let n = size as usize;
    let (a, b) = (inputs(n * n, 1), inputs(n * n, 2));
    let buf = |len: usize| dev.alloc((len * 4) as u64);
    let (ba, bb, bc) = (buf(n * n)?, buf(n * n)?, buf(n * n)?);
    dev.write(&ba, 0, &bytes(&a))?;
    dev.write(&bb, 0, &bytes(&b))?;
    progress(&format!("running a {n}x{n}x{n} matmul ({} CTAs of {TILE}x{TILE})", (size / TILE).pow(2)));
    let args =
        [ArgValue::Pointer(ba.va()), ArgValue::Pointer(bb.va()), ArgValue::Pointer(bc.va()), ArgValue::u32(size)];
    let shape = Launch::new([size / TILE, size / TILE, 1], [TILE, TILE, 1]);
    let t = Instant::now();
    let sub = dev.launch(&prog, "matmul_tiled", &args, &shape, true)?;
    dev.synchronize()?;
    let wall_us = t.elapsed().as_secs_f64() * 1e6;
    let gpu_us = dev.elapsed_us(&sub);
    dev.release(sub);
    let mut out = vec![0u8; n * n * 4];
    dev.read(&bc, 0, &mut out)?;
    let c = floats(&out);
    progress("checking the matmul against the host");
    let mut max_error = 0f64;
    for i in 0..n {
        for j in 0..n {
            let want: f64 = (0..n).map(|k| a[i * n + k] as f64 * b[k * n + j] as f64).sum();
            max_error = max_error.max((c[i * n + j] as f64 - want).abs());
        }
    }
    let flops = 2.0 * (n as f64).powi(3);
    runs.push(KernelRun {
        kernel: "matmul_tiled".into(),
        gpu_us,
        wall_us,
        gflops: gpu_us.filter(|&us| us > 0.0).map(|us| flops / us / 1e3),
        max_error,
        // fp32 accumulation of n products of magnitude < 1.
        ok: max_error <= 1e-4 * n as f64,
    });

    let len = 1usize << 20;
    let (x, y) = (inputs(len, 3), inputs(len, 4));
    let (bx, by, bz) = (buf(len)?, buf(len)?, buf(len)?);
    dev.write(&bx, 0, &bytes(&x))?;
    dev.write(&by, 0, &bytes(&y))?;
    progress(&format!("running a vector add of {len} elements"));
    let args =
        [ArgValue::Pointer(bx.va()), ArgValue::Pointer(by.va()), ArgValue::Pointer(bz.va()), ArgValue::u32(len as u32)];
    let shape = Launch::new([len as u32 / VECTOR_ADD_BLOCK, 1, 1], [VECTOR_ADD_BLOCK, 1, 1]);
    let t = Instant::now();
    let sub = dev.launch(&prog, "vector_add", &args, &shape, true)?;
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
        kernel: "vector_add".into(),
        gpu_us,
        wall_us,
        gflops: gpu_us.filter(|&us| us > 0.0).map(|us| len as f64 / us / 1e3),
        max_error,
        ok: max_error == 0.0,
    });
    for b in [ba, bb, bc, bx, by, bz] {
        dev.free(b)?;
    }
    dev.unload(prog)?;
    Ok(DemoReport { device: dev.label.clone(), arch: dev.arch.clone(), runs })
}
