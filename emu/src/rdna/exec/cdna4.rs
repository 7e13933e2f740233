//! gfx950 (CDNA4) VALU operations: bf16 conversions.
//!
//! Source: AMD "Instinct MI355X (CDNA4) ISA Reference Guide", V_CVT_PK_BF16_F32 (two f32 to
//! bf16 with round-to-nearest-even, src0 to the low half) and V_CVT_F32_BF16.

use super::*;

/// f32 to bf16, round to nearest even; NaNs stay NaNs (quieted).
pub fn f32_to_bf16_rne(x: u32) -> u32 {
    if x & 0x7fff_ffff > 0x7f80_0000 {
        return (x >> 16) | 0x40;
    }
    (x + 0x7fff + (x >> 16 & 1)) >> 16
}

impl<const W: usize> Wave<W> {
    #[inline(always)]
    pub(super) fn valu_cdna4(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        #[allow(unused_variables)]
        match v.op {
            CvtPkBf16F32 => map!(io, |x, y, z| (f32_to_bf16_rne(x as u32) | f32_to_bf16_rne(y as u32) << 16) as u64),
            CvtF32Bf16 => map!(io, |x, y, z| (x & 0xffff) << 16),
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }
}
