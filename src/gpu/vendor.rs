//! What differs by vendor behind [`super::Gpu`], in one place: each vendor's code-object formats
//! and parameter lists, the demo's and the benchmark's kernels, and the default device for a
//! code object. Everything else is written once in [`super::generic`].

use super::generic::{DemoCode, Hcq, VendorDevice};
use super::{DemoMatmul, DemoVectorAdd, Gpu, KernelInfo, Param, ParamKind, Vendor};
use crate::demo::check_size;
use crate::device::Device;
use crate::{DeviceSpec, Error, Result};
use baregpu_compiler::codeobj::{write_code_object, Kernel};
use baregpu_compiler::kernels::{self, MATMUL_NAME, MATMUL_TILE, VECTOR_ADD_BLOCK, VECTOR_ADD_NAME};
use baregpu_drivers::os::Os;
use baregpu_isa::Arch;
use baregpu_runtime::amd::AmdDevice;
use baregpu_runtime::nv::{program as nv_program, NvCode, NvDevice, NvIsa, NvParam, NvParamKind};
use baregpu_runtime::program::{ArgKind, CodeObject, KernelArg};

/// An open device as a [`Gpu`].
pub(super) fn boxed(dev: Device) -> Result<Box<dyn Gpu>> {
    Ok(match dev {
        Device::Amd(d) => Box::new(Hcq::new(d)),
        Device::Nv(d) => Box::new(Hcq::new(d)),
    })
}

/// With no --device, where a code object of `vendor` runs: the first real GPU of that vendor,
/// else the emulated one (AMD: emu:gfx1100; NVIDIA: the PTX's or cubin's target when it is
/// modeled, else sm_90).
pub fn default_spec_for(vendor: Vendor, code: &[u8], os: &dyn Os) -> Result<DeviceSpec> {
    let name = match vendor {
        Vendor::Amd => "amd",
        Vendor::Nvidia => "nvidia",
    };
    let listing = crate::registry::list(os)?;
    let real = listing.devices.iter().filter(|d| d.vendor == name && d.kind == "real");
    if let Some(s) = real.filter_map(|d| DeviceSpec::parse(&d.spec).ok()).next() {
        return Ok(s);
    }
    Ok(match vendor {
        Vendor::Amd => DeviceSpec::Emu { arch: "gfx1100".into(), index: 0 },
        Vendor::Nvidia => {
            let modeled = |a: &String| baregpu_emu::catalog::model(baregpu_emu::catalog::Vendor::Nvidia, a).is_some();
            // Code that does not parse gets its error at load, naming the file.
            let target = NvCode::parse(code).ok().map(|c| format!("sm_{}", c.sm())).filter(modeled);
            DeviceSpec::EmuNv { arch: target.unwrap_or_else(|| "sm_90".into()), index: 0 }
        }
    })
}

fn usage(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Usage(format!("{what}: {e}"))
}

// ---- AMD ----

/// Whether a C type name is a floating-point type; `None` when the name says nothing.
fn is_float(type_name: &str) -> Option<bool> {
    match type_name.trim() {
        "float" | "double" | "half" => Some(true),
        "char" | "uchar" | "short" | "ushort" | "int" | "uint" | "long" | "ulong" | "size_t" | "bool" => Some(false),
        _ => None,
    }
}

fn amd_param(a: &KernelArg) -> Param {
    let (kind, float) = match &a.kind {
        ArgKind::GlobalBuffer => (ParamKind::Buffer, None),
        ArgKind::ByValue => (ParamKind::Value, a.type_name.as_deref().and_then(is_float)),
        _ => (ParamKind::Unsupported, None),
    };
    Param { kind, size: a.size, float, text: a.describe() }
}

/// An AMD code object with one kernel, `empty`, that ends at once: `s_endpgm` written by our own
/// assembler and code-object writer (no LLVM).
pub fn empty_amd_code_object(arch: &str) -> Result<Vec<u8>> {
    let a = Arch::from_name(arch).ok_or_else(|| Error::Usage(format!("no assembler for {arch}")))?;
    let code = baregpu_isa::assemble(a, "s_endpgm").map_err(|e| Error::Usage(format!("assembling s_endpgm: {e}")))?;
    write_code_object(a, &[Kernel::new(a, "empty", code)])
        .map_err(|e| Error::Usage(format!("writing the empty kernel: {e}")))
}

impl VendorDevice for AmdDevice {
    const VENDOR: Vendor = Vendor::Amd;

    fn parse(&self, bytes: &[u8], what: &str) -> Result<(CodeObject, Vec<KernelInfo>)> {
        let co = CodeObject::parse(bytes).map_err(|e| usage(what, e))?;
        let kernels = co
            .kernels
            .iter()
            .map(|k| KernelInfo {
                name: k.name.clone(),
                params: k.meta.args.iter().filter(|a| a.is_explicit()).map(amd_param).collect(),
            })
            .collect();
        Ok((co, kernels))
    }

    fn empty_code(&self) -> Result<Vec<u8>> {
        empty_amd_code_object(&self.arch)
    }

    fn demo_code(&self, size: u32, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<DemoCode> {
        let arch = Arch::from_name(&self.arch).ok_or_else(|| {
            Error::Usage(format!("{}: the demo kernels are not written for {}", self.label, self.arch))
        })?;
        check_size(size, MATMUL_TILE)?;
        progress(&format!("building {MATMUL_NAME} and {VECTOR_ADD_NAME} for {} with the ISA builder", self.arch))?;
        let build = |f: fn(Arch) -> std::result::Result<Vec<u8>, kernels::KernelError>| {
            f(arch).map_err(|e| Error::Usage(format!("building the demo kernels: {e}")))
        };
        Ok(DemoCode {
            modules: vec![build(kernels::matmul_code_object)?, build(kernels::vector_add_code_object)?],
            // The builder's matmul takes (a, b, c, m, n, k).
            matmul: DemoMatmul { program: 0, kernel: MATMUL_NAME, tile: MATMUL_TILE, dims: 3 },
            vector_add: DemoVectorAdd { program: 1, kernel: VECTOR_ADD_NAME, block: VECTOR_ADD_BLOCK },
        })
    }
}

// ---- NVIDIA ----

/// The demo's kernels: OpenCL C compiled to PTX by clang-22 (tests/fixtures/ptx/kernels.cl,
/// rebuilt by its build.sh). The emulated GPU interprets the PTX; a real GPU gets it compiled.
const DEMO_PTX: &str = include_str!("../../tests/fixtures/ptx/kernels.ptx");
/// `TILE` of `matmul_tiled`.
const DEMO_TILE: u32 = 8;
const DEMO_VECTOR_ADD_BLOCK: u32 = 256;

fn nv_param(p: &NvParam) -> Param {
    let (kind, float) = match p.kind {
        NvParamKind::Pointer => (ParamKind::Buffer, None),
        NvParamKind::Value { float } => (ParamKind::Value, float),
        NvParamKind::PointerOrValue => (ParamKind::BufferOrValue, None),
    };
    Param { kind, size: p.size, float, text: p.describe() }
}

impl VendorDevice for NvDevice {
    const VENDOR: Vendor = Vendor::Nvidia;

    /// A cubin, or PTX: interpreted on the emulated GPU, compiled with ptxas for a real one. The
    /// parameters come from the code as given (PTX declares more than a cubin's sizes).
    fn parse(&self, bytes: &[u8], what: &str) -> Result<(NvCode, Vec<KernelInfo>)> {
        let code = NvCode::parse(bytes).map_err(|e| usage(what, e))?;
        let (_, kernels) = nv_program::layout(&code, code.sm()).map_err(|e| usage(what, e))?;
        let kernels = kernels
            .iter()
            .map(|k| KernelInfo { name: k.name.clone(), params: k.params.iter().map(nv_param).collect() })
            .collect();
        let code = match (code, self.isa()) {
            (NvCode::Ptx(_), NvIsa::Sass) => {
                let cubin = crate::ptxas::compile(&String::from_utf8_lossy(bytes), &self.arch, what)?;
                NvCode::parse(&cubin).map_err(|e| usage(what, format!("ptxas output: {e}")))?
            }
            (c, _) => c,
        };
        Ok((code, kernels))
    }

    fn empty_code(&self) -> Result<Vec<u8>> {
        let ptx = ".version 7.8\n.target ARCH\n.address_size 64\n.visible .entry empty()\n{\n\tret;\n}\n";
        Ok(ptx.replace("ARCH", &self.arch).into_bytes())
    }

    fn demo_code(&self, size: u32, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<DemoCode> {
        check_size(size, DEMO_TILE)?;
        match self.isa() {
            NvIsa::Ptx => progress(&format!("loading the clang-built PTX kernels (interpreted by {})", self.label))?,
            NvIsa::Sass => progress(&format!("compiling the clang-built PTX kernels for {} with ptxas", self.arch))?,
        }
        let ptx = DEMO_PTX.replace(".target sm_90", &format!(".target {}", self.arch));
        Ok(DemoCode {
            modules: vec![ptx.into_bytes()],
            matmul: DemoMatmul { program: 0, kernel: "matmul_tiled", tile: DEMO_TILE, dims: 1 },
            vector_add: DemoVectorAdd { program: 0, kernel: "vector_add", block: DEMO_VECTOR_ADD_BLOCK },
        })
    }
}
