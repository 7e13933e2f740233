//! The scalar formats: SOP1/SOP2/SOPK/SOPC/SOPP (identical on every family) and SMEM.

use super::{f, fmt, Family, Fmt, Role};

/// Appends the scalar ALU and scalar memory formats.
pub(super) fn push(fam: Family, v: &mut Vec<Fmt>) {
    // Scalar ALU: identical layouts on every family.
    v.push(fmt(
        "SOP2",
        32,
        (0xC000_0000, 0x8000_0000),
        Some((23, 29)),
        vec![f("ssrc0", 0, 7, Role::SSrc), f("ssrc1", 8, 15, Role::SSrc), f("sdst", 16, 22, Role::Sgpr)],
        vec![vec![("ssrc0", 24), ("ssrc1", 40), ("sdst", 16)]],
        true,
    ));
    v.push(fmt(
        "SOPK",
        32,
        (0xF000_0000, 0xB000_0000),
        Some((23, 27)),
        vec![f("simm16", 0, 15, Role::Simm16), f("sdst", 16, 22, Role::Sgpr)],
        vec![vec![("simm16", 0x10), ("sdst", 16)]],
        true,
    ));
    v.push(fmt(
        "SOP1",
        32,
        (0xFF80_0000, 0xBE80_0000),
        Some((8, 15)),
        vec![f("ssrc0", 0, 7, Role::SSrc), f("sdst", 16, 22, Role::Sgpr)],
        vec![vec![("ssrc0", 24), ("sdst", 16)]],
        true,
    ));
    v.push(fmt(
        "SOPC",
        32,
        (0xFF80_0000, 0xBF00_0000),
        Some((16, 22)),
        vec![f("ssrc0", 0, 7, Role::SSrc), f("ssrc1", 8, 15, Role::SSrc)],
        vec![vec![("ssrc0", 24), ("ssrc1", 40)]],
        true,
    ));
    v.push(fmt(
        "SOPP",
        32,
        (0xFF80_0000, 0xBF80_0000),
        Some((16, 22)),
        vec![f("simm16", 0, 15, Role::Simm16)],
        vec![vec![("simm16", 0)]],
        false,
    ));

    // SMEM.
    match fam {
        Family::Gfx9 => v.push(fmt(
            "SMEM",
            64,
            (0xFC00_0000, 0xC000_0000),
            Some((18, 25)),
            vec![
                f("sbase", 0, 5, Role::SgprX2),
                f("sdata", 6, 12, Role::Sgpr),
                f("soe", 14, 14, Role::Mod),
                f("nv", 15, 15, Role::Mod),
                f("glc", 16, 16, Role::Mod),
                f("imm", 17, 17, Role::Mod),
                f("offset", 32, 52, Role::Offset),
                f("soffset", 57, 63, Role::Sgpr),
            ],
            // Cache and timer operations (s_dcache_wb, s_memtime...) decode only with the
            // fields they do not use at 0.
            vec![vec![("sbase", 8), ("sdata", 24), ("imm", 1), ("offset", 0x10)], vec![]],
            false,
        )),
        Family::Gfx11 => v.push(fmt(
            "SMEM",
            64,
            (0xFC00_0000, 0xF400_0000),
            Some((18, 25)),
            vec![
                f("sbase", 0, 5, Role::SgprX2),
                f("sdata", 6, 12, Role::Sgpr),
                f("dlc", 13, 13, Role::Mod),
                f("glc", 14, 14, Role::Mod),
                f("offset", 32, 52, Role::Offset),
                f("soffset", 57, 63, Role::Sgpr),
            ],
            vec![vec![("sbase", 8), ("sdata", 24), ("offset", 0x10), ("soffset", 0x7C)]],
            false,
        )),
        Family::Gfx12 => v.push(fmt(
            "SMEM",
            64,
            (0xFC00_0000, 0xF400_0000),
            Some((13, 18)),
            vec![
                f("sbase", 0, 5, Role::SgprX2),
                f("sdata", 6, 12, Role::Sgpr),
                f("scope_th", 21, 25, Role::Mod),
                f("offset", 32, 55, Role::Offset),
                f("soffset", 57, 63, Role::Sgpr),
            ],
            vec![vec![("sbase", 8), ("sdata", 24), ("offset", 0x10), ("soffset", 0x7C)]],
            false,
        )),
    }
}
