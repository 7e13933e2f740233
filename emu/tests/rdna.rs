//! The RDNA wave interpreter on clang-built kernels: the code object loaded as the runtime loads
//! it (relocated image, kernargs, user SGPRs, RSRC2), host memory as GPU memory (VA == host
//! address), results against host references. Every kernel also runs through the whole driver
//! path — the runtime's KFD device on the emulated KFD, its command processor, this interpreter —
//! from the same inputs, and must leave every buffer byte-identical to the direct run.

use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::amd::launch;
use baregpu_runtime::program::ArgValue;

#[path = "../../tests/common/clang.rs"]
mod clang;
mod common;
#[path = "../../tests/common/corpus.rs"]
mod corpus;
#[path = "rdna/progress.rs"]
mod progress;
use common::wave::*;

fn basic(arch: &'static str) -> Program {
    load(&format!("hsaco/basic-{arch}.hsaco"), arch)
}

const ARCHS: [&str; 2] = ["gfx1100", "gfx1201"];

#[test]
fn vector_add() {
    for arch in ARCHS {
        let p = basic(arch);
        let n = 1000usize;
        let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
        let (ba, bb, bc) = (Buf::from(&a), Buf::from(&b), Buf::new(n * 4 + 64));
        run(&p, "vector_add", &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&bc), u32v(n as u32)], [8, 1, 1], [128, 1, 1]);
        let c: Vec<f32> = bc.get(n + 16);
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "{arch} c[{i}]");
        }
        assert!(c[n..].iter().all(|&x| x == 0.0), "{arch}: wrote past n");
    }
}

#[test]
fn saxpy() {
    for arch in ARCHS {
        let p = basic(arch);
        let n = 300usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let y0: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.25).collect();
        let (bx, by) = (Buf::from(&x), Buf::from(&y0));
        run(
            &p,
            "saxpy",
            &[Arg::Buf(&by), Arg::Buf(&bx), Arg::Val(ArgValue::f32(2.5)), Arg::Val(ArgValue::u64(n as u64))],
            [5, 1, 1],
            [64, 1, 1],
        );
        let y: Vec<f32> = by.get(n);
        for i in 0..n {
            assert_eq!(y[i], 2.5f32.mul_add(x[i], y0[i]), "{arch} y[{i}]");
        }
    }
}

#[test]
fn fill2d() {
    for arch in ARCHS {
        let p = basic(arch);
        let (w, h) = (48usize, 20usize);
        let out = Buf::new(w * h * 4);
        run(&p, "fill2d", &[Arg::Buf(&out), u32v(w as u32), u32v(7)], [3, 5, 1], [16, 4, 1]);
        let o: Vec<i32> = out.get(w * h);
        for y in 0..h {
            for x in 0..w {
                assert_eq!(o[y * w + x], 7 + x as i32 - y as i32, "{arch} ({x},{y})");
            }
        }
    }
}

#[test]
fn block_reverse() {
    for arch in ARCHS {
        let p = basic(arch);
        let data: Vec<i32> = (0..256).collect();
        let b = Buf::from(&data);
        run(&p, "block_reverse", &[Arg::Buf(&b)], [4, 1, 1], [64, 1, 1]);
        let o: Vec<i32> = b.get(256);
        for g in 0..4 {
            for l in 0..64 {
                assert_eq!(o[g * 64 + l], (g * 64 + 63 - l) as i32, "{arch} [{g}][{l}]");
            }
        }
    }
}

#[test]
fn scalars() {
    for arch in ARCHS {
        let p = basic(arch);
        let out = Buf::new(8);
        let args = [
            Arg::Buf(&out),
            Arg::Val(ArgValue::Bytes(vec![(-3i8) as u8])),
            Arg::Val(ArgValue::Bytes((-300i16).to_le_bytes().to_vec())),
            Arg::Val(ArgValue::u32(100_000)),
            Arg::Val(ArgValue::u64((-5_000_000_000i64) as u64)),
            Arg::Val(ArgValue::f32(0.75)),
            Arg::Val(ArgValue::f64(1e-3)),
        ];
        run(&p, "scalars", &args, [1, 1, 1], [1, 1, 1]);
        let o: Vec<f64> = out.get(1);
        let expect = ((-3i64 + -300 + 100_000 + -5_000_000_000i64) as f32 + 0.75f32) as f64 + 1e-3;
        assert_eq!(o[0], expect, "{arch}");
    }
}

// --- the corpus, at -O0 and -O2 ---

fn corpus_build(arch: &'static str, opt: &str) -> Program {
    load(&format!("rdna/corpus-{arch}-{opt}.hsaco"), arch)
}

/// Every corpus build: both architectures at -O2 and -O0, and gfx1100 in wave64.
fn each_corpus(f: impl Fn(&Program, &str)) {
    for arch in ARCHS {
        for opt in ["O2", "O0", "O1", "O3"] {
            let p = corpus_build(arch, opt);
            if std::env::var("RDNA_TRACE").is_ok() {
                eprintln!("{arch} -{opt}");
            }
            f(&p, &format!("{arch} -{opt}"));
        }
    }
    let p = load("rdna/corpus-gfx1100-w64-O2.hsaco", "gfx1100");
    assert!(!launch::wave32(p.code.kernel("matmul").unwrap()), "the wave64 build is wave64");
    f(&p, "gfx1100 wave64 -O2");
}

#[test]
fn corpus_decodes_fully() {
    each_corpus(|p, what| {
        let e = Interpreter::new(p.arch);
        let mem = GpuMemory::from_ranges(&[(p.image.va(), p.image.len as u64, p.image.va() as usize)]);
        for k in &p.code.kernels {
            let bad = e.unsupported(p.image.va() + k.entry_offset, &mem).expect("decodes");
            assert!(bad.is_empty(), "{what} {}: {bad:x?}", k.name);
        }
    });
}

#[test]
fn half2_ops() {
    each_corpus(|p, what| corpus::half2_ops(&mut Emu(p), what));
}

#[test]
fn atomics() {
    each_corpus(|p, what| corpus::atomics(&mut Emu(p), what));
}

#[test]
fn scan_lds() {
    each_corpus(|p, what| corpus::scan_lds(&mut Emu(p), what));
}

#[test]
fn matmul() {
    each_corpus(|p, what| corpus::matmul(&mut Emu(p), what));
}

#[test]
fn int_ops() {
    each_corpus(|p, what| corpus::int_ops(&mut Emu(p), what));
}

#[test]
fn long_ops() {
    each_corpus(|p, what| corpus::long_ops(&mut Emu(p), what));
}

#[test]
fn float_ops() {
    each_corpus(|p, what| corpus::float_ops(&mut Emu(p), what));
}

#[test]
fn double_ops() {
    each_corpus(|p, what| corpus::double_ops(&mut Emu(p), what));
}

#[test]
fn half_ops() {
    each_corpus(|p, what| corpus::half_ops(&mut Emu(p), what));
}

#[test]
fn reduce_atomic_histogram_collatz() {
    each_corpus(|p, what| corpus::reduce_atomic_histogram_collatz(&mut Emu(p), what));
}

#[test]
fn private_array_transpose_bytes() {
    each_corpus(|p, what| corpus::private_array_transpose_bytes(&mut Emu(p), what));
}

#[test]
fn out_of_bounds_store_faults() {
    each_corpus(|p, what| {
        let buf = Buf::new(64);
        let e = Interpreter::new(p.arch);
        run_on(&e, p, "oob_store", &[Arg::Buf(&buf), u32v(3)], [1, 1, 1], [1, 1, 1]).expect(what);
        assert_eq!(buf.get::<i32>(4)[3], 42);
        let index = 0x3fff_ffffu32;
        let f = run_on(&e, p, "oob_store", &[Arg::Buf(&buf), u32v(index)], [1, 1, 1], [1, 1, 1]).expect_err(what);
        match f {
            DispatchFault::Memory { va, write, pc } => {
                assert_eq!(va, buf.va() + index as u64 * 4, "{what}");
                assert!(write, "{what}");
                let k = p.code.kernel("oob_store").unwrap();
                let _ = k;
                assert!(pc >= p.image.va() && pc < p.image.va() + p.image.len as u64, "{what}: pc {pc:#x}");
            }
            f => panic!("{what}: {f}"),
        }
    });
}

#[test]
fn unsupported_instruction_is_illegal() {
    for (arch, wave32) in [("gfx1100", true), ("gfx1201", true)] {
        // s_mov_b32 s0, 0; v_interp_p10_f32 (VINTERP, which compute kernels never use); s_endpgm.
        let words: [u32; 5] = [0xbe80_0080, 0xcd00_0000, 0x0402_0100, 0xbfb0_0000, 0xbfb0_0000];
        let mut code = Buf::from(&words);
        let va = code.va();
        let _ = code.ptr();
        let mem = GpuMemory::from_ranges(&[(va, code.len as u64, va as usize)]);
        let d = DispatchState {
            arch,
            pgm: va,
            rsrc1: 0,
            rsrc2: 0,
            rsrc3: 0,
            user_data: [0; 16],
            grid: [1, 1, 1],
            block: [32, 1, 1],
            start: [0; 3],
            wave32,
            tmpring_size: 0,
            scratch_base: 0,
            lds_bytes: 0,
            xcc: Default::default(),
            cancel: Default::default(),
        };
        let f = Interpreter::new(arch).dispatch(&d, &mem).expect_err(arch);
        match f {
            DispatchFault::Illegal { pc, what } => {
                assert_eq!(pc, va + 4, "{arch}: {what}");
                assert!(what.contains("not supported") || what.contains("undecodable"), "{arch}: {what}");
            }
            f => panic!("{arch}: {f}"),
        }
    }
}

/// Code is decoded once per code object: every kernel of an object, dispatched again and again,
/// runs from the segment decoded at the first dispatch (a kernel that was not the first of its
/// object used to be decoded again on every dispatch).
#[test]
fn each_code_object_is_decoded_once() {
    // The CDNA (wave64) dispatches take the same cache.
    for arch in ARCHS.into_iter().chain(["gfx942", "gfx950"]) {
        let p = basic(arch);
        let mut kernels: Vec<_> = p.code.kernels.iter().collect();
        kernels.sort_by_key(|k| k.entry_offset);
        assert!(kernels.len() >= 2, "{arch}: the basic object has several kernels");
        let e = Interpreter::new(arch);
        let data: Vec<i32> = (0..256).collect();
        let b = Buf::from(&data);
        // The lowest entry decodes the object's code; block_reverse (a later kernel) runs from it.
        let first = kernels[0];
        let mem = GpuMemory::from_ranges(&[(p.image.va(), p.image.len as u64, p.image.va() as usize)]);
        e.unsupported(p.image.va() + first.entry_offset, &mem).expect("decodes");
        assert_eq!(e.decodes(), 1, "{arch}");
        for _ in 0..3 {
            run_on(&e, &p, "block_reverse", &[Arg::Buf(&b)], [4, 1, 1], [64, 1, 1]).expect(arch);
        }
        assert_eq!(e.decodes(), 1, "{arch}: block_reverse ran from the segment decoded for {}", first.name);
        let o: Vec<i32> = b.get(256);
        // Three reversals of each block: one reversal.
        assert_eq!(o[0], 63, "{arch}");
    }
}

#[test]
fn speed() {
    let p = basic("gfx1100");
    let n = 1 << 20;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (ba, bb, bc) = (Buf::from(&a), Buf::from(&a), Buf::new(n * 4));
    let e = Interpreter::new("gfx1100");
    let t = std::time::Instant::now();
    run_on(
        &e,
        &p,
        "vector_add",
        &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&bc), u32v(n as u32)],
        [(n / 256) as u32, 1, 1],
        [256, 1, 1],
    )
    .unwrap();
    let dt = t.elapsed().as_secs_f64();
    let c: Vec<f32> = bc.get(n);
    assert_eq!(c[n - 1], 2.0 * (n - 1) as f32);
    println!(
        "vector_add {n} items: {} wave instructions in {dt:.3}s = {:.1} M/s",
        e.instructions(),
        e.instructions() as f64 / dt / 1e6
    );

    let p = corpus_build("gfx1100", "O2");
    let m = 128usize;
    let a: Vec<f32> = (0..m * m).map(|i| (i % 7) as f32).collect();
    let (ba, bb, bc) = (Buf::from(&a), Buf::from(&a), Buf::new(m * m * 4));
    let e = Interpreter::new("gfx1100");
    let t = std::time::Instant::now();
    run_on(&e, &p, "matmul", &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&bc), u32v(m as u32)], [4, 4, 1], [16, 16, 1])
        .unwrap();
    let dt = t.elapsed().as_secs_f64();
    println!(
        "matmul {m}x{m}: {} wave instructions in {dt:.3}s = {:.1} M/s",
        e.instructions(),
        e.instructions() as f64 / dt / 1e6
    );
}

#[test]
fn cross_lane() {
    each_corpus(|p, what| corpus::cross_lane(&mut Emu(p), what));
}

/// gfx12 computes a transcendental of a uniform value on the scalar side (`v_s_*`, a VOP3 with
/// an SGPR destination): clang emits all ten forms for these builtins on gfx1201.
#[test]
fn scalar_transcendentals_gfx12() {
    let dir = clang::Scratch::new("vs");
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void uniform_math(global float *o, global half *h, float x, half y) {
    uint i = get_global_id(0);
    float r[5] = {__builtin_amdgcn_sqrtf(x), __builtin_amdgcn_rsqf(x), __builtin_amdgcn_rcpf(x),
                  __builtin_amdgcn_exp2f(x), __builtin_amdgcn_logf(x)};
    half s[5] = {__builtin_amdgcn_sqrth(y), __builtin_amdgcn_rsqh(y), __builtin_amdgcn_rcph(y),
                 __builtin_elementwise_exp2(y), __builtin_elementwise_log2(y)};
    o[i] = r[i % 5];
    h[i] = s[i % 5];
}
"#;
    let Some(path) = clang::build(&dir.0, "vs", src, "gfx1201") else { return };
    let p = load_path(&path.display().to_string(), "gfx1201");
    let e = Interpreter::new("gfx1201");
    let mem = GpuMemory::from_ranges(&[(p.image.va(), p.image.len as u64, p.image.va() as usize)]);
    let entry = p.image.va() + p.code.kernel("uniform_math").expect("kernel").entry_offset;
    let bad = e.unsupported(entry, &mem).expect("decodes");
    assert!(bad.is_empty(), "not run by the interpreter: {bad:x?}");
    let (o, h) = (Buf::new(5 * 4), Buf::new(5 * 2));
    let (x, y) = (2.5f32, 3.0f32);
    let args = [
        Arg::Buf(&o),
        Arg::Buf(&h),
        Arg::Val(ArgValue::f32(x)),
        Arg::Val(ArgValue::Bytes(baregpu_emu::rdna::fp::f32_to_f16(y).to_le_bytes().to_vec())),
    ];
    run(&p, "uniform_math", &args, [1, 1, 1], [5, 1, 1]);
    let want = [x.sqrt(), 1.0 / x.sqrt(), 1.0 / x, x.exp2(), x.log2()];
    for (i, (got, want)) in o.get::<f32>(5).iter().zip(want).enumerate() {
        assert!((got - want).abs() <= want.abs() * 1e-6, "f32 [{i}]: {got} want {want}");
    }
    let want = [y.sqrt(), 1.0 / y.sqrt(), 1.0 / y, y.exp2(), y.log2()];
    for (i, (got, want)) in h.get::<u16>(5).iter().zip(want).enumerate() {
        let got = baregpu_emu::rdna::fp::f16_to_f32(*got);
        assert!((got - want).abs() <= want.abs() * 1e-3, "f16 [{i}]: {got} want {want}");
    }
}

#[path = "cdna/asm.rs"]
mod asm;

/// VOPD's FMAs read their third operand as an f32: `v_dual_fmac_f32` accumulates into its
/// destination, `v_dual_fmaak_f32` adds its literal (both read it as a lane mask once, so fmac
/// gave `a*b` alone: clang -O2's matmul loops lost all but their last product).
#[test]
fn vopd_fmas_accumulate() {
    for arch in ["gfx1100", "gfx1201"] {
        let src = "v_mov_b32 v5, 1.0\n\
                   v_mov_b32 v7, 2.0\n\
                   v_mov_b32 v1, 0x40400000\n\
                   v_mov_b32 v8, 0\n\
                   v_dual_fmac_f32 v5, v7, v1 :: v_dual_mov_b32 v6, v8\n\
                   v_dual_fmac_f32 v5, v7, v1 :: v_dual_mov_b32 v6, v8\n\
                   v_dual_fmaak_f32 v10, v7, v1, 0x40800000 :: v_dual_mov_b32 v13, v8\n\
                   v_mov_b32 v2, 0\n\
                   global_store_b32 v2, v5, s[0:1]\n\
                   global_store_b32 v2, v10, s[0:1] offset:4\n\
                   s_endpgm\n";
        let mut buf = [0u32; 2];
        asm::run(arch, src, &mut buf, 0);
        assert_eq!(buf.map(f32::from_bits), [13.0, 10.0], "{arch}");
    }
}
