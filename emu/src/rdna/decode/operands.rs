//! Operand fields -> typed sources: inline constants, literals, register ranges.

use super::*;

pub(super) fn inline_float(v: u32, ty: Ty) -> u64 {
    let i = (v - 240) as usize;
    const F32: [u32; 9] = [
        0x3f00_0000,
        0xbf00_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x4000_0000,
        0xc000_0000,
        0x4080_0000,
        0xc080_0000,
        0x3e22_f983,
    ];
    const F64: [u64; 9] = [
        0x3fe0_0000_0000_0000,
        0xbfe0_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0xbff0_0000_0000_0000,
        0x4000_0000_0000_0000,
        0xc000_0000_0000_0000,
        0x4010_0000_0000_0000,
        0xc010_0000_0000_0000,
        0x3fc4_5f30_6dc9_c882,
    ];
    const F16: [u16; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
    match ty {
        Ty::F64 | Ty::B64 => F64[i],
        Ty::F16 | Ty::B16 => F16[i] as u64,
        _ => F32[i] as u64,
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
