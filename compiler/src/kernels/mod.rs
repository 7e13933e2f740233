//! Hand-written kernels built with the typed instruction builder ([`crate::isa::builder`]) and
//! packed into code objects by [`crate::codeobj`]: no LLVM at run time.
//!
//! - [`matmul`]: a tiled fp32 matmul (LDS tiles, `s_barrier`, `v_fmac_f32`) and a vector add, the
//!   kernels of `baregpu demo`.
//! - [`mxfp4_gemm`]: the gfx950 MXFP4 GEMM (scaled FP4 MFMAs), the kernels of `baregpu gemm mxfp4`.
//!
//! The RDNA targets (gfx1100, gfx1201, wave32) and the CDNA ones (gfx942, gfx950, wave64) are
//! supported; the differences between them (wait instructions, barrier, workgroup-id registers,
//! renamed SALU adds, the gfx9 spellings of memory and add instructions, the lane-mask width)
//! live in [`Target`], so each kernel is written once.

pub mod matmul;
pub mod mxfp4_gemm;

use thiserror::Error;

use crate::codeobj::{CodeObjectError, Kernel};
use crate::isa::builder::{lgkmcnt, s, ttmp, vcc, vcc_lo, vmcnt, Builder, Ctors, Operand, Reg, Special};
use crate::isa::{Arch, IsaError};

pub use matmul::{
    matmul_builder, matmul_code_object, matmul_kernel, vector_add_builder, vector_add_code_object, vector_add_kernel,
    MATMUL_NAME, MATMUL_TILE, VECTOR_ADD_BLOCK, VECTOR_ADD_NAME,
};

/// Why a kernel could not be built.
#[derive(Debug, Error)]
pub enum KernelError {
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
    /// Every architecture: gfx1100 and gfx1201 (wave32), gfx942 and gfx950 (wave64).
    pub fn new(arch: Arch) -> Target {
        Target { arch }
    }

    fn gfx12(&self) -> bool {
        self.arch == Arch::Gfx1201
    }

    /// CDNA (gfx9 encodings, wave64).
    fn cdna(&self) -> bool {
        matches!(self.arch, Arch::Gfx942 | Arch::Gfx950)
    }

    /// `s_load_b{32,64,128,256}` by the width of `dst` (gfx9: `s_load_dword{,x2,x4,x8}`).
    pub fn s_load(&self, b: &mut Builder, dst: Reg, base: Reg, offset: i64) {
        match (self.cdna(), dst.count) {
            (false, 1) => b.s_load_b32(dst, base, offset),
            (false, 2) => b.s_load_b64(dst, base, offset),
            (false, 4) => b.s_load_b128(dst, base, offset),
            (false, _) => b.s_load_b256(dst, base, offset),
            (true, 1) => b.s_load_dword(dst, base, offset),
            (true, 2) => b.s_load_dwordx2(dst, base, offset),
            (true, 4) => b.s_load_dwordx4(dst, base, offset),
            (true, _) => b.s_load_dwordx8(dst, base, offset),
        };
    }

    /// `global_load_b32` (gfx9: `global_load_dword`).
    pub fn global_load_b32(&self, b: &mut Builder, dst: Reg, addr: Reg, saddr: Reg) {
        if self.cdna() {
            b.global_load_dword(dst, addr, saddr);
        } else {
            b.global_load_b32(dst, addr, saddr);
        }
    }

    /// `global_store_b32` (gfx9: `global_store_dword`).
    pub fn global_store_b32(&self, b: &mut Builder, addr: Reg, data: Reg, saddr: Reg) {
        if self.cdna() {
            b.global_store_dword(addr, data, saddr);
        } else {
            b.global_store_b32(addr, data, saddr);
        }
    }

    /// A zero-extending global load of 4, 2 or 1 bytes (gfx9: `dword`, `ushort`, `ubyte`).
    pub fn global_load(&self, b: &mut Builder, bytes: usize, dst: Reg, addr: Reg, saddr: Reg) {
        match (self.cdna(), bytes) {
            (_, 4) => self.global_load_b32(b, dst, addr, saddr),
            (false, 2) => {
                b.global_load_u16(dst, addr, saddr);
            }
            (false, _) => {
                b.global_load_u8(dst, addr, saddr);
            }
            (true, 2) => {
                b.global_load_ushort(dst, addr, saddr);
            }
            (true, _) => {
                b.global_load_ubyte(dst, addr, saddr);
            }
        }
    }

    /// A global store of the low 4, 2 or 1 bytes of `data` (gfx9: `dword`, `short`, `byte`).
    pub fn global_store(&self, b: &mut Builder, bytes: usize, addr: Reg, data: Reg, saddr: Reg) {
        match (self.cdna(), bytes) {
            (_, 4) => self.global_store_b32(b, addr, data, saddr),
            (false, 2) => {
                b.global_store_b16(addr, data, saddr);
            }
            (false, _) => {
                b.global_store_b8(addr, data, saddr);
            }
            (true, 2) => {
                b.global_store_short(addr, data, saddr);
            }
            (true, _) => {
                b.global_store_byte(addr, data, saddr);
            }
        }
    }

    /// `ds_store_b32` (gfx9: `ds_write_b32`); an offset goes in `b.mods` before it.
    pub fn ds_store_b32(&self, b: &mut Builder, addr: Reg, data: Reg) {
        if self.cdna() {
            b.ds_write_b32(addr, data);
        } else {
            b.ds_store_b32(addr, data);
        }
    }

    /// `ds_load_b32` / `ds_load_b128` by the width of `dst` (gfx9: `ds_read_b32` / `ds_read_b128`).
    pub fn ds_load(&self, b: &mut Builder, dst: Reg, addr: Reg) {
        match (self.cdna(), dst.count) {
            (false, 1) => b.ds_load_b32(dst, addr),
            (false, _) => b.ds_load_b128(dst, addr),
            (true, 1) => b.ds_read_b32(dst, addr),
            (true, _) => b.ds_read_b128(dst, addr),
        };
    }

    /// The carry-less `v_add_nc_u32` (gfx9: `v_add_u32`).
    pub fn v_add_u32(&self, b: &mut Builder, d: Reg, x: impl Into<Operand>, y: impl Into<Operand>) {
        if self.cdna() {
            b.v_add_u32(d, x, y);
        } else {
            b.v_add_nc_u32(d, x, y);
        }
    }

    /// The lane mask a VOPC writes: `vcc_lo` in wave32, `vcc` in wave64.
    pub fn vcc(&self) -> Special {
        if self.cdna() {
            vcc()
        } else {
            vcc_lo()
        }
    }

    /// `s_and_saveexec` of the wave's width, saving exec from SGPR `save` on (two SGPRs in wave64).
    pub fn s_and_saveexec(&self, b: &mut Builder, save: u32, mask: Special) {
        if self.cdna() {
            b.s_and_saveexec_b64(s(save..save + 2), mask);
        } else {
            b.s_and_saveexec_b32(s(save), mask);
        }
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
    /// gfx1100 and CDNA load them after the user SGPRs: `user_sgprs` (the user SGPR count the code
    /// object declares, padded to 16 - system SGPRs on gfx1100) and `user_sgprs + 1`. gfx1201 has them
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
