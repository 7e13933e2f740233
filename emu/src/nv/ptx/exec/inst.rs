//! The instructions that compute: moves, loads and stores, integer and float arithmetic, bit
//! operations, comparisons and atomics (control flow is the thread's, see [`super::thread`]).

use super::memory::{atomic, load, locate, offset_loc, store};
use super::numeric::{atom_apply, compare, cvt, fbin, from_f, int_bin, mul, sat, sext, to_f, widen};
use super::thread::{set, value};
use super::*;

pub(super) fn exec(ctx: &Ctx, t: &mut Thread, shared: &mut [u8], inst: &Inst) -> F<()> {
    let float = inst.ty.float();
    match inst.op {
        Op::Mov | Op::Ld(_) | Op::St(_) | Op::Cvta { .. } => data(ctx, t, shared, inst),
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Div | Op::Rem | Op::Mul(_) | Op::Mad(_) if float => {
            float_arith(ctx, t, inst)
        }
        Op::Fma => float_arith(ctx, t, inst),
        Op::Add
        | Op::Sub
        | Op::Min
        | Op::Max
        | Op::Div
        | Op::Rem
        | Op::And
        | Op::Or
        | Op::Xor
        | Op::Shl
        | Op::Shr
        | Op::Mul(_)
        | Op::Mad(_) => int_arith(ctx, t, inst),
        Op::Abs | Op::Neg | Op::Not | Op::Cnot => unary(ctx, t, inst),
        Op::Setp(..) | Op::Selp | Op::Cvt => compare_select_convert(ctx, t, inst),
        Op::Sqrt
        | Op::Rcp
        | Op::Rsqrt
        | Op::Ex2
        | Op::Lg2
        | Op::Sin
        | Op::Cos
        | Op::Tanh
        | Op::Copysign
        | Op::Testp(_) => float_math(ctx, t, inst),
        Op::Clz | Op::Popc | Op::Brev | Op::Bfe | Op::Bfi | Op::Prmt | Op::Shf { .. } => bits(ctx, t, inst),
        Op::Atom(..) | Op::Red(..) => atomics(ctx, t, shared, inst),
        Op::Activemask => set(t, &inst.ops[0], Ty::B32, 0xffff_ffff),
        Op::Nop => Ok(()),
        Op::Bra | Op::Ret | Op::Exit | Op::Call | Op::Bar | Op::Shfl(_) | Op::Vote(_) | Op::Trap => {
            unreachable!("handled by step_thread")
        }
    }
}

/// Moves, loads, stores and address conversions.
fn data(ctx: &Ctx, t: &mut Thread, shared: &mut [u8], inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Mov => match (&o[0], &o[1]) {
            (Opnd::Vec(parts), src) => {
                let x = value(ctx, t, src, ty)?;
                let w = ty.bits() / parts.len() as u32;
                for (k, p) in parts.iter().enumerate() {
                    set(t, p, Ty::B64, (x >> (w * k as u32)) & ((1u64 << w) - 1))?;
                }
            }
            (dst, Opnd::Vec(parts)) => {
                let w = ty.bits() / parts.len() as u32;
                let mut x = 0u64;
                for (k, p) in parts.iter().enumerate() {
                    x |= (value(ctx, t, p, ty)? & ((1u64 << w) - 1)) << (w * k as u32);
                }
                set(t, dst, ty, x)?;
            }
            (dst, src) => {
                let x = value(ctx, t, src, ty)?;
                set(t, dst, ty, x)?;
            }
        },
        Op::Ld(space) => {
            let es = ty.size();
            let n = inst.vec as u32;
            let (loc, _) = locate(ctx, t, shared, space, &o[1], es * n, false)?;
            let dsts: Vec<Opnd> = match &o[0] {
                Opnd::Vec(v) => v.clone(),
                d => vec![d.clone()],
            };
            if dsts.len() as u32 != n {
                return Err(Fault::Illegal("vector width and operand count differ".into()));
            }
            for (k, d) in dsts.iter().enumerate() {
                let eloc = offset_loc(&loc, k * es as usize);
                let x = load(ctx, t, shared, &eloc, es);
                // A signed load sign-extends to the destination register's width (`ld.s8` into a
                // .b32, `ld.s32` into a .b64): registers hold 64 bits, so extend to all of them and
                // let each reader take its width.
                if ty.signed() {
                    set(t, d, Ty::S64, sext(ty, x) as u64)?;
                } else {
                    set(t, d, ty, x)?;
                }
            }
        }
        Op::St(space) => {
            let es = ty.size();
            let n = inst.vec as u32;
            let (loc, _) = locate(ctx, t, shared, space, &o[0], es * n, true)?;
            let srcs: Vec<Opnd> = match &o[1] {
                Opnd::Vec(v) => v.clone(),
                s => vec![s.clone()],
            };
            if srcs.len() as u32 != n {
                return Err(Fault::Illegal("vector width and operand count differ".into()));
            }
            for (k, s) in srcs.iter().enumerate() {
                let x = value(ctx, t, s, ty)?;
                let eloc = offset_loc(&loc, k * es as usize);
                store(ctx, t, shared, &eloc, es, x);
            }
        }
        Op::Cvta { to, space } => {
            let x = v(t, 1, ty)?;
            let window = match space {
                Space::Shared => SHARED_WINDOW,
                Space::Local => LOCAL_WINDOW,
                _ => 0,
            };
            let r = if to { x.wrapping_sub(window) } else { x.wrapping_add(window) };
            set(t, &o[0], ty, r)?;
        }
        _ => unreachable!("exec dispatches only moves, loads and stores here"),
    }
    Ok(())
}

/// Integer arithmetic, logic and shifts.
fn int_arith(ctx: &Ctx, t: &mut Thread, inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Div | Op::Rem | Op::And | Op::Or | Op::Xor | Op::Shl | Op::Shr => {
            let bty = if matches!(inst.op, Op::Shl | Op::Shr) { Ty::U32 } else { ty };
            let (a, b) = (v(t, 1, ty)?, v(t, 2, bty)?);
            let mut r = int_bin(inst.op, ty, a, b);
            if inst.sat && ty == Ty::S32 && matches!(inst.op, Op::Add | Op::Sub) {
                let x = if inst.op == Op::Add {
                    sext(ty, a).saturating_add(sext(ty, b))
                } else {
                    sext(ty, a).saturating_sub(sext(ty, b))
                };
                r = x.clamp(i32::MIN as i64, i32::MAX as i64) as u64;
            }
            set(t, &o[0], ty, r)?;
        }
        Op::Mul(w) => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let dty = if w == Width::Wide { widen(ty) } else { ty };
            set(t, &o[0], dty, mul(w, ty, a, b))?;
        }
        Op::Mad(w) => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let dty = if w == Width::Wide { widen(ty) } else { ty };
            let c = v(t, 3, dty)?;
            set(t, &o[0], dty, mul(w, ty, a, b).wrapping_add(c))?;
        }
        _ => unreachable!("exec dispatches only integer arithmetic here"),
    }
    Ok(())
}

/// Float arithmetic: add, subtract, min, max, divide, multiply, fused multiply-add.
fn float_arith(ctx: &Ctx, t: &mut Thread, inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Div | Op::Rem => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let r = match inst.op {
                Op::Add => fbin(ty, a, b, |x, y| x + y, |x, y| x + y),
                Op::Sub => fbin(ty, a, b, |x, y| x - y, |x, y| x - y),
                Op::Div => fbin(ty, a, b, |x, y| x / y, |x, y| x / y),
                Op::Min => fbin(ty, a, b, f32::min, f64::min),
                Op::Max => fbin(ty, a, b, f32::max, f64::max),
                _ => return Err(Fault::Illegal("rem on floats".into())),
            };
            let r = if inst.sat { from_f(ty, sat(to_f(ty, r))) } else { r };
            set(t, &o[0], ty, r)?;
        }
        Op::Mul(_) => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let r = fbin(ty, a, b, |x, y| x * y, |x, y| x * y);
            let r = if inst.sat { from_f(ty, sat(to_f(ty, r))) } else { r };
            set(t, &o[0], ty, r)?;
        }
        Op::Fma | Op::Mad(_) => {
            let (a, b, c) = (v(t, 1, ty)?, v(t, 2, ty)?, v(t, 3, ty)?);
            let r = match ty {
                Ty::F32 => f32::from_bits(a as u32)
                    .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32))
                    .to_bits() as u64,
                Ty::F64 => f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)).to_bits(),
                Ty::F16 | Ty::Bf16 => from_f(ty, to_f(ty, a).mul_add(to_f(ty, b), to_f(ty, c))),
                Ty::F16x2 | Ty::Bf16x2 => {
                    let e = if ty == Ty::F16x2 { Ty::F16 } else { Ty::Bf16 };
                    let one = |s: u32| {
                        from_f(
                            e,
                            to_f(e, (a >> s) & 0xffff).mul_add(to_f(e, (b >> s) & 0xffff), to_f(e, (c >> s) & 0xffff)),
                        )
                    };
                    one(0) | (one(16) << 16)
                }
                _ => return Err(Fault::Illegal("fma on a non-float type".into())),
            };
            let r = if inst.sat { from_f(ty, sat(to_f(ty, r))) } else { r };
            set(t, &o[0], ty, r)?;
        }
        _ => unreachable!("exec dispatches only float arithmetic here"),
    }
    Ok(())
}

/// Absolute value, negation and the two complements (`not`, `cnot`).
fn unary(ctx: &Ctx, t: &mut Thread, inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Abs | Op::Neg => {
            let a = v(t, 1, ty)?;
            let r = if ty.float() {
                let sign = match ty {
                    Ty::F64 => 1u64 << 63,
                    Ty::F32 => 1 << 31,
                    Ty::F16x2 | Ty::Bf16x2 => 0x8000_8000,
                    _ => 1 << 15,
                };
                if inst.op == Op::Abs {
                    a & !sign
                } else {
                    a ^ sign
                }
            } else if inst.op == Op::Abs {
                sext(ty, a).wrapping_abs() as u64
            } else {
                sext(ty, a).wrapping_neg() as u64
            };
            set(t, &o[0], ty, r)?;
        }
        Op::Not => {
            let a = v(t, 1, ty)?;
            let r = if ty == Ty::Pred { (a == 0) as u64 } else { !a };
            set(t, &o[0], ty, r)?;
        }
        Op::Cnot => {
            let a = v(t, 1, ty)?;
            set(t, &o[0], ty, (a & ty.mask() == 0) as u64)?;
        }
        _ => unreachable!("exec dispatches only unary operations here"),
    }
    Ok(())
}

/// Comparisons into predicates, selection by a predicate, and conversions.
fn compare_select_convert(ctx: &Ctx, t: &mut Thread, inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Setp(cmp, bop) => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let mut r = compare(cmp, ty, a, b);
            let mut q = !r;
            if let Some(bop) = bop {
                let c = v(t, 3, Ty::Pred)? != 0;
                let comb = |x: bool| match bop {
                    BoolOp::And => x && c,
                    BoolOp::Or => x || c,
                    BoolOp::Xor => x ^ c,
                };
                r = comb(r);
                q = comb(q);
            }
            match &o[0] {
                Opnd::Pair(p, pq) => {
                    set(t, &Opnd::Reg(*p), Ty::Pred, r as u64)?;
                    set(t, &Opnd::Reg(*pq), Ty::Pred, q as u64)?;
                }
                d => set(t, d, Ty::Pred, r as u64)?,
            }
        }
        Op::Selp => {
            let c = v(t, 3, Ty::Pred)? != 0;
            let x = if c { v(t, 1, ty)? } else { v(t, 2, ty)? };
            set(t, &o[0], ty, x)?;
        }
        Op::Cvt => {
            let a = v(t, 1, inst.ty2)?;
            set(t, &o[0], ty, cvt(inst, a))?;
        }
        _ => unreachable!("exec dispatches only compare, select and convert here"),
    }
    Ok(())
}

/// Float functions (square root, reciprocal, exponentials, trigonometry), copysign and class tests.
fn float_math(ctx: &Ctx, t: &mut Thread, inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Sqrt | Op::Rcp | Op::Rsqrt | Op::Ex2 | Op::Lg2 | Op::Sin | Op::Cos | Op::Tanh => {
            let a = v(t, 1, ty)?;
            let f32op: fn(f32, f32) -> f32 = match inst.op {
                Op::Sqrt => |x, _| x.sqrt(),
                Op::Rcp => |x, _| 1.0 / x,
                Op::Rsqrt => |x, _| 1.0 / x.sqrt(),
                Op::Ex2 => |x, _| x.exp2(),
                Op::Lg2 => |x, _| x.log2(),
                Op::Sin => |x, _| x.sin(),
                Op::Cos => |x, _| x.cos(),
                _ => |x, _| x.tanh(),
            };
            let f64op: fn(f64, f64) -> f64 = match inst.op {
                Op::Sqrt => |x, _| x.sqrt(),
                Op::Rcp => |x, _| 1.0 / x,
                Op::Rsqrt => |x, _| 1.0 / x.sqrt(),
                Op::Ex2 => |x, _| x.exp2(),
                Op::Lg2 => |x, _| x.log2(),
                Op::Sin => |x, _| x.sin(),
                Op::Cos => |x, _| x.cos(),
                _ => |x, _| x.tanh(),
            };
            set(t, &o[0], ty, fbin(ty, a, 0, f32op, f64op))?;
        }
        Op::Copysign => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let r = from_f(ty, to_f(ty, b).copysign(to_f(ty, a)));
            set(t, &o[0], ty, r)?;
        }
        Op::Testp(k) => {
            let x = to_f(ty, v(t, 1, ty)?);
            let r = match k {
                0 => x.is_finite(),
                1 => x.is_infinite(),
                2 => !x.is_nan(),
                3 => x.is_nan(),
                4 => x.is_normal(),
                _ => x.is_subnormal() || (ty == Ty::F32 && (x as f32).is_subnormal()),
            };
            set(t, &o[0], Ty::Pred, r as u64)?;
        }
        _ => unreachable!("exec dispatches only float functions here"),
    }
    Ok(())
}

/// Bit operations: counts, reversal, field extract and insert, byte permute, funnel shift.
fn bits(ctx: &Ctx, t: &mut Thread, inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Clz | Op::Popc | Op::Brev => {
            let a = v(t, 1, ty)? & ty.mask();
            let bits = ty.bits();
            let r = match inst.op {
                Op::Clz => (a.leading_zeros() - (64 - bits)) as u64,
                Op::Popc => a.count_ones() as u64,
                _ => a.reverse_bits() >> (64 - bits),
            };
            let dty = if inst.op == Op::Brev { ty } else { Ty::U32 };
            set(t, &o[0], dty, r)?;
        }
        Op::Bfe => {
            let a = v(t, 1, ty)?;
            let pos = (v(t, 2, Ty::U32)? & 0xff) as u32;
            let len = (v(t, 3, Ty::U32)? & 0xff) as u32;
            let bits = ty.bits();
            let r = if len == 0 {
                0
            } else {
                let p = pos.min(bits - 1);
                let x = if ty.signed() { (sext(ty, a) >> p) as u64 } else { (a & ty.mask()) >> p };
                let l = len.min(bits);
                let m = if l >= 64 { u64::MAX } else { (1u64 << l) - 1 };
                let field = x & m;
                if ty.signed() && pos + len > bits {
                    sext(ty, x) as u64
                } else if ty.signed() && l < 64 && field >> (l - 1) & 1 == 1 {
                    field | !m
                } else {
                    field
                }
            };
            set(t, &o[0], ty, r)?;
        }
        Op::Bfi => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let pos = (v(t, 3, Ty::U32)? & 0xff) as u32;
            let len = (v(t, 4, Ty::U32)? & 0xff) as u32;
            let bits = ty.bits();
            let r = if len == 0 || pos >= bits {
                b
            } else {
                let l = len.min(bits - pos);
                let m = if l >= 64 { u64::MAX } else { ((1u64 << l) - 1) << pos };
                (b & !m) | ((a << pos) & m)
            };
            set(t, &o[0], ty, r)?;
        }
        Op::Prmt => {
            let (a, b) = (v(t, 1, Ty::B32)?, v(t, 2, Ty::B32)?);
            let c = v(t, 3, Ty::B32)?;
            let bytes = ((b & 0xffff_ffff) << 32 | (a & 0xffff_ffff)).to_le_bytes();
            let mut r = 0u64;
            for k in 0..4 {
                let sel = (c >> (4 * k)) & 0xf;
                let mut byte = bytes[(sel & 7) as usize];
                if sel & 8 != 0 {
                    byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                }
                r |= (byte as u64) << (8 * k);
            }
            set(t, &o[0], Ty::B32, r)?;
        }
        Op::Shf { left, wrap } => {
            // d = the 32 bits of the 64-bit b:a (b high) shifted by n that straddle the halves:
            // the high word after a left shift, the low word after a right shift.
            let (a, b) = (v(t, 1, Ty::B32)? & 0xffff_ffff, v(t, 2, Ty::B32)? & 0xffff_ffff);
            let c = v(t, 3, Ty::U32)? & 0xffff_ffff;
            let n = if wrap { c & 31 } else { c.min(32) };
            let wide = b << 32 | a;
            let r = if left { (wide << n) >> 32 } else { wide >> n };
            set(t, &o[0], Ty::B32, r & 0xffff_ffff)?;
        }
        _ => unreachable!("exec dispatches only bit operations here"),
    }
    Ok(())
}

/// Atomic read-modify-write (`atom`) and reduction (`red`).
fn atomics(ctx: &Ctx, t: &mut Thread, shared: &mut [u8], inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Atom(space, op) => {
            let (loc, _) = locate(ctx, t, shared, space, &o[1], ty.size(), true)?;
            let b = v(t, 2, ty)?;
            let c = if op == AtomOp::Cas { v(t, 3, ty)? } else { 0 };
            let old = atomic(ctx, t, shared, &loc, ty, |old| atom_apply(op, ty, old, b, c))?;
            set(t, &o[0], ty, old)?;
        }
        Op::Red(space, op) => {
            let (loc, _) = locate(ctx, t, shared, space, &o[0], ty.size(), true)?;
            let b = v(t, 1, ty)?;
            atomic(ctx, t, shared, &loc, ty, |old| atom_apply(op, ty, old, b, 0))?;
        }
        _ => unreachable!("exec dispatches only atomics here"),
    }
    Ok(())
}
