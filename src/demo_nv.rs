//! The main job on NVIDIA devices: the same workload as [`crate::demo`] (a tiled fp32 matmul and
//! a 1M-element vector add, checked against the host) from OpenCL C kernels that clang-22 compiled
//! to PTX (tests/fixtures/ptx/kernels.cl, rebuilt by its build.sh). The emulated GPU interprets
//! the PTX; a real GPU gets it compiled by ptxas.

use crate::demo::{workload, DemoReport, Matmul, VectorAdd};
use crate::{Error, Result};
use baregpu_runtime::nv::{NvCode, NvDevice, NvIsa};

const KERNELS: &str = include_str!("../tests/fixtures/ptx/kernels.ptx");
/// `TILE` of `matmul_tiled`.
pub const TILE: u32 = 8;
const VECTOR_ADD_BLOCK: u32 = 256;

pub fn run(dev: &NvDevice, size: u32, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<DemoReport> {
    crate::demo::check_size(size, TILE)?;
    let ptx = KERNELS.replace(".target sm_90", &format!(".target {}", dev.arch));
    let code = match dev.isa() {
        NvIsa::Ptx => {
            progress(&format!("loading the clang-built PTX kernels (interpreted by {})", dev.label))?;
            ptx.into_bytes()
        }
        NvIsa::Sass => {
            progress(&format!("compiling the clang-built PTX kernels for {} with ptxas", dev.arch))?;
            crate::ptxas::compile(&ptx, &dev.arch, "the demo kernels")?
        }
    };
    let code = NvCode::parse(&code).map_err(|e| Error::Usage(format!("loading the demo kernels: {e}")))?;
    let prog = dev.load(code)?;
    let matmul = Matmul { prog: &prog, kernel: "matmul_tiled", tile: TILE, dims: 1 };
    let vadd = VectorAdd { prog: &prog, kernel: "vector_add", block: VECTOR_ADD_BLOCK };
    let report = workload(dev, size, &matmul, &vadd, progress)?;
    dev.unload(prog)?;
    Ok(report)
}
