//! [`Gpu`] written once, for every device of the runtime's core: [`Hcq`] wraps a
//! `core::Device<B>` that also implements the small [`VendorDevice`] trait (what differs by
//! vendor: its code-object formats, the demo's and the benchmark's kernels).

use super::{
    identify, Buffer, Code, DemoKernels, DemoMatmul, DemoVectorAdd, ExecOptions, Gpu, GpuGraph, GraphDesc, KernelInfo,
    Program, SignalOnly, Submitted, Vendor,
};
use crate::{Error, Result};
use baregpu_runtime::core::{Backend, Device};
use baregpu_runtime::hcq::{DeviceBuffer, HcqDevice};
use baregpu_runtime::program::{ArgValue, Launch};
use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};

/// The code of the demo's kernels for one device, as bytes its `load` takes.
pub(super) struct DemoCode {
    pub modules: Vec<Vec<u8>>,
    pub matmul: DemoMatmul,
    pub vector_add: DemoVectorAdd,
}

/// What one vendor's device adds to `HcqDevice` for [`Gpu`].
pub(super) trait VendorDevice: HcqDevice + Sized + 'static {
    const VENDOR: Vendor;
    /// Parse a code object of this vendor (`what` names it in errors) into code this device
    /// loads, and its kernels with their parameters.
    fn parse(&self, bytes: &[u8], what: &str) -> Result<(Self::Code, Vec<KernelInfo>)>;
    /// A code object with one kernel, `empty`, that ends at once.
    fn empty_code(&self) -> Result<Vec<u8>>;
    /// The demo's kernels; `size` is checked against the matmul's tile before anything is built.
    fn demo_code(&self, size: u32, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<DemoCode>;
}

/// Ids that tie handles to the device that made them.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A runtime device as a [`Gpu`].
pub(super) struct Hcq<B: Backend> {
    pub(super) dev: Device<B>,
    pub(super) id: u64,
}

impl<B: Backend> Hcq<B>
where
    Device<B>: VendorDevice,
{
    pub fn new(dev: Device<B>) -> Self {
        Hcq { dev, id: NEXT_ID.fetch_add(1, Ordering::Relaxed) }
    }

    /// The device's own object behind a handle; a handle of another device is an error.
    pub(super) fn own<'a, T: 'static>(&self, owner: u64, inner: &'a dyn Any, what: &str) -> Result<&'a T> {
        inner.downcast_ref().filter(|_| owner == self.id).ok_or_else(|| self.foreign(what))
    }

    fn own_box<T: 'static>(&self, owner: u64, inner: Box<dyn Any>, what: &str) -> Result<T> {
        match owner == self.id {
            true => inner.downcast().map(|b| *b).map_err(|_| self.foreign(what)),
            false => Err(self.foreign(what)),
        }
    }

    fn foreign(&self, what: &str) -> Error {
        Error::Usage(format!("{}: a {what} of another device", self.dev.label()))
    }

    fn buffer(&self, b: B::Buffer, host: bool) -> Buffer {
        Buffer { owner: self.id, va: b.va(), size: b.size(), host, inner: Box::new(b) }
    }
}

impl<B: Backend> Gpu for Hcq<B>
where
    Device<B>: VendorDevice,
    B::Code: 'static,
    B::Program: 'static,
{
    fn label(&self) -> &str {
        self.dev.label()
    }
    fn arch(&self) -> &str {
        self.dev.arch()
    }
    fn vendor(&self) -> Vendor {
        <Device<B> as VendorDevice>::VENDOR
    }

    fn alloc(&self, size: u64) -> Result<Buffer> {
        Ok(self.buffer(self.dev.alloc(size)?, false))
    }
    fn alloc_host(&self, size: u64) -> Result<Buffer> {
        Ok(self.buffer(self.dev.alloc_host(size)?, true))
    }
    fn write(&self, b: &Buffer, offset: u64, data: &[u8]) -> Result<()> {
        Ok(self.dev.write(self.own(b.owner, &*b.inner, "buffer")?, offset, data)?)
    }
    fn read(&self, b: &Buffer, offset: u64, out: &mut [u8]) -> Result<()> {
        Ok(self.dev.read(self.own(b.owner, &*b.inner, "buffer")?, offset, out)?)
    }
    fn free(&self, b: Buffer) -> Result<()> {
        Ok(self.dev.free(self.own_box(b.owner, b.inner, "buffer")?)?)
    }
    fn copy(&self, dst: &Buffer, dst_off: u64, src: &Buffer, src_off: u64, bytes: u64) -> Result<()> {
        let (d, s) = (self.own(dst.owner, &*dst.inner, "buffer")?, self.own(src.owner, &*src.inner, "buffer")?);
        Ok(self.dev.copy(d, dst_off, s, src_off, bytes)?)
    }

    fn parse(&self, code: &[u8], what: &str) -> Result<Code> {
        let vendor = identify(code).map_err(|e| Error::Usage(format!("{what}: {e}")))?;
        if vendor != <Device<B> as VendorDevice>::VENDOR {
            return Err(Error::Usage(format!("{what}: an {vendor} code object cannot run on {}", self.label())));
        }
        let (code, kernels) = self.dev.parse(code, what)?;
        Ok(Code { owner: self.id, what: what.to_string(), kernels, inner: Box::new(code) })
    }
    fn load_code(&self, code: Code) -> Result<Program> {
        let what = code.what;
        let parsed: B::Code = self.own_box(code.owner, code.inner, "code object")?;
        // A code object the device refuses (malformed PTX, a wrong target) names its source.
        let prog = self.dev.load(parsed).map_err(|e| match e {
            baregpu_runtime::Error::Program(m) => Error::Usage(format!("{what}: {m}")),
            e => e.into(),
        })?;
        Ok(Program { owner: self.id, kernels: code.kernels, inner: Box::new(prog) })
    }
    fn unload(&self, p: Program) -> Result<()> {
        Ok(self.dev.unload(self.own_box(p.owner, p.inner, "program")?)?)
    }

    fn launch(&self, p: &Program, kernel: &str, args: &[ArgValue], shape: &Launch, profile: bool) -> Result<Submitted> {
        let prog = self.own(p.owner, &*p.inner, "program")?;
        let s = self.dev.launch(prog, kernel, args, shape, profile)?;
        Ok(Submitted { owner: self.id, inner: Box::new(s) })
    }
    fn wait(&self, s: &Submitted) -> Result<()> {
        let s = self.own(s.owner, &*s.inner, "launch")?;
        Ok(self.dev.wait_value(self.dev.submitted_value(s))?)
    }
    fn elapsed_us(&self, s: &Submitted) -> Option<f64> {
        self.dev.elapsed_us(self.own(s.owner, &*s.inner, "launch").ok()?)
    }
    fn release(&self, s: Submitted) -> Result<()> {
        self.dev.release(self.own_box(s.owner, s.inner, "launch")?);
        Ok(())
    }
    fn synchronize(&self) -> Result<()> {
        Ok(self.dev.synchronize()?)
    }

    fn empty_kernel(&self) -> Result<Program> {
        self.load(&self.dev.empty_code()?, "the empty kernel")
    }
    fn signal_only(&self) -> Result<Box<dyn SignalOnly + '_>> {
        super::signal_only::one_node(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn compile_graph<'a>(
        &'a self,
        g: GraphDesc<'a>,
        peers: &[&'a dyn Gpu],
        opts: ExecOptions,
    ) -> Result<Box<dyn GpuGraph + 'a>> {
        super::graph::compile(self, g, peers, opts)
    }
    fn demo_kernels(&self, size: u32, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<DemoKernels> {
        let code = self.dev.demo_code(size, progress)?;
        let mut programs = Vec::new();
        for m in &code.modules {
            match self.load(m, "the demo kernels") {
                Ok(p) => programs.push(p),
                Err(e) => {
                    // Those loaded already go back; the load's error is the one to report.
                    for p in programs {
                        let _ = self.unload(p);
                    }
                    return Err(e);
                }
            }
        }
        Ok(DemoKernels { programs, matmul: code.matmul, vector_add: code.vector_add })
    }
}
