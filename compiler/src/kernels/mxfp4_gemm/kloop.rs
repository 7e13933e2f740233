//! The loop over K: four K steps per trip, loads of the next step interleaved with the MFMAs of
//! this one.
//!
//! Step `s` (128 elements of K) reads its A and B fragments from data buffer `s % 2` and its
//! scales from scale buffer `(s / 2) % 2` (one scale dword covers two steps: byte bit 1 is the
//! step's parity). While its MFMAs run it loads step `s + 1` into the other data buffer, and on
//! odd steps the next pair's scales into the other scale buffer; the next step's offsets come in
//! `soffset` SGPRs (or step base pointers, [`Mem::Global`]), clamped to the last step so that the loads after the last step re-read it
//! instead of leaving the buffers. Four steps a trip make every buffer index static; the exit test
//! after each step allows any number of steps.

use crate::isa::builder::{blgp, cbsz, lgkmcnt, op_sel, op_sel_hi, s, vmcnt, Builder, Ctors, Label};

use super::memory::{self, Mem, Src};

use super::tile::*;

/// One load of the next step.
#[derive(Debug, Clone, Copy)]
enum Load {
    A(u32),
    /// [`Mem::Lds`]: the wave's `q`-th share of the workgroup's A, to the LDS.
    LdsA(u32),
    B(u32),
    ScaleA(u32),
    ScaleB(u32),
}

fn emit_load(b: &mut Builder, p: &Plan, l: Load, buf: u32, sbuf: u32) {
    let (src, dst, offset) = match l {
        Load::LdsA(q) => return memory::load_a_to_lds(b, p.addr_a(q), buf * p.lds_step_bytes() + q * 4096),
        Load::A(i) => (Src::A, p.frag_a(buf, i), p.addr_a(i)),
        Load::B(j) => (Src::B, p.frag_b(buf, j), p.addr_b(j)),
        Load::ScaleA(t) => (Src::ScaleA, p.scale_a(sbuf, t), p.addr_sa(t)),
        Load::ScaleB(t) => (Src::ScaleB, p.scale_b(sbuf, t), p.addr_sb(t)),
    };
    memory::load(b, p.mem, src, dst, offset);
}

/// The loads of one step: fragments, and with `scales` the next pair's scale dwords.
fn step_loads(p: &Plan, scales: bool) -> Vec<Load> {
    let a: Vec<Load> =
        if p.mem == Mem::Lds { (0..p.lds_loads()).map(Load::LdsA).collect() } else { (0..p.fa).map(Load::A).collect() };
    let mut v: Vec<Load> = a.into_iter().chain((0..p.fb).map(Load::B)).collect();
    if scales {
        v.extend((0..p.fa / 2).map(Load::ScaleA).chain((0..p.fb / 2).map(Load::ScaleB)));
    }
    v
}

/// Loads step 0 and the scales of steps 0 and 1 (buffers 0).
pub fn emit_first_loads(b: &mut Builder, p: &Plan) {
    b.s_mov_b32(s(S_OFF_A), 0).s_mov_b32(s(S_OFF_B), 0).s_mov_b32(s(S_OFF_S), 0).s_mov_b32(s(S_STEP), 0);
    memory::step_bases(b, p.mem, true);
    for l in step_loads(p, true) {
        emit_load(b, p, l, 0, 0);
    }
}

/// The MFMA format code of FP4 E2M1 in `cbsz` (the first source) and `blgp` (the second).
const FORMAT_FP4: u8 = 4;

/// The loop. Leaves through `done` when every step is done.
pub fn emit(b: &mut Builder, p: &Plan, done: Label) {
    let top = b.here("k_loop");
    for q in 0..4 {
        emit_step(b, p, q, done);
    }
    b.s_branch(top);
}

fn emit_step(b: &mut Builder, p: &Plan, q: u32, done: Label) {
    let (buf, sbuf, parity) = (q % 2, q / 2, (q % 2) as u8);
    b.s_waitcnt(vmcnt(0));
    if p.mem == Mem::Lds {
        // Every wave's share of this step's A is in the LDS, and every wave is done reading the
        // other LDS buffer (its previous step), which this step's loads overwrite.
        b.s_barrier();
        for i in 0..p.fa {
            b.mods([crate::isa::builder::offset(i64::from(buf * p.lds_step_bytes() + i * 1024))])
                .ds_read_b128(p.frag_a(buf, i), p.lds_read());
        }
        b.s_waitcnt(lgkmcnt(0));
    }
    // Offsets of step s + 1 (clamped): A 64 bytes a step, B 1 KiB (16 rows), scales 256 a pair.
    b.s_add_u32(s(S_NEXT), s(S_STEP), 1)
        .s_min_u32(s(S_NEXT), s(S_NEXT), s(S_LAST))
        .s_lshl_b32(s(S_OFF_A), s(S_NEXT), 6)
        .s_lshl_b32(s(S_OFF_B), s(S_NEXT), 10);
    if parity == 1 {
        b.s_lshr_b32(s(S_OFF_S), s(S_NEXT), 1).s_lshl_b32(s(S_OFF_S), s(S_OFF_S), 8);
    }
    memory::step_bases(b, p.mem, parity == 1);
    let loads = step_loads(p, parity == 1);
    let mut next = loads.iter();
    for i in 0..p.fa {
        for j in 0..p.fb {
            // src0 = B fragment (rows of the product = columns of C), src1 = A fragment: the
            // lane's four results are four consecutive columns of one row of C.
            b.mods([
                cbsz(FORMAT_FP4),
                blgp(FORMAT_FP4),
                op_sel(&[(j % 2) as u8, (i % 2) as u8, 0]),
                op_sel_hi(&[parity, parity, 0]),
            ])
            .v_mfma_scale_f32_16x16x128_f8f6f4(
                p.acc(i, j),
                p.frag_b(buf, j),
                p.frag_a(buf, i),
                p.acc(i, j),
                p.scale_b(sbuf, j / 2),
                p.scale_a(sbuf, i / 2),
            );
            if let Some(&l) = next.next() {
                emit_load(b, p, l, 1 - buf, 1 - sbuf);
            }
        }
    }
    for &l in next {
        emit_load(b, p, l, 1 - buf, 1 - sbuf);
    }
    b.s_add_u32(s(S_STEP), s(S_STEP), 1).s_cmp_ge_u32(s(S_STEP), s(S_STEPS)).s_cbranch_scc1(done);
}
