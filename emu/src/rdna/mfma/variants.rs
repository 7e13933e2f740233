//! What each MFMA mnemonic computes: the element formats, M, K, the number of blocks, dense or
//! 4:2-sparse A, and whether its A/B formats come from CBSZ/BLGP (f8f6f4). Parsed from the
//! mnemonic, which names all of it (`v_mfma_f32_32x32x4_2b_f16`, `v_smfmac_f32_16x16x64_fp8_bf8`,
//! `v_mfma_scale_f32_16x16x128_f8f6f4`).

use super::formats::Fmt;
use baregpu_isa::Arch;

/// The result type of D and C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    F32,
    I32,
    F64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// A's and B's element formats (f8f6f4: FP8 until CBSZ/BLGP choose).
    pub a: Fmt,
    pub b: Fmt,
    pub out: Out,
    pub m: u8,
    /// The logical K of each block.
    pub k: u8,
    pub blocks: u8,
    /// 4:2 structured-sparse A (SMFMAC): A holds K/2 values, src2 their positions.
    pub sparse: bool,
    /// gfx950 `*_f8f6f4`: A's format is CBSZ's code, B's BLGP's.
    pub f8f6f4: bool,
    /// `v_mfma_scale_*`: E8M0 block scales from the `v_mfma_ld_scale_b32` half.
    pub scaled: bool,
}

impl Variant {
    /// The variant `mnemonic` names on `arch`, or `None` if it is no MFMA/SMFMAC.
    pub fn parse(arch: Arch, mnemonic: &str) -> Option<Variant> {
        let (rest, sparse, scaled) = if let Some(r) = mnemonic.strip_prefix("v_smfmac_") {
            (r, true, false)
        } else if let Some(r) = mnemonic.strip_prefix("v_mfma_scale_") {
            (r, false, true)
        } else {
            (mnemonic.strip_prefix("v_mfma_")?, false, false)
        };
        let mut parts = rest.split('_');
        let out = match parts.next()? {
            "f32" => Out::F32,
            "i32" => Out::I32,
            "f64" => Out::F64,
            _ => return None,
        };
        let mut dims = parts.next()?.split('x').map(|x| x.parse::<u8>().ok());
        let (m, n, k) = (dims.next()??, dims.next()??, dims.next()??);
        if m != n || dims.next().is_some() {
            return None;
        }
        let mut next = parts.next()?;
        let blocks = match next.strip_suffix('b').and_then(|x| x.parse::<u8>().ok()) {
            Some(b) => {
                next = parts.next()?;
                b
            }
            None => 1,
        };
        let fp8 = |s: &str| match (s, arch) {
            ("fp8", Arch::Gfx942) => Some(Fmt::Fp8Fnuz),
            ("bf8", Arch::Gfx942) => Some(Fmt::Bf8Fnuz),
            ("fp8", _) => Some(Fmt::Fp8),
            ("bf8", _) => Some(Fmt::Bf8),
            _ => None,
        };
        let (a, b, f8f6f4) = match (next, parts.next()) {
            ("f8f6f4", None) => (Fmt::Fp8, Fmt::Fp8, true),
            (x, Some(y)) => (fp8(x)?, fp8(y)?, false),
            (t, None) => {
                let f = match t {
                    "f32" => Fmt::F32,
                    "xf32" => Fmt::Xf32,
                    "f16" => Fmt::F16,
                    "bf16" => Fmt::Bf16,
                    "i8" => Fmt::I8,
                    "f64" => Fmt::F64,
                    _ => return None,
                };
                (f, f, false)
            }
        };
        let int = a == Fmt::I8;
        if parts.next().is_some() || int != (out == Out::I32) || (a == Fmt::F64) != (out == Out::F64) {
            return None;
        }
        if scaled && !f8f6f4 {
            return None;
        }
        Some(Variant { a, b, out, m, k, blocks, sparse, f8f6f4, scaled })
    }

    /// The geometry of A's registers for an A format `f` (sparse A holds K/2).
    pub fn a_geom(&self, f: Fmt) -> super::layout::Geom {
        let k = if self.sparse { self.k / 2 } else { self.k };
        super::layout::Geom { m: self.m, k, blocks: self.blocks, bits: f.bits() }
    }

    /// The geometry of B's registers for a B format `f`.
    pub fn b_geom(&self, f: Fmt) -> super::layout::Geom {
        super::layout::Geom { m: self.m, k: self.k, blocks: self.blocks, bits: f.bits() }
    }

    /// 32-bit registers of C and D per lane.
    pub fn d_regs(&self) -> usize {
        let words = if self.out == Out::F64 { 2 } else { 1 };
        (self.m as usize * self.m as usize * self.blocks as usize * words).div_ceil(64)
    }
}
