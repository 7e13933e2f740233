//! The clang corpus (tests/kernels/corpus.cl) as checks any GPU can run: inputs, launch shapes
//! and host references, shared by the RDNA interpreter's tests (emu/tests/rdna.rs) and the PTX
//! interpreter's (tests/nv_corpus.rs), so both targets are held to the same answers.
//!
//! A [`Gpu`] runs one kernel with buffers made from the given bytes and hands every buffer back.
#![allow(dead_code)] // each includer uses its own subset of the helpers

use baregpu_emu::rdna::fp::{f16_to_f32, f32_to_f16, f64_to_f16};
use baregpu_runtime::program::ArgValue;

/// A kernel argument: a buffer holding these bytes, or a by-value argument.
pub enum Arg {
    Buf(Vec<u8>),
    Val(ArgValue),
}

pub trait Gpu {
    /// Runs `kernel`; returns the bytes of every `Arg::Buf` afterwards, in argument order.
    fn run(&mut self, kernel: &str, args: &[Arg], grid: [u32; 3], block: [u32; 3]) -> Vec<Vec<u8>>;
    /// Lanes per wave (warp) that `kernel` runs with.
    fn wave_size(&self, kernel: &str) -> usize;
}

pub fn buf<T: Copy>(data: &[T]) -> Arg {
    // SAFETY: plain numbers viewed as bytes.
    let raw = unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) };
    Arg::Buf(raw.to_vec())
}

/// A zeroed buffer of `bytes`.
pub fn zeros(bytes: usize) -> Arg {
    Arg::Buf(vec![0; bytes])
}

pub fn u32v(x: u32) -> Arg {
    Arg::Val(ArgValue::u32(x))
}

/// The first `n` values of type T in `bytes`.
pub fn get<T: Copy + Default>(bytes: &[u8], n: usize) -> Vec<T> {
    assert!(n * std::mem::size_of::<T>() <= bytes.len(), "reading {n} values past the buffer");
    let mut v = vec![T::default(); n];
    // SAFETY: n values fit in `bytes` (checked above) and are plain numbers.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>()) };
    v
}

pub fn lcg(seed: &mut u64) -> u32 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*seed >> 33) as u32
}

pub fn host_matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
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

pub fn fl_inputs() -> (Vec<f32>, Vec<f32>) {
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

pub fn half2_ops(gpu: &mut impl Gpu, what: &str) {
    let n = 64usize;
    let a: Vec<u16> = (0..2 * n).map(|i| f32_to_f16(i as f32 * 0.37 - 11.0)).collect();
    let b: Vec<u16> = (0..2 * n).map(|i| f32_to_f16(5.0 - i as f32 * 0.11)).collect();
    let out = gpu.run("half2_ops", &[zeros(n * 3 * 4), buf(&a), buf(&b)], [2, 1, 1], [32, 1, 1]);
    let o: Vec<u16> = get(&out[0], n * 6);
    for i in 0..n {
        for h in 0..2 {
            let (x, y) = (f16_to_f32(a[2 * i + h]), f16_to_f32(b[2 * i + h]));
            let xy = f16_to_f32(f32_to_f16(x * y));
            let want = [f32_to_f16(x + y), f32_to_f16(x * y)];
            assert_eq!(o[6 * i + h], want[0], "{what} half2 add [{i}].{h}");
            assert_eq!(o[6 * i + 2 + h], want[1], "{what} half2 mul [{i}].{h}");
            // x * y + x: fused (v_pk_fma_f16, fma.rn.f16x2) or not, depending on the build.
            let fused = f64_to_f16((x as f64).mul_add(y as f64, x as f64));
            let split = f32_to_f16(xy + x);
            let got = o[6 * i + 4 + h];
            assert!(got == fused || got == split, "{what} half2 fma [{i}].{h}: {got:#x} vs {fused:#x}/{split:#x}");
        }
    }
}

pub fn atomics(gpu: &mut impl Gpu, what: &str) {
    let m = 256usize;
    let input: Vec<i32> = (0..m as i32).map(|i| (i * 7919) % 1000 - 300).collect();
    let args = [buf(&[0i32, i32::MAX, 0, 0, 12345]), zeros(4), zeros(4), buf(&input)];
    let out = gpu.run("atomics", &args, [4, 1, 1], [64, 1, 1]);
    let c: Vec<i32> = get(&out[0], 5);
    assert_eq!(c[0], -input.iter().sum::<i32>(), "{what} atomic sub");
    assert_eq!(c[1], *input.iter().min().unwrap(), "{what} atomic min");
    assert_eq!(c[2], input.iter().fold(0, |acc, v| acc | (1i32 << (v & 31))), "{what} atomic or");
    assert_eq!(c[3], input.iter().fold(0, |acc, v| acc ^ v), "{what} atomic xor");
    assert!(input.contains(&c[4]), "{what} atomic exchange left {}", c[4]);
    // Small integers: the float sum is exact in any order.
    let fsum = input.iter().map(|v| (v & 15) as f32).sum::<f32>();
    assert_eq!(get::<f32>(&out[1], 1)[0], fsum, "{what} atomic fadd");
    assert_eq!(get::<u32>(&out[2], 1)[0], m as u32, "{what} cmpxchg loop");
}

pub fn scan_lds(gpu: &mut impl Gpu, what: &str) {
    let m = 256usize;
    let input: Vec<i32> = (0..m as i32).map(|i| (i * 7919) % 1000 - 300).collect();
    let out = gpu.run("scan_lds", &[buf(&input), zeros(m * 4)], [2, 1, 1], [128, 1, 1]);
    let o: Vec<i32> = get(&out[1], m);
    for g in 0..2 {
        let mut acc = 0;
        for l in 0..128 {
            acc += input[g * 128 + l];
            assert_eq!(o[g * 128 + l], acc, "{what} scan [{g}][{l}]");
        }
    }
}

pub fn matmul(gpu: &mut impl Gpu, what: &str) {
    let n = 24usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
    let want = host_matmul(&a, &b, n);
    for kernel in ["matmul", "matmul_tiled"] {
        let args = [buf(&a), buf(&b), zeros(n * n * 4), u32v(n as u32)];
        let out = gpu.run(kernel, &args, [3, 3, 1], [8, 8, 1]);
        let c: Vec<f32> = get(&out[2], n * n);
        for i in 0..n * n {
            // Sums of small integers and halves: exact in any order.
            assert_eq!(c[i], want[i], "{what} {kernel} c[{i}]");
        }
    }
}

pub fn int_ops(gpu: &mut impl Gpu, what: &str) {
    let n = 64usize;
    let mut seed = 1u64;
    let mut a: Vec<i32> = (0..n).map(|_| lcg(&mut seed) as i32).collect();
    let mut b: Vec<i32> = (0..n).map(|_| lcg(&mut seed) as i32 >> (lcg(&mut seed) % 31)).collect();
    a[0] = i32::MIN;
    b[0] = -1;
    b[1] = 0;
    a[2] = 7;
    b[2] = -2;
    let out = gpu.run("int_ops", &[zeros(n * 16 * 4), buf(&a), buf(&b)], [2, 1, 1], [32, 1, 1]);
    let o: Vec<i32> = get(&out[0], n * 16);
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
}

pub fn long_ops(gpu: &mut impl Gpu, what: &str) {
    let n = 40usize;
    let mut seed = 7u64;
    let r64 = |s: &mut u64| ((lcg(s) as u64) << 32 | lcg(s) as u64) as i64;
    let a: Vec<i64> = (0..n).map(|_| r64(&mut seed)).collect();
    let mut b: Vec<i64> = (0..n).map(|_| r64(&mut seed) >> (lcg(&mut seed) % 63)).collect();
    b[3] = 0;
    b[4] = -1;
    let out = gpu.run("long_ops", &[zeros(n * 10 * 8), buf(&a), buf(&b)], [2, 1, 1], [20, 1, 1]);
    let o: Vec<i64> = get(&out[0], n * 10);
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
}

pub fn float_ops(gpu: &mut impl Gpu, what: &str) {
    let (a, b) = fl_inputs();
    let n = a.len();
    let out = gpu.run("float_ops", &[zeros(n * 12 * 4), buf(&a), buf(&b)], [1, 1, 1], [64, 1, 1]);
    let o: Vec<f32> = get(&out[0], n * 12);
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
            // approximate reciprocals and square roots, whose last bit the emulators need not match.
            let ulps = if k == 3 || k == 7 { 3 } else { 0 };
            let diff = (o[i * 12 + k].to_bits() as i64 - w.to_bits() as i64).abs();
            assert!(diff <= ulps, "{what} lane {i} op {k} x={x} y={y}: {} vs {w}", o[i * 12 + k]);
        }
    }
}

pub fn double_ops(gpu: &mut impl Gpu, what: &str) {
    let (a32, b32) = fl_inputs();
    let a: Vec<f64> = a32.iter().map(|&x| x as f64 * 1.000001).collect();
    let b: Vec<f64> = b32.iter().map(|&x| x as f64 * 0.999999).collect();
    let n = a.len();
    let out = gpu.run("double_ops", &[zeros(n * 10 * 8), buf(&a), buf(&b)], [2, 1, 1], [32, 1, 1]);
    let o: Vec<f64> = get(&out[0], n * 10);
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
            let got = o[i * 10 + k];
            assert_eq!(got.to_bits(), w.to_bits(), "{what} lane {i} op {k} x={x} y={y}: {got} vs {w}");
        }
    }
}

pub fn half_ops(gpu: &mut impl Gpu, what: &str) {
    let (a32, b32) = fl_inputs();
    let a: Vec<u16> = a32.iter().map(|&x| f32_to_f16(x / 8.0)).collect();
    let b: Vec<u16> = b32.iter().map(|&x| f32_to_f16(x / 16.0 + 0.3)).collect();
    let n = a.len();
    let out = gpu.run("half_ops", &[zeros(n * 6 * 2), buf(&a), buf(&b)], [2, 1, 1], [32, 1, 1]);
    let o: Vec<u16> = get(&out[0], n * 6);
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
            // A NaN's sign and payload are the hardware's: an H200 gives 0x7fff for `0 * inf`,
            // where the host's arithmetic (and AMD's) gives 0xfe00.
            let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
            let same = o[i * 6 + k] == *w || (nan(o[i * 6 + k]) && nan(*w));
            assert!(same, "{what} lane {i} op {k} x={x} y={y}: {:#06x} vs {w:#06x}", o[i * 6 + k]);
        }
    }
}

pub fn reduce_atomic_histogram_collatz(gpu: &mut impl Gpu, what: &str) {
    let n = 512usize;
    let mut seed = 11u64;
    let input: Vec<i32> = (0..n).map(|_| (lcg(&mut seed) % 100_000) as i32).collect();
    let out = gpu.run("reduce_atomic", &[buf(&input), zeros(4), zeros(4)], [8, 1, 1], [64, 1, 1]);
    assert_eq!(get::<i32>(&out[1], 1)[0], input.iter().sum::<i32>(), "{what} sum");
    assert_eq!(get::<u32>(&out[2], 1)[0], *input.iter().max().unwrap() as u32, "{what} max");

    let u: Vec<u32> = input.iter().map(|&x| x as u32).collect();
    let out = gpu.run("histogram", &[buf(&u), zeros(16 * 4), u32v(16)], [8, 1, 1], [64, 1, 1]);
    let mut want = [0u32; 16];
    for &x in &u {
        want[(x % 16) as usize] += 1;
    }
    assert_eq!(get::<u32>(&out[1], 16), want.to_vec(), "{what} histogram");

    let start: Vec<u32> = (1..=200).collect();
    let out = gpu.run("collatz", &[buf(&start), zeros(200 * 4)], [4, 1, 1], [50, 1, 1]);
    let got: Vec<u32> = get(&out[1], 200);
    for (i, &s) in start.iter().enumerate() {
        let (mut x, mut k) = (s, 0);
        while x > 1 {
            x = if x & 1 != 0 { 3 * x + 1 } else { x / 2 };
            k += 1;
        }
        assert_eq!(got[i], k, "{what} collatz({s})");
    }
}

pub fn private_array_transpose_bytes(gpu: &mut impl Gpu, what: &str) {
    let n = 96usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 37 - 1000).collect();
    let out = gpu.run("private_array", &[buf(&input), zeros(n * 4), u32v(5)], [3, 1, 1], [32, 1, 1]);
    let o: Vec<i32> = get(&out[1], n);
    for i in 0..n {
        let buf: Vec<i32> = (0..32).map(|j| input[i].wrapping_mul(j) + 5).collect();
        let idx = ((input[i] + 5) & 31) as usize;
        assert_eq!(o[i], buf[idx] + buf[(idx * 7) & 31], "{what} private_array[{i}]");
    }

    let (w, h) = (37usize, 21usize);
    let m: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let args = [buf(&m), zeros(w * h * 4), u32v(w as u32), u32v(h as u32)];
    let out = gpu.run("transpose2d", &args, [5, 3, 1], [8, 8, 1]);
    let t: Vec<f32> = get(&out[1], w * h);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(t[x * h + y], m[y * w + x], "{what} transpose ({x},{y})");
        }
    }

    let a: Vec<u8> = (0..64).map(|i| (i * 9 + 200) as u8).collect();
    let b: Vec<i16> = (0..64).map(|i| (i * 1234 - 30000) as i16).collect();
    let args = [buf(&a), buf(&b), zeros(256), zeros(64), zeros(128)];
    let out = gpu.run("bytes_shorts", &args, [2, 1, 1], [32, 1, 1]);
    let (o, ob, os): (Vec<i32>, Vec<u8>, Vec<i16>) = (get(&out[2], 64), get(&out[3], 64), get(&out[4], 64));
    for i in 0..64 {
        assert_eq!(o[i], a[i] as i32 * b[i] as i32 + a[i] as i8 as i32, "{what} bytes_shorts out[{i}]");
        assert_eq!(ob[i], a[i].wrapping_add(3), "{what} ob[{i}]");
        assert_eq!(os[i], b[i].wrapping_mul(3).wrapping_sub(a[i] as i16), "{what} os[{i}]");
    }
}

/// Row shift right by one within 16 lanes (-1 into each row's first lane), quad reversal,
/// neighbour swap, the wave's first lane.
pub fn cross_lane(gpu: &mut impl Gpu, what: &str) {
    let n = 128usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 3 + 100).collect();
    let out = gpu.run("cross_lane", &[buf(&input), zeros(n * 16)], [2, 1, 1], [64, 1, 1]);
    let o: Vec<i32> = get(&out[1], n * 4);
    let w = gpu.wave_size("cross_lane");
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
}
