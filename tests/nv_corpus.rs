//! The clang corpus (tests/kernels/corpus.cl, built for NVPTX at -O0 to -O3 by
//! tests/fixtures/ptx/build-corpus.sh) on emu-nv:sm_90 through the whole stack: runtime::nv →
//! drivers::nv (RM bring-up, GPFIFO, push buffers, QMDs) → the emulated RM → the PTX
//! interpreter. The inputs and host references are the AMD ones (tests/common/corpus.rs).
//!
//! With `BAREGPU_NV_DEVICE=nv:0` the kernels run on a real GPU instead (scripts/hw/nv.sh does
//! this), compiled by ptxas: the references hold there too, which is what keeps the emulator
//! honest about instructions only it and this test would otherwise agree on.

#[path = "common/corpus.rs"]
mod corpus;

use baregpu::device::open_emulated_nv;
use baregpu_emu::nv::ptx::Module;
use baregpu_runtime::nv::{NvCode, NvDevice, NvIsa, Program};
use baregpu_runtime::program::{ArgValue, Launch};
use baregpu_runtime::Error;
use corpus::{Arg, Gpu};

const BUILDS: [(&str, &str); 4] = [
    ("O0", include_str!("fixtures/ptx/corpus-O0.ptx")),
    ("O1", include_str!("fixtures/ptx/corpus-O1.ptx")),
    ("O2", include_str!("fixtures/ptx/corpus-O2.ptx")),
    ("O3", include_str!("fixtures/ptx/corpus-O3.ptx")),
];

const ARCH: &str = "sm_90";

/// One build of the corpus loaded on an emulated device.
struct Nv<'a> {
    dev: &'a NvDevice,
    prog: &'a Program,
    what: &'a str,
}

impl Gpu for Nv<'_> {
    fn run(&mut self, kernel: &str, args: &[Arg], grid: [u32; 3], block: [u32; 3]) -> Vec<Vec<u8>> {
        let what = self.what;
        let mut bufs = Vec::new();
        let vals: Vec<ArgValue> = args
            .iter()
            .map(|a| match a {
                Arg::Buf(bytes) => {
                    let b = self.dev.alloc(bytes.len().max(4) as u64).expect("alloc");
                    self.dev.write(&b, 0, bytes).expect("write");
                    let v = ArgValue::Pointer(b.va());
                    bufs.push((b, bytes.len()));
                    v
                }
                Arg::Val(v) => v.clone(),
            })
            .collect();
        let s = self
            .dev
            .launch(self.prog, kernel, &vals, &Launch::new(grid, block), false)
            .unwrap_or_else(|e| panic!("{what} {kernel}: {e}"));
        self.dev.synchronize().unwrap_or_else(|e| panic!("{what} {kernel}: {e}"));
        self.dev.release(s);
        bufs.into_iter()
            .map(|(b, len)| {
                let mut v = vec![0u8; len];
                self.dev.read(&b, 0, &mut v).expect("read");
                self.dev.free(b).expect("free");
                v
            })
            .collect()
    }

    fn wave_size(&self, _kernel: &str) -> usize {
        32 // a warp
    }
}

/// A real device named by BAREGPU_NV_DEVICE, if any.
fn real_device() -> Option<NvDevice> {
    let spec = std::env::var("BAREGPU_NV_DEVICE").ok()?;
    let spec = spec.parse().unwrap_or_else(|e| panic!("BAREGPU_NV_DEVICE: {e}"));
    match baregpu::device::open(&spec).unwrap_or_else(|e| panic!("{spec}: {e}")) {
        baregpu::device::Device::Nv(d) => Some(d),
        _ => panic!("BAREGPU_NV_DEVICE={spec} is not an NVIDIA device"),
    }
}

/// The device: emu-nv:sm_90, or the real one named by BAREGPU_NV_DEVICE.
fn open() -> NvDevice {
    real_device().unwrap_or_else(|| open_emulated_nv(ARCH, 0).unwrap_or_else(|e| panic!("{ARCH}: {e}")))
}

/// One build for `dev`: the PTX itself on the emulator; on a real GPU, retargeted to its
/// architecture (the corpus uses nothing past sm_80) and compiled by ptxas.
fn load(dev: &NvDevice, opt: &str, ptx: &str) -> Program {
    let bytes = match dev.isa() {
        NvIsa::Ptx => ptx.as_bytes().to_vec(),
        NvIsa::Sass => {
            let ptx = ptx.replace(".target sm_90", &format!(".target {}", dev.arch));
            let what = format!("tests/fixtures/ptx/corpus-{opt}.ptx");
            baregpu::ptxas::compile(&ptx, &dev.arch, &what).unwrap_or_else(|e| panic!("{e}"))
        }
    };
    dev.load(NvCode::parse(&bytes).unwrap()).unwrap_or_else(|e| panic!("{} -{opt}: {e}", dev.arch))
}

/// Runs `check` on every build, each loaded on one device.
fn each(check: fn(&mut Nv, &str)) {
    let dev = open();
    for (opt, ptx) in BUILDS {
        let what = format!("{} -{opt}", dev.arch);
        let prog = load(&dev, opt, ptx);
        check(&mut Nv { dev: &dev, prog: &prog, what: &what }, &what);
        dev.unload(prog).unwrap();
    }
}

#[test]
fn every_corpus_kernel_is_in_every_build() {
    let src = include_str!("kernels/corpus.cl");
    let mut want: Vec<&str> =
        src.lines().filter_map(|l| l.strip_prefix("kernel void ")).map(|l| l.split('(').next().unwrap()).collect();
    want.sort_unstable();
    want.dedup(); // cross_lane has a version per target
    assert_eq!(want.len(), 18, "{want:?}");
    for (opt, ptx) in BUILDS {
        let code = NvCode::parse(ptx.as_bytes()).unwrap();
        let mut got = code.kernel_names();
        got.sort_unstable();
        assert_eq!(got, want, "-{opt}");
    }
}

/// The PTX interpreter takes every build whole (a parse error would otherwise surface only as
/// the channel's Xid).
#[test]
fn the_interpreter_parses_every_build() {
    for (opt, ptx) in BUILDS {
        let m = Module::parse(ptx).unwrap_or_else(|e| panic!("-{opt}: {e}"));
        assert_eq!(m.entries().len(), 18, "-{opt}");
    }
}

#[test]
fn matmul() {
    each(|g, what| corpus::matmul(g, what));
}

#[test]
fn int_ops() {
    each(|g, what| corpus::int_ops(g, what));
}

#[test]
fn long_ops() {
    each(|g, what| corpus::long_ops(g, what));
}

#[test]
fn float_ops() {
    each(|g, what| corpus::float_ops(g, what));
}

#[test]
fn double_ops() {
    each(|g, what| corpus::double_ops(g, what));
}

#[test]
fn half_ops() {
    each(|g, what| corpus::half_ops(g, what));
}

#[test]
fn half2_ops() {
    each(|g, what| corpus::half2_ops(g, what));
}

#[test]
fn reduce_atomic_histogram_collatz() {
    each(|g, what| corpus::reduce_atomic_histogram_collatz(g, what));
}

#[test]
fn private_array_transpose_bytes() {
    each(|g, what| corpus::private_array_transpose_bytes(g, what));
}

#[test]
fn atomics() {
    each(|g, what| corpus::atomics(g, what));
}

#[test]
fn scan_lds() {
    each(|g, what| corpus::scan_lds(g, what));
}

#[test]
fn cross_lane() {
    each(|g, what| corpus::cross_lane(g, what));
}

/// A store inside the buffer lands; one far outside it stops the channel with an Xid that
/// names the kernel (and the device must be reopened), at every optimisation level.
#[test]
fn out_of_bounds_store_faults() {
    for (opt, ptx) in BUILDS {
        let dev = open();
        let prog = load(&dev, opt, ptx);
        let out = Nv { dev: &dev, prog: &prog, what: opt }.run(
            "oob_store",
            &[corpus::zeros(64), corpus::u32v(3)],
            [1, 1, 1],
            [1, 1, 1],
        );
        assert_eq!(corpus::get::<i32>(&out[0], 4), [0, 0, 0, 42], "-{opt}");

        let b = dev.alloc(64).unwrap();
        let args = [ArgValue::Pointer(b.va()), ArgValue::u32(0x3fff_ffff)];
        dev.launch(&prog, "oob_store", &args, &Launch::new([1, 1, 1], [1, 1, 1]), false).unwrap();
        let e = dev.synchronize().unwrap_err();
        assert!(matches!(e, Error::Fault { .. }), "-{opt}: {e}");
        let msg = e.to_string();
        assert!(msg.contains("Xid") && msg.contains("oob_store"), "-{opt}: {msg}");
        if dev.isa() == NvIsa::Ptx {
            assert!(msg.contains("Xid 31: GPU memory page fault"), "-{opt}: {msg}");
        }
        // The device says it must be reopened; the next build gets a fresh one.
        assert!(dev.synchronize().unwrap_err().to_string().contains("reopen"), "-{opt}");
    }
}
