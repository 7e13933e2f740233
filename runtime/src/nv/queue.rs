//! The hardware-queue builders on NVIDIA: a [`ComputeQueue`] (the compute channel) and a
//! [`CopyQueue`] (the copy-engine channel) collect methods — wait, signal, timestamp, memory
//! barrier, exec, copy — into a push buffer, and `submit` puts it on the channel's GPFIFO. Each
//! submission ends by releasing its channel's completion counter, which frees the push-buffer
//! and argument memory it used and is what `synchronize` waits for.
//!
//! Semaphores are 64-bit (SEM_EXECUTE PAYLOAD_SIZE_64BIT): waits are circular >= compares, so
//! a timeline may run past 2^32 without a rewind. Releases wait for the engine to go idle
//! (RELEASE_WFI) and stamp the GPU time (ns) at +8, the second word of a signal slot.

use super::device::{NvDevice, State};
use super::launch;
use super::program::NvKernel;
use super::Program;
use crate::alloc::RingAlloc;
use crate::program::{ArgValue, Launch};
use crate::signal::Signal;
use crate::{Error, Result};
use baregpu_drivers::nv::methods::{ComputeCmds, CopyCmds};
use baregpu_drivers::nv::pushbuf::{host, PushBuffer};
use baregpu_drivers::nv::qmd::Qmd;
use std::sync::MutexGuard;

const SEM_RELEASE: u32 = host::SEM_EXECUTE_OPERATION_RELEASE
    | host::SEM_EXECUTE_RELEASE_WFI
    | host::SEM_EXECUTE_PAYLOAD_SIZE_64BIT
    | host::SEM_EXECUTE_RELEASE_TIMESTAMP;
const SEM_ACQUIRE: u32 = host::SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ | host::SEM_EXECUTE_PAYLOAD_SIZE_64BIT;

/// Pushbuffer methods only fail on values out of their fields' range: a bug here, not input.
fn pb_err(e: baregpu_drivers::Error) -> Error {
    Error::Driver(e)
}

/// Release `value` (64-bit, with timestamp) to `signal` after everything before it, then raise
/// a non-stall interrupt.
pub(crate) fn release(pb: &mut PushBuffer, signal: Signal, value: u64) -> Result<()> {
    pb.semaphore(signal.value_addr() as u64, value, SEM_RELEASE).map_err(pb_err)?;
    pb.inc(0, host::NON_STALL_INTERRUPT, &[0]).map_err(pb_err)?;
    Ok(())
}

pub(crate) fn acquire(pb: &mut PushBuffer, signal: Signal, value: u64) -> Result<()> {
    pb.semaphore(signal.value_addr() as u64, value, SEM_ACQUIRE).map_err(pb_err)?;
    Ok(())
}

/// The push buffer a queue builder fills, and the first error an encoder reported (builder
/// calls chain, so errors wait for `submit`).
#[derive(Default)]
pub(crate) struct Methods {
    pub(crate) pb: PushBuffer,
    error: Option<Error>,
}

impl Methods {
    pub(crate) fn record(&mut self, f: impl FnOnce(&mut PushBuffer) -> Result<()>) {
        if let (Err(e), None) = (f(&mut self.pb), &self.error) {
            self.error = Some(e);
        }
    }

    fn wait(&mut self, signal: Signal, value: u64) {
        self.record(|pb| acquire(pb, signal, value));
    }

    fn signal(&mut self, signal: Signal, value: u64) {
        self.record(|pb| release(pb, signal, value));
    }

    /// The semaphore release that carries the time also sets the value to 1.
    fn timestamp(&mut self, signal: Signal) {
        self.record(|pb| release(pb, signal, 1));
    }

    /// The methods, ending with the release of `done` on the channel's completion counter.
    fn finish(&mut self, counter: Signal, done: u64) -> Result<&[u32]> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        release(&mut self.pb, counter, done)?;
        Ok(self.pb.words())
    }
}

pub struct ComputeQueue<'d> {
    pub(crate) dev: &'d NvDevice,
    pub(crate) st: MutexGuard<'d, State>,
    pub(crate) m: Methods,
    /// The completion value this submission releases on the compute counter.
    pub(crate) done: u64,
    pub(crate) what: Vec<String>,
}

impl<'d> ComputeQueue<'d> {
    /// Stall the channel until `signal` reaches `value` (64-bit circular compare).
    pub fn wait(&mut self, signal: Signal, value: u64) -> &mut Self {
        self.m.wait(signal, value);
        self
    }

    /// After all earlier work, write `value` to `signal` (with the GPU time at +8).
    pub fn signal(&mut self, signal: Signal, value: u64) -> &mut Self {
        self.m.signal(signal, value);
        self
    }

    /// After all earlier work, write the GPU time (ns) to the signal's timestamp word. The
    /// semaphore release that carries it also sets the value to 1: use a signal of its own.
    pub fn timestamp(&mut self, signal: Signal) -> &mut Self {
        self.m.timestamp(signal);
        self
    }

    /// Make earlier host writes and other engines' writes visible to later kernels.
    pub fn memory_barrier(&mut self) -> &mut Self {
        self.m.record(|pb| ComputeCmds::invalidate_caches(pb).map_err(pb_err));
        self
    }

    /// Launch `kernel` of `prog`: its constant bank 0 and QMD go into the argument ring, and
    /// SEND_PCAS_A / SEND_SIGNALING_PCAS2_B schedule the QMD.
    pub fn exec(&mut self, prog: &Program, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<&mut Self> {
        let dev = self.dev;
        let k = prog.kernel(kernel)?;
        check_shape(k, shape)?;
        let cb0 = launch::constant_bank0(k, args, dev.sm).map_err(Error::Program)?;
        let cb0_span = (cb0.len() as u64).div_ceil(256) * 256;
        let size = cb0_span + dev.qmd.bytes() as u64;
        let off = loop {
            let completed = self.st.compute_done.signal().value();
            match self.st.args.alloc(size, 256, self.done, completed) {
                RingAlloc::Ok(o) => break o,
                RingAlloc::Wait(v) => {
                    let sig = self.st.compute_done.signal();
                    dev.wait_signal(&self.st, sig, v, "compute")?
                }
                RingAlloc::TooLarge => {
                    return Err(Error::Program(format!("kernel `{kernel}`: {size} bytes of constant bank 0 and QMD")))
                }
            }
        };
        let cb0_va = self.st.args_base + off;
        let qmd_va = cb0_va + cb0_span;
        let desc = launch::descriptor(k, prog.base(), cb0_va, cb0.len(), shape, dev.sm);
        let q = Qmd::launch(dev.qmd, &desc).map_err(|e| dev.err(format!("kernel `{kernel}`: {e}")))?;
        let qb = q.to_bytes();
        // SAFETY: inside the argument allocation (CPU-visible, mapped at its GPU address), in a
        // span the ring allocator says the GPU is done with.
        unsafe {
            std::ptr::copy_nonoverlapping(cb0.as_ptr(), cb0_va as *mut u8, cb0.len());
            std::ptr::copy_nonoverlapping(qb.as_ptr(), qmd_va as *mut u8, qb.len());
        }
        ComputeCmds::launch(&mut self.m.pb, qmd_va).map_err(pb_err)?;
        self.what.push(format!("kernel `{kernel}` grid {:?} block {:?}", shape.grid, shape.block));
        Ok(self)
    }

    /// Put the methods on the compute channel. Returns the completion value that marks them done.
    pub fn submit(mut self) -> Result<u64> {
        let words = self.m.finish(self.st.compute_done.signal(), self.done)?;
        let advanced = self.st.compute_done.advance();
        debug_assert_eq!(advanced, self.done);
        let what = if self.what.is_empty() { "commands".to_string() } else { self.what.join(", ") };
        self.st.last = format!("{what} (compute {})", self.done);
        self.dev.submit_on(&mut self.st, Channel::Compute, words, self.done)?;
        Ok(self.done)
    }
}

/// Launch limits: at most 1024 threads, and what the kernel declares (`.reqntid`/`.maxntid`).
fn check_shape(k: &NvKernel, shape: &Launch) -> Result<()> {
    let threads: u64 = shape.block.iter().map(|&d| d as u64).product();
    let fail = |m: String| Err(Error::Program(format!("kernel `{}`: {m}", k.name)));
    if shape.grid.contains(&0) || shape.block.contains(&0) {
        return fail(format!("grid {:?} block {:?} has a zero dimension", shape.grid, shape.block));
    }
    if threads > 1024 || shape.block[2] > 64 {
        return fail(format!("block {:?} exceeds 1024 threads (or 64 in z)", shape.block));
    }
    if shape.grid[1] > 65535 || shape.grid[2] > 65535 || shape.grid[0] > i32::MAX as u32 {
        return fail(format!("grid {:?} exceeds (2^31-1, 65535, 65535)", shape.grid));
    }
    if let Some(r) = k.required_block.filter(|r| *r != shape.block) {
        return fail(format!("requires block {r:?} (.reqntid), {:?} given", shape.block));
    }
    if let Some(m) = k.max_block.filter(|m| threads > m.iter().map(|&d| d as u64).product()) {
        return fail(format!("allows at most block {m:?} (.maxntid), {:?} given", shape.block));
    }
    Ok(())
}

/// Which channel of the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    Compute,
    Copy,
}

pub struct CopyQueue<'d> {
    pub(crate) dev: &'d NvDevice,
    pub(crate) st: MutexGuard<'d, State>,
    pub(crate) m: Methods,
    pub(crate) done: u64,
    pub(crate) bytes: u64,
}

impl<'d> CopyQueue<'d> {
    pub fn wait(&mut self, signal: Signal, value: u64) -> &mut Self {
        self.m.wait(signal, value);
        self
    }

    pub fn signal(&mut self, signal: Signal, value: u64) -> &mut Self {
        self.m.signal(signal, value);
        self
    }

    pub fn timestamp(&mut self, signal: Signal) -> &mut Self {
        self.m.timestamp(signal);
        self
    }

    /// Copy `bytes` from GPU address `src` to `dst` on the copy engine (split at 2 GiB).
    pub fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> &mut Self {
        let hopper = self.dev.hopper_or_later;
        self.m.record(|pb| CopyCmds::copy(pb, dst, src, bytes, hopper).map_err(pb_err));
        self.bytes += bytes;
        self
    }

    pub fn submit(mut self) -> Result<u64> {
        let words = self.m.finish(self.st.copy_done.signal(), self.done)?;
        let advanced = self.st.copy_done.advance();
        debug_assert_eq!(advanced, self.done);
        self.st.last = format!("copies of {} bytes (copy {})", self.bytes, self.done);
        self.dev.submit_on(&mut self.st, Channel::Copy, words, self.done)?;
        Ok(self.done)
    }
}
