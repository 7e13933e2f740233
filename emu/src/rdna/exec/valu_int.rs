//! The VALU's integer operations, lane by lane.

use super::*;

impl<const W: usize> Wave<W> {
    /// 32-bit integer and bit operations.
    #[inline(always)]
    pub(super) fn valu_int32(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        #[allow(unused_variables)]
        match v.op {
            // Integer clamp: unsigned saturation.
            AddU32 if v.clamp => map!(io, |x, y, z| (x as u32).saturating_add(y as u32) as u64),
            SubU32 if v.clamp => map!(io, |x, y, z| (x as u32).saturating_sub(y as u32) as u64),
            SubrevU32 if v.clamp => map!(io, |x, y, z| (y as u32).saturating_sub(x as u32) as u64),
            AddU32 => map!(io, |x, y, z| (x as u32).wrapping_add(y as u32) as u64),
            SubU32 => map!(io, |x, y, z| (x as u32).wrapping_sub(y as u32) as u64),
            SubrevU32 => map!(io, |x, y, z| (y as u32).wrapping_sub(x as u32) as u64),
            MulLo => map!(io, |x, y, z| (x as u32).wrapping_mul(y as u32) as u64),
            MulHiU => map!(io, |x, y, z| (x as u32 as u64 * y as u32 as u64) >> 32),
            MulHiI => map!(io, |x, y, z| (((x as i32 as i64 * y as i32 as i64) >> 32) as u32) as u64),
            MulU24 => map!(io, |x, y, z| ((x as u32 & 0xff_ffff).wrapping_mul(y as u32 & 0xff_ffff)) as u64),
            MulI24 => map!(io, |x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8) as i64 * ((((y as u32) << 8) as i32 >> 8) as i64);
                p as u32 as u64
            }),
            MulHiU24 => map!(io, |x, y, z| (((x & 0xff_ffff) * (y & 0xff_ffff)) >> 32) & 0xffff_ffff),
            MulHiI24 => map!(io, |x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8) as i64 * ((((y as u32) << 8) as i32 >> 8) as i64);
                (p >> 32) as u32 as u64
            }),
            LshlRev => map!(io, |x, y, z| ((y as u32) << (x & 31)) as u64),
            LshrRev => map!(io, |x, y, z| ((y as u32) >> (x & 31)) as u64),
            AshrRev => map!(io, |x, y, z| ((y as u32 as i32) >> (x & 31)) as u32 as u64),
            And => map!(io, |x, y, z| x & y),
            Or => map!(io, |x, y, z| x | y),
            Xor => map!(io, |x, y, z| x ^ y),
            Xnor => map!(io, |x, y, z| !(x ^ y) & 0xffff_ffff),
            MinI => map!(io, |x, y, z| (x as u32 as i32).min(y as u32 as i32) as u32 as u64),
            MaxI => map!(io, |x, y, z| (x as u32 as i32).max(y as u32 as i32) as u32 as u64),
            MinU => map!(io, |x, y, z| x.min(y)),
            MaxU => map!(io, |x, y, z| x.max(y)),
            Bfm => map!(io, |x, y, z| ((((1u64 << (x & 31)) - 1) as u32) << (y & 31)) as u64),
            Bcnt => map!(io, |x, y, z| x.count_ones().wrapping_add(y as u32) as u64),
            MbcntLo => map!(io, |x, y, z, l| {
                let m = (x as u32) & ((1u64 << l.min(32)) - 1) as u32;
                (m.count_ones()).wrapping_add(y as u32) as u64
            }),
            MbcntHi => map!(io, |x, y, z, l| {
                let m = if l > 32 { (x as u32) & ((1u64 << (l - 32)) - 1) as u32 } else { 0 };
                (m.count_ones()).wrapping_add(y as u32) as u64
            }),
            Add3 => map!(io, |x, y, z| (x as u32).wrapping_add(y as u32).wrapping_add(z as u32) as u64),
            LshlAdd => map!(io, |x, y, z| ((x as u32) << (y & 31)).wrapping_add(z as u32) as u64),
            AddLshl => map!(io, |x, y, z| ((x as u32).wrapping_add(y as u32) << (z & 31)) as u64),
            LshlOr => map!(io, |x, y, z| (((x as u32) << (y & 31)) | z as u32) as u64),
            AndOr => map!(io, |x, y, z| (x & y) | z),
            Or3 => map!(io, |x, y, z| x | y | z),
            Xor3 => map!(io, |x, y, z| x ^ y ^ z),
            Xad => map!(io, |x, y, z| ((x as u32 ^ y as u32).wrapping_add(z as u32)) as u64),
            BfeU => map!(io, |x, y, z| bfe(x as u32, y as u32, z as u32) as u64),
            BfeI => map!(io, |x, y, z| bfe_i(x as u32, y as u32, z as u32) as u64),
            Bfi => map!(io, |x, y, z| (x & y) | (!x & z & 0xffff_ffff)),
            Alignbit => map!(io, |x, y, z| ((((x << 32) | y) >> (z & 31)) as u32) as u64),
            Alignbyte => map!(io, |x, y, z| ((((x << 32) | y) >> (8 * (z & 3))) as u32) as u64),
            Perm => map!(io, |x, y, z| perm(x as u32, y as u32, z as u32) as u64),
            MadU24 => {
                map!(io, |x, y, z| ((x as u32 & 0xff_ffff).wrapping_mul(y as u32 & 0xff_ffff)).wrapping_add(z as u32)
                    as u64)
            }
            MadI24 => map!(io, |x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8).wrapping_mul(((y as u32) << 8) as i32 >> 8);
                p.wrapping_add(z as u32 as i32) as u32 as u64
            }),
            Min3I => map!(io, |x, y, z| min3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Max3I => map!(io, |x, y, z| max3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Med3I => map!(io, |x, y, z| med3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Min3U => map!(io, |x, y, z| min3(x, y, z)),
            Max3U => map!(io, |x, y, z| max3(x, y, z)),
            Med3U => map!(io, |x, y, z| med3(x, y, z)),
            Mov | MovB16 | Mov64 => map!(io, |x, y, z| x),
            Not => map!(io, |x, y, z| !x & 0xffff_ffff),
            NotB16 => map!(io, |x, y, z| !x & 0xffff),
            Bfrev => map!(io, |x, y, z| (x as u32).reverse_bits() as u64),
            Clz => map!(io, |x, y, z| if x as u32 == 0 { u32::MAX as u64 } else { (x as u32).leading_zeros() as u64 }),
            Ctz => map!(io, |x, y, z| if x as u32 == 0 { u32::MAX as u64 } else { (x as u32).trailing_zeros() as u64 }),
            Cls => map!(io, |x, y, z| cls32(x as u32 as i32) as u64),
            Cndmask | CndmaskB16 => map!(io, |x, y, z, l| if z >> l & 1 != 0 { y } else { x }),
            SadU32 => map!(io, |x, y, z| ((x as u32).abs_diff(y as u32)).wrapping_add(z as u32) as u64),
            SadU8 => map!(io, |x, y, z| sad(x, y, 8, false).wrapping_add(z as u32) as u64),
            SadHiU8 => map!(io, |x, y, z| (sad(x, y, 8, false) << 16).wrapping_add(z as u32) as u64),
            SadU16 => map!(io, |x, y, z| sad(x, y, 16, false).wrapping_add(z as u32) as u64),
            MsadU8 => map!(io, |x, y, z| sad(x, y, 8, true).wrapping_add(z as u32) as u64),
            // Per byte: the average of S0's and S1's, rounded up when S2's byte is odd.
            LerpU8 => map!(io, |x, y, z| (0..4).fold(0u32, |d, k| {
                let b = |w: u64| (w >> (8 * k)) as u32 & 0xff;
                d | ((b(x) + b(y) + (b(z) & 1)) >> 1) << (8 * k)
            }) as u64),
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }

    /// 16-bit and 64-bit integer operations, and those that carry out into a lane mask.
    #[inline(always)]
    pub(super) fn valu_int_wide(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        let sat = v.clamp;
        #[allow(unused_variables)]
        match v.op {
            // Integer clamp: saturation (unsigned or signed as the operation is).
            MadU16 if sat => map!(io, |x, y, z| (x * y + z).min(0xffff)),
            AddU16 if sat => map!(io, |x, y, z| (x + y).min(0xffff)),
            SubU16 if sat => map!(io, |x, y, z| x.saturating_sub(y)),
            AddI16 if sat => map!(io, |x, y, z| (sx16(x) + sx16(y)).clamp(-32768, 32767) as u32 as u64 & 0xffff),
            SubI16 if sat => map!(io, |x, y, z| (sx16(x) - sx16(y)).clamp(-32768, 32767) as u32 as u64 & 0xffff),
            AddU16 => map!(io, |x, y, z| (x + y) & 0xffff),
            SubU16 => map!(io, |x, y, z| x.wrapping_sub(y) & 0xffff),
            AddI16 => map!(io, |x, y, z| (x + y) & 0xffff),
            SubI16 => map!(io, |x, y, z| x.wrapping_sub(y) & 0xffff),
            MulLoU16 => map!(io, |x, y, z| (x * y) & 0xffff),
            MadU16 => map!(io, |x, y, z| (x * y + z) & 0xffff),
            LshlRevB16 => map!(io, |x, y, z| (y << (x & 15)) & 0xffff),
            LshrRevB16 => map!(io, |x, y, z| (y >> (x & 15)) & 0xffff),
            AshrRevB16 => map!(io, |x, y, z| ((sx16(y) >> (x & 15)) as u32 & 0xffff) as u64),
            AndB16 => map!(io, |x, y, z| x & y),
            OrB16 => map!(io, |x, y, z| x | y),
            XorB16 => map!(io, |x, y, z| x ^ y),
            MaxU16 => map!(io, |x, y, z| x.max(y)),
            MinU16 => map!(io, |x, y, z| x.min(y)),
            MaxI16 => map!(io, |x, y, z| (sx16(x).max(sx16(y)) as u32 & 0xffff) as u64),
            MinI16 => map!(io, |x, y, z| (sx16(x).min(sx16(y)) as u32 & 0xffff) as u64),
            PackB32F16 => map!(io, |x, y, z| (x & 0xffff) | ((y & 0xffff) << 16)),
            CvtPkI16I32 => map!(io, |x, y, z| {
                let c = |v: u64| ((v as u32 as i32).clamp(-32768, 32767) as u32 & 0xffff) as u64;
                c(x) | (c(y) << 16)
            }),
            CvtPkU16U32 => map!(io, |x, y, z| (x.min(0xffff)) | (y.min(0xffff) << 16)),
            SextI32I16 => map!(io, |x, y, z| sx16(x) as u32 as u64),
            Bcnt16 => map!(io, |x, y, z| (x as u16).count_ones() as u64),
            CvtU32U16F16 => map!(io, |x, y, z| x & 0xffff),
            AddCo => carry!(io, |x, y, z, l| {
                let s = x + y;
                (s & 0xffff_ffff, s >> 32 != 0)
            }),
            SubCo => carry!(io, |x, y, z, l| (x.wrapping_sub(y) & 0xffff_ffff, y > x)),
            SubrevCo => carry!(io, |x, y, z, l| (y.wrapping_sub(x) & 0xffff_ffff, x > y)),
            AddCoCi => carry!(io, |x, y, z, l| {
                let s = x + y + (z >> l & 1);
                (s & 0xffff_ffff, s >> 32 != 0)
            }),
            SubCoCi => carry!(io, |x, y, z, l| {
                let ci = z >> l & 1;
                (x.wrapping_sub(y).wrapping_sub(ci) & 0xffff_ffff, y + ci > x)
            }),
            SubrevCoCi => carry!(io, |x, y, z, l| {
                let ci = z >> l & 1;
                (y.wrapping_sub(x).wrapping_sub(ci) & 0xffff_ffff, x + ci > y)
            }),
            MadU64U32 => carry!(io, |x, y, z, l| {
                let p = (x as u32 as u128) * (y as u32 as u128) + z as u128;
                (p as u64, p >> 64 != 0)
            }),
            MadI64I32 => carry!(io, |x, y, z, l| {
                let p = (x as u32 as i32 as i128) * (y as u32 as i32 as i128) + (z as i64 as i128);
                (p as u64, p != (p as i64) as i128)
            }),
            LshlRev64 => map!(io, |x, y, z| y << (x & 63)),
            LshrRev64 => map!(io, |x, y, z| y >> (x & 63)),
            AshrRev64 => map!(io, |x, y, z| ((y as i64) >> (x & 63)) as u64),
            AddU64 => map!(io, |x, y, z| x.wrapping_add(y)),
            LshlAddU64 => map!(io, |x, y, z| (x << (y & 7)).wrapping_add(z)),
            Bitop3 => {
                let t = v.imm;
                map!(io, |x, y, z| bitop3(t, x as u32, y as u32, z as u32) as u64)
            }
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }
}

/// Σ |S0[k] − S1[k]| over the bytes (or words) of two dwords; `masked` (V_MSAD_U8) skips the
/// elements where S1's is 0 (RDNA3/CDNA3 ISA guides, V_SAD_U8, V_SAD_U16, V_MSAD_U8).
fn sad(x: u64, y: u64, bits: u32, masked: bool) -> u32 {
    let m = (1u64 << bits) - 1;
    (0..32 / bits)
        .map(|k| ((x >> (k * bits) & m) as u32, (y >> (k * bits) & m) as u32))
        .filter(|&(_, b)| !masked || b != 0)
        .map(|(a, b)| a.abs_diff(b))
        .sum()
}
