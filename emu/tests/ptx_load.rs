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

/// A kernel body that takes the address of the module's `s`.
const USES_S: &str = "\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, s;";

/// Static `.shared` beyond ptxas's 48 KiB: refused at load, naming the variable's line; at the
/// limit it loads.
#[test]
fn static_shared_is_bounded() {
    let ok = kernel(&format!(".shared .align 4 .b8 s[{MAX_STATIC_SHARED}];"), USES_S);
    Module::parse(&ok).unwrap_or_else(|e| panic!("{e}"));
    let e = Module::parse(&kernel(".shared .align 4 .b8 s[240000];", USES_S)).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("`k`") && e.message.contains("240000") && e.message.contains("49152"), "{e}");
    // Near 4 GiB: refused where it is placed, before any kernel is counted.
    let e = Module::parse(&kernel(".shared .align 4 .b32 s[1073741823];", USES_S)).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("shared") && e.message.contains("4294967292"), "{e}");
    // Unreferenced, it still takes room in every CTA here: refused past a block's 227 KiB.
    let e = Module::parse(&kernel(".shared .align 4 .b8 s[240000];", "")).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("232448"), "{e}");
    // In a function body, and two that pass it together.
    let e = Module::parse(&kernel("", "\t.shared .b8 a[40000];\n\t.shared .b8 b[40000];")).unwrap_err();
    assert_eq!(e.line, 8, "{e}");
    // 4 GiB does not wrap to a small size.
    let e = Module::parse(&kernel(".shared .b32 s[1073741824];", "")).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
}

/// Two kernels, each storing 0x40 + its id through its own 40,000-byte module-scope `.shared`
/// array (clang's `__local` arrays), and a third that reads `a` directly and `b` through a
/// function when `both` is set.
fn two_arrays(both: bool) -> String {
    let third = if both {
        ".visible .entry k3(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, a;\n\tcall touch_b;\n\tret;\n}\n"
    } else {
        ""
    };
    let k = |name: &str, arr: &str, v: u32| {
        format!(
            ".visible .entry {name}(.param .u64 p)\n{{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n\t\
             st.shared.u32 [{arr}+39996], {v};\n\tbar.sync 0;\n\tld.shared.u32 %r1, [{arr}+39996];\n\t\
             ld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tst.global.u32 [%rd2], %r1;\n\tret;\n}}\n"
        )
    };
    format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n.shared .align 4 .b8 a[40000];\n\
         .shared .align 4 .b8 b[40000];\n.func touch_b()\n{{\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, b;\n\tret;\n}}\n{}{}{third}",
        k("k1", "a", 0x41),
        k("k2", "b", 0x42)
    )
}

/// Static shared memory is bounded per kernel, on the variables it (and what it calls)
/// references: two kernels with their own 40,000-byte arrays load and run; one that reaches
/// both (80,000 bytes) is refused, naming it and the line of the array that passes the limit.
#[test]
fn static_shared_is_bounded_per_kernel() {
    let m = Module::parse(&two_arrays(false)).unwrap_or_else(|e| panic!("{e}"));
    let mut mem = HostMemory::new();
    for (name, want) in [("k1", 0x41u32), ("k2", 0x42)] {
        let out = mem.alloc(4);
        m.launch(&Launch::new(name, [2, 1, 1], [32, 1, 1], &out.to_le_bytes()), &mem).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mem.read::<u32>(out, 1), [want], "{name}");
    }
    let e = Module::parse(&two_arrays(true)).unwrap_err();
    assert_eq!(e.line, 5, "{e}");
    assert!(e.message.contains("`k3`") && e.message.contains("80000") && e.message.contains("49152"), "{e}");
}

/// A CTA holds the module's static shared memory and the dynamic: past sm_90's 227 KiB per
/// block the launch is refused, not allocated.
#[test]
fn shared_per_cta_is_bounded_at_launch() {
    let m = Module::parse(&two_arrays(false)).unwrap();
    let mem = HostMemory::new();
    let mut l = Launch::new("k1", [1, 1, 1], [1, 1, 1], &[0; 8]);
    l.dynamic_shared = 200 << 10;
    let e = m.launch(&l, &mem).unwrap_err();
    assert!(e.to_string().contains("232448"), "{e}");
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

/// A vector variable is its whole width: `.local .v4 .f32 a` takes 16 bytes, so the variable
/// declared after it does not overlap its last three lanes.
#[test]
fn vector_variables_take_their_whole_width() {
    let src = ".version 7.8\n.target sm_90\n.address_size 64\n\
               .visible .entry k(.param .u64 .ptr .global .align 16 out)\n{\n\
               \t.local .v4 .f32 a;\n\t.local .b32 b;\n\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<5>;\n\t.reg .b32 %r<2>;\n\
               \tmov.f32 %f1, 0f3F800000;\n\tmov.f32 %f2, 0f40000000;\n\tmov.f32 %f3, 0f40400000;\n\
               \tmov.f32 %f4, 0f40800000;\n\tst.local.v4.f32 [a], {%f1, %f2, %f3, %f4};\n\
               \tmov.u32 %r1, 7;\n\tst.local.u32 [b], %r1;\n\tld.local.v4.f32 {%f1, %f2, %f3, %f4}, [a];\n\
               \tld.param.u64 %rd1, [out];\n\tst.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};\n\tret;\n}\n";
    let m = Module::parse(src).unwrap_or_else(|e| panic!("{e}"));
    let mut mem = HostMemory::new();
    let out = mem.alloc(16);
    m.launch(&Launch::new("k", [1, 1, 1], [1, 1, 1], &out.to_le_bytes()), &mem).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mem.read::<f32>(out, 4), [1.0, 2.0, 3.0, 4.0]);
}
