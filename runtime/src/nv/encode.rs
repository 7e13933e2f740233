//! The NVIDIA encoders of the runtime core: push-buffer methods for the compute and the copy
//! channel. Semaphores are 64-bit (SEM_EXECUTE PAYLOAD_SIZE_64BIT): waits are circular >=
//! compares, so a timeline may run past 2^32 without a rewind. Releases wait for the engine to
//! go idle (RELEASE_WFI) and stamp the GPU time (ns) at +8, the second word of a signal slot.

use crate::core::{ComputeEncoder, CopyEncoder, Encoder, Patch, PatchWidth};
use crate::{Error, Result};
use baregpu_drivers::nv::methods::{ComputeCmds, CopyCmds};
use baregpu_drivers::nv::pushbuf::{host, PushBuffer};

const SEM_RELEASE: u32 = host::SEM_EXECUTE_OPERATION_RELEASE
    | host::SEM_EXECUTE_RELEASE_WFI
    | host::SEM_EXECUTE_PAYLOAD_SIZE_64BIT
    | host::SEM_EXECUTE_RELEASE_TIMESTAMP;
const SEM_ACQUIRE: u32 = host::SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ | host::SEM_EXECUTE_PAYLOAD_SIZE_64BIT;
/// The payload's low word within a semaphore method: header, ADDR_LO, ADDR_HI, PAYLOAD_LO.
const PAYLOAD_AT: usize = 3;

/// The push buffer an encoder fills, and the first error a method reported (pushbuffer methods
/// only fail on values out of their fields' range: a bug, not input).
#[derive(Default)]
pub struct Methods {
    pub pb: PushBuffer,
    error: Option<Error>,
}

impl Methods {
    pub(crate) fn record(&mut self, f: impl FnOnce(&mut PushBuffer) -> baregpu_drivers::Result<()>) {
        if let (Err(e), None) = (f(&mut self.pb), &self.error) {
            self.error = Some(Error::Driver(e));
        }
    }

    fn semaphore(&mut self, addr: u64, value: u64, execute: u32) -> Patch {
        let at = self.pb.len() + PAYLOAD_AT;
        self.record(|pb| pb.semaphore(addr, value, execute).map(|_| ()));
        Patch::new(at, PatchWidth::Bits64)
    }

    /// Release `value` (64-bit, with timestamp) after everything before it; with `interrupt`
    /// raise a non-stall interrupt.
    fn release(&mut self, addr: u64, value: u64, interrupt: bool) -> Patch {
        let p = self.semaphore(addr, value, SEM_RELEASE);
        if interrupt {
            self.record(|pb| pb.inc(0, host::NON_STALL_INTERRUPT, &[0]).map(|_| ()));
        }
        p
    }
}

impl Encoder for Methods {
    fn wait(&mut self, addr: u64, value: u64) -> Patch {
        self.semaphore(addr, value, SEM_ACQUIRE)
    }

    fn signal(&mut self, addr: u64, value: u64, interrupt: bool) -> Patch {
        self.release(addr, value, interrupt)
    }

    /// The semaphore release that carries the time also sets the value to 1.
    fn timestamp(&mut self, signal_addr: u64) {
        self.release(signal_addr, 1, true);
    }

    fn finish(&mut self) -> Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }

    fn words(&self) -> &[u32] {
        self.pb.words()
    }
}

/// Methods for one channel; `E` says which engine (compute or copy), so each gets only its own
/// commands while the ones both take are written once.
pub struct NvEncoder<E> {
    pub m: Methods,
    pub(crate) hopper_or_later: bool,
    engine: std::marker::PhantomData<E>,
}

/// The compute channel's engine.
pub enum ComputeEngine {}
/// The copy channel's engine.
pub enum CopyEngine {}

pub type NvCompute = NvEncoder<ComputeEngine>;
pub type NvCopy = NvEncoder<CopyEngine>;

impl<E> NvEncoder<E> {
    pub fn new(hopper_or_later: bool) -> Self {
        NvEncoder { m: Methods::default(), hopper_or_later, engine: std::marker::PhantomData }
    }
}

impl<E> Encoder for NvEncoder<E> {
    fn wait(&mut self, addr: u64, value: u64) -> Patch {
        self.m.wait(addr, value)
    }
    fn signal(&mut self, addr: u64, value: u64, interrupt: bool) -> Patch {
        self.m.signal(addr, value, interrupt)
    }
    fn timestamp(&mut self, signal_addr: u64) {
        self.m.timestamp(signal_addr)
    }
    fn finish(&mut self) -> Result<()> {
        self.m.finish()
    }
    fn words(&self) -> &[u32] {
        self.m.words()
    }
}

impl ComputeEncoder for NvCompute {
    /// Wait for idle (earlier launches of the channel finished: dependent launches may
    /// otherwise overlap), then invalidate the caches: earlier host and other engines' writes
    /// visible to later kernels.
    fn barrier(&mut self) {
        self.m.record(|pb| pb.inc(0, host::WFI, &[0]).map(|_| ()));
        self.m.record(ComputeCmds::invalidate_caches);
    }
}

impl CopyEncoder for NvCopy {
    /// Split at 2 GiB, as the engine's length field requires.
    fn copy(&mut self, dst: u64, src: u64, bytes: u64) {
        let hopper = self.hopper_or_later;
        self.m.record(|pb| CopyCmds::copy(pb, dst, src, bytes, hopper));
    }
}
