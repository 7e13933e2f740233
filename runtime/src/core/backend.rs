//! What a vendor supplies to the runtime core: encoders that append command words and return
//! patch sites, the vendor half of a launch (argument block, dispatch), submission to its rings,
//! the sleep between signal polls, and optional recovery. Everything else (memory checks, the
//! signal pool, the timeline, the argument ring, waits, timeouts, fault reports) is the core's,
//! written once in [`super::Device`].

use super::Device;
use crate::program::{ArgValue, Launch};
use crate::signal::{Signal, Width};
use crate::trace::Trace;
use crate::{Error, Result};
use std::time::Duration;

/// Device memory with one GPU address (equal to its CPU address when it is CPU-visible).
pub trait DeviceBuffer {
    fn va(&self) -> u64;
    fn size(&self) -> u64;
    fn host_visible(&self) -> bool;
}

/// The two hardware queues of a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queue {
    Compute,
    Copy,
}

/// How wide a patched value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchWidth {
    Bits32,
    /// Two words, low then high, at any 4-byte offset; always stored as two u32 stores.
    Bits64,
}

/// A word of an encoded stream that a later run may rewrite (a wait's reference, a signal's
/// value, an address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patch {
    /// Index of the (first) word in the encoder's stream.
    pub at: usize,
    pub width: PatchWidth,
}

impl Patch {
    pub fn new(at: usize, width: PatchWidth) -> Patch {
        Patch { at, width }
    }

    /// The patch site shifted by `base` words (the stream was appended at that offset).
    pub fn offset(self, base: usize) -> Patch {
        Patch { at: self.at + base, ..self }
    }

    /// Write `value` into `words` (a copy of the stream, or its memory).
    pub fn apply(self, words: &mut [u32], value: u64) {
        words[self.at] = value as u32;
        if self.width == PatchWidth::Bits64 {
            words[self.at + 1] = (value >> 32) as u32;
        }
    }
}

/// What kind of memory to allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mem {
    /// Device memory the CPU can also map.
    Device,
    /// Host memory the GPU maps.
    Host,
    /// The device's signal page: CPU-mapped, coherent, kept until close.
    Signals,
    /// The device's argument ring: CPU-mapped, GPU-readable, kept until close.
    Args,
}

/// The argument memory of one launch, before it has an address: `bytes` go at its start, the
/// vendor's address-dependent tail (AMD dispatch packet, NVIDIA QMD) is written by
/// [`Backend::encode_dispatch`] once the block has its address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgsBlock {
    pub bytes: Vec<u8>,
    /// Bytes to reserve in all (`bytes` and the tail).
    pub size: u64,
    pub align: u64,
    /// Where each argument lies in `bytes`: (offset, size), in the kernel's order.
    pub args: Vec<(u64, u64)>,
}

/// Why a submission did not reach its ring.
#[derive(Debug)]
pub enum SubmitError {
    /// The ring cannot take the words (too many, or no such queue): the message says why.
    Refused(String),
    /// The engine consumed nothing for the whole timeout.
    Stalled { reached: u64, wanted: u64 },
    /// Anything else (a wait for space that faulted, a driver error).
    Failed(Error),
}

/// Commands both queues take. Values are masked to the device's signal width by the GPU.
pub trait Encoder {
    /// Stall until the value at `addr` is >= `value`; the patch site is the reference.
    fn wait(&mut self, addr: u64, value: u64) -> Patch;
    /// After everything before it, write `value` to `addr`; `interrupt` wakes a sleeping host.
    fn signal(&mut self, addr: u64, value: u64, interrupt: bool) -> Patch;
    /// After everything before it, write the GPU time to the timestamp word of the signal slot
    /// at `signal_addr` (NVIDIA's release that carries it also sets the value to 1).
    fn timestamp(&mut self, signal_addr: u64);
    /// The first error an encoding reported (encoders chain, so errors wait for the end).
    fn finish(&mut self) -> Result<()>;
    /// The words so far.
    fn words(&self) -> &[u32];
    /// Packet lengths, where the ring must not split a packet (SDMA); empty otherwise.
    fn packets(&self) -> &[usize] {
        &[]
    }
    /// Words encoded so far.
    fn len(&self) -> usize {
        self.words().len()
    }
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub trait ComputeEncoder: Encoder {
    /// Earlier host and DMA writes visible, and earlier dispatches finished, before later work.
    fn barrier(&mut self);
}

pub trait CopyEncoder: Encoder {
    /// Copy `bytes` from GPU address `src` to `dst`.
    fn copy(&mut self, dst: u64, src: u64, bytes: u64);
}

/// One vendor's half of a device.
pub trait Backend: Sized + Send + Sync + 'static {
    type Buffer: DeviceBuffer + Send + 'static;
    /// The vendor's code object (HSACO, cubin or PTX).
    type Code;
    type Program;
    type Compute: ComputeEncoder;
    type Copy: CopyEncoder;

    /// How much of a signal the GPU writes and compares.
    const WIDTH: Width;
    /// Timestamp ticks per second.
    const TIMESTAMP_HZ: u64;
    /// Size of the ring that eager launches take their argument blocks from.
    const ARGS_BYTES: u64;
    /// The queues' names in errors: compute, copy.
    const QUEUE_NAMES: [&'static str; 2];
    /// How a copy submission is described in the last-submitted record.
    const COPY_WHAT: &'static str;

    fn alloc(&self, size: u64, mem: Mem) -> Result<Self::Buffer>;
    fn free(&self, b: Self::Buffer) -> Result<()>;
    /// How the host reaches the device's CPU-visible memory: through its address (every
    /// device whose memory is mapped in this process), or by calls over a link.
    fn port(&self) -> &crate::port::Port {
        &crate::port::LOCAL
    }
    /// Map host memory `b` of this device for `peer`'s GPU too, at the same address (until `b`
    /// is freed); why not, where the two GPUs cannot share it.
    fn map_for_peer(&self, b: &Self::Buffer, peer: &Self) -> std::result::Result<(), String> {
        let _ = (b, peer);
        Err("this backend maps no memory for a second GPU".into())
    }
    /// Check and place a code object (the device's `label` names it in errors).
    fn load(&self, label: &str, code: Self::Code) -> Result<Self::Program>;
    fn unload(&self, p: Self::Program) -> Result<()>;
    /// Device-wide setup a loaded program needs before it runs (NVIDIA: local memory).
    fn prepare(_dev: &Device<Self>, _p: &Self::Program) -> Result<()> {
        Ok(())
    }

    fn compute_encoder(&self) -> Self::Compute;
    /// None where the device has no copy engine (the core copies through the CPU).
    fn copy_encoder(&self) -> Option<Self::Copy>;

    /// The launch's argument memory, checked against the kernel's metadata.
    fn args_block(&self, prog: &Self::Program, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<ArgsBlock>;
    /// Encode the dispatch of a launch whose [`ArgsBlock`] lies at `args_va` (CPU-mapped, its
    /// bytes already written). `drain` waits until earlier compute work finished, for resources
    /// that must be replaced (AMD scratch).
    fn encode_dispatch(
        &self,
        enc: &mut Self::Compute,
        prog: &Self::Program,
        kernel: &str,
        shape: &Launch,
        args_va: u64,
        drain: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()>;

    /// Put `words` (which end with the queue's completion release and interrupt) on `queue`'s
    /// ring: ring writes, release fence, write pointer, fence, doorbell. `done_value` is what
    /// that release writes to `done`; `wait` blocks until `done` reaches a value (for space).
    fn submit(
        &self,
        queue: Queue,
        words: &[u32],
        packets: &[usize],
        done: (&Signal, u64),
        timeout: Duration,
        wait: &mut dyn FnMut(u64) -> Result<()>,
    ) -> std::result::Result<(), SubmitError>;

    /// Run `dwords` of `queue`'s commands that already sit in GPU-visible memory at `va`, then
    /// `tail` (which ends with the completion release and interrupt), as [`Backend::submit`]
    /// does: AMD puts an INDIRECT_BUFFER (compute) or SDMA INDIRECT (copy) packet ahead of the
    /// tail; NVIDIA a GP entry pointing at the segment ahead of the tail's.
    #[allow(clippy::too_many_arguments)]
    fn submit_indirect(
        &self,
        queue: Queue,
        segment: (u64, u32),
        tail: &[u32],
        tail_packets: &[usize],
        done: (&Signal, u64),
        timeout: Duration,
        wait: &mut dyn FnMut(u64) -> Result<()>,
    ) -> std::result::Result<(), SubmitError>;

    /// Sleep up to `d` between polls of a signal; a fault the device reported ends the wait.
    fn sleep(&self, d: Duration) -> std::result::Result<(), String>;
    /// Rebuild the queues after a fault or hang: `Ok(true)` when the device is usable again,
    /// `Ok(false)` where it must be reopened.
    fn recover(&self) -> Result<bool>;
    /// What an unusable device says, after `why`.
    fn broken_message(why: &str) -> String;
    /// Log a submission, decoded, to `BAREGPU_TRACE`.
    fn trace(&self, t: &Trace, label: &str, queue: Queue, what: &str, words: &[u32]);
    /// Whether closing waits for submitted work first (its memory is freed next).
    const DRAIN_ON_CLOSE: bool;
    /// Give back what the backend holds (queues, events, scratch) as the device closes.
    fn close(&mut self);
}
