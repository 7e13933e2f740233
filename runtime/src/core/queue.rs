//! The hardware-queue builders: a [`ComputeQueue`] and a [`CopyQueue`] collect commands through
//! the backend's encoders, and `submit` ends them with the queue's completion release (and an
//! interrupt) and hands them to the backend's ring. A builder holds the device lock from
//! creation to submit: submissions on a device are serialised, and the completion value its
//! resources are tied to is known up front.

use super::last::{Last, Work};
use super::{Backend, ComputeEncoder, CopyEncoder, Device, Encoder, Queue, State};
use crate::alloc::RingAlloc;
use crate::program::{ArgValue, Launch};
use crate::signal::Signal;
use crate::{Error, Result};
use std::sync::MutexGuard;

pub struct ComputeQueue<'d, B: Backend> {
    pub(crate) dev: &'d Device<B>,
    pub(crate) st: MutexGuard<'d, State>,
    pub(crate) enc: B::Compute,
    /// The completion value this submission signals on the compute queue's counter.
    pub(crate) done: u64,
    pub(crate) what: Vec<Work>,
}

pub struct CopyQueue<'d, B: Backend> {
    pub(crate) dev: &'d Device<B>,
    pub(crate) st: MutexGuard<'d, State>,
    pub(crate) enc: B::Copy,
    pub(crate) done: u64,
    pub(crate) bytes: u64,
}

impl<B: Backend> Device<B> {
    /// A compute-queue builder. It holds the device until submitted (or dropped).
    pub fn compute_queue(&self) -> Result<ComputeQueue<'_, B>> {
        let st = self.state();
        self.usable(&st)?;
        let done = st.compute_done.last() + 1;
        Ok(ComputeQueue { dev: self, st, enc: self.backend.compute_encoder(), done, what: Vec::new() })
    }

    /// A copy-queue builder. Errors when the device has no copy engine.
    pub fn copy_queue(&self) -> Result<CopyQueue<'_, B>> {
        let st = self.state();
        self.usable(&st)?;
        let enc = self.backend.copy_encoder().ok_or_else(|| self.err(format!("no {} queue", B::QUEUE_NAMES[1])))?;
        let done = st.copy_done.last() + 1;
        Ok(CopyQueue { dev: self, st, enc, done, bytes: 0 })
    }

    /// Trace and submit `words` on `queue`, which signal `done` on its completion counter.
    fn submit_words(&self, st: &State, queue: Queue, words: &[u32], packets: &[usize], done: u64) -> Result<()> {
        let name = Self::queue_name(queue);
        if let Some(t) = &self.trace {
            self.backend.trace(t, &self.label, queue, &st.last.to_string(), words);
        }
        let counter = match queue {
            Queue::Compute => st.compute_done.signal(),
            Queue::Copy => st.copy_done.signal(),
        };
        let mut wait = |v: u64| self.wait_on(counter, v, name, &st.last);
        self.backend
            .submit(queue, words, packets, (counter, done), self.timeout, &mut wait)
            .map_err(|e| self.submit_error(queue, e, &st.last))
    }
}

impl<B: Backend> Device<B> {
    /// Run `dwords` of `queue`'s commands, encoded by the backend's encoders into GPU-visible
    /// memory at `va` (a command buffer built once, patched per run), then release the queue's
    /// completion counter. Returns the completion value that marks them done. Ordering against
    /// other work (the timeline) is the buffer's own business.
    pub fn submit_indirect(&self, queue: Queue, va: u64, dwords: u32) -> Result<u64> {
        self.submit_indirect_locked(&mut self.state(), queue, va, dwords)
    }

    /// [`Device::submit_indirect`] under the device lock the caller holds (a graph run
    /// advances the timeline and submits its buffers without another submission in between).
    pub(crate) fn submit_indirect_locked(&self, st: &mut State, queue: Queue, va: u64, dwords: u32) -> Result<u64> {
        self.usable(st)?;
        let name = Self::queue_name(queue);
        let (mut compute, mut copy);
        let tail: &mut dyn Encoder = match queue {
            Queue::Compute => {
                compute = self.backend.compute_encoder();
                &mut compute
            }
            Queue::Copy => {
                copy = self.backend.copy_encoder().ok_or_else(|| self.err(format!("no {name} queue")))?;
                &mut copy
            }
        };
        let counter = match queue {
            Queue::Compute => &mut st.compute_done,
            Queue::Copy => &mut st.copy_done,
        };
        let done = counter.last() + 1;
        tail.signal(counter.signal().value_addr() as u64, done, true);
        tail.finish()?;
        counter.advance();
        st.last = Last::Indirect { queue: name, va, dwords, done };
        let st = &*st;
        let counter = match queue {
            Queue::Compute => st.compute_done.signal(),
            Queue::Copy => st.copy_done.signal(),
        };
        if let Some(t) = &self.trace {
            self.backend.trace(t, &self.label, queue, &st.last.to_string(), tail.words());
        }
        let mut wait = |v: u64| self.wait_on(counter, v, name, &st.last);
        self.backend
            .submit_indirect(
                queue,
                (va, dwords),
                tail.words(),
                tail.packets(),
                (counter, done),
                self.timeout,
                &mut wait,
            )
            .map_err(|e| self.submit_error(queue, e, &st.last))?;
        Ok(done)
    }
}

impl<'d, B: Backend> ComputeQueue<'d, B> {
    /// Stall the queue until `signal` reaches `value` (the compare the GPU does: see `Width`).
    pub fn wait(&mut self, signal: &Signal, value: u64) -> &mut Self {
        self.enc.wait(signal.value_addr() as u64, value);
        self
    }

    /// After all earlier commands, write `value` to `signal`, and wake a sleeping host.
    pub fn signal(&mut self, signal: &Signal, value: u64) -> &mut Self {
        self.enc.signal(signal.value_addr() as u64, value, true);
        self
    }

    /// After all earlier commands, write the GPU time to the signal's timestamp word (on
    /// NVIDIA the release that carries it also sets the value to 1: use a signal of its own).
    pub fn timestamp(&mut self, signal: &Signal) -> &mut Self {
        self.enc.timestamp(signal.value_addr() as u64);
        self
    }

    /// Make earlier host and DMA writes visible to later kernels.
    pub fn memory_barrier(&mut self) -> &mut Self {
        self.enc.barrier();
        self
    }

    /// The backend's encoder, for vendor commands.
    pub fn encoder(&mut self) -> &mut B::Compute {
        &mut self.enc
    }

    /// Launch `kernel` of `prog` with `args`: its argument block goes into the device's argument
    /// ring (reused once the compute queue passed the submission that used it), then the
    /// dispatch. Checks the arguments against the kernel's metadata.
    pub fn exec(&mut self, prog: &B::Program, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<&mut Self> {
        let dev = self.dev;
        let block = dev.backend.args_block(prog, kernel, args, shape)?;
        let off = loop {
            let completed = self.st.compute_done.signal().value();
            match self.st.args.alloc(block.size, block.align, self.done, completed) {
                RingAlloc::Ok(o) => break o,
                RingAlloc::Wait(v) => {
                    let name = Device::<B>::queue_name(Queue::Compute);
                    dev.wait_on(self.st.compute_done.signal(), v, name, &self.st.last)?
                }
                RingAlloc::TooLarge => {
                    return Err(Error::Program(format!(
                        "kernel `{kernel}`: {} bytes of arguments do not fit the {}-byte argument ring",
                        block.size,
                        B::ARGS_BYTES
                    )))
                }
            }
        };
        let va = dev.args_base() + off;
        // SAFETY: inside the argument ring's allocation (reached through the port at its GPU
        // address), in a span the ring allocator says the GPU is done with; `bytes` fit `size`
        // (args_block).
        unsafe { dev.port().write(va, &block.bytes)? };
        let st = &*self.st;
        let mut drain = || {
            let name = Device::<B>::queue_name(Queue::Compute);
            dev.wait_on(st.compute_done.signal(), st.compute_done.last(), name, &st.last)
        };
        dev.backend.encode_dispatch(&mut self.enc, prog, kernel, shape, va, &mut drain)?;
        self.what.push(Work::Kernel { name: kernel.to_string(), grid: shape.grid, block: shape.block });
        Ok(self)
    }

    /// Record vendor set-up work for error reports.
    pub(crate) fn note(&mut self, what: String) {
        self.what.push(Work::Setup(what));
    }

    /// Put the commands on the ring. Returns the compute completion value that marks them done.
    pub fn submit(mut self) -> Result<u64> {
        let counter = self.st.compute_done.signal().value_addr() as u64;
        self.enc.signal(counter, self.done, true);
        self.enc.finish()?;
        let advanced = self.st.compute_done.advance();
        debug_assert_eq!(advanced, self.done);
        self.st.last = Last::Compute { what: std::mem::take(&mut self.what), done: self.done };
        self.dev.submit_words(&self.st, Queue::Compute, self.enc.words(), self.enc.packets(), self.done)?;
        Ok(self.done)
    }
}

impl<'d, B: Backend> CopyQueue<'d, B> {
    pub fn wait(&mut self, signal: &Signal, value: u64) -> &mut Self {
        self.enc.wait(signal.value_addr() as u64, value);
        self
    }

    pub fn signal(&mut self, signal: &Signal, value: u64) -> &mut Self {
        self.enc.signal(signal.value_addr() as u64, value, true);
        self
    }

    pub fn timestamp(&mut self, signal: &Signal) -> &mut Self {
        self.enc.timestamp(signal.value_addr() as u64);
        self
    }

    /// Copy `bytes` from GPU address `src` to `dst`.
    pub fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> &mut Self {
        self.enc.copy(dst, src, bytes);
        self.bytes += bytes;
        self
    }

    /// The backend's encoder, for vendor commands.
    pub fn encoder(&mut self) -> &mut B::Copy {
        &mut self.enc
    }

    pub fn submit(mut self) -> Result<u64> {
        let counter = self.st.copy_done.signal().value_addr() as u64;
        self.enc.signal(counter, self.done, true);
        self.enc.finish()?;
        let advanced = self.st.copy_done.advance();
        debug_assert_eq!(advanced, self.done);
        self.st.last = Last::Copy { what: B::COPY_WHAT, bytes: self.bytes, done: self.done };
        self.dev.submit_words(&self.st, Queue::Copy, self.enc.words(), self.enc.packets(), self.done)?;
        Ok(self.done)
    }
}
