//! The CDNA wave interpreter (gfx942, gfx950: wave64) on clang-built kernels: the basic kernels
//! and the corpus (tests/kernels/corpus.cl at -O0..-O3, tests/fixtures/cdna/build.sh), each run
//! directly and through the whole driver path (emulated KFD, PM4 queue, command processor), with
//! results against host references (tests/common/corpus.rs).

use baregpu_emu::amd::dispatch::GpuMemory;
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::amd::launch;

#[path = "cdna/asm.rs"]
mod asm;
#[path = "cdna/buffer.rs"]
mod buffer;
#[path = "cdna/buffer_fmt.rs"]
mod buffer_fmt;
mod common;
#[path = "../../tests/common/corpus.rs"]
mod corpus;
#[path = "cdna/cvt.rs"]
mod cvt;
#[path = "cdna/cvt_clang.rs"]
mod cvt_clang;
#[path = "cdna/cvt_fp8.rs"]
mod cvt_fp8;
#[path = "cdna/cvt_scale.rs"]
mod cvt_scale;
#[path = "cdna/dot.rs"]
mod dot;
#[path = "cdna/ds.rs"]
mod ds;
#[path = "cdna/ds_tr.rs"]
mod ds_tr;
#[path = "cdna/gfx9_asm.rs"]
mod gfx9_asm;
#[path = "cdna/gfx9_misc.rs"]
mod gfx9_misc;
#[path = "cdna/high16.rs"]
mod high16;
#[path = "cdna/lanes.rs"]
mod lanes;
#[path = "cdna/minifloat.rs"]
mod minifloat;
#[path = "cdna/sdwa.rs"]
mod sdwa;
#[path = "cdna/segments.rs"]
mod segments;
#[path = "cdna/smem_write.rs"]
mod smem_write;
#[path = "cdna/special.rs"]
mod special;
#[path = "cdna/special_clang.rs"]
mod special_clang;
#[path = "cdna/valu16.rs"]
mod valu16;
#[path = "cdna/xcc.rs"]
mod xcc;
use common::wave::*;

const ARCHS: [&str; 2] = ["gfx942", "gfx950"];

fn basic(arch: &'static str) -> Program {
    load(&format!("hsaco/basic-{arch}.hsaco"), arch)
}

/// Every corpus build of both architectures.
fn each_corpus(f: impl Fn(&Program, &str)) {
    for arch in ARCHS {
        for opt in ["O2", "O0", "O1", "O3"] {
            let p = load(&format!("cdna/corpus-{arch}-{opt}.hsaco"), arch);
            assert!(!launch::wave32(p.code.kernel("matmul").expect("matmul")), "{arch}: CDNA runs wave64");
            f(&p, &format!("{arch} -{opt}"));
        }
    }
}

#[test]
fn corpus_decodes_fully() {
    let bad = std::sync::Mutex::new(std::collections::BTreeSet::new());
    each_corpus(|p, what| {
        let e = Interpreter::new(p.arch);
        let mem = GpuMemory::from_ranges(&[(p.image.va(), p.image.len as u64, p.image.va() as usize)]);
        for k in &p.code.kernels {
            for (_, why) in e.unsupported(p.image.va() + k.entry_offset, &mem).expect("decodes") {
                bad.lock().unwrap().insert(format!("{}: {why}", &what[..6]));
            }
        }
    });
    let bad = bad.into_inner().unwrap();
    assert!(bad.is_empty(), "not run by the interpreter: {bad:#?}");
}

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
fn reduce_atomic_histogram_collatz() {
    each_corpus(|p, what| corpus::reduce_atomic_histogram_collatz(&mut Emu(p), what));
}

#[test]
fn private_array_transpose_bytes() {
    each_corpus(|p, what| corpus::private_array_transpose_bytes(&mut Emu(p), what));
}

#[test]
fn cross_lane() {
    each_corpus(|p, what| corpus::cross_lane(&mut Emu(p), what));
}

/// Wave64 instructions per second on the clang matmul (printed; `--nocapture` to see it).
#[test]
fn speed() {
    for arch in ARCHS {
        let p = load(&format!("cdna/corpus-{arch}-O2.hsaco"), arch);
        let m = 128usize;
        let a: Vec<f32> = (0..m * m).map(|i| (i % 7) as f32).collect();
        let (ba, bb, bc) = (Buf::from(&a), Buf::from(&a), Buf::new(m * m * 4));
        let e = Interpreter::new(arch);
        let args = [Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&bc), u32v(m as u32)];
        // The first dispatch decodes the code object; the second is timed.
        run_on(&e, &p, "matmul", &args, [8, 8, 1], [16, 16, 1]).expect(arch);
        let before = e.instructions();
        let t = std::time::Instant::now();
        run_on(&e, &p, "matmul", &args, [8, 8, 1], [16, 16, 1]).expect(arch);
        let dt = t.elapsed().as_secs_f64();
        let n = e.instructions() - before;
        let c: Vec<f32> = bc.get(m * m);
        assert_eq!(c[0], (0..m).map(|k| a[k] * a[k * m]).sum::<f32>(), "{arch}");
        println!("{arch} matmul {m}x{m}: {n} wave64 instructions in {dt:.3}s = {:.1} M/s", n as f64 / dt / 1e6);
    }
}

/// A store outside every allocation is a memory fault naming the VA, as on RDNA.
#[test]
fn out_of_bounds_store_faults() {
    use baregpu_emu::amd::dispatch::DispatchFault;
    each_corpus(|p, what| {
        let buf = Buf::new(64);
        let e = Interpreter::new(p.arch);
        run_on(&e, p, "oob_store", &[Arg::Buf(&buf), u32v(3)], [1, 1, 1], [1, 1, 1]).expect(what);
        assert_eq!(buf.get::<i32>(4)[3], 42, "{what}");
        let index = 0x3fff_ffffu32;
        match run_on(&e, p, "oob_store", &[Arg::Buf(&buf), u32v(index)], [1, 1, 1], [1, 1, 1]) {
            Err(DispatchFault::Memory { va, write, pc }) => {
                assert_eq!((va, write), (buf.va() + index as u64 * 4, true), "{what}");
                assert!(pc >= p.image.va() && pc < p.image.va() + p.image.len as u64, "{what}: pc {pc:#x}");
            }
            other => panic!("{what}: {other:?}"),
        }
    });
}
