//! The demo kernels: a tiled fp32 matmul and a vector add, for gfx1100 and gfx1201 (wave32) and
//! gfx942 and gfx950 (wave64), one definition each: [`Target`] spells the instructions per arch.
//!
//! # `matmul_f32(A, B, C, M, N, K)`
//!
//! `C[M,N] = A[M,K] * B[K,N]`, fp32, row-major, `M`, `N` and `K` multiples of [`MATMUL_TILE`]
//! (16). Launch `(N/16, M/16, 1)` workgroups of `(16, 16, 1)` work-items (8 waves of 32, or 4 of 64). Work-item
//! `(tx, ty)` of workgroup `(gx, gy)` computes `C[row, col]` with `row = gy*16 + ty` and
//! `col = gx*16 + tx`.
//!
//! Per step of 16 along K the workgroup stages one 16x16 tile of A and one of B in LDS:
//!
//! ```text
//!   LDS (2 KiB):  As[16][16] f32 at 0      As[ty][tx] = A[row, k0 + tx]
//!                 Bs[16][16] f32 at 1024   Bs[ty][tx] = B[k0 + ty, col]
//!   barrier
//!   acc += As[ty][k] * Bs[k][tx]  for k in 0..16   (4 x ds_load_b128 of the As row,
//!                                                   16 x ds_load_b32 of the Bs column,
//!                                                   16 x v_fmac_f32)
//!   barrier                                        (the tiles are overwritten next step)
//! ```
//!
//! Registers (SGPRs; VGPRs are per lane):
//!
//! ```text
//!   s[0:1]  kernarg pointer (user SGPRs)     v0      packed work-item id: x | y << 10 | z << 20
//!   s[4:5]  A   s[6:7] B   s[8:9] C          v1, v2  tx, ty
//!   s10 M   s11 N   s12 K                    v3      byte offset of A[row, k0 + tx]
//!   s13     K/16 steps left                  v4      byte offset of B[k0 + ty, col]
//!   s14/s15 workgroup id x/y (gfx1100/CDNA:  v5      LDS store address ty*64 + tx*4
//!           hardware's; gfx1201: copied      v6, v7  LDS read bases ty*64, tx*4
//!           from ttmp9 / ttmp7[15:0])        v8      the accumulator
//!   s16     N*64: B offset step (16 rows)    v9, v10 the loaded A and B elements
//!   s17/s18 gy*16, gx*16                     v11/v12 row, col
//!                                            v16..31 As[ty][0..16], v32..47 Bs[0..16][tx]
//! ```
//!
//! # `vector_add_f32(A, B, C, n)`
//!
//! `C[i] = A[i] + B[i]` for `i < n`; workgroups of [`VECTOR_ADD_BLOCK`] (256) work-items along x,
//! `ceil(n/256)` of them.

use crate::codeobj::{write_code_object, Kernel, KernelArg};
use crate::isa::builder::{offset, s, v, Builder, Ctors};
use crate::isa::Arch;

use super::{apply_usage, KernelError, Target};

/// Symbol name of the matmul kernel.
pub const MATMUL_NAME: &str = "matmul_f32";
/// Symbol name of the vector-add kernel.
pub const VECTOR_ADD_NAME: &str = "vector_add_f32";
/// The matmul's tile edge: workgroups are TILE x TILE work-items computing a TILE x TILE block of
/// C, stepping TILE along K; M, N and K must be multiples of it.
pub const MATMUL_TILE: u32 = 16;
/// Work-items per vector-add workgroup.
pub const VECTOR_ADD_BLOCK: u32 = 256;

/// Offset of the B tile in LDS (bytes).
const LDS_B: i64 = (MATMUL_TILE * MATMUL_TILE * 4) as i64;
/// LDS bytes per workgroup: the A and B tiles.
const MATMUL_LDS: u32 = 2 * MATMUL_TILE * MATMUL_TILE * 4;

/// The matmul kernel's skeleton: arguments and resources (registers are filled from the code).
fn matmul_skeleton(arch: Arch) -> Kernel {
    let mut k = Kernel::new(arch, MATMUL_NAME, Vec::new()).with_args(vec![
        KernelArg::global_buffer("A", 0).with_type_name("float*").with_const(true),
        KernelArg::global_buffer("B", 8).with_type_name("float*").with_const(true),
        KernelArg::global_buffer("C", 16).with_type_name("float*"),
        KernelArg::by_value("M", 24, 4).with_type_name("uint"),
        KernelArg::by_value("N", 28, 4).with_type_name("uint"),
        KernelArg::by_value("K", 32, 4).with_type_name("uint"),
    ]);
    let r = &mut k.resources;
    r.workgroup_id = [true, true, false];
    r.workitem_id_dims = 2;
    r.lds_bytes = MATMUL_LDS;
    k.reqd_workgroup_size = Some([MATMUL_TILE, MATMUL_TILE, 1]);
    k.max_flat_workgroup_size = MATMUL_TILE * MATMUL_TILE;
    k
}

/// The hardware-initialised SGPRs (user + system) of a kernel: they count as used.
fn initialised_sgprs(arch: Arch, k: &Kernel) -> u32 {
    let r = &k.resources;
    k.user_sgpr_count(arch) + r.workgroup_id.iter().filter(|&&e| e).count() as u32 + u32::from(r.workgroup_info)
}

/// The matmul's instructions (see the module documentation).
pub fn matmul_builder(arch: Arch) -> Result<Builder, KernelError> {
    let t = Target::new(arch);
    let skel = matmul_skeleton(arch);
    let mut b = Builder::new(arch);
    b.tracker_mut().reserve_sgprs(initialised_sgprs(arch, &skel));
    b.tracker_mut().reserve_vgprs(1);
    let tile = MATMUL_TILE as i64;

    // Prologue: arguments, work-item and workgroup ids.
    t.s_load(&mut b, s(4..12), s(0..2), 0); // A, B, C, M, N
    t.s_load(&mut b, s(12), s(0..2), 32); // K
    let (wg_x, wg_y) = t.workgroup_ids(&mut b, skel.user_sgpr_count(arch), s(14), s(15));
    b.v_and_b32(v(1), 0x3ff, v(0)) // tx = v0[9:0]
        .v_bfe_u32(v(2), v(0), 10, 10) // ty = v0[19:10]
        .s_lshl_b32(s(18), wg_x, 4) // gx*16
        .s_lshl_b32(s(17), wg_y, 4); // gy*16
    t.v_add_u32(&mut b, v(12), s(18), v(1)); // col
    t.v_add_u32(&mut b, v(11), s(17), v(2)); // row
    b.v_lshlrev_b32(v(6), 6, v(2)) // ty*64: As row base
        .v_lshlrev_b32(v(7), 2, v(1)); // tx*4: Bs column base
    t.v_add_u32(&mut b, v(5), v(6), v(7)); // ty*64 + tx*4: store address
    b.v_mov_b32(v(8), 0); // acc = 0
    t.wait_smem(&mut b);
    b.v_mul_lo_u32(v(3), v(11), s(12)); // row*K
    t.v_add_u32(&mut b, v(3), v(3), v(1)); // + tx
    b.v_lshlrev_b32(v(3), 2, v(3)) // bytes
        .v_mul_lo_u32(v(4), v(2), s(11)); // ty*N
    t.v_add_u32(&mut b, v(4), v(4), v(12)); // + col
    b.v_lshlrev_b32(v(4), 2, v(4)) // bytes
        .s_lshl_b32(s(16), s(11), 6) // N*16 floats: B step
        .s_lshr_b32(s(13), s(12), 4) // K/16 steps
        .s_cmp_eq_u32(s(13), 0);
    let store = b.label("store");
    b.s_cbranch_scc1(store);

    // Main loop: one 16-wide step along K.
    let top = b.here("k_loop");
    t.global_load_b32(&mut b, v(9), v(3), s(4..6)); // A[row, k0 + tx]
    t.global_load_b32(&mut b, v(10), v(4), s(6..8)); // B[k0 + ty, col]
    t.v_add_u32(&mut b, v(3), 4 * tile, v(3)); // next A tile: 16 columns on
    t.v_add_u32(&mut b, v(4), s(16), v(4)); // next B tile: 16 rows down
    t.wait_vmem_loads(&mut b);
    t.ds_store_b32(&mut b, v(5), v(9)); // As[ty][tx]
    b.mods([offset(LDS_B)]);
    t.ds_store_b32(&mut b, v(5), v(10)); // Bs[ty][tx]
    t.wait_lds(&mut b);
    t.barrier(&mut b);
    for j in 0..tile / 4 {
        // As[ty][4j..4j+4]
        let dst = v(16 + 4 * j..16 + 4 * j + 4);
        if j != 0 {
            b.mods([offset(16 * j)]);
        }
        t.ds_load(&mut b, dst, v(6));
    }
    for k in 0..tile {
        // Bs[k][tx]
        b.mods([offset(LDS_B + 4 * tile * k)]);
        t.ds_load(&mut b, v(32 + k), v(7));
    }
    t.wait_lds(&mut b);
    for k in 0..tile {
        b.v_fmac_f32(v(8), v(16 + k), v(32 + k)); // acc += As[ty][k] * Bs[k][tx]
    }
    t.barrier(&mut b); // everyone has read the tiles before the next step overwrites them
    t.s_add_i32(&mut b, s(13), s(13), -1);
    b.s_cmp_lg_u32(s(13), 0).s_cbranch_scc1(top);

    // Epilogue: C[row, col] = acc.
    b.bind(store).v_mul_lo_u32(v(3), v(11), s(11)); // row*N
    t.v_add_u32(&mut b, v(3), v(3), v(12)); // + col
    b.v_lshlrev_b32(v(3), 2, v(3)); // bytes
    t.global_store_b32(&mut b, v(3), v(8), s(8..10));
    b.s_endpgm();
    b.finish()?;
    Ok(b)
}

/// The matmul as a code-object kernel.
pub fn matmul_kernel(arch: Arch) -> Result<Kernel, KernelError> {
    let b = matmul_builder(arch)?;
    let mut k = matmul_skeleton(arch);
    k.code = b.finish()?;
    apply_usage(arch, &mut k, &b);
    Ok(k)
}

/// A code object holding the matmul kernel ([`MATMUL_NAME`]).
pub fn matmul_code_object(arch: Arch) -> Result<Vec<u8>, KernelError> {
    Ok(write_code_object(arch, &[matmul_kernel(arch)?])?)
}

fn vector_add_skeleton(arch: Arch) -> Kernel {
    let mut k = Kernel::new(arch, VECTOR_ADD_NAME, Vec::new()).with_args(vec![
        KernelArg::global_buffer("A", 0).with_type_name("float*").with_const(true),
        KernelArg::global_buffer("B", 8).with_type_name("float*").with_const(true),
        KernelArg::global_buffer("C", 16).with_type_name("float*"),
        KernelArg::by_value("n", 24, 4).with_type_name("uint"),
    ]);
    k.resources.workgroup_id = [true, false, false];
    k.resources.workitem_id_dims = 1;
    k.reqd_workgroup_size = Some([VECTOR_ADD_BLOCK, 1, 1]);
    k.max_flat_workgroup_size = VECTOR_ADD_BLOCK;
    k
}

/// The vector add's instructions.
pub fn vector_add_builder(arch: Arch) -> Result<Builder, KernelError> {
    let t = Target::new(arch);
    let skel = vector_add_skeleton(arch);
    let mut b = Builder::new(arch);
    b.tracker_mut().reserve_sgprs(initialised_sgprs(arch, &skel));
    b.tracker_mut().reserve_vgprs(1);
    t.s_load(&mut b, s(4..8), s(0..2), 0); // A, B
    t.s_load(&mut b, s(8..10), s(0..2), 16); // C
    t.s_load(&mut b, s(10), s(0..2), 24); // n
    let (wg_x, _) = t.workgroup_ids(&mut b, skel.user_sgpr_count(arch), s(14), s(15));
    b.v_and_b32(v(1), 0x3ff, v(0)) // tx
        .s_lshl_b32(s(11), wg_x, 8); // gx*256
    t.v_add_u32(&mut b, v(1), s(11), v(1)); // i
    t.wait_smem(&mut b);
    let end = b.label("end");
    b.v_cmp_gt_u32(t.vcc(), s(10), v(1)); // i < n
    t.s_and_saveexec(&mut b, 12, t.vcc());
    b.s_cbranch_execz(end).v_lshlrev_b32(v(1), 2, v(1)); // bytes
    t.global_load_b32(&mut b, v(2), v(1), s(4..6));
    t.global_load_b32(&mut b, v(3), v(1), s(6..8));
    t.wait_vmem_loads(&mut b);
    b.v_add_f32(v(2), v(2), v(3));
    t.global_store_b32(&mut b, v(1), v(2), s(8..10));
    b.bind(end).s_endpgm();
    b.finish()?;
    Ok(b)
}

/// The vector add as a code-object kernel.
pub fn vector_add_kernel(arch: Arch) -> Result<Kernel, KernelError> {
    let b = vector_add_builder(arch)?;
    let mut k = vector_add_skeleton(arch);
    k.code = b.finish()?;
    apply_usage(arch, &mut k, &b);
    Ok(k)
}

/// A code object holding the vector-add kernel ([`VECTOR_ADD_NAME`]).
pub fn vector_add_code_object(arch: Arch) -> Result<Vec<u8>, KernelError> {
    Ok(write_code_object(arch, &[vector_add_kernel(arch)?])?)
}
