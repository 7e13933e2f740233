//! The builder's reference workload, shared by `examples/builder_speed.rs` and `baregpu bench
//! asm`: a tiled GEMM loop body (global loads, LDS stores and loads with offsets, FMAs, an
//! inline constant and a literal, an SGPR source that forces VOP3, a compare, the scalar
//! counter and a backward branch), 64 instructions per step, in each architecture's spelling.

use super::*;
use crate::Arch;

/// The builder's speed goal, instructions per second built and encoded (issue 12).
pub const GOAL: f64 = 20e6;

/// Builds `steps` loop bodies and `s_endpgm`, and finishes (branches patched, bytes written).
/// Returns the instruction count and the code.
pub fn gemm_loop(arch: Arch, steps: usize) -> Result<(usize, Vec<u8>)> {
    let mut b = Builder::new(arch);
    b.reserve(steps * 64 + 1);
    for _ in 0..steps {
        let top = b.here("top");
        match arch {
            Arch::Gfx942 | Arch::Gfx950 => cdna_step(&mut b, top),
            _ => rdna_step(&mut b, top, arch == Arch::Gfx1201),
        }
    }
    b.s_endpgm();
    let code = b.finish()?;
    Ok((b.len(), code))
}

fn rdna_step(b: &mut Builder, top: Label, gfx12: bool) {
    b.global_load_b32(v(9), v(3), s(4..6)).global_load_b32(v(10), v(4), s(6..8));
    b.v_add_nc_u32(v(3), 64, v(3)).v_add_nc_u32(v(4), s(16), v(4));
    if gfx12 {
        b.s_wait_loadcnt(0);
    } else {
        b.s_waitcnt(vmcnt(0));
    }
    b.ds_store_b32(v(5), v(9)).mods([offset(1024)]).ds_store_b32(v(5), v(10));
    for j in 0..4 {
        b.mods([offset(16 * j)]).ds_load_b128(v(16 + 4 * j..20 + 4 * j), v(6));
    }
    for k in 0..16 {
        b.mods([offset(1024 + 64 * k)]).ds_load_b32(v(32 + k), v(7));
    }
    for k in 0..16 {
        b.v_fmac_f32(v(8), v(16 + k), v(32 + k));
    }
    for k in 0..8 {
        b.v_mul_f32(v(48 + k), 0.5f32, v(16 + k)).v_add_f32(v(56 + k), v(48 + k), s(20 + k));
    }
    b.v_mov_b32(v(1), 0x1234_5678).v_cmp_gt_u32(vcc_lo(), s(4), v(1));
    if gfx12 {
        b.s_add_co_i32(s(13), s(13), -1);
    } else {
        b.s_add_i32(s(13), s(13), -1);
    }
    b.s_cmp_lg_u32(s(13), 0).s_cbranch_scc1(top);
}

fn cdna_step(b: &mut Builder, top: Label) {
    b.global_load_dword(v(9), v(3), s(4..6)).global_load_dword(v(10), v(4), s(6..8));
    b.v_add_u32(v(3), 64, v(3)).v_add_u32(v(4), s(16), v(4));
    b.s_waitcnt(vmcnt(0));
    b.ds_write_b32(v(5), v(9)).mods([offset(1024)]).ds_write_b32(v(5), v(10));
    for j in 0..4 {
        b.mods([offset(16 * j)]).ds_read_b128(v(16 + 4 * j..20 + 4 * j), v(6));
    }
    for k in 0..16 {
        b.mods([offset(1024 + 64 * k)]).ds_read_b32(v(32 + k), v(7));
    }
    for k in 0..16 {
        b.v_fmac_f32(v(8), v(16 + k), v(32 + k));
    }
    for k in 0..8 {
        b.v_mul_f32(v(48 + k), 0.5f32, v(16 + k)).v_add_f32(v(56 + k), v(48 + k), s(20 + k));
    }
    b.v_mov_b32(v(1), 0x1234_5678).v_cmp_gt_u32(vcc(), s(4), v(1));
    b.s_add_i32(s(13), s(13), -1).s_cmp_lg_u32(s(13), 0).s_cbranch_scc1(top);
}
