//! Submitting push buffers on a GPFIFO channel: the words go into a push-buffer ring in
//! CPU-visible VRAM, a GP entry pointing at them into the channel's ring, GPPut into USERD, and
//! the work-submit token into the doorbell. Both rings have back-pressure: push-buffer space is
//! reused only once the submission that used it has signalled its completion value, and a GP
//! entry is written only while the ring has a free slot by the GPGet the GPU reports.

use crate::alloc::{Ring, RingAlloc};
use crate::signal::Signal;
use baregpu_drivers::nv::device::{Channel, NvDevice as RmDevice};
use baregpu_drivers::nv::pushbuf::{self, GpEntry, GpLevel};
use std::sync::atomic::{fence, Ordering};
use std::time::{Duration, Instant};

/// Why a submission could not be placed.
#[derive(Debug)]
pub(crate) enum GpFifoError {
    /// Larger than the push-buffer ring (or than a GP entry can describe).
    TooLarge { bytes: u64 },
    /// The GPU did not consume a GP entry for the whole timeout.
    Stalled { gp_get: u32, put: u32 },
    /// Waiting for push-buffer space failed (a fault or a timeout, already an error).
    Wait(crate::Error),
}

pub(crate) struct GpFifo {
    /// Index of the channel in the driver's list (0 compute, 1 copy).
    pub channel: usize,
    /// GP entries written so far (monotonic).
    put: u64,
    pb_base: u64,
    pb: Ring,
}

impl GpFifo {
    pub fn new(channel: usize, pb_base: u64, pb_bytes: u64) -> GpFifo {
        GpFifo { channel, put: 0, pb_base, pb: Ring::new(pb_bytes) }
    }

    fn gp_get(ch: &Channel) -> u32 {
        // SAFETY: USERD lies in the CPU-mapped GPFIFO area, alive as long as the device; the GPU
        // writes it.
        unsafe { std::ptr::read_volatile((ch.userd_va + pushbuf::USERD_GP_GET as u64) as *const u32) }
    }

    /// Write a GP entry for `dwords` of methods at `va` without publishing it: the next
    /// [`GpFifo::submit`] moves GPPut past both (a command buffer that already sits in GPU
    /// memory, then the submission's own words).
    pub fn queue_segment(&mut self, rm: &RmDevice, va: u64, dwords: u32, timeout: Duration) -> Result<(), GpFifoError> {
        let ch = &rm.channels[self.channel];
        let entries = ch.entries as u64;
        // One slot always stays free so that a full ring and an empty one differ; the entry
        // of the submission that follows needs one more.
        let start = Instant::now();
        loop {
            let get = Self::gp_get(ch) as u64;
            let in_flight = (self.put % entries + entries - get) % entries;
            if in_flight + 1 < entries {
                break;
            }
            if start.elapsed() > timeout {
                return Err(GpFifoError::Stalled { gp_get: get as u32, put: (self.put % entries) as u32 });
            }
            std::thread::sleep(Duration::from_micros(20));
        }
        let entry = GpEntry::segment(va, dwords, GpLevel::Main, false)
            .map_err(|e| GpFifoError::Wait(crate::Error::Driver(e)))?;
        let slot = ch.ring_va + (self.put % entries) * 8;
        // SAFETY: a slot of the ring, which the GPU has consumed (checked above).
        unsafe { std::ptr::write_volatile(slot as *mut u64, entry.0) };
        self.put += 1;
        Ok(())
    }

    /// Take back the entry [`GpFifo::queue_segment`] wrote when the submission meant to publish
    /// it failed (GPPut never passed it).
    pub fn retract_segment(&mut self) {
        self.put -= 1;
    }

    /// Put `words` on the channel as one GP entry. `frees_at` is the completion value this
    /// submission signals on `done`; `wait` blocks until `done` reaches a value (for space).
    pub fn submit(
        &mut self,
        rm: &RmDevice,
        words: &[u32],
        frees_at: u64,
        done: &Signal,
        timeout: Duration,
        wait: &mut dyn FnMut(&Signal, u64) -> crate::Result<()>,
    ) -> Result<(), GpFifoError> {
        let bytes = words.len() as u64 * 4;
        if words.is_empty() {
            return Ok(());
        }
        if words.len() > pushbuf::GP_MAX_LENGTH as usize {
            return Err(GpFifoError::TooLarge { bytes });
        }
        let off = loop {
            match self.pb.alloc(bytes, 16, frees_at, done.value()) {
                RingAlloc::Ok(o) => break o,
                RingAlloc::Wait(v) => wait(done, v).map_err(GpFifoError::Wait)?,
                RingAlloc::TooLarge => return Err(GpFifoError::TooLarge { bytes }),
            }
        };
        let va = self.pb_base + off;
        // SAFETY: inside the push-buffer allocation (CPU-visible VRAM mapped at its GPU address),
        // in a span the ring allocator says the GPU has finished reading.
        unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), va as *mut u32, words.len()) };
        let ch = &rm.channels[self.channel];
        let entries = ch.entries as u64;
        self.queue_segment(rm, va, words.len() as u32, timeout)?;
        // The push buffer and the entry must be visible before GPPut and the doorbell (kick
        // fences between those two itself).
        fence(Ordering::SeqCst);
        rm.kick(ch, (self.put % entries) as u32);
        Ok(())
    }
}
