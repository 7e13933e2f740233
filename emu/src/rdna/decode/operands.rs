//! Operand fields -> typed sources: inline constants, literals, register ranges.

use super::*;

/// An inline float source code (240..=248) as the bits of an operand of type `ty`: the one
/// table of these constants is the ISA crate's.
pub(super) fn inline_float(v: u32, ty: Ty) -> u64 {
    let k = &baregpu_isa::operand::INLINE_FLOATS[(v - 240) as usize];
    match ty {
        Ty::F64 | Ty::B64 => k.f64,
        Ty::F16 | Ty::B16 => k.f16.into(),
        _ => k.f32.into(),
    }
}

/// A scalar source field (8 or 9 bits, < 256) as a typed scalar source.
pub fn ssrc(v: u32, ty: Ty, lit: Option<u32>) -> Result<Ss, String> {
    let wide = ty.is64();
    Ok(match v {
        0..=127 => Ss::R(v as u8),
        128..=208 => {
            let i = if v <= 192 { v as i64 - 128 } else { 192 - v as i64 };
            Ss::K(if wide {
                i as u64
            } else if ty.is16() {
                (i as u64) & 0xffff
            } else {
                (i as u32) as u64
            })
        }
        235 => Ss::K(if wide { SHARED_BASE } else { SHARED_BASE >> 32 }),
        236 => Ss::K(if wide { SHARED_BASE + APERTURE_SIZE - 1 } else { (SHARED_BASE + APERTURE_SIZE - 1) >> 32 }),
        237 => Ss::K(if wide { PRIVATE_BASE } else { PRIVATE_BASE >> 32 }),
        238 => Ss::K(if wide { PRIVATE_BASE + APERTURE_SIZE - 1 } else { (PRIVATE_BASE + APERTURE_SIZE - 1) >> 32 }),
        240..=248 => Ss::K(inline_float(v, ty)),
        251 => Ss::Vccz,
        252 => Ss::Execz,
        253 => Ss::Scc,
        255 => {
            let l = lit.ok_or("literal missing")?;
            Ss::K(match ty {
                Ty::F64 => (l as u64) << 32,
                Ty::F16 | Ty::B16 => (l & 0xffff) as u64,
                _ => l as u64,
            })
        }
        _ => return Err(format!("source operand {v} not supported")),
    })
}

pub fn vsrc(v: u32, ty: Ty, lit: Option<u32>) -> Result<Vs, String> {
    if v >= 256 {
        Ok(Vs::V((v - 256) as u16))
    } else {
        Ok(Vs::S(ssrc(v, ty, lit)?))
    }
}

pub(super) fn sext(v: u32, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v as u64) << s) as i64 >> s
}

pub(super) fn mask_of(ty: Ty) -> u64 {
    if ty.is16() {
        0xffff
    } else {
        0xffff_ffff
    }
}
