//! What the PTX parser accepts and refuses when a module is loaded, before anything runs:
//! clang's prototypes, the parameter layout shared with the runtime, the ISA version, and the
//! bounds on registers and static shared memory (each refusal names its line).

use baregpu_drivers::nv::ptx_abi::MAX_STATIC_SHARED;
use baregpu_emu::nv::ptx::{Launch, Module};
use baregpu_emu::nv::HostMemory;
use std::time::Instant;

const CLANG_ABI: &str = include_str!("../../tests/fixtures/ptx/clang-abi.ptx");

fn kernel(decls: &str, body: &str) -> String {
    format!(".version 7.8\n.target sm_90\n.address_size 64\n{decls}\n.visible .entry k()\n{{\n{body}\n\tret;\n}}\n")
}

/// A `.noreturn` prototype (clang's, for a kernel that never returns) parses, and the module's
/// other kernels run.
#[test]
fn noreturn_prototypes_parse() {
    let m = Module::parse(CLANG_ABI).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.entries(), ["int_then_ptr", "spin", "store5"]);
    let mut mem = HostMemory::new();
    let out = mem.alloc(8);
    m.launch(&Launch::new("store5", [1, 1, 1], [1, 1, 1], &out.to_le_bytes()), &mem).unwrap();
    assert_eq!(mem.read::<u32>(out, 1), [5]);
}

/// `int b, __global float *s`: the pointer's `.align 4` is the floats', so it sits at 8, where
/// the runtime (runtime::program::ptx, the same drivers::nv::ptx_abi rule) puts it.
#[test]
fn a_pointer_after_an_int_sits_at_8() {
    let m = Module::parse(CLANG_ABI).unwrap();
    let f = m.entry("int_then_ptr").unwrap();
    assert_eq!(f.params, [(0, 4), (8, 8)]);
    let mut mem = HostMemory::new();
    let out = mem.alloc(16);
    let block = m.param_block("int_then_ptr", &[&7i32.to_le_bytes(), &out.to_le_bytes()]).unwrap();
    m.launch(&Launch::new("int_then_ptr", [1, 1, 1], [2, 1, 1], &block), &mem).unwrap();
    let got: u64 = mem.read::<u64>(out, 1)[0];
    assert_eq!([got as u32, (got >> 32) as u32], [7.0f32.to_bits(); 2]);
}

/// A register range costs only the members used: `%p<4294967295>` parses at once.
#[test]
fn register_ranges_are_sized_by_use() {
    let t = Instant::now();
    let src =
        kernel("", "\t.reg .pred %p<4294967295>;\n\t.reg .b32 %r<4294967295>;\n\tsetp.eq.u32 %p4000000000, %r7, %r9;");
    let m = Module::parse(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.entry("k").unwrap().nregs, 3);
    assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
    // A count past 32 bits is refused, not truncated.
    let e = Module::parse(&kernel("", "\t.reg .b32 %r<4294967296>;")).unwrap_err();
    assert_eq!(e.line, 7, "{e}");
}

/// Past 65,536 registers in one function: an error naming the line of the first one too many.
#[test]
fn too_many_registers_name_the_line() {
    let mut body = String::from("\t.reg .b32 %r<100000>;\n");
    for k in 0..(1 << 16) + 1 {
        body.push_str(&format!("\tmov.u32 %r{k}, 0;\n"));
    }
    let e = Module::parse(&kernel("", &body)).unwrap_err();
    // The body starts on line 7 with the range; `mov %rK` is on line 8 + K.
    assert_eq!(e.line, 8 + (1 << 16), "{e}");
    assert!(e.message.contains("registers"), "{e}");
}

/// Static `.shared` beyond ptxas's 48 KiB: refused at load, naming the variable's line; at the
/// limit it loads.
#[test]
fn static_shared_is_bounded() {
    let ok = kernel(&format!(".shared .align 4 .b8 s[{MAX_STATIC_SHARED}];"), "");
    Module::parse(&ok).unwrap_or_else(|e| panic!("{e}"));
    for decl in [".shared .align 4 .b8 s[240000];", ".shared .align 4 .b32 s[1073741823];"] {
        let e = Module::parse(&kernel(decl, "")).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("shared") && e.message.contains("49152"), "{e}");
    }
    // In a function body, and two that pass it together.
    let e = Module::parse(&kernel("", "\t.shared .b8 a[40000];\n\t.shared .b8 b[40000];")).unwrap_err();
    assert_eq!(e.line, 8, "{e}");
    // 4 GiB does not wrap to a small size.
    let e = Module::parse(&kernel(".shared .b32 s[1073741824];", "")).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
}

#[test]
fn newer_ptx_versions_are_refused() {
    let e = Module::parse(&kernel("", "").replace("7.8", "99.9")).unwrap_err();
    assert_eq!(e.line, 1, "{e}");
    assert!(e.message.contains("99.9") && e.message.contains("newer"), "{e}");
    Module::parse(&kernel("", "").replace("7.8", "9.5")).unwrap();
}

/// Per-thread `.local` beyond the hardware's 512 KiB: refused at load, naming the line of the
/// variable that passes it; two arrays that pass 4 GiB together do not wrap (or panic).
#[test]
fn local_size_is_bounded() {
    Module::parse(&kernel("", "\t.local .align 4 .b8 a[524288];")).unwrap_or_else(|e| panic!("{e}"));
    for (body, line) in [
        ("\t.local .b8 a[524289];", 7),
        ("\t.local .b8 a[300000];\n\t.local .b8 b[300000];", 8),
        ("\t.local .b8 a[3000000000];\n\t.local .b8 b[3000000000];", 7),
    ] {
        let e = Module::parse(&kernel("", body)).unwrap_err();
        assert_eq!(e.line, line, "{body}: {e}");
        assert!(e.message.contains("local") && e.message.contains("524288"), "{e}");
    }
}

/// A body's `.param`s (call arguments, on the thread's stack) are bounded like `.local`, and
/// offsets past 4 GiB are an error, not an overflow.
#[test]
fn body_params_are_bounded() {
    let e = Module::parse(&kernel("", "\t.param .b8 a[3000000000];\n\t.param .b8 b[3000000000];")).unwrap_err();
    assert_eq!(e.line, 7, "{e}");
    let e = Module::parse(&kernel("", "\t.param .b8 a[400000];\n\t.param .b8 b[400000];")).unwrap_err();
    assert_eq!(e.line, 8, "{e}");
    assert!(e.message.contains("param"), "{e}");
    // Huge formal parameters and an alignment that would carry past 4 GiB.
    let src = ".version 7.8\n.target sm_90\n.func f(.param .b8 p[4000000000])\n{\n\
        \t.param .align 1073741824 .b8 x;\n\tret;\n}\n";
    let e = Module::parse(src).unwrap_err();
    assert!(e.line == 3 || e.line == 5, "{e}");
}

/// Module `.const` data is one 64 KiB bank and `.global` data is bounded: refused at load
/// (naming the variable's line) before any buffer of that size is made.
#[test]
fn module_data_is_bounded() {
    Module::parse(&kernel(".const .b8 c[65536];", "")).unwrap_or_else(|e| panic!("{e}"));
    let e = Module::parse(&kernel(".const .b8 c[40000];\n.const .b8 d[40000];", "")).unwrap_err();
    assert_eq!(e.line, 5, "{e}");
    assert!(e.message.contains("const") && e.message.contains("65536"), "{e}");
    let t = Instant::now();
    let e = Module::parse(&kernel(".global .b8 g[3000000000];\n.global .b8 h[3000000000];", "")).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("global"), "{e}");
    let e = Module::parse(&kernel(".global .align 8 .b8 g[8];\n.global .align 2147483648 .b8 h;", "")).unwrap_err();
    assert_eq!(e.line, 5, "{e}");
    assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
}

/// The fuzz seeds of tests/fixtures/ptx/bad: arrays that pass 4 GiB together are load errors
/// naming the first variable past its bound.
#[test]
fn oversized_seed_modules_are_errors() {
    let e = Module::parse(include_str!("../../tests/fixtures/ptx/bad/local-overflow.ptx")).unwrap_err();
    assert_eq!(e.line, 9, "{e}");
    let e = Module::parse(include_str!("../../tests/fixtures/ptx/bad/global-overflow.ptx")).unwrap_err();
    assert_eq!(e.line, 6, "{e}");
}
