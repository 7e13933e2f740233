//! The scheduler: groups a lazy graph into kernels and plans their memory.
//!
//! A node is *realized* (written to a buffer by a kernel of its own) when it is the output, or
//! when fusing it into its consumers is not possible; everything else is inlined into the kernel
//! of the realized node that reads it (elementwise chains fuse into producers and consumers;
//! movement ops become the index math of loads: [`super::view`]). A kernel holds at most one
//! reduction, with its elementwise prologue (the operand) and epilogue (what follows it up to the
//! kernel's output). The scheduler starts by realizing the output and every reduction read by
//! more than one node, then grows the set until every kernel can be built:
//!
//! - a reduction under a movement op other than a reshape, inside another reduction's operand,
//!   or beside another reduction in one kernel is realized;
//! - where a reshape cannot be one view of the buffer below it, its source is realized.
//!
//! Memory: inputs and the output are bound when the graph runs; intermediates go to a pool where
//! one buffer serves several intermediates whose lifetimes (writing kernel to last reader) do not
//! overlap.

use std::collections::{HashMap, HashSet};

use super::dtype::DType;
use super::error::GraphError;
use super::ir::{IdxOp, Inst, Kernel, KernelBuilder, Matmul, Param, Reduce, TileAxis, Val};
use super::matmul_plan::{self, MmPlan};
use super::ops::{BinaryOp, MovementOp};
use super::tensor::{Op, Tensor};
use super::view::{numel, View};

/// Where a buffer of the schedule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BufferKind {
    /// Input `n`, bound at each run.
    Input(usize),
    /// The output, bound at each run.
    Output,
    /// An intermediate: entry `n` of the pool.
    Temp(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferInfo {
    pub kind: BufferKind,
    pub dtype: DType,
    pub bytes: u64,
}

/// A kernel and the buffer each of its parameters is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScheduledKernel {
    pub ir: Kernel,
    pub args: Vec<usize>,
}

/// Kernels in run order over planned buffers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Schedule {
    pub kernels: Vec<ScheduledKernel>,
    pub buffers: Vec<BufferInfo>,
    /// Bytes of each pool entry.
    pub pool: Vec<u64>,
    pub output: usize,
}

/// The nodes under `out` (each once), sources before their consumers, and how many nodes read
/// each.
fn topo(out: &Tensor) -> (Vec<Tensor>, HashMap<u64, usize>) {
    let mut order = Vec::new();
    let mut readers: HashMap<u64, usize> = HashMap::new();
    let mut seen = HashSet::new();
    // Iterative post-order: deep graphs must not overflow the stack.
    let mut stack = vec![(out.clone(), false)];
    while let Some((t, done)) = stack.pop() {
        if done {
            order.push(t);
            continue;
        }
        if !seen.insert(t.node().id) {
            continue;
        }
        stack.push((t.clone(), true));
        for s in sources(&t) {
            *readers.entry(s.node().id).or_default() += 1;
            stack.push((s.clone(), false));
        }
    }
    (order, readers)
}

fn sources(t: &Tensor) -> Vec<&Tensor> {
    match &t.node().op {
        Op::Input(_) | Op::Const(_) => vec![],
        Op::Unary(_, a) | Op::Reduce(_, a, _) | Op::Movement(_, a) => vec![a],
        Op::Binary(_, a, b) => vec![a, b],
        Op::Where(c, a, b) => vec![c, a, b],
    }
}

/// Schedule the computation of `out`.
pub fn schedule(out: &Tensor) -> Result<Schedule, GraphError> {
    let (order, readers) = topo(out);
    // Index math is 32-bit and its divisions are exact below 2^31 (`lower_amd`'s magic numbers).
    if let Some(big) = order.iter().find(|t| t.numel() >= 1 << 31) {
        return Err(GraphError::Unsupported(format!("a tensor of shape {:?}: 2^31 elements or more", big.shape())));
    }
    let mut realized: HashSet<u64> = HashSet::new();
    realized.insert(out.node().id);
    for t in &order {
        if matches!(t.node().op, Op::Reduce(..)) && readers.get(&t.node().id).copied().unwrap_or(0) > 1 {
            realized.insert(t.node().id);
        }
    }
    // Grow the realized set until every kernel builds; each round adds a node, so this ends.
    let mut beside = Vec::new();
    loop {
        match build_all(&order, &realized) {
            Ok(_) => break,
            Err(Build::Realize(id)) => {
                realized.insert(id);
            }
            Err(Build::Beside(id)) => {
                realized.insert(id);
                beside.push(id);
            }
        }
    }
    // Which of two reductions met in one kernel got realized depends on the order they were
    // met; the other may have been realized later anyway. Give back each such node that now
    // builds inlined into exactly one kernel (so no reduction is computed twice).
    for id in beside {
        realized.remove(&id);
        let fused_once =
            matches!(build_all(&order, &realized), Ok(ks) if ks.iter().filter(|k| k.2 == Some(id)).count() == 1);
        if !fused_once {
            realized.insert(id);
        }
    }
    let Ok(kernels) = build_all(&order, &realized) else {
        return Err(GraphError::Unsupported("a schedule that no longer builds".into()));
    };
    Ok(plan(out, kernels.into_iter().map(|(t, k, _)| (t, k)).collect()))
}

/// A kernel: its realized node, its IR and sources, and the reduction node fused into it.
type Built = (Tensor, (Kernel, Vec<Source>), Option<u64>);

/// The kernel of every realized node in `order`, or why one does not build.
fn build_all(order: &[Tensor], realized: &HashSet<u64>) -> Result<Vec<Built>, Build> {
    let mut kernels = Vec::new();
    for t in order.iter().filter(|t| realized.contains(&t.node().id)) {
        let (k, fused) = Gen::build(t, realized, kernels.len())?;
        kernels.push((t.clone(), k, fused));
    }
    Ok(kernels)
}

/// Buffers for the kernels' outputs and parameters; intermediates share pool entries.
fn plan(out: &Tensor, kernels: Vec<(Tensor, (Kernel, Vec<Source>))>) -> Schedule {
    let mut buffers: Vec<BufferInfo> = Vec::new();
    let mut of_node: HashMap<u64, usize> = HashMap::new();
    let bytes = |t: &Tensor| (t.numel() * t.dtype().size()) as u64;
    let mut buffer_of = |t: &Tensor, buffers: &mut Vec<BufferInfo>, kind: BufferKind| {
        *of_node.entry(t.node().id).or_insert_with(|| {
            buffers.push(BufferInfo { kind, dtype: t.dtype(), bytes: bytes(t) });
            buffers.len() - 1
        })
    };
    // Each kernel's buffers; temps' kinds are filled by the pool below.
    let mut scheduled = Vec::new();
    for (t, (ir, srcs)) in &kernels {
        let mut args = Vec::new();
        for s in srcs {
            let kind = match &s.node().op {
                Op::Input(n) => BufferKind::Input(*n),
                _ if s.node().id == out.node().id => BufferKind::Output,
                _ => BufferKind::Temp(usize::MAX),
            };
            args.push(buffer_of(s, &mut buffers, kind));
        }
        let kind = if t.node().id == out.node().id { BufferKind::Output } else { BufferKind::Temp(usize::MAX) };
        // An input realized as the output (the graph is the input itself) is copied to a buffer
        // of its own, not written over itself.
        let written = if matches!(t.node().op, Op::Input(_)) {
            buffers.push(BufferInfo { kind, dtype: t.dtype(), bytes: bytes(t) });
            buffers.len() - 1
        } else {
            buffer_of(t, &mut buffers, kind)
        };
        args.push(written);
        scheduled.push(ScheduledKernel { ir: ir.clone(), args });
    }
    let output = scheduled.last().and_then(|k| k.args.last().copied()).unwrap_or(of_node[&out.node().id]);
    let pool = assign_pool(&scheduled, &mut buffers);
    Schedule { kernels: scheduled, buffers, pool, output }
}

/// Pool entries for the temps: a temp takes a free entry (the smallest that fits, grown if none
/// does) when its kernel runs and frees it after its last reader.
fn assign_pool(kernels: &[ScheduledKernel], buffers: &mut [BufferInfo]) -> Vec<u64> {
    let mut last_use = vec![0usize; buffers.len()];
    for (k, sk) in kernels.iter().enumerate() {
        for &b in &sk.args {
            last_use[b] = k;
        }
    }
    let mut pool: Vec<u64> = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    let mut live: Vec<usize> = Vec::new();
    for (k, sk) in kernels.iter().enumerate() {
        // Temps whose last reader ran before this kernel give their entry back.
        live.retain(|&b| {
            let keep = last_use[b] >= k;
            if !keep {
                if let BufferKind::Temp(e) = buffers[b].kind {
                    free.push(e);
                }
            }
            keep
        });
        let out = *sk.args.last().expect("a kernel writes one buffer");
        if buffers[out].kind == BufferKind::Temp(usize::MAX) {
            let need = buffers[out].bytes.max(4);
            let fit = free.iter().enumerate().filter(|(_, &e)| pool[e] >= need).min_by_key(|(_, &e)| pool[e]);
            let entry = match (fit.map(|(i, _)| i), free.is_empty()) {
                (Some(i), _) => free.swap_remove(i),
                (None, false) => {
                    let e = free.swap_remove(0);
                    pool[e] = need;
                    e
                }
                (None, true) => {
                    pool.push(need);
                    pool.len() - 1
                }
            };
            buffers[out].kind = BufferKind::Temp(entry);
            live.push(out);
        }
    }
    pool
}

/// Why a kernel did not build: a node to realize first (`Beside`: a reduction met in a kernel
/// that has one already).
pub(super) enum Build {
    Realize(u64),
    Beside(u64),
}

/// A node a kernel reads from a buffer.
type Source = Tensor;

/// The coordinate system of an expression: the kernel's output, or a reduction's operand.
#[derive(Clone)]
enum Space {
    Out,
    /// The reduction's keepdim output shape, its operand's shape and the reduced axes.
    Body {
        out: Vec<usize>,
        input: Vec<usize>,
        axes: Vec<usize>,
    },
}

/// Builds the kernel of one realized node.
struct Gen<'a> {
    root: &'a Tensor,
    realized: &'a HashSet<u64>,
    b: KernelBuilder,
    /// The buffers read, by node: parameter i is `sources[i]`.
    sources: Vec<Source>,
    reduce: Option<(Reduce, Val)>,
    /// The reduction node fused into this kernel.
    reduce_node: Option<u64>,
    /// The reduction node as a tensor.
    reduce_tensor: Option<Tensor>,
    /// Set when the kernel is built as a matmul: coordinates come from [`Inst::Tile`] values.
    mm: Option<MmPlan>,
}

/// What one attempt at building a kernel made.
type Attempt = ((Kernel, Vec<Source>), Option<u64>, Option<Tensor>);

impl<'a> Gen<'a> {
    #[allow(clippy::type_complexity)]
    fn build(
        root: &'a Tensor,
        realized: &'a HashSet<u64>,
        n: usize,
    ) -> Result<((Kernel, Vec<Source>), Option<u64>), Build> {
        let (plain, fused, reduce) = Gen::attempt(root, realized, n, None)?;
        let is_leaf = |t: &Tensor| {
            matches!(t.node().op, Op::Input(_)) || (t.node().id != root.node().id && realized.contains(&t.node().id))
        };
        if let Some(plan) = reduce.as_ref().and_then(|r| matmul_plan::plan(r, &is_leaf)) {
            let (k, fused, _) = Gen::attempt(root, realized, n, Some(plan))?;
            return Ok((k, fused));
        }
        Ok((plain, fused))
    }

    fn attempt(root: &'a Tensor, realized: &'a HashSet<u64>, n: usize, mm: Option<MmPlan>) -> Result<Attempt, Build> {
        let dtype = root.dtype();
        let mut g = Gen {
            root,
            realized,
            b: KernelBuilder::new(),
            sources: Vec::new(),
            reduce: None,
            reduce_node: None,
            reduce_tensor: None,
            mm,
        };
        let val = g.expr(root, &[], &Space::Out)?;
        let out = g.out_index();
        let buf = g.sources.len();
        g.b.push(Inst::Store { buf, dtype, idx: out, val });
        let mut params: Vec<Param> = g.sources.iter().map(|s| Param { dtype: s.dtype(), written: false }).collect();
        params.push(Param { dtype, written: true });
        let (reduce, body) = match g.reduce {
            Some((r, v)) => (Some(r), Some(v)),
            None => (None, None),
        };
        let matmul = g.matmul(body);
        let kind = match (reduce, matmul) {
            (_, Some(_)) => "matmul",
            (Some(_), None) => "reduce",
            (None, None) => "elementwise",
        };
        let k = g.b.finish(format!("k{n}_{kind}"), params, root.numel() as u32, reduce, body, matmul);
        Ok(((k, g.sources), g.reduce_node, g.reduce_tensor))
    }

    /// The matmul's sizes and factors (`body` the product of the two).
    fn matmul(&self, body: Option<Val>) -> Option<Matmul> {
        let p = self.mm.as_ref()?;
        let Inst::Binary(BinaryOp::Mul, _, a, b) = self.b.inst(body?) else { return None };
        Some(Matmul { batch: p.size(&p.batch_axes), m: p.size(&p.m_axes), n: p.size(&p.n_axes), a, b })
    }

    /// The output element's linear index: `OutIdx`, or in a matmul the index from its tile
    /// coordinates (the reduction's output shape; reshapes above it keep the linear order).
    fn out_index(&mut self) -> Val {
        let Some(p) = self.mm.clone() else { return self.b.push(Inst::OutIdx) };
        let coords = self.tile_coords(&p);
        let strides = super::view::contiguous_strides(&p.out);
        let mut idx = self.b.konst(DType::I32, 0);
        for (c, s) in coords.into_iter().zip(strides).filter(|(_, s)| *s != 0) {
            let s = self.b.konst(DType::I32, s as u32);
            let term = self.b.idx(IdxOp::Mul, c, s);
            idx = self.b.idx(IdxOp::Add, idx, term);
        }
        idx
    }

    /// A matmul's coordinates of the reduction's operand from its tile coordinates (the
    /// reduced axes 0).
    fn tile_coords(&mut self, p: &MmPlan) -> Vec<Val> {
        let mut coords = vec![zero_i(&mut self.b); p.input.len()];
        for (axes, which) in [(&p.m_axes, TileAxis::M), (&p.n_axes, TileAxis::N), (&p.batch_axes, TileAxis::Batch)] {
            if axes.is_empty() {
                continue;
            }
            let t = self.b.push(Inst::Tile(which));
            let sizes: Vec<usize> = axes.iter().map(|&a| p.input[a]).collect();
            for (&a, c) in axes.iter().zip(split(&mut self.b, t, &sizes)) {
                coords[a] = c;
            }
        }
        coords
    }

    /// The coordinates of the current element in `space`, in a matmul kernel.
    fn mm_coords(&mut self, p: &MmPlan, space: &Space) -> Vec<Val> {
        let mut coords = self.tile_coords(p);
        if let Space::Body { .. } = space {
            let k = self.b.push(Inst::Tile(TileAxis::K));
            let sizes: Vec<usize> = p.red_axes.iter().map(|&a| p.input[a]).collect();
            for (&a, c) in p.red_axes.iter().zip(split(&mut self.b, k, &sizes)) {
                coords[a] = c;
            }
            return coords;
        }
        // The root's coordinates: the same axes where it is the reduction's output with size-1
        // axes dropped or added, else split from the linear index.
        let root = self.root.shape().to_vec();
        let big = |s: &[usize]| s.iter().copied().filter(|&n| n != 1).collect::<Vec<_>>();
        if big(&root) != big(&p.out) {
            let lin = self.out_index();
            return split(&mut self.b, lin, &root);
        }
        let mut kept = (0..p.out.len()).filter(|&a| p.out[a] != 1).map(|a| coords[a]);
        root.iter().map(|&n| if n == 1 { zero_i(&mut self.b) } else { kept.next().expect("same sizes") }).collect()
    }

    /// The value of `t` seen through the movement ops `stack` (outermost first) in `space`.
    fn expr(&mut self, t: &Tensor, stack: &[(MovementOp, u64)], space: &Space) -> Result<Val, Build> {
        let node = t.node();
        let is_leaf =
            matches!(node.op, Op::Input(_)) || (node.id != self.root.node().id && self.realized.contains(&node.id));
        if is_leaf {
            return self.load(t, stack, space);
        }
        Ok(match &node.op {
            Op::Input(_) => unreachable!("inputs are leaves"),
            Op::Const(bits) => {
                let view = compose(View::contiguous(&node.shape), stack)?;
                let c = self.b.konst(node.dtype, *bits);
                match self.valid(&view, space) {
                    // The mask is 0/1, as a bool is.
                    Some(valid) => {
                        let zero = self.b.konst(node.dtype, 0);
                        self.b.push(Inst::Where(node.dtype, valid, c, zero))
                    }
                    None => c,
                }
            }
            Op::Unary(op, a) => {
                let a = self.expr(a, stack, space)?;
                self.b.push(Inst::Unary(*op, node.dtype, a))
            }
            Op::Binary(op, a, b) => {
                let d = a.dtype();
                let (a, b) = (self.expr(a, stack, space)?, self.expr(b, stack, space)?);
                self.b.push(Inst::Binary(*op, d, a, b))
            }
            Op::Where(c, a, b) => {
                let c = self.expr(c, stack, space)?;
                let (a, b) = (self.expr(a, stack, space)?, self.expr(b, stack, space)?);
                self.b.push(Inst::Where(node.dtype, c, a, b))
            }
            Op::Movement(op, src) => {
                let mut inner = stack.to_vec();
                inner.push((op.clone(), src.node().id));
                self.expr(src, &inner, space)?
            }
            Op::Reduce(op, src, axes) => {
                let only_reshapes = stack.iter().all(|(m, _)| matches!(m, MovementOp::Reshape(_)));
                if !matches!(space, Space::Out) || !only_reshapes {
                    return Err(Build::Realize(node.id));
                }
                if self.reduce.is_some() {
                    return Err(Build::Beside(node.id));
                }
                let body = Space::Body { out: node.shape.clone(), input: src.shape().to_vec(), axes: axes.clone() };
                let len = axes.iter().map(|&a| src.shape()[a]).product::<usize>() as u32;
                let r = self.expr(src, &[], &body)?;
                self.reduce = Some((Reduce { op: *op, dtype: node.dtype, len }, r));
                self.reduce_node = Some(node.id);
                self.reduce_tensor = Some(t.clone());
                self.b.push(Inst::Acc)
            }
        })
    }

    /// A buffer read of `t` through `stack`.
    fn load(&mut self, t: &Tensor, stack: &[(MovementOp, u64)], space: &Space) -> Result<Val, Build> {
        let dtype = t.dtype();
        let view = compose(View::contiguous(t.shape()), stack)?;
        let buf = match self.sources.iter().position(|s| s.node().id == t.node().id) {
            Some(i) => i,
            None => {
                self.sources.push(t.clone());
                self.sources.len() - 1
            }
        };
        let terms: Vec<(Val, i64)> = match space {
            Space::Out if self.mm.is_none() && view.mask.is_none() && view.shape == self.root.shape() => {
                self.merged_terms(&view)
            }
            _ => {
                let coords = self.coords(space);
                let axes = coords.into_iter().zip(&view.strides).zip(&view.shape);
                axes.filter(|((_, &s), &n)| s != 0 && n != 1).map(|((c, &s), _)| (c, s)).collect()
            }
        };
        let mut idx = self.b.konst(DType::I32, view.offset as i32 as u32);
        for (c, stride) in terms {
            let s = self.b.konst(DType::I32, stride as i32 as u32);
            let term = self.b.idx(IdxOp::Mul, c, s);
            idx = self.b.idx(IdxOp::Add, idx, term);
        }
        let valid = self.valid(&view, space);
        Ok(self.b.push(Inst::Load { buf, dtype, idx, valid }))
    }

    /// (coordinate, stride) of an unmasked view of the output's shape, its axes merged where
    /// the view lays them out together as the output does (`i*n + j` with strides `n*s, s`):
    /// each merged axis costs one division less, and a contiguous view is the output index
    /// itself.
    fn merged_terms(&mut self, view: &View) -> Vec<(Val, i64)> {
        // Per group, outermost first once reversed: (size, inner stride, outer axis stride,
        // outer axis size).
        let mut groups: Vec<(usize, i64, i64, usize)> = Vec::new();
        for (&n, &stride) in view.shape.iter().zip(&view.strides).rev() {
            if n == 1 {
                continue;
            }
            match groups.last_mut() {
                Some(g) if stride == g.2 * g.3 as i64 => *g = (g.0 * n, g.1, stride, n),
                _ => groups.push((n, stride, stride, n)),
            }
        }
        groups.reverse();
        let sizes: Vec<usize> = groups.iter().map(|g| g.0).collect();
        let o = self.b.push(Inst::OutIdx);
        let coords = split(&mut self.b, o, &sizes);
        coords.into_iter().zip(groups).filter(|(_, g)| g.1 != 0).map(|(c, g)| (c, g.1)).collect()
    }

    /// 0/1: whether the view's mask lets the current element through (`None`: always).
    fn valid(&mut self, view: &View, space: &Space) -> Option<Val> {
        let mask = view.mask.as_ref()?;
        let coords = self.coords(space);
        let mut valid: Option<Val> = None;
        for ((&c, &(lo, hi)), &n) in coords.iter().zip(mask).zip(&view.shape) {
            let mut conds = Vec::new();
            if lo >= hi {
                conds.push(self.b.konst(DType::I32, 0));
            } else {
                if lo > 0 {
                    let l = self.b.konst(DType::I32, lo as u32 - 1);
                    conds.push(self.b.idx(IdxOp::Lt, l, c));
                }
                if hi < n {
                    let h = self.b.konst(DType::I32, hi as u32);
                    conds.push(self.b.idx(IdxOp::Lt, c, h));
                }
            }
            for cond in conds {
                valid = Some(match valid {
                    Some(v) => self.b.idx(IdxOp::And, v, cond),
                    None => cond,
                });
            }
        }
        valid
    }

    /// The coordinates of the current element in `space`.
    fn coords(&mut self, space: &Space) -> Vec<Val> {
        if let Some(p) = self.mm.clone() {
            return self.mm_coords(&p, space);
        }
        match space {
            Space::Out => {
                let o = self.b.push(Inst::OutIdx);
                split(&mut self.b, o, self.root.shape())
            }
            Space::Body { out, input, axes } => {
                let o = self.b.push(Inst::OutIdx);
                let mut coords = split(&mut self.b, o, out);
                let r = self.b.push(Inst::RedIdx);
                let sizes: Vec<usize> = axes.iter().map(|&a| input[a]).collect();
                let mut sorted: Vec<(usize, usize)> = axes.iter().copied().zip(sizes).collect();
                sorted.sort();
                let red_shape: Vec<usize> = sorted.iter().map(|&(_, n)| n).collect();
                let rc = split(&mut self.b, r, &red_shape);
                for (&(axis, _), c) in sorted.iter().zip(rc) {
                    coords[axis] = c;
                }
                coords
            }
        }
    }
}

fn zero_i(b: &mut KernelBuilder) -> Val {
    b.konst(DType::I32, 0)
}

/// The row-major coordinates of linear index `i` in `shape` (`i` below its element count).
fn split(b: &mut KernelBuilder, i: Val, shape: &[usize]) -> Vec<Val> {
    let mut coords = Vec::with_capacity(shape.len());
    for d in 0..shape.len() {
        let inner = numel(&shape[d + 1..]) as u32;
        if shape[d] == 1 {
            coords.push(zero_i(b));
            continue;
        }
        let mut c = i;
        if inner > 1 {
            c = b.idx(IdxOp::DivC(inner), c, c);
        }
        if d > 0 {
            c = b.idx(IdxOp::ModC(shape[d] as u32), c, c);
        }
        coords.push(c);
    }
    coords
}

/// The contiguous view of a node seen through `stack` (outermost first), or the node whose
/// reshape no single view can express.
pub(super) fn compose(base: View, stack: &[(MovementOp, u64)]) -> Result<View, Build> {
    let mut v = base;
    for (op, src) in stack.iter().rev() {
        v = match op {
            MovementOp::Reshape(s) => v.reshape(s).ok_or(Build::Realize(*src))?,
            MovementOp::Permute(a) => v.permute(a),
            MovementOp::Expand(s) => v.expand(s),
            MovementOp::Pad(p) => v.pad(p),
            MovementOp::Shrink(r) => v.shrink(r),
            MovementOp::Flip(f) => v.flip(f),
        };
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_that_is_its_input_copies_it_to_the_output_buffer() {
        let x = Tensor::input(0, &[3], DType::F16);
        let s = schedule(&x).unwrap();
        assert_eq!(s.kernels.len(), 1);
        assert_eq!(s.buffers[s.output].kind, BufferKind::Output);
        assert_eq!(s.buffers[s.kernels[0].args[0]].kind, BufferKind::Input(0));
        assert_eq!(s.kernels[0].args[1], s.output);
    }

    #[test]
    fn tensors_of_2_pow_31_elements_are_refused_when_scheduled() {
        let x = Tensor::input(0, &[1 << 16, 1 << 15], DType::F32);
        let err = schedule(&x.exp2().unwrap()).unwrap_err().to_string();
        assert_eq!(err, "not supported yet: a tensor of shape [65536, 32768]: 2^31 elements or more");
        let ok = Tensor::input(0, &[1 << 16, (1 << 15) - 1], DType::F32);
        assert!(schedule(&ok.exp2().unwrap()).is_ok());
    }
}
