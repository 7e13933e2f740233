//! The object-safe device the command-line tool drives: [`Gpu`], opened by [`open`] as a
//! `Box<dyn Gpu>` whatever the vendor. Its signatures hold no vendor type: memory goes through
//! opaque handles ([`Buffer`], [`Program`], [`Submitted`]), code objects are loaded from bytes
//! (the device parses its own vendor's formats), and a kernel's parameters come back in one
//! neutral form ([`Param`]).
//!
//! It is written once ([`generic`]) over the runtime's `HcqDevice`, plus a small per-vendor trait
//! for what genuinely differs (parsing code, the demo's and the benchmark's kernels): [`vendor`].
//! Handles carry the id of the device that made them: one used on another device is an error.

mod code;
mod generic;
mod graph;
mod signal_only;
mod vendor;

pub use baregpu_runtime::graph::ExecOptions;
pub use code::{identify, Vendor};
pub use graph::{GpuGraph, GraphDesc};
pub use vendor::{default_spec_for, empty_amd_code_object};

use crate::{DeviceSpec, Result};
use baregpu_drivers::os::{HostOs, Os};
use baregpu_runtime::program::{ArgValue, Launch};
use std::any::Any;
use std::sync::Arc;

/// How a kernel takes one parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A buffer's address.
    Buffer,
    /// A value of the parameter's size.
    Value,
    /// Either (a 64-bit integer that may hold an address: nvcc's pointers, a cubin's params).
    BufferOrValue,
    /// A kind the caller cannot pass (images, samplers, dynamic shared pointers...).
    Unsupported,
}

/// One parameter of a kernel, as its code object declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub kind: ParamKind,
    /// Bytes it takes.
    pub size: u32,
    /// Whether a value is a float; `None` where the code object does not say.
    pub float: Option<bool>,
    /// What errors call it: `float*`, `uint`, `a 4-byte integer`.
    pub text: String,
}

/// A kernel of a loaded program and the parameters the caller passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelInfo {
    pub name: String,
    pub params: Vec<Param>,
}

/// Device memory: one GPU address (the CPU's too where it is mapped) and a size.
pub struct Buffer {
    owner: u64,
    va: u64,
    size: u64,
    /// Host memory the GPU maps (every device of a graph reaches it), not device memory.
    host: bool,
    inner: Box<dyn Any>,
}

impl Buffer {
    pub fn va(&self) -> u64 {
        self.va
    }
    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn is_host(&self) -> bool {
        self.host
    }
}

/// The kernel `name` of `kernels`, or an error that lists the ones there are.
fn find<'k>(kernels: &'k [KernelInfo], name: &str) -> std::result::Result<&'k KernelInfo, String> {
    kernels.iter().find(|k| k.name == name).ok_or_else(|| {
        let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
        format!("no kernel `{name}` (it has: {})", names.join(", "))
    })
}

/// A code object parsed for a device, not loaded yet: its kernels can be checked before any
/// device memory is taken.
pub struct Code {
    owner: u64,
    /// What errors call it (a file name).
    what: String,
    kernels: Vec<KernelInfo>,
    inner: Box<dyn Any>,
}

impl Code {
    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }
    /// The kernel `name`, or an error that lists the ones there are.
    pub fn kernel(&self, name: &str) -> std::result::Result<&KernelInfo, String> {
        find(&self.kernels, name)
    }
}

/// A code object loaded on a device, with its kernels' parameter lists.
pub struct Program {
    owner: u64,
    kernels: Vec<KernelInfo>,
    inner: Box<dyn Any>,
}

impl Program {
    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }
    /// The kernel `name`, or an error that lists the ones there are.
    pub fn kernel(&self, name: &str) -> std::result::Result<&KernelInfo, String> {
        find(&self.kernels, name)
    }
}

/// A submitted launch: what to wait for, and its GPU time when profiled.
pub struct Submitted {
    owner: u64,
    inner: Box<dyn Any>,
}

/// A signal-only submission made again and again (`bench launch` (a)).
pub trait SignalOnly {
    /// How it is made: `graph` (a one-node graph, compiled once, run per submission).
    fn how(&self) -> &'static str;
    /// Submit once (after the previous submission completed, where it must).
    fn submit(&mut self) -> Result<()>;
    /// Wait until the last submission completed.
    fn wait(&self) -> Result<()>;
    /// Give back what it holds.
    fn close(self: Box<Self>) -> Result<()>;
}

/// The demo's kernels on a device: its programs and which kernel of which program is which.
pub struct DemoKernels {
    pub programs: Vec<Program>,
    pub matmul: DemoMatmul,
    pub vector_add: DemoVectorAdd,
}

/// A tiled matmul kernel `(a, b, c, n...)` with `dims` trailing size arguments, run on
/// `tile` x `tile` workgroups.
#[derive(Debug, Clone, Copy)]
pub struct DemoMatmul {
    pub program: usize,
    pub kernel: &'static str,
    pub tile: u32,
    pub dims: usize,
}

/// A vector add kernel `(a, b, c, n)` run on `block`-wide workgroups.
#[derive(Debug, Clone, Copy)]
pub struct DemoVectorAdd {
    pub program: usize,
    pub kernel: &'static str,
    pub block: u32,
}

/// A device of either vendor, behind one object-safe interface.
pub trait Gpu {
    /// `emu:gfx1100`, `nv:0`: what errors call it.
    fn label(&self) -> &str;
    /// `gfx1100`, `sm_90`.
    fn arch(&self) -> &str;
    fn vendor(&self) -> Vendor;

    /// Device memory the CPU can also reach.
    fn alloc(&self, size: u64) -> Result<Buffer>;
    /// Host memory the GPU maps.
    fn alloc_host(&self, size: u64) -> Result<Buffer>;
    /// Host bytes into a buffer the GPU is not using.
    fn write(&self, b: &Buffer, offset: u64, data: &[u8]) -> Result<()>;
    /// Buffer bytes to the host, after the work that wrote them.
    fn read(&self, b: &Buffer, offset: u64, out: &mut [u8]) -> Result<()>;
    fn free(&self, b: Buffer) -> Result<()>;
    /// Copy `bytes` between two buffers of this device (device or host memory) on the copy
    /// engine, ordered on the device timeline.
    fn copy(&self, dst: &Buffer, dst_off: u64, src: &Buffer, src_off: u64, bytes: u64) -> Result<()>;

    /// Parse a code object of this device's vendor from its bytes (AMD: HSACO; NVIDIA: cubin or
    /// PTX, compiled with ptxas for a real GPU); `what` names it in errors (a file name). The
    /// other vendor's code object is an error.
    fn parse(&self, code: &[u8], what: &str) -> Result<Code>;
    /// Put parsed code in device memory.
    fn load_code(&self, code: Code) -> Result<Program>;
    /// [`Gpu::parse`] and [`Gpu::load_code`].
    fn load(&self, code: &[u8], what: &str) -> Result<Program> {
        self.load_code(self.parse(code, what)?)
    }
    fn unload(&self, p: Program) -> Result<()>;

    /// Launch `kernel` ordered on the device timeline (bracketed by timestamps with `profile`).
    fn launch(&self, p: &Program, kernel: &str, args: &[ArgValue], shape: &Launch, profile: bool) -> Result<Submitted>;
    /// Wait until a launch completed.
    fn wait(&self, s: &Submitted) -> Result<()>;
    /// GPU microseconds of a profiled launch, once it completed.
    fn elapsed_us(&self, s: &Submitted) -> Option<f64>;
    /// Give a launch's timestamp signals back.
    fn release(&self, s: Submitted) -> Result<()>;
    /// Wait for everything submitted.
    fn synchronize(&self) -> Result<()>;

    /// A program with one kernel, `empty`, that ends at once (`bench launch`).
    fn empty_kernel(&self) -> Result<Program>;
    /// The signal-only submission `bench launch` (a) measures.
    fn signal_only(&self) -> Result<Box<dyn SignalOnly + '_>>;
    /// Compile `g` for this device (device 0 of the graph) and `peers` (devices 1.., which must
    /// be devices of the same kind as this one, of one machine).
    fn compile_graph<'a>(
        &'a self,
        g: GraphDesc<'a>,
        peers: &[&'a dyn Gpu],
        opts: ExecOptions,
    ) -> Result<Box<dyn GpuGraph + 'a>>;
    /// The device as `Any`: how [`Gpu::compile_graph`] finds its peers' concrete devices.
    fn as_any(&self) -> &dyn Any;

    /// The demo's matmul and vector add for this device, loaded; `size` is checked against the
    /// matmul's tile first. `progress` receives a line per step.
    fn demo_kernels(&self, size: u32, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<DemoKernels>;
}

/// Open the device `spec` names, whatever its vendor.
pub fn open(spec: &DeviceSpec) -> Result<Box<dyn Gpu>> {
    open_with(spec, Arc::new(HostOs::new()))
}

/// `count` devices of one machine from the one `spec` names on (see
/// [`crate::device::open_group`]): what a graph spanning devices compiles on.
pub fn open_group(spec: &DeviceSpec, count: usize) -> Result<Vec<Box<dyn Gpu>>> {
    crate::device::open_group(spec, count)?.into_iter().map(vendor::boxed).collect()
}

/// A device opened by other means (such as [`crate::device::open_am_over`], over a link) as a
/// [`Gpu`].
pub fn from_device(dev: crate::device::Device) -> Result<Box<dyn Gpu>> {
    vendor::boxed(dev)
}

/// [`open`] with the host OS given (re-rootable for tests).
pub fn open_with(spec: &DeviceSpec, os: Arc<dyn Os>) -> Result<Box<dyn Gpu>> {
    vendor::boxed(crate::device::open_with(spec, os)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(spec: &str) -> Box<dyn Gpu> {
        open(&spec.parse().unwrap()).unwrap_or_else(|e| panic!("{spec}: {e}"))
    }

    /// A handle of one device given to another is an error naming the device, never a use of
    /// the other device's memory or program.
    #[test]
    fn handles_of_another_device_are_refused() {
        let (a, b) = (dev("emu:gfx1100:0"), dev("emu:gfx1100:1"));
        let buf = a.alloc(64).unwrap();
        let e = b.write(&buf, 0, &[1; 4]).unwrap_err().to_string();
        assert_eq!(e, "emu:gfx1100:1: a buffer of another device");
        assert!(b.read(&buf, 0, &mut [0; 4]).is_err());
        let prog = a.empty_kernel().unwrap();
        let shape = Launch::new([1, 1, 1], [32, 1, 1]);
        let e = b.launch(&prog, "empty", &[], &shape, false).err().expect("refused").to_string();
        assert_eq!(e, "emu:gfx1100:1: a program of another device");
        let s = a.launch(&prog, "empty", &[], &shape, true).unwrap();
        assert!(b.wait(&s).is_err() && b.elapsed_us(&s).is_none());
        assert!(b.release(s).is_err());
        assert!(b.unload(prog).is_err() && b.free(buf).is_err());
        // The handles' own device still works.
        let prog = a.empty_kernel().unwrap();
        let s = a.launch(&prog, "empty", &[], &shape, false).unwrap();
        a.wait(&s).unwrap();
        a.release(s).unwrap();
        a.unload(prog).unwrap();
    }

    /// Gpu::copy moves bytes between host and device memory on the copy engine, both vendors.
    #[test]
    fn copies_go_through_device_memory_and_back() {
        for spec in ["emu:gfx1100", "emu-nv:sm_90"] {
            let d = dev(spec);
            let (h, b, back) = (d.alloc_host(256).unwrap(), d.alloc(256).unwrap(), d.alloc_host(256).unwrap());
            let data: Vec<u8> = (0..=255).collect();
            d.write(&h, 0, &data).unwrap();
            d.copy(&b, 0, &h, 0, 256).unwrap();
            d.copy(&back, 16, &b, 0, 64).unwrap();
            d.synchronize().unwrap();
            let mut out = vec![0u8; 256];
            d.read(&back, 0, &mut out).unwrap();
            assert_eq!(&out[16..80], &data[..64], "{spec}");
            assert!(out[..16].iter().all(|&x| x == 0), "{spec}");
            assert!(d.copy(&b, b.size() - 50, &h, 0, 100).is_err(), "{spec}: past the end");
            for x in [h, b, back] {
                d.free(x).unwrap();
            }
        }
    }

    /// A graph names only handles of its own devices, and peers of its own kind: anything else
    /// is one error before anything is compiled.
    #[test]
    fn graphs_refuse_foreign_handles_and_peers() {
        use baregpu_runtime::graph::{QueueKey, Range, Shape};
        let (a, b, nv) = (dev("emu:gfx1100:0"), dev("emu:gfx1100:1"), dev("emu-nv:sm_90"));
        let prog_b = b.empty_kernel().unwrap();
        let mut g = GraphDesc::new();
        g.launch(QueueKey::compute(0), &prog_b, "empty", vec![], Shape::linear(1, 32));
        let e = a.compile_graph(g, &[], ExecOptions::default()).err().expect("refused").to_string();
        assert_eq!(e, "emu:gfx1100: a program of another device");

        let buf_b = b.alloc(64).unwrap();
        let buf_a = a.alloc_host(64).unwrap();
        let mut g = GraphDesc::new();
        let (dst, src) = (g.buffer(0, &buf_b), g.buffer(0, &buf_a));
        g.copy(QueueKey::copy(0), Range::new(dst, 0, 64), Range::new(src, 0, 64));
        let e = a.compile_graph(g, &[], ExecOptions::default()).err().expect("refused").to_string();
        assert_eq!(e, "emu:gfx1100: a buffer of another device");

        let prog_a = a.empty_kernel().unwrap();
        let mut g = GraphDesc::new();
        g.launch(QueueKey::compute(0), &prog_a, "empty", vec![], Shape::linear(1, 32));
        let e = a.compile_graph(g, &[&*nv], ExecOptions::default()).err().expect("refused").to_string();
        assert!(e.contains("a graph spans devices of one vendor; emu-nv:sm_90 is another"), "{e}");
        let mut g = GraphDesc::new();
        g.launch(QueueKey::compute(0), &prog_a, "empty", vec![], Shape::linear(1, 32));
        let e = a.compile_graph(g, &[&*a], ExecOptions::default()).err().expect("refused").to_string();
        assert!(e.contains("named twice"), "{e}");
        a.unload(prog_a).unwrap();
        b.unload(prog_b).unwrap();
        b.free(buf_b).unwrap();
        a.free(buf_a).unwrap();
    }

    /// A graph built over the object-safe device runs again and again with new bindings: a
    /// host buffer slot copied to device memory and back, each run seeing its own input.
    #[test]
    fn graphs_run_with_bindings_on_both_vendors() {
        use baregpu_runtime::graph::{Bindings, Home, QueueKey, Range};
        for spec in ["emu:gfx1100", "emu-nv:sm_90"] {
            let d = dev(spec);
            let (mid, out) = (d.alloc(64).unwrap(), d.alloc_host(64).unwrap());
            let inputs = [d.alloc_host(64).unwrap(), d.alloc_host(64).unwrap()];
            let mut g = GraphDesc::new();
            let src = g.buffer_slot("src", Home::Host, 64);
            let (m, o) = (g.buffer(0, &mid), g.buffer(0, &out));
            g.copy(QueueKey::copy(0), Range::new(m, 0, 64), Range::new(src, 0, 64));
            g.copy(QueueKey::copy(0), Range::new(o, 0, 64), Range::new(m, 0, 64));
            let mut exec = d.compile_graph(g, &[], ExecOptions::default()).unwrap();
            assert_eq!(exec.node_count(), 2);
            for round in 0..4u8 {
                let input = &inputs[round as usize % 2];
                d.write(input, 0, &[round + 1; 64]).unwrap();
                exec.run(Bindings::new().buffer(src, input.va(), 64)).unwrap();
                exec.wait().unwrap();
                let mut got = [0u8; 64];
                d.read(&out, 0, &mut got).unwrap();
                assert_eq!(got, [round + 1; 64], "{spec}: run {round}");
            }
            drop(exec);
            for b in [mid, out].into_iter().chain(inputs) {
                d.free(b).unwrap();
            }
        }
    }

    /// Each vendor loads its own formats; the other vendor's code object is one clear error.
    #[test]
    fn code_of_the_other_vendor_is_one_error() {
        let hsaco = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hsaco/basic-gfx1100.hsaco"));
        let ptx = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ptx/kernels.ptx"));
        let (hsaco, ptx) = (hsaco.unwrap(), ptx.unwrap());
        let (amd, nv) = (dev("emu:gfx1100"), dev("emu-nv:sm_90"));
        assert_eq!((amd.vendor(), nv.vendor()), (Vendor::Amd, Vendor::Nvidia));
        let e = amd.load(&ptx, "k.ptx").err().expect("refused").to_string();
        assert_eq!(e, "k.ptx: an NVIDIA code object cannot run on emu:gfx1100");
        let e = nv.load(&hsaco, "k.hsaco").err().expect("refused").to_string();
        assert_eq!(e, "k.hsaco: an AMD code object cannot run on emu-nv:sm_90");
        // The same neutral parameter list from both formats of the same kernel.
        for (d, code) in [(&amd, &hsaco), (&nv, &ptx)] {
            let p = d.load(code, "k").unwrap();
            let params = &p.kernel("vector_add").unwrap().params;
            let kinds: Vec<ParamKind> = params.iter().map(|p| p.kind).collect();
            assert_eq!(
                kinds,
                [ParamKind::Buffer, ParamKind::Buffer, ParamKind::Buffer, ParamKind::Value],
                "{}",
                d.label()
            );
            assert_eq!((params[3].size, params[3].float), (4, Some(false)), "{}", d.label());
            assert!(p.kernel("nope").unwrap_err().starts_with("no kernel `nope` (it has: "));
            d.unload(p).unwrap();
        }
    }
}
