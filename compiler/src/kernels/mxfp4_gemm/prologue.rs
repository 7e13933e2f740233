//! The prologue: arguments, wave position, buffer descriptors, per-lane load addresses, and the
//! accumulators cleared.

use crate::isa::builder::{lgkmcnt, s, v, Builder, Ctors};

use super::memory::Mem;
use super::tile::*;

/// dword 3 of a buffer descriptor on gfx9: DATA_FORMAT = 32 bits (4) in bits 18:15, the value the
/// reference kernel uses for its raw (untyped, `offen`) buffers.
const RSRC_WORD3: u32 = 0x0002_0000;

/// Loads the arguments and sets up everything the K loop needs.
pub fn emit(b: &mut Builder, p: &Plan) {
    let t = p.tile;
    let k = s(S_KERNARG..S_KERNARG + 2);
    b.s_load_dwordx8(s_args(), k, 0) // C, A, B, scale A
        .s_load_dwordx4(s_args2(), k, 32) // scale B, M, N
        .s_load_dword(s(S_K), k, 48);
    // Lane, lane % 16, 16 * (lane / 16), wave.
    b.v_and_b32(v(1), 63, v(0))
        .v_and_b32(v(2), 15, v(1))
        .v_and_b32(v(3), 0x30, v(1))
        .v_readfirstlane_b32(s(S_WAVE), v(0))
        .s_lshr_b32(s(S_WAVE), s(S_WAVE), 6);
    // First row and column of the wave: tile origin plus (wave / 2, wave % 2) parts.
    let (t0, t1) = (s(S_T), s(S_T + 1));
    b.s_lshr_b32(t0, s(S_WAVE), 1)
        .s_mul_i32(t0, t0, t.wave_m())
        .s_mul_i32(t1, s(S_WG_Y), t.m())
        .s_add_u32(s(S_ROW0), t0, t1)
        .s_and_b32(t0, s(S_WAVE), 1)
        .s_mul_i32(t0, t0, t.wave_n())
        .s_mul_i32(t1, s(S_WG_X), t.n())
        .s_add_u32(s(S_COL0), t0, t1);
    b.s_waitcnt(lgkmcnt(0));
    b.s_lshr_b32(s(S_KB), s(S_K), 1) // K/2: bytes a row
        .s_add_u32(t0, s(S_K), 255) // scale row-tile stride: ceil(K/256) tiles of 256 bytes
        .s_lshr_b32(t0, t0, 8)
        .s_lshl_b32(s(S_SSTRIDE), t0, 8)
        .s_lshr_b32(s(S_STEPS), s(S_K), 7)
        .s_sub_u32(s(S_LAST), s(S_STEPS), 1);
    if p.mem != Mem::Global {
        descriptors(b);
    }
    addresses(b, p);
}

/// One raw buffer descriptor: base from `ptr` (2 SGPRs), `num_records` bytes already in
/// `rsrc + 2`.
fn descriptor(b: &mut Builder, rsrc: u32, ptr: u32) {
    b.s_mov_b32(s(rsrc), s(ptr))
        .s_and_b32(s(rsrc + 1), s(ptr + 1), 0xffff) // stride 0, no swizzle
        .s_mov_b32(s(rsrc + 3), RSRC_WORD3);
}

/// The five descriptors, each covering exactly its buffer (the host's sizes).
fn descriptors(b: &mut Builder) {
    let (t0, t1) = (s(S_T), s(S_T + 1));
    b.s_mul_i32(s(R_A + 2), s(S_M), s(S_KB)) // A: M rows of K/2
        .s_add_u32(t0, s(S_N), 15) // B: N rows padded to 16
        .s_and_b32(t0, t0, -16)
        .s_mul_i32(s(R_B + 2), t0, s(S_KB))
        .s_add_u32(t0, s(S_M), 31) // scales: 32-row tiles
        .s_lshr_b32(t0, t0, 5)
        .s_mul_i32(s(R_SA + 2), t0, s(S_SSTRIDE))
        .s_add_u32(t0, s(S_N), 31)
        .s_lshr_b32(t0, t0, 5)
        .s_mul_i32(s(R_SB + 2), t0, s(S_SSTRIDE))
        .s_mul_i32(t1, s(S_M), s(S_N)) // C: M x N bf16
        .s_lshl_b32(s(R_C + 2), t1, 1);
    for (rsrc, ptr) in [(R_A, S_A), (R_B, S_B), (R_SA, S_SA), (R_SB, S_SB), (R_C, 4)] {
        descriptor(b, rsrc, ptr);
    }
}

/// The lane's load address of each fragment and scale tile for step 0; rows past the matrix are
/// clamped to its last row (or 16-row block, or 32-row scale tile), so every load stays inside
/// its buffer and the rows computed from them are never stored.
fn addresses(b: &mut Builder, p: &Plan) {
    let (t0, t1, t2) = (s(S_T), s(S_T + 1), s(S_T + 2));
    let (row, lane16, lane4) = (p.temp(0), p.temp(1), p.temp(2));
    b.v_add_u32(row, s(S_ROW0), v(2)) // the lane's first row
        .s_sub_u32(t0, s(S_M), 1) // last row
        .v_lshlrev_b32(lane16, 4, v(1))
        .v_lshlrev_b32(lane4, 2, v(1));
    if p.mem == Mem::Lds {
        lds_addresses(b, p, lane16);
    }
    // A: direct, fragment i of the wave's rows; staged (Mem::Lds), the workgroup's fragment
    // 4q + wave.
    let (n, step) = if p.mem == Mem::Lds { (p.lds_loads(), 64) } else { (p.fa, 16) };
    for i in 0..n {
        let r = p.addr_a(i);
        b.v_add_u32(r, step * i, row).v_min_u32(r, t0, r).v_mul_lo_u32(r, r, s(S_KB)).v_add_u32(r, r, v(3));
    }
    // B: 16-row blocks of 16*K/2 bytes, lane at 16*lane.
    b.s_lshr_b32(t0, s(S_COL0), 4).s_add_u32(t1, s(S_N), 15).s_lshr_b32(t1, t1, 4).s_sub_u32(t1, t1, 1);
    for j in 0..p.fb {
        b.s_add_u32(t2, t0, j).s_min_u32(t2, t2, t1).s_mul_i32(t2, t2, s(S_KB)).s_lshl_b32(t2, t2, 4).v_add_u32(
            p.addr_b(j),
            t2,
            lane16,
        );
    }
    // Scales: 32-row tiles of `sstride` bytes, lane at 4*lane.
    for (first, rows, n, addr) in [(S_ROW0, S_M, p.fa / 2, 0u8), (S_COL0, S_N, p.fb / 2, 1)] {
        b.s_lshr_b32(t0, s(first), 5).s_add_u32(t1, s(rows), 31).s_lshr_b32(t1, t1, 5).s_sub_u32(t1, t1, 1);
        for tt in 0..n {
            let r = if addr == 0 { p.addr_sa(tt) } else { p.addr_sb(tt) };
            b.s_add_u32(t2, t0, tt).s_min_u32(t2, t2, t1).s_mul_i32(t2, t2, s(S_SSTRIDE)).v_add_u32(r, t2, lane4);
        }
    }
}

/// [`Mem::Lds`]: the first row this wave loads into the LDS (in `row`, replacing the first row of
/// its own fragments), its LDS write offset, and the lane's LDS read address.
fn lds_addresses(b: &mut Builder, p: &Plan, lane16: crate::isa::builder::Reg) {
    let t = p.tile;
    let (t3, t4) = (s(S_T + 3), s(S_T + 4));
    b.s_mul_i32(t3, s(S_WG_Y), t.m())
        .s_lshl_b32(t4, s(S_WAVE), 4) // 16 rows a wave
        .s_add_u32(t3, t3, t4)
        .v_add_u32(p.temp(0), t3, v(2))
        .s_lshl_b32(s(S_LDS_WAVE), s(S_WAVE), 10)
        .s_lshr_b32(t3, s(S_WAVE), 1) // the wave's fragments start at fragment (wave / 2) * fa
        .s_mul_i32(t3, t3, p.fa * 1024)
        .v_add_u32(p.lds_read(), t3, lane16);
}

/// Clears the accumulators.
pub fn clear_accumulators(b: &mut Builder, p: &Plan) {
    for k in 0..p.agprs() {
        b.v_accvgpr_write_b32(crate::isa::builder::a(k), 0);
    }
}
