//! The scalar ALU.

use super::*;

/// A SALU operation's operands, read once for the family matches.
#[derive(Clone, Copy)]
struct SArgs {
    op: SOp,
    dst: u8,
    x: u64,
    y: u64,
    x32: u32,
    y32: u32,
    scc: bool,
    exec: u64,
    wide_a: bool,
}

/// What a SALU family did with an operation.
enum SStep {
    /// Write the result: value, as 64 bits, the new SCC (`None`: unchanged).
    Write(u64, bool, Option<bool>),
    /// Nothing (more) to write.
    Done,
    /// Not in this family.
    Next,
}

impl<const W: usize> Wave<W> {
    /// `s_movrels_*` / `s_movreld_*`: M0 offsets the source (`rel_dst`: destination) SGPR; the
    /// offset register must lie in the SGPRs below VCC.
    pub(super) fn smovrel(&mut self, dst: u8, src: Ss, wide: bool, rel_dst: bool) -> Result<(), String> {
        let (m0, n) = (self.s[M0_REG] as usize, if wide { 2 } else { 1 });
        let inside = |r: usize| r.checked_add(m0).filter(|&x| x + n <= VCC);
        let ty = if wide { Ty::B64 } else { Ty::B32 };
        let (d, x) = if rel_dst {
            let d = inside(dst as usize).ok_or_else(|| format!("s_movreld: s{dst} + M0 {m0} is outside the SGPRs"))?;
            (d, self.sval(src, ty))
        } else {
            let Ss::R(r) = src else { return Err("s_movrels: the source must be an SGPR".into()) };
            let s = inside(r as usize).ok_or_else(|| format!("s_movrels: s{r} + M0 {m0} is outside the SGPRs"))?;
            (dst as usize, self.sval(Ss::R(s as u8), ty))
        };
        if wide {
            self.ws64(d, x);
        } else {
            self.ws(d, x as u32);
        }
        Ok(())
    }

    pub(super) fn salu(&mut self, op: SOp, dst: u8, a: Ss, b: Ss, wide: bool) -> Result<(), String> {
        let (wide_a, wide_b) = wide_operands(op);
        let wide_a = wide || wide_a;
        let ty = |w| if w { Ty::B64 } else { Ty::B32 };
        let x = self.sval(a, ty(wide_a));
        let y = self.sval(b, ty(wide_b));
        let s = SArgs { op, dst, x, y, x32: x as u32, y32: y as u32, scc: self.scc, exec: self.exec(), wide_a };
        // Each family's match passes on the operations it does not hold.
        let mut step = self.salu_int(s);
        if let SStep::Next = step {
            step = self.salu_float_move(s);
        }
        if let SStep::Next = step {
            step = self.salu_exec_convert(s);
        }
        if let SStep::Next = step {
            step = self.salu_compare_mode(s);
        }
        // (result, is 64-bit, new scc)
        let (res, w64, nscc) = match step {
            SStep::Write(res, w64, nscc) => (res, w64, nscc),
            SStep::Done => return Ok(()),
            SStep::Next => return Err(format!("{op:?}: not a scalar ALU operation")),
        };
        if let Some(s) = nscc {
            self.scc = s;
        }
        if w64 {
            self.ws64(dst as usize, res);
        } else {
            self.ws(dst as usize, res as u32);
        }
        Ok(())
    }

    /// Integer arithmetic and bit operations.
    #[allow(unused_variables)]
    fn salu_int(&mut self, s: SArgs) -> SStep {
        use SOp::*;
        let SArgs { op, dst, x, y, x32, y32, scc, exec, wide_a } = s;
        let (res, w64, nscc) = match op {
            AddU32 => {
                let r = x + y;
                (r & 0xffff_ffff, false, Some(r >> 32 != 0))
            }
            SubU32 => (x32.wrapping_sub(y32) as u64, false, Some(y32 > x32)),
            AddI32 | Addk => {
                let (r, o) = (x32 as i32).overflowing_add(y32 as i32);
                (r as u32 as u64, false, Some(o))
            }
            SubI32 => {
                let (r, o) = (x32 as i32).overflowing_sub(y32 as i32);
                (r as u32 as u64, false, Some(o))
            }
            AddcU32 => {
                let r = x + y + scc as u64;
                (r & 0xffff_ffff, false, Some(r >> 32 != 0))
            }
            SubbU32 => {
                let r = x32.wrapping_sub(y32).wrapping_sub(scc as u32);
                (r as u64, false, Some((y32 as u64 + scc as u64) > x32 as u64))
            }
            MinI32 => ((x32 as i32).min(y32 as i32) as u32 as u64, false, Some((x32 as i32) < (y32 as i32))),
            MinU32 => (x32.min(y32) as u64, false, Some(x32 < y32)),
            MaxI32 => ((x32 as i32).max(y32 as i32) as u32 as u64, false, Some((x32 as i32) > (y32 as i32))),
            MaxU32 => (x32.max(y32) as u64, false, Some(x32 > y32)),
            Cselect32 => (if scc { x } else { y }, false, None),
            Cselect64 => (if scc { x } else { y }, true, None),
            And32 | And64 => bitop(x & y, op == And64),
            Or32 | Or64 => bitop(x | y, op == Or64),
            Xor32 | Xor64 => bitop(x ^ y, op == Xor64),
            Andn232 | Andn264 => bitop(x & !y, op == Andn264),
            Orn232 | Orn264 => bitop(x | !y, op == Orn264),
            Nand32 | Nand64 => bitop(!(x & y), op == Nand64),
            Nor32 | Nor64 => bitop(!(x | y), op == Nor64),
            Xnor32 | Xnor64 => bitop(!(x ^ y), op == Xnor64),
            Lshl32 => bitop(((x32) << (y & 31)) as u64, false),
            Lshl64 => bitop(x << (y & 63), true),
            Lshr32 => bitop((x32 >> (y & 31)) as u64, false),
            Lshr64 => bitop(x >> (y & 63), true),
            Ashr32 => bitop(((x32 as i32) >> (y & 31)) as u32 as u64, false),
            Ashr64 => bitop(((x as i64) >> (y & 63)) as u64, true),
            Bfm32 => ((((1u64 << (x & 31)) - 1) << (y & 31)) & 0xffff_ffff, false, None),
            Bfm64 => ((((1u128 << (x & 63)) - 1) << (y & 63)) as u64, true, None),
            MulI32 | Mulk => (x32.wrapping_mul(y32) as u64, false, None),
            BfeU32 => bitop(bfe(x32, y32, y32 >> 16) as u64, false),
            BfeI32 => bitop(bfe_i(x32, y32, y32 >> 16) as u64, false),
            BfeU64 | BfeI64 => {
                let (off, w) = (y32 & 63, (y32 >> 16) & 127);
                let r = if w == 0 {
                    0
                } else {
                    let v = x >> off;
                    let w = w.min(64);
                    if op == BfeI64 && w < 64 {
                        (((v << (64 - w)) as i64) >> (64 - w)) as u64
                    } else if w < 64 {
                        v & ((1u64 << w) - 1)
                    } else {
                        v
                    }
                };
                bitop(r, true)
            }
            AbsdiffI32 => {
                let r = (x32 as i32 as i64 - y32 as i32 as i64).unsigned_abs() as u32;
                (r as u64, false, Some(r != 0))
            }
            Lshl1Add | Lshl2Add | Lshl3Add | Lshl4Add => {
                let n = match op {
                    Lshl1Add => 1,
                    Lshl2Add => 2,
                    Lshl3Add => 3,
                    _ => 4,
                };
                let r = ((x32 as u64) << n) + y32 as u64;
                (r & 0xffff_ffff, false, Some(r >> 32 != 0))
            }
            PackLl => ((x & 0xffff) | ((y & 0xffff) << 16), false, None),
            PackLh => ((x & 0xffff) | (y & 0xffff_0000), false, None),
            PackHh => ((x >> 16) | (y & 0xffff_0000), false, None),
            PackHl => ((x >> 16) | ((y & 0xffff) << 16), false, None),
            MulHiU32 => ((x32 as u64 * y32 as u64) >> 32, false, None),
            MulHiI32 => ((((x32 as i32 as i64) * (y32 as i32 as i64)) >> 32) as u32 as u64, false, None),
            AddU64 => (x.wrapping_add(y), true, None),
            SubU64 => (x.wrapping_sub(y), true, None),
            MulU64 => (x.wrapping_mul(y), true, None),
            _ => return SStep::Next,
        };
        SStep::Write(res, w64, nscc)
    }

    /// Float arithmetic, moves and bit counts.
    #[allow(unused_variables)]
    fn salu_float_move(&mut self, s: SArgs) -> SStep {
        use SOp::*;
        let SArgs { op, dst, x, y, x32, y32, scc, exec, wide_a } = s;
        let (res, w64, nscc) = match op {
            AddF32 => (fb(f(x) + f(y)), false, None),
            SubF32 => (fb(f(x) - f(y)), false, None),
            MulF32 => (fb(f(x) * f(y)), false, None),
            MinF32 => (fb(fmin(f(x), f(y))), false, None),
            MaxF32 => (fb(fmax(f(x), f(y))), false, None),
            FmacF32 => (fb(f(x).mul_add(f(y), f(self.s[dst as usize] as u64))), false, None),
            CvtPkRtz => (f32_to_f16_rtz(f(x)) as u64 | ((f32_to_f16_rtz(f(y)) as u64) << 16), false, None),
            Mov32 | Movk => (x, false, None),
            Mov64 => (x, true, None),
            Cmov32 | Cmovk => {
                if !scc {
                    return SStep::Done;
                }
                (x, false, None)
            }
            Cmov64 => {
                if !scc {
                    return SStep::Done;
                }
                (x, true, None)
            }
            Not32 => bitop(!x & 0xffff_ffff, false),
            Not64 => bitop(!x, true),
            Wqm32 | Wqm64 => {
                let mut r = 0u64;
                for q in 0..16 {
                    if (x >> (4 * q)) & 0xf != 0 {
                        r |= 0xf << (4 * q);
                    }
                }
                bitop(if op == Wqm32 { r & 0xffff_ffff } else { r }, op == Wqm64)
            }
            Brev32 => (x32.reverse_bits() as u64, false, None),
            Brev64 => (x.reverse_bits(), true, None),
            Bcnt0_32 => cnt((!x32).count_ones()),
            Bcnt0_64 => cnt((!x).count_ones()),
            Bcnt1_32 => cnt(x32.count_ones()),
            Bcnt1_64 => cnt(x.count_ones()),
            Ctz32 => (if x32 == 0 { u32::MAX } else { x32.trailing_zeros() } as u64, false, None),
            Ctz64 => (if x == 0 { u32::MAX } else { x.trailing_zeros() } as u64, false, None),
            // The first zero bit from the bottom; −1 when there is none.
            Ff0_32 => (if x32 == u32::MAX { u32::MAX } else { x32.trailing_ones() } as u64, false, None),
            Ff0_64 => (if x == u64::MAX { u32::MAX } else { x.trailing_ones() } as u64, false, None),
            // Bit k of S0 into bits 2k and 2k+1.
            Bitreplicate => ((0..32).fold(0u64, |r, k| r | ((x >> k & 1) * 3) << (2 * k)), true, None),
            // gfx9 VGPR indexing: the index in M0[7:0], the mode in M0[15:12].
            GprIdxIdx => (((y32 & !0xff) | (x32 & 0xff)) as u64, false, None),
            GprIdxMode => (((y32 & !0xf000) | (x32 & 0xf) << 12) as u64, false, None),
            Clz32 => (if x32 == 0 { u32::MAX } else { x32.leading_zeros() } as u64, false, None),
            Clz64 => (if x == 0 { u32::MAX } else { x.leading_zeros() } as u64, false, None),
            Cls32 => (cls32(x32 as i32) as u64, false, None),
            Cls64 => {
                let v = x as i64;
                let r = if v == 0 || v == -1 {
                    u32::MAX
                } else if v < 0 {
                    (!v).leading_zeros()
                } else {
                    v.leading_zeros()
                };
                (r as u64, false, None)
            }
            Sext8 => (x32 as i8 as i32 as u32 as u64, false, None),
            Sext16 => (x32 as i16 as i32 as u32 as u64, false, None),
            Bitset0_32 => ((y32 & !(1 << (x32 & 31))) as u64, false, None),
            Bitset1_32 => ((y32 | (1 << (x32 & 31))) as u64, false, None),
            Bitset0_64 => (y & !(1u64 << (x32 & 63)), true, None),
            Bitset1_64 => (y | (1u64 << (x32 & 63)), true, None),
            AbsI32 => {
                let r = (x32 as i32).unsigned_abs();
                (r as u64, false, Some(r != 0))
            }
            Quadmask32 | Quadmask64 => {
                let mut r = 0u64;
                for q in 0..16 {
                    if (x >> (4 * q)) & 0xf != 0 {
                        r |= 1 << q;
                    }
                }
                (r, op == Quadmask64, Some(r != 0))
            }
            _ => return SStep::Next,
        };
        SStep::Write(res, w64, nscc)
    }

    /// EXEC updates (saveexec, wrexec) and conversions.
    #[allow(unused_variables)]
    fn salu_exec_convert(&mut self, s: SArgs) -> SStep {
        use SOp::*;
        let SArgs { op, dst, x, y, x32, y32, scc, exec, wide_a } = s;
        let saveexec = |s: &mut Self, new: u64| {
            s.set_exec(new);
            s.scc = new != 0;
            exec
        };
        let (res, w64, nscc) = match op {
            AndSaveexec => (saveexec(self, x & exec), wide_a, None),
            OrSaveexec => (saveexec(self, x | exec), wide_a, None),
            XorSaveexec => (saveexec(self, x ^ exec), wide_a, None),
            AndNot0Saveexec => (saveexec(self, !x & exec), wide_a, None),
            AndNot1Saveexec => (saveexec(self, x & !exec), wide_a, None),
            OrNot0Saveexec => (saveexec(self, !x | exec), wide_a, None),
            OrNot1Saveexec => (saveexec(self, x | !exec), wide_a, None),
            NandSaveexec => (saveexec(self, !(x & exec)), wide_a, None),
            NorSaveexec => (saveexec(self, !(x | exec)), wide_a, None),
            XnorSaveexec => (saveexec(self, !(x ^ exec)), wide_a, None),
            AndNot0Wrexec | AndNot1Wrexec => {
                let r = if op == AndNot0Wrexec { !x & exec } else { x & !exec } & Self::lane_mask();
                self.set_exec(r);
                (r, wide_a, Some(r != 0))
            }
            CvtF32I32 => (fb(x32 as i32 as f32), false, None),
            CvtF32U32 => (fb(x32 as f32), false, None),
            CvtI32F32 => (f2i(f(x) as f64) as u32 as u64, false, None),
            CvtU32F32 => (f2u(f(x) as f64) as u64, false, None),
            CeilF32 => (fb(f(x).ceil()), false, None),
            FloorF32 => (fb(f(x).floor()), false, None),
            TruncF32 => (fb(f(x).trunc()), false, None),
            RndneF32 => (fb(f(x).round_ties_even()), false, None),
            CvtF32F16 => (fb(hf(x)), false, None),
            CvtHiF32F16 => (fb(hf(x >> 16)), false, None),
            CvtF16F32 => (hb(f(x)), false, None),
            _ => return SStep::Next,
        };
        SStep::Write(res, w64, nscc)
    }

    /// Compares (into SCC) and the hardware registers.
    #[allow(unused_variables)]
    fn salu_compare_mode(&mut self, s: SArgs) -> SStep {
        use SOp::*;
        let SArgs { op, dst, x, y, x32, y32, scc, exec, wide_a } = s;
        let (res, w64, nscc) = match op {
            CmpEqI32 | CmpEqU32 => return self.setscc(x32 == y32),
            CmpLgI32 | CmpLgU32 => return self.setscc(x32 != y32),
            CmpGtI32 => return self.setscc((x32 as i32) > (y32 as i32)),
            CmpGeI32 => return self.setscc((x32 as i32) >= (y32 as i32)),
            CmpLtI32 => return self.setscc((x32 as i32) < (y32 as i32)),
            CmpLeI32 => return self.setscc((x32 as i32) <= (y32 as i32)),
            CmpGtU32 => return self.setscc(x32 > y32),
            CmpGeU32 => return self.setscc(x32 >= y32),
            CmpLtU32 => return self.setscc(x32 < y32),
            CmpLeU32 => return self.setscc(x32 <= y32),
            CmpEqU64 => return self.setscc(x == y),
            CmpLgU64 => return self.setscc(x != y),
            Bitcmp0_32 => return self.setscc(x32 >> (y32 & 31) & 1 == 0),
            Bitcmp1_32 => return self.setscc(x32 >> (y32 & 31) & 1 == 1),
            Bitcmp0_64 => return self.setscc(x >> (y32 & 63) & 1 == 0),
            Bitcmp1_64 => return self.setscc(x >> (y32 & 63) & 1 == 1),
            CmpLtF32 | CmpEqF32 | CmpLeF32 | CmpGtF32 | CmpLgF32 | CmpGeF32 | CmpOF32 | CmpUF32 | CmpNgeF32
            | CmpNlgF32 | CmpNgtF32 | CmpNleF32 | CmpNeqF32 | CmpNltF32 => {
                let c = match op {
                    CmpLtF32 => CmpOp::Lt,
                    CmpEqF32 => CmpOp::Eq,
                    CmpLeF32 => CmpOp::Le,
                    CmpGtF32 => CmpOp::Gt,
                    CmpLgF32 => CmpOp::Lg,
                    CmpGeF32 => CmpOp::Ge,
                    CmpOF32 => CmpOp::O,
                    CmpUF32 => CmpOp::U,
                    CmpNgeF32 => CmpOp::Nge,
                    CmpNlgF32 => CmpOp::Nlg,
                    CmpNgtF32 => CmpOp::Ngt,
                    CmpNleF32 => CmpOp::Nle,
                    CmpNeqF32 => CmpOp::Neq,
                    _ => CmpOp::Nlt,
                };
                return self.setscc(fcmp(c, f(x) as f64, f(y) as f64));
            }
            Getreg => {
                let id = y32 & 0x3f;
                let off = (y32 >> 6) & 0x1f;
                let size = ((y32 >> 11) & 0x1f) + 1;
                let reg = match id {
                    1 => self.mode,
                    _ => 0,
                };
                let m = if size >= 32 { u32::MAX } else { (1u32 << size) - 1 };
                (((reg >> off) & m) as u64, false, None)
            }
            Setreg | SetregImm => {
                let id = y32 & 0x3f;
                let off = (y32 >> 6) & 0x1f;
                let size = ((y32 >> 11) & 0x1f) + 1;
                if id == 1 {
                    let m = if size >= 32 { u32::MAX } else { ((1u32 << size) - 1) << off };
                    self.mode = (self.mode & !m) | ((x32 << off) & m);
                }
                return SStep::Done;
            }
            SendmsgRtn => (0, false, None),
            _ => return SStep::Next,
        };
        SStep::Write(res, w64, nscc)
    }

    fn setscc(&mut self, c: bool) -> SStep {
        self.scc = c;
        SStep::Done
    }
}

/// Which of a SALU operation's sources are 64-bit (beyond the `wide` the decoder gives).
fn wide_operands(op: SOp) -> (bool, bool) {
    use SOp::*;
    let a = matches!(
        op,
        Cselect64
            | And64
            | Or64
            | Xor64
            | Andn264
            | Orn264
            | Nand64
            | Nor64
            | Xnor64
            | Lshl64
            | Lshr64
            | Ashr64
            | BfeU64
            | BfeI64
            | AddU64
            | SubU64
            | MulU64
            | Mov64
            | Cmov64
            | Not64
            | Wqm64
            | Brev64
            | Bcnt0_64
            | Bcnt1_64
            | Ctz64
            | Ff0_64
            | Clz64
            | Cls64
            | Quadmask64
            | CmpEqU64
            | CmpLgU64
            | Bitcmp0_64
            | Bitcmp1_64
    );
    let b = matches!(
        op,
        Cselect64
            | And64
            | Or64
            | Xor64
            | Andn264
            | Orn264
            | Nand64
            | Nor64
            | Xnor64
            | AddU64
            | SubU64
            | MulU64
            | CmpEqU64
            | CmpLgU64
            | Bitset0_64
            | Bitset1_64
    );
    (a, b)
}

pub(super) fn bitop(r: u64, w: bool) -> (u64, bool, Option<bool>) {
    let r = if w { r } else { r & 0xffff_ffff };
    (r, w, Some(r != 0))
}
pub(super) fn cnt(c: u32) -> (u64, bool, Option<bool>) {
    (c as u64, false, Some(c != 0))
}
