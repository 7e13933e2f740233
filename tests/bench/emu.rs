//! `bench emu`'s MFMA loop on the emulated CDNA GPUs: the kernel our assembler builds runs through
//! the whole driver path, its result is checked by the bench, and the counts it reports are the
//! kernel's.

use baregpu::bench_emu::{mfma_loop_code_object, run_mfma, MFMA_UNROLL};

#[test]
fn mfma_loop_counts_and_checks_on_cdna() {
    for arch in ["gfx942", "gfx950"] {
        let (groups, trips) = (2u32, 3u32);
        let f = run_mfma(arch, groups, trips).unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(f.kernel, "mfma_loop");
        assert_eq!(f.mfma, Some((groups * trips * MFMA_UNROLL) as u64), "{arch}");
        // Per wave: 9 instructions before the loop, MFMA_UNROLL + 3 a trip, 9 after it.
        let per_wave = 9 + trips as u64 * (MFMA_UNROLL as u64 + 3) + 9;
        assert_eq!(f.wave_instructions, groups as u64 * per_wave, "{arch}");
        assert!(f.mfma_per_s.is_some_and(|r| r > 0.0), "{arch}");
    }
}

#[test]
fn mfma_loop_is_cdna_only() {
    let e = mfma_loop_code_object("gfx1100").expect_err("RDNA has no MFMA");
    assert!(e.to_string().contains("CDNA"), "{e}");
}
