//! `baregpu run` for NVIDIA code objects: a cubin, or PTX text. The emulated GPU (emu-nv)
//! executes PTX directly; for a real GPU, PTX is compiled with ptxas first (`$PTXAS`, `ptxas` on
//! PATH, or the CUDA toolkit's) and a cubin is taken as is. Arguments are checked against the
//! kernel's parameter list (PTX `.entry` declarations; a cubin's EIATTR_KPARAM_INFO sizes).

use super::run::{buffer_contents, report, write_outputs, Args, CliArg};
use baregpu::device::{self, Device};
use baregpu::{DeviceSpec, Error, Result};
use baregpu_runtime::nv::{program, NvCode, NvIsa, NvKernel, NvParamKind};
use baregpu_runtime::program::{ArgValue, Launch};
use std::time::Instant;

/// Check the command-line arguments against the kernel's parameters.
fn check_args(k: &NvKernel, given: &[CliArg]) -> Result<()> {
    if k.params.len() != given.len() {
        return Err(Error::Usage(format!(
            "kernel `{}` takes {} arguments, {} given",
            k.name,
            k.params.len(),
            given.len()
        )));
    }
    for (i, (g, p)) in given.iter().zip(&k.params).enumerate() {
        let fail = |m: String| Err(Error::Usage(format!("argument {i}: the kernel takes {}, {m}", p.describe())));
        match (g, p.kind) {
            (CliArg::In(_) | CliArg::InOut(_) | CliArg::Out(_), NvParamKind::Pointer | NvParamKind::PointerOrValue) => {
            }
            (CliArg::In(_) | CliArg::InOut(_) | CliArg::Out(_), NvParamKind::Value { .. }) => {
                return fail("a buffer given".into())
            }
            (CliArg::Scalar { ty, .. }, NvParamKind::Pointer) => return fail(format!("{ty} given")),
            (CliArg::Scalar { ty, bytes }, kind) => {
                let float = match kind {
                    NvParamKind::Value { float } => float,
                    _ => None,
                };
                if bytes.len() != p.size as usize {
                    return fail(format!("{ty} ({} bytes) given", bytes.len()));
                }
                if float.is_some_and(|f| f != ty.starts_with('f')) {
                    return fail(format!("{ty} given"));
                }
            }
        }
    }
    Ok(())
}

/// With no --device: the first real NVIDIA GPU, else the emulated GPU of the code's target.
fn default_spec(code: &NvCode) -> Result<DeviceSpec> {
    let listing = baregpu::registry::list(&super::host_os())?;
    if let Some(d) = listing.devices.iter().find(|d| d.vendor == "nvidia" && d.kind == "real") {
        if let Ok(s) = DeviceSpec::parse(&d.spec) {
            return Ok(s);
        }
    }
    let arch = format!("sm_{}", code.sm());
    let modeled = baregpu_emu::catalog::model(baregpu_emu::catalog::Vendor::Nvidia, &arch).is_some();
    Ok(DeviceSpec::EmuNv { arch: if modeled { arch } else { "sm_90".into() }, index: 0 })
}

pub fn run(args: Args, bytes: &[u8]) -> Result<()> {
    let file = args.code_object.display().to_string();
    let code = NvCode::parse(bytes).map_err(|e| Error::Usage(format!("{file}: {e}")))?;
    let (_, kernels) = program::layout(&code, code.sm()).map_err(|e| Error::Usage(format!("{file}: {e}")))?;
    let kernel = kernels.iter().find(|k| k.name == args.kernel).ok_or_else(|| {
        let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
        Error::Usage(format!("{file}: no kernel `{}` (it has: {})", args.kernel, names.join(", ")))
    })?;
    check_args(kernel, &args.args)?;
    let spec = match &args.device {
        Some(s) => s.clone(),
        None => default_spec(&code)?,
    };
    let dev = device::open(&spec)?;
    let Device::Nv(nv) = &dev else {
        return Err(Error::Usage(format!("{file}: an NVIDIA code object cannot run on {}", dev.label())));
    };
    let code = match (code, nv.isa) {
        (NvCode::Ptx(_), NvIsa::Sass) => {
            let text = String::from_utf8_lossy(bytes);
            let cubin = baregpu::ptxas::compile(&text, &nv.arch, &file)?;
            NvCode::parse(&cubin).map_err(|e| Error::Usage(format!("{file}: ptxas output: {e}")))?
        }
        (c, _) => c,
    };
    let contents = buffer_contents(&args.args)?;
    let mut buffers = Vec::new();
    let mut values = Vec::new();
    for (i, (a, c)) in args.args.iter().zip(&contents).enumerate() {
        match (a, c) {
            (CliArg::Scalar { bytes, .. }, _) => values.push(ArgValue::Bytes(bytes.clone())),
            (_, Some(data)) => {
                let b = nv.alloc(data.len().max(4) as u64)?;
                nv.write(&b, 0, data)?;
                values.push(ArgValue::Pointer(b.va()));
                buffers.push((i, b, data.len()));
            }
            (_, None) => unreachable!("buffers always have contents"),
        }
    }
    let prog = nv.load(code)?;
    let launch = Launch::new(args.grid, args.block);
    let t0 = Instant::now();
    let sub = nv.launch(&prog, &args.kernel, &values, &launch, true)?;
    nv.synchronize()?;
    let wall_us = t0.elapsed().as_secs_f64() * 1e6;
    let gpu_us = nv.elapsed_us(&sub);
    nv.release(sub);
    let mut outputs = Vec::new();
    for (i, b, len) in &buffers {
        let mut data = vec![0u8; *len];
        nv.read(b, 0, &mut data)?;
        outputs.push((*i, data));
    }
    write_outputs(&args.out, &outputs)?;
    for (_, b, _) in buffers {
        nv.free(b)?;
    }
    nv.unload(prog)?;
    report(&args, dev.label(), dev.arch(), wall_us, gpu_us);
    Ok(())
}
