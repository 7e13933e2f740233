//! The hardware-queue builders of the HCQ model: a [`ComputeQueue`] (PM4) and a [`CopyQueue`]
//! (SDMA) collect commands — wait, signal, timestamp, memory barrier, exec, copy — and `submit`
//! puts them on the engine's ring. Each submission ends by signalling its queue's completion
//! counter (what frees kernarg memory and what `synchronize` waits for) with a KFD interrupt, so
//! a host sleeping on events wakes.
//!
//! A builder holds the device's state lock from creation to submit: submissions on a device are
//! serialised, and the completion value a builder's resources are tied to is known up front.

use super::device::{dev_err, AmdDevice, Program, State};
use super::launch;
use crate::alloc::RingAlloc;
use crate::program::{kernargs, ArgValue, Launch};
use crate::signal::Signal;
use crate::{Error, Result};
use baregpu_drivers::amd::pm4::{Compare, Dispatch, Pm4, ReleaseData};
use baregpu_drivers::amd::sdma::Sdma;
use std::sync::MutexGuard;

pub struct ComputeQueue<'d> {
    pub(crate) dev: &'d AmdDevice,
    pub(crate) st: MutexGuard<'d, State>,
    pub(crate) q: Pm4,
    /// The completion value this submission signals on the compute queue's counter.
    pub(crate) done: u64,
    pub(crate) what: Vec<Work>,
}

/// What a submission held, kept for error reports and formatted only when one is written: the
/// submit path of a bound buffer costs a few word stores, not a string.
#[derive(Debug, Clone)]
pub(crate) enum Work {
    Kernel { name: String, grid: [u32; 3], block: [u32; 3] },
    Bound { dwords: u32, timeline: u64 },
}

impl std::fmt::Display for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Work::Kernel { name, grid, block } => write!(f, "kernel `{name}` grid {grid:?} block {block:?}"),
            Work::Bound { dwords, timeline } => {
                write!(f, "bound command buffer of {dwords} dwords (timeline {timeline})")
            }
        }
    }
}

/// The last submission of a device, for error reports.
#[derive(Debug, Clone, Default)]
pub(crate) enum Last {
    #[default]
    Nothing,
    Compute {
        what: Vec<Work>,
        done: u64,
    },
    Copy {
        bytes: u64,
        done: u64,
    },
}

impl std::fmt::Display for Last {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Last::Nothing => f.write_str("nothing"),
            Last::Compute { what, done } if what.is_empty() => write!(f, "commands (compute {done})"),
            Last::Compute { what, done } => {
                for (i, w) in what.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{w}")?;
                }
                write!(f, " (compute {done})")
            }
            Last::Copy { bytes, done } => write!(f, "SDMA copies of {bytes} bytes (copy {done})"),
        }
    }
}

impl<'d> ComputeQueue<'d> {
    /// Stall the queue until `signal` reaches `value` (32-bit compare, as the hardware).
    pub fn wait(&mut self, signal: Signal, value: u64) -> &mut Self {
        self.q.wait_mem(signal.value_addr() as u64, value as u32, 0xffff_ffff, Compare::GreaterEqual);
        self
    }

    /// After all earlier commands, write `value` to `signal` (caches written back), and wake a
    /// host sleeping on the device's event.
    pub fn signal(&mut self, signal: Signal, value: u64) -> &mut Self {
        self.q.release_mem(signal.value_addr() as u64, ReleaseData::U32(value as u32), true, None);
        self.dev.interrupt(&mut self.q);
        self
    }

    /// After all earlier commands, write the GPU clock (100 MHz) to the signal's timestamp.
    pub fn timestamp(&mut self, signal: Signal) -> &mut Self {
        self.q.release_mem(signal.timestamp_addr() as u64, ReleaseData::Timestamp, false, None);
        self
    }

    /// Make earlier CPU writes (through the BAR, and to host memory) visible to later GPU reads.
    pub fn memory_barrier(&mut self) -> &mut Self {
        self.dev.memory_barrier(&mut self.q);
        self
    }

    /// Launch `kernel` of `prog` with `args`. Checks the arguments against the kernel's metadata.
    pub fn exec(&mut self, prog: &Program, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<&mut Self> {
        let dev = self.dev;
        let k = prog.code.kernel(kernel).map_err(Error::Program)?;
        launch::check_shape(k, shape)?;
        let bytes = kernargs::build(&k.meta, args, shape).map_err(Error::Program)?;
        let rsrc2 = launch::rsrc2(k, shape, dev.lds_limit)?;
        let wants_packet = launch::wants_dispatch_packet(k);
        let size = bytes.len().max(16) as u64 + if wants_packet { 64 } else { 0 };
        let align = k.meta.kernarg_segment_align.max(16) as u64;
        let off = loop {
            let completed = self.st.compute_done.signal().value();
            match self.st.kernargs.alloc(size, align, self.done, completed) {
                RingAlloc::Ok(o) => break o,
                RingAlloc::Wait(v) => {
                    let sig = self.st.compute_done.signal();
                    dev.wait_signal(&self.st, sig, v, "compute")?
                }
                RingAlloc::TooLarge => {
                    return Err(Error::Program(format!("kernel `{kernel}`: {size} bytes of kernel arguments")))
                }
            }
        };
        let kernarg_va = self.st.kernarg_base + off;
        // SAFETY: inside the kernarg allocation, which the ring allocator says the GPU is done with.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), kernarg_va as *mut u8, bytes.len()) };
        let packet_va = kernarg_va + size - 64;
        if wants_packet {
            let pkt = launch::dispatch_packet(k, shape, prog.base() + k.descriptor_offset, kernarg_va);
            // SAFETY: the last 64 bytes of the same allocation.
            unsafe { std::ptr::copy_nonoverlapping(pkt.as_ptr(), packet_va as *mut u8, 64) };
        }
        self.st.dispatches += 1;
        let ptrs = launch::Pointers {
            kernargs: kernarg_va,
            dispatch_packet: packet_va,
            queue: self.st.compute.as_ref().map_or(0, |c| c.queue.pointers.va),
            dispatch_id: self.st.dispatches,
        };
        let user_data = launch::user_sgprs(k, &ptrs)?;
        let (scratch_base, tmpring_size) = match k.descriptor.private_segment_fixed_size {
            0 => (None, 0),
            n => {
                let wave = if launch::wave32(k) { 32 } else { 64 };
                let per_group = shape.block.iter().map(|&b| b as u64).product::<u64>().div_ceil(wave);
                let groups = shape.grid.iter().map(|&g| g as u64).product::<u64>();
                let (base, t) = dev.scratch(&mut self.st, n, per_group.saturating_mul(groups))?;
                (Some(base), t)
            }
        };
        self.q.dispatch(&Dispatch {
            entry: prog.base() + k.entry_offset,
            rsrc1: k.descriptor.compute_pgm_rsrc1,
            rsrc2,
            rsrc3: k.descriptor.compute_pgm_rsrc3,
            tmpring_size,
            scratch_base,
            user_data,
            grid: shape.grid,
            block: shape.block,
            wave32: launch::wave32(k),
        });
        self.what.push(Work::Kernel { name: kernel.to_string(), grid: shape.grid, block: shape.block });
        Ok(self)
    }

    /// Put the commands on the ring. Returns the compute completion value that marks them done.
    pub fn submit(mut self) -> Result<u64> {
        let dev = self.dev;
        let done_sig = self.st.compute_done.signal();
        self.q.release_mem(done_sig.value_addr() as u64, ReleaseData::U32(self.done as u32), true, None);
        dev.interrupt(&mut self.q);
        let advanced = self.st.compute_done.advance();
        debug_assert_eq!(advanced, self.done);
        self.st.last = Last::Compute { what: std::mem::take(&mut self.what), done: self.done };
        if let Some(t) = &dev.trace {
            t.pm4(&format!("{} compute queue: {}", dev.label, self.st.last), dev.pm4, self.q.words());
        }
        let timeout = dev.timeout;
        let st = &mut *self.st;
        let ring = st.compute.as_mut().ok_or_else(|| dev_err(&dev.label, "no compute queue"))?;
        ring.submit(self.q.words(), &[], timeout).map_err(|e| dev.ring_error("compute", e, &st.last.to_string()))?;
        Ok(self.done)
    }
}

pub struct CopyQueue<'d> {
    pub(crate) dev: &'d AmdDevice,
    pub(crate) st: MutexGuard<'d, State>,
    pub(crate) q: Sdma,
    pub(crate) done: u64,
    pub(crate) bytes: u64,
}

impl<'d> CopyQueue<'d> {
    pub fn wait(&mut self, signal: Signal, value: u64) -> &mut Self {
        self.q.poll_ge(signal.value_addr() as u64, value as u32, 0xffff_ffff);
        self
    }

    /// Write `value` (32 bits, as the engine's FENCE) after earlier commands, and wake the host.
    pub fn signal(&mut self, signal: Signal, value: u64) -> &mut Self {
        self.q.fence(signal.value_addr() as u64, value as u32);
        self.dev.interrupt_sdma(&mut self.q);
        self
    }

    pub fn timestamp(&mut self, signal: Signal) -> &mut Self {
        self.q.timestamp(signal.timestamp_addr() as u64);
        self
    }

    /// Copy `bytes` from GPU address `src` to `dst`, split as the engine's count field requires.
    pub fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> &mut Self {
        self.q.copy(dst, src, bytes);
        self.bytes += bytes;
        self
    }

    pub fn submit(mut self) -> Result<u64> {
        let dev = self.dev;
        let done_sig = self.st.copy_done.signal();
        self.q.fence(done_sig.value_addr() as u64, self.done as u32);
        dev.interrupt_sdma(&mut self.q);
        let advanced = self.st.copy_done.advance();
        debug_assert_eq!(advanced, self.done);
        self.st.last = Last::Copy { bytes: self.bytes, done: self.done };
        if let Some(t) = &dev.trace {
            t.sdma(&format!("{} SDMA queue: {}", dev.label, self.st.last), dev.sdma, self.q.words());
        }
        let timeout = dev.timeout;
        let st = &mut *self.st;
        let ring = st.copy.as_mut().ok_or_else(|| dev_err(&dev.label, "no SDMA queue"))?;
        ring.submit(self.q.words(), self.q.packets(), timeout)
            .map_err(|e| dev.ring_error("SDMA", e, &st.last.to_string()))?;
        Ok(self.done)
    }
}
