//! VOP3P packed 16-bit math (two halves per lane) and v_dot2.

use super::*;

/// VOP3P packed 16-bit operations (and v_dot2), executed per half.
pub fn packed(op: VOp) -> bool {
    use VOp::*;
    matches!(
        op,
        PkAddF16
            | PkMulF16
            | PkFmaF16
            | PkMaxF16
            | PkMinF16
            | PkAddU16
            | PkSubU16
            | PkAddI16
            | PkSubI16
            | PkMulLoU16
            | PkLshlrevB16
            | PkLshrrevB16
            | PkAshrrevI16
            | PkMaxI16
            | PkMinI16
            | PkMaxU16
            | PkMinU16
            | PkMadU16
            | PkMadI16
            | PkMinimum3F16
            | PkMaximum3F16
            | Dot2F32F16
            | Dot2F32Bf16
    )
}

pub(super) fn pk_half(op: VOp, x: u32, y: u32, z: u32, clamp: bool) -> u32 {
    use VOp::*;
    let (sx, sy, sz) = (x as u16 as i16 as i32, y as u16 as i16 as i32, z as u16 as i16 as i32);
    let fh = |r: f32| f32_to_f16(if clamp { r.clamp(0.0, 1.0) } else { r }) as u32;
    let r = match op {
        PkAddF16 => fh(hf(x as u64) + hf(y as u64)),
        PkMulF16 => fh(hf(x as u64) * hf(y as u64)),
        PkFmaF16 => f64_to_f16((hf(x as u64) as f64).mul_add(hf(y as u64) as f64, hf(z as u64) as f64)) as u32,
        PkMaxF16 => fh(fmax(hf(x as u64), hf(y as u64))),
        PkMinF16 => fh(fmin(hf(x as u64), hf(y as u64))),
        PkAddU16 | PkAddI16 => x.wrapping_add(y),
        PkSubU16 | PkSubI16 => x.wrapping_sub(y),
        PkMulLoU16 => x.wrapping_mul(y),
        PkLshlrevB16 => (y & 0xffff) << (x & 15),
        PkLshrrevB16 => (y & 0xffff) >> (x & 15),
        PkAshrrevI16 => (sy >> (x & 15)) as u32,
        PkMaxI16 => sx.max(sy) as u32,
        PkMinI16 => sx.min(sy) as u32,
        PkMaxU16 => (x & 0xffff).max(y & 0xffff),
        PkMinU16 => (x & 0xffff).min(y & 0xffff),
        PkMadU16 => x.wrapping_mul(y).wrapping_add(z),
        PkMadI16 => sx.wrapping_mul(sy).wrapping_add(sz) as u32,
        // gfx950: IEEE 754-2019 minimum/maximum of three: a NaN anywhere gives the quiet NaN,
        // −0 < +0 (fmin/fmax order the zeros).
        PkMinimum3F16 | PkMaximum3F16 => {
            let v = [hf(x as u64), hf(y as u64), hf(z as u64)];
            if v.iter().any(|a| a.is_nan()) {
                0x7e00
            } else {
                let pick = |a: f32, b: f32| if op == PkMaximum3F16 { fmax(a, b) } else { fmin(a, b) };
                fh(pick(pick(v[0], v[1]), v[2]))
            }
        }
        _ => 0,
    };
    r & 0xffff
}

impl<const W: usize> Wave<W> {
    pub(super) fn packed_op(&self, v: &Valu, exec: u64, io: &mut Lanes<W>) -> Out {
        let mut lo = [[0u32; W]; 3];
        let mut hi = [[0u32; W]; 3];
        let n = v.nsrc as usize;
        for k in 0..n {
            let raw = self.vsrc(v.src[k], Ty::B32, false);
            let float = v.tys[k].is_float();
            for l in 0..W {
                let r = raw[l] as u32;
                let (h0, h1) = (r & 0xffff, r >> 16);
                let mut a = if v.opsel >> k & 1 != 0 { h1 } else { h0 };
                let mut b = if v.opsel_hi >> k & 1 != 0 { h1 } else { h0 };
                if float && v.neg >> k & 1 != 0 {
                    a ^= 0x8000;
                }
                if float && v.abs >> k & 1 != 0 {
                    b ^= 0x8000;
                }
                lo[k][l] = a;
                hi[k][l] = b;
            }
        }
        let r = &mut io.r;
        if matches!(v.op, VOp::Dot2F32F16 | VOp::Dot2F32Bf16) {
            let c = self.vsrc(v.src[2], Ty::F32, false);
            let h = |x: u32| -> f64 {
                if v.op == VOp::Dot2F32Bf16 {
                    f32::from_bits(x << 16) as f64
                } else {
                    hf(x as u64) as f64
                }
            };
            for l in 0..W {
                let p = h(lo[0][l]) * h(lo[1][l]) + h(hi[0][l]) * h(hi[1][l]) + f(c[l]) as f64;
                r[l] = fb(p as f32);
            }
        } else {
            for l in 0..W {
                let a = pk_half(v.op, lo[0][l], lo[1][l], lo[2][l], v.clamp);
                let b = pk_half(v.op, hi[0][l], hi[1][l], hi[2][l], v.clamp);
                r[l] = (a | (b << 16)) as u64;
            }
        }
        Out { mask: 0, wmask: exec }
    }
}
