//! The VALU's gfx9-only operations: the unfused 16-bit multiply-add (`v_mad_f16`, `v_mac_f16`,
//! MADAK/MADMK), the signed and clamped 16/32-bit integer forms, 16-bit min3/max3/med3, and the
//! packing conversions (`v_cvt_pk_u8_f32`, `v_cvt_pknorm_*`, `v_cvt_norm_*`, `v_sat_pk_u8_i16`).
//!
//! Sources: AMD CDNA3 ISA guide §12 (V_MAD_F16, V_CVT_PK_U8_F32, V_CVT_PKNORM_*, V_SAT_PK_U8_I16,
//! V_MED3_I16 …). Where the guide leaves the rounding of a float-to-integer conversion to "the
//! current mode", it is the default round to nearest even; a NaN converts to 0 **(ours)**.

use super::*;

/// `x` rounded to nearest even and clamped to `[lo, hi]`; NaN gives 0.
fn to_int(x: f64, lo: f64, hi: f64) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.round_ties_even().clamp(lo, hi) as i64
    }
}

/// f32 (or f16, widened) to a signed 16-bit normalized integer: `[-1, 1]` onto `[-32767, 32767]`.
fn snorm16(x: f32) -> u64 {
    (to_int(x.clamp(-1.0, 1.0) as f64 * 32767.0, -32767.0, 32767.0) as u64) & 0xffff
}

/// f32 (or f16, widened) to an unsigned 16-bit normalized integer: `[0, 1]` onto `[0, 65535]`.
fn unorm16(x: f32) -> u64 {
    to_int(x.clamp(0.0, 1.0) as f64 * 65535.0, 0.0, 65535.0) as u64
}

/// IEEE 754-2019 minimum/maximum of three f32: a NaN anywhere gives the quiet NaN, −0 < +0.
fn minmax3(x: u64, y: u64, z: u64, max: bool) -> u64 {
    let v = [f(x), f(y), f(z)];
    if v.iter().any(|a| a.is_nan()) {
        return 0x7fc0_0000;
    }
    let pick = |a: f32, b: f32| if max { fmax(a, b) } else { fmin(a, b) };
    fb(pick(pick(v[0], v[1]), v[2]))
}

impl<const W: usize> Wave<W> {
    /// gfx9-only 16-bit, integer and packing operations.
    #[inline(always)]
    pub(super) fn valu_gfx9(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        let sat = v.clamp;
        #[allow(unused_variables)]
        match v.op {
            // Not fused: the product rounds to f16 before the add. The product of two f16 is
            // exact in f32, and f32 has 2 × 11 + 2 bits, so the f32 sum rounds to f16 once.
            MadF16 => map!(io, |x, y, z| hb(hf(hb(hf(x) * hf(y))) + hf(z))),
            MadI16 => map!(io, |x, y, z| {
                let r = sx16(x) * sx16(y) + sx16(z);
                (if sat { r.clamp(-32768, 32767) } else { r }) as u32 as u64 & 0xffff
            }),
            SubrevU16 if sat => map!(io, |x, y, z| y.saturating_sub(x)),
            SubrevU16 => map!(io, |x, y, z| y.wrapping_sub(x) & 0xffff),
            AddI32 if sat => map!(io, |x, y, z| (x as u32 as i32).saturating_add(y as u32 as i32) as u32 as u64),
            SubI32 if sat => map!(io, |x, y, z| (x as u32 as i32).saturating_sub(y as u32 as i32) as u32 as u64),
            AddI32 => map!(io, |x, y, z| (x as u32).wrapping_add(y as u32) as u64),
            SubI32 => map!(io, |x, y, z| (x as u32).wrapping_sub(y as u32) as u64),
            Min3U16 => map!(io, |x, y, z| min3(x, y, z)),
            Max3U16 => map!(io, |x, y, z| max3(x, y, z)),
            Med3U16 => map!(io, |x, y, z| med3(x, y, z)),
            Min3I16 => map!(io, |x, y, z| min3(sx16(x), sx16(y), sx16(z)) as u32 as u64 & 0xffff),
            Max3I16 => map!(io, |x, y, z| max3(sx16(x), sx16(y), sx16(z)) as u32 as u64 & 0xffff),
            Med3I16 => map!(io, |x, y, z| med3(sx16(x), sx16(y), sx16(z)) as u32 as u64 & 0xffff),
            // S2 with the byte S1[1:0] selects replaced by S0 as an unsigned byte.
            CvtPkU8F32 => map!(io, |x, y, z| {
                let sh = 8 * (y & 3);
                (z & !(0xff << sh) & 0xffff_ffff) | (to_int(f(x) as f64, 0.0, 255.0) as u64) << sh
            }),
            CvtPknormI16F32 => map!(io, |x, y, z| snorm16(f(x)) | snorm16(f(y)) << 16),
            CvtPknormU16F32 => map!(io, |x, y, z| unorm16(f(x)) | unorm16(f(y)) << 16),
            CvtPknormI16F16 => map!(io, |x, y, z| snorm16(hf(x)) | snorm16(hf(y)) << 16),
            CvtPknormU16F16 => map!(io, |x, y, z| unorm16(hf(x)) | unorm16(hf(y)) << 16),
            CvtNormI16F16 => map!(io, |x, y, z| snorm16(hf(x))),
            CvtNormU16F16 => map!(io, |x, y, z| unorm16(hf(x))),
            // Each signed 16-bit half saturated to an unsigned byte: {sat8(S0.hi), sat8(S0.lo)}.
            SatPkU8I16 => map!(io, |x, y, z| {
                let b = |h: u64| sx16(h).clamp(0, 255) as u64;
                b(x) | b(x >> 16) << 8
            }),
            FrexpMantF16 => map!(io, |x, y, z| hb(frexp64(hf(x) as f64).0 as f32)),
            FrexpExpF16 => map!(io, |x, y, z| frexp64(hf(x) as f64).1 as u32 as u64 & 0xffff),
            SinF16 => map!(io, |x, y, z| hb((hf(x) as f64 * std::f64::consts::TAU).sin() as f32)),
            CosF16 => map!(io, |x, y, z| hb((hf(x) as f64 * std::f64::consts::TAU).cos() as f32)),
            // The low nibble as a signed 4-bit integer over 16 (interpolation offsets).
            CvtOffF32I4 => map!(io, |x, y, z| fb(((x as u32) << 28) as i32 as f32 / (16.0 * (1u64 << 28) as f32))),
            Minimum3F32 => map!(io, |x, y, z| minmax3(x, y, z, false)),
            Maximum3F32 => map!(io, |x, y, z| minmax3(x, y, z, true)),
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }
}
