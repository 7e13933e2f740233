//! The vendor-neutral HCQ API: what every device of the runtime offers, AMD over KFD
//! ([`crate::amd::AmdDevice`]) and NVIDIA over RM ([`crate::nv::NvDevice`]), so that code
//! written once — the contract tests, tools, the graph layer — drives either. Both are the one
//! [`core::Device`], so the traits have one generic implementation.
//!
//! A device has buffers, signals, one timeline that orders its work, programs loaded from its
//! vendor's code objects, and two hardware queues: compute (waits, signals, timestamps, memory
//! barriers, kernel launches) and copy (waits, signals, timestamps, DMA copies). Queue builders
//! hold the device until `submit`, which returns the queue's completion value.

use crate::core::{self, Backend};
use crate::program::{ArgValue, Launch};
use crate::signal::Signal;
use crate::Result;

pub use crate::core::DeviceBuffer;

/// Commands both hardware queues take.
pub trait HwQueue: Sized {
    /// Stall the queue until `signal` reaches `value`.
    fn wait(&mut self, signal: &Signal, value: u64) -> &mut Self;
    /// After everything before it, write `value` to `signal`.
    fn signal(&mut self, signal: &Signal, value: u64) -> &mut Self;
    /// After everything before it, write the GPU time to the signal's timestamp word.
    fn timestamp(&mut self, signal: &Signal) -> &mut Self;
    /// Put the commands on the hardware queue; returns the queue's completion value.
    fn submit(self) -> Result<u64>;
}

/// The compute queue: launches too.
pub trait ComputeQueue: HwQueue {
    type Program;
    /// Make earlier host and DMA writes visible to later kernels.
    fn memory_barrier(&mut self) -> &mut Self;
    fn exec(&mut self, prog: &Self::Program, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<&mut Self>;
}

/// The copy queue: DMA copies between GPU addresses.
pub trait CopyQueue: HwQueue {
    fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> &mut Self;
}

/// A device of the HCQ model.
pub trait HcqDevice {
    type Buffer: DeviceBuffer;
    /// The vendor's code object (HSACO, cubin or PTX).
    type Code;
    type Program;
    /// A submitted launch (its timeline value and optional timestamps).
    type Submitted;
    type Compute<'d>: ComputeQueue<Program = Self::Program>
    where
        Self: 'd;
    type Copy<'d>: CopyQueue
    where
        Self: 'd;

    /// `amd:0`, `emu-nv:sm_90`: what errors call it.
    fn label(&self) -> &str;
    /// `gfx1100`, `sm_90`.
    fn arch(&self) -> &str;

    /// Device memory the CPU can also reach.
    fn alloc(&self, size: u64) -> Result<Self::Buffer>;
    /// Host memory the GPU maps.
    fn alloc_host(&self, size: u64) -> Result<Self::Buffer>;
    fn free(&self, b: Self::Buffer) -> Result<()>;
    /// Host bytes into a buffer the GPU is not using.
    fn write(&self, b: &Self::Buffer, offset: u64, data: &[u8]) -> Result<()>;
    /// Buffer bytes to the host, after the work that wrote them.
    fn read(&self, b: &Self::Buffer, offset: u64, out: &mut [u8]) -> Result<()>;

    fn load(&self, code: Self::Code) -> Result<Self::Program>;
    fn unload(&self, p: Self::Program) -> Result<()>;

    /// A signal slot, value and timestamp zeroed.
    fn new_signal(&self) -> Result<Signal>;
    fn free_signal(&self, s: Signal);
    /// The device timeline's signal and the last value submitted on it.
    fn timeline(&self) -> (Signal, u64);
    /// Wait (host side) until `signal` reaches `value`; faults and timeouts are errors.
    fn wait(&self, signal: &Signal, value: u64) -> Result<()>;
    /// Wait until the device timeline reaches `value`.
    fn wait_value(&self, value: u64) -> Result<()> {
        self.wait(&self.timeline().0, value)
    }

    fn compute_queue(&self) -> Result<Self::Compute<'_>>;
    fn copy_queue(&self) -> Result<Self::Copy<'_>>;

    /// Launch a kernel ordered on the device timeline (bracketed by timestamps with `profile`).
    fn launch(
        &self,
        prog: &Self::Program,
        kernel: &str,
        args: &[ArgValue],
        shape: &Launch,
        profile: bool,
    ) -> Result<Self::Submitted>;
    /// The timeline value that marks a launch's completion.
    fn submitted_value(&self, s: &Self::Submitted) -> u64;
    /// GPU microseconds of a profiled launch, once it completed.
    fn elapsed_us(&self, s: &Self::Submitted) -> Option<f64>;
    /// Give a launch's timestamp signals back.
    fn release(&self, s: Self::Submitted);
    /// Copy between buffers on the copy engine, ordered on the device timeline.
    fn copy(&self, dst: &Self::Buffer, dst_off: u64, src: &Self::Buffer, src_off: u64, bytes: u64) -> Result<()>;
    /// Wait for everything submitted.
    fn synchronize(&self) -> Result<()>;
}

impl<'d, B: Backend> HwQueue for core::ComputeQueue<'d, B> {
    fn wait(&mut self, signal: &Signal, value: u64) -> &mut Self {
        core::ComputeQueue::wait(self, signal, value)
    }
    fn signal(&mut self, signal: &Signal, value: u64) -> &mut Self {
        core::ComputeQueue::signal(self, signal, value)
    }
    fn timestamp(&mut self, signal: &Signal) -> &mut Self {
        core::ComputeQueue::timestamp(self, signal)
    }
    fn submit(self) -> Result<u64> {
        core::ComputeQueue::submit(self)
    }
}

impl<'d, B: Backend> ComputeQueue for core::ComputeQueue<'d, B> {
    type Program = B::Program;
    fn memory_barrier(&mut self) -> &mut Self {
        core::ComputeQueue::memory_barrier(self)
    }
    fn exec(&mut self, prog: &B::Program, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<&mut Self> {
        core::ComputeQueue::exec(self, prog, kernel, args, shape)
    }
}

impl<'d, B: Backend> HwQueue for core::CopyQueue<'d, B> {
    fn wait(&mut self, signal: &Signal, value: u64) -> &mut Self {
        core::CopyQueue::wait(self, signal, value)
    }
    fn signal(&mut self, signal: &Signal, value: u64) -> &mut Self {
        core::CopyQueue::signal(self, signal, value)
    }
    fn timestamp(&mut self, signal: &Signal) -> &mut Self {
        core::CopyQueue::timestamp(self, signal)
    }
    fn submit(self) -> Result<u64> {
        core::CopyQueue::submit(self)
    }
}

impl<'d, B: Backend> CopyQueue for core::CopyQueue<'d, B> {
    fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> &mut Self {
        core::CopyQueue::copy(self, dst, src, bytes)
    }
}

impl<B: Backend> HcqDevice for core::Device<B> {
    type Buffer = B::Buffer;
    type Code = B::Code;
    type Program = B::Program;
    type Submitted = core::Submitted;
    type Compute<'d> = core::ComputeQueue<'d, B>;
    type Copy<'d> = core::CopyQueue<'d, B>;

    fn label(&self) -> &str {
        &self.label
    }
    fn arch(&self) -> &str {
        &self.arch
    }
    fn alloc(&self, size: u64) -> Result<B::Buffer> {
        core::Device::alloc(self, size)
    }
    fn alloc_host(&self, size: u64) -> Result<B::Buffer> {
        core::Device::alloc_host(self, size)
    }
    fn free(&self, b: B::Buffer) -> Result<()> {
        core::Device::free(self, b)
    }
    fn write(&self, b: &B::Buffer, offset: u64, data: &[u8]) -> Result<()> {
        core::Device::write(self, b, offset, data)
    }
    fn read(&self, b: &B::Buffer, offset: u64, out: &mut [u8]) -> Result<()> {
        core::Device::read(self, b, offset, out)
    }
    fn load(&self, code: B::Code) -> Result<B::Program> {
        core::Device::load(self, code)
    }
    fn unload(&self, p: B::Program) -> Result<()> {
        core::Device::unload(self, p)
    }
    fn new_signal(&self) -> Result<Signal> {
        core::Device::new_signal(self)
    }
    fn free_signal(&self, s: Signal) {
        core::Device::free_signal(self, s)
    }
    fn timeline(&self) -> (Signal, u64) {
        core::Device::timeline(self)
    }
    fn wait(&self, signal: &Signal, value: u64) -> Result<()> {
        core::Device::wait(self, signal, value)
    }
    fn compute_queue(&self) -> Result<core::ComputeQueue<'_, B>> {
        core::Device::compute_queue(self)
    }
    fn copy_queue(&self) -> Result<core::CopyQueue<'_, B>> {
        core::Device::copy_queue(self)
    }
    fn launch(
        &self,
        prog: &B::Program,
        kernel: &str,
        args: &[ArgValue],
        shape: &Launch,
        profile: bool,
    ) -> Result<core::Submitted> {
        core::Device::launch(self, prog, kernel, args, shape, profile)
    }
    fn submitted_value(&self, s: &core::Submitted) -> u64 {
        s.value
    }
    fn elapsed_us(&self, s: &core::Submitted) -> Option<f64> {
        core::Device::elapsed_us(self, s)
    }
    fn release(&self, s: core::Submitted) {
        core::Device::release(self, s)
    }
    fn copy(&self, dst: &B::Buffer, dst_off: u64, src: &B::Buffer, src_off: u64, bytes: u64) -> Result<()> {
        core::Device::copy(self, dst, dst_off, src, src_off, bytes)
    }
    fn synchronize(&self) -> Result<()> {
        core::Device::synchronize(self)
    }
}
