//! Recognising a matmul: a sum, over some axes, of the product of two f32 operands where one
//! operand is broadcast along some kept axes and the other along others (`[m, k, 1] * [1, k, n]`
//! summed over k, with any elementwise prologue on either operand and any view of the buffers
//! they read). Such a kernel is lowered as a tiled matmul (LDS tiles, a register block per lane)
//! instead of one workgroup per output element.
//!
//! The kept axes fall into three groups by which operand varies along them: `M` (only the first),
//! `N` (only the second) and the batch (both, or neither); a matmul needs an `M` and an `N` axis.

use super::dtype::DType;
use super::ops::{BinaryOp, MovementOp, ReduceOp};
use super::schedule::compose;
use super::tensor::{Op, Tensor};
use super::view::View;

/// The axes groups of a recognised matmul, as axes of the reduction's operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MmPlan {
    /// The reduction node.
    pub node: u64,
    /// The reduction's keepdim output shape and its operand's shape.
    pub out: Vec<usize>,
    pub input: Vec<usize>,
    pub m_axes: Vec<usize>,
    pub n_axes: Vec<usize>,
    pub batch_axes: Vec<usize>,
    /// The reduced axes, ascending.
    pub red_axes: Vec<usize>,
}

impl MmPlan {
    /// The element count of a group of axes.
    pub fn size(&self, axes: &[usize]) -> u32 {
        axes.iter().map(|&a| self.input[a]).product::<usize>() as u32
    }
}

/// The plan of `reduce` as a matmul, or `None` where it is not one. `is_leaf` says which nodes
/// the kernel reads from buffers.
pub fn plan(reduce: &Tensor, is_leaf: &dyn Fn(&Tensor) -> bool) -> Option<MmPlan> {
    let Op::Reduce(ReduceOp::Sum, src, axes) = &reduce.node().op else { return None };
    let Op::Binary(BinaryOp::Mul, x, y) = &src.node().op else { return None };
    if reduce.dtype() != DType::F32 || x.dtype() != DType::F32 {
        return None;
    }
    let (dx, dy) = (deps(x, &[], is_leaf)?, deps(y, &[], is_leaf)?);
    let input = src.shape().to_vec();
    let mut p = MmPlan {
        node: reduce.node().id,
        out: reduce.shape().to_vec(),
        input: input.clone(),
        m_axes: vec![],
        n_axes: vec![],
        batch_axes: vec![],
        red_axes: axes.clone(),
    };
    p.red_axes.sort_unstable();
    for d in (0..input.len()).filter(|d| !axes.contains(d) && input[*d] > 1) {
        match (dx[d], dy[d]) {
            (true, false) => p.m_axes.push(d),
            (false, true) => p.n_axes.push(d),
            _ => p.batch_axes.push(d),
        }
    }
    (!p.m_axes.is_empty() && !p.n_axes.is_empty()).then_some(p)
}

/// Per axis of `t`'s shape seen through `stack` (outermost first): whether its value varies
/// along it (`None`: a node the kernel could not read, which the scheduler realizes anyway).
fn deps(t: &Tensor, stack: &[(MovementOp, u64)], is_leaf: &dyn Fn(&Tensor) -> bool) -> Option<Vec<bool>> {
    let node = t.node();
    // A constant varies only where padding masks it; a buffer also where it has a stride.
    let view_deps = |v: View, strided: bool| {
        let mask = v.mask.clone();
        (0..v.shape.len())
            .map(|a| {
                let masked = mask.as_ref().is_some_and(|m| m[a] != (0, v.shape[a]));
                (strided && v.strides[a] != 0 && v.shape[a] > 1) || masked
            })
            .collect::<Vec<bool>>()
    };
    if is_leaf(t) {
        return Some(view_deps(compose(View::contiguous(t.shape()), stack).ok()?, true));
    }
    let union = |a: Vec<bool>, b: Vec<bool>| a.iter().zip(&b).map(|(&x, &y)| x || y).collect::<Vec<bool>>();
    match &node.op {
        Op::Input(_) | Op::Reduce(..) => None,
        Op::Const(_) => Some(view_deps(compose(View::contiguous(&node.shape), stack).ok()?, false)),
        Op::Unary(_, a) => deps(a, stack, is_leaf),
        Op::Binary(_, a, b) => Some(union(deps(a, stack, is_leaf)?, deps(b, stack, is_leaf)?)),
        Op::Where(c, a, b) => {
            let ab = union(deps(a, stack, is_leaf)?, deps(b, stack, is_leaf)?);
            Some(union(deps(c, stack, is_leaf)?, ab))
        }
        Op::Movement(op, src) => {
            let mut inner = stack.to_vec();
            inner.push((op.clone(), src.node().id));
            deps(src, &inner, is_leaf)
        }
    }
}
