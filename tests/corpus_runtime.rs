//! The clang-compiled corpus through the whole stack — KFD driver, PM4 queues, emulated command
//! processor, wave interpreter — on emu:gfx1100, emu:gfx1201, emu:gfx942 and emu:gfx950 (wave64),
//! and through the AM driver's whole PCI boot on am:emu:gfx1100 and am:emu:gfx942, at -O0 to -O3 (the interpreter's
//! own tests cover every corpus kernel; these prove the driver path launches them faithfully:
//! LDS and barriers, atomics, private arrays in scratch, 2-D grids, divergent loops).

use baregpu::device::{self, Device};
use baregpu_runtime::amd::{AmdDevice, Buffer, Program};
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
use std::path::PathBuf;

fn corpus(dev: &AmdDevice, opt: &str) -> Program {
    let family = if dev.arch.starts_with("gfx9") { "cdna" } else { "rdna" };
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/fixtures/{family}/corpus-{}-{opt}.hsaco", dev.arch));
    dev.load(CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap()).unwrap()
}

fn upload<T: Copy>(dev: &AmdDevice, v: &[T]) -> Buffer {
    let bytes = std::mem::size_of_val(v);
    // SAFETY: plain numbers viewed as bytes.
    let raw = unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, bytes) };
    let b = dev.alloc(bytes.max(4) as u64).unwrap();
    dev.write(&b, 0, raw).unwrap();
    b
}

fn download<T: Copy + Default>(dev: &AmdDevice, b: &Buffer, n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    // SAFETY: plain numbers written as bytes.
    let raw = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>()) };
    dev.read(b, 0, raw).unwrap();
    v
}

/// Every emulated device, behind the emulated KFD and (`am:emu:…`) behind the AM driver through the
/// whole PCI boot; each device is opened once and runs every opt level (a boot is the costly part).
const DEVICES: [&str; 6] =
    ["emu:gfx1100", "emu:gfx1201", "emu:gfx942", "emu:gfx950", "am:emu:gfx1100", "am:emu:gfx942"];

fn each(f: impl Fn(&AmdDevice, &Program, &str)) {
    for spec in DEVICES {
        let Device::Amd(dev) = device::open(&spec.parse().unwrap()).unwrap_or_else(|e| panic!("{spec}: {e}")) else {
            panic!("{spec} is an AMD device")
        };
        for opt in ["O0", "O1", "O2", "O3"] {
            let p = corpus(&dev, opt);
            f(&dev, &p, &format!("{spec} -{opt}"));
            dev.unload(p).unwrap();
        }
    }
}

fn launch(dev: &AmdDevice, p: &Program, k: &str, args: &[ArgValue], grid: [u32; 3], block: [u32; 3]) {
    let s = dev.launch(p, k, args, &Launch::new(grid, block), false).unwrap();
    dev.synchronize().unwrap_or_else(|e| panic!("{k}: {e}"));
    dev.release(s);
}

#[test]
fn matmul_tiled_lds_and_barriers() {
    each(|dev, p, what| {
        let n = 24usize;
        let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
        let (ba, bb, bc) = (upload(dev, &a), upload(dev, &b), upload(dev, &vec![0f32; n * n]));
        let args = [
            ArgValue::Pointer(ba.va()),
            ArgValue::Pointer(bb.va()),
            ArgValue::Pointer(bc.va()),
            ArgValue::u32(n as u32),
        ];
        launch(dev, p, "matmul_tiled", &args, [3, 3, 1], [8, 8, 1]);
        let c: Vec<f32> = download(dev, &bc, n * n);
        for i in 0..n {
            for j in 0..n {
                let want: f32 = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
                assert_eq!(c[i * n + j], want, "{what} c[{i}][{j}]");
            }
        }
        for x in [ba, bb, bc] {
            dev.free(x).unwrap();
        }
    });
}

#[test]
fn reduce_with_local_memory_and_atomics() {
    each(|dev, p, what| {
        let input: Vec<i32> = (0..512).map(|i| (i * 7919) % 1000 - 300).collect();
        let (bi, sum, maxv) = (upload(dev, &input), upload(dev, &[0i32]), upload(dev, &[0u32]));
        let args = [ArgValue::Pointer(bi.va()), ArgValue::Pointer(sum.va()), ArgValue::Pointer(maxv.va())];
        launch(dev, p, "reduce_atomic", &args, [8, 1, 1], [64, 1, 1]);
        assert_eq!(download::<i32>(dev, &sum, 1)[0], input.iter().sum::<i32>(), "{what} sum");
        // The kernel compares as unsigned: negative inputs are the largest.
        let want = input.iter().map(|&x| x as u32).max().unwrap();
        assert_eq!(download::<u32>(dev, &maxv, 1)[0], want, "{what} max");
        for x in [bi, sum, maxv] {
            dev.free(x).unwrap();
        }
    });
}

#[test]
fn private_arrays_live_in_scratch() {
    each(|dev, p, what| {
        let n = 96usize;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 37 - 1000).collect();
        let (bi, bo) = (upload(dev, &input), upload(dev, &vec![0i32; n]));
        let args = [ArgValue::Pointer(bi.va()), ArgValue::Pointer(bo.va()), ArgValue::u32(5)];
        launch(dev, p, "private_array", &args, [3, 1, 1], [32, 1, 1]);
        let o: Vec<i32> = download(dev, &bo, n);
        for i in 0..n {
            let buf: Vec<i32> = (0..32).map(|j| input[i].wrapping_mul(j) + 5).collect();
            let idx = ((input[i] + 5) & 31) as usize;
            assert_eq!(o[i], buf[idx] + buf[(idx * 7) & 31], "{what} private_array[{i}]");
        }
        for x in [bi, bo] {
            dev.free(x).unwrap();
        }
    });
}

#[test]
fn divergent_loops_and_2d_grids() {
    each(|dev, p, what| {
        let seeds: Vec<u32> = (1..=200).collect();
        let (bs, steps) = (upload(dev, &seeds), upload(dev, &vec![0u32; 200]));
        launch(dev, p, "collatz", &[ArgValue::Pointer(bs.va()), ArgValue::Pointer(steps.va())], [4, 1, 1], [50, 1, 1]);
        let got: Vec<u32> = download(dev, &steps, 200);
        for (i, &s) in seeds.iter().enumerate() {
            let (mut x, mut k) = (s, 0);
            while x > 1 {
                x = if x & 1 == 1 { 3 * x + 1 } else { x / 2 };
                k += 1;
            }
            assert_eq!(got[i], k, "{what} collatz({s})");
        }
        let (w, h) = (40usize, 24usize);
        let m: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
        let (bm, bt) = (upload(dev, &m), upload(dev, &vec![0f32; w * h]));
        let args =
            [ArgValue::Pointer(bm.va()), ArgValue::Pointer(bt.va()), ArgValue::u32(w as u32), ArgValue::u32(h as u32)];
        launch(dev, p, "transpose2d", &args, [5, 3, 1], [8, 8, 1]);
        let t: Vec<f32> = download(dev, &bt, w * h);
        for y in 0..h {
            for x in 0..w {
                assert_eq!(t[x * h + y], m[y * w + x], "{what} transpose ({x},{y})");
            }
        }
        for x in [bs, steps, bm, bt] {
            dev.free(x).unwrap();
        }
    });
}
