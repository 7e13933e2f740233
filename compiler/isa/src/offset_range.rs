//! The values an `offset:` modifier takes in the FLAT-family and buffer encodings, as llvm-mc 22
//! reads them: one definition for the assembler and the builder.

use crate::Arch;

/// The inclusive range of `offset:` for a FLAT-family or buffer encoding (`fmt`, the format's
/// name) whose offset field is `width` bits wide: global and scratch offsets, and every gfx12
/// offset but VBUFFER's, are signed; the rest are unsigned. gfx9/gfx11 FLAT takes 0..4095 of its
/// wider field (llvm-mc refuses more). SMEM's range is asm::smem_rules::offset_range.
pub(crate) fn offset_range(arch: Arch, fmt: &str, width: u32) -> (i64, i64) {
    let gfx12 = arch == Arch::Gfx1201;
    let signed = matches!(fmt, "GLOBAL" | "SCRATCH") || gfx12 && fmt != "VBUFFER";
    let (lo, hi) = if signed { (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1) } else { (0, (1i64 << width) - 1) };
    let hi = if fmt == "FLAT" && !gfx12 { hi.min(0xfff) } else { hi };
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_offsets_are_unsigned_and_flat_stops_at_4095() {
        assert_eq!(offset_range(Arch::Gfx1100, "MUBUF", 12), (0, 4095));
        assert_eq!(offset_range(Arch::Gfx1201, "VBUFFER", 24), (0, 0xff_ffff));
        assert_eq!(offset_range(Arch::Gfx942, "FLAT", 13), (0, 4095));
        assert_eq!(offset_range(Arch::Gfx942, "GLOBAL", 13), (-4096, 4095));
        assert_eq!(offset_range(Arch::Gfx1201, "FLAT", 24), (-0x80_0000, 0x7f_ffff));
    }
}
