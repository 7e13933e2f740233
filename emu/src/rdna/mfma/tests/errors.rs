//! MFMA encodings the interpreter refuses: an Illegal fault naming the reason, at the
//! instruction, never a panic or a wrong result.

use super::harness::*;

fn refused(arch: &'static str, inst: &str, d_regs: usize, reason: &str) {
    match try_run(arch, inst, &mut Lanes::new(), false, d_regs) {
        Err(e) => assert!(e.contains("Illegal") && e.contains(reason), "{arch} {inst}: {e}"),
        Ok(()) => panic!("{arch} {inst}: ran"),
    }
}

#[test]
fn refused_encodings_are_illegal_faults_with_the_reason() {
    // The ld_scale half with no scaled MFMA after it.
    refused("gfx950", "v_mfma_ld_scale_b32 v2, v3", 0, "only as the first half of a v_mfma_scale_");
    // f8f6f4 format codes stop at 4 (FP4).
    refused("gfx950", "v_mfma_f32_16x16x128_f8f6f4 v[34:37], v[2:9], v[10:17], v[34:37] cbsz:5", 4, "cbsz:5");
    refused("gfx950", "v_mfma_f32_32x32x64_f8f6f4 v[34:49], v[2:9], v[10:17], v[34:49] blgp:7", 16, "blgp:7");
    // ABID past the 2^CBSZ blocks of a group.
    refused("gfx942", "v_mfma_f32_4x4x1_16b_f32 v[34:37], v2, v10, v[34:37] cbsz:1 abid:3", 4, "out of range");
    // f64 takes no broadcasts.
    refused("gfx942", "v_mfma_f64_4x4x4_4b_f64 v[34:35], v[2:3], v[10:11], v[34:35] cbsz:1 abid:1", 2, "cbsz/abid");
    // The FP8 16x16x128 SMFMAC's indices fill the index VGPR: ABID 1 names no set.
    refused("gfx950", "v_smfmac_f32_16x16x128_fp8_fp8 v[34:37], v[2:5], v[10:17], v20 abid:1", 4, "no index set");
    // C from SGPRs (llvm-mc refuses it; our assembler takes it).
    refused("gfx942", "v_mfma_f32_16x16x4_f32 v[34:37], v2, v10, s[0:3]", 4, "C from an SGPR");
}
