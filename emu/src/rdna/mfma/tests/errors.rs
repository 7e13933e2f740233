//! MFMA encodings the interpreter refuses (an Illegal fault naming the reason, never a panic or
//! a wrong result), and the C operand's inline-constant form.

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
}

/// C from SGPRs: llvm-mc and our assembler refuse it, so the word is made from the VGPR form
/// with SRC2 (bits 18..27 of the second dword) set to s0; the interpreter still refuses it.
#[test]
fn c_from_sgprs_is_refused() {
    let sgpr_c = |w: &mut [u32]| w[1] &= !(0x1ff << 18);
    let inst = "v_mfma_f32_16x16x4_f32 v[34:37], v2, v10, v[0:3]";
    match try_run_patched("gfx942", inst, &mut Lanes::new(), false, 4, &sgpr_c) {
        Err(e) => assert!(e.contains("Illegal") && e.contains("C from an SGPR"), "{e}"),
        Ok(()) => panic!("an SGPR C ran"),
    }
}

/// C as an inline constant is that value for every element, in the result's type (f64: the
/// 64-bit constant).
#[test]
fn inline_constant_c_is_every_element() {
    let cases: [(&str, &str, u32, usize, u64); 3] = [
        // A = B = 1 everywhere: D = K + C.
        ("v_mfma_f32_16x16x4_f32 v[34:37], v2, v10, 1.0", "f32", 0x3f80_0000, 4, 5f32.to_bits() as u64),
        ("v_mfma_i32_16x16x32_i8 v[34:37], v[2:3], v[10:11], -1", "i32", 0x0101_0101, 4, 31),
        ("v_mfma_f64_16x16x4_f64 v[34:41], v[2:3], v[10:11], -2.0", "f64", 0, 8, 2f64.to_bits()),
    ];
    for (inst, what, one, d_regs, want) in cases {
        let mut lanes = Lanes::new();
        for lane in 0..64 {
            for r in 0..2 {
                // f64 1.0 is 0x3ff00000_00000000: the high word in the second register.
                let w = if what == "f64" { [0, 0x3ff0_0000][r] } else { one };
                lanes.set(A, lane, r, w);
                lanes.set(B, lane, r, w);
            }
        }
        run("gfx942", inst, &mut lanes, false, d_regs);
        for lane in 0..64 {
            for r in (0..d_regs).step_by(if what == "f64" { 2 } else { 1 }) {
                let mut got = lanes.get(CD, lane, r) as u64;
                if what == "f64" {
                    got |= (lanes.get(CD, lane, r + 1) as u64) << 32;
                }
                assert_eq!(got, want, "{inst}: lane {lane} register {r}");
            }
        }
    }
}
