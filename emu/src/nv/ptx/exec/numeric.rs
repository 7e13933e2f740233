//! Numbers: f16/bf16 conversions, rounding, `cvt`, comparisons, and the integer, float and
//! atomic operations the instructions apply.

use super::super::ir::*;

pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // Subnormal: normalise.
            let mut e = 127 - 15 + 1;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((m & 0x3ff) << 13)
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

pub(super) fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

pub(super) fn f32_to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let r = b.wrapping_add(0x7fff + ((b >> 16) & 1));
    (r >> 16) as u16
}

/// A float register value as f64.
pub(super) fn to_f(ty: Ty, v: u64) -> f64 {
    match ty {
        Ty::F16 => f16_to_f32(v as u16) as f64,
        Ty::Bf16 => bf16_to_f32(v as u16) as f64,
        Ty::F32 => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}

/// An f64 as the bits of `ty`, rounding to nearest. A NaN f16 result is NVIDIA's canonical
/// 0x7fff (an H200 gave it for `0 * inf` where the host's arithmetic gives 0xfe00).
pub(super) fn from_f(ty: Ty, x: f64) -> u64 {
    match ty {
        Ty::F16 if x.is_nan() => 0x7fff,
        Ty::F16 => f32_to_f16(x as f32) as u64,
        Ty::Bf16 => f32_to_bf16(x as f32) as u64,
        Ty::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

pub(super) fn sext(ty: Ty, v: u64) -> i64 {
    let bits = ty.bits().min(64);
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

pub(super) fn widen(ty: Ty) -> Ty {
    match ty {
        Ty::U16 => Ty::U32,
        Ty::S16 => Ty::S32,
        Ty::U32 => Ty::U64,
        Ty::S32 => Ty::S64,
        Ty::B16 => Ty::B32,
        Ty::B32 => Ty::B64,
        t => t,
    }
}

/// f64 → f32 with a directed rounding mode.
pub(super) fn round_f32(x: f64, rnd: Rnd) -> f32 {
    let r = x as f32;
    if !r.is_finite() || r as f64 == x {
        return r;
    }
    let up = |f: f32| f32::from_bits(if f >= 0.0 { f.to_bits() + 1 } else { f.to_bits() - 1 });
    let down = |f: f32| {
        if f == 0.0 {
            -f32::from_bits(1)
        } else if f > 0.0 {
            f32::from_bits(f.to_bits() - 1)
        } else {
            f32::from_bits(f.to_bits() + 1)
        }
    };
    match rnd {
        Rnd::Rz if (r as f64).abs() > x.abs() => {
            if r > 0.0 {
                down(r)
            } else {
                up(r)
            }
        }
        Rnd::Rm if (r as f64) > x => down(r),
        Rnd::Rp if (r as f64) < x => up(r),
        _ => r,
    }
}

pub(super) fn round_int(x: f64, rnd: Rnd) -> f64 {
    match rnd {
        Rnd::Rzi | Rnd::Rz => x.trunc(),
        Rnd::Rmi | Rnd::Rm => x.floor(),
        Rnd::Rpi | Rnd::Rp => x.ceil(),
        _ => x.round_ties_even(),
    }
}

pub(super) fn int_range(ty: Ty) -> (f64, f64) {
    let bits = ty.bits() as i32;
    if ty.signed() {
        (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1) - 1.0)
    } else {
        (0.0, 2f64.powi(bits) - 1.0)
    }
}

pub(super) fn cvt(inst: &Inst, v: u64) -> u64 {
    let (dt, st) = (inst.ty, inst.ty2);
    if st.float() {
        let x = to_f(st, v);
        if dt.float() {
            let x =
                if matches!(inst.rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi) { round_int(x, inst.rnd) } else { x };
            let x = if inst.sat { sat(x) } else { x };
            return match dt {
                Ty::F32 => round_f32(x, inst.rnd).to_bits() as u64,
                _ => from_f(dt, x),
            };
        }
        if x.is_nan() {
            return 0;
        }
        let (lo, hi) = int_range(dt);
        let r = round_int(x, inst.rnd).clamp(lo, hi);
        return if dt.signed() { (r as i64) as u64 & dt.mask() } else { (r as u64) & dt.mask() };
    }
    // Integer source.
    let sv = if st.signed() { sext(st, v) } else { (v & st.mask()) as i64 };
    let unsigned_big = !st.signed() && st.bits() == 64;
    if dt.float() {
        let x = if unsigned_big { v as f64 } else { sv as f64 };
        return match dt {
            Ty::F32 => (if unsigned_big { v as f32 } else { sv as f32 }).to_bits() as u64,
            _ => from_f(dt, x),
        };
    }
    if inst.sat {
        let (lo, hi) = int_range(dt);
        let x = if unsigned_big { v as f64 } else { sv as f64 };
        let c = x.clamp(lo, hi);
        return if dt.signed() { (c as i64) as u64 & dt.mask() } else { (c as u64) & dt.mask() };
    }
    (sv as u64) & if dt.bits() >= 64 { u64::MAX } else { dt.mask() }
}

pub(super) fn sat(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

pub(super) fn fbin(ty: Ty, a: u64, b: u64, f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64) -> u64 {
    match ty {
        Ty::F32 => f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        Ty::F64 => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
        Ty::F16 | Ty::Bf16 => from_f(ty, f32op(to_f(ty, a) as f32, to_f(ty, b) as f32) as f64),
        Ty::F16x2 | Ty::Bf16x2 => {
            let e = if ty == Ty::F16x2 { Ty::F16 } else { Ty::Bf16 };
            let lo = fbin(e, a & 0xffff, b & 0xffff, f32op, f64op);
            let hi = fbin(e, (a >> 16) & 0xffff, (b >> 16) & 0xffff, f32op, f64op);
            lo | (hi << 16)
        }
        _ => 0,
    }
}

pub(super) fn compare(cmp: Cmp, ty: Ty, a: u64, b: u64) -> bool {
    if ty.float() {
        let (x, y) = (to_f(ty, a), to_f(ty, b));
        let nan = x.is_nan() || y.is_nan();
        return match cmp {
            Cmp::Eq => !nan && x == y,
            Cmp::Ne => !nan && x != y,
            Cmp::Lt | Cmp::Lo => !nan && x < y,
            Cmp::Le | Cmp::Ls => !nan && x <= y,
            Cmp::Gt | Cmp::Hi => !nan && x > y,
            Cmp::Ge | Cmp::Hs => !nan && x >= y,
            Cmp::Equ => nan || x == y,
            Cmp::Neu => nan || x != y,
            Cmp::Ltu => nan || x < y,
            Cmp::Leu => nan || x <= y,
            Cmp::Gtu => nan || x > y,
            Cmp::Geu => nan || x >= y,
            Cmp::Num => !nan,
            Cmp::Nan => nan,
        };
    }
    let (ua, ub) = (a & ty.mask(), b & ty.mask());
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    let s = ty.signed();
    match cmp {
        Cmp::Eq | Cmp::Equ => ua == ub,
        Cmp::Ne | Cmp::Neu => ua != ub,
        Cmp::Lt | Cmp::Ltu => {
            if s {
                sa < sb
            } else {
                ua < ub
            }
        }
        Cmp::Le | Cmp::Leu => {
            if s {
                sa <= sb
            } else {
                ua <= ub
            }
        }
        Cmp::Gt | Cmp::Gtu => {
            if s {
                sa > sb
            } else {
                ua > ub
            }
        }
        Cmp::Ge | Cmp::Geu => {
            if s {
                sa >= sb
            } else {
                ua >= ub
            }
        }
        Cmp::Lo => ua < ub,
        Cmp::Ls => ua <= ub,
        Cmp::Hi => ua > ub,
        Cmp::Hs => ua >= ub,
        Cmp::Num => true,
        Cmp::Nan => false,
    }
}

pub(super) fn atom_apply(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let m = ty.mask();
    let r = match op {
        AtomOp::Add if ty.float() => fbin(ty, old, b, |x, y| x + y, |x, y| x + y),
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::Min if ty.float() => from_f(ty, to_f(ty, old).min(to_f(ty, b))),
        AtomOp::Max if ty.float() => from_f(ty, to_f(ty, old).max(to_f(ty, b))),
        AtomOp::Min => {
            if ty.signed() {
                sext(ty, old).min(sext(ty, b)) as u64
            } else {
                (old & m).min(b & m)
            }
        }
        AtomOp::Max => {
            if ty.signed() {
                sext(ty, old).max(sext(ty, b)) as u64
            } else {
                (old & m).max(b & m)
            }
        }
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old & m == b & m {
                c
            } else {
                old
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Inc => {
            if old & m >= b & m {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old & m == 0 || old & m > b & m {
                b
            } else {
                old - 1
            }
        }
    };
    r & m
}

pub(super) fn int_bin(op: Op, ty: Ty, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let s = ty.signed();
    match op {
        Op::Add => a.wrapping_add(b),
        Op::Sub => a.wrapping_sub(b),
        Op::Div => {
            if b & ty.mask() == 0 {
                u64::MAX
            } else if s {
                sext(ty, a).wrapping_div(sext(ty, b)) as u64
            } else {
                (a & ty.mask()) / (b & ty.mask())
            }
        }
        Op::Rem => {
            if b & ty.mask() == 0 {
                a
            } else if s {
                sext(ty, a).wrapping_rem(sext(ty, b)) as u64
            } else {
                (a & ty.mask()) % (b & ty.mask())
            }
        }
        Op::Min => {
            if s {
                sext(ty, a).min(sext(ty, b)) as u64
            } else {
                (a & ty.mask()).min(b & ty.mask())
            }
        }
        Op::Max => {
            if s {
                sext(ty, a).max(sext(ty, b)) as u64
            } else {
                (a & ty.mask()).max(b & ty.mask())
            }
        }
        Op::And => a & b,
        Op::Or => a | b,
        Op::Xor => a ^ b,
        Op::Shl => {
            let n = b as u32;
            if n >= bits {
                0
            } else {
                a << n
            }
        }
        Op::Shr => {
            let n = (b as u32).min(bits);
            if s {
                (sext(ty, a) >> n.min(63)) as u64
            } else if n >= bits {
                0
            } else {
                (a & ty.mask()) >> n
            }
        }
        _ => 0,
    }
}

pub(super) fn mul(w: Width, ty: Ty, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let full: i128 = if ty.signed() {
        sext(ty, a) as i128 * sext(ty, b) as i128
    } else {
        ((a & ty.mask()) as u128 * (b & ty.mask()) as u128) as i128
    };
    match w {
        Width::Hi => (full >> bits) as u64,
        _ => full as u64,
    }
}
