//! The kernels the graph property test runs on devices (tests/kernels/graph.cl built into
//! tests/fixtures/hsaco/graph-*.hsaco, tests/kernels/nv_graph.ptx), checked against their host
//! semantics (`runtime::graph::random::mix_words`) on emu:gfx1100, emu:gfx1201 and
//! emu-nv:sm_90 with today's launch path: offsets into buffers, a grid larger than `n`, and two
//! launches whose order shows in the result.

use baregpu::device::{self, Device};
use baregpu_runtime::graph::random::mix_words;
use baregpu_runtime::graph::rng::Rng;
use baregpu_runtime::hcq::{DeviceBuffer, HcqDevice};
use baregpu_runtime::nv::{NvCode, NvIsa};
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};

const WORDS: usize = 200;

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One `mix` launch: `n` words of `dst` from word `dof`, `src` from word `sof`.
struct Mix {
    dof: usize,
    sof: usize,
    n: usize,
    k: u32,
}

fn run_mixes<D: HcqDevice>(dev: &D, prog: &D::Program, mixes: &[Mix]) {
    let mut rng = Rng::new(7);
    let mut dst: Vec<u32> = (0..WORDS).map(|_| rng.next_u64() as u32).collect();
    let src: Vec<u32> = (0..WORDS).map(|_| rng.next_u64() as u32).collect();
    let (bd, bs) = (dev.alloc(4 * WORDS as u64).unwrap(), dev.alloc(4 * WORDS as u64).unwrap());
    dev.write(&bd, 0, &bytes(&dst)).unwrap();
    dev.write(&bs, 0, &bytes(&src)).unwrap();
    for m in mixes {
        let args = [
            ArgValue::Pointer(bd.va() + 4 * m.dof as u64),
            ArgValue::Pointer(bs.va() + 4 * m.sof as u64),
            ArgValue::u32(m.n as u32),
            ArgValue::u32(m.k),
        ];
        // Whole workgroups: more work-items than words, so the bound check matters.
        let shape = Launch::new([(m.n as u32).div_ceil(64), 1, 1], [64, 1, 1]);
        let s = dev.launch(prog, "mix", &args, &shape, false).unwrap();
        dev.release(s);
        mix_words(&mut dst[m.dof..m.dof + m.n], &src[m.sof..m.sof + m.n], m.k);
    }
    dev.synchronize().unwrap();
    let mut out = vec![0u8; 4 * WORDS];
    dev.read(&bd, 0, &mut out).unwrap();
    let got = words(&out);
    let bad: Vec<usize> = (0..WORDS).filter(|&i| got[i] != dst[i]).collect();
    assert!(bad.is_empty(), "{}: words {bad:?} differ from the host model", dev.label());
    dev.free(bd).unwrap();
    dev.free(bs).unwrap();
}

fn check<D: HcqDevice>(dev: &D, code: D::Code) {
    let prog = dev.load(code).unwrap();
    run_mixes(dev, &prog, &[Mix { dof: 4, sof: 2, n: 150, k: 11 }]);
    // Overlapping ranges in sequence: the second reads what the first wrote.
    run_mixes(dev, &prog, &[Mix { dof: 0, sof: 0, n: 130, k: 1 }, Mix { dof: 64, sof: 3, n: 100, k: 0xdead_beef }]);
    dev.unload(prog).unwrap();
}

#[test]
fn mix_is_not_commutative() {
    let (mut ab, mut ba) = (vec![5u32, 6], vec![5u32, 6]);
    let src = [1u32, 2];
    mix_words(&mut ab, &src, 1);
    mix_words(&mut ab, &src, 2);
    mix_words(&mut ba, &src, 2);
    mix_words(&mut ba, &src, 1);
    assert_ne!(ab, ba, "the order of two mixes must show");
}

fn amd(arch: &str) {
    let spec = format!("emu:{arch}").parse().unwrap();
    let Device::Amd(dev) = device::open(&spec).unwrap() else { panic!("{arch}: not AMD") };
    let p = format!("{}/tests/fixtures/hsaco/graph-{arch}.hsaco", env!("CARGO_MANIFEST_DIR"));
    check(&dev, CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap());
}

#[test]
fn mix_on_gfx1100() {
    amd("gfx1100");
}

#[test]
fn mix_on_gfx1201() {
    amd("gfx1201");
}

#[test]
fn mix_on_sm_90() {
    let spec = "emu-nv:sm_90".parse().unwrap();
    let Device::Nv(dev) = device::open(&spec).unwrap() else { panic!("not NVIDIA") };
    assert_eq!(dev.isa(), NvIsa::Ptx, "the emulator interprets PTX");
    let ptx = include_str!("kernels/nv_graph.ptx");
    check(&dev, NvCode::parse(ptx.as_bytes()).unwrap());
}
