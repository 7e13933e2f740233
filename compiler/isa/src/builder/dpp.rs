//! DPP16, DPP8 and SDWA modifiers as values, and the encoding each selects.
//!
//! A DPP16 control (`row_shl(1)`, `quad_perm([3, 2, 1, 0])`...), `row_mask`, `bank_mask`,
//! `bound_ctrl` or `fi` selects the instruction's DPP16 form; `dpp8([..])` its DPP8 form; an SDWA
//! selector (`dst_sel`, `src0_sel`, `src1_sel`, `dst_unused`) its SDWA form (gfx9), whose sources
//! may be `sext(x)` ([`super::operand::sext`]). The
//! control values come from `names::dpp`, the table the assembler and disassembler use.

use super::operand::Mod;
use crate::asm::parser::Ext;
use crate::names::dpp;
use crate::Arch;

/// A DPP16 lane control (`dpp_ctrl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DppCtrl {
    /// `quad_perm:[a,b,c,d]`: lane k of each quad reads lane `a[k]` (0..=3).
    QuadPerm([u8; 4]),
    /// `row_shl:N` (1..=15).
    RowShl(u8),
    /// `row_shr:N` (1..=15).
    RowShr(u8),
    /// `row_ror:N` (1..=15).
    RowRor(u8),
    RowMirror,
    RowHalfMirror,
    /// `row_share:N` (gfx10+, 0..=15).
    RowShare(u8),
    /// `row_xmask:N` (gfx10+, 0..=15).
    RowXmask(u8),
    /// `row_newbcast:N` (gfx90a+ gfx9, 0..=15).
    RowNewbcast(u8),
    /// `wave_shl:1`, `wave_rol:1`, `wave_shr:1`, `wave_ror:1` (gfx9).
    WaveShl,
    WaveRol,
    WaveShr,
    WaveRor,
    /// `row_bcast:15` / `row_bcast:31` (gfx9).
    RowBcast15,
    RowBcast31,
}

impl DppCtrl {
    /// The `dpp_ctrl` field of an architecture; `Err` when the control or its argument does
    /// not exist there.
    pub fn value(self, arch: Arch) -> Result<u32, String> {
        let (name, arg) = match self {
            DppCtrl::QuadPerm(l) => {
                let lanes = l.map(u32::from);
                return dpp::quad_perm(&lanes).ok_or_else(|| format!("quad_perm:{l:?}: each lane is 0..=3"));
            }
            DppCtrl::RowShl(n) => ("row_shl", Some(n)),
            DppCtrl::RowShr(n) => ("row_shr", Some(n)),
            DppCtrl::RowRor(n) => ("row_ror", Some(n)),
            DppCtrl::RowMirror => ("row_mirror", None),
            DppCtrl::RowHalfMirror => ("row_half_mirror", None),
            DppCtrl::RowShare(n) => ("row_share", Some(n)),
            DppCtrl::RowXmask(n) => ("row_xmask", Some(n)),
            DppCtrl::RowNewbcast(n) => ("row_newbcast", Some(n)),
            DppCtrl::WaveShl => ("wave_shl", Some(1)),
            DppCtrl::WaveRol => ("wave_rol", Some(1)),
            DppCtrl::WaveShr => ("wave_shr", Some(1)),
            DppCtrl::WaveRor => ("wave_ror", Some(1)),
            DppCtrl::RowBcast15 => ("row_bcast", Some(15)),
            DppCtrl::RowBcast31 => ("row_bcast", Some(31)),
        };
        dpp::ctrl(arch, name, arg.map(u32::from)).ok_or_else(|| match arg {
            Some(a) => format!("{name}:{a} is not a DPP control of {}", arch.name()),
            None => format!("{name} is not a DPP control of {}", arch.name()),
        })
    }
}

/// An SDWA operand selector (`BYTE_0`..`DWORD`), in `names::dpp::SDWA_SEL` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SdwaSel {
    Byte0,
    Byte1,
    Byte2,
    Byte3,
    Word0,
    Word1,
    Dword,
}

/// SDWA `dst_unused`, in `names::dpp::SDWA_DST_UNUSED` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DstUnused {
    Pad,
    Sext,
    Preserve,
}

/// `quad_perm:[a,b,c,d]`.
pub fn quad_perm(lanes: [u8; 4]) -> Mod {
    Mod::Dpp(DppCtrl::QuadPerm(lanes))
}
/// `row_shl:N`.
pub fn row_shl(n: u8) -> Mod {
    Mod::Dpp(DppCtrl::RowShl(n))
}
/// `row_shr:N`.
pub fn row_shr(n: u8) -> Mod {
    Mod::Dpp(DppCtrl::RowShr(n))
}
/// `row_ror:N`.
pub fn row_ror(n: u8) -> Mod {
    Mod::Dpp(DppCtrl::RowRor(n))
}
/// `row_mirror`.
pub fn row_mirror() -> Mod {
    Mod::Dpp(DppCtrl::RowMirror)
}
/// `row_half_mirror`.
pub fn row_half_mirror() -> Mod {
    Mod::Dpp(DppCtrl::RowHalfMirror)
}
/// `row_share:N` (gfx10+).
pub fn row_share(n: u8) -> Mod {
    Mod::Dpp(DppCtrl::RowShare(n))
}
/// `row_xmask:N` (gfx10+).
pub fn row_xmask(n: u8) -> Mod {
    Mod::Dpp(DppCtrl::RowXmask(n))
}
/// `row_newbcast:N` (gfx9).
pub fn row_newbcast(n: u8) -> Mod {
    Mod::Dpp(DppCtrl::RowNewbcast(n))
}
/// `row_mask:N` (DPP16; 0xf when not given).
pub fn row_mask(n: u8) -> Mod {
    Mod::RowMask(n)
}
/// `bank_mask:N` (DPP16; 0xf when not given).
pub fn bank_mask(n: u8) -> Mod {
    Mod::BankMask(n)
}
/// `bound_ctrl`: lanes reading out of bounds read 0 (llvm-mc writes it `bound_ctrl:1`, and on
/// gfx9 also `bound_ctrl:0`; both set the bit).
pub fn bound_ctrl() -> Mod {
    Mod::BoundCtrl
}
/// `fi:1`: fetch from inactive lanes (DPP16, DPP8).
pub fn fi() -> Mod {
    Mod::Fi
}
/// `dpp8:[..]`: lane k of each group of 8 reads lane `lanes[k]` (0..=7).
pub fn dpp8(lanes: [u8; 8]) -> Mod {
    Mod::Dpp8(lanes)
}
/// `dst_sel:SEL` (SDWA).
pub fn dst_sel(s: SdwaSel) -> Mod {
    Mod::DstSel(s)
}
/// `src0_sel:SEL` (SDWA).
pub fn src0_sel(s: SdwaSel) -> Mod {
    Mod::Src0Sel(s)
}
/// `src1_sel:SEL` (SDWA).
pub fn src1_sel(s: SdwaSel) -> Mod {
    Mod::Src1Sel(s)
}
/// `dst_unused:..` (SDWA).
pub fn dst_unused(u: DstUnused) -> Mod {
    Mod::DstUnused(u)
}

/// The DPP16 form with its default controls (`quad_perm:[0,1,2,3]`, masks 0xf), as llvm-mc's
/// `_dpp` suffix without controls selects it.
pub fn dpp16_form() -> Mod {
    Mod::DppForm
}
/// The SDWA form with its default selectors, as llvm-mc's `_sdwa` suffix selects it.
pub fn sdwa_form() -> Mod {
    Mod::SdwaForm
}

/// The encoding form the modifiers select: DPP16, DPP8, SDWA or the plain encodings.
pub(crate) fn ext_of(mods: &[Mod]) -> Ext {
    let mut ext = Ext::None;
    for m in mods {
        match m {
            Mod::Dpp8(_) => return Ext::Dpp8,
            Mod::Dpp(_) | Mod::DppForm | Mod::RowMask(_) | Mod::BankMask(_) | Mod::BoundCtrl => ext = Ext::Dpp16,
            // `fi` alone is DPP16; with `dpp8` the DPP8 form (returned above when seen).
            Mod::Fi if ext == Ext::None => ext = Ext::Dpp16,
            Mod::SdwaForm | Mod::DstSel(_) | Mod::Src0Sel(_) | Mod::Src1Sel(_) | Mod::DstUnused(_) => return Ext::Sdwa,
            _ => {}
        }
    }
    ext
}

/// The DPP8 `lane_sel` field: three bits per lane.
pub(crate) fn dpp8_lanes(lanes: &[u8; 8]) -> Result<u32, String> {
    let mut v = 0;
    for (k, &l) in lanes.iter().enumerate() {
        if l > 7 {
            return Err(format!("dpp8 lane {k} is {l}; 0..=7 expected"));
        }
        v |= u32::from(l) << (3 * k);
    }
    Ok(v)
}
