//! The RDNA wave interpreter on clang-built kernels: the code object loaded as the runtime loads
//! it (relocated image, kernargs, user SGPRs, RSRC2), host memory as GPU memory (VA == host
//! address), results against host references. Every kernel also runs through the whole driver
//! path — the runtime's KFD device on the emulated KFD, its command processor, this interpreter —
//! from the same inputs, and must leave every buffer byte-identical to the direct run.

use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::amd::launch;
use baregpu_runtime::program::{kernargs, ArgValue, CodeObject, Launch};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");

/// A host allocation the GPU may touch, 256-byte aligned.
struct Buf {
    mem: Vec<u64>,
    off: usize,
    len: usize,
}

impl Buf {
    fn new(len: usize) -> Buf {
        let mem = vec![0u64; (len + 512) / 8 + 1];
        let off = (256 - (mem.as_ptr() as usize % 256)) % 256;
        Buf { mem, off, len }
    }
    fn from<T: Copy>(data: &[T]) -> Buf {
        let n = std::mem::size_of_val(data);
        let mut b = Buf::new(n.max(4));
        // SAFETY: n bytes fit at `off` (the buffer has 512 spare bytes).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr() as *const u8, b.ptr(), n) };
        b
    }
    fn ptr(&mut self) -> *mut u8 {
        // SAFETY: off < 256 < allocation size.
        unsafe { (self.mem.as_mut_ptr() as *mut u8).add(self.off) }
    }
    fn va(&self) -> u64 {
        self.mem.as_ptr() as u64 + self.off as u64
    }
    fn get<T: Copy + Default>(&self, n: usize) -> Vec<T> {
        let mut v = vec![T::default(); n];
        // SAFETY: reads n * size_of::<T>() bytes inside the allocation (checked by the caller's sizes).
        assert!(n * std::mem::size_of::<T>() <= self.len);
        unsafe {
            std::ptr::copy_nonoverlapping(
                (self.mem.as_ptr() as *const u8).add(self.off),
                v.as_mut_ptr() as *mut u8,
                n * std::mem::size_of::<T>(),
            )
        };
        v
    }
}

enum Arg<'a> {
    Buf(&'a Buf),
    Val(ArgValue),
}

struct Program {
    code: CodeObject,
    image: Buf,
    arch: &'static str,
}

fn load(file: &str, arch: &'static str) -> Program {
    let data = std::fs::read(format!("{FIXTURES}/{file}")).unwrap_or_else(|e| panic!("{file}: {e}"));
    let code = CodeObject::parse(&data).expect("code object");
    let mut image = Buf::new(code.image.len());
    let img = code.relocated(image.va());
    // SAFETY: the buffer holds the image.
    unsafe { std::ptr::copy_nonoverlapping(img.as_ptr(), image.ptr(), img.len()) };
    Program { code, image, arch }
}

/// Runs `kernel` on `engine`; returns the dispatch result.
fn run_on(
    engine: &Interpreter,
    p: &Program,
    kernel: &str,
    args: &[Arg],
    grid: [u32; 3],
    block: [u32; 3],
) -> Result<(), DispatchFault> {
    let k = p.code.kernel(kernel).expect("kernel");
    let shape = Launch::new(grid, block);
    let vals: Vec<ArgValue> = args
        .iter()
        .map(|a| match a {
            Arg::Buf(b) => ArgValue::Pointer(b.va()),
            Arg::Val(v) => v.clone(),
        })
        .collect();
    let ka = kernargs::build(&k.meta, &vals, &shape).expect("kernargs");
    let mut kbuf = Buf::from(&ka);
    let kva = kbuf.va();
    let _ = kbuf.ptr();
    let ptrs = launch::Pointers { kernargs: kva, dispatch_packet: 0, queue: 0, dispatch_id: 1 };
    let user = launch::user_sgprs(k, &ptrs).expect("user sgprs");
    let rsrc2 = launch::rsrc2(k, &shape, 65536).expect("rsrc2");
    let mut user_data = [0u32; 16];
    user_data[..user.len()].copy_from_slice(&user);
    // Scratch as the runtime sizes it: per wave, 64 lanes, 256-byte units; 64 wave slots.
    let per_lane = k.descriptor.private_segment_fixed_size as u64;
    let per_wave = (per_lane * 64).div_ceil(256) * 256;
    let scratch = Buf::new((per_wave * 64).max(256) as usize);
    let tmpring = if per_lane == 0 { 0 } else { 64 | (((per_wave / 256) as u32) << 12) };
    let d = DispatchState {
        arch: p.arch,
        pgm: p.image.va() + k.entry_offset,
        rsrc1: k.descriptor.compute_pgm_rsrc1,
        rsrc2,
        rsrc3: k.descriptor.compute_pgm_rsrc3,
        user_data,
        grid,
        block,
        start: [0; 3],
        wave32: launch::wave32(k),
        tmpring_size: tmpring,
        scratch_base: scratch.va(),
        lds_bytes: ((rsrc2 >> 15) & 0x1ff) * 512,
        cancel: Default::default(),
    };
    let mut ranges = vec![
        (p.image.va(), p.image.len as u64, p.image.va() as usize),
        (kva, kbuf.len as u64, kva as usize),
        (scratch.va(), scratch.len as u64, scratch.va() as usize),
    ];
    for a in args {
        if let Arg::Buf(b) = a {
            ranges.push((b.va(), b.len as u64, b.va() as usize));
        }
    }
    let mem = GpuMemory::from_ranges(&ranges);
    engine.dispatch(&d, &mem)
}

fn run(p: &Program, kernel: &str, args: &[Arg], grid: [u32; 3], block: [u32; 3]) {
    let through_driver = run_through_driver(p, kernel, args, grid, block);
    let e = Interpreter::new(p.arch);
    run_on(&e, p, kernel, args, grid, block).unwrap_or_else(|f| panic!("{}: {kernel}: {f}", p.arch));
    // Float atomics sum in whatever order the workgroups run: those results may differ in the last bits.
    if ORDER_DEPENDENT.contains(&kernel) {
        return;
    }
    let mut bufs = args.iter().filter_map(|a| if let Arg::Buf(b) = a { Some(*b) } else { None });
    for (i, got) in through_driver.iter().enumerate() {
        let b = bufs.next().expect("as many buffers");
        assert!(
            b.get::<u8>(b.len) == *got,
            "{} {kernel}: buffer {i} differs between the driver path and a direct run",
            p.arch
        );
    }
}

/// Kernels whose results depend on the order workgroups finish in.
const ORDER_DEPENDENT: &[&str] = &["atomics"];

/// The same launch through the runtime on an emulated GPU of the program's arch; returns every
/// buffer argument's bytes afterwards.
fn run_through_driver(p: &Program, kernel: &str, args: &[Arg], grid: [u32; 3], block: [u32; 3]) -> Vec<Vec<u8>> {
    use baregpu_runtime::amd::AmdDevice;
    use std::sync::Arc;
    thread_local! {
        static DEVICES: std::cell::RefCell<Vec<(&'static str, AmdDevice)>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    DEVICES.with(|devs| {
        let mut devs = devs.borrow_mut();
        if !devs.iter().any(|(a, _)| *a == p.arch) {
            let kfd = baregpu_emu::amd::machine(&[p.arch], Arc::new(Interpreter::new(p.arch))).expect("machine");
            let dev = AmdDevice::open(kfd, 0, &format!("emu:{}", p.arch)).expect("device");
            devs.push((p.arch, dev));
        }
        let dev = &devs.iter().find(|(a, _)| *a == p.arch).expect("just opened").1;
        let prog = dev.load(p.code.clone()).expect("load");
        let mut bufs = Vec::new();
        let vals: Vec<ArgValue> = args
            .iter()
            .map(|a| match a {
                Arg::Buf(b) => {
                    let d = dev.alloc(b.len as u64).expect("alloc");
                    dev.write(&d, 0, &b.get::<u8>(b.len)).expect("write");
                    let v = ArgValue::Pointer(d.va());
                    bufs.push(d);
                    v
                }
                Arg::Val(v) => v.clone(),
            })
            .collect();
        let s = dev.launch(&prog, kernel, &vals, &Launch::new(grid, block), false).expect("launch");
        dev.synchronize().unwrap_or_else(|e| panic!("{} {kernel} through the driver: {e}", p.arch));
        dev.release(s);
        let lens = args.iter().filter_map(|a| if let Arg::Buf(b) = a { Some(b.len) } else { None });
        let out = bufs
            .into_iter()
            .zip(lens)
            .map(|(d, len)| {
                let mut v = vec![0u8; len];
                dev.read(&d, 0, &mut v).expect("read");
                dev.free(d).expect("free");
                v
            })
            .collect();
        dev.unload(prog).expect("unload");
        out
    })
}

fn u32v(x: u32) -> Arg<'static> {
    Arg::Val(ArgValue::u32(x))
}

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

fn corpus(arch: &'static str, opt: &str) -> Program {
    load(&format!("rdna/corpus-{arch}-{opt}.hsaco"), arch)
}

/// Every corpus build: both architectures at -O2 and -O0, and gfx1100 in wave64.
fn each_corpus(f: impl Fn(&Program, &str)) {
    for arch in ARCHS {
        for opt in ["O2", "O0", "O1", "O3"] {
            let p = corpus(arch, opt);
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
    use baregpu_emu::rdna::fp::{f16_to_f32, f32_to_f16, f64_to_f16};
    each_corpus(|p, what| {
        let n = 64usize;
        let a: Vec<u16> = (0..2 * n).map(|i| f32_to_f16(i as f32 * 0.37 - 11.0)).collect();
        let b: Vec<u16> = (0..2 * n).map(|i| f32_to_f16(5.0 - i as f32 * 0.11)).collect();
        let (ba, bb, bo) = (Buf::from(&a), Buf::from(&b), Buf::new(n * 3 * 4));
        run(p, "half2_ops", &[Arg::Buf(&bo), Arg::Buf(&ba), Arg::Buf(&bb)], [2, 1, 1], [32, 1, 1]);
        let o: Vec<u16> = bo.get(n * 6);
        for i in 0..n {
            for h in 0..2 {
                let (x, y) = (f16_to_f32(a[2 * i + h]), f16_to_f32(b[2 * i + h]));
                let xy = f16_to_f32(f32_to_f16(x * y));
                let want = [f32_to_f16(x + y), f32_to_f16(x * y)];
                assert_eq!(o[6 * i + h], want[0], "{what} half2 add [{i}].{h}");
                assert_eq!(o[6 * i + 2 + h], want[1], "{what} half2 mul [{i}].{h}");
                // x * y + x: fused (v_pk_fma_f16) or not, depending on the build.
                let fused = f64_to_f16((x as f64).mul_add(y as f64, x as f64));
                let split = f32_to_f16(xy + x);
                let got = o[6 * i + 4 + h];
                assert!(got == fused || got == split, "{what} half2 fma [{i}].{h}: {got:#x} vs {fused:#x}/{split:#x}");
            }
        }
    });
}

#[test]
fn atomics() {
    each_corpus(|p, what| {
        let m = 256usize;
        let input: Vec<i32> = (0..m as i32).map(|i| (i * 7919) % 1000 - 300).collect();
        let counters = Buf::from(&[0i32, i32::MAX, 0, 0, 12345]);
        let (fsum, cas, bi) = (Buf::new(4), Buf::new(4), Buf::from(&input));
        run(
            p,
            "atomics",
            &[Arg::Buf(&counters), Arg::Buf(&fsum), Arg::Buf(&cas), Arg::Buf(&bi)],
            [4, 1, 1],
            [64, 1, 1],
        );
        let c: Vec<i32> = counters.get(5);
        assert_eq!(c[0], -input.iter().sum::<i32>(), "{what} atomic sub");
        assert_eq!(c[1], *input.iter().min().unwrap(), "{what} atomic min");
        assert_eq!(c[2], input.iter().fold(0, |acc, v| acc | (1i32 << (v & 31))), "{what} atomic or");
        assert_eq!(c[3], input.iter().fold(0, |acc, v| acc ^ v), "{what} atomic xor");
        assert!(input.contains(&c[4]), "{what} atomic exchange left {}", c[4]);
        assert_eq!(fsum.get::<f32>(1)[0], input.iter().map(|v| (v & 15) as f32).sum::<f32>(), "{what} atomic fadd");
        assert_eq!(cas.get::<u32>(1)[0], m as u32, "{what} cmpxchg loop");
    });
}

#[test]
fn scan_lds() {
    each_corpus(|p, what| {
        let m = 256usize;
        let input: Vec<i32> = (0..m as i32).map(|i| (i * 7919) % 1000 - 300).collect();
        let (bin, bout) = (Buf::from(&input), Buf::new(m * 4));
        run(p, "scan_lds", &[Arg::Buf(&bin), Arg::Buf(&bout)], [2, 1, 1], [128, 1, 1]);
        let o: Vec<i32> = bout.get(m);
        for g in 0..2 {
            let mut acc = 0;
            for l in 0..128 {
                acc += input[g * 128 + l];
                assert_eq!(o[g * 128 + l], acc, "{what} scan [{g}][{l}]");
            }
        }
    });
}

fn lcg(seed: &mut u64) -> u32 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 33) as u32
}

fn host_matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0f32; n * n];
    for r in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc = a[r * n + k].mul_add(b[k * n + col], acc);
            }
            c[r * n + col] = acc;
        }
    }
    c
}

#[test]
fn matmul() {
    each_corpus(|p, what| {
        let n = 24usize;
        let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
        let want = host_matmul(&a, &b, n);
        for kernel in ["matmul", "matmul_tiled"] {
            let (ba, bb, bc) = (Buf::from(&a), Buf::from(&b), Buf::new(n * n * 4));
            run(p, kernel, &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&bc), u32v(n as u32)], [3, 3, 1], [8, 8, 1]);
            let c: Vec<f32> = bc.get(n * n);
            for i in 0..n * n {
                // Sums of small integers and halves: exact in any order.
                assert_eq!(c[i], want[i], "{what} {kernel} c[{i}]");
            }
        }
    });
}

#[test]
fn int_ops() {
    each_corpus(|p, what| {
        let n = 64usize;
        let mut seed = 1u64;
        let mut a: Vec<i32> = (0..n).map(|_| lcg(&mut seed) as i32).collect();
        let mut b: Vec<i32> = (0..n).map(|_| lcg(&mut seed) as i32 >> (lcg(&mut seed) % 31)).collect();
        a[0] = i32::MIN;
        b[0] = -1;
        b[1] = 0;
        a[2] = 7;
        b[2] = -2;
        let (ba, bb, bo) = (Buf::from(&a), Buf::from(&b), Buf::new(n * 16 * 4));
        run(p, "int_ops", &[Arg::Buf(&bo), Arg::Buf(&ba), Arg::Buf(&bb)], [2, 1, 1], [32, 1, 1]);
        let o: Vec<i32> = bo.get(n * 16);
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let sh = (y & 31) as u32;
            let want = [
                x.wrapping_add(y),
                x.wrapping_sub(y),
                x.wrapping_mul(y),
                if y != 0 { x.wrapping_div(y) } else { 0 },
                if y != 0 { x.wrapping_rem(y) } else { 0 },
                if y != 0 { ((x as u32) / (y as u32)) as i32 } else { 0 },
                if y != 0 { ((x as u32) % (y as u32)) as i32 } else { 0 },
                x.wrapping_shl(sh),
                x >> sh,
                ((x as u32) >> sh) as i32,
                x.min(y) ^ x.max(y),
                x.count_ones() as i32 + if y != 0 { y.leading_zeros() as i32 } else { 32 } * 64,
                ((x as i64 * y as i64) >> 32) as i32,
                ((x as u32 as u64 * y as u32 as u64) >> 32) as i32,
                x.wrapping_abs() & !y,
                (x as u32).rotate_left(sh) as i32,
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(o[i * 16 + k], *w, "{what} lane {i} op {k} x={x} y={y}");
            }
        }
    });
}

#[test]
fn long_ops() {
    each_corpus(|p, what| {
        let n = 40usize;
        let mut seed = 7u64;
        let r64 = |s: &mut u64| ((lcg(s) as u64) << 32 | lcg(s) as u64) as i64;
        let a: Vec<i64> = (0..n).map(|_| r64(&mut seed)).collect();
        let mut b: Vec<i64> = (0..n).map(|_| r64(&mut seed) >> (lcg(&mut seed) % 63)).collect();
        b[3] = 0;
        b[4] = -1;
        let (ba, bb, bo) = (Buf::from(&a), Buf::from(&b), Buf::new(n * 10 * 8));
        run(p, "long_ops", &[Arg::Buf(&bo), Arg::Buf(&ba), Arg::Buf(&bb)], [2, 1, 1], [20, 1, 1]);
        let o: Vec<i64> = bo.get(n * 10);
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let sh = (y & 63) as u32;
            let want = [
                x.wrapping_add(y),
                x.wrapping_sub(y),
                x.wrapping_mul(y),
                if y != 0 { x.wrapping_div(y) } else { 0 },
                if y != 0 { x.wrapping_rem(y) } else { 0 },
                if y != 0 { ((x as u64) / (y as u64)) as i64 } else { 0 },
                x.wrapping_shl(sh),
                x >> sh,
                ((x as u64) >> sh) as i64,
                x.min(y) ^ x.count_ones() as i64 ^ if y != 0 { y.leading_zeros() as i64 } else { 64 },
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(o[i * 10 + k], *w, "{what} lane {i} op {k} x={x} y={y}");
            }
        }
    });
}

fn fl_inputs() -> (Vec<f32>, Vec<f32>) {
    let mut seed = 3u64;
    let mut a: Vec<f32> = (0..64).map(|_| (lcg(&mut seed) as f32 / 1e7) - 200.0).collect();
    let mut b: Vec<f32> = (0..64).map(|_| (lcg(&mut seed) as f32 / 3e6) - 700.0).collect();
    a[0] = 1.0;
    b[0] = 3.0;
    a[1] = 1e-30;
    b[1] = 1e30;
    a[2] = -0.0;
    b[2] = 2.5;
    a[3] = 5.5;
    b[3] = -2.5;
    (a, b)
}

#[test]
fn float_ops() {
    each_corpus(|p, what| {
        let (a, b) = fl_inputs();
        let n = a.len();
        let (ba, bb, bo) = (Buf::from(&a), Buf::from(&b), Buf::new(n * 12 * 4));
        run(p, "float_ops", &[Arg::Buf(&bo), Arg::Buf(&ba), Arg::Buf(&bb)], [1, 1, 1], [64, 1, 1]);
        let o: Vec<f32> = bo.get(n * 12);
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x + y,
                x - y,
                x * y,
                x / y,
                x.mul_add(y, 1.5),
                x.min(y),
                x.max(y),
                x.abs().sqrt(),
                x.floor() + y.ceil(),
                (x as i32) as f32 + (y.abs() as u32) as f32,
                if x < y { x } else { -y },
                x.trunc() * y.round_ties_even(),
            ];
            for (k, w) in want.iter().enumerate() {
                // Out-of-range float -> int conversions are undefined in C.
                if k == 9 && (x.abs() >= 2.1e9 || y.abs() >= 4.2e9) {
                    continue;
                }
                // OpenCL allows 2.5 ULP for division and 3 for sqrt: clang's expansions rest on
                // v_rcp_f32/v_sqrt_f32, whose last bit the emulator need not match.
                let ulps = if k == 3 || k == 7 { 3 } else { 0 };
                let diff = (o[i * 12 + k].to_bits() as i64 - w.to_bits() as i64).abs();
                assert!(diff <= ulps, "{what} lane {i} op {k} x={x} y={y}: {} vs {w}", o[i * 12 + k]);
            }
        }
    });
}

#[test]
fn double_ops() {
    each_corpus(|p, what| {
        let (a32, b32) = fl_inputs();
        let a: Vec<f64> = a32.iter().map(|&x| x as f64 * 1.000001).collect();
        let b: Vec<f64> = b32.iter().map(|&x| x as f64 * 0.999999).collect();
        let n = a.len();
        let (ba, bb, bo) = (Buf::from(&a), Buf::from(&b), Buf::new(n * 10 * 8));
        run(p, "double_ops", &[Arg::Buf(&bo), Arg::Buf(&ba), Arg::Buf(&bb)], [2, 1, 1], [32, 1, 1]);
        let o: Vec<f64> = bo.get(n * 10);
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let want = [
                x + y,
                x - y,
                x * y,
                x / y,
                x.mul_add(y, 0.25),
                x.min(y),
                x.abs().sqrt(),
                (x as i64) as f64 + (y as i32) as f64,
                if x < y { (x as f32) as f64 } else { y.floor() },
                ((x as f32) * (y as f32)) as f64,
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(
                    o[i * 10 + k].to_bits(),
                    w.to_bits(),
                    "{what} lane {i} op {k} x={x} y={y}: {} vs {w}",
                    o[i * 10 + k]
                );
            }
        }
    });
}

#[test]
fn half_ops() {
    use baregpu_emu::rdna::fp::{f16_to_f32, f32_to_f16, f64_to_f16};
    each_corpus(|p, what| {
        let (a32, b32) = fl_inputs();
        let a: Vec<u16> = a32.iter().map(|&x| f32_to_f16(x / 8.0)).collect();
        let b: Vec<u16> = b32.iter().map(|&x| f32_to_f16(x / 16.0 + 0.3)).collect();
        let n = a.len();
        let (ba, bb, bo) = (Buf::from(&a), Buf::from(&b), Buf::new(n * 6 * 2));
        run(p, "half_ops", &[Arg::Buf(&bo), Arg::Buf(&ba), Arg::Buf(&bb)], [2, 1, 1], [32, 1, 1]);
        let o: Vec<u16> = bo.get(n * 6);
        for i in 0..n {
            let (x, y) = (f16_to_f32(a[i]), f16_to_f32(b[i]));
            let want = [
                f32_to_f16(x + y),
                f32_to_f16(x * y),
                f32_to_f16(x - y),
                f64_to_f16((x as f64).mul_add(y as f64, 0.5)),
                if x < y { a[i] } else { b[i] },
                f32_to_f16(x / y),
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(o[i * 6 + k], *w, "{what} lane {i} op {k} x={x} y={y}");
            }
        }
    });
}

#[test]
fn reduce_atomic_histogram_collatz() {
    each_corpus(|p, what| {
        let n = 512usize;
        let mut seed = 11u64;
        let input: Vec<i32> = (0..n).map(|_| (lcg(&mut seed) % 100_000) as i32).collect();
        let (bi, sum, maxv) = (Buf::from(&input), Buf::new(4), Buf::new(4));
        run(p, "reduce_atomic", &[Arg::Buf(&bi), Arg::Buf(&sum), Arg::Buf(&maxv)], [8, 1, 1], [64, 1, 1]);
        assert_eq!(sum.get::<i32>(1)[0], input.iter().sum::<i32>(), "{what} sum");
        assert_eq!(maxv.get::<u32>(1)[0], *input.iter().max().unwrap() as u32, "{what} max");

        let u: Vec<u32> = input.iter().map(|&x| x as u32).collect();
        let (bu, bins) = (Buf::from(&u), Buf::new(16 * 4));
        run(p, "histogram", &[Arg::Buf(&bu), Arg::Buf(&bins), u32v(16)], [8, 1, 1], [64, 1, 1]);
        let mut want = [0u32; 16];
        for &x in &u {
            want[(x % 16) as usize] += 1;
        }
        assert_eq!(bins.get::<u32>(16), want.to_vec(), "{what} histogram");

        let start: Vec<u32> = (1..=200).collect();
        let (bs, steps) = (Buf::from(&start), Buf::new(200 * 4));
        run(p, "collatz", &[Arg::Buf(&bs), Arg::Buf(&steps)], [4, 1, 1], [50, 1, 1]);
        let got: Vec<u32> = steps.get(200);
        for (i, &s) in start.iter().enumerate() {
            let (mut x, mut k) = (s, 0);
            while x > 1 {
                x = if x & 1 != 0 { 3 * x + 1 } else { x / 2 };
                k += 1;
            }
            assert_eq!(got[i], k, "{what} collatz({s})");
        }
    });
}

#[test]
fn private_array_transpose_bytes() {
    each_corpus(|p, what| {
        let n = 96usize;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 37 - 1000).collect();
        let (bi, bo) = (Buf::from(&input), Buf::new(n * 4));
        run(p, "private_array", &[Arg::Buf(&bi), Arg::Buf(&bo), u32v(5)], [3, 1, 1], [32, 1, 1]);
        let o: Vec<i32> = bo.get(n);
        for i in 0..n {
            let buf: Vec<i32> = (0..32).map(|j| input[i].wrapping_mul(j) + 5).collect();
            let idx = ((input[i] + 5) & 31) as usize;
            assert_eq!(o[i], buf[idx] + buf[(idx * 7) & 31], "{what} private_array[{i}]");
        }

        let (w, h) = (37usize, 21usize);
        let m: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        let (bm, bt) = (Buf::from(&m), Buf::new(w * h * 4));
        run(p, "transpose2d", &[Arg::Buf(&bm), Arg::Buf(&bt), u32v(w as u32), u32v(h as u32)], [5, 3, 1], [8, 8, 1]);
        let t: Vec<f32> = bt.get(w * h);
        for y in 0..h {
            for x in 0..w {
                assert_eq!(t[x * h + y], m[y * w + x], "{what} transpose ({x},{y})");
            }
        }

        let a: Vec<u8> = (0..64).map(|i| (i * 9 + 200) as u8).collect();
        let b: Vec<i16> = (0..64).map(|i| (i * 1234 - 30000) as i16).collect();
        let (ba, bb, bo, bob, bos) = (Buf::from(&a), Buf::from(&b), Buf::new(256), Buf::new(64), Buf::new(128));
        run(
            p,
            "bytes_shorts",
            &[Arg::Buf(&ba), Arg::Buf(&bb), Arg::Buf(&bo), Arg::Buf(&bob), Arg::Buf(&bos)],
            [2, 1, 1],
            [32, 1, 1],
        );
        let (o, ob, os): (Vec<i32>, Vec<u8>, Vec<i16>) = (bo.get(64), bob.get(64), bos.get(64));
        for i in 0..64 {
            assert_eq!(o[i], a[i] as i32 * b[i] as i32 + a[i] as i8 as i32, "{what} bytes_shorts out[{i}]");
            assert_eq!(ob[i], a[i].wrapping_add(3), "{what} ob[{i}]");
            assert_eq!(os[i], b[i].wrapping_mul(3).wrapping_sub(a[i] as i16), "{what} os[{i}]");
        }
    });
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

    let p = corpus("gfx1100", "O2");
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
    each_corpus(|p, what| {
        let n = 128usize;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 3 + 100).collect();
        let (bi, bo) = (Buf::from(&input), Buf::new(n * 16));
        run(p, "cross_lane", &[Arg::Buf(&bi), Arg::Buf(&bo)], [2, 1, 1], [64, 1, 1]);
        let o: Vec<i32> = bo.get(n * 4);
        let w = if launch::wave32(p.code.kernel("cross_lane").unwrap()) { 32 } else { 64 };
        for i in 0..n {
            let want = [
                if i % 16 == 0 { -1 } else { input[i - 1] },
                input[(i & !3) + 3 - (i & 3)],
                input[i ^ 1],
                input[i - i % w],
            ];
            for (k, x) in want.iter().enumerate() {
                assert_eq!(o[4 * i + k], *x, "{what} lane {i} op {k}");
            }
        }
    });
}
