//! `baregpu gemm mxfp4 --device SPEC -m M -n N -k K [--tile T] [--check] [--json]`: the gfx950
//! MXFP4 GEMM `C (bf16) = A * B^T` on generated inputs (random, or `--data exact`: inputs on
//! which every partial sum is exact) or on raw inputs in the natural layout (`--a A.bin
//! --a-scale SA.bin --b B.bin --b-scale SB.bin`: A `M` rows of `K/2` bytes, low nibble first; its
//! scales `M` rows of `K/32` E8M0 bytes; B and its scales likewise with `N` rows). Prints the
//! time and TFLOP/s, with `--check` the error against the host reference (a result past the
//! bound is an error), and with `--out C.bin` writes C (`M` x `N` bf16, row-major).

use std::path::{Path, PathBuf};

use baregpu::gemm::{check_device, check_shapes, gemm_mxfp4, GemmOptions, GemmRun};
use baregpu::{DeviceSpec, Error, Result};
use baregpu_compiler::kernels::mxfp4_gemm::{Mem, Tile, K_STEP};
use baregpu_compiler::mxfp4::reference::{compare, gemm_f64, ErrorReport};
use baregpu_compiler::mxfp4::{inputs, Mxfp4Matrix};
use clap::Subcommand;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    kind: Kind,
}

#[derive(Debug, Subcommand)]
enum Kind {
    /// C (bf16, M x N) = A (MXFP4, M x K) * B^T (MXFP4, N x K) on a gfx950.
    Mxfp4(Mxfp4Args),
}

/// What `gemm mxfp4` and `bench gemm mxfp4` share: the device, the shape, the inputs, the runs.
#[derive(Debug, clap::Args)]
pub(super) struct Shape {
    /// Device spec (a gfx950: amd:N or emu:gfx950).
    #[arg(long)]
    device: DeviceSpec,
    /// Rows of A and C.
    #[arg(short = 'm')]
    m: usize,
    /// Rows of B, columns of C.
    #[arg(short = 'n')]
    n: usize,
    /// The shared dimension, a multiple of 128.
    #[arg(short = 'k')]
    k: usize,
    /// Workgroup tile: 256x256, 192x256 or 128x512; default: the first that divides M and N,
    /// else the one computing the fewest padded elements.
    #[arg(long, value_parser = parse_tile)]
    tile: Option<Tile>,
    /// Generated inputs: random (uniform values quantized) or exact (every partial sum exact).
    #[arg(long, default_value = "random", value_parser = ["random", "exact"])]
    data: String,
    /// Seed of the generated inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Timed launches (after one untimed launch when more than one); the medians are reported.
    #[arg(long, default_value_t = 1)]
    runs: u32,
    /// How the kernel reaches memory: lds (buffer instructions, A shared through the LDS as in
    /// the reference kernel; the default), buffer (every wave loads its own A), or global.
    #[arg(long, default_value = "lds", value_parser = parse_mem)]
    memory: Mem,
}

#[derive(Debug, clap::Args)]
struct Mxfp4Args {
    #[command(flatten)]
    shape: Shape,
    /// Compare C with the host reference (f64, one bf16 rounding) and fail past the bound.
    #[arg(long)]
    check: bool,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Raw A: M rows of K/2 bytes (needs --a-scale, --b and --b-scale too).
    #[arg(long = "a", requires_all = ["a_scale", "b", "b_scale"])]
    a: Option<PathBuf>,
    /// Raw scales of A: M rows of K/32 E8M0 bytes.
    #[arg(long = "a-scale", requires = "a")]
    a_scale: Option<PathBuf>,
    /// Raw B: N rows of K/2 bytes.
    #[arg(long = "b", requires = "a")]
    b: Option<PathBuf>,
    /// Raw scales of B: N rows of K/32 E8M0 bytes.
    #[arg(long = "b-scale", requires = "a")]
    b_scale: Option<PathBuf>,
    /// Write C (M x N bf16, row-major) here.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The dense FP4 peak of an MI355X in TFLOP/s (AMD's figure, about 10 PFLOP/s).
pub const PEAK_TFLOPS: f64 = 10_000.0;

/// `bench gemm mxfp4`: generated inputs, timed repeats, the fraction of the peak.
pub(super) fn bench(shape: Shape, json: bool) -> Result<()> {
    let a = Mxfp4Args { shape, check: false, json, a: None, a_scale: None, b: None, b_scale: None, out: None };
    mxfp4(a)
}

fn parse_mem(s: &str) -> std::result::Result<Mem, String> {
    Mem::parse(s).ok_or_else(|| format!("`{s}`: lds, buffer or global"))
}

fn parse_tile(s: &str) -> std::result::Result<Tile, String> {
    Tile::parse(s).ok_or_else(|| format!("`{s}`: the tiles are 256x256, 192x256 and 128x512"))
}

pub fn run(args: Args) -> Result<()> {
    match args.kind {
        Kind::Mxfp4(a) => mxfp4(a),
    }
}

/// One raw input file: exactly `rows * cols` bytes.
fn raw(path: &Path, what: &str, rows: usize, cols: usize) -> Result<Vec<u8>> {
    let data = super::input::read(path)?;
    if data.len() != rows * cols {
        return Err(Error::Usage(format!(
            "{}: {} bytes; {what} of {rows} x {cols} = {} bytes expected",
            path.display(),
            data.len(),
            rows * cols
        )));
    }
    Ok(data)
}

fn shape_error(e: baregpu_compiler::mxfp4::MxError) -> Error {
    Error::Usage(e.to_string())
}

/// The raw inputs, when given: read and checked before anything runs.
fn raw_inputs(a: &Mxfp4Args) -> Result<Option<(Mxfp4Matrix, Mxfp4Matrix)>> {
    let (m, n, k) = (a.shape.m, a.shape.n, a.shape.k);
    let (Some(pa), Some(psa), Some(pb), Some(psb)) = (&a.a, &a.a_scale, &a.b, &a.b_scale) else { return Ok(None) };
    let ma = Mxfp4Matrix::from_parts(m, k, raw(pa, "A", m, k / 2)?, raw(psa, "scale A", m, k / 32)?);
    let mb = Mxfp4Matrix::from_parts(n, k, raw(pb, "B", n, k / 2)?, raw(psb, "scale B", n, k / 32)?);
    Ok(Some((ma.map_err(shape_error)?, mb.map_err(shape_error)?)))
}

/// Generated inputs (`--data`, `--seed`).
fn generated(s: &Shape) -> Result<(Mxfp4Matrix, Mxfp4Matrix)> {
    let gen = if s.data == "exact" { inputs::exact } else { inputs::random };
    Ok((gen(s.m, s.k, s.seed).map_err(shape_error)?, gen(s.n, s.k, s.seed.wrapping_add(1)).map_err(shape_error)?))
}

fn mxfp4(a: Mxfp4Args) -> Result<()> {
    if a.shape.runs == 0 {
        return Err(Error::Usage("--runs 0: at least one run".into()));
    }
    if a.shape.k == 0 || a.shape.k % K_STEP as usize != 0 {
        return Err(Error::Usage(format!("-k {}: K must be a positive multiple of {K_STEP}", a.shape.k)));
    }
    // The shapes are checked before any input is made or read.
    let empty = |rows| Mxfp4Matrix { rows, k: a.shape.k, data: Vec::new(), scales: Vec::new() };
    check_shapes(&empty(a.shape.m), &empty(a.shape.n))?;
    let raw = raw_inputs(&a)?;
    let dev = baregpu::open(&a.shape.device)?;
    check_device(&*dev)?;
    let (ma, mb) = match raw {
        Some(r) => r,
        None => generated(&a.shape)?,
    };
    let opts = GemmOptions { tile: a.shape.tile, mem: a.shape.memory, runs: a.shape.runs };
    let run = gemm_mxfp4(&*dev, &ma, &mb, &opts)?;
    if let Some(p) = &a.out {
        let bytes: Vec<u8> = run.c.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(p, bytes).map_err(|source| Error::Io { path: p.clone(), source })?;
    }
    let check = if a.check {
        Some(compare(&run.c, &gemm_f64(&ma, &mb).map_err(|e| Error::Usage(e.to_string()))?, a.shape.k))
    } else {
        None
    };
    report(&a, dev.label(), &run, check.as_ref())?;
    match check {
        Some(c) if !c.within_bound() => Err(Error::Usage(format!(
            "check failed: {} of {} elements past the error bound (worst {:.2}x the bound, max abs error {:e})",
            c.over_bound, c.count, c.max_bound_ratio, c.max_abs
        ))),
        _ => Ok(()),
    }
}

fn report(a: &Mxfp4Args, label: &str, run: &GemmRun, check: Option<&ErrorReport>) -> Result<()> {
    let flops = 2.0 * a.shape.m as f64 * a.shape.n as f64 * a.shape.k as f64;
    let us = run.gpu_us.unwrap_or(run.wall_us);
    let tflops = flops / (us * 1e-6) / 1e12;
    if a.json {
        let check = check.map(|c| {
            serde_json::json!({
                "elements": c.count, "mismatches": c.mismatches, "max_abs": c.max_abs, "max_rel": c.max_rel,
                "max_bound_ratio": c.max_bound_ratio, "over_bound": c.over_bound, "pass": c.within_bound(),
            })
        });
        return super::out::json(&serde_json::json!({
            "device": label, "m": a.shape.m, "n": a.shape.n, "k": a.shape.k, "tile": run.tile.name(), "memory": a.shape.memory.name(), "data": a.shape.data,
            "gpu_us": run.gpu_us, "wall_us": run.wall_us, "runs": run.runs, "tflops": tflops,
            "peak_fraction": tflops / PEAK_TFLOPS, "check": check,
        }));
    }
    let gpu = run.gpu_us.map_or("?".into(), |u| format!("{u:.1}"));
    super::out::line(format_args!(
        "mxfp4 gemm {}x{}x{} on {label}, tile {}: GPU {gpu} us, wall {:.1} us{}, {tflops:.3} TFLOP/s ({:.2}% of the \
         {PEAK_TFLOPS:.0} TFLOP/s FP4 peak)",
        a.shape.m,
        a.shape.n,
        a.shape.k,
        run.tile.name(),
        run.wall_us,
        if run.runs > 1 { format!(" (medians of {} runs)", run.runs) } else { String::new() },
        100.0 * tflops / PEAK_TFLOPS
    ))?;
    if let Some(c) = check {
        super::out::line(format_args!(
            "check: {} of {} elements differ from the reference's bits; max abs error {:e}, max rel {:e}, \
             worst {:.3} of the bound: {}",
            c.mismatches,
            c.count,
            c.max_abs,
            c.max_rel,
            c.max_bound_ratio,
            if c.within_bound() { "pass" } else { "FAIL" }
        ))?;
    }
    Ok(())
}
