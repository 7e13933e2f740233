//! Element types in AMD code: registers hold every value in 32 bits as [`DType`] says (f16 and
//! bf16 as the f32 of the same value, u8 as 0..=255, bool as 0/1), memory at the type's width.
//! Loads widen, stores round and narrow, casts convert (and round to f16/bf16), bitcasts go
//! through the bits the type has in memory. The ISA has f16 conversions but no bf16 ones, so
//! bf16 rounding is integer arithmetic on the f32 bits.

use crate::isa::builder::{s, v, Ctors, Operand, Reg};

use super::super::dtype::DType;
use super::super::ir::Val;
use super::regs::Home;
use super::Lower;

/// A quiet NaN as bf16 in the high half of an f32.
const BF16_NAN: u32 = 0x7fc0_0000;

impl Lower<'_> {
    /// `x` in a VGPR: itself, or moved to `tmp`.
    pub(super) fn in_vgpr(&mut self, x: Operand, tmp: Reg) -> Reg {
        match x {
            Operand::Reg { reg, .. } if reg.file == crate::isa::builder::RegFile::Vgpr => reg,
            o => {
                self.b.v_mov_b32(tmp, o);
                tmp
            }
        }
    }

    /// The byte address of element `idx` of `size`-byte elements in `v(f.addr)`.
    fn address(&mut self, idx: Val, size: usize) {
        if self.addr_of == Some((idx, size)) {
            return;
        }
        self.addr_of = Some((idx, size));
        let (addr, o) = (v(self.f.addr), self.operand(idx));
        let shift = size.trailing_zeros() as i32;
        match self.home[idx] {
            Home::Vgpr(_) if shift > 0 => {
                self.b.v_lshlrev_b32(addr, shift, o);
            }
            _ => {
                self.b.v_mov_b32(addr, o);
                if shift > 0 {
                    self.b.v_lshlrev_b32(addr, shift, addr);
                }
            }
        }
    }

    pub(super) fn load(&mut self, val: Val, buf: usize, idx: Val, valid: Option<Val>) {
        let dtype = self.k.params[buf].dtype;
        let (d, addr, p) = (self.dst(val), v(self.f.addr), self.f.ptr[buf]);
        self.address(idx, dtype.size());
        if let Some(ok) = valid {
            // Masked elements read element 0 (always there) and become 0.
            let o = self.vops(&[ok])[0];
            self.vcc_from_bool(o);
            let vcc = self.vcc();
            self.b.v_cndmask_b32(addr, 0, addr, vcc);
            self.addr_of = None;
        }
        self.t.global_load(&mut self.b, dtype.size(), d, addr, s(p..p + 2));
        self.loads_pending = true;
        // A plain load is waited for by its first reader; a widened or masked one now.
        if valid.is_none() && !matches!(dtype, DType::F16 | DType::BF16) {
            return;
        }
        self.wait_loads();
        match dtype {
            DType::F16 => {
                self.b.v_cvt_f32_f16(d, d);
            }
            DType::BF16 => {
                self.b.v_lshlrev_b32(d, 16, d);
            }
            _ => {}
        }
        if valid.is_some() {
            let vcc = self.vcc();
            self.b.v_cndmask_b32(d, 0, d, vcc);
        }
    }

    pub(super) fn store(&mut self, buf: usize, idx: Val, x: Val) {
        let dtype = self.k.params[buf].dtype;
        let (addr, p) = (v(self.f.addr), self.f.ptr[buf]);
        self.address(idx, dtype.size());
        let o = self.operand(x);
        let mut data = self.in_vgpr(o, v(self.f.vt[0]));
        if matches!(dtype, DType::F16 | DType::BF16) {
            let bits = v(self.f.vt[3]);
            self.memory_bits(bits, dtype, data);
            data = bits;
        }
        self.t.global_store(&mut self.b, dtype.size(), addr, data, s(p..p + 2));
    }

    /// `d` = the f32 `x` rounded to bf16 (to nearest, ties to even; low half zero), NaN kept a
    /// NaN. Uses `vt[1]`, `vt[2]` and vcc; `d` may be `x`.
    fn round_bf16(&mut self, d: Reg, x: Reg) {
        let (t, nan) = (v(self.f.vt[2]), v(self.f.vt[1]));
        // x + 0x7fff + (bit 16 of x): carries into bit 16 past the halfway point, and at it
        // only when bit 16 (the last kept one) is odd.
        self.b.v_bfe_u32(t, x, 16, 1);
        self.t.v_add_u32(&mut self.b, t, x, t);
        self.t.v_add_u32(&mut self.b, t, Operand::Int(0x7fff), t);
        self.b.v_and_b32(t, Operand::Int(0xffff_0000u32 as i32 as i64), t);
        let vcc = self.vcc();
        self.b.v_cmp_u_f32(vcc, x, x);
        self.b.v_mov_b32(nan, Operand::Int(BF16_NAN as i64));
        self.b.v_cndmask_b32(d, t, nan, vcc);
    }

    /// `d` = the f32 `x` rounded to f16 and back (`vt[2]` a temporary).
    fn round_f16(&mut self, d: Reg, x: Reg) {
        let t = v(self.f.vt[2]);
        self.b.v_cvt_f16_f32(t, x).v_cvt_f32_f16(d, t);
    }

    /// `d` = the bits a `dtype` register value `x` has in memory (low bits of `d`; f16 and
    /// bf16 rounded).
    fn memory_bits(&mut self, d: Reg, dtype: DType, x: Reg) {
        match dtype {
            DType::F16 => {
                self.b.v_cvt_f16_f32(d, x);
            }
            DType::BF16 => {
                self.round_bf16(d, x);
                self.b.v_lshrrev_b32(d, 16, d);
            }
            _ => {
                self.b.v_mov_b32(d, x);
            }
        }
    }

    /// `d` = the `to` value of the same bits as the `from` value `x` (same size, no bool).
    pub(super) fn bitcast(&mut self, d: Reg, from: DType, to: DType, x: Reg) {
        let bits = v(self.f.vt[3]);
        self.memory_bits(bits, from, x);
        match to {
            DType::F16 => {
                self.b.v_cvt_f32_f16(d, bits);
            }
            DType::BF16 => {
                self.b.v_lshlrev_b32(d, 16, bits);
            }
            _ => {
                self.b.v_mov_b32(d, bits);
            }
        }
    }

    /// `d` = the `from` value `x` converted to `to`: floats to integers truncate (and saturate
    /// to i32; u8 wraps that), anything to bool is `!= 0`, integers to floats round.
    pub(super) fn cast(&mut self, d: Reg, from: DType, to: DType, x: Reg) {
        let vcc = self.vcc();
        match (from.is_float(), to) {
            _ if from == to => {
                self.b.v_mov_b32(d, x);
            }
            (_, DType::Bool) => {
                if from.is_float() {
                    self.b.v_cmp_neq_f32(vcc, 0.0f32, x);
                } else {
                    self.b.v_cmp_ne_u32(vcc, 0, x);
                }
                self.bool_from_vcc(d);
            }
            (true, DType::I32 | DType::U8) => {
                self.b.v_cvt_i32_f32(d, x);
                if to == DType::U8 {
                    self.b.v_and_b32(d, 0xff, d);
                }
            }
            (false, DType::I32) => {
                self.b.v_mov_b32(d, x);
            }
            (false, DType::U8) => {
                self.b.v_and_b32(d, 0xff, x);
            }
            (_, DType::F32 | DType::F16 | DType::BF16) => {
                let f = match from {
                    DType::I32 => {
                        self.b.v_cvt_f32_i32(d, x);
                        d
                    }
                    DType::U8 | DType::Bool => {
                        self.b.v_cvt_f32_u32(d, x);
                        d
                    }
                    _ => x,
                };
                match to {
                    DType::F16 => self.round_f16(d, f),
                    DType::BF16 => self.round_bf16(d, f),
                    _ if f != d => {
                        self.b.v_mov_b32(d, f);
                    }
                    _ => {}
                }
            }
        }
    }
}
