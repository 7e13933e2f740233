//! Lazy tensors: each operation makes a node of a graph (shape and dtype checked when it is
//! made); nothing runs until the graph is scheduled and realized. A [`Tensor`] is a cheap
//! handle to its node.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::dtype::DType;
use super::error::GraphError;
use super::ops::{BinaryOp, MovementOp, ReduceOp, UnaryOp};
use super::view::numel;

/// What a node computes.
#[derive(Debug, Clone)]
pub enum Op {
    /// The `n`th input buffer, bound when the graph runs.
    Input(usize),
    /// Every element the same value (its bits as a register holds the node's dtype).
    Const(u32),
    Unary(UnaryOp, Tensor),
    Binary(BinaryOp, Tensor, Tensor),
    /// `cond ? a : b`.
    Where(Tensor, Tensor, Tensor),
    /// Reduced over `axes`, which keep size 1.
    Reduce(ReduceOp, Tensor, Vec<usize>),
    Movement(MovementOp, Tensor),
}

#[derive(Debug)]
pub struct Node {
    /// Unique per node made in this process: the scheduler's key.
    pub id: u64,
    pub op: Op,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

/// A lazy tensor.
#[derive(Debug, Clone)]
pub struct Tensor(pub Rc<Node>);

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

type R = Result<Tensor, GraphError>;

impl Tensor {
    fn make(op: Op, shape: Vec<usize>, dtype: DType) -> Tensor {
        Tensor(Rc::new(Node { id: NEXT_ID.fetch_add(1, Ordering::Relaxed), op, shape, dtype }))
    }

    pub fn node(&self) -> &Node {
        &self.0
    }
    pub fn shape(&self) -> &[usize] {
        &self.0.shape
    }
    pub fn dtype(&self) -> DType {
        self.0.dtype
    }
    pub fn numel(&self) -> usize {
        numel(&self.0.shape)
    }

    /// The `n`th input of the computation: a device buffer of `shape` and `dtype`, bound at
    /// realize.
    pub fn input(n: usize, shape: &[usize], dtype: DType) -> Tensor {
        Tensor::make(Op::Input(n), shape.to_vec(), dtype)
    }

    /// `value` everywhere in `shape` (as `dtype`: [`DType::const_bits`]).
    pub fn full(value: f64, shape: &[usize], dtype: DType) -> Tensor {
        Tensor::make(Op::Const(dtype.const_bits(value)), shape.to_vec(), dtype)
    }

    /// A constant of this tensor's shape and dtype.
    pub fn full_like(&self, value: f64) -> Tensor {
        Tensor::full(value, self.shape(), self.dtype())
    }

    pub fn unary(&self, op: UnaryOp) -> R {
        let dtype = match op {
            UnaryOp::Cast(d) => d,
            // A bool is 0 or 1: not every byte is one.
            UnaryOp::Bitcast(d) if d == DType::Bool || self.dtype() == DType::Bool => {
                return Err(GraphError::DType(format!("bitcast of {} to {d}: bool has no bit pattern", self.dtype())))
            }
            UnaryOp::Bitcast(d) if d.size() == self.dtype().size() => d,
            UnaryOp::Bitcast(d) => {
                return Err(GraphError::DType(format!("bitcast of {} to {d}: sizes differ", self.dtype())))
            }
            _ if !self.dtype().is_float() => {
                return Err(GraphError::DType(format!("{op:?} needs a float tensor, not {}", self.dtype())))
            }
            _ => self.dtype(),
        };
        Ok(Tensor::make(Op::Unary(op, self.clone()), self.shape().to_vec(), dtype))
    }

    pub fn binary(&self, op: BinaryOp, other: &Tensor) -> R {
        if self.shape() != other.shape() {
            return Err(GraphError::Shape(format!(
                "{op:?} of shapes {:?} and {:?} (expand one first)",
                self.shape(),
                other.shape()
            )));
        }
        if self.dtype() != other.dtype() {
            return Err(GraphError::DType(format!("{op:?} of {} and {}", self.dtype(), other.dtype())));
        }
        if op.is_bitwise() && self.dtype().is_float() {
            return Err(GraphError::DType(format!("{op:?} needs integers or bools, not {}", self.dtype())));
        }
        let arithmetic = matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div);
        if self.dtype() == DType::Bool && (arithmetic || matches!(op, BinaryOp::Shl | BinaryOp::Shr)) {
            return Err(GraphError::DType(format!("{op:?} of bools (use and, or, xor, max, min)")));
        }
        if op == BinaryOp::Div && !self.dtype().is_float() {
            return Err(GraphError::DType(format!("Div of {} (floats only)", self.dtype())));
        }
        let dtype = if op.is_comparison() { DType::Bool } else { self.dtype() };
        Ok(Tensor::make(Op::Binary(op, self.clone(), other.clone()), self.shape().to_vec(), dtype))
    }

    /// `self ? a : b` (`self` a bool tensor).
    pub fn where_(&self, a: &Tensor, b: &Tensor) -> R {
        if self.dtype() != DType::Bool {
            return Err(GraphError::DType(format!("where's condition is {}, not bool", self.dtype())));
        }
        if self.shape() != a.shape() || a.shape() != b.shape() {
            return Err(GraphError::Shape(format!(
                "where of shapes {:?}, {:?} and {:?}",
                self.shape(),
                a.shape(),
                b.shape()
            )));
        }
        if a.dtype() != b.dtype() {
            return Err(GraphError::DType(format!("where of {} and {}", a.dtype(), b.dtype())));
        }
        Ok(Tensor::make(Op::Where(self.clone(), a.clone(), b.clone()), a.shape().to_vec(), a.dtype()))
    }

    fn check_axes(&self, axes: &[usize]) -> Result<(), GraphError> {
        for (i, &a) in axes.iter().enumerate() {
            if a >= self.shape().len() || axes[..i].contains(&a) {
                return Err(GraphError::Shape(format!("axes {axes:?} of a tensor of shape {:?}", self.shape())));
            }
        }
        Ok(())
    }

    pub fn reduce(&self, op: ReduceOp, axes: &[usize]) -> R {
        self.check_axes(axes)?;
        if !matches!(self.dtype(), DType::F32 | DType::I32) {
            return Err(GraphError::DType(format!("{op:?} of {} (f32 or i32)", self.dtype())));
        }
        let mut shape = self.shape().to_vec();
        for &a in axes {
            shape[a] = 1;
        }
        Ok(Tensor::make(Op::Reduce(op, self.clone(), axes.to_vec()), shape, self.dtype()))
    }

    fn movement(&self, op: MovementOp, shape: Vec<usize>) -> Tensor {
        Tensor::make(Op::Movement(op, self.clone()), shape, self.dtype())
    }

    pub fn reshape(&self, shape: &[usize]) -> R {
        if numel(shape) != self.numel() {
            return Err(GraphError::Shape(format!("reshape of {:?} to {shape:?}", self.shape())));
        }
        Ok(self.movement(MovementOp::Reshape(shape.to_vec()), shape.to_vec()))
    }

    pub fn permute(&self, axes: &[usize]) -> R {
        self.check_axes(axes)?;
        if axes.len() != self.shape().len() {
            return Err(GraphError::Shape(format!("permute {axes:?} of a tensor of shape {:?}", self.shape())));
        }
        let shape = axes.iter().map(|&a| self.shape()[a]).collect();
        Ok(self.movement(MovementOp::Permute(axes.to_vec()), shape))
    }

    pub fn expand(&self, shape: &[usize]) -> R {
        let ok = shape.len() == self.shape().len()
            && self.shape().iter().zip(shape).all(|(&have, &want)| have == want || have == 1);
        if !ok {
            return Err(GraphError::Shape(format!("expand of {:?} to {shape:?}", self.shape())));
        }
        Ok(self.movement(MovementOp::Expand(shape.to_vec()), shape.to_vec()))
    }

    pub fn pad(&self, pads: &[(usize, usize)]) -> R {
        if pads.len() != self.shape().len() {
            return Err(GraphError::Shape(format!("pad {pads:?} of a tensor of shape {:?}", self.shape())));
        }
        let shape = self.shape().iter().zip(pads).map(|(&n, &(b, a))| n + b + a).collect();
        Ok(self.movement(MovementOp::Pad(pads.to_vec()), shape))
    }

    pub fn shrink(&self, ranges: &[(usize, usize)]) -> R {
        let ok =
            ranges.len() == self.shape().len() && ranges.iter().zip(self.shape()).all(|(&(s, e), &n)| s <= e && e <= n);
        if !ok {
            return Err(GraphError::Shape(format!("shrink {ranges:?} of a tensor of shape {:?}", self.shape())));
        }
        let shape = ranges.iter().map(|&(s, e)| e - s).collect();
        Ok(self.movement(MovementOp::Shrink(ranges.to_vec()), shape))
    }

    pub fn flip(&self, axes: &[usize]) -> R {
        self.check_axes(axes)?;
        let mut which = vec![false; self.shape().len()];
        for &a in axes {
            which[a] = true;
        }
        Ok(self.movement(MovementOp::Flip(which), self.shape().to_vec()))
    }
}
