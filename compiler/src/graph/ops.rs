//! The operations of the lazy graph: elementwise unary, binary and ternary ops, reductions and
//! movement ops. One definition each; the tensor API, the scheduler and the code generators all
//! name these.

use super::dtype::DType;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Exp2,
    Log2,
    Sqrt,
    Rsqrt,
    Recip,
    Sin,
    /// Value conversion to the node's dtype.
    Cast(DType),
    /// Reinterpretation of the bits as the node's dtype (same size).
    Bitcast(DType),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    /// Comparisons give a bool.
    CmpLt,
    CmpEq,
    CmpNe,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::CmpLt | BinaryOp::CmpEq | BinaryOp::CmpNe)
    }
    /// The integer-only ones (bit logic and shifts); bool takes the logic ones too.
    pub fn is_bitwise(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Shl | BinaryOp::Shr)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Max,
}

impl ReduceOp {
    /// The identity as the bits of a `dtype` value: 0, or the lowest value.
    pub fn identity_bits(self, dtype: DType) -> u32 {
        match (self, dtype) {
            (ReduceOp::Sum, _) => 0,
            (ReduceOp::Max, DType::I32) => i32::MIN as u32,
            (ReduceOp::Max, _) => f32::NEG_INFINITY.to_bits(),
        }
    }
}

/// A movement op: a new view of its source, never a copy.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MovementOp {
    Reshape(Vec<usize>),
    Permute(Vec<usize>),
    /// Size-1 axes to the given sizes.
    Expand(Vec<usize>),
    /// (before, after) elements of padding per axis; padded elements read as 0.
    Pad(Vec<(usize, usize)>),
    /// [start, end) per axis.
    Shrink(Vec<(usize, usize)>),
    /// Reverse the axes marked true.
    Flip(Vec<bool>),
}
