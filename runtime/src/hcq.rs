//! The vendor-neutral HCQ API: what every device of the runtime offers, AMD over KFD
//! ([`crate::amd::AmdDevice`]) and NVIDIA over RM ([`crate::nv::NvDevice`]), so that code
//! written once — the contract tests, tools, the graph layer — drives either.
//!
//! A device has buffers, signals, one timeline that orders its work, programs loaded from its
//! vendor's code objects, and two hardware queues: compute (waits, signals, timestamps, memory
//! barriers, kernel launches) and copy (waits, signals, timestamps, DMA copies). Queue builders
//! hold the device until `submit`, which returns the queue's completion value.

use crate::program::{ArgValue, Launch};
use crate::signal::Signal;
use crate::Result;

/// Device memory with one GPU address (equal to its CPU address when it is CPU-visible).
pub trait DeviceBuffer {
    fn va(&self) -> u64;
    fn size(&self) -> u64;
    fn host_visible(&self) -> bool;
}

/// Commands both hardware queues take.
pub trait HwQueue: Sized {
    /// Stall the queue until `signal` reaches `value`.
    fn wait(&mut self, signal: Signal, value: u64) -> &mut Self;
    /// After everything before it, write `value` to `signal`.
    fn signal(&mut self, signal: Signal, value: u64) -> &mut Self;
    /// After everything before it, write the GPU time to the signal's timestamp word.
    fn timestamp(&mut self, signal: Signal) -> &mut Self;
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
    fn wait(&self, signal: Signal, value: u64) -> Result<()>;
    /// Wait until the device timeline reaches `value`.
    fn wait_value(&self, value: u64) -> Result<()> {
        self.wait(self.timeline().0, value)
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

/// `impl`s of the traits by forwarding to the devices' inherent methods of the same names.
macro_rules! forward_device {
    ($dev:ty, $buf:ty, $code:ty, $prog:ty, $sub:ty, $cq:ident, $xq:ident) => {
        impl DeviceBuffer for $buf {
            fn va(&self) -> u64 {
                <$buf>::va(self)
            }
            fn size(&self) -> u64 {
                <$buf>::size(self)
            }
            fn host_visible(&self) -> bool {
                <$buf>::host_visible(self)
            }
        }

        impl<'d> HwQueue for $cq<'d> {
            fn wait(&mut self, signal: Signal, value: u64) -> &mut Self {
                $cq::wait(self, signal, value)
            }
            fn signal(&mut self, signal: Signal, value: u64) -> &mut Self {
                $cq::signal(self, signal, value)
            }
            fn timestamp(&mut self, signal: Signal) -> &mut Self {
                $cq::timestamp(self, signal)
            }
            fn submit(self) -> Result<u64> {
                $cq::submit(self)
            }
        }

        impl<'d> ComputeQueue for $cq<'d> {
            type Program = $prog;
            fn memory_barrier(&mut self) -> &mut Self {
                $cq::memory_barrier(self)
            }
            fn exec(&mut self, prog: &$prog, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<&mut Self> {
                $cq::exec(self, prog, kernel, args, shape)
            }
        }

        impl<'d> HwQueue for $xq<'d> {
            fn wait(&mut self, signal: Signal, value: u64) -> &mut Self {
                $xq::wait(self, signal, value)
            }
            fn signal(&mut self, signal: Signal, value: u64) -> &mut Self {
                $xq::signal(self, signal, value)
            }
            fn timestamp(&mut self, signal: Signal) -> &mut Self {
                $xq::timestamp(self, signal)
            }
            fn submit(self) -> Result<u64> {
                $xq::submit(self)
            }
        }

        impl<'d> CopyQueue for $xq<'d> {
            fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> &mut Self {
                $xq::copy(self, dst, src, bytes)
            }
        }

        impl HcqDevice for $dev {
            type Buffer = $buf;
            type Code = $code;
            type Program = $prog;
            type Submitted = $sub;
            type Compute<'d> = $cq<'d>;
            type Copy<'d> = $xq<'d>;

            fn label(&self) -> &str {
                &self.label
            }
            fn arch(&self) -> &str {
                &self.arch
            }
            fn alloc(&self, size: u64) -> Result<$buf> {
                <$dev>::alloc(self, size)
            }
            fn alloc_host(&self, size: u64) -> Result<$buf> {
                <$dev>::alloc_host(self, size)
            }
            fn free(&self, b: $buf) -> Result<()> {
                <$dev>::free(self, b)
            }
            fn write(&self, b: &$buf, offset: u64, data: &[u8]) -> Result<()> {
                <$dev>::write(self, b, offset, data)
            }
            fn read(&self, b: &$buf, offset: u64, out: &mut [u8]) -> Result<()> {
                <$dev>::read(self, b, offset, out)
            }
            fn load(&self, code: $code) -> Result<$prog> {
                <$dev>::load(self, code)
            }
            fn unload(&self, p: $prog) -> Result<()> {
                <$dev>::unload(self, p)
            }
            fn new_signal(&self) -> Result<Signal> {
                <$dev>::new_signal(self)
            }
            fn free_signal(&self, s: Signal) {
                <$dev>::free_signal(self, s)
            }
            fn timeline(&self) -> (Signal, u64) {
                <$dev>::timeline(self)
            }
            fn wait(&self, signal: Signal, value: u64) -> Result<()> {
                <$dev>::wait(self, signal, value)
            }
            fn compute_queue(&self) -> Result<$cq<'_>> {
                <$dev>::compute_queue(self)
            }
            fn copy_queue(&self) -> Result<$xq<'_>> {
                <$dev>::copy_queue(self)
            }
            fn launch(
                &self,
                prog: &$prog,
                kernel: &str,
                args: &[ArgValue],
                shape: &Launch,
                profile: bool,
            ) -> Result<$sub> {
                <$dev>::launch(self, prog, kernel, args, shape, profile)
            }
            fn submitted_value(&self, s: &$sub) -> u64 {
                s.value
            }
            fn elapsed_us(&self, s: &$sub) -> Option<f64> {
                <$dev>::elapsed_us(self, s)
            }
            fn release(&self, s: $sub) {
                <$dev>::release(self, s)
            }
            fn copy(&self, dst: &$buf, dst_off: u64, src: &$buf, src_off: u64, bytes: u64) -> Result<()> {
                <$dev>::copy(self, dst, dst_off, src, src_off, bytes)
            }
            fn synchronize(&self) -> Result<()> {
                <$dev>::synchronize(self)
            }
        }
    };
}

mod amd_impl {
    use super::*;
    use crate::amd::{AmdDevice, Buffer, ComputeQueue as AmdCompute, CopyQueue as AmdCopy, Program, Submitted};
    use crate::program::CodeObject;
    forward_device!(AmdDevice, Buffer, CodeObject, Program, Submitted, AmdCompute, AmdCopy);
}

mod nv_impl {
    use super::*;
    use crate::nv::{Buffer, ComputeQueue as NvCompute, CopyQueue as NvCopy, NvCode, NvDevice, Program, Submitted};
    forward_device!(NvDevice, Buffer, NvCode, Program, Submitted, NvCompute, NvCopy);
}
