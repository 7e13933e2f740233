//! The assembler accepts the spellings llvm-mc 22 accepts and gives llvm-mc's bytes (each
//! vector below is llvm-mc-22 -show-encoding output for the same text), one test per class of
//! spelling the assembler used to reject.

use baregpu_isa::{assemble, assemble_line, Arch};

type Vector = (Arch, &'static str, &'static [u8]);

fn check(vectors: &[Vector]) {
    let mut bad = Vec::new();
    for &(arch, text, want) in vectors {
        match assemble_line(arch, text) {
            Ok(got) if got == want => {}
            got => bad.push(format!("{}: {text}: want {want:02x?}, got {got:02x?}", arch.name())),
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// A 16-bit branch offset written signed or unsigned.
#[test]
fn branch_offset_spellings() {
    check(&[
        (Arch::Gfx1100, "s_branch 65524", &[0xf4, 0xff, 0xa0, 0xbf]),
        (Arch::Gfx1100, "s_branch -12", &[0xf4, 0xff, 0xa0, 0xbf]),
        (Arch::Gfx942, "s_cbranch_scc0 -7", &[0xf9, 0xff, 0x84, 0xbf]),
        (Arch::Gfx942, "s_cbranch_scc0 65529", &[0xf9, 0xff, 0x84, 0xbf]),
    ]);
}

/// gfx1201 SALU: f16 bit patterns fold into inline constants only for the SOP2 f16 arithmetic; the
/// SOP1/SOPC "f16" sources are 32-bit to llvm-mc 22 (bytes from llvm-mc 22).
#[test]
fn salu_f16_literals() {
    check(&[
        (Arch::Gfx1201, "s_cmp_lt_f16 0x3800, s2", &[0xff, 0x02, 0x51, 0xbf, 0x00, 0x38, 0x00, 0x00]),
        (Arch::Gfx1201, "s_ceil_f16 s5, 0x3f000000", &[0xf0, 0x6b, 0x85, 0xbe]),
        (Arch::Gfx1201, "s_ceil_f16 s5, 1.5", &[0xff, 0x6b, 0x85, 0xbe, 0x00, 0x00, 0xc0, 0x3f]),
        (Arch::Gfx1201, "s_cvt_pk_rtz_f16_f32 s5, 0x3800, s1", &[0xff, 0x01, 0x05, 0xa4, 0x00, 0x38, 0x00, 0x00]),
        (Arch::Gfx1201, "s_add_f16 s5, 0x3800, s1", &[0xf0, 0x01, 0x85, 0xa4]),
        (Arch::Gfx1201, "s_cvt_f32_f16 s5, 0x3800", &[0xff, 0x69, 0x85, 0xbe, 0x00, 0x38, 0x00, 0x00]),
    ]);
}

/// `null` as the SMEM offset register.
#[test]
fn null_smem_soffset() {
    check(&[
        (Arch::Gfx1100, "s_load_b32 s4, s[0:1], null", &[0x00, 0x01, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8]),
        (Arch::Gfx1201, "s_load_b32 s4, s[0:1], null", &[0x00, 0x01, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8]),
    ]);
}

/// gfx1100 true16 operands with the `.l` half left implicit.
#[test]
fn true16_implicit_low_half() {
    check(&[
        (Arch::Gfx1100, "v_mul_f16 v1, v2, v3", &[0x02, 0x07, 0x02, 0x6a]),
        (Arch::Gfx1100, "v_add_f16 v1, v2, v3", &[0x02, 0x07, 0x02, 0x64]),
    ]);
}

/// Integers with leading zeros, octal, binary.
#[test]
fn integer_spellings() {
    check(&[
        (
            Arch::Gfx1100,
            "v_perm_b32 v0, v1, v2, 0x05040100",
            &[0x00, 0x00, 0x44, 0xd6, 0x01, 0x05, 0xfe, 0x03, 0x00, 0x01, 0x04, 0x05],
        ),
        (Arch::Gfx1100, "s_mov_b32 s0, 010", &[0x88, 0x00, 0x80, 0xbe]),
        (Arch::Gfx1100, "s_mov_b32 s0, 0b101", &[0x85, 0x00, 0x80, 0xbe]),
        (Arch::Gfx1100, "s_and_b64 s[0:1], s[2:3], 0x0001", &[0x02, 0x81, 0x80, 0x8b]),
        (Arch::Gfx1100, "s_nop 0x0000", &[0x00, 0x00, 0x80, 0xbf]),
    ]);
}

/// Constant expressions as immediates.
#[test]
fn expressions() {
    check(&[
        (Arch::Gfx1100, "s_mov_b32 s0, 1+2", &[0x83, 0x00, 0x80, 0xbe]),
        (Arch::Gfx1100, "s_mov_b32 s0, -(3)", &[0xc3, 0x00, 0x80, 0xbe]),
        (Arch::Gfx1100, "s_mov_b32 s0, 1+2*3", &[0x87, 0x00, 0x80, 0xbe]),
    ]);
}

/// A modifier llvm-mc prints at its default, left out.
#[test]
fn omitted_default() {
    check(&[(Arch::Gfx1100, "v_interp_p10_f32 v0, v1, v2, v3", &[0x00, 0x00, 0x00, 0xcd, 0x01, 0x05, 0x0e, 0x04])]);
}

/// Modifiers written with their default values.
#[test]
fn explicit_defaults() {
    check(&[
        (Arch::Gfx1100, "ds_add_f32 v1, v2 offset:0", &[0x00, 0x00, 0x54, 0xd8, 0x01, 0x02, 0x00, 0x00]),
        (Arch::Gfx1100, "global_load_b32 v0, v[2:3], off offset:0", &[0x00, 0x00, 0x52, 0xdc, 0x02, 0x00, 0x7c, 0x00]),
        (
            Arch::Gfx942,
            "buffer_load_dword v0, off, s[0:3], 0 offset:0",
            &[0x00, 0x00, 0x50, 0xe0, 0x00, 0x00, 0x00, 0x80],
        ),
        (
            Arch::Gfx1100,
            "v_pk_add_f16 v0, v1, v2 op_sel:[0,0] op_sel_hi:[1,1] neg_lo:[0,0] neg_hi:[0,0]",
            &[0x00, 0x40, 0x0f, 0xcc, 0x01, 0x05, 0x02, 0x18],
        ),
        (
            Arch::Gfx1100,
            "v_fma_mix_f32 v0, v1, v2, v3 op_sel_hi:[0,0,0]",
            &[0x00, 0x00, 0x20, 0xcc, 0x01, 0x05, 0x0e, 0x04],
        ),
        (
            Arch::Gfx1100,
            "v_mov_b32_dpp v0, v1 quad_perm:[1,0,2,3] row_mask:0xf bank_mask:0xf bound_ctrl:0 fi:0",
            &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0xe1, 0x00, 0xff],
        ),
        (
            Arch::Gfx942,
            "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3] cbsz:0 abid:0 blgp:0",
            &[0x00, 0x00, 0xcd, 0xd3, 0x04, 0x0d, 0x02, 0x04],
        ),
        (Arch::Gfx1100, "v_add_f32_e64 v0, v1, v2 mul:1", &[0x00, 0x00, 0x03, 0xd5, 0x01, 0x05, 0x02, 0x00]),
        (
            Arch::Gfx1201,
            "global_load_b32 v0, v[2:3], off th:TH_LOAD_RT scope:SCOPE_CU",
            &[0x7c, 0x00, 0x05, 0xee, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
        (
            Arch::Gfx942,
            "v_mov_b32_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:DWORD",
            &[0xf9, 0x02, 0x00, 0x7e, 0x01, 0x16, 0x06, 0x00],
        ),
    ]);
}

/// DPP16/DPP8 with row_mask/bank_mask left out, fi/bound_ctrl by value, DPP picked by its modifiers.
#[test]
fn dpp_default_masks() {
    check(&[
        (Arch::Gfx1100, "v_mov_b32_dpp v0, v1 quad_perm:[1,0,2,3]", &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0xe1, 0x00, 0xff]),
        (
            Arch::Gfx1100,
            "v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf",
            &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x01, 0x01, 0xff],
        ),
        (
            Arch::Gfx1100,
            "v_add_f32_e64_dpp v0, v1, v2 row_shl:1",
            &[0x00, 0x00, 0x03, 0xd5, 0xfa, 0x04, 0x02, 0x00, 0x01, 0x01, 0x01, 0xff],
        ),
        (Arch::Gfx1100, "v_mov_b32_dpp v0, v1 row_shl:1 fi:1", &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0x01, 0x05, 0xff]),
        (
            Arch::Gfx1100,
            "v_mov_b32_dpp v0, v1 dpp8:[7,6,5,4,3,2,1,0] fi:0",
            &[0xe9, 0x02, 0x00, 0x7e, 0x01, 0x77, 0x39, 0x05],
        ),
        (
            Arch::Gfx942,
            "v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] bound_ctrl:0",
            &[0xfa, 0x02, 0x00, 0x7e, 0x01, 0xe4, 0x08, 0xff],
        ),
        (Arch::Gfx942, "v_add_f32 v0, v1, v2 quad_perm:[1,0,2,3]", &[0xfa, 0x04, 0x00, 0x02, 0x01, 0xe1, 0x00, 0xff]),
    ]);
}

/// SDWA with dst_sel/dst_unused left out (llvm-mc: DWORD, UNUSED_PRESERVE).
#[test]
fn sdwa_default_selectors() {
    check(&[(
        Arch::Gfx942,
        "v_mov_b32_sdwa v0, v1 src0_sel:WORD_1",
        &[0xf9, 0x02, 0x00, 0x7e, 0x01, 0x16, 0x05, 0x00],
    )]);
}

/// Numeric spellings of hwreg, sendmsg, waitcnt, depctr and swizzle fields.
#[test]
fn numeric_named_fields() {
    check(&[
        (Arch::Gfx1100, "s_getreg_b32 s0, 0x1234", &[0x34, 0x12, 0x80, 0xb8]),
        (Arch::Gfx1100, "s_version UC_VERSION_GFX10|UC_VERSION_W32_BIT", &[0x04, 0x40, 0x80, 0xb0]),
        (Arch::Gfx1100, "s_waitcnt 0", &[0x00, 0x00, 0x89, 0xbf]),
        (Arch::Gfx942, "s_waitcnt 0", &[0x00, 0x00, 0x8c, 0xbf]),
        (Arch::Gfx1201, "s_wait_alu 0xfffe", &[0xfe, 0xff, 0x88, 0xbf]),
        (Arch::Gfx1100, "s_sendmsg 1", &[0x01, 0x00, 0xb6, 0xbf]),
        (Arch::Gfx1100, "s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 32)", &[0x01, 0xf8, 0x80, 0xb8]),
        (Arch::Gfx1100, "s_waitcnt vmcnt(0) & lgkmcnt(0)", &[0x07, 0x00, 0x89, 0xbf]),
        (Arch::Gfx1100, "ds_swizzle_b32 v56, v8 offset:4", &[0x04, 0x00, 0xd4, 0xd8, 0x08, 0x00, 0x00, 0x38]),
    ]);
}

/// vcc and flat_scratch as the SMEM base pair.
#[test]
fn smem_named_base() {
    check(&[
        (Arch::Gfx1100, "s_load_b32 s4, vcc, 0x0", &[0x35, 0x01, 0x00, 0xf4, 0x00, 0x00, 0x00, 0xf8]),
        (Arch::Gfx942, "s_load_dword s4, flat_scratch, 0x0", &[0x33, 0x01, 0x02, 0xc0, 0x00, 0x00, 0x00, 0x00]),
        (Arch::Gfx942, "s_load_dword s4, vcc, 0x0", &[0x35, 0x01, 0x02, 0xc0, 0x00, 0x00, 0x00, 0x00]),
    ]);
}

/// Floats that are not inline constants, as literals of the operand type.
#[test]
fn float_literals() {
    check(&[
        (Arch::Gfx1100, "v_fmamk_f32 v0, v2, 100.0, v3", &[0x02, 0x07, 0x00, 0x58, 0x00, 0x00, 0xc8, 0x42]),
        (Arch::Gfx1100, "v_fmamk_f32 v0, v2, 0.1, v3", &[0x02, 0x07, 0x00, 0x58, 0xcd, 0xcc, 0xcc, 0x3d]),
        (Arch::Gfx1100, "v_fmamk_f16 v0, v2, 100.0, v3", &[0x02, 0x07, 0x00, 0x6e, 0x40, 0x56, 0x00, 0x00]),
        (Arch::Gfx1100, "v_add_f32 v0, 100.0, v1", &[0xff, 0x02, 0x00, 0x06, 0x00, 0x00, 0xc8, 0x42]),
        (
            Arch::Gfx1100,
            "v_add_f64 v[0:1], 100.0, v[2:3]",
            &[0x00, 0x00, 0x27, 0xd7, 0xff, 0x04, 0x02, 0x00, 0x00, 0x00, 0x59, 0x40],
        ),
        (Arch::Gfx1100, "s_add_u32 s16, 1.00, s40", &[0xf2, 0x28, 0x10, 0x80]),
    ]);
}

/// `nosc0`-style flags and cache policies in any order.
#[test]
fn cache_policy_off_flags() {
    check(&[
        (Arch::Gfx942, "global_load_dword v0, v[2:3], off nosc0", &[0x00, 0x80, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x00]),
        (
            Arch::Gfx942,
            "global_load_dword v0, v[2:3], off sc0 nosc1",
            &[0x00, 0x80, 0x51, 0xdc, 0x02, 0x00, 0x7f, 0x00],
        ),
        (Arch::Gfx942, "global_load_dword v0, v[2:3], off nt sc1", &[0x00, 0x80, 0x52, 0xde, 0x02, 0x00, 0x7f, 0x00]),
        (
            Arch::Gfx1201,
            "global_load_b32 v0, v[2:3], off scope:SCOPE_SYS th:TH_LOAD_NT",
            &[0x7c, 0x00, 0x05, 0xee, 0x00, 0x00, 0x1c, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
    ]);
}

/// MTBUF format by name.
#[test]
fn mtbuf_format() {
    check(&[
        (
            Arch::Gfx1100,
            "tbuffer_load_format_x v24, v8, s[16:19], s40 format:0 offen",
            &[0x00, 0x00, 0x00, 0xe8, 0x08, 0x18, 0x44, 0x28],
        ),
        (
            Arch::Gfx1100,
            "tbuffer_load_format_x v0, off, s[0:3], 0 format:[BUF_FMT_32_FLOAT]",
            &[0x00, 0x00, 0xb0, 0xe8, 0x00, 0x00, 0x00, 0x80],
        ),
        (
            Arch::Gfx942,
            "tbuffer_load_format_x v0, off, s[0:3], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]",
            &[0x00, 0x00, 0xa0, 0xeb, 0x00, 0x00, 0x00, 0x80],
        ),
    ]);
}

/// Spellings the spelling corpus found rejected (each class was in tests/spelling_allow.txt):
/// s_sendmsg_rtn's message as any 16-bit number (llvm-mc writes its low 8 bits), `_e32` on
/// v_readlane/v_writelane (VOP2 to llvm-mc, VOP3-encoded), gfx9 MTBUF `format:N` (dfmt | nfmt << 4),
/// and gfx950 permlane-swap `fi`/`bound_ctrl` values in any integer spelling.
#[test]
fn corpus_found_spellings() {
    check(&[
        (Arch::Gfx1100, "s_sendmsg_rtn_b32 s16, 0x4c1c", &[0x1c, 0x4c, 0x90, 0xbe]),
        (Arch::Gfx1201, "s_sendmsg_rtn_b64 s[20:21], 19736", &[0x18, 0x4d, 0x94, 0xbe]),
        (Arch::Gfx1100, "v_readlane_b32_e32 s8, v24, 1", &[0x08, 0x00, 0x60, 0xd7, 0x18, 0x03, 0x01, 0x00]),
        (Arch::Gfx1201, "v_writelane_b32_e32 v8, s24, 1", &[0x08, 0x00, 0x61, 0xd7, 0x18, 0x02, 0x01, 0x00]),
        (Arch::Gfx950, "v_readlane_b32_e32 s8, v24, 1", &[0x08, 0x00, 0x89, 0xd2, 0x18, 0x03, 0x01, 0x00]),
        (
            Arch::Gfx942,
            "tbuffer_load_format_x v24, v8, s[16:19], s40 format:116 offen offset:4",
            &[0x04, 0x10, 0xa0, 0xeb, 0x08, 0x18, 0x04, 0x28],
        ),
        (Arch::Gfx950, "v_permlane32_swap_b32_e64 v8, v24 fi:0b1", &[0x08, 0x08, 0x9a, 0xd1, 0x18, 0x01, 0x00, 0x00]),
        (
            Arch::Gfx950,
            "v_permlane16_swap_b32_e64 v8, v24 bound_ctrl:0",
            &[0x08, 0x10, 0x99, 0xd1, 0x18, 0x01, 0x00, 0x00],
        ),
    ]);
}

/// gfx1201 (fake16): a 16-bit operand beyond v127 takes the VOP3 encoding.
#[test]
fn fake16_lo128() {
    check(&[
        (Arch::Gfx1201, "v_cvt_u32_u16 v5, v255", &[0x05, 0x00, 0xeb, 0xd5, 0xff, 0x01, 0x00, 0x00]),
        (Arch::Gfx1201, "v_cvt_u32_u16 v5, v127", &[0x7f, 0xd7, 0x0a, 0x7e]),
    ]);
}

/// abs(...) and -|...| source modifiers.
#[test]
fn source_modifiers() {
    check(&[
        (Arch::Gfx1100, "v_cmp_lt_f16_e64 s8, abs(v24.l), v40.l", &[0x08, 0x01, 0x01, 0xd4, 0x18, 0x51, 0x02, 0x00]),
        (Arch::Gfx1100, "v_add_f32_e64 v0, -|v1|, v2", &[0x00, 0x01, 0x03, 0xd5, 0x01, 0x05, 0x02, 0x20]),
    ]);
}

/// `_e64` on mnemonics the tables list without it.
#[test]
fn suffixes() {
    check(&[
        (Arch::Gfx1100, "v_fma_f32_e64 v1, v2, v3, v4", &[0x01, 0x00, 0x13, 0xd6, 0x02, 0x07, 0x12, 0x04]),
        (Arch::Gfx1100, "v_pk_mad_i16_e64 v12, v24, v40, v56", &[0x0c, 0x40, 0x00, 0xcc, 0x18, 0x51, 0xe2, 0x1c]),
    ]);
}

/// Export sources separated by commas or blanks.
#[test]
fn export_spellings() {
    check(&[
        (Arch::Gfx1100, "exp mrt0 v0, v1, v2, v3 done", &[0x0f, 0x08, 0x00, 0xf8, 0x00, 0x01, 0x02, 0x03]),
        (Arch::Gfx1100, "exp mrt0, v24, v40, v56 off", &[0x07, 0x00, 0x00, 0xf8, 0x18, 0x28, 0x38, 0x00]),
    ]);
}

/// Labels and absolute expressions as branch targets in a whole source.
#[test]
fn branch_targets_labels_and_expressions() {
    let src =
        "loop:\n  s_nop 0\n  s_branch loop\n  s_cbranch_scc0 end\n  s_branch 1+2\n  s_branch -(3)\nend:\n  s_endpgm\n";
    let want: &[u8] = &[
        0x00, 0x00, 0x80, 0xbf, 0xfe, 0xff, 0xa0, 0xbf, 0x02, 0x00, 0xa1, 0xbf, 0x03, 0x00, 0xa0, 0xbf, 0xfd, 0xff,
        0xa0, 0xbf, 0x00, 0x00, 0xb0, 0xbf,
    ];
    assert_eq!(assemble(Arch::Gfx1100, src).unwrap(), want);
}

/// Values a field cannot hold are errors naming the operand, never truncated.
#[test]
fn out_of_range_values_are_errors() {
    for (arch, text, needle) in [
        (Arch::Gfx1100, "s_sendmsg_rtn_b32 s16, 0x10000", "bad sendmsg"),
        (Arch::Gfx942, "tbuffer_load_format_x v24, v8, s[16:19], s40 format:128 offen", "format 128 out of range"),
        (Arch::Gfx950, "v_permlane16_swap_b32_e64 v8, v24 bound_ctrl:2", "bound_ctrl is 0 or 1"),
        (Arch::Gfx1100, "v_mov_b32_dpp v0, v1 row_shl:1 fi:2", "fi:2"),
        (Arch::Gfx1100, "v_add_f32_e64 v0, v1, v2 mul:3", "mul:3"),
        (Arch::Gfx1100, "s_getreg_b32 s0, 0x12345", "bad hwreg"),
        (Arch::Gfx1100, "s_branch 65536", "out of range"),
        (Arch::Gfx1100, "exp mrt0 v0, v1, v2, s3", "expected a VGPR"),
    ] {
        let e = assemble_line(arch, text).expect_err(text).to_string();
        assert!(e.contains(needle), "{text}: {e}");
    }
}

/// Mixed-precision (`v_fma_mix*`) sources are typed f16: a float literal is written as f16 bits
/// and f16 constant patterns fold to inline constants, as llvm-mc 22 does on every target.
#[test]
fn mix_sources_are_f16() {
    check(&[
        (
            Arch::Gfx1100,
            "v_fma_mix_f32 v0, 1.5, v1, v2",
            &[0x00, 0x00, 0x20, 0xcc, 0xff, 0x02, 0x0a, 0x04, 0x00, 0x3e, 0x00, 0x00],
        ),
        (
            Arch::Gfx1100,
            "v_fma_mix_f32 v0, lit(1.0), v1, v2",
            &[0x00, 0x00, 0x20, 0xcc, 0xff, 0x02, 0x0a, 0x04, 0x00, 0x3c, 0x00, 0x00],
        ),
        (Arch::Gfx1100, "v_fma_mix_f32 v0, 0x3c00, v1, v2", &[0x00, 0x00, 0x20, 0xcc, 0xf2, 0x02, 0x0a, 0x04]),
        (
            Arch::Gfx1201,
            "v_fma_mixlo_f16 v0, -1.5, v1, v2",
            &[0x00, 0x00, 0x21, 0xcc, 0xff, 0x02, 0x0a, 0x04, 0x00, 0xbe, 0x00, 0x00],
        ),
        (Arch::Gfx942, "v_fma_mix_f32 v0, 0x3c00, v1, v2", &[0x00, 0x00, 0xa0, 0xd3, 0xf2, 0x02, 0x0a, 0x04]),
    ]);
}

/// depctr fields separated by `&` or commas; operands without a comma between them.
#[test]
fn separators() {
    check(&[
        (
            Arch::Gfx1100,
            "s_waitcnt_depctr depctr_va_vdst(1) & depctr_va_sdst(1) & depctr_vm_vsrc(1)",
            &[0x87, 0x13, 0x88, 0xbf],
        ),
        (
            Arch::Gfx1201,
            "s_wait_alu depctr_va_vdst(14), depctr_va_sdst(6), depctr_vm_vsrc(6)",
            &[0x9b, 0xed, 0x88, 0xbf],
        ),
        (Arch::Gfx1100, "v_max_f32 v1, v2 v3", &[0x02, 0x07, 0x02, 0x20]),
        (Arch::Gfx1201, "v_max_num_f32 v1 v2 v3", &[0x02, 0x07, 0x02, 0x2c]),
        (
            Arch::Gfx942,
            "v_max_f32 v1, v2 v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_2",
            &[0xf9, 0x06, 0x02, 0x16, 0x02, 0x06, 0x05, 0x02],
        ),
        (Arch::Gfx950, "v_fma_f32 v0, v1 v2 v3 clamp", &[0x00, 0x80, 0xcb, 0xd1, 0x01, 0x05, 0x0e, 0x04]),
    ]);
}

/// gfx11+ MTBUF: a data and numeric format pair is the unified format of the same name; the
/// default format written out is the same as left out.
#[test]
fn mtbuf_split_and_default_format() {
    check(&[
        (
            Arch::Gfx1100,
            "tbuffer_store_format_x v4, off, s[8:11], 0, format:[BUF_DATA_FORMAT_32_32_32_32, BUF_NUM_FORMAT_SINT] offset:4095",
            &[0xff, 0x0f, 0xf2, 0xe9, 0x00, 0x04, 0x02, 0x80],
        ),
        (
            Arch::Gfx1100,
            "tbuffer_store_format_x v4, v1, s[8:11], s3, format:[BUF_FMT_8_UNORM] idxen offset:52",
            &[0x34, 0x00, 0x0a, 0xe8, 0x01, 0x04, 0x82, 0x03],
        ),
        (
            Arch::Gfx942,
            "tbuffer_load_format_x v0, off, s[0:3], 0 format:[BUF_DATA_FORMAT_8,BUF_NUM_FORMAT_UNORM]",
            &[0x00, 0x00, 0x08, 0xe8, 0x00, 0x00, 0x00, 0x80],
        ),
        (Arch::Gfx1100, "tbuffer_load_format_x v0, off, s[0:3], 0 format:1", &[0x00, 0x00, 0x08, 0xe8, 0x00, 0x00, 0x00, 0x80]),
    ]);
}

/// Formats llvm-mc 22 refuses on gfx11+: a data/numeric pair with no unified format.
#[test]
fn mtbuf_unsupported_split_format() {
    for (arch, text) in [
        (Arch::Gfx1201, "tbuffer_load_format_x v4, off, s[8:11], s3 format:[BUF_DATA_FORMAT_32] offset:4"),
        (
            Arch::Gfx1100,
            "tbuffer_load_format_x v4, off, s[8:11], s3 format:[BUF_DATA_FORMAT_10_11_11, BUF_NUM_FORMAT_UNORM] offset:4",
        ),
    ] {
        let e = assemble_line(arch, text).expect_err(text).to_string();
        assert!(e.contains("unsupported format"), "{text}: {e}");
    }
}

/// gfx942/gfx950 sparse MFMA names with the two 8-bit float types run together
/// (`v_smfmac_f32_16x16x128bf8fp8`), which llvm-mc 22 takes as the underscored names.
#[test]
fn concatenated_smfmac_names() {
    check(&[
        (
            Arch::Gfx950,
            "v_smfmac_f32_16x16x128bf8fp8 v[10:13], a[2:5], v[4:11], v3 cbsz:3 abid:1",
            &[0x0a, 0x0b, 0xbc, 0xd3, 0x02, 0x09, 0x0e, 0x0c],
        ),
        (
            Arch::Gfx950,
            "v_smfmac_f32_32x32x64fp8fp8 a[10:25], v[2:5], a[4:11], v1",
            &[0x0a, 0x80, 0xd3, 0xd3, 0x02, 0x09, 0x06, 0x14],
        ),
        (
            Arch::Gfx942,
            "v_smfmac_f32_16x16x64bf8bf8 v[10:13], v[2:3], v[6:9], v2",
            &[0x0a, 0x00, 0xf8, 0xd3, 0x02, 0x0d, 0x0a, 0x04],
        ),
        (
            Arch::Gfx942,
            "v_smfmac_f32_32x32x32fp8bf8 a[10:25], v[2:3], a[4:7], v1",
            &[0x0a, 0x80, 0xfe, 0xd3, 0x02, 0x09, 0x06, 0x14],
        ),
    ]);
}

/// gfx12 temporal hints: every name llvm-mc 22 reads for the access kind (the cascades at any
/// scope, the `RT` and `TH_DEFAULT` defaults, `TH_ATOMIC_RT_RETURN`, a returning hint without
/// the destination), bytes from llvm-mc 22; and the numbers our disassembler prints where no
/// name reads back (which llvm-mc does not read).
#[test]
fn gfx12_temporal_hint_names_and_numbers() {
    check(&[
        (
            Arch::Gfx1201,
            "global_atomic_add_u32 v[2:3], v1, off th:TH_ATOMIC_CASCADE_RT",
            &[0x7c, 0x40, 0x0d, 0xee, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
        (
            Arch::Gfx1201,
            "global_atomic_add_u32 v[2:3], v1, off th:TH_ATOMIC_CASCADE_NT scope:SCOPE_SE",
            &[0x7c, 0x40, 0x0d, 0xee, 0x00, 0x00, 0xe4, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
        (
            Arch::Gfx1201,
            "global_atomic_add_u32 v0, v[2:3], v1, off th:TH_ATOMIC_RETURN",
            &[0x7c, 0x40, 0x0d, 0xee, 0x00, 0x00, 0x90, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
        (
            Arch::Gfx1201,
            "global_atomic_add_u32 v[2:3], v1, off th:TH_DEFAULT scope:SCOPE_DEV",
            &[0x7c, 0x40, 0x0d, 0xee, 0x00, 0x00, 0x88, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
        (
            Arch::Gfx1201,
            "global_store_b32 v[2:3], v1, off th:TH_LOAD_RT",
            &[0x7c, 0x80, 0x06, 0xee, 0x00, 0x00, 0x80, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
        (
            Arch::Gfx1201,
            "global_store_b32 v[2:3], v1, off th:TH_STORE_NT_WB",
            &[0x7c, 0x80, 0x06, 0xee, 0x00, 0x00, 0xf0, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
        (
            Arch::Gfx1201,
            "s_load_b32 s0, s[2:3], 0x0 th:TH_LOAD_BYPASS scope:SCOPE_SYS",
            &[0x01, 0x00, 0xe0, 0xf5, 0x00, 0x00, 0x00, 0xf8],
        ),
        (
            Arch::Gfx1201,
            "global_atomic_add_u32 v[2:3], v1, off th:0x4",
            &[0x7c, 0x40, 0x0d, 0xee, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
        (
            Arch::Gfx1201,
            "global_load_b32 v1, v[2:3], off th:7 scope:2",
            &[0x7c, 0x00, 0x05, 0xee, 0x01, 0x00, 0x78, 0x00, 0x02, 0x00, 0x00, 0x00],
        ),
    ]);
    // A returning hint without the returning form's destination is refused (llvm-mc writes the
    // returning form with destination v0, which would clobber v0): asm_errors.rs lists them.
    assert!(assemble_line(Arch::Gfx1201, "global_atomic_add_u32 v[2:3], v1, off th:TH_ATOMIC_RT_RETURN").is_err());
    // A name of another access kind is not read (as llvm-mc).
    assert!(assemble_line(Arch::Gfx1201, "global_store_b32 v[2:3], v1, off th:TH_LOAD_NT").is_err());
    assert!(assemble_line(Arch::Gfx1201, "global_load_b32 v1, v[2:3], off th:8").is_err());
}

/// gfx90a+ DPP of a 64-bit instruction takes row_newbcast only, as llvm-mc 22 (bytes from it).
#[test]
fn dp_alu_dpp_row_newbcast_only() {
    check(&[(
        Arch::Gfx942,
        "v_floor_f64_dpp v[0:1], v[2:3] row_newbcast:1",
        &[0xfa, 0x34, 0x00, 0x7e, 0x02, 0x51, 0x01, 0xff],
    )]);
    assert!(assemble_line(Arch::Gfx942, "v_cvt_f32_f64_dpp v0, v[2:3] quad_perm:[0,1,2,3]").is_err());
    assert!(assemble_line(Arch::Gfx942, "v_floor_f64_dpp v[0:1], v[2:3] row_shl:1").is_err());
}

/// `.long` data among instructions (what the disassembler prints for words no line produces):
/// its dwords in place, labels after it at the right offsets, a bad value reported.
#[test]
fn long_data_lines() {
    let src = "s_nop 0\n.long 0x7e1044fa, 0xff01e418 // v_ceil_f32_dpp\nl: s_branch l\n";
    let want = [0x00, 0x00, 0x80, 0xbf, 0xfa, 0x44, 0x10, 0x7e, 0x18, 0xe4, 0x01, 0xff, 0xff, 0xff, 0xa0, 0xbf];
    assert_eq!(assemble(Arch::Gfx1100, src).ok().as_deref(), Some(&want[..]));
    assert_eq!(assemble_line(Arch::Gfx942, ".long -1").ok(), Some(vec![0xff; 4]));
    let e = assemble(Arch::Gfx1100, "s_nop 0\n.long 0x1, v0\n").unwrap_err().to_string();
    assert!(e.contains("2:") && e.contains("32-bit integers"), "{e}");
}

/// Sources the source-type tables used to miss (autogen/gen/src/isa/line_operands.rs): lane
/// selects, and the scalar source of gfx12 `v_s_*` transcendentals, whose f16 forms fold `0x3800`
/// into 0.5 and write 1.5 as the f16 literal.
#[test]
fn lane_select_and_scalar_transcendental_sources() {
    check(&[
        (Arch::Gfx1201, "v_s_exp_f16 s5, 0x3800", &[0x05, 0x00, 0x81, 0xd6, 0xf0, 0x00, 0x00, 0x00]),
        (
            Arch::Gfx1201,
            "v_s_exp_f16 s5, 1.5",
            &[0x05, 0x00, 0x81, 0xd6, 0xff, 0x00, 0x00, 0x00, 0x00, 0x3e, 0x00, 0x00],
        ),
        (Arch::Gfx1201, "v_s_sqrt_f16 s5, 0x3c00", &[0x05, 0x00, 0x89, 0xd6, 0xf2, 0x00, 0x00, 0x00]),
        (Arch::Gfx1100, "v_readlane_b32 s8, v24, 0x3f000000", &[0x08, 0x00, 0x60, 0xd7, 0x18, 0xe1, 0x01, 0x00]),
        (Arch::Gfx942, "v_writelane_b32 v8, 0x3f000000, s1", &[0x08, 0x00, 0x8a, 0xd2, 0xf0, 0x02, 0x00, 0x00]),
        (
            Arch::Gfx1100,
            "v_permlane16_b32 v8, v24, s1, 1.5",
            &[0x08, 0x00, 0x5b, 0xd6, 0x18, 0x03, 0xfc, 0x03, 0x00, 0x00, 0xc0, 0x3f],
        ),
    ]);
}
