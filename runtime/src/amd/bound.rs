//! Bound command buffers: PM4 commands encoded once into GPU-visible memory, re-submitted by
//! patching the few words that change (the timeline wait and signal values, and any values the
//! caller marked) and ringing a single INDIRECT_BUFFER packet.

use super::device::AmdDevice;
use crate::core::{Backend, Encoder, Work};
use baregpu_drivers::amd::kfd::{KfdMemory, MemKind};
use baregpu_drivers::amd::pm4::Pm4;

/// A bound command buffer. Free it with [`AmdDevice::unbind`].
#[derive(Debug)]
pub struct BoundCommands {
    pub(crate) ib: KfdMemory,
    pub(crate) dwords: u32,
    /// Word index of the timeline-wait reference.
    pub(crate) wait_at: usize,
    /// Word index of the timeline-signal value.
    pub(crate) signal_at: usize,
    /// Word indices of the caller's patchable values, in the order `submit_bound` takes them.
    pub(crate) patches: Vec<usize>,
    /// Timeline value of the last submission: the buffer may be patched again only after it.
    pub(crate) last: u64,
    /// The timeline signal the wait and signal packets point at.
    pub(crate) timeline_addr: u64,
}

impl BoundCommands {
    pub fn dwords(&self) -> u32 {
        self.dwords
    }

    pub fn patch_count(&self) -> usize {
        self.patches.len()
    }

    pub(crate) fn store(&self, index: usize, value: u32) {
        assert!(index < self.dwords as usize, "patch index {index} outside {} dwords", self.dwords);
        // SAFETY: inside the IB allocation, which is CPU-mapped (uncached GTT); the GPU is not
        // executing it (submit_bound waits for the previous run first).
        unsafe { std::ptr::write_volatile((self.ib.va + index as u64 * 4) as *mut u32, value) };
    }
}

impl AmdDevice {
    /// Encode `body` between a timeline wait and a timeline signal into a buffer of its own.
    /// `body` returns the word indices (into the builder's stream) of the values it wants to
    /// patch at each submission.
    pub fn bind(&self, body: impl FnOnce(&mut Pm4) -> Vec<usize>) -> crate::Result<BoundCommands> {
        let (q, wait_at, signal_at, patches) = self.encode_bound(body);
        if let Some(t) = self.trace() {
            t.pm4(
                &format!("{} bound command buffer (timeline values patched per submission)", self.label),
                self.backend().pm4,
                q.words(),
            );
        }
        let bytes = (q.len() * 4) as u64;
        let ib = self.kfd_device().alloc_internal(bytes, MemKind::Uncached)?;
        let timeline_addr = q.words()[wait_at - 2] as u64 | (q.words()[wait_at - 1] as u64) << 32;
        let b = BoundCommands { ib, dwords: q.len() as u32, wait_at, signal_at, patches, last: 0, timeline_addr };
        for (i, &w) in q.words().iter().enumerate() {
            b.store(i, w);
        }
        Ok(b)
    }

    pub fn unbind(&self, b: BoundCommands) -> crate::Result<()> {
        if b.last > 0 {
            self.wait_value(b.last)?;
        }
        Ok(self.kfd_device().free(b.ib)?)
    }
}

impl AmdDevice {
    /// Submit a bound buffer with new values for its patch points: the host cost is a few word
    /// stores and one INDIRECT_BUFFER packet. Returns the timeline value that marks completion.
    pub fn submit_bound(&self, b: &mut BoundCommands, values: &[u32]) -> crate::Result<u64> {
        if values.len() != b.patches.len() {
            return Err(self.err(format!("{} patch values for {} patch points", values.len(), b.patches.len())));
        }
        if b.last > 0 && !self.timeline().0.reached(b.last) {
            self.wait_value(b.last)?;
        }
        let mut q = self.compute_queue()?;
        let value = q.st.timeline.advance();
        // The timeline moves to its other slot when it wraps or after recovery: re-point the
        // wait and the signal (their address is the two words before each patched value).
        let addr = q.st.timeline.signal().value_addr() as u64;
        if addr != b.timeline_addr {
            for at in [b.wait_at, b.signal_at] {
                b.store(at - 2, addr as u32);
                b.store(at - 1, (addr >> 32) as u32);
            }
            b.timeline_addr = addr;
        }
        b.store(b.wait_at, (value - 1) as u32);
        b.store(b.signal_at, value as u32);
        for (&at, &v) in b.patches.iter().zip(values) {
            b.store(at, v);
        }
        b.last = value;
        q.enc.indirect(b.ib.va, b.dwords);
        q.what.push(Work::Bound { dwords: b.dwords, timeline: value });
        q.submit()?;
        Ok(value)
    }

    /// The command stream of a bound buffer: timeline wait, `body`, timeline signal and the
    /// KFD interrupt. Returns it with the wait, signal and caller patch indices.
    fn encode_bound(&self, body: impl FnOnce(&mut Pm4) -> Vec<usize>) -> (Pm4, usize, usize, Vec<usize>) {
        let timeline = self.timeline().0.value_addr() as u64;
        let mut enc = self.backend().compute_encoder();
        let wait_at = enc.wait(timeline, 0).at;
        let patches = body(&mut enc.q);
        let signal_at = enc.signal(timeline, 0, true).at;
        (enc.q, wait_at, signal_at, patches)
    }
}
