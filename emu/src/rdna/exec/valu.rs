//! The vector ALU: reading sources, computing per lane, committing results.

use super::*;

/// The result of a VALU operation before it is committed.
pub(super) struct Out<const W: usize> {
    pub(super) r: [u64; W],
    /// Lane mask result (compares, carries).
    pub(super) mask: u64,
    /// Lanes whose VGPR result is written.
    pub(super) wmask: u64,
}

impl<const W: usize> Wave<W> {
    pub(super) fn read_srcs(&self, v: &Valu) -> [[u64; W]; 3] {
        let mut srcs = [[0u64; W]; 3];
        for k in 0..v.nsrc as usize {
            let ty = v.tys[k];
            let mut a = if ty == Ty::Mask {
                [self.sval(
                    match v.src[k] {
                        Vs::S(s) => s,
                        Vs::V(_) => Ss::K(0),
                    },
                    Ty::Mask,
                ); W]
            } else {
                self.vsrc(v.src[k], ty, v.opsel >> k & 1 != 0)
            };
            if ty.is_float() && (v.abs | v.neg) >> k & 1 != 0 {
                let sign = match ty {
                    Ty::F16 => 0x8000u64,
                    Ty::F32 => 0x8000_0000,
                    _ => 1 << 63,
                };
                let ab = v.abs >> k & 1 != 0;
                let ng = v.neg >> k & 1 != 0;
                for x in a.iter_mut() {
                    if ab {
                        *x &= !sign;
                    }
                    if ng {
                        *x ^= sign;
                    }
                }
            }
            srcs[k] = a;
        }
        srcs
    }

    pub(super) fn compute(&self, v: &Valu, exec: u64) -> Result<Out<W>, String> {
        if packed(v.op) {
            return Ok(self.packed_op(v, exec));
        }
        let [mut a, b, c] = self.read_srcs(v);
        let wmask = if v.dpp != Dpp::None { self.dpp(v.dpp, &mut a, exec) } else { exec };
        let mut r = [0u64; W];
        let mut mask = 0u64;
        macro_rules! map {
            (|$x:ident, $y:ident, $z:ident, $l:ident| $e:expr) => {{
                for $l in 0..W {
                    let $x = a[$l];
                    let $y = b[$l];
                    let $z = c[$l];
                    r[$l] = $e;
                }
            }};
            (|$x:ident, $y:ident, $z:ident| $e:expr) => {{
                for l in 0..W {
                    let $x = a[l];
                    let $y = b[l];
                    let $z = c[l];
                    r[l] = $e;
                }
            }};
        }
        macro_rules! carry {
            (|$x:ident, $y:ident, $z:ident, $l:ident| $e:expr) => {{
                for $l in 0..W {
                    let $x = a[$l];
                    let $y = b[$l];
                    let $z = c[$l];
                    let (res, co): (u64, bool) = $e;
                    r[$l] = res;
                    mask |= (co as u64) << $l;
                }
            }};
        }
        use VOp::*;
        #[allow(unused_variables)]
        match v.op {
            // Integer clamp: unsigned saturation.
            AddU32 if v.clamp => map!(|x, y, z| (x as u32).saturating_add(y as u32) as u64),
            SubU32 if v.clamp => map!(|x, y, z| (x as u32).saturating_sub(y as u32) as u64),
            SubrevU32 if v.clamp => map!(|x, y, z| (y as u32).saturating_sub(x as u32) as u64),
            AddU32 => map!(|x, y, z| (x as u32).wrapping_add(y as u32) as u64),
            SubU32 => map!(|x, y, z| (x as u32).wrapping_sub(y as u32) as u64),
            SubrevU32 => map!(|x, y, z| (y as u32).wrapping_sub(x as u32) as u64),
            MulLo => map!(|x, y, z| (x as u32).wrapping_mul(y as u32) as u64),
            MulHiU => map!(|x, y, z| (x as u32 as u64 * y as u32 as u64) >> 32),
            MulHiI => map!(|x, y, z| (((x as i32 as i64 * y as i32 as i64) >> 32) as u32) as u64),
            MulU24 => map!(|x, y, z| ((x as u32 & 0xff_ffff).wrapping_mul(y as u32 & 0xff_ffff)) as u64),
            MulI24 => map!(|x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8) as i64 * ((((y as u32) << 8) as i32 >> 8) as i64);
                p as u32 as u64
            }),
            MulHiU24 => map!(|x, y, z| (((x & 0xff_ffff) * (y & 0xff_ffff)) >> 32) & 0xffff_ffff),
            MulHiI24 => map!(|x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8) as i64 * ((((y as u32) << 8) as i32 >> 8) as i64);
                (p >> 32) as u32 as u64
            }),
            LshlRev => map!(|x, y, z| ((y as u32) << (x & 31)) as u64),
            LshrRev => map!(|x, y, z| ((y as u32) >> (x & 31)) as u64),
            AshrRev => map!(|x, y, z| ((y as u32 as i32) >> (x & 31)) as u32 as u64),
            And => map!(|x, y, z| x & y),
            Or => map!(|x, y, z| x | y),
            Xor => map!(|x, y, z| x ^ y),
            Xnor => map!(|x, y, z| !(x ^ y) & 0xffff_ffff),
            MinI => map!(|x, y, z| (x as u32 as i32).min(y as u32 as i32) as u32 as u64),
            MaxI => map!(|x, y, z| (x as u32 as i32).max(y as u32 as i32) as u32 as u64),
            MinU => map!(|x, y, z| x.min(y)),
            MaxU => map!(|x, y, z| x.max(y)),
            Bfm => map!(|x, y, z| ((((1u64 << (x & 31)) - 1) as u32) << (y & 31)) as u64),
            Bcnt => map!(|x, y, z| x.count_ones().wrapping_add(y as u32) as u64),
            MbcntLo => map!(|x, y, z, l| {
                let m = (x as u32) & ((1u64 << l.min(32)) - 1) as u32;
                (m.count_ones()).wrapping_add(y as u32) as u64
            }),
            MbcntHi => map!(|x, y, z, l| {
                let m = if l > 32 { (x as u32) & ((1u64 << (l - 32)) - 1) as u32 } else { 0 };
                (m.count_ones()).wrapping_add(y as u32) as u64
            }),
            Add3 => map!(|x, y, z| (x as u32).wrapping_add(y as u32).wrapping_add(z as u32) as u64),
            LshlAdd => map!(|x, y, z| ((x as u32) << (y & 31)).wrapping_add(z as u32) as u64),
            AddLshl => map!(|x, y, z| ((x as u32).wrapping_add(y as u32) << (z & 31)) as u64),
            LshlOr => map!(|x, y, z| (((x as u32) << (y & 31)) | z as u32) as u64),
            AndOr => map!(|x, y, z| (x & y) | z),
            Or3 => map!(|x, y, z| x | y | z),
            Xor3 => map!(|x, y, z| x ^ y ^ z),
            Xad => map!(|x, y, z| ((x as u32 ^ y as u32).wrapping_add(z as u32)) as u64),
            BfeU => map!(|x, y, z| bfe(x as u32, y as u32, z as u32) as u64),
            BfeI => map!(|x, y, z| bfe_i(x as u32, y as u32, z as u32) as u64),
            Bfi => map!(|x, y, z| (x & y) | (!x & z & 0xffff_ffff)),
            Alignbit => map!(|x, y, z| ((((x << 32) | y) >> (z & 31)) as u32) as u64),
            Alignbyte => map!(|x, y, z| ((((x << 32) | y) >> (8 * (z & 3))) as u32) as u64),
            Perm => map!(|x, y, z| perm(x as u32, y as u32, z as u32) as u64),
            MadU24 => {
                map!(|x, y, z| ((x as u32 & 0xff_ffff).wrapping_mul(y as u32 & 0xff_ffff)).wrapping_add(z as u32) as u64)
            }
            MadI24 => map!(|x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8).wrapping_mul(((y as u32) << 8) as i32 >> 8);
                p.wrapping_add(z as u32 as i32) as u32 as u64
            }),
            Min3I => map!(|x, y, z| min3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Max3I => map!(|x, y, z| max3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Med3I => map!(|x, y, z| med3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Min3U => map!(|x, y, z| min3(x, y, z)),
            Max3U => map!(|x, y, z| max3(x, y, z)),
            Med3U => map!(|x, y, z| med3(x, y, z)),
            Mov | MovB16 | Mov64 => map!(|x, y, z| x),
            Not => map!(|x, y, z| !x & 0xffff_ffff),
            NotB16 => map!(|x, y, z| !x & 0xffff),
            Bfrev => map!(|x, y, z| (x as u32).reverse_bits() as u64),
            Clz => map!(|x, y, z| if x as u32 == 0 { u32::MAX as u64 } else { (x as u32).leading_zeros() as u64 }),
            Ctz => map!(|x, y, z| if x as u32 == 0 { u32::MAX as u64 } else { (x as u32).trailing_zeros() as u64 }),
            Cls => map!(|x, y, z| cls32(x as u32 as i32) as u64),
            Cndmask | CndmaskB16 => map!(|x, y, z, l| if z >> l & 1 != 0 { y } else { x }),
            SadU32 => map!(|x, y, z| ((x as u32).abs_diff(y as u32)).wrapping_add(z as u32) as u64),
            AddU16 => map!(|x, y, z| (x + y) & 0xffff),
            SubU16 => map!(|x, y, z| x.wrapping_sub(y) & 0xffff),
            AddI16 => map!(|x, y, z| (x + y) & 0xffff),
            SubI16 => map!(|x, y, z| x.wrapping_sub(y) & 0xffff),
            MulLoU16 => map!(|x, y, z| (x * y) & 0xffff),
            MadU16 => map!(|x, y, z| (x * y + z) & 0xffff),
            LshlRevB16 => map!(|x, y, z| (y << (x & 15)) & 0xffff),
            LshrRevB16 => map!(|x, y, z| (y >> (x & 15)) & 0xffff),
            AshrRevB16 => map!(|x, y, z| ((sx16(y) >> (x & 15)) as u32 & 0xffff) as u64),
            AndB16 => map!(|x, y, z| x & y),
            OrB16 => map!(|x, y, z| x | y),
            XorB16 => map!(|x, y, z| x ^ y),
            MaxU16 => map!(|x, y, z| x.max(y)),
            MinU16 => map!(|x, y, z| x.min(y)),
            MaxI16 => map!(|x, y, z| (sx16(x).max(sx16(y)) as u32 & 0xffff) as u64),
            MinI16 => map!(|x, y, z| (sx16(x).min(sx16(y)) as u32 & 0xffff) as u64),
            PackB32F16 => map!(|x, y, z| (x & 0xffff) | ((y & 0xffff) << 16)),
            CvtPkI16I32 => map!(|x, y, z| {
                let c = |v: u64| ((v as u32 as i32).clamp(-32768, 32767) as u32 & 0xffff) as u64;
                c(x) | (c(y) << 16)
            }),
            CvtPkU16U32 => map!(|x, y, z| (x.min(0xffff)) | (y.min(0xffff) << 16)),
            SextI32I16 => map!(|x, y, z| sx16(x) as u32 as u64),
            Bcnt16 => map!(|x, y, z| (x as u16).count_ones() as u64),
            CvtU32U16F16 => map!(|x, y, z| x & 0xffff),
            AddCo => carry!(|x, y, z, l| {
                let s = x + y;
                (s & 0xffff_ffff, s >> 32 != 0)
            }),
            SubCo => carry!(|x, y, z, l| (x.wrapping_sub(y) & 0xffff_ffff, y > x)),
            SubrevCo => carry!(|x, y, z, l| (y.wrapping_sub(x) & 0xffff_ffff, x > y)),
            AddCoCi => carry!(|x, y, z, l| {
                let s = x + y + (z >> l & 1);
                (s & 0xffff_ffff, s >> 32 != 0)
            }),
            SubCoCi => carry!(|x, y, z, l| {
                let ci = z >> l & 1;
                (x.wrapping_sub(y).wrapping_sub(ci) & 0xffff_ffff, y + ci > x)
            }),
            SubrevCoCi => carry!(|x, y, z, l| {
                let ci = z >> l & 1;
                (y.wrapping_sub(x).wrapping_sub(ci) & 0xffff_ffff, x + ci > y)
            }),
            MadU64U32 => carry!(|x, y, z, l| {
                let p = (x as u32 as u128) * (y as u32 as u128) + z as u128;
                (p as u64, p >> 64 != 0)
            }),
            MadI64I32 => carry!(|x, y, z, l| {
                let p = (x as u32 as i32 as i128) * (y as u32 as i32 as i128) + (z as i64 as i128);
                (p as u64, p != (p as i64) as i128)
            }),
            LshlRev64 => map!(|x, y, z| y << (x & 63)),
            LshrRev64 => map!(|x, y, z| y >> (x & 63)),
            AshrRev64 => map!(|x, y, z| ((y as i64) >> (x & 63)) as u64),
            AddU64 => map!(|x, y, z| x.wrapping_add(y)),
            LshlAddU64 => map!(|x, y, z| (x << (y & 7)).wrapping_add(z)),
            Bitop3 => {
                let t = v.imm;
                map!(|x, y, z| bitop3(t, x as u32, y as u32, z as u32) as u64)
            }
            AddF32 => map!(|x, y, z| fb(f(x) + f(y))),
            SubF32 => map!(|x, y, z| fb(f(x) - f(y))),
            SubrevF32 => map!(|x, y, z| fb(f(y) - f(x))),
            MulF32 => map!(|x, y, z| fb(f(x) * f(y))),
            MulLegacyF32 => map!(|x, y, z| if f(x) == 0.0 || f(y) == 0.0 { 0 } else { fb(f(x) * f(y)) }),
            MinF32 => map!(|x, y, z| fb(fmin(f(x), f(y)))),
            MaxF32 => map!(|x, y, z| fb(fmax(f(x), f(y)))),
            MinimumF32 => {
                map!(|x, y, z| if f(x).is_nan() || f(y).is_nan() { 0x7fc0_0000 } else { fb(fmin(f(x), f(y))) })
            }
            MaximumF32 => {
                map!(|x, y, z| if f(x).is_nan() || f(y).is_nan() { 0x7fc0_0000 } else { fb(fmax(f(x), f(y))) })
            }
            LdexpF32 => map!(|x, y, z| fb(ldexp32(f(x), y as u32 as i32))),
            FmaF32 => map!(|x, y, z| fb(f(x).mul_add(f(y), f(z)))),
            FmaLegacyF32 => {
                map!(|x, y, z| if f(x) == 0.0 || f(y) == 0.0 { fb(0.0 + f(z)) } else { fb(f(x).mul_add(f(y), f(z))) })
            }
            DivFixupF32 => map!(|x, y, z| {
                let (s1, s2) = (f(y), f(z));
                fb(div_fixup(f(x) as f64, s1 as f64, s2 as f64, 150, exp32(s1), exp32(s2), 255) as f32)
            }),
            DivFmasF32 => {
                let vcc = self.vcc();
                map!(|x, y, z, l| fb(div_fmas32(f(x), f(y), f(z), vcc >> l & 1 != 0)))
            }
            DivScaleF32 => carry!(|x, y, z, l| {
                let (r, v) = div_scale32(f(x), f(y), f(z));
                (fb(r), v)
            }),
            Med3F32 => map!(|x, y, z| fb(fmed3(f(x), f(y), f(z)))),
            Min3F32 => map!(|x, y, z| fb(fmin(fmin(f(x), f(y)), f(z)))),
            Max3F32 => map!(|x, y, z| fb(fmax(fmax(f(x), f(y)), f(z)))),
            RcpF32 => map!(|x, y, z| fb(1.0 / f(x))),
            RsqF32 => map!(|x, y, z| fb((1.0 / (f(x) as f64).sqrt()) as f32)),
            SqrtF32 => map!(|x, y, z| fb(f(x).sqrt())),
            ExpF32 => map!(|x, y, z| fb(f(x).exp2())),
            LogF32 => map!(|x, y, z| fb(f(x).log2())),
            SinF32 => map!(|x, y, z| fb((f(x) as f64 * std::f64::consts::TAU).sin() as f32)),
            CosF32 => map!(|x, y, z| fb((f(x) as f64 * std::f64::consts::TAU).cos() as f32)),
            FloorF32 => map!(|x, y, z| fb(f(x).floor())),
            CeilF32 => map!(|x, y, z| fb(f(x).ceil())),
            TruncF32 => map!(|x, y, z| fb(f(x).trunc())),
            RndneF32 => map!(|x, y, z| fb(f(x).round_ties_even())),
            FractF32 => map!(|x, y, z| fb(fract32(f(x)))),
            FrexpMantF32 => map!(|x, y, z| fb(frexp64(f(x) as f64).0 as f32)),
            FrexpExpF32 => map!(|x, y, z| frexp_exp32(f(x)) as u32 as u64),
            CvtF32I32 => map!(|x, y, z| fb(x as u32 as i32 as f32)),
            CvtF32U32 => map!(|x, y, z| fb(x as u32 as f32)),
            CvtI32F32 => map!(|x, y, z| f2i(f(x) as f64) as u32 as u64),
            CvtU32F32 => map!(|x, y, z| f2u(f(x) as f64) as u64),
            CvtF32Ubyte0 => map!(|x, y, z| fb((x & 0xff) as f32)),
            CvtF32Ubyte1 => map!(|x, y, z| fb((x >> 8 & 0xff) as f32)),
            CvtF32Ubyte2 => map!(|x, y, z| fb((x >> 16 & 0xff) as f32)),
            CvtF32Ubyte3 => map!(|x, y, z| fb((x >> 24 & 0xff) as f32)),
            CvtRpiI32F32 => map!(|x, y, z| f2i((f(x) as f64 + 0.5).floor()) as u32 as u64),
            CvtFlrI32F32 => map!(|x, y, z| f2i((f(x) as f64).floor()) as u32 as u64),
            ClassF32 => map!(|x, y, z| (class32(f(x)) & y as u32 != 0) as u64),
            CvtPkRtzF16F32 => map!(|x, y, z| f32_to_f16_rtz(f(x)) as u64 | ((f32_to_f16_rtz(f(y)) as u64) << 16)),
            CvtPkF32ToF16 => map!(|x, y, z| hb(f(x)) | (hb(f(y)) << 16)),
            CvtPkNormI16F32 => return Err("v_cvt_pk_norm_i16_f32: not supported".into()),
            CvtF32F16 => map!(|x, y, z| fb(hf(x))),
            CvtF16F32 => map!(|x, y, z| hb(f(x))),
            AddF16 => map!(|x, y, z| hb(hf(x) + hf(y))),
            SubF16 => map!(|x, y, z| hb(hf(x) - hf(y))),
            SubrevF16 => map!(|x, y, z| hb(hf(y) - hf(x))),
            MulF16 => map!(|x, y, z| hb(hf(x) * hf(y))),
            FmaF16 => map!(|x, y, z| f64_to_f16((hf(x) as f64).mul_add(hf(y) as f64, hf(z) as f64)) as u64),
            MaxF16 => map!(|x, y, z| hb(fmax(hf(x), hf(y)))),
            MinF16 => map!(|x, y, z| hb(fmin(hf(x), hf(y)))),
            LdexpF16 => map!(|x, y, z| f64_to_f16(ldexp64(hf(x) as f64, sx16(y))) as u64),
            SqrtF16 => map!(|x, y, z| hb(hf(x).sqrt())),
            RcpF16 => map!(|x, y, z| hb(1.0 / hf(x))),
            RsqF16 => map!(|x, y, z| hb(1.0 / hf(x).sqrt())),
            ExpF16 => map!(|x, y, z| hb(hf(x).exp2())),
            LogF16 => map!(|x, y, z| hb(hf(x).log2())),
            FloorF16 => map!(|x, y, z| hb(hf(x).floor())),
            CeilF16 => map!(|x, y, z| hb(hf(x).ceil())),
            TruncF16 => map!(|x, y, z| hb(hf(x).trunc())),
            RndneF16 => map!(|x, y, z| hb(hf(x).round_ties_even())),
            FractF16 => map!(|x, y, z| hb(fract32(hf(x)).min(f16_to_f32(0x3bff)))),
            CvtF16I16 => map!(|x, y, z| hb(sx16(x) as f32)),
            CvtF16U16 => map!(|x, y, z| hb((x & 0xffff) as f32)),
            CvtI16F16 => map!(|x, y, z| (f2i(hf(x) as f64).clamp(-32768, 32767) as u32 & 0xffff) as u64),
            CvtU16F16 => map!(|x, y, z| (f2u(hf(x) as f64).min(0xffff)) as u64),
            CvtI32I16F16 => map!(|x, y, z| f2i(hf(x) as f64) as u32 as u64),
            DivFixupF16 => map!(|x, y, z| {
                let (s1, s2) = (hf(y), hf(z));
                let e = |v: f32| ((f32_to_f16(v) >> 10) & 0x1f) as i32;
                f64_to_f16(div_fixup(hf(x) as f64, s1 as f64, s2 as f64, 25, e(s1), e(s2), 31)) as u64
            }),
            ClassF16 => map!(|x, y, z| (class16(x as u16) & y as u32 != 0) as u64),
            Med3F16 => map!(|x, y, z| hb(fmed3(hf(x), hf(y), hf(z)))),
            Min3F16 => map!(|x, y, z| hb(fmin(fmin(hf(x), hf(y)), hf(z)))),
            Max3F16 => map!(|x, y, z| hb(fmax(fmax(hf(x), hf(y)), hf(z)))),
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
                    r[l] = match v.op {
                        FmaMixF32 => fb(p),
                        FmaMixLoF16 => (old[l] & 0xffff_0000) | f64_to_f16(s[0][l].mul_add(s[1][l], s[2][l])) as u64,
                        _ => (old[l] & 0xffff) | ((f64_to_f16(s[0][l].mul_add(s[1][l], s[2][l])) as u64) << 16),
                    };
                }
                return Ok(Out { r, mask: 0, wmask });
            }
            AddF64 => map!(|x, y, z| db(d(x) + d(y))),
            MulF64 => map!(|x, y, z| db(d(x) * d(y))),
            FmaF64 => map!(|x, y, z| db(d(x).mul_add(d(y), d(z)))),
            MinF64 => map!(|x, y, z| db(dmin(d(x), d(y)))),
            MaxF64 => map!(|x, y, z| db(dmax(d(x), d(y)))),
            MinimumF64 => {
                map!(|x, y, z| if d(x).is_nan() || d(y).is_nan() { db(f64::NAN) } else { db(dmin(d(x), d(y))) })
            }
            MaximumF64 => {
                map!(|x, y, z| if d(x).is_nan() || d(y).is_nan() { db(f64::NAN) } else { db(dmax(d(x), d(y))) })
            }
            LdexpF64 => map!(|x, y, z| db(ldexp64(d(x), y as u32 as i32))),
            DivScaleF64 => carry!(|x, y, z, l| {
                let (r, v) = div_scale64(d(x), d(y), d(z));
                (db(r), v)
            }),
            DivFmasF64 => {
                let vcc = self.vcc();
                map!(|x, y, z, l| db(div_fmas64(d(x), d(y), d(z), vcc >> l & 1 != 0)))
            }
            DivFixupF64 => map!(|x, y, z| db(div_fixup(d(x), d(y), d(z), 1075, exp64(d(y)), exp64(d(z)), 2047))),
            RcpF64 => map!(|x, y, z| db(1.0 / d(x))),
            RsqF64 => map!(|x, y, z| db(1.0 / d(x).sqrt())),
            SqrtF64 => map!(|x, y, z| db(d(x).sqrt())),
            FloorF64 => map!(|x, y, z| db(d(x).floor())),
            CeilF64 => map!(|x, y, z| db(d(x).ceil())),
            TruncF64 => map!(|x, y, z| db(d(x).trunc())),
            RndneF64 => map!(|x, y, z| db(d(x).round_ties_even())),
            FractF64 => map!(|x, y, z| db(fract64(d(x)))),
            FrexpMantF64 => map!(|x, y, z| db(frexp64(d(x)).0)),
            FrexpExpF64 => map!(|x, y, z| frexp64(d(x)).1 as u32 as u64),
            CvtF64I32 => map!(|x, y, z| db(x as u32 as i32 as f64)),
            CvtF64U32 => map!(|x, y, z| db(x as u32 as f64)),
            CvtI32F64 => map!(|x, y, z| f2i(d(x)) as u32 as u64),
            CvtU32F64 => map!(|x, y, z| f2u(d(x)) as u64),
            CvtF64F32 => map!(|x, y, z| db(f(x) as f64)),
            CvtF32F64 => map!(|x, y, z| fb(d(x) as f32)),
            ClassF64 => map!(|x, y, z| (class_f64(d(x)) & y as u32 != 0) as u64),
            Permlane16 | PermlaneX16 => {
                let (sel_lo, sel_hi) = (b[0] as u32, c[0] as u32);
                for l in 0..W {
                    let i = l % 16;
                    let sel = if i < 8 { sel_lo >> (4 * i) } else { sel_hi >> (4 * (i - 8)) } & 0xf;
                    let row = l / 16;
                    let srow = if v.op == PermlaneX16 { row ^ 1 } else { row };
                    let s = srow * 16 + sel as usize;
                    r[l] = if s < W { a[s] } else { 0 };
                }
            }
            Cmp => {
                let (op, ty) = v.cmp;
                let m = cmp_mask::<W>(op, ty, &a, &b);
                return Ok(Out { r, mask: m & exec, wmask: 0 });
            }
            ReadLane | ReadFirstLane | WriteLane => return Err("lane operation in a dual issue".into()),
            _ => return Err(format!("{:?}: not supported here", v.op)),
        }
        // Output modifiers.
        if v.dty.is_float() && (v.omod != 0 || v.clamp) {
            for x in r.iter_mut() {
                *x = match v.dty {
                    Ty::F32 => fb(omod32(f(*x), v.omod, v.clamp)),
                    Ty::F64 => db(omod64(d(*x), v.omod, v.clamp)),
                    _ => hb(omod32(hf(*x), v.omod, v.clamp)),
                };
            }
        }
        Ok(Out { r, mask, wmask })
    }

    pub(super) fn commit(&mut self, v: &Valu, o: &Out<W>) {
        if v.op == VOp::Cmp {
            self.wmask(v.dst as usize, o.mask);
            return;
        }
        let dst = v.dst as usize;
        let wm = o.wmask;
        match v.dty {
            Ty::B64 | Ty::F64 => {
                for l in 0..W {
                    if wm >> l & 1 != 0 {
                        self.v[dst][l] = o.r[l] as u32;
                        self.v[dst + 1][l] = (o.r[l] >> 32) as u32;
                    }
                }
            }
            Ty::B16 | Ty::F16 => {
                let (sh, keep) = if v.opsel & 8 != 0 { (16, 0xffffu32) } else { (0, 0xffff_0000) };
                let d = &mut self.v[dst];
                for l in 0..W {
                    if wm >> l & 1 != 0 {
                        d[l] = (d[l] & keep) | (((o.r[l] as u32) & 0xffff) << sh);
                    }
                }
            }
            _ => {
                let d = &mut self.v[dst];
                for l in 0..W {
                    let x = o.r[l] as u32;
                    d[l] = if wm >> l & 1 != 0 { x } else { d[l] };
                }
            }
        }
        if matches!(
            v.op,
            VOp::AddCo
                | VOp::SubCo
                | VOp::SubrevCo
                | VOp::AddCoCi
                | VOp::SubCoCi
                | VOp::SubrevCoCi
                | VOp::MadU64U32
                | VOp::MadI64I32
        ) {
            self.wmask(v.sdst as usize, o.mask & self.exec());
        } else if matches!(v.op, VOp::DivScaleF32 | VOp::DivScaleF64) {
            let sd = if v.sdst as usize == NULL { VCC } else { v.sdst as usize };
            self.wmask(sd, o.mask & self.exec());
        }
    }

    pub(super) fn valu(&mut self, v: &Valu) -> Result<(), String> {
        let exec = self.exec();
        match v.op {
            VOp::ReadLane | VOp::ReadFirstLane => {
                let a = self.vsrc(v.src[0], Ty::B32, false);
                let lane = if v.op == VOp::ReadFirstLane {
                    if exec == 0 {
                        0
                    } else {
                        exec.trailing_zeros() as usize
                    }
                } else {
                    (self.sval(src_s(v.src[1]), Ty::B32) as usize) % W
                };
                self.ws(v.dst as usize, a[lane] as u32);
                return Ok(());
            }
            VOp::WriteLane => {
                let x = self.sval(src_s(v.src[0]), Ty::B32) as u32;
                let lane = (self.sval(src_s(v.src[1]), Ty::B32) as usize) % W;
                self.v[v.dst as usize][lane] = x;
                return Ok(());
            }
            _ => {}
        }
        let o = self.compute(v, exec)?;
        if v.cmpx {
            if v.dst as usize != EXEC {
                // gfx9: the SGPR destination gets the result too.
                self.commit(v, &o);
            }
            self.set_exec(o.mask);
        } else {
            self.commit(v, &o);
        }
        Ok(())
    }

    /// `v_s_*`: the sources are uniform, so lane 0 computes the one result, whatever EXEC is.
    pub(super) fn scalar_valu(&mut self, v: &Valu) -> Result<(), String> {
        let o = self.compute(v, 1)?;
        let r = if v.dty.is16() { o.r[0] as u32 & 0xffff } else { o.r[0] as u32 };
        self.ws(v.dst as usize, r);
        Ok(())
    }
}

pub(super) fn src_s(v: Vs) -> Ss {
    match v {
        Vs::S(s) => s,
        Vs::V(_) => Ss::K(0),
    }
}
