//! The PTX interpreter one instruction family at a time: a hand-written one-thread kernel
//! loads its inputs, runs the instructions under test and stores what they gave, which is
//! checked against values worked out from the PTX ISA's definition of each instruction.
//! A family gets a test here when a compiled kernel (tests/nv_corpus.rs) found it missing or wrong.

use baregpu_emu::nv::ptx::{Launch, Module};
use baregpu_emu::nv::HostMemory;

/// Runs `body` as one thread with `%rd1` = the address of `input` and `%rd2` = that of 16
/// zeroed 64-bit output slots; returns the slots.
fn run(body: &str, input: &[u64]) -> Vec<u64> {
    let src = format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 k_in, .param .u64 k_out)\n{{\n\
         \t.local .align 8 .b8 depot[64];\n\
         \t.reg .b16 %rs<16>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<32>;\n\t.reg .pred %p<8>;\n\
         \tld.param.u64 %rd1, [k_in];\n\tld.param.u64 %rd2, [k_out];\n{body}\n\tret;\n}}\n"
    );
    let m = Module::parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let mut mem = HostMemory::new();
    let inp = mem.upload(input);
    let out = mem.alloc(16 * 8);
    let params: Vec<u8> = [inp.to_le_bytes(), out.to_le_bytes()].concat();
    m.launch(&Launch::new("k", [1, 1, 1], [1, 1, 1], &params), &mem).unwrap_or_else(|e| panic!("{e}\n{src}"));
    mem.read(out, 16)
}

/// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, n`: the middle 32 bits of b:a (b the high word)
/// shifted by n, the amount taken mod 32 (.wrap) or clamped to 32 (.clamp).
#[test]
fn funnel_shifts() {
    let (a, b) = (0x89ab_cdefu64, 0x0123_4567u64);
    let cases: &[(&str, u64, u32)] = &[
        ("shf.l.wrap.b32", 4, 0x1234_5678), // b << 4 | a >> 28
        ("shf.l.wrap.b32", 36, 0x1234_5678),
        ("shf.l.clamp.b32", 36, 0x89ab_cdef), // all of a
        ("shf.l.clamp.b32", 0, 0x0123_4567),  // b unshifted
        ("shf.r.wrap.b32", 8, 0x6789_abcd),   // a >> 8 | b << 24
        ("shf.r.wrap.b32", 40, 0x6789_abcd),
        ("shf.r.clamp.b32", 40, 0x0123_4567), // all of b
        ("shf.r.clamp.b32", 0, 0x89ab_cdef),  // a unshifted
    ];
    for &(op, n, want) in cases {
        let body = format!(
            "\tld.global.u32 %r1, [%rd1];\n\tld.global.u32 %r2, [%rd1+8];\n\tld.global.u32 %r3, [%rd1+16];\n\
             \t{op} %r4, %r1, %r2, %r3;\n\tst.global.u32 [%rd2], %r4;"
        );
        assert_eq!(run(&body, &[a, b, n])[0], want as u64, "{op} by {n}");
    }
    // With a == b, shf.l.wrap is a rotate (what clang makes of `x << s | x >> (32 - s)`).
    for s in [0u32, 1, 13, 31] {
        let x = 0xdead_beefu32;
        let body = "\tld.global.u32 %r1, [%rd1];\n\tld.global.u32 %r3, [%rd1+8];\n\
                    \tshf.l.wrap.b32 %r4, %r1, %r1, %r3;\n\tst.global.u32 [%rd2], %r4;";
        assert_eq!(run(body, &[x as u64, s as u64])[0], x.rotate_left(s) as u64, "rotate by {s}");
    }
    assert!(Module::parse(
        ".version 7.8\n.target sm_90\n.entry k()\n{\n.reg .b32 %r<4>;\nshf.wrap.b32 %r1, %r1, %r1, %r1;\nret;\n}\n"
    )
    .unwrap_err()
    .to_string()
    .contains(".l or .r"));
}

/// `ld.sN` sign-extends into a wider destination register, `ld.uN`/`ld.bN` zero-extend:
/// clang at -O0 loads a `char` with `ld.global.s8 %r` and an `int` index with `ld.s32 %rd`.
#[test]
fn loads_extend_to_the_register_width() {
    let input = [0x8000_0000_8080_8080u64];
    let body = "\tmov.b32 %r9, -1;\n\tmov.b64 %rd9, -1;\n\
                \tld.global.s8 %r1, [%rd1];\n\tst.global.u32 [%rd2], %r1;\n\
                \tld.global.s8 %rd3, [%rd1];\n\tst.global.u64 [%rd2+8], %rd3;\n\
                \tld.global.s16 %r2, [%rd1];\n\tst.global.u32 [%rd2+16], %r2;\n\
                \tld.global.s32 %rd4, [%rd1+4];\n\tst.global.u64 [%rd2+24], %rd4;\n\
                \tld.global.u8 %r9, [%rd1];\n\tst.global.u32 [%rd2+32], %r9;\n\
                \tld.global.b16 %rd9, [%rd1];\n\tst.global.u64 [%rd2+40], %rd9;\n\
                \tmov.u64 %rd10, depot;\n\tcvta.local.u64 %rd11, %rd10;\n\
                \tmov.b32 %r5, -7;\n\tst.b32 [%rd11+8], %r5;\n\
                \tld.s32 %rd12, [%rd11+8];\n\tst.global.u64 [%rd2+48], %rd12;\n\
                \tld.u32 %rd13, [%rd11+8];\n\tst.global.u64 [%rd2+56], %rd13;";
    let o = run(body, &input);
    assert_eq!(o[0] as u32, 0xffff_ff80, "ld.s8 into .b32");
    assert_eq!(o[1], 0xffff_ffff_ffff_ff80, "ld.s8 into .b64");
    assert_eq!(o[2] as u32, 0xffff_8080, "ld.s16 into .b32");
    assert_eq!(o[3], 0xffff_ffff_8000_0000, "ld.s32 into .b64");
    assert_eq!(o[4] as u32, 0x80, "ld.u8 into .b32 over -1");
    assert_eq!(o[5], 0x8080, "ld.b16 into .b64 over -1");
    assert_eq!(o[6], (-7i64) as u64, "generic ld.s32 of a local into .b64");
    assert_eq!(o[7], 0xffff_fff9, "generic ld.u32 of a local into .b64");
}
