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
use crate::isa::builder::{lgkmcnt, s, ttmp, vmcnt, Builder, Ctors, Operand, Reg};
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
            b.s_wait_loadcnt(0);
        } else {
            b.s_waitcnt(vmcnt(0));
        }
    }

    /// Waits for all outstanding LDS accesses.
    pub fn wait_lds(&self, b: &mut Builder) {
        if self.gfx12() {
            b.s_wait_dscnt(0);
        } else {
            b.s_waitcnt(lgkmcnt(0));
        }
    }

    /// Waits for all outstanding scalar-memory loads.
    pub fn wait_smem(&self, b: &mut Builder) {
        if self.gfx12() {
            b.s_wait_kmcnt(0);
        } else {
            b.s_waitcnt(lgkmcnt(0));
        }
    }

    /// A workgroup barrier (gfx12 splits it into signal and wait).
    pub fn barrier(&self, b: &mut Builder) {
        if self.gfx12() {
            b.s_barrier_signal(-1).s_barrier_wait(-1);
        } else {
            b.s_barrier();
        }
    }

    /// `s_add_i32` (renamed `s_add_co_i32` on gfx12).
    pub fn s_add_i32(&self, b: &mut Builder, d: Reg, x: impl Into<Operand>, y: impl Into<Operand>) {
        if self.gfx12() {
            b.s_add_co_i32(d, x, y);
        } else {
            b.s_add_i32(d, x, y);
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
            b.s_mov_b32(dst_x, ttmp(9)).s_and_b32(dst_y, 0xffff, ttmp(7));
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
