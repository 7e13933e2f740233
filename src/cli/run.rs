//! `baregpu run CODE_OBJECT --kernel NAME --grid .. --block .. [--arg A]...`: load a code object
//! (AMD HSACO; NVIDIA cubin or PTX, compiled with ptxas for a real GPU) on any device, check the
//! arguments against the kernel's parameters, launch, and write every buffer argument back.

use baregpu::gpu::{self, Gpu, Param, ParamKind};
use baregpu::{DeviceSpec, Error, Result};
use baregpu_runtime::program::{ArgValue, Launch};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Code object: AMD HSACO, NVIDIA cubin, or PTX text (run on emu-nv, or compiled with ptxas
    /// for a real NVIDIA GPU).
    pub(super) code_object: PathBuf,
    /// Kernel to launch.
    #[arg(long)]
    pub(super) kernel: String,
    /// Device spec (see `baregpu devices`); default: the first real GPU of the code object's
    /// vendor, else emu:gfx1100 (AMD) or emu-nv:sm_XX (NVIDIA, the PTX's target).
    #[arg(long)]
    pub(super) device: Option<DeviceSpec>,
    /// Workgroups (CTAs): X[,Y[,Z]].
    #[arg(long, value_parser = parse_dims)]
    pub(super) grid: [u32; 3],
    /// Work-items (threads) per workgroup: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dims)]
    pub(super) block: [u32; 3],
    /// Kernel arguments in order: in:FILE, inout:FILE, out:BYTES, u32:V, i32:V, u64:V, i64:V,
    /// f32:V, f64:V.
    #[arg(long = "arg", value_parser = parse_arg)]
    pub(super) args: Vec<CliArg>,
    /// Where every buffer argument i is written as arg<i>.bin.
    #[arg(long, default_value = "out")]
    pub(super) out: PathBuf,
    /// Print one JSON object: device, kernel, wall and GPU microseconds.
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CliArg {
    In(PathBuf),
    InOut(PathBuf),
    Out(u64),
    Scalar { ty: &'static str, bytes: Vec<u8> },
}

fn parse_dims(s: &str) -> std::result::Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X[,Y[,Z]]"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p.trim().parse().ok().filter(|&v| v > 0).ok_or_else(|| format!("`{p}` is not a positive count"))?;
    }
    Ok(d)
}

fn parse_arg(s: &str) -> std::result::Result<CliArg, String> {
    let (kind, v) = s.split_once(':').ok_or_else(|| format!("`{s}`: expected KIND:VALUE"))?;
    let num = |r: std::result::Result<Vec<u8>, String>, ty| r.map(|bytes| CliArg::Scalar { ty, bytes });
    let bad = |ty: &str| format!("`{v}` is not a valid {ty}");
    match kind {
        "in" => Ok(CliArg::In(v.into())),
        "inout" => Ok(CliArg::InOut(v.into())),
        "out" => v.parse().map(CliArg::Out).map_err(|_| format!("out:{v}: expected a byte count")),
        "u32" => num(v.parse::<u32>().map(|x| x.to_le_bytes().to_vec()).map_err(|_| bad("u32")), "u32"),
        "i32" => num(v.parse::<i32>().map(|x| x.to_le_bytes().to_vec()).map_err(|_| bad("i32")), "i32"),
        "u64" => num(v.parse::<u64>().map(|x| x.to_le_bytes().to_vec()).map_err(|_| bad("u64")), "u64"),
        "i64" => num(v.parse::<i64>().map(|x| x.to_le_bytes().to_vec()).map_err(|_| bad("i64")), "i64"),
        "f32" => num(parse_float::<f32>(v).map(|x| x.to_le_bytes().to_vec()).ok_or_else(|| bad("f32")), "f32"),
        "f64" => num(parse_float::<f64>(v).map(|x| x.to_le_bytes().to_vec()).ok_or_else(|| bad("f64")), "f64"),
        k => Err(format!("unknown argument kind `{k}` (in, inout, out, u32, i32, u64, i64, f32, f64)")),
    }
}

/// A float as written; a finite-looking literal that overflows to infinity (`1e400` as f32) is
/// refused rather than passed as inf. `inf` and `nan` written out are taken.
fn parse_float<F: std::str::FromStr + Into<f64> + Copy>(v: &str) -> Option<F> {
    let x: F = v.trim().parse().ok()?;
    let named =
        ["inf", "infinity", "nan"].contains(&v.trim().trim_start_matches(['+', '-']).to_ascii_lowercase().as_str());
    (x.into().is_finite() || named).then_some(x)
}

/// Check one argument against the kernel's parameter.
fn check(i: usize, given: &CliArg, want: &Param) -> Result<()> {
    let fail = |msg: String| Err(Error::Usage(format!("argument {i}: the kernel takes {msg}")));
    let text = &want.text;
    match (given, want.kind) {
        (_, ParamKind::Unsupported) => fail(format!("{text}, which `run` cannot pass")),
        (CliArg::In(_) | CliArg::InOut(_) | CliArg::Out(_), ParamKind::Buffer | ParamKind::BufferOrValue) => Ok(()),
        (CliArg::In(_) | CliArg::InOut(_) | CliArg::Out(_), ParamKind::Value) => {
            fail(format!("{text}, a buffer given"))
        }
        (CliArg::Scalar { ty, .. }, ParamKind::Buffer) => fail(format!("a buffer, {ty} given")),
        (CliArg::Scalar { ty, bytes }, ParamKind::Value | ParamKind::BufferOrValue) => {
            if bytes.len() != want.size as usize {
                return fail(format!("{text} ({} bytes), {ty} ({} bytes) given", want.size, bytes.len()));
            }
            match want.float {
                Some(f) if f != ty.starts_with('f') => fail(format!("{text}, {ty} given")),
                _ => Ok(()),
            }
        }
    }
}

/// Check the command-line arguments against the kernel's parameters.
fn check_args(kernel: &str, params: &[Param], given: &[CliArg]) -> Result<()> {
    if params.len() != given.len() {
        return Err(Error::Usage(format!("kernel `{kernel}` takes {} arguments, {} given", params.len(), given.len())));
    }
    given.iter().zip(params).enumerate().try_for_each(|(i, (g, p))| check(i, g, p))
}

pub(super) fn read_file(p: &Path) -> Result<Vec<u8>> {
    super::input::read(p)
}

/// The files of in: and inout: arguments (`None` for the others): read first, so that a missing
/// file fails before anything runs.
fn input_files(args: &[CliArg]) -> Result<Vec<Option<Vec<u8>>>> {
    args.iter()
        .map(|a| match a {
            CliArg::In(p) | CliArg::InOut(p) => read_file(p).map(Some),
            CliArg::Out(_) | CliArg::Scalar { .. } => Ok(None),
        })
        .collect()
}

fn report(args: &Args, label: &str, arch: &str, wall_us: f64, gpu_us: Option<f64>) -> Result<()> {
    if args.json {
        let v = serde_json::json!({
            "device": label,
            "arch": arch,
            "kernel": args.kernel,
            "wall_us": wall_us,
            "gpu_us": gpu_us,
        });
        super::out::line(v)
    } else {
        let gpu = gpu_us.map_or("?".into(), |u| format!("{u:.1}"));
        super::out::line(format_args!(
            "{} on {label} ({arch}): wall {wall_us:.1} us, GPU {gpu} us; buffers in {}",
            args.kernel,
            args.out.display()
        ))
    }
}

pub fn run(args: Args) -> Result<()> {
    let bytes = read_file(&args.code_object)?;
    let file = args.code_object.display().to_string();
    let vendor = gpu::identify(&bytes).map_err(|e| Error::Usage(format!("{file}: {e}")))?;
    let spec = match &args.device {
        Some(s) => s.clone(),
        None => gpu::default_spec_for(vendor, &bytes, &super::host_os())?,
    };
    let dev = baregpu::open(&spec)?;
    // The kernel and its arguments are checked before anything takes device memory.
    let code = dev.parse(&bytes, &file)?;
    let kernel = code.kernel(&args.kernel).map_err(|e| Error::Usage(format!("{file}: {e}")))?;
    check_args(&args.kernel, &kernel.params, &args.args)?;
    let files = input_files(&args.args)?;
    super::buffers::check_out_dir(&args.out)?;
    let prog = dev.load_code(code)?;
    let done = execute(&*dev, &prog, &args, files);
    let unloaded = dev.unload(prog);
    done.and(unloaded)
}

/// Fill buffers, launch, and write every buffer argument back.
fn execute(dev: &dyn Gpu, prog: &gpu::Program, args: &Args, files: Vec<Option<Vec<u8>>>) -> Result<()> {
    let mut buffers = Vec::new();
    let mut values = Vec::new();
    for (i, (a, file)) in args.args.iter().zip(files).enumerate() {
        let len = match (a, &file) {
            (CliArg::Scalar { bytes, .. }, _) => {
                values.push(ArgValue::Bytes(bytes.clone()));
                continue;
            }
            (CliArg::Out(n), _) => *n,
            (_, Some(data)) => data.len() as u64,
            (_, None) => unreachable!("in: and inout: arguments have their file"),
        };
        // The device's allocator knows its memory: a size it cannot hold is its error.
        let b = dev.alloc(len.max(4))?;
        match file {
            Some(data) => dev.write(&b, 0, &data)?,
            None => super::buffers::zero(dev, &b, len)?,
        }
        values.push(ArgValue::Pointer(b.va()));
        buffers.push((i, b, len));
    }
    let launch = Launch::new(args.grid, args.block);
    let t0 = Instant::now();
    let sub = dev.launch(prog, &args.kernel, &values, &launch, true)?;
    dev.synchronize()?;
    let wall_us = t0.elapsed().as_secs_f64() * 1e6;
    let gpu_us = dev.elapsed_us(&sub);
    dev.release(sub)?;
    super::buffers::save(dev, &args.out, &buffers)?;
    for (_, b, _) in buffers {
        dev.free(b)?;
    }
    report(args, dev.label(), dev.arch(), wall_us, gpu_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dims_and_args() {
        assert_eq!(parse_dims("4").unwrap(), [4, 1, 1]);
        assert_eq!(parse_dims("4,2,3").unwrap(), [4, 2, 3]);
        assert!(parse_dims("0").is_err() && parse_dims("1,2,3,4").is_err() && parse_dims("x").is_err());
        assert_eq!(parse_arg("out:16").unwrap(), CliArg::Out(16));
        assert_eq!(parse_arg("f32:1.5").unwrap(), CliArg::Scalar { ty: "f32", bytes: 1.5f32.to_le_bytes().to_vec() });
        assert!(parse_arg("u32:-1").unwrap_err().contains("not a valid u32"));
        assert!(parse_arg("f32:1e400").unwrap_err().contains("not a valid f32"));
        assert!(parse_arg("f64:-1e999").unwrap_err().contains("not a valid f64"));
        assert!(parse_arg("f32:3.5e38").unwrap_err().contains("not a valid f32"));
        let inf = CliArg::Scalar { ty: "f32", bytes: f32::NEG_INFINITY.to_le_bytes().to_vec() };
        assert_eq!(parse_arg("f32:-inf").unwrap(), inf);
        assert!(parse_arg("f64:NaN").is_ok() && parse_arg("f64:1e300").is_ok());
        assert!(parse_arg("q:1").unwrap_err().contains("unknown argument kind"));
    }

    /// One check for both vendors' parameter lists: what each mismatch says.
    #[test]
    fn arguments_are_checked_against_neutral_parameters() {
        let p = |kind, size, float, text: &str| Param { kind, size, float, text: text.into() };
        let int = p(ParamKind::Value, 4, Some(false), "uint");
        let buf = p(ParamKind::Buffer, 8, None, "float*");
        let either = p(ParamKind::BufferOrValue, 8, None, "a buffer or an 8-byte value");
        let u32_ = parse_arg("u32:1").unwrap();
        let err = |i, g: &CliArg, w: &Param| check(i, g, w).unwrap_err().to_string();
        assert!(check(0, &u32_, &int).is_ok() && check(0, &CliArg::Out(4), &buf).is_ok());
        assert!(check(0, &CliArg::Out(4), &either).is_ok() && check(0, &parse_arg("u64:1").unwrap(), &either).is_ok());
        assert_eq!(err(1, &u32_, &buf), "argument 1: the kernel takes a buffer, u32 given");
        assert_eq!(err(2, &CliArg::Out(4), &int), "argument 2: the kernel takes uint, a buffer given");
        assert_eq!(err(3, &parse_arg("f32:1").unwrap(), &int), "argument 3: the kernel takes uint, f32 given");
        let e = err(3, &parse_arg("u64:1").unwrap(), &int);
        assert_eq!(e, "argument 3: the kernel takes uint (4 bytes), u64 (8 bytes) given");
        assert_eq!(
            err(0, &u32_, &either),
            "argument 0: the kernel takes a buffer or an 8-byte value (8 bytes), u32 (4 bytes) given"
        );
        let image = p(ParamKind::Unsupported, 8, None, "Other(\"image\")");
        assert!(err(0, &CliArg::Out(4), &image).ends_with("which `run` cannot pass"));
        let e = check_args("k", std::slice::from_ref(&int), &[]).unwrap_err().to_string();
        assert_eq!(e, "kernel `k` takes 1 arguments, 0 given");
    }
}
