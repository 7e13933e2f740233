//! VALU/SALU comparisons: float and integer predicates and the per-lane compare mask.

use super::*;

#[allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool, clippy::double_comparisons)]
pub(super) fn fcmp(c: CmpOp, a: f64, b: f64) -> bool {
    match c {
        CmpOp::F => false,
        CmpOp::T => true,
        CmpOp::Lt => a < b,
        CmpOp::Eq => a == b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Lg | CmpOp::Ne => a < b || a > b,
        CmpOp::Ge => a >= b,
        CmpOp::O => !a.is_nan() && !b.is_nan(),
        CmpOp::U => a.is_nan() || b.is_nan(),
        CmpOp::Nge => !(a >= b),
        CmpOp::Nlg => !(a < b || a > b),
        CmpOp::Ngt => !(a > b),
        CmpOp::Nle => !(a <= b),
        CmpOp::Neq => a != b,
        CmpOp::Nlt => !(a < b),
        CmpOp::Class => false,
    }
}

pub(super) fn icmp<T: PartialOrd>(c: CmpOp, a: T, b: T) -> bool {
    match c {
        CmpOp::F => false,
        CmpOp::T => true,
        CmpOp::Lt => a < b,
        CmpOp::Eq => a == b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ne | CmpOp::Lg | CmpOp::Neq => a != b,
        CmpOp::Ge => a >= b,
        _ => false,
    }
}

pub(super) fn cmp_mask<const W: usize>(op: CmpOp, ty: CmpTy, a: &[u64; W], b: &[u64; W]) -> u64 {
    let mut m = 0u64;
    macro_rules! each {
        (|$x:ident, $y:ident| $e:expr) => {
            for l in 0..W {
                let $x = a[l];
                let $y = b[l];
                m |= ($e as u64) << l;
            }
        };
    }
    if op == CmpOp::Class {
        match ty {
            CmpTy::F16 => each!(|x, y| class16(x as u16) & y as u32 != 0),
            CmpTy::F32 => each!(|x, y| class32(f(x)) & y as u32 != 0),
            _ => each!(|x, y| class_f64(d(x)) & y as u32 != 0),
        }
        return m;
    }
    match ty {
        CmpTy::F16 => each!(|x, y| fcmp(op, hf(x) as f64, hf(y) as f64)),
        CmpTy::F32 => each!(|x, y| fcmp(op, f(x) as f64, f(y) as f64)),
        CmpTy::F64 => each!(|x, y| fcmp(op, d(x), d(y))),
        CmpTy::I16 => each!(|x, y| icmp(op, x as u16 as i16, y as u16 as i16)),
        CmpTy::U16 => each!(|x, y| icmp(op, x as u16, y as u16)),
        CmpTy::I32 => each!(|x, y| icmp(op, x as u32 as i32, y as u32 as i32)),
        CmpTy::U32 => each!(|x, y| icmp(op, x as u32, y as u32)),
        CmpTy::I64 => each!(|x, y| icmp(op, x as i64, y as i64)),
        CmpTy::U64 => each!(|x, y| icmp(op, x, y)),
    }
    m
}
