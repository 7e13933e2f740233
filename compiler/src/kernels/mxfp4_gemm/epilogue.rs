//! The epilogue: accumulators to bf16 and out to C.
//!
//! Block (`i`, `j`) holds, in lane `l`, C[row0 + 16i + l%16][col0 + 16j + 4(l/16) + r] for
//! r = 0..4 (the MFMA's output layout with B as the first source). The four results become two
//! dwords of bf16 pairs (`v_cvt_pk_bf16_f32`, round to nearest even). A tile inside C stores
//! them with one `buffer_store_dwordx2` per block; a tile on an edge of C stores every bf16 alone
//! under an exec mask of `row < M && column < N` (the C descriptor's size is a second guard).

use crate::isa::builder::{exec, s, v, vcc, Builder, Ctors, Label};

use super::memory::{self, Store};

use super::tile::*;

/// Wait states between the last MFMA writing an accumulator and `v_accvgpr_read` of it (16 passes
/// of the 16x16x128 MFMA plus margin): three `s_nop 7`.
const MFMA_DRAIN_NOPS: u32 = 3;

pub fn emit(b: &mut Builder, p: &Plan, done: Label) {
    let t = p.tile;
    b.bind(done).s_waitcnt(crate::isa::builder::vmcnt(0));
    for _ in 0..MFMA_DRAIN_NOPS {
        b.s_nop(7);
    }
    // Edge tile: its last row or column is past C.
    let (t0, t1, t2) = (s(S_T), s(S_T + 1), s(S_T + 2));
    b.s_mul_i32(t0, s(S_WG_Y), t.m())
        .s_add_u32(t0, t0, t.m())
        .s_cmp_gt_u32(t0, s(S_M))
        .s_cselect_b32(t1, 1, 0)
        .s_mul_i32(t0, s(S_WG_X), t.n())
        .s_add_u32(t0, t0, t.n())
        .s_cmp_gt_u32(t0, s(S_N))
        .s_cselect_b32(t2, 1, 0)
        .s_or_b32(s(S_EDGE), t1, t2);
    let (row, col, room, mi, addr, lim) = (p.temp(4), p.temp(5), p.temp(6), p.temp(7), p.temp(40), p.temp(41));
    b.v_add_u32(row, s(S_ROW0), v(2)) // the lane's row in fragment 0
        .v_lshrrev_b32(col, 2, v(3)) // 4 * (lane / 16)
        .v_add_u32(col, s(S_COL0), col) // the lane's first column in block column 0
        .v_sub_u32(room, s(S_N), col); // columns left from there (negative: none)
    for i in 0..p.fa {
        b.v_add_u32(mi, 16 * i, row)
            .v_mul_lo_u32(addr, mi, s(S_N))
            .v_add_u32(addr, addr, col)
            .v_lshlrev_b32(addr, 1, addr);
        for j in 0..p.fb {
            let acc = p.acc(i, j);
            for r in 0..4 {
                b.v_accvgpr_read_b32(p.temp(r), acc.at(r as i64));
            }
            b.v_cvt_pk_bf16_f32(p.packed(j, 0), p.temp(0), p.temp(1)).v_cvt_pk_bf16_f32(
                p.packed(j, 1),
                p.temp(2),
                p.temp(3),
            );
        }
        let (edge, next) = (b.label("edge_rows"), b.label("next_rows"));
        b.s_cmp_eq_u32(s(S_EDGE), 0).s_cbranch_scc0(edge);
        for j in 0..p.fb {
            let pair = p.packed(j, 0);
            let data = v(pair.first..pair.first + 2);
            memory::store(b, p.mem, Store::X2, data, addr, 32 * j);
        }
        b.s_branch(next).bind(edge);
        // lim = row < M ? N - col : 0; element (j, r) is stored when 16j + r < lim.
        b.v_cmp_gt_u32(vcc(), s(S_M), mi).v_cndmask_b32(lim, 0, room, vcc());
        for j in 0..p.fb {
            for r in 0..4u32 {
                b.s_mov_b64(exec(), -1).v_cmpx_lt_i32([vcc().into(), (16 * j + r).into(), lim.into()]);
                let half = if r % 2 == 0 { Store::Lo16 } else { Store::Hi16 };
                memory::store(b, p.mem, half, p.packed(j, r / 2), addr, 32 * j + 2 * r);
            }
        }
        b.s_mov_b64(exec(), -1).bind(next);
    }
    b.s_endpgm();
}
