//! Operations built from the primitive ones: arithmetic shorthands, `exp`, `tanh`, softmax,
//! layernorm, GELU and a matmul (expand, multiply, sum). They add no node kind of their own, so
//! the scheduler fuses them like any chain.

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
    pub fn rsqrt(&self) -> R {
        self.unary(UnaryOp::Rsqrt)
    }
    pub fn cast(&self, to: super::DType) -> R {
        self.unary(UnaryOp::Cast(to))
    }
    /// `e^x` as `2^(x*log2 e)`.
    pub fn exp(&self) -> R {
        self.mul(&self.full_like(LOG2_E))?.exp2()
    }
    /// `tanh(x) = 1 - 2 / (e^(2x) + 1)`: exact at both ends (e^(2x) overflowing to infinity
    /// gives 1, underflowing to 0 gives -1), no cancellation where it matters for GELU.
    pub fn tanh(&self) -> R {
        let one = self.full_like(1.0);
        let e = self.mul(&self.full_like(2.0))?.exp()?;
        one.sub(&self.full_like(2.0).div(&e.add(&one)?)?)
    }
    /// `self * c` for a scalar `c`.
    pub fn scale(&self, c: f64) -> R {
        self.mul(&self.full_like(c))
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

    /// The mean over `axes` (kept as size 1).
    pub fn mean(&self, axes: &[usize]) -> R {
        let n: usize = axes.iter().map(|&a| self.shape().get(a).copied().unwrap_or(1)).product();
        self.sum(axes)?.scale(1.0 / n.max(1) as f64)
    }

    /// Layer normalization over the last axis, without the affine part: `(x - mean) /
    /// sqrt(var + eps)`, the variance the biased one (divided by the row length), as in
    /// PyTorch's `LayerNorm`. Computed as `E[(x - mean)^2]`, not `E[x^2] - mean^2`, which
    /// cancels catastrophically for rows with a large mean.
    pub fn layernorm(&self, eps: f64) -> R {
        let Some(last) = self.shape().len().checked_sub(1) else {
            return Err(GraphError::Shape("layernorm of a scalar (it needs an axis)".into()));
        };
        let xc = self.sub(&self.mean(&[last])?.expand(self.shape())?)?;
        let var = xc.mul(&xc)?.mean(&[last])?;
        let inv = var.add(&var.full_like(eps))?.rsqrt()?;
        xc.mul(&inv.expand(self.shape())?)
    }

    /// GELU, the tanh approximation (GPT-2's, PyTorch's `approximate="tanh"`):
    /// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    pub fn gelu(&self) -> R {
        let c = (2.0 / std::f64::consts::PI).sqrt();
        let x3 = self.mul(self)?.mul(self)?;
        let inner = self.add(&x3.scale(0.044715)?)?.scale(c)?;
        let t = inner.tanh()?.add(&self.full_like(1.0))?;
        self.mul(&t)?.scale(0.5)
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
