//! The values an `offset:` modifier takes in each memory encoding, as llvm-mc 22 reads them: one
//! definition for the assembler and the builder.

use crate::Arch;

/// The inclusive range of `offset:` for an encoding (`fmt`, the format's name) whose offset field
/// is `width` bits wide. SMEM offsets are signed (21 bits on gfx9 and gfx11, 24 on gfx12);
/// global and scratch offsets, and every gfx12 offset but VBUFFER's, are signed; the rest are
/// unsigned. gfx9/gfx11 FLAT takes 0..4095 of its wider field (llvm-mc refuses more).
pub(crate) fn offset_range(arch: Arch, fmt: &str, width: u32) -> (i64, i64) {
    let gfx12 = arch == Arch::Gfx1201;
    let signed = matches!(fmt, "SMEM" | "GLOBAL" | "SCRATCH") || gfx12 && fmt != "VBUFFER";
    let (lo, hi) = if signed { (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1) } else { (0, (1i64 << width) - 1) };
    let hi = if fmt == "FLAT" && !gfx12 { hi.min(0xfff) } else { hi };
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smem_offsets_are_signed_and_gfx12_takes_24_bits() {
        assert_eq!(offset_range(Arch::Gfx1100, "SMEM", 21), (-0x10_0000, 0xf_ffff));
        assert_eq!(offset_range(Arch::Gfx942, "SMEM", 21), (-0x10_0000, 0xf_ffff));
        assert_eq!(offset_range(Arch::Gfx1201, "SMEM", 24), (-0x80_0000, 0x7f_ffff));
    }

    #[test]
    fn buffer_offsets_are_unsigned_and_flat_stops_at_4095() {
        assert_eq!(offset_range(Arch::Gfx1100, "MUBUF", 12), (0, 4095));
        assert_eq!(offset_range(Arch::Gfx1201, "VBUFFER", 24), (0, 0xff_ffff));
        assert_eq!(offset_range(Arch::Gfx942, "FLAT", 13), (0, 4095));
        assert_eq!(offset_range(Arch::Gfx942, "GLOBAL", 13), (-4096, 4095));
        assert_eq!(offset_range(Arch::Gfx1201, "FLAT", 24), (-0x80_0000, 0x7f_ffff));
    }
}
