//! Operations built from the primitive ones: arithmetic shorthands, `exp`, `log`, softmax and a
//! matmul (expand, multiply, sum). They add no node kind of their own, so the scheduler fuses
//! them like any chain.

use super::error::GraphError;
use super::ops::{BinaryOp, ReduceOp, UnaryOp};
use super::tensor::Tensor;

type R = Result<Tensor, GraphError>;

const LOG2_E: f64 = std::f64::consts::LOG2_E;

impl Tensor {
    pub fn add(&self, o: &Tensor) -> R {
        self.binary(BinaryOp::Add, o)
    }
    pub fn sub(&self, o: &Tensor) -> R {
        self.binary(BinaryOp::Sub, o)
    }
    pub fn mul(&self, o: &Tensor) -> R {
        self.binary(BinaryOp::Mul, o)
    }
    pub fn div(&self, o: &Tensor) -> R {
        self.binary(BinaryOp::Div, o)
    }
    pub fn maximum(&self, o: &Tensor) -> R {
        self.binary(BinaryOp::Max, o)
    }
    pub fn minimum(&self, o: &Tensor) -> R {
        self.binary(BinaryOp::Min, o)
    }
    pub fn lt(&self, o: &Tensor) -> R {
        self.binary(BinaryOp::CmpLt, o)
    }
    pub fn neg(&self) -> R {
        self.unary(UnaryOp::Neg)
    }
    pub fn exp2(&self) -> R {
        self.unary(UnaryOp::Exp2)
    }
    pub fn log2(&self) -> R {
        self.unary(UnaryOp::Log2)
    }
    pub fn sqrt(&self) -> R {
        self.unary(UnaryOp::Sqrt)
    }
    pub fn sin(&self) -> R {
        self.unary(UnaryOp::Sin)
    }
    pub fn recip(&self) -> R {
        self.unary(UnaryOp::Recip)
    }
    pub fn cast(&self, to: super::DType) -> R {
        self.unary(UnaryOp::Cast(to))
    }
    /// `e^x` as `2^(x*log2 e)`.
    pub fn exp(&self) -> R {
        self.mul(&self.full_like(LOG2_E))?.exp2()
    }
    pub fn sum(&self, axes: &[usize]) -> R {
        self.reduce(ReduceOp::Sum, axes)
    }
    pub fn max(&self, axes: &[usize]) -> R {
        self.reduce(ReduceOp::Max, axes)
    }

    /// `self` broadcast to `shape` (size-1 axes only, same rank).
    pub fn broadcast_to(&self, shape: &[usize]) -> R {
        self.expand(shape)
    }

    /// Softmax over `axis`: `e^(x - max) / sum(e^(x - max))`.
    pub fn softmax(&self, axis: usize) -> R {
        let m = self.max(&[axis])?.expand(self.shape())?;
        let e = self.sub(&m)?.exp()?;
        let s = e.sum(&[axis])?.expand(self.shape())?;
        e.div(&s)
    }

    /// `[m, k] x [k, n] -> [m, n]`: both broadcast to `[m, k, n]`, multiplied and summed over k.
    pub fn matmul(&self, o: &Tensor) -> R {
        let (a, b) = (self.shape(), o.shape());
        if a.len() != 2 || b.len() != 2 || a[1] != b[0] {
            return Err(GraphError::Shape(format!("matmul of {a:?} and {b:?}")));
        }
        let (m, k, n) = (a[0], a[1], b[1]);
        let x = self.reshape(&[m, k, 1])?.expand(&[m, k, n])?;
        let y = o.reshape(&[1, k, n])?.expand(&[m, k, n])?;
        x.mul(&y)?.sum(&[1])?.reshape(&[m, n])
    }
}
