//! Opcodes the `isa` generator used to miss (llvm-mc 22 took them, we said "unknown mnemonic"):
//! each line assembles to llvm-mc-22's bytes (`llvm-mc-22 -show-encoding`, written here), and
//! those bytes decode and print back as the line.

use baregpu_isa::{assemble_line, decode, disassemble, Arch};

/// (arch, llvm-mc's canonical text, its bytes).
type Example = (Arch, &'static str, &'static [u8]);

fn check(examples: &[Example]) {
    for (arch, line, want) in examples {
        let a = arch.name();
        let got = assemble_line(*arch, line).unwrap_or_else(|e| panic!("{a} `{line}`: {e}"));
        assert_eq!(got, *want, "{a} `{line}`: assembled bytes");
        let i = decode(*arch, want).unwrap_or_else(|e| panic!("{a} `{line}`: decode: {e}"));
        assert_eq!(disassemble(&i), *line, "{a}: disassembly of {want:02x?}");
    }
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
