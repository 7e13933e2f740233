//! Hand-written kernels built with the typed instruction builder ([`crate::isa::builder`]) and
//! packed into code objects by [`crate::codeobj`]: no LLVM at run time.
//!
//! - [`matmul`]: a tiled fp32 matmul (LDS tiles, `s_barrier`, `v_fmac_f32`) and a vector add, the
//!   kernels of `baregpu demo`.
//!
//! The RDNA targets (gfx1100, gfx1201) are supported; the differences between them (wait
//! instructions, barrier, workgroup-id registers, renamed SALU adds) live in [`Target`].

pub mod matmul;

use thiserror::Error;

use crate::codeobj::{CodeObjectError, Kernel};
use crate::isa::builder::{raw, s, ttmp, Builder, Reg};
use crate::isa::ops;
use crate::isa::{Arch, IsaError};

pub use matmul::{
    matmul_builder, matmul_code_object, matmul_kernel, vector_add_builder, vector_add_code_object, vector_add_kernel,
    MATMUL_NAME, MATMUL_TILE, VECTOR_ADD_BLOCK, VECTOR_ADD_NAME,
};

/// Why a kernel could not be built.
#[derive(Debug, Error)]
pub enum KernelError {
    #[error("{0} is not supported by this kernel (gfx1100 and gfx1201 are)")]
    Unsupported(&'static str),
    #[error("building the kernel: {0}")]
    Isa(#[from] IsaError),
    #[error("writing the code object: {0}")]
    CodeObject(#[from] CodeObjectError),
}

/// The per-architecture spellings a kernel needs.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub arch: Arch,
}

impl Target {
    /// gfx1100 and gfx1201 (wave32).
    pub fn new(arch: Arch) -> Result<Target, KernelError> {
        match arch {
            Arch::Gfx1100 | Arch::Gfx1201 => Ok(Target { arch }),
            other => Err(KernelError::Unsupported(other.name())),
        }
    }

    fn gfx12(&self) -> bool {
        self.arch == Arch::Gfx1201
    }

    /// Waits for all outstanding vector-memory loads.
    pub fn wait_vmem_loads(&self, b: &mut Builder) {
        if self.gfx12() {
            b.op("s_wait_loadcnt", ops![0]);
        } else {
            b.op("s_waitcnt", ops![raw("vmcnt(0)")]);
        }
    }

    /// Waits for all outstanding LDS accesses.
    pub fn wait_lds(&self, b: &mut Builder) {
        if self.gfx12() {
            b.op("s_wait_dscnt", ops![0]);
        } else {
            b.op("s_waitcnt", ops![raw("lgkmcnt(0)")]);
        }
    }

    /// Waits for all outstanding scalar-memory loads.
    pub fn wait_smem(&self, b: &mut Builder) {
        if self.gfx12() {
            b.op("s_wait_kmcnt", ops![0]);
        } else {
            b.op("s_waitcnt", ops![raw("lgkmcnt(0)")]);
        }
    }

    /// A workgroup barrier (gfx12 splits it into signal and wait).
    pub fn barrier(&self, b: &mut Builder) {
        if self.gfx12() {
            b.op("s_barrier_signal", ops![-1]).op("s_barrier_wait", ops![-1]);
        } else {
            b.op("s_barrier", ops![]);
        }
    }

    /// `s_add_i32` (renamed `s_add_co_i32` on gfx12).
    pub fn s_add_i32(&self) -> &'static str {
        if self.gfx12() {
            "s_add_co_i32"
        } else {
            "s_add_i32"
        }
    }

    /// Copies the workgroup ids x and y into `dst_x` / `dst_y` where the hardware does not put
    /// them in SGPRs already, and returns the SGPRs holding them.
    ///
    /// gfx1100 loads them after the user SGPRs: `user_sgprs` (the user SGPR count the code object
    /// declares, padded to 16 - system SGPRs on gfx1100) and `user_sgprs + 1`. gfx1201 has them
    /// architected in trap temporaries: x in `ttmp9`, y in the low half of `ttmp7`.
    pub fn workgroup_ids(&self, b: &mut Builder, user_sgprs: u32, dst_x: Reg, dst_y: Reg) -> (Reg, Reg) {
        if self.gfx12() {
            b.op("s_mov_b32", ops![dst_x, ttmp(9)]).op("s_and_b32", ops![dst_y, 0xffff, ttmp(7)]);
            (dst_x, dst_y)
        } else {
            (s(user_sgprs), s(user_sgprs + 1))
        }
    }
}

/// Fills a kernel's register counts from what its builder used.
pub(crate) fn apply_usage(arch: Arch, k: &mut Kernel, b: &Builder) {
    let u = b.usage();
    k.resources.vgpr_count = u.vgprs;
    k.resources.sgpr_count = crate::codeobj::KernelResources::sgpr_count_for(arch, u.sgprs, u.vcc);
}
