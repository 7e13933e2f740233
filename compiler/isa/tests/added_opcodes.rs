//! Opcodes the `isa` generator used to miss (llvm-mc 22 took them, we said "unknown mnemonic"):
//! each line assembles to llvm-mc-22's bytes (`llvm-mc-22 -show-encoding`, written here), and
//! those bytes decode and print back as the line.

use baregpu_isa::{assemble_line, decode, disassemble, Arch};

/// (arch, llvm-mc's canonical text, its bytes).
type Example = (Arch, &'static str, &'static [u8]);

fn check(examples: &[Example]) {
    for &(arch, line, want) in examples {
        check_printed(arch, line, line, want);
    }
}

/// `line` assembles to `want`, which llvm-mc prints as `printed`.
fn check_printed(arch: Arch, line: &str, printed: &str, want: &[u8]) {
    let a = arch.name();
    let got = assemble_line(arch, line).unwrap_or_else(|e| panic!("{a} `{line}`: {e}"));
    assert_eq!(got, want, "{a} `{line}`: assembled bytes");
    let i = decode(arch, want).unwrap_or_else(|e| panic!("{a} `{line}`: decode: {e}"));
    assert_eq!(disassemble(&i), printed, "{a}: disassembly of {want:02x?}");
}

/// DS operations that decode only with the gds bit set (GWS, ordered count, GS registers).
#[test]
fn ds_gds_only_operations() {
    check(&[
        (Arch::Gfx1100, "ds_gws_init v1 offset:4 gds", &[0x04, 0x00, 0x66, 0xd8, 0x01, 0x00, 0x00, 0x00]),
        (Arch::Gfx1100, "ds_gws_sema_v gds", &[0x00, 0x00, 0x6a, 0xd8, 0x00, 0x00, 0x00, 0x00]),
        (Arch::Gfx1100, "ds_ordered_count v1, v2 offset:4 gds", &[0x04, 0x00, 0xfe, 0xd8, 0x02, 0x00, 0x00, 0x01]),
        (Arch::Gfx1100, "ds_add_gs_reg_rtn v[2:3], v4 offset:8 gds", &[0x08, 0x00, 0xea, 0xd9, 0x00, 0x04, 0x00, 0x02]),
        (Arch::Gfx942, "ds_gws_init v2 offset:4 gds", &[0x04, 0x00, 0x33, 0xd9, 0x02, 0x00, 0x00, 0x00]),
        (Arch::Gfx942, "ds_gws_barrier a2 gds", &[0x00, 0x00, 0x3b, 0xdb, 0x02, 0x00, 0x00, 0x00]),
        (Arch::Gfx942, "ds_gws_sema_release_all gds", &[0x00, 0x00, 0x31, 0xd9, 0x00, 0x00, 0x00, 0x00]),
        (Arch::Gfx950, "ds_gws_sema_p offset:16 gds", &[0x10, 0x00, 0x39, 0xd9, 0x00, 0x00, 0x00, 0x00]),
    ]);
}

/// The VOP3 forms of the operand-less VOP1 operations (they decode only with every field 0), and
/// `_e64`/`_e32` forcing the encoding of a name llvm-mc prints without a suffix. Ours prints the
/// VOP3 forms with `_e64`: llvm-mc's `v_nop` would read back as the VOP1 word (not lossless).
#[test]
fn vop3_forms_of_operandless_vop1() {
    const GFX11_NOP: &[u8] = &[0x00, 0x00, 0x80, 0xd5, 0x00, 0x00, 0x00, 0x00];
    const GFX9_NOP: &[u8] = &[0x00, 0x00, 0x40, 0xd1, 0x00, 0x00, 0x00, 0x00];
    for (arch, line, printed, want) in [
        (Arch::Gfx1100, "v_nop_e64", "v_nop_e64", GFX11_NOP),
        (Arch::Gfx1201, "v_nop_e64", "v_nop_e64", GFX11_NOP),
        (Arch::Gfx942, "v_nop_e64", "v_nop_e64", GFX9_NOP),
        (Arch::Gfx950, "v_nop_e64", "v_nop_e64", GFX9_NOP),
        (Arch::Gfx1100, "v_pipeflush_e64", "v_pipeflush_e64", &[0x00, 0x00, 0x9b, 0xd5, 0x00, 0x00, 0x00, 0x00]),
        (Arch::Gfx942, "v_clrexcp_e64", "v_clrexcp_e64", &[0x00, 0x00, 0x75, 0xd1, 0x00, 0x00, 0x00, 0x00]),
        (Arch::Gfx1100, "v_nop_e32", "v_nop", &[0x00, 0x00, 0x00, 0x7e]),
        (Arch::Gfx942, "v_nop", "v_nop", &[0x00, 0x00, 0x00, 0x7e]),
        (
            Arch::Gfx1100,
            "v_fma_f32_e64 v0, v1, v2, v3",
            "v_fma_f32 v0, v1, v2, v3",
            &[0x00, 0x00, 0x13, 0xd6, 0x01, 0x05, 0x0e, 0x04],
        ),
        (
            Arch::Gfx942,
            "v_pk_add_f16_e64 v0, v1, v2",
            "v_pk_add_f16 v0, v1, v2",
            &[0x00, 0x40, 0x8f, 0xd3, 0x01, 0x05, 0x02, 0x18],
        ),
    ] {
        check_printed(arch, line, printed, want);
    }
}
