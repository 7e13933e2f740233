//! The VALU's floating-point operations (f16, f32, f64), lane by lane.

use super::*;

impl<const W: usize> Wave<W> {
    /// f32 arithmetic and conversions to and from f32.
    #[inline(always)]
    pub(super) fn valu_f32(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        #[allow(unused_variables)]
        match v.op {
            AddF32 => map!(io, |x, y, z| fb(f(x) + f(y))),
            SubF32 => map!(io, |x, y, z| fb(f(x) - f(y))),
            SubrevF32 => map!(io, |x, y, z| fb(f(y) - f(x))),
            MulF32 => map!(io, |x, y, z| fb(f(x) * f(y))),
            MulLegacyF32 => map!(io, |x, y, z| if f(x) == 0.0 || f(y) == 0.0 { 0 } else { fb(f(x) * f(y)) }),
            MinF32 => map!(io, |x, y, z| fb(fmin(f(x), f(y)))),
            MaxF32 => map!(io, |x, y, z| fb(fmax(f(x), f(y)))),
            MinimumF32 => {
                map!(io, |x, y, z| if f(x).is_nan() || f(y).is_nan() { 0x7fc0_0000 } else { fb(fmin(f(x), f(y))) })
            }
            MaximumF32 => {
                map!(io, |x, y, z| if f(x).is_nan() || f(y).is_nan() { 0x7fc0_0000 } else { fb(fmax(f(x), f(y))) })
            }
            LdexpF32 => map!(io, |x, y, z| fb(ldexp32(f(x), y as u32 as i32))),
            FmaF32 => map!(io, |x, y, z| fb(f(x).mul_add(f(y), f(z)))),
            FmaLegacyF32 => {
                map!(io, |x, y, z| if f(x) == 0.0 || f(y) == 0.0 {
                    fb(0.0 + f(z))
                } else {
                    fb(f(x).mul_add(f(y), f(z)))
                })
            }
            DivFixupF32 => map!(io, |x, y, z| {
                let (s1, s2) = (f(y), f(z));
                fb(div_fixup(f(x) as f64, s1 as f64, s2 as f64, 150, exp32(s1), exp32(s2), 255) as f32)
            }),
            DivFmasF32 => {
                let vcc = self.vcc();
                map!(io, |x, y, z, l| fb(div_fmas32(f(x), f(y), f(z), vcc >> l & 1 != 0)))
            }
            DivScaleF32 => carry!(io, |x, y, z, l| {
                let (r, v) = div_scale32(f(x), f(y), f(z));
                (fb(r), v)
            }),
            Med3F32 => map!(io, |x, y, z| fb(fmed3(f(x), f(y), f(z)))),
            Min3F32 => map!(io, |x, y, z| fb(fmin(fmin(f(x), f(y)), f(z)))),
            Max3F32 => map!(io, |x, y, z| fb(fmax(fmax(f(x), f(y)), f(z)))),
            RcpF32 => map!(io, |x, y, z| fb(1.0 / f(x))),
            RsqF32 => map!(io, |x, y, z| fb((1.0 / (f(x) as f64).sqrt()) as f32)),
            SqrtF32 => map!(io, |x, y, z| fb(f(x).sqrt())),
            ExpF32 => map!(io, |x, y, z| fb(f(x).exp2())),
            LogF32 => map!(io, |x, y, z| fb(f(x).log2())),
            SinF32 => map!(io, |x, y, z| fb((f(x) as f64 * std::f64::consts::TAU).sin() as f32)),
            CosF32 => map!(io, |x, y, z| fb((f(x) as f64 * std::f64::consts::TAU).cos() as f32)),
            FloorF32 => map!(io, |x, y, z| fb(f(x).floor())),
            CeilF32 => map!(io, |x, y, z| fb(f(x).ceil())),
            TruncF32 => map!(io, |x, y, z| fb(f(x).trunc())),
            RndneF32 => map!(io, |x, y, z| fb(f(x).round_ties_even())),
            FractF32 => map!(io, |x, y, z| fb(fract32(f(x)))),
            FrexpMantF32 => map!(io, |x, y, z| fb(frexp64(f(x) as f64).0 as f32)),
            FrexpExpF32 => map!(io, |x, y, z| frexp_exp32(f(x)) as u32 as u64),
            CvtF32I32 => map!(io, |x, y, z| fb(x as u32 as i32 as f32)),
            CvtF32U32 => map!(io, |x, y, z| fb(x as u32 as f32)),
            CvtI32F32 => map!(io, |x, y, z| f2i(f(x) as f64) as u32 as u64),
            CvtU32F32 => map!(io, |x, y, z| f2u(f(x) as f64) as u64),
            CvtF32Ubyte0 => map!(io, |x, y, z| fb((x & 0xff) as f32)),
            CvtF32Ubyte1 => map!(io, |x, y, z| fb((x >> 8 & 0xff) as f32)),
            CvtF32Ubyte2 => map!(io, |x, y, z| fb((x >> 16 & 0xff) as f32)),
            CvtF32Ubyte3 => map!(io, |x, y, z| fb((x >> 24 & 0xff) as f32)),
            CvtRpiI32F32 => map!(io, |x, y, z| f2i((f(x) as f64 + 0.5).floor()) as u32 as u64),
            CvtFlrI32F32 => map!(io, |x, y, z| f2i((f(x) as f64).floor()) as u32 as u64),
            ClassF32 => map!(io, |x, y, z| (class32(f(x)) & y as u32 != 0) as u64),
            CvtPkRtzF16F32 => map!(io, |x, y, z| f32_to_f16_rtz(f(x)) as u64 | ((f32_to_f16_rtz(f(y)) as u64) << 16)),
            CvtPkF32ToF16 => map!(io, |x, y, z| hb(f(x)) | (hb(f(y)) << 16)),
            CvtPkNormI16F32 => return Err("v_cvt_pk_norm_i16_f32: not supported".into()),
            CvtF32F16 => map!(io, |x, y, z| fb(hf(x))),
            CvtF16F32 => map!(io, |x, y, z| hb(f(x))),
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }

    /// f16 arithmetic and conversions, and the mixed-precision FMAs.
    #[inline(always)]
    pub(super) fn valu_f16(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        #[allow(unused_variables)]
        match v.op {
            AddF16 => map!(io, |x, y, z| hb(hf(x) + hf(y))),
            SubF16 => map!(io, |x, y, z| hb(hf(x) - hf(y))),
            SubrevF16 => map!(io, |x, y, z| hb(hf(y) - hf(x))),
            MulF16 => map!(io, |x, y, z| hb(hf(x) * hf(y))),
            FmaF16 => map!(io, |x, y, z| f64_to_f16((hf(x) as f64).mul_add(hf(y) as f64, hf(z) as f64)) as u64),
            MaxF16 => map!(io, |x, y, z| hb(fmax(hf(x), hf(y)))),
            MinF16 => map!(io, |x, y, z| hb(fmin(hf(x), hf(y)))),
            LdexpF16 => map!(io, |x, y, z| f64_to_f16(ldexp64(hf(x) as f64, sx16(y))) as u64),
            SqrtF16 => map!(io, |x, y, z| hb(hf(x).sqrt())),
            RcpF16 => map!(io, |x, y, z| hb(1.0 / hf(x))),
            RsqF16 => map!(io, |x, y, z| hb(1.0 / hf(x).sqrt())),
            ExpF16 => map!(io, |x, y, z| hb(hf(x).exp2())),
            LogF16 => map!(io, |x, y, z| hb(hf(x).log2())),
            FloorF16 => map!(io, |x, y, z| hb(hf(x).floor())),
            CeilF16 => map!(io, |x, y, z| hb(hf(x).ceil())),
            TruncF16 => map!(io, |x, y, z| hb(hf(x).trunc())),
            RndneF16 => map!(io, |x, y, z| hb(hf(x).round_ties_even())),
            FractF16 => map!(io, |x, y, z| hb(fract32(hf(x)).min(f16_to_f32(0x3bff)))),
            CvtF16I16 => map!(io, |x, y, z| hb(sx16(x) as f32)),
            CvtF16U16 => map!(io, |x, y, z| hb((x & 0xffff) as f32)),
            CvtI16F16 => map!(io, |x, y, z| (f2i(hf(x) as f64).clamp(-32768, 32767) as u32 & 0xffff) as u64),
            CvtU16F16 => map!(io, |x, y, z| (f2u(hf(x) as f64).min(0xffff)) as u64),
            CvtI32I16F16 => map!(io, |x, y, z| f2i(hf(x) as f64) as u32 as u64),
            DivFixupF16 => map!(io, |x, y, z| {
                let (s1, s2) = (hf(y), hf(z));
                let e = |v: f32| ((f32_to_f16(v) >> 10) & 0x1f) as i32;
                f64_to_f16(div_fixup(hf(x) as f64, s1 as f64, s2 as f64, 25, e(s1), e(s2), 31)) as u64
            }),
            ClassF16 => map!(io, |x, y, z| (class16(x as u16) & y as u32 != 0) as u64),
            Med3F16 => map!(io, |x, y, z| hb(fmed3(hf(x), hf(y), hf(z)))),
            Min3F16 => map!(io, |x, y, z| hb(fmin(fmin(hf(x), hf(y)), hf(z)))),
            Max3F16 => map!(io, |x, y, z| hb(fmax(fmax(hf(x), hf(y)), hf(z)))),
            FmaMixF32 | FmaMixLoF16 | FmaMixHiF16 => {
                // Sources are f32, or f16 (lo/hi by opsel) where opsel_hi is set.
                let mut s = [[0f64; W]; 3];
                for k in 0..3 {
                    let raw = self.vsrc(v.src[k], Ty::B32, false);
                    let is16 = v.opsel_hi >> k & 1 != 0;
                    let hi = v.opsel >> k & 1 != 0;
                    for l in 0..W {
                        let mut x = if is16 {
                            hf(if hi { raw[l] >> 16 } else { raw[l] & 0xffff }) as f64
                        } else {
                            f(raw[l]) as f64
                        };
                        if v.abs >> k & 1 != 0 {
                            x = x.abs();
                        }
                        if v.neg >> k & 1 != 0 {
                            x = -x;
                        }
                        s[k][l] = x;
                    }
                }
                let old = if v.op == FmaMixF32 { [0u64; W] } else { self.vsrc(Vs::V(v.dst), Ty::B32, false) };
                for l in 0..W {
                    let p = (s[0][l] as f32).mul_add(s[1][l] as f32, s[2][l] as f32);
                    let p = if v.clamp { p.clamp(0.0, 1.0) } else { p };
                    io.r[l] = match v.op {
                        FmaMixF32 => fb(p),
                        FmaMixLoF16 => (old[l] & 0xffff_0000) | f64_to_f16(s[0][l].mul_add(s[1][l], s[2][l])) as u64,
                        _ => (old[l] & 0xffff) | ((f64_to_f16(s[0][l].mul_add(s[1][l], s[2][l])) as u64) << 16),
                    };
                }
                return Ok(Arm::Raw);
            }
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }

    /// f64 arithmetic and conversions.
    #[inline(always)]
    pub(super) fn valu_f64(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        #[allow(unused_variables)]
        match v.op {
            AddF64 => map!(io, |x, y, z| db(d(x) + d(y))),
            MulF64 => map!(io, |x, y, z| db(d(x) * d(y))),
            FmaF64 => map!(io, |x, y, z| db(d(x).mul_add(d(y), d(z)))),
            MinF64 => map!(io, |x, y, z| db(dmin(d(x), d(y)))),
            MaxF64 => map!(io, |x, y, z| db(dmax(d(x), d(y)))),
            MinimumF64 => {
                map!(io, |x, y, z| if d(x).is_nan() || d(y).is_nan() { db(f64::NAN) } else { db(dmin(d(x), d(y))) })
            }
            MaximumF64 => {
                map!(io, |x, y, z| if d(x).is_nan() || d(y).is_nan() { db(f64::NAN) } else { db(dmax(d(x), d(y))) })
            }
            LdexpF64 => map!(io, |x, y, z| db(ldexp64(d(x), y as u32 as i32))),
            DivScaleF64 => carry!(io, |x, y, z, l| {
                let (r, v) = div_scale64(d(x), d(y), d(z));
                (db(r), v)
            }),
            DivFmasF64 => {
                let vcc = self.vcc();
                map!(io, |x, y, z, l| db(div_fmas64(d(x), d(y), d(z), vcc >> l & 1 != 0)))
            }
            DivFixupF64 => map!(io, |x, y, z| db(div_fixup(d(x), d(y), d(z), 1075, exp64(d(y)), exp64(d(z)), 2047))),
            RcpF64 => map!(io, |x, y, z| db(1.0 / d(x))),
            RsqF64 => map!(io, |x, y, z| db(1.0 / d(x).sqrt())),
            SqrtF64 => map!(io, |x, y, z| db(d(x).sqrt())),
            FloorF64 => map!(io, |x, y, z| db(d(x).floor())),
            CeilF64 => map!(io, |x, y, z| db(d(x).ceil())),
            TruncF64 => map!(io, |x, y, z| db(d(x).trunc())),
            RndneF64 => map!(io, |x, y, z| db(d(x).round_ties_even())),
            FractF64 => map!(io, |x, y, z| db(fract64(d(x)))),
            FrexpMantF64 => map!(io, |x, y, z| db(frexp64(d(x)).0)),
            FrexpExpF64 => map!(io, |x, y, z| frexp64(d(x)).1 as u32 as u64),
            CvtF64I32 => map!(io, |x, y, z| db(x as u32 as i32 as f64)),
            CvtF64U32 => map!(io, |x, y, z| db(x as u32 as f64)),
            CvtI32F64 => map!(io, |x, y, z| f2i(d(x)) as u32 as u64),
            CvtU32F64 => map!(io, |x, y, z| f2u(d(x)) as u64),
            CvtF64F32 => map!(io, |x, y, z| db(f(x) as f64)),
            CvtF32F64 => map!(io, |x, y, z| fb(d(x) as f32)),
            ClassF64 => map!(io, |x, y, z| (class_f64(d(x)) & y as u32 != 0) as u64),
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }
}
