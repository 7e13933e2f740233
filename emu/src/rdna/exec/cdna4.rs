//! gfx950 (CDNA4) VALU operations: bf16 conversions, the PRNG step, the lane swaps; and gfx9's
//! v_mad_u32_u16 / v_mad_i32_i16 (CDNA3 ISA guide: D = S0.u16 * S1.u16 + S2.u32).
//!
//! Source: AMD "Instinct MI355X (CDNA4) ISA Reference Guide", V_CVT_PK_BF16_F32 (two f32 to
//! bf16 with round-to-nearest-even, src0 to the low half), V_CVT_F32_BF16, V_PRNG_B32
//! (`D = S0 << 1 ^ (S0[31] ? 197 : 0)`), V_PERMLANE16/32_SWAP_B32 (see decode/cdna4.rs).

use super::*;

/// f32 to bf16, round to nearest even; NaNs stay NaNs (quieted).
pub fn f32_to_bf16_rne(x: u32) -> u32 {
    if x & 0x7fff_ffff > 0x7f80_0000 {
        return (x >> 16) | 0x40;
    }
    (x + 0x7fff + (x >> 16 & 1)) >> 16
}

/// The packed 16-bit float add of the `*_atomic_pk_add_f16/bf16` operations: each half
/// rounded to nearest even.
pub fn pk_add16(bf16: bool, a: u32, b: u32) -> u32 {
    let half = |x: u32, y: u32| -> u32 {
        if bf16 {
            f32_to_bf16_rne((f32::from_bits(x << 16) + f32::from_bits(y << 16)).to_bits())
        } else {
            f32_to_f16(f16_to_f32(x as u16) + f16_to_f32(y as u16)) as u32
        }
    };
    half(a & 0xffff, b & 0xffff) | half(a >> 16, b >> 16) << 16
}

/// The integer dot products (VOP3P and the VOP2 `c` forms).
pub fn int_dot(op: VOp) -> bool {
    use VOp::*;
    matches!(op, Dot2I32I16 | Dot2U32U16 | Dot4I32I8 | Dot4U32U8 | Dot8I32I4 | Dot8U32U4)
}

/// `S2 + Σ S0[k] × S1[k]` over the `n` elements of `bits` each (Vega/CDNA3 ISA guides,
/// V_DOT*): summed exactly; CLAMP saturates to the 32-bit range, else it wraps.
fn idot(x: u64, y: u64, z: u64, bits: u32, signed: bool, clamp: bool) -> u64 {
    let el = |w: u64, k: u32| -> i64 {
        let e = (w >> (k * bits)) & ((1 << bits) - 1);
        if signed && e >> (bits - 1) != 0 {
            e as i64 - (1 << bits)
        } else {
            e as i64
        }
    };
    let acc = if signed { z as u32 as i32 as i64 } else { z as u32 as i64 };
    let sum = (0..32 / bits).fold(acc, |s, k| s + el(x, k) * el(y, k));
    let r = match (clamp, signed) {
        (true, true) => sum.clamp(i32::MIN as i64, i32::MAX as i64),
        (true, false) => sum.clamp(0, u32::MAX as i64),
        _ => sum,
    };
    r as u32 as u64
}

impl<const W: usize> Wave<W> {
    #[inline(always)]
    pub(super) fn valu_cdna4(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        #[allow(unused_variables)]
        match v.op {
            CvtPkBf16F32 => map!(io, |x, y, z| (f32_to_bf16_rne(x as u32) | f32_to_bf16_rne(y as u32) << 16) as u64),
            CvtF32Bf16 => map!(io, |x, y, z| (x & 0xffff) << 16),
            // A Galois LFSR step: shift left, fold the carried-out bit back as 0xc5.
            Dot2I32I16 => map!(io, |x, y, z| idot(x, y, z, 16, true, v.clamp)),
            Dot2U32U16 => map!(io, |x, y, z| idot(x, y, z, 16, false, v.clamp)),
            Dot4I32I8 => map!(io, |x, y, z| idot(x, y, z, 8, true, v.clamp)),
            Dot4U32U8 => map!(io, |x, y, z| idot(x, y, z, 8, false, v.clamp)),
            Dot8I32I4 => map!(io, |x, y, z| idot(x, y, z, 4, true, v.clamp)),
            Dot8U32U4 => map!(io, |x, y, z| idot(x, y, z, 4, false, v.clamp)),
            Prng => map!(io, |x, y, z| ((x as u32) << 1 ^ if x >> 31 & 1 != 0 { 0xc5 } else { 0 }) as u64),
            // gfx9: S0.u16 * S1.u16 + S2.u32 (signed: the halves sign-extended), modulo 2^32.
            MadU32U16 => map!(io, |x, y, z| (x as u32).wrapping_mul(y as u32).wrapping_add(z as u32) as u64),
            MadI32I16 => {
                map!(io, |x, y, z| (x as i16 as i32).wrapping_mul(y as i16 as i32).wrapping_add(z as i32) as u32 as u64)
            }
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }
}

impl<const W: usize> Wave<W> {
    /// `v_swap_b32`: VGPRs `a` and `b` trade values in the active lanes.
    pub(super) fn vswap(&mut self, a: usize, b: usize) {
        let exec = self.exec();
        let (x, y) = (self.v[a], self.v[b]);
        for l in (0..W).filter(|l| exec >> l & 1 != 0) {
            self.v[a][l] = y[l];
            self.v[b][l] = x[l];
        }
    }

    /// Swaps VDST's odd 16-lane rows with SRC's even ones (`half`: VDST's upper 32 lanes with
    /// SRC's lower 32). A lane is written when it is active; it reads its partner when the
    /// partner is active or `fi` is set, else it takes 0 (`bound_ctrl`) or keeps its value.
    pub(super) fn permlane_swap(&mut self, vdst: u16, src: u16, half: bool, fi: bool, bound_ctrl: bool) {
        let (d, s) = (self.unified(vdst) as usize, self.unified(src) as usize);
        let (od, os) = (self.v[d], self.v[s]);
        let exec = self.exec();
        let on = |l: usize| exec >> l & 1 != 0;
        let span = if half { 32 } else { 16 };
        for l in 0..W {
            // Lane l of VDST pairs with lane l - span of SRC when l is in an odd block.
            let odd = (l / span) % 2 == 1;
            let (reg, partner, from) = if odd { (d, l - span, &os) } else { (s, l + span, &od) };
            if partner >= W || !on(l) {
                continue;
            }
            if on(partner) || fi {
                self.v[reg][l] = from[partner];
            } else if bound_ctrl {
                self.v[reg][l] = 0;
            }
        }
    }
}
