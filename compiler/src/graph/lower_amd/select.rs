//! Instruction selection: each IR instruction as machine instructions. Uniform index math is
//! SALU on SGPRs; everything per lane is VALU. A VALU instruction reads at most one SGPR or
//! literal (the constant-bus limit of gfx9; gfx10+ allow two, one is enough); the others are
//! moved to temporary VGPRs first.

use crate::isa::builder::operand::{is_inline_f32, is_inline_int};
use crate::isa::builder::{s, v, Ctors, Operand, Reg};

use super::super::dtype::DType;
use super::super::ir::{IdxOp, Inst, Kernel, Val};
use super::super::ops::{BinaryOp, UnaryOp};
use super::regs::Home;
use super::{codegen, Lower};
use crate::graph::error::GraphError;

/// `1/(2*pi)`: `v_sin_f32` takes revolutions.
const INV_2PI: f32 = 0.159_154_94;

impl Lower<'_> {
    /// The operand that reads `val`.
    pub(super) fn operand(&self, val: Val) -> Operand {
        match (self.home[val], self.k.insts[val]) {
            (Home::Sgpr(r), _) => s(r).into(),
            (Home::Vgpr(r), _) => v(r).into(),
            (Home::Const, Inst::Const(d, bits)) if d.is_float() => Operand::F32(f32::from_bits(bits)),
            (Home::Const, Inst::Const(_, bits)) => Operand::Int(bits as i32 as i64),
            (Home::Const, _) => unreachable!("only constants live outside registers"),
        }
    }

    /// Whether an operand goes over the constant bus (an SGPR or a literal).
    fn scalar(&self, o: &Operand) -> bool {
        match *o {
            Operand::Reg { reg, .. } => reg.file == crate::isa::builder::RegFile::Sgpr,
            Operand::Int(i) => !is_inline_int(i),
            Operand::F32(f) => !is_inline_f32(f),
            _ => false,
        }
    }

    /// Operands for one VALU instruction: the first scalar one stays, the others are moved to
    /// `vt[0..]`; CDNA takes no literal in VOP3, so there every literal moves.
    pub(super) fn vops(&mut self, vals: &[Val]) -> Vec<Operand> {
        let mut out = Vec::with_capacity(vals.len());
        let mut scalars = 0;
        for (i, &x) in vals.iter().enumerate() {
            let o = self.operand(x);
            let literal = matches!(o, Operand::Int(_) | Operand::F32(_)) && self.scalar(&o);
            if self.scalar(&o) && (scalars > 0 || (self.wave64 && literal)) {
                let t = v(self.f.vt[i]);
                self.b.v_mov_b32(t, o);
                out.push(t.into());
            } else {
                scalars += usize::from(self.scalar(&o));
                out.push(o);
            }
        }
        out
    }

    pub(super) fn dst(&self, val: Val) -> Reg {
        match self.home[val] {
            Home::Sgpr(r) => s(r),
            Home::Vgpr(r) => v(r),
            Home::Const => unreachable!("a value with a register"),
        }
    }

    /// `d = cond(vcc) ? 1 : 0`.
    pub(super) fn bool_from_vcc(&mut self, d: Reg) {
        let vcc = self.vcc();
        self.b.v_cndmask_b32(d, 0, 1, vcc);
    }

    /// vcc = (x != 0), x a 0/1 value.
    pub(super) fn vcc_from_bool(&mut self, x: Operand) {
        let vcc = self.vcc();
        self.b.v_cmp_ne_u32(vcc, 0, x);
    }

    pub(super) fn inst(&mut self, val: Val) -> Result<(), GraphError> {
        let reads_load = |o: &Val| matches!(self.k.insts[*o], Inst::Load { .. });
        if self.loads_pending && Kernel::operands(&self.k.insts[val]).iter().any(reads_load) {
            self.wait_loads();
        }
        match self.k.insts[val] {
            Inst::OutIdx | Inst::RedIdx | Inst::Acc | Inst::Tile(_) | Inst::Const(..) => {}
            Inst::Idx(op, a, b) if self.uniform[val] => self.salu_idx(val, op, a, b),
            Inst::Idx(op, a, b) => self.valu_idx(val, op, a, b),
            Inst::Load { buf, idx, valid, .. } => self.load(val, buf, idx, valid),
            Inst::Store { buf, idx, val: x, .. } => self.store(buf, idx, x),
            Inst::Unary(op, d, a) => self.unary(val, op, d, a),
            Inst::Binary(op, d, a, b) => self.binary(val, op, d, a, b)?,
            Inst::Where(_, c, a, b) => {
                let ops = self.vops(&[c, a, b]);
                self.vcc_from_bool(ops[0]);
                let (d, vcc) = (self.dst(val), self.vcc());
                self.b.v_cndmask_b32(d, ops[2], ops[1], vcc);
            }
        }
        match self.b.error() {
            Some(e) => Err(codegen(self.k, e.to_string())),
            None => Ok(()),
        }
    }

    /// The magic multiplier and shift of a division by `d` (not a power of two) for dividends
    /// below 2^31: `x / d == mulhi(x, m) >> shift`.
    pub(super) fn magic(d: u32) -> (u32, u32) {
        let l = 32 - (d - 1).leading_zeros(); // ceil(log2 d)
        let m = ((1u64 << (31 + l)).div_ceil(d as u64)) as u32;
        (m, l - 1)
    }

    fn salu_idx(&mut self, val: Val, op: IdxOp, a: Val, b: Val) {
        let (d, x, y) = (self.dst(val), self.operand(a), self.operand(b));
        let t = s(self.f.tmp);
        match op {
            IdxOp::Add => {
                self.s_add_u32(d, x, y);
            }
            IdxOp::Mul => {
                self.b.s_mul_i32(d, x, y);
            }
            IdxOp::DivC(n) | IdxOp::ModC(n) => {
                let q = if matches!(op, IdxOp::DivC(_)) { d } else { t };
                if n.is_power_of_two() {
                    self.b.s_lshr_b32(q, x, n.trailing_zeros() as i32);
                } else {
                    let (m, sh) = Self::magic(n);
                    self.b.s_mul_hi_u32(q, x, Operand::Int(m as i64)).s_lshr_b32(q, q, sh as i32);
                }
                if let IdxOp::ModC(_) = op {
                    self.b.s_mul_i32(t, t, Operand::Int(n as i64));
                    self.s_sub_u32(d, x, t.into());
                }
            }
            IdxOp::Lt => {
                self.b.s_cmp_lt_u32(x, y).s_cselect_b32(d, 1, 0);
            }
            IdxOp::And => {
                self.b.s_and_b32(d, x, y);
            }
        }
    }

    fn valu_idx(&mut self, val: Val, op: IdxOp, a: Val, b: Val) {
        let d = self.dst(val);
        let ops = self.vops(&[a, b]);
        let (x, y) = (ops[0], ops[1]);
        let t = v(self.f.vt[2]);
        match op {
            IdxOp::Add => self.t.v_add_u32(&mut self.b, d, x, y),
            IdxOp::Mul => {
                self.b.v_mul_lo_u32(d, x, y);
            }
            IdxOp::DivC(n) | IdxOp::ModC(n) => {
                let q = if matches!(op, IdxOp::DivC(_)) { d } else { t };
                if n.is_power_of_two() {
                    self.b.v_lshrrev_b32(q, n.trailing_zeros() as i32, x);
                } else {
                    let (m, sh) = Self::magic(n);
                    let m = self.literal_operand(m, 3);
                    self.b.v_mul_hi_u32(q, x, m).v_lshrrev_b32(q, sh as i32, q);
                }
                if let IdxOp::ModC(_) = op {
                    let n = self.literal_operand(n, 3);
                    self.b.v_mul_lo_u32(t, t, n);
                    self.v_sub_u32(d, x, t.into());
                }
            }
            IdxOp::Lt => {
                let vcc = self.vcc();
                self.b.v_cmp_lt_u32(vcc, x, y);
                self.bool_from_vcc(d);
            }
            IdxOp::And => {
                self.b.v_and_b32(d, x, y);
            }
        }
    }

    /// A 32-bit constant for a VOP3 operand: an immediate, or (CDNA, not inline) in `vt[i]`.
    pub(super) fn literal_operand(&mut self, value: u32, i: usize) -> Operand {
        let o = Operand::Int(value as i32 as i64);
        if self.wave64 && self.scalar(&o) {
            self.b.v_mov_b32(v(self.f.vt[i]), o);
            return v(self.f.vt[i]).into();
        }
        o
    }

    /// `s_add_u32` (gfx12: `s_add_co_u32`).
    fn s_add_u32(&mut self, d: Reg, x: Operand, y: Operand) {
        if self.b.arch() == crate::isa::Arch::Gfx1201 {
            self.b.s_add_co_u32(d, x, y);
        } else {
            self.b.s_add_u32(d, x, y);
        }
    }

    /// `s_sub_u32` (gfx12: `s_sub_co_u32`).
    pub(super) fn s_sub_u32(&mut self, d: Reg, x: Operand, y: Operand) {
        if self.b.arch() == crate::isa::Arch::Gfx1201 {
            self.b.s_sub_co_u32(d, x, y);
        } else {
            self.b.s_sub_u32(d, x, y);
        }
    }

    /// `v_max_f32` (gfx12: `v_max_num_f32`).
    pub(super) fn v_max_f32(&mut self, d: Reg, x: Operand, y: Operand) {
        if self.b.arch() == crate::isa::Arch::Gfx1201 {
            self.b.v_max_num_f32(d, x, y);
        } else {
            self.b.v_max_f32(d, x, y);
        }
    }

    /// `v_min_f32` (gfx12: `v_min_num_f32`).
    fn v_min_f32(&mut self, d: Reg, x: Operand, y: Operand) {
        if self.b.arch() == crate::isa::Arch::Gfx1201 {
            self.b.v_min_num_f32(d, x, y);
        } else {
            self.b.v_min_f32(d, x, y);
        }
    }

    pub(super) fn v_sub_u32(&mut self, d: Reg, x: Operand, y: Operand) {
        if self.wave64 {
            self.b.v_sub_u32(d, x, y);
        } else {
            self.b.v_sub_nc_u32(d, x, y);
        }
    }

    fn unary(&mut self, val: Val, op: UnaryOp, to: DType, a: Val) {
        let from = self.k.dtype(a);
        let d = self.dst(val);
        // Neg and Sin add a literal of their own: the operand must be a VGPR.
        let x = self.vops(&[a])[0];
        let xr = self.in_vgpr(x, v(self.f.vt[0]));
        let x: Operand = xr.into();
        let t = v(self.f.vt[2]);
        match op {
            UnaryOp::Neg if to == DType::I32 => self.v_sub_u32(d, Operand::Int(0), x),
            UnaryOp::Neg => {
                self.b.v_xor_b32(d, Operand::Int(0x8000_0000), x);
            }
            UnaryOp::Exp2 => {
                self.b.v_exp_f32(d, x);
            }
            UnaryOp::Log2 => {
                self.b.v_log_f32(d, x);
            }
            UnaryOp::Sqrt => {
                self.b.v_sqrt_f32(d, x);
            }
            UnaryOp::Rsqrt => {
                self.b.v_rsq_f32(d, x);
            }
            UnaryOp::Recip => {
                self.b.v_rcp_f32(d, x);
            }
            UnaryOp::Sin => {
                self.b.v_mul_f32(t, Operand::F32(INV_2PI), x).v_sin_f32(d, t);
            }
            UnaryOp::Bitcast(_) => self.bitcast(d, from, to, xr),
            UnaryOp::Cast(_) => self.cast(d, from, to, xr),
        }
    }

    fn binary(&mut self, val: Val, op: BinaryOp, dt: DType, a: Val, b: Val) -> Result<(), GraphError> {
        let d = self.dst(val);
        let ops = self.vops(&[a, b]);
        let (x, y) = (ops[0], ops[1]);
        let vcc = self.vcc();
        let float = dt.is_float();
        use BinaryOp::*;
        match op {
            Add if float => {
                self.b.v_add_f32(d, x, y);
            }
            Sub if float => {
                self.b.v_sub_f32(d, x, y);
            }
            Mul if float => {
                self.b.v_mul_f32(d, x, y);
            }
            Div if float => {
                let t = v(self.f.vt[2]);
                self.b.v_rcp_f32(t, y).v_mul_f32(d, x, t);
            }
            Max if float => {
                self.v_max_f32(d, x, y);
            }
            Min if float => {
                self.v_min_f32(d, x, y);
            }
            CmpLt if float => {
                self.b.v_cmp_lt_f32(vcc, x, y);
            }
            CmpEq if float => {
                self.b.v_cmp_eq_f32(vcc, x, y);
            }
            CmpNe if float => {
                self.b.v_cmp_neq_f32(vcc, x, y);
            }
            Add => self.t.v_add_u32(&mut self.b, d, x, y),
            Sub => self.v_sub_u32(d, x, y),
            Mul => {
                self.b.v_mul_lo_u32(d, x, y);
            }
            Max if dt == DType::I32 => {
                self.b.v_max_i32(d, x, y);
            }
            Min if dt == DType::I32 => {
                self.b.v_min_i32(d, x, y);
            }
            Max => {
                self.b.v_max_u32(d, x, y);
            }
            Min => {
                self.b.v_min_u32(d, x, y);
            }
            CmpLt if dt == DType::I32 => {
                self.b.v_cmp_lt_i32(vcc, x, y);
            }
            CmpLt => {
                self.b.v_cmp_lt_u32(vcc, x, y);
            }
            CmpEq => {
                self.b.v_cmp_eq_u32(vcc, x, y);
            }
            CmpNe => {
                self.b.v_cmp_ne_u32(vcc, x, y);
            }
            And => {
                self.b.v_and_b32(d, x, y);
            }
            Or => {
                self.b.v_or_b32(d, x, y);
            }
            Xor => {
                self.b.v_xor_b32(d, x, y);
            }
            Shl => {
                self.b.v_lshlrev_b32(d, y, x);
            }
            Shr => {
                self.b.v_ashrrev_i32(d, y, x);
            }
            Div => return Err(codegen(self.k, format!("{dt} division"))),
        }
        if op.is_comparison() {
            self.bool_from_vcc(d);
        }
        // u8 arithmetic wraps: keep the register in 0..=255.
        if dt == DType::U8 && matches!(op, Add | Sub | Mul | Shl) {
            self.b.v_and_b32(d, 0xff, d);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Lower;

    #[test]
    fn magic_division_is_exact_below_2_pow_31() {
        let mut x = 0x1234_5678u32;
        for d in [3u32, 5, 6, 7, 10, 12, 100, 1000, 65537, 1 << 20 | 1, 0x7fff_ffff] {
            let (m, sh) = Lower::magic(d);
            let check = |n: u32| assert_eq!(((n as u64 * m as u64) >> 32) as u32 >> sh, n / d, "{n} / {d}");
            for n in
                (0..10_000).chain([(1 << 31) - 1, (1 << 31) - 2, d - 1, d, d + 1, 2 * d - 1]).filter(|&n| n < 1 << 31)
            {
                check(n);
            }
            for _ in 0..10_000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                check(x >> 1);
            }
        }
    }
}
