//! The loop IR a scheduled kernel is written in, before any target: SSA values in three regions.
//!
//! A kernel computes one output element per index `o` of `0..n_out`. With a reduction it runs,
//! per `o`, a loop over `r` in `0..len` (spread over the lanes of a workgroup and combined
//! through LDS by the lowering), and then its epilogue:
//!
//! ```text
//!   pre:   values of o alone (index math, loads hoisted out of the loop)
//!   body:  values of r (the reduction's operand: body_result)      -- only with a reduction
//!   post:  values after the loop (may read Acc), ending in Store
//! ```
//!
//! A matmul kernel ([`Kernel::matmul`]) has no `OutIdx` or `RedIdx`: its coordinates are
//! [`Inst::Tile`] values (batch, row, column, reduction index), so the lowering can evaluate the
//! two factors' cones per staged tile element and the epilogue per output element of a lane's
//! register block.
//!
//! Every instruction is put in the first region its operands allow, and identical instructions
//! are made once (the builder dedups them), so index math shared by several loads is computed
//! once and loop-invariant loads leave the loop.

use std::collections::HashMap;

use super::dtype::DType;
use super::ops::{BinaryOp, ReduceOp, UnaryOp};

/// A value: an index into [`Kernel::insts`].
pub type Val = usize;

/// Unsigned 32-bit index arithmetic (addresses, coordinates, masks as 0/1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdxOp {
    Add,
    Mul,
    /// Division by the constant operand.
    DivC(u32),
    /// Remainder by the constant operand.
    ModC(u32),
    /// `a < b` as 0/1.
    Lt,
    /// 0/1 and 0/1.
    And,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Inst {
    /// The output element this lane computes (a workgroup's, with a reduction).
    OutIdx,
    /// The reduction index (body only).
    RedIdx,
    /// The reduction's result (post only).
    Acc,
    /// A matmul kernel's coordinate (`K`: body only).
    Tile(TileAxis),
    /// A 32-bit constant of a dtype.
    Const(DType, u32),
    /// Index math; a unary one (`DivC`, `ModC`) has `b == a`.
    Idx(IdxOp, Val, Val),
    /// Element `idx` of parameter `buf`; 0 where `valid` (0/1) is 0.
    Load {
        buf: usize,
        dtype: DType,
        idx: Val,
        valid: Option<Val>,
    },
    /// `dtype` is the result's.
    Unary(UnaryOp, DType, Val),
    /// `dtype` is the operands'.
    Binary(BinaryOp, DType, Val, Val),
    Where(DType, Val, Val, Val),
    /// Element `idx` of parameter `buf` = `val` (post only).
    Store {
        buf: usize,
        dtype: DType,
        idx: Val,
        val: Val,
    },
}

/// A coordinate of a matmul kernel: flattened over the axes of its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TileAxis {
    /// The batch axes (both factors vary along them; uniform in a workgroup).
    Batch,
    /// The rows: axes only the first factor (`a`) varies along.
    M,
    /// The columns: axes only the second factor (`b`) varies along.
    N,
    /// The reduced axes (body only).
    K,
}

/// A matmul kernel: `out[batch, m, n] = epilogue(sum over k of a[batch, m, k] * b[batch, k, n])`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Matmul {
    pub batch: u32,
    pub m: u32,
    pub n: u32,
    /// The two factors (body values; `body_result` is their product).
    pub a: Val,
    pub b: Val,
}

/// Where a value is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Region {
    Pre,
    Body,
    Post,
}

/// A kernel's reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reduce {
    pub op: ReduceOp,
    pub dtype: DType,
    /// Elements reduced per output element.
    pub len: u32,
}

/// A kernel parameter: a buffer of `dtype`, written or only read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Param {
    pub dtype: DType,
    pub written: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<Param>,
    pub n_out: u32,
    pub reduce: Option<Reduce>,
    pub insts: Vec<Inst>,
    pub region: Vec<Region>,
    /// The reduction's operand per `r` (with a reduction).
    pub body_result: Option<Val>,
    /// Set when the reduction is a matmul over [`Inst::Tile`] coordinates.
    pub matmul: Option<Matmul>,
}

impl Kernel {
    /// `roots` and every value they read, in program order, leaving out `Tile` and `Acc` (the
    /// caller's inputs) and the values `have` marks (computed already).
    pub fn cone(&self, roots: &[Val], have: &[bool]) -> Vec<Val> {
        let mut want = vec![false; self.insts.len()];
        let mut stack: Vec<Val> = roots.to_vec();
        while let Some(v) = stack.pop() {
            if want[v] || have.get(v).copied().unwrap_or(false) || matches!(self.insts[v], Inst::Tile(_) | Inst::Acc) {
                continue;
            }
            want[v] = true;
            stack.extend(Kernel::operands(&self.insts[v]));
        }
        (0..self.insts.len()).filter(|&v| want[v]).collect()
    }

    /// The values of `r` in program order.
    pub fn in_region(&self, r: Region) -> impl Iterator<Item = Val> + '_ {
        (0..self.insts.len()).filter(move |&v| self.region[v] == r)
    }

    /// The operands of `inst`.
    pub fn operands(inst: &Inst) -> Vec<Val> {
        match *inst {
            Inst::OutIdx | Inst::RedIdx | Inst::Acc | Inst::Tile(_) | Inst::Const(..) => vec![],
            Inst::Idx(_, a, b) | Inst::Binary(_, _, a, b) => vec![a, b],
            Inst::Load { idx, valid, .. } => std::iter::once(idx).chain(valid).collect(),
            Inst::Unary(_, _, a) => vec![a],
            Inst::Where(_, c, a, b) => vec![c, a, b],
            Inst::Store { idx, val, .. } => vec![idx, val],
        }
    }

    /// The dtype of a value (index math is u32, shown as i32).
    pub fn dtype(&self, v: Val) -> DType {
        match self.insts[v] {
            Inst::OutIdx | Inst::RedIdx | Inst::Tile(_) | Inst::Idx(..) => DType::I32,
            Inst::Acc => self.reduce.map_or(DType::F32, |r| r.dtype),
            Inst::Const(d, _) | Inst::Load { dtype: d, .. } | Inst::Where(d, ..) | Inst::Store { dtype: d, .. } => d,
            Inst::Unary(_, d, _) => d,
            Inst::Binary(op, ..) if op.is_comparison() => DType::Bool,
            Inst::Binary(_, d, ..) => d,
        }
    }
}

/// Builds a kernel's instructions: regions by operands, identical instructions once.
#[derive(Debug, Default)]
pub struct KernelBuilder {
    insts: Vec<Inst>,
    region: Vec<Region>,
    seen: HashMap<Inst, Val>,
}

impl KernelBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// `inst`, in the first region its operands allow.
    pub fn push(&mut self, inst: Inst) -> Val {
        if let Some(&v) = self.seen.get(&inst) {
            return v;
        }
        let base = match inst {
            Inst::RedIdx | Inst::Tile(TileAxis::K) => Region::Body,
            Inst::Acc | Inst::Store { .. } => Region::Post,
            _ => Region::Pre,
        };
        let region = Kernel::operands(&inst).iter().map(|&o| self.region[o]).fold(base, Region::max);
        let v = self.insts.len();
        self.insts.push(inst);
        self.region.push(region);
        if !matches!(inst, Inst::Store { .. }) {
            self.seen.insert(inst, v);
        }
        v
    }

    /// The instruction of a value made so far.
    pub fn inst(&self, v: Val) -> Inst {
        self.insts[v]
    }

    pub fn konst(&mut self, dtype: DType, bits: u32) -> Val {
        self.push(Inst::Const(dtype, bits))
    }

    /// Index math; folded where both operands are constants (so no instruction has two).
    pub fn idx(&mut self, op: IdxOp, a: Val, b: Val) -> Val {
        if let (Inst::Const(_, x), Inst::Const(_, y)) = (self.insts[a], self.insts[b]) {
            return self.konst(DType::I32, fold(op, x, y));
        }
        // x + 0, x * 1: nothing to do.
        match (op, self.insts[a], self.insts[b]) {
            (IdxOp::Add, Inst::Const(_, 0), _) => return b,
            (IdxOp::Add, _, Inst::Const(_, 0)) | (IdxOp::Mul, _, Inst::Const(_, 1)) => return a,
            _ => {}
        }
        self.push(Inst::Idx(op, a, b))
    }

    pub fn finish(
        self,
        name: String,
        params: Vec<Param>,
        n_out: u32,
        reduce: Option<Reduce>,
        body_result: Option<Val>,
        matmul: Option<Matmul>,
    ) -> Kernel {
        Kernel { name, params, n_out, reduce, insts: self.insts, region: self.region, body_result, matmul }
    }
}

/// `a op b` on the host (u32, wrapping): what the lowering computes.
pub fn fold(op: IdxOp, a: u32, b: u32) -> u32 {
    match op {
        IdxOp::Add => a.wrapping_add(b),
        IdxOp::Mul => a.wrapping_mul(b),
        IdxOp::DivC(d) => a / d,
        IdxOp::ModC(d) => a % d,
        IdxOp::Lt => u32::from(a < b),
        IdxOp::And => a & b,
    }
}
