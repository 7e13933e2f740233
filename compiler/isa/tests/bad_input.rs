//! Bad input: errors name the position and the reason; nothing panics.

use baregpu_isa::{assemble, assemble_line, decode, decode_all, Arch, IsaError};

fn asm_err(arch: Arch, src: &str) -> (usize, usize, String) {
    match assemble(arch, src) {
        Err(IsaError::Asm { line, col, msg }) => (line, col, msg),
        other => panic!("expected an assembler error for {src:?}, got {other:?}"),
    }
}

#[test]
fn unknown_mnemonic() {
    let (l, c, m) = asm_err(Arch::Gfx1100, "s_nop 0\n  v_frobnicate v1, v2\n");
    assert_eq!((l, c), (2, 3));
    assert!(m.contains("unknown mnemonic"), "{m}");
}

#[test]
fn wrong_operand_kind() {
    let (l, c, m) = asm_err(Arch::Gfx1100, "s_mov_b32 v1, s2");
    assert_eq!((l, c), (1, 11));
    assert!(m.contains("scalar"), "{m}");
}

#[test]
fn immediate_out_of_range() {
    let (_, c, m) = asm_err(Arch::Gfx1100, "s_movk_i32 s1, 0x123456");
    assert_eq!(c, 16);
    assert!(m.contains("out of range"), "{m}");
    let (_, _, m) = asm_err(Arch::Gfx1100, "ds_add_u32 v8, v24 offset:70000");
    assert!(m.contains("out of range"), "{m}");
}

#[test]
fn register_out_of_range() {
    let (_, c, m) = asm_err(Arch::Gfx1100, "v_mov_b32 v1, v256");
    assert_eq!(c, 15);
    assert!(m.contains("beyond"), "{m}");
    let (_, _, m) = asm_err(Arch::Gfx942, "s_mov_b32 s1, s104");
    assert!(m.contains("beyond"), "{m}");
    // Found by the fuzzer (tests/fuzz): register numbers near u32::MAX overflowed `first + count`.
    for (arch, src) in [
        (Arch::Gfx942, "tbuffer_store_format_xyzw v[24:4294967295], v8, s[16:19], s40 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offen"),
        (Arch::Gfx1100, "v_mov_b32 v1, v4294967295"),
        (Arch::Gfx1100, "s_mov_b64 s[0:1], s[4294967294:4294967295]"),
        (Arch::Gfx1100, "s_mov_b32 s4294967295, 0"),
        (Arch::Gfx942, "v_accvgpr_write_b32 a4294967295, v1"),
    ] {
        let (l, _, _) = asm_err(arch, src);
        assert_eq!(l, 1);
    }
}

/// llvm-mc 22's tuple alignment (checked against `llvm-mc-22 -show-encoding` on each arch): SGPR
/// and trap-register pairs even, tuples of 3+ at a multiple of 4; VGPR/AGPR tuples even on
/// gfx942/gfx950 and free on RDNA.
#[test]
fn misaligned_register_tuples() {
    for (arch, src, col) in [
        (Arch::Gfx1100, "s_load_b64 s[3:4], s[0:1], 0x0", 12),
        (Arch::Gfx1201, "s_load_b64 s[3:4], s[0:1], 0x0", 12),
        (Arch::Gfx1100, "global_load_b64 v[1:2], v0, s[3:4]", 29),
        (Arch::Gfx1100, "s_load_b128 s[2:5], s[0:1], 0x0", 13),
        (Arch::Gfx1201, "s_load_b96 s[2:4], s[0:1], 0x0", 12),
        (Arch::Gfx1100, "s_load_b256 s[2:9], s[0:1], 0x0", 13),
        (Arch::Gfx1100, "s_load_b32 s3, s[1:2], 0x0", 16),
        (Arch::Gfx1100, "s_and_b64 s[2:3], s[4:5], s[7:8]", 27),
        (Arch::Gfx1100, "s_load_b64 ttmp[1:2], s[0:1], 0x0", 12),
        (Arch::Gfx942, "s_load_dwordx2 s[3:4], s[0:1], 0x0", 16),
        (Arch::Gfx942, "s_mov_b64 s[2:3], s[1:2]", 19),
        (Arch::Gfx942, "global_load_dwordx2 v[1:2], v0, s[2:3]", 21),
        (Arch::Gfx950, "global_load_dwordx3 v[1:3], v0, s[2:3]", 21),
        (Arch::Gfx942, "global_load_dwordx2 a[1:2], v0, s[2:3]", 21),
        (Arch::Gfx942, "v_lshlrev_b64 v[2:3], 1, v[1:2]", 26),
    ] {
        let (l, c, m) = asm_err(arch, src);
        assert_eq!((l, c, m.as_str()), (1, col, "invalid register alignment"), "{} {src}", arch.name());
    }
    for (arch, src) in [
        (Arch::Gfx1100, "s_load_b256 s[4:11], s[0:1], 0x0"),
        (Arch::Gfx1201, "s_load_b96 s[4:6], s[0:1], 0x0"),
        (Arch::Gfx1100, "s_load_b128 ttmp[4:7], s[0:1], 0x0"),
        (Arch::Gfx1100, "global_load_b64 v[1:2], v0, s[2:3]"),
        (Arch::Gfx1201, "v_add_f64 v[1:2], v[3:4], v[5:6]"),
        (Arch::Gfx942, "global_load_dwordx3 v[2:4], v0, s[2:3]"),
        (Arch::Gfx942, "s_mov_b64 vcc, s[0:1]"),
    ] {
        assert!(assemble(arch, src).is_ok(), "{} {src}: {:?}", arch.name(), assemble(arch, src));
    }
}

/// `v_nop` / `v_illegal` (VOP1 opcode 0, and gfx11+'s all-zero dword) as llvm-mc 22 encodes them.
#[test]
fn v_nop_and_v_illegal() {
    for arch in Arch::ALL {
        assert_eq!(assemble_line(arch, "v_nop").unwrap(), [0x00, 0x00, 0x00, 0x7e], "{}", arch.name());
        assert_eq!(baregpu_isa::disassemble(&decode(arch, &[0x00, 0x00, 0x00, 0x7e]).unwrap()), "v_nop");
    }
    for arch in [Arch::Gfx1100, Arch::Gfx1201] {
        assert_eq!(assemble_line(arch, "v_illegal").unwrap(), [0; 4], "{}", arch.name());
        assert_eq!(baregpu_isa::disassemble(&decode(arch, &[0; 4]).unwrap()), "v_illegal");
    }
    // gfx9 has no v_illegal (llvm-mc: not supported on this GPU).
    assert!(assemble_line(Arch::Gfx942, "v_illegal").is_err());
}

/// An error repeats at most a bounded prefix of a huge token.
#[test]
fn huge_tokens_are_not_echoed() {
    let token = "v".repeat(5 << 20);
    for src in [
        token.clone(),
        format!("v_mov_b32 v1, {token}"),
        format!(
            "s_nop 0
{token}:
{token}:"
        ),
    ] {
        let e = assemble(Arch::Gfx1100, &src).unwrap_err().to_string();
        assert!(e.len() < 300, "{} bytes: {}", e.len(), &e[..200]);
        assert!(e.contains('…'), "{e}");
    }
}

#[test]
fn branches_and_labels() {
    let src = "start:\n  s_nop 0 // comment\n  s_branch start ; back\n  s_cbranch_scc0 end\nend:\n  s_endpgm\n";
    let b = assemble(Arch::Gfx1100, src).unwrap();
    assert_eq!(b, [0x00, 0x00, 0x80, 0xbf, 0xfe, 0xff, 0xa0, 0xbf, 0x00, 0x00, 0xa1, 0xbf, 0x00, 0x00, 0xb0, 0xbf]);
    let (l, _, m) = asm_err(Arch::Gfx1100, "s_branch nowhere");
    assert_eq!(l, 1);
    assert!(m.contains("undefined label"), "{m}");
    let far = format!("s_branch far\n{}far:\ns_endpgm\n", "s_nop 0\n".repeat(40000));
    let (_, _, m) = asm_err(Arch::Gfx1100, &far);
    assert!(m.contains("out of range"), "{m}");
}

#[test]
fn truncated_and_unknown_bytes() {
    // A VOP3 instruction cut short.
    match decode(Arch::Gfx1100, &[0x08, 0x00, 0x13, 0xd6, 0x18]) {
        Err(e @ IsaError::Truncated { offset: 0, .. }) => assert!(e.to_string().contains("offset 0")),
        other => panic!("{other:?}"),
    }
    // A literal missing after a valid first instruction.
    let bytes = [0x00, 0x00, 0x80, 0xbf, 0xff, 0x50, 0x10, 0x08, 0x78, 0x56];
    match decode_all(Arch::Gfx1100, &bytes) {
        Err(e @ IsaError::Truncated { offset: 4, .. }) => assert!(e.to_string().contains("offset 4")),
        other => panic!("{other:?}"),
    }
    assert!(decode(Arch::Gfx1100, &[]).is_err());
    assert!(decode(Arch::Gfx1100, &[1, 2, 3]).is_err());
    // Random garbage never panics.
    let mut x = 0x1234_5678_9abc_def0u64;
    for _ in 0..20000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let b = x.to_le_bytes();
        for arch in Arch::ALL {
            if let Ok(i) = decode(arch, &b) {
                let _ = baregpu_isa::disassemble(&i);
            }
        }
    }
    let _ = assemble_line(Arch::Gfx1100, "v_add_f32 v1, |v2, v3");
    let _ = assemble_line(Arch::Gfx1100, "v_add_f32 v[1:, v2");
    let _ = assemble_line(Arch::Gfx1100, "");
}

#[test]
fn decode_speed() {
    let v: Vec<u8> =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/isa/golden/gfx1100.txt"))
            .unwrap()
            .lines()
            .filter_map(|l| l.rsplit_once(" ; [").map(|(_, e)| e.to_string()))
            .flat_map(|e| {
                e.trim_end_matches(']')
                    .split(',')
                    .filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
                    .collect::<Vec<_>>()
            })
            .collect();
    let start = std::time::Instant::now();
    let mut n = 0usize;
    for _ in 0..5 {
        let mut at = 0;
        while at < v.len() {
            match baregpu_isa::decode_at(Arch::Gfx1100, &v, at) {
                Ok(i) => at += i.size(),
                Err(_) => at += 4,
            }
            n += 1;
        }
    }
    let dt = start.elapsed().as_secs_f64();
    println!("decode: {n} instructions in {dt:.3}s = {:.1} M/s", n as f64 / dt / 1e6);
}

#[test]
fn gfx950_scaled_mfma_pairs() {
    // v_mfma_ld_scale_b32 + v_mfma_f32_16x16x128_f8f6f4 read as one 16-byte instruction.
    let pair = [0x00, 0x00, 0xac, 0xd3, 0x14, 0x2b, 0x02, 0x00, 0x08, 0x08, 0xad, 0xd3, 0x18, 0x51, 0xe2, 0x04];
    let i = decode(Arch::Gfx950, &pair).unwrap();
    assert_eq!(i.size(), 16);
    assert!(baregpu_isa::disassemble(&i).starts_with("v_mfma_scale_f32_16x16x128_f8f6f4 v[8:11]"));
    // Cut short: an error or a shorter instruction (the scale word alone), never a panic.
    for n in 0..16 {
        if let Ok(i) = decode(Arch::Gfx950, &pair[..n]) {
            assert!(i.size() <= n);
        }
    }
    // Any second half: no panic.
    let mut x = 0x0bad_5eed_1234_5678u64;
    for _ in 0..20000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut b = pair;
        b[8..16].copy_from_slice(&x.to_le_bytes());
        if let Ok(i) = decode(Arch::Gfx950, &b) {
            let _ = baregpu_isa::disassemble(&i);
        }
    }
    // The third selector is not encoded: asking for it is one clear error.
    let base = "v_mfma_scale_f32_16x16x128_f8f6f4 v[8:11], v[24:31], v[40:47], v[56:59], v20, v21";
    let e = assemble_line(Arch::Gfx950, &format!("{base} op_sel:[0,0,1]")).unwrap_err().to_string();
    assert!(e.contains("third selector"), "{e}");
    assert!(assemble_line(Arch::Gfx950, &format!("{base} op_sel_hi:[1,1]")).is_err());
    assert_eq!(assemble_line(Arch::Gfx950, base).unwrap(), pair);
}
