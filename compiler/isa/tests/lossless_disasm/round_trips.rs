//! The round-trip rows of `lossless_disasm`: words whose printed text once failed to assemble
//! back, each with llvm-mc 22's bytes and our text now.

use baregpu_isa::Arch;

/// Words whose text did not assemble back (issue 12, item 5), with llvm-mc 22's bytes and our
/// text now, and whether llvm-mc reads that text back too (not where llvm-mc has no spelling:
/// a gfx12 hint code no name spells). Words no instruction line produces print as `.long`.
pub const ROUND_TRIPS: &[(Arch, &[u8], &str, bool)] = &[
    // gfx12 hints: the cascades have llvm-mc's name at every scope; codes without one, a number.
    (
        Arch::Gfx1201,
        &[0x2c, 0x80, 0x0e, 0xc4, 0x18, 0x20, 0xc0, 0x40, 0x08, 0x00, 0x00, 0x00],
        "buffer_atomic_max_i32 v24, v8, s[16:19], s44 offen th:TH_ATOMIC_CASCADE_RT",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x14, 0x00, 0x0f, 0xee, 0x00, 0x00, 0x40, 0x0c, 0x08, 0x00, 0x00, 0x00],
        "global_atomic_and_b32 v8, v24, s[20:21] th:TH_ATOMIC_CASCADE_RT",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x7c, 0x00, 0x05, 0xee, 0x01, 0x00, 0x70, 0x00, 0x02, 0x00, 0x00, 0x00],
        "global_load_b32 v1, v[2:3], off th:0x7",
        false,
    ),
    (
        Arch::Gfx1201,
        &[0x7c, 0x40, 0x0d, 0xee, 0x00, 0x00, 0xbc, 0x00, 0x02, 0x00, 0x00, 0x00],
        "global_atomic_add_u32 v0, v[2:3], v1, off th:0x3 scope:SCOPE_SYS",
        false,
    ),
    // gfx1201: a 16-bit operand above v127 in a 32-bit encoding.
    (Arch::Gfx1201, &[0x9c, 0xbb, 0x10, 0x7e], ".long 0x7e10bb9c // v_trunc_f16_e32 v8, v156", true),
    (Arch::Gfx1201, &[0x9c, 0x51, 0x10, 0x66], ".long 0x6610519c // v_sub_f16_e32 v8, v156, v40", true),
    (
        Arch::Gfx1201,
        &[0xfa, 0x50, 0x69, 0x7c, 0x18, 0xe4, 0x00, 0xff],
        ".long 0x7c6950fa, 0xff00e418 // v_cmp_gt_i16 vcc_lo, v24, v168 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        true,
    ),
    // A reserved DPP16 control.
    (
        Arch::Gfx1100,
        &[0xfa, 0x44, 0x10, 0x7e, 0x18, 0xe4, 0x01, 0xff],
        ".long 0x7e1044fa, 0xff01e418 // v_ceil_f32_dpp v8, v24 dpp_ctrl:0x1e4 row_mask:0xf bank_mask:0xf",
        true,
    ),
    (
        Arch::Gfx942,
        &[0xfa, 0x50, 0x10, 0x0a, 0x18, 0xe4, 0x01, 0xff],
        ".long 0x0a1050fa, 0xff01e418 // v_mul_f32_dpp v8, v24, v40 dpp_ctrl:0x1e4 row_mask:0xf bank_mask:0xf",
        true,
    ),
    // A matrix source the assembler refuses (an SGPR as the sparsity index).
    (
        Arch::Gfx942,
        &[0x0c, 0x00, 0xe6, 0xd3, 0x18, 0x51, 0xe2, 0x00],
        ".long 0xd3e6000c, 0x00e25118 // v_smfmac_f32_16x16x32_bf16 v[12:15], v[24:25], v[40:43], s56",
        true,
    ),
    // gfx9 v_pk_fmac_f16 with op_sel bits: llvm-mc writes none for `op_sel:[1,0,0]` and ignores them.
    (
        Arch::Gfx942,
        &[0x08, 0x08, 0x3c, 0xd1, 0x1c, 0x51, 0x02, 0x00],
        ".long 0xd13c0808, 0x0002511c // v_pk_fmac_f16_e64 v8, v28, v40 op_sel:[1,0,0]",
        true,
    ),
    // gfx90a+ DPP with a 64-bit operand takes row_newbcast only.
    (
        Arch::Gfx942,
        &[0xfa, 0x34, 0x10, 0x7e, 0x18, 0xe4, 0x00, 0xff],
        ".long 0x7e1034fa, 0xff00e418 // v_floor_f64_dpp v[8:9], v[24:25] quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        true,
    ),
    // A compare's DPP op_sel, as llvm-mc prints it: no destination entry.
    (
        Arch::Gfx1100,
        &[0x08, 0x08, 0x06, 0xd4, 0xfa, 0x50, 0x02, 0x00, 0x18, 0xe4, 0x00, 0xff],
        "v_cmp_ge_f16_e64_dpp s8, v24.h, v40.l op_sel:[1,0] quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x08, 0x10, 0x02, 0xd4, 0xfa, 0x50, 0x02, 0x00, 0x18, 0xe4, 0x00, 0xff],
        "v_cmp_eq_f16_e64_dpp s8, v24.l, v40.h op_sel:[0,1] quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        true,
    ),
    // gfx9 VOP3 takes no literal: a source of 255 is an 8-byte word.
    (
        Arch::Gfx942,
        &[0x05, 0x00, 0x31, 0xd1, 0x7c, 0xfe, 0x01, 0x00],
        ".long 0xd1310005, 0x0001fe7c // v_min_u16_e64 v5, m0, 0x0",
        true,
    ),
    (
        Arch::Gfx950,
        &[0x05, 0x00, 0x31, 0xd1, 0xff, 0xf8, 0x00, 0x00],
        ".long 0xd1310005, 0x0000f8ff // v_min_u16_e64 v5, 0x0, m0",
        true,
    ),
    // WMMA: llvm-mc refuses an SGPR as a matrix (it decodes one with an invalid-register comment).
    (
        Arch::Gfx1100,
        &[0x08, 0x40, 0x40, 0xcc, 0x18, 0x51, 0xe2, 0x18],
        ".long 0xcc404008, 0x18e25118 // v_wmma_f32_16x16x16_f16 v[8:15], v[24:31], v[40:47], s[56:63]",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x08, 0x40, 0x40, 0xcc, 0x18, 0x50, 0xe2, 0x1c],
        ".long 0xcc404008, 0x1ce25018 // v_wmma_f32_16x16x16_f16 v[8:15], s[24:27], v[40:43], v[56:63]",
        true,
    ),
    // Modifier bits a source does not take (llvm-mc refuses the modifier, and drops or refuses
    // the bit): abs on v_cvt_sr_fp8_f32's seed, neg on integer sources, sext on a float one.
    (
        Arch::Gfx1201,
        &[0x08, 0x02, 0x6b, 0xd7, 0xfa, 0x50, 0x02, 0x00, 0x18, 0xe4, 0x00, 0xff],
        ".long 0xd76b0208, 0x000250fa, 0xff00e418 // v_cvt_sr_fp8_f32_e64_dpp v8, v24, v40 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x08, 0x02, 0x6b, 0xd7, 0x18, 0x51, 0x02, 0x00],
        ".long 0xd76b0208, 0x00025118 // v_cvt_sr_fp8_f32 v8, v24, v40",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x00, 0x00, 0x25, 0xd5, 0x01, 0x05, 0x02, 0x20],
        ".long 0xd5250000, 0x20020501 // v_add_nc_u32_e64 v0, v1, v2",
        true,
    ),
    (
        Arch::Gfx942,
        &[0xf9, 0x04, 0x00, 0x4c, 0x01, 0x16, 0x14, 0x06],
        ".long 0x4c0004f9, 0x06141601 // v_add_u16_sdwa v0, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:DWORD",
        true,
    ),
    (
        Arch::Gfx942,
        &[0xf9, 0x04, 0x00, 0x3e, 0x01, 0x16, 0x0c, 0x06],
        ".long 0x3e0004f9, 0x060c1601 // v_add_f16_sdwa v0, sext(v1), v2 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:WORD_0 src1_sel:DWORD",
        true,
    ),
    (
        Arch::Gfx942,
        &[0xfa, 0x04, 0x00, 0x4c, 0x01, 0xe4, 0x10, 0xff],
        ".long 0x4c0004fa, 0xff10e401 // v_add_u16_dpp v0, v1, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        true,
    ),
    // Bits and fields no line writes: gfx1201 SMEM bits llvm-mc prints as `nv` and
    // `scale_offset` (and refuses), the nv bit, an EXP bit llvm-mc drops, an export lane that is
    // off but names a register, a FLAT-segment offset above 4095, a VOPD pair sharing a bank.
    (
        Arch::Gfx1201,
        &[0x0a, 0x06, 0x10, 0xf4, 0x10, 0x00, 0x00, 0xf8],
        ".long 0xf410060a, 0xf8000010 // s_load_b32 s24, s[20:21], 0x10",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x0a, 0x06, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xf9],
        ".long 0xf400060a, 0xf9000010 // s_load_b32 s24, s[20:21], 0x10",
        true,
    ),
    (
        Arch::Gfx942,
        &[0x0a, 0x86, 0x02, 0xc0, 0x10, 0x00, 0x00, 0x00],
        ".long 0xc002860a, 0x00000010 // s_load_dword s24, s[20:21], 0x10",
        true,
    ),
    (
        Arch::Gfx942,
        &[0xfa, 0x50, 0x10, 0xc2, 0x00, 0x00, 0x00, 0xfe],
        ".long 0xc21050fa, 0xfe000000 // s_atomic_smin s67, ttmp[8:9], exec_hi",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x81, 0x00, 0x40, 0xd0, 0x08, 0x20, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00],
        ".long 0xd0400081, 0x00002008, 0x00000018 // image_load v8, [v24, v0], s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_2D nv",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x0e, 0x04, 0x00, 0xf8, 0x00, 0x18, 0x28, 0x38],
        ".long 0xf800040e, 0x38281800 // exp mrt0 off, v24, v40, v56",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x0c, 0x00, 0x00, 0xf8, 0x00, 0x18, 0x28, 0x38],
        ".long 0xf800000c, 0x38281800 // exp mrt0 off, off, v40, v56",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x04, 0x10, 0x50, 0xdc, 0x08, 0x00, 0x7c, 0x38],
        ".long 0xdc501004, 0x387c0008 // flat_load_b32 v56, v[8:9] offset:4",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x14, 0x43, 0x10, 0xc8, 0x10, 0x01, 0x18, 0x08],
        ".long 0xc8104314, 0x08180110 // v_dual_fmac_f32 v8, v20, v33 :: v_dual_mov_b32 v25, v16",
        true,
    ),
    // gfx9: odd VGPR/AGPR tuples.
    (
        Arch::Gfx942,
        &[0x0c, 0x00, 0xd6, 0xd3, 0x18, 0x51, 0xe6, 0x04],
        ".long 0xd3d6000c, 0x04e65118 // v_mfma_i32_32x32x16_i8 v[12:27], v[24:25], v[40:41], v[57:72]",
        true,
    ),
    (
        Arch::Gfx942,
        &[0x04, 0x00, 0x8a, 0xd8, 0x08, 0x19, 0x00, 0x00],
        ".long 0xd88a0004, 0x00001908 // ds_min_i64 v8, v[25:26] offset:4",
        true,
    ),
    (Arch::Gfx942, &[0x1c, 0x51, 0xd2, 0x7e], ".long 0x7ed2511c // v_sqrt_f64_e32 v[105:106], v[28:29]", true),
    (
        Arch::Gfx950,
        &[0x04, 0x00, 0x54, 0xdc, 0x08, 0x00, 0x00, 0x39],
        ".long 0xdc540004, 0x39000008 // flat_load_dwordx2 v[57:58], v[8:9] offset:4",
        true,
    ),
    // From LLVM's disassembler test pages: words llvm-mc decodes but whose text neither
    // assembler reads back to them. A gfx9 16-bit literal with high bits (the text has the low
    // half), an attribute above attr32, a C matrix partly overlapping a 16-register destination.
    (
        Arch::Gfx942,
        &[0xff, 0x04, 0x0a, 0x4c, 0x73, 0x72, 0x71, 0x3f],
        ".long 0x4c0a04ff, 0x3f717273 // v_add_u16_e32 v5, 0x7273, v2",
        true,
    ),
    (Arch::Gfx1100, &[0x0c, 0x86, 0x04, 0xce], ".long 0xce04860c // lds_param_load v12, attr33.z wait_vdst:4", true),
    // gfx9 reads one scalar value: VCC and s1 are two.
    (Arch::Gfx942, &[0x01, 0x04, 0x0a, 0x38], ".long 0x380a0401 // v_addc_co_u32_e32 v5, vcc, s1, v2, vcc", true),
    // The same in SDWA: two SGPR sources; one SGPR and the carry-in VCC.
    (
        Arch::Gfx942,
        &[0xf9, 0x02, 0x00, 0x02, 0x00, 0x06, 0x86, 0x86],
        ".long 0x020002f9, 0x86860600 // v_add_f32_sdwa v0, s0, s1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
        true,
    ),
    (
        Arch::Gfx950,
        &[0xf9, 0x02, 0x00, 0x38, 0x00, 0x06, 0x86, 0x06],
        ".long 0x380002f9, 0x06860600 // v_addc_co_u32_sdwa v0, vcc, s0, v1, vcc dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x69, 0x04, 0x12, 0xc9, 0x01, 0x06, 0x06, 0xff],
        ".long 0xc9120469, 0xff060601 // v_dual_add_f32 v255, s105, v2 :: v_dual_cndmask_b32 v6, s1, v3",
        true,
    ),
    (
        Arch::Gfx942,
        &[0x00, 0x80, 0xe0, 0xd3, 0x02, 0x09, 0x0a, 0x04],
        ".long 0xd3e08000, 0x040a0902 // v_mfma_f32_32x32x8_bf16 a[0:15], v[2:3], v[4:5], a[2:17]",
        true,
    ),
    // A literal that is no 16-bit value in a 16-bit source: both assemblers refuse the text
    // (llvm-mc prints `0x0` for it, which is another word).
    (
        Arch::Gfx1100,
        &[0xff, 0xa0, 0x10, 0x7e, 0x00, 0x00, 0xc0, 0x3f],
        ".long 0x7e10a0ff, 0x3fc00000 // v_cvt_f16_u16_e32 v8.l, 0x3fc00000",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x00, 0x00, 0x03, 0xd7, 0xff, 0x02, 0x02, 0x00, 0x45, 0x23, 0x01, 0x00],
        ".long 0xd7030000, 0x000202ff, 0x00012345 // v_add_nc_u16 v0, 0x12345, v1",
        true,
    ),
    // The literal code (255) in a source of an encoding without a literal dword (SDWA, DPP): no
    // line writes it (llvm-mc prints a stray value, or the DPP dword, as the literal).
    (
        Arch::Gfx942,
        &[0xf9, 0x04, 0x0a, 0x4c, 0xff, 0x06, 0x86, 0x06],
        ".long 0x4c0a04f9, 0x068606ff // v_add_u16_sdwa v5, 0x0, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x08, 0x00, 0x2b, 0xd5, 0xfa, 0xfe, 0x01, 0x00, 0x18, 0x1b, 0x00, 0xff],
        ".long 0xd52b0008, 0x0001fefa, 0xff001b18 // v_fmac_f32_e64_dpp v8, v24, 0x0 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x08, 0x00, 0x2b, 0xd5, 0xe9, 0xfe, 0x01, 0x00, 0x18, 0x77, 0x39, 0x05],
        ".long 0xd52b0008, 0x0001fee9, 0x05397718 // v_fmac_f32_e64_dpp v8, v24, 0x0 dpp8:[7,6,5,4,3,2,1,0]",
        true,
    ),
    // A gfx12 buffer_* format other than the default: no modifier names it.
    (
        Arch::Gfx1201,
        &[0x2c, 0x40, 0x0f, 0xc4, 0x18, 0x20, 0x00, 0x40, 0x08, 0x00, 0x00, 0x00],
        ".long 0xc40f402c, 0x40002018, 0x00000008 // buffer_atomic_or_b32 v24, v8, s[16:19], s44 offen",
        true,
    ),
    // gfx9 saddr 0x7d: llvm-mc's `null`, which gfx9 refuses; `off` is 0x7f.
    (Arch::Gfx942, &[0x04, 0x60, 0x50, 0xdc, 0x08, 0x00, 0x7d, 0x38], ".long 0xdc506004, 0x387d0008 // scratch_load_dword v56, v8, off offset:4", true),
    (Arch::Gfx950, &[0x04, 0x80, 0x50, 0xdc, 0x08, 0x00, 0x7d, 0x38], ".long 0xdc508004, 0x387d0008 // global_load_dword v56, v[8:9], off offset:4", true),
    // A gfx12 image resource in a VGPR code: no register name spells it.
    (
        Arch::Gfx1201,
        &[0x01, 0xc0, 0x4c, 0xe4, 0x08, 0x20, 0x00, 0x94, 0x18, 0x00, 0x00, 0x00],
        ".long 0xe44cc001, 0x94002008, 0x00000018 // image_gather4_c v[8:11], [v24, v0, v0], s[16:23], 296 dmask:0x1 dim:SQ_RSRC_IMG_2D",
        true,
    ),
    // ds_swizzle_b32 offsets whose mode name drops bits (FFT's unused bits, a bitmask whose
    // lanes 0 and 31 do not say it all) print as the number.
    (Arch::Gfx1100, &[0xff, 0xff, 0xd4, 0xd8, 0x01, 0x00, 0x00, 0x05], "ds_swizzle_b32 v5, v1 offset:65535", true),
    (Arch::Gfx1100, &[0x84, 0x00, 0xd4, 0xd8, 0x08, 0x00, 0x00, 0x38], "ds_swizzle_b32 v56, v8 offset:132", true),
    (Arch::Gfx950, &[0x04, 0x40, 0x7a, 0xd8, 0x08, 0x00, 0x00, 0x38], "ds_swizzle_b32 v56, v8 offset:16388", true),
    // Operands llvm-mc 22 prints but refuses to read (and so does our assembler): a gfx11 64-bit
    // DPP src1 that is no VGPR, a 16-bit fmaak constant that is no 16-bit value, a gfx11
    // s_waitcnt_*cnt register other than null, a gfx9 VGPR-indexing mode above 15, gather4 and
    // atomic dmasks.
    (
        Arch::Gfx1100,
        &[0x08, 0x00, 0x20, 0xd6, 0xfa, 0x50, 0xe0, 0x04, 0x18, 0xe4, 0x00, 0xff],
        ".long 0xd6200008, 0x04e050fa, 0xff00e418 // v_med3_i32_e64_dpp v8, v24, s40, v56 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        true,
    ),
    (Arch::Gfx1100, &[0x04, 0x01, 0x2c, 0x71, 0x18, 0x08, 0x04, 0x00], ".long 0x712c0104, 0x00040818 // v_fmaak_f16 v150, v4, v0, 0x40818", true),
    (Arch::Gfx1100, &[0x1c, 0x4d, 0x90, 0xbc], ".long 0xbc904d1c // s_waitcnt_vmcnt s16, 0x4d1c", true),
    (Arch::Gfx942, &[0x1c, 0x28, 0x11, 0xbf], ".long 0xbf11281c // s_set_gpr_idx_on s28, 0x28", true),
    (Arch::Gfx950, &[0x01, 0x08, 0x9d, 0xbf], ".long 0xbf9d0801 // s_set_gpr_idx_mode 0x801", true),
    (
        Arch::Gfx1100,
        &[0x04, 0x05, 0xc8, 0xf0, 0x18, 0x08, 0x04, 0x00],
        ".long 0xf0c80504, 0x00040818 // image_gather4_lz v[8:11], v[24:25], s[16:23], s[0:3] dmask:0x5 dim:SQ_RSRC_IMG_2D",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x04, 0x09, 0x48, 0xf0, 0x18, 0x08, 0x04, 0x00],
        ".long 0xf0480904, 0x00040818 // image_atomic_and v[8:9], v[24:25], s[16:23] dmask:0x9 dim:SQ_RSRC_IMG_2D",
        true,
    ),
    // Scalar words llvm-mc refuses to decode or prints with an invalid register: SMEM m0/exec
    // data, a buffer's negative offset, a gfx12 probe size above 31 (asm::smem_rules); GWS
    // without gds or with an odd register (asm::gws); an immediate on a SOPP that takes none
    // (asm::salu_imm); gfx9 v_clrexcp DPP (isa::ext_forms).
    (
        Arch::Gfx1201,
        &[0x4a, 0x1f, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xf8],
        ".long 0xf4001f4a, 0xf8000010 // s_load_b32 m0, s[20:21], 0x10",
        true,
    ),
    (
        Arch::Gfx1201,
        &[0x4a, 0x50, 0x04, 0xf4, 0x10, 0x00, 0x00, 0xf8],
        ".long 0xf404504a, 0xf8000010 // s_atc_probe 0x41, s[20:21], 0x10",
        true,
    ),
    (
        Arch::Gfx942,
        &[0x0a, 0x06, 0x22, 0xc0, 0xf0, 0xff, 0x1f, 0x00],
        ".long 0xc022060a, 0x001ffff0 // s_buffer_load_dword s24, s[20:23], -0x10",
        true,
    ),
    (Arch::Gfx942, &[0x80, 0x1f, 0x90, 0xc0, 0x00, 0x00, 0x00, 0x00], ".long 0xc0901f80, 0x00000000 // s_memtime exec", true),
    (Arch::Gfx950, &[0x00, 0x00, 0x33, 0xd9, 0x09, 0x00, 0x00, 0x00], ".long 0xd9330000, 0x00000009 // ds_gws_init v9 gds", true),
    (Arch::Gfx1100, &[0x00, 0x00, 0x64, 0xd8, 0x08, 0x00, 0x00, 0x00], ".long 0xd8640000, 0x00000008 // ds_gws_init v8", true),
    (Arch::Gfx942, &[0x05, 0x00, 0x8a, 0xbf], ".long 0xbf8a0005 // s_barrier 0x5", true),
    (
        Arch::Gfx942,
        &[0xfa, 0x6a, 0x00, 0x7e, 0x00, 0xe4, 0x00, 0xff],
        ".long 0x7e006afa, 0xff00e400 // v_clrexcp_dpp quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
        true,
    ),
    // llvm-mc 22 refuses a null SMEM buffer resource and tfe on a buffer store.
    (
        Arch::Gfx1100,
        &[0x7e, 0x01, 0x8c, 0xf4, 0x18, 0x51, 0x02, 0x00],
        ".long 0xf48c017e, 0x00025118 // s_atc_probe_buffer 5, null, s0 offset:0x25118",
        true,
    ),
    (
        Arch::Gfx1100,
        &[0x04, 0x00, 0x1c, 0xe0, 0x08, 0x18, 0x64, 0x28],
        ".long 0xe01c0004, 0x28641808 // buffer_store_format_xyzw v[24:28], v8, s[16:19], s40 offen offset:4 tfe",
        true,
    ),
];
