//! A matmul kernel ([`Kernel::matmul`]) as a tiled kernel: workgroup `g` computes a [`TM`] x
//! [`TN`] tile of C for one batch index; each of its 64 lanes accumulates a [`RM`] x [`RN`] block
//! in registers. Per step of [`TK`] along k the workgroup stages the A tile and the B tile in LDS,
//! both k-major, so a lane reads its 4 rows of A and 4 columns of B at one k with one 16-byte
//! load each:
//!
//! ```text
//!   LDS:  As[TK][TM] f32 at 0, Bs[TK][TN] f32 at B_OFF
//!   staging: lane L writes element L + 64 j (j < 8) of each tile: A row (L & 31), k = L/32 + 2j;
//!            each element is the factor's cone (its loads and prologue) at that (m, k), rows
//!            past M clamped (never stored), k past K made 0 (only in the last, partial step)
//!   compute: lane L = (ti, tj) = (L / 8, L % 8): acc[i][j] += As[k][4 ti + i] * Bs[k][4 tj + j]
//! ```
//!
//! The factors' values that do not depend on k (a row's base address, a per-row prologue) are
//! computed once per lane before the loop. The epilogue runs the kernel's post region per element
//! of the lane's block, lanes outside C masked off.

use crate::isa::builder::{exec, exec_lo, offset, s, v, Ctors, Operand, Reg};

use super::super::error::GraphError;
use super::super::ir::{Inst, Kernel, Matmul, Region, TileAxis, Val};
use super::regs::Home;
use super::{codegen, Lower, BLOCK};

/// Rows and columns of C per workgroup, k per step, and rows and columns per lane.
pub const TM: u32 = 32;
pub const TN: u32 = 32;
pub const TK: u32 = 16;
const RM: u32 = 4;
const RN: u32 = 4;
/// Byte offset of the B tile in LDS, and LDS bytes in all.
const B_OFF: u32 = TK * TM * 4;
pub const LDS_BYTES: u32 = B_OFF + TK * TN * 4;
/// Tile elements each lane stages per step (of A, and of B).
const PER_LANE: u32 = TK * TM / BLOCK;
/// k between two elements one lane stages.
const K_STRIDE: u32 = BLOCK / TM;
/// k values whose fragments are loaded together (one LDS wait each group).
const GROUP: u32 = 4;

/// Fixed VGPRs: the accumulators, then the fragments of a group of k, then the lane's indices.
const ACC: u32 = 12;
const FRAG: u32 = ACC + RM * RN;
const AM: u32 = FRAG + GROUP * (RM + RN);
const BN: u32 = AM + 1;
const KB: u32 = AM + 2;
const KJ: u32 = AM + 3;
const RA: u32 = AM + 4;
const RB: u32 = AM + 5;
const EM: u32 = AM + 6;
const EN: u32 = AM + 7;
const MI: u32 = AM + 8;
const NJ: u32 = AM + 9;
/// The first VGPR the allocator hands out in a matmul kernel.
pub const FIRST_FREE_VGPR: u32 = AM + 10;

/// Workgroups of a matmul kernel.
pub fn groups(mm: &Matmul) -> u32 {
    mm.batch * mm.m.div_ceil(TM) * mm.n.div_ceil(TN)
}

/// The SGPRs of a matmul kernel: batch index, first row and column of the tile, steps left.
struct Scalars {
    batch: u32,
    m0: u32,
    n0: u32,
    count: u32,
}

impl Lower<'_> {
    fn take_sgpr(&mut self) -> Result<u32, GraphError> {
        self.sp.take().ok_or_else(|| codegen(self.k, "out of SGPRs"))
    }

    /// The tiled matmul (after the pointers are loaded and the workgroup id is in `f.wg`).
    pub(super) fn matmul_body(&mut self, mm: Matmul) -> Result<(), GraphError> {
        let k_len = self.k.reduce.map_or(0, |r| r.len);
        let sc = Scalars {
            batch: self.take_sgpr()?,
            m0: self.take_sgpr()?,
            n0: self.take_sgpr()?,
            count: self.take_sgpr()?,
        };
        self.tile_origin(&mm, &sc);
        self.lane_indices(&mm, &sc);
        self.t.wait_smem(&mut self.b);
        // The factors' values that do not depend on k, once per lane.
        let tile = |k: &Kernel, axis| k.insts.iter().position(|i| *i == Inst::Tile(axis));
        let (tm, tn, tb, tk) = (
            tile(self.k, TileAxis::M),
            tile(self.k, TileAxis::N),
            tile(self.k, TileAxis::Batch),
            tile(self.k, TileAxis::K),
        );
        for (t, home) in [(tm, Home::Vgpr(AM)), (tn, Home::Vgpr(BN)), (tb, Home::Sgpr(sc.batch))] {
            if let Some(t) = t {
                self.home[t] = home;
            }
        }
        let frontier = self.pre_frontier(&[mm.a, mm.b]);
        let pre = self.k.cone(&frontier, &[]);
        self.emit_cone(&pre, &frontier)?;
        let mut have = vec![false; self.k.insts.len()];
        pre.iter().for_each(|&v| have[v] = true);
        // The loop over full steps, then the partial one.
        let full = k_len / TK;
        if full > 0 {
            self.b.s_mov_b32(s(sc.count), Operand::Int(full as i64));
            let top = self.b.here("k_step");
            self.step(&mm, tk, &have, None)?;
            self.t.s_add_i32(&mut self.b, s(sc.count), s(sc.count), -1);
            self.b.s_cmp_lg_u32(s(sc.count), 0).s_cbranch_scc1(top);
        }
        if !k_len.is_multiple_of(TK) {
            self.step(&mm, tk, &have, Some(k_len))?;
        }
        for v in frontier {
            self.release(v);
        }
        self.mm_epilogue(&mm, tm, tn)
    }

    /// Batch index and the tile's first row and column from the workgroup id (n fastest).
    fn tile_origin(&mut self, mm: &Matmul, sc: &Scalars) {
        let (tiles_m, tiles_n) = (mm.m.div_ceil(TM), mm.n.div_ceil(TN));
        let (wg, t) = (s(self.f.wg), s(self.f.tmp));
        // n0 = wg % tiles_n; q = wg / tiles_n (in batch); m0 = q % tiles_m; batch = q / tiles_m.
        self.s_divmod(s(sc.batch), s(sc.n0), wg, tiles_n);
        self.s_divmod(t, s(sc.m0), s(sc.batch), tiles_m);
        self.b.s_mov_b32(s(sc.batch), t);
        self.b.s_lshl_b32(s(sc.m0), s(sc.m0), TM.trailing_zeros() as i32);
        self.b.s_lshl_b32(s(sc.n0), s(sc.n0), TN.trailing_zeros() as i32);
    }

    /// `q = x / n`, `r = x % n` for a constant `n` (x below 2^31; three distinct SGPRs).
    fn s_divmod(&mut self, q: Reg, r: Reg, x: Reg, n: u32) {
        if n == 1 {
            self.b.s_mov_b32(r, 0).s_mov_b32(q, x);
            return;
        }
        if n.is_power_of_two() {
            self.b.s_and_b32(r, Operand::Int(n as i64 - 1), x).s_lshr_b32(q, x, n.trailing_zeros() as i32);
            return;
        }
        let (m, sh) = Self::magic(n);
        self.b.s_mul_hi_u32(q, x, Operand::Int(m as i64)).s_lshr_b32(q, q, sh as i32);
        self.b.s_mul_i32(r, q, Operand::Int(n as i64));
        self.s_sub_u32(r, x.into(), r.into());
    }

    /// Per lane: the staged row and column (clamped into C), the first staged k, the LDS
    /// addresses, the block's first row and column, and zeroed accumulators.
    fn lane_indices(&mut self, mm: &Matmul, sc: &Scalars) {
        let (t, lane, tmp) = (self.t, v(self.f.lane), v(self.f.vt[0]));
        self.b.v_and_b32(tmp, Operand::Int(TM as i64 - 1), lane);
        t.v_add_u32(&mut self.b, v(AM), s(sc.m0), tmp);
        t.v_add_u32(&mut self.b, v(BN), s(sc.n0), tmp);
        for (r, n, edge) in [(AM, mm.m, TM), (BN, mm.n, TN)] {
            if !n.is_multiple_of(edge) {
                let last = self.literal_operand(n - 1, 1);
                self.b.v_min_u32(v(r), last, v(r));
            }
        }
        self.b.v_lshrrev_b32(v(KB), TM.trailing_zeros() as i32, lane);
        self.b.v_lshlrev_b32(v(self.f.laddr), 2, lane);
        // (ti, tj) = (lane / 8, lane % 8): LDS bytes 16 ti and 16 tj, rows 4 ti, columns 4 tj.
        let per_row = TN / RN;
        self.b.v_lshrrev_b32(tmp, per_row.trailing_zeros() as i32, lane);
        self.b.v_lshlrev_b32(v(RA), 4, tmp);
        self.b.v_lshl_add_u32(v(EM), tmp, RM.trailing_zeros() as i32, s(sc.m0));
        self.b.v_and_b32(tmp, Operand::Int(per_row as i64 - 1), lane);
        self.b.v_lshlrev_b32(v(RB), 4, tmp);
        self.b.v_lshl_add_u32(v(EN), tmp, RN.trailing_zeros() as i32, s(sc.n0));
        for i in 0..RM * RN {
            self.b.v_mov_b32(v(ACC + i), 0);
        }
    }

    /// The values of `roots`' cones that do not depend on k and that a k-dependent value (or a
    /// root) reads: what the loop needs from before it.
    fn pre_frontier(&self, roots: &[Val]) -> Vec<Val> {
        let k = self.k;
        let cone = k.cone(roots, &[]);
        let mut out: Vec<Val> = roots.iter().copied().filter(|&r| k.region[r] == Region::Pre).collect();
        for &v in cone.iter().filter(|&&v| k.region[v] == Region::Body) {
            out.extend(Kernel::operands(&k.insts[v]).into_iter().filter(|&o| k.region[o] == Region::Pre));
        }
        out.retain(|&v| !matches!(k.insts[v], Inst::Const(..) | Inst::Tile(_)));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Emits `vals` (program order) and frees each register after its last reader among them,
    /// except `keep`'s and those of values computed before.
    pub(super) fn emit_cone(&mut self, vals: &[Val], keep: &[Val]) -> Result<(), GraphError> {
        self.addr_of = None;
        let mut last = vec![usize::MAX; self.k.insts.len()];
        for (i, &x) in vals.iter().enumerate() {
            last[x] = i;
        }
        for (i, &x) in vals.iter().enumerate() {
            for o in Kernel::operands(&self.k.insts[x]) {
                if last[o] != usize::MAX {
                    last[o] = last[o].max(i);
                }
            }
        }
        for (i, &x) in vals.iter().enumerate() {
            self.place(x)?;
            self.inst(x)?;
            let mut dying = Kernel::operands(&self.k.insts[x]);
            dying.push(x);
            dying.sort_unstable();
            dying.dedup();
            for o in dying {
                if last[o] == i && !keep.contains(&o) {
                    self.release(o);
                }
            }
        }
        Ok(())
    }

    /// One step of `TK` along k: stage both tiles, then accumulate. `partial`: the k length,
    /// for the last step that runs past it (k clamped, elements past it made 0).
    fn step(&mut self, mm: &Matmul, tk: Option<Val>, have: &[bool], partial: Option<u32>) -> Result<(), GraphError> {
        let t = self.t;
        let mut staged: Vec<Reg> = Vec::new();
        for factor in [mm.a, mm.b] {
            for j in 0..PER_LANE {
                let kj = self.element_k(j, partial);
                if let Some(tk) = tk {
                    self.home[tk] = Home::Vgpr(kj);
                }
                let body = self.k.cone(&[factor], have);
                self.emit_cone(&body, &[factor])?;
                let owned = self.k.region[factor] == Region::Body;
                let mut r = self.in_vgpr(self.operand(factor), v(self.f.vt[0]));
                if !owned || r == v(self.f.vt[0]) {
                    // A value shared by every element (or a constant): a register of its own.
                    let own = v(self.vp.take().ok_or_else(|| codegen(self.k, "out of VGPRs"))?);
                    // The copy reads `r`, which may be a load still in flight.
                    self.wait_loads();
                    self.b.v_mov_b32(own, r);
                    r = own;
                }
                if let Some(len) = partial {
                    // kb + 2j < len, signed: len - 2j may be negative.
                    self.wait_loads();
                    let len = self.literal_operand((len as i32 - (K_STRIDE * j) as i32) as u32, 1);
                    let vcc = self.vcc();
                    self.b.v_cmp_gt_i32(vcc, len, v(KB));
                    self.b.v_cndmask_b32(r, 0, r, vcc);
                }
                staged.push(r);
            }
        }
        self.wait_loads();
        for (i, &r) in staged.iter().enumerate() {
            let (j, base) = (i as u32 % PER_LANE, if (i as u32) < PER_LANE { 0 } else { B_OFF });
            let off = base + 4 * BLOCK * j;
            if off != 0 {
                self.b.mods([offset(off as i64)]);
            }
            t.ds_store_b32(&mut self.b, v(self.f.laddr), r);
        }
        for r in staged {
            self.vp.give(r.first as u32);
        }
        t.wait_lds(&mut self.b);
        t.barrier(&mut self.b);
        self.accumulate();
        t.barrier(&mut self.b);
        t.v_add_u32(&mut self.b, v(KB), Operand::Int(TK as i64), v(KB));
        match self.b.error() {
            Some(e) => Err(codegen(self.k, e.to_string())),
            None => Ok(()),
        }
    }

    /// The VGPR holding element `j`'s k this step (clamped below `partial`).
    fn element_k(&mut self, j: u32, partial: Option<u32>) -> u32 {
        match partial {
            None if j == 0 => KB,
            None => {
                self.t.v_add_u32(&mut self.b, v(KJ), Operand::Int((K_STRIDE * j) as i64), v(KB));
                KJ
            }
            Some(len) => {
                self.t.v_add_u32(&mut self.b, v(KJ), Operand::Int((K_STRIDE * j) as i64), v(KB));
                let last = self.literal_operand(len - 1, 1);
                self.b.v_min_u32(v(KJ), last, v(KJ));
                KJ
            }
        }
    }

    /// `acc += As[k][rows] * Bs[k][columns]` for the step's k, a group of k per LDS wait.
    fn accumulate(&mut self) {
        let t = self.t;
        for g in 0..TK / GROUP {
            for q in 0..GROUP {
                let kk = g * GROUP + q;
                let fa = FRAG + q * (RM + RN);
                self.b.mods([offset((kk * TM * 4) as i64)]);
                t.ds_load(&mut self.b, v(fa..fa + RM), v(RA));
                self.b.mods([offset((B_OFF + kk * TN * 4) as i64)]);
                t.ds_load(&mut self.b, v(fa + RM..fa + RM + RN), v(RB));
            }
            t.wait_lds(&mut self.b);
            for q in 0..GROUP {
                let fa = FRAG + q * (RM + RN);
                for i in 0..RM {
                    for j in 0..RN {
                        self.b.v_fmac_f32(v(ACC + i * RN + j), v(fa + i), v(fa + RM + j));
                    }
                }
            }
        }
    }

    /// The post region per element of the lane's block, lanes outside C masked off.
    fn mm_epilogue(&mut self, mm: &Matmul, tm: Option<Val>, tn: Option<Val>) -> Result<(), GraphError> {
        let t = self.t;
        let store = (0..self.k.insts.len()).rev().find(|&x| matches!(self.k.insts[x], Inst::Store { .. }));
        let store = store.ok_or_else(|| codegen(self.k, "a kernel without a store"))?;
        let acc = self.k.insts.iter().position(|i| *i == Inst::Acc);
        let cone = self.k.cone(&[store], &[]);
        let masked = !mm.m.is_multiple_of(TM) || !mm.n.is_multiple_of(TN);
        let exec_reg: Operand = if self.wave64 { exec().into() } else { exec_lo().into() };
        for i in 0..RM {
            t.v_add_u32(&mut self.b, v(MI), Operand::Int(i as i64), v(EM));
            for j in 0..RN {
                t.v_add_u32(&mut self.b, v(NJ), Operand::Int(j as i64), v(EN));
                let skip = masked.then(|| self.b.label("skip"));
                if let Some(skip) = skip {
                    let vcc = self.vcc();
                    self.b.v_cmp_gt_u32(vcc, Operand::Int(mm.m as i64), v(MI));
                    self.and_exec_vcc(skip);
                    self.b.v_cmp_gt_u32(vcc, Operand::Int(mm.n as i64), v(NJ));
                    if self.wave64 {
                        self.b.s_and_b64(exec(), exec(), vcc);
                    } else {
                        self.b.s_and_b32(exec_lo(), exec_lo(), vcc);
                    }
                    self.b.s_cbranch_execz(skip);
                }
                for (x, r) in [(tm, MI), (tn, NJ)] {
                    if let Some(x) = x {
                        self.home[x] = Home::Vgpr(r);
                    }
                }
                if let Some(a) = acc {
                    self.home[a] = Home::Vgpr(ACC + i * RN + j);
                }
                self.emit_cone(&cone, &[])?;
                if let Some(skip) = skip {
                    self.b.bind(skip);
                    let save = self.mask_reg(self.f.save);
                    self.mov_mask(exec_reg, save);
                }
            }
        }
        Ok(())
    }
}
