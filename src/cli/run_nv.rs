//! `baregpu run` for NVIDIA code objects: a cubin, or PTX text. The emulated GPU (emu-nv)
//! executes PTX directly; for a real GPU, PTX is compiled with ptxas first (`$PTXAS`, `ptxas` on
//! PATH, or the CUDA toolkit's) and a cubin is taken as is. Arguments are checked against the
//! kernel's parameter list (PTX `.entry` declarations; a cubin's EIATTR_KPARAM_INFO sizes).

use super::run::{Args, CliArg};
use baregpu::device::{self, Device};
use baregpu::{DeviceSpec, Error, Result};
use baregpu_runtime::nv::{program, NvCode, NvIsa, NvKernel, NvParamKind};

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
    let code = match (code, nv.isa()) {
        (NvCode::Ptx(_), NvIsa::Sass) => {
            let text = String::from_utf8_lossy(bytes);
            let cubin = baregpu::ptxas::compile(&text, &nv.arch, &file)?;
            NvCode::parse(&cubin).map_err(|e| Error::Usage(format!("{file}: ptxas output: {e}")))?
        }
        (c, _) => c,
    };
    super::run::execute(nv, code, &args)
}
