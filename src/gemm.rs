//! The MXFP4 GEMM on a device, in one call: `C (bf16) = A * B^T` with A and B in MXFP4
//! ([`baregpu_compiler::mxfp4`]), by the gfx950 kernel of [`baregpu_compiler::kernels::mxfp4_gemm`].

use std::time::Instant;

use baregpu_compiler::kernels::mxfp4_gemm::{self, choose_tile, Mem, Tile, K_STEP, WORKGROUP};
use baregpu_compiler::mxfp4::{layout, Mxfp4Matrix};
use baregpu_runtime::program::{ArgValue, Launch};

use crate::gpu::Gpu;
use crate::{Error, Result};

/// The architecture the kernel is built for.
pub const GEMM_ARCH: &str = "gfx950";

/// What a GEMM run gives back.
#[derive(Debug, Clone)]
pub struct GemmRun {
    /// C, `M` x `N` bf16 bit patterns, row-major.
    pub c: Vec<u16>,
    pub tile: Tile,
    /// Kernel time from the device's timestamps, when it has them (the median over the runs).
    pub gpu_us: Option<f64>,
    /// Launch to completion on the host clock (the median over the runs).
    pub wall_us: f64,
    /// Launches timed (after one untimed launch when there are more than one).
    pub runs: u32,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// Checks that `a` (`M` x `K`) and `b` (`N` x `K`) fit the kernel: the same K, a positive
/// multiple of 128, nonzero M and N, and every buffer addressable with 32-bit offsets.
pub fn check_shapes(a: &Mxfp4Matrix, b: &Mxfp4Matrix) -> Result<()> {
    let (m, n, k) = (a.rows, b.rows, a.k);
    if b.k != k {
        return Err(Error::Usage(format!("A has K = {k} and B has K = {}", b.k)));
    }
    if k == 0 || k % K_STEP as usize != 0 {
        return Err(Error::Usage(format!("K = {k} is not a positive multiple of {K_STEP}")));
    }
    if m == 0 || n == 0 {
        return Err(Error::Usage(format!("M = {m} and N = {n} must be positive")));
    }
    let largest = [
        m * k / 2,
        layout::b_shuffled_len(n, k / 2),
        layout::scales_shuffled_len(m.max(n), k / 32),
        m.saturating_mul(n).saturating_mul(2),
    ];
    if largest.iter().any(|&x| x > u32::MAX as usize) {
        return Err(Error::Usage(format!("{m} x {n} x {k} needs buffers over 4 GiB; the kernel offsets are 32-bit")));
    }
    Ok(())
}

/// How to run a GEMM.
#[derive(Debug, Clone, Copy)]
pub struct GemmOptions {
    /// The workgroup tile; `None`: the one [`choose_tile`] picks.
    pub tile: Option<Tile>,
    /// How the kernel reaches memory (default [`Mem::Lds`]: buffer instructions, A shared
    /// through the LDS, as the reference kernel).
    pub mem: Mem,
    /// Timed launches on the same buffers (one more, untimed, first when more than one); the
    /// medians are reported.
    pub runs: u32,
}

impl Default for GemmOptions {
    fn default() -> GemmOptions {
        GemmOptions { tile: None, mem: Mem::Lds, runs: 1 }
    }
}

/// Checks that `dev` can run the kernel (a gfx950).
pub fn check_device(dev: &dyn Gpu) -> Result<()> {
    if dev.arch() != GEMM_ARCH {
        return Err(Error::Usage(format!(
            "{} is {}: the MXFP4 GEMM needs a {GEMM_ARCH} (emu:{GEMM_ARCH} emulates one)",
            dev.label(),
            dev.arch()
        )));
    }
    Ok(())
}

/// Runs `C = A * B^T` on `dev` (a gfx950).
pub fn gemm_mxfp4(dev: &dyn Gpu, a: &Mxfp4Matrix, b: &Mxfp4Matrix, opts: &GemmOptions) -> Result<GemmRun> {
    let (tile, runs) = (opts.tile, opts.runs.max(1));
    check_device(dev)?;
    check_shapes(a, b)?;
    let (m, n, k) = (a.rows, b.rows, a.k);
    let tile = tile.unwrap_or_else(|| choose_tile(m as u32, n as u32));
    let shape = |e: baregpu_compiler::mxfp4::MxError| Error::Usage(e.to_string());
    let inputs = [
        a.data.clone(),
        layout::shuffle_b(&b.data, n, k / 2).map_err(shape)?,
        layout::shuffle_scales(&a.scales, m, k / 32).map_err(shape)?,
        layout::shuffle_scales(&b.scales, n, k / 32).map_err(shape)?,
    ];
    let code = mxfp4_gemm::code_object(&[tile], opts.mem).map_err(|e| Error::Usage(e.to_string()))?;
    let prog = dev.load(&code, &format!("mxfp4 gemm {}", tile.name()))?;
    let out = run_loaded(dev, &prog, tile, &inputs, [m, n, k], runs.max(1));
    let unloaded = dev.unload(prog);
    let r = out?;
    unloaded?;
    Ok(r)
}

/// Allocates and fills the buffers, launches, reads C back and frees everything.
fn run_loaded(
    dev: &dyn Gpu,
    prog: &crate::gpu::Program,
    tile: Tile,
    inputs: &[Vec<u8>; 4],
    [m, n, k]: [usize; 3],
    runs: u32,
) -> Result<GemmRun> {
    let c_bytes = (m * n * 2) as u64;
    let mut bufs = Vec::new();
    let r = (|| {
        let c = dev.alloc(c_bytes)?;
        bufs.push(c);
        for data in inputs {
            let buf = dev.alloc(data.len().max(4) as u64)?;
            dev.write(&buf, 0, data)?;
            bufs.push(buf);
        }
        let mut args: Vec<ArgValue> = bufs.iter().map(|b| ArgValue::Pointer(b.va())).collect();
        args.extend([m, n, k].map(|x| ArgValue::u32(x as u32)));
        let (gx, gy) = tile.grid(m as u32, n as u32);
        let launch = Launch::new([gx, gy, 1], [WORKGROUP, 1, 1]);
        let (mut walls, mut gpus) = (Vec::new(), Vec::new());
        for r in 0..runs + u32::from(runs > 1) {
            let t0 = Instant::now();
            let sub = dev.launch(prog, &tile.kernel_name(), &args, &launch, true)?;
            dev.synchronize()?;
            let wall_us = t0.elapsed().as_secs_f64() * 1e6;
            let gpu_us = dev.elapsed_us(&sub);
            dev.release(sub)?;
            if runs == 1 || r > 0 {
                walls.push(wall_us);
                gpus.extend(gpu_us);
            }
        }
        let (wall_us, gpu_us) = (median(walls).unwrap_or(0.0), median(gpus));
        let mut raw = vec![0u8; c_bytes as usize];
        dev.read(&bufs[0], 0, &mut raw)?;
        let c = raw.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect();
        Ok(GemmRun { c, tile, gpu_us, wall_us, runs })
    })();
    for b in bufs {
        dev.free(b)?;
    }
    r
}
