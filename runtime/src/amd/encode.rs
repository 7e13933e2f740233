//! The AMD encoders of the runtime core: PM4 for the compute queue and SDMA for the copy queue.
//! Signals are 32-bit (RELEASE_MEM send_32_bit_low, SDMA FENCE, WAIT_REG_MEM mask 0xffffffff);
//! a signal with `interrupt` also writes the device's queue-event mailbox and interrupts, so
//! KFD wakes a host sleeping on the event (where the interface has no [`Wake`], host waits
//! only poll and no interrupt is encoded).

use super::hdp::HdpFlush;
use super::iface::Wake;
use crate::core::{ComputeEncoder, CopyEncoder, Encoder, Patch, PatchWidth};
use crate::Result;
use baregpu_drivers::amd::pm4::{Compare, Pm4, Pm4Generation, ReleaseData};
use baregpu_drivers::amd::sdma::{Sdma, SdmaGeneration};

/// PM4 commands for the compute queue.
pub struct AmdCompute {
    pub q: Pm4,
    hdp: Option<HdpFlush>,
    wake: Option<Wake>,
}

/// How many XCCs execute the compute ring, and where their barrier counters are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Xccs {
    pub count: u32,
    pub barrier: u64,
}

impl AmdCompute {
    pub(crate) fn new(
        gen: &'static Pm4Generation,
        hdp: Option<HdpFlush>,
        wake: Option<Wake>,
        xccs: Xccs,
    ) -> AmdCompute {
        AmdCompute { q: Pm4::for_xccs(gen, xccs.count, xccs.barrier), hdp, wake }
    }

    /// Run `dwords` of PM4 at `va` (an INDIRECT_BUFFER packet).
    pub fn indirect(&mut self, va: u64, dwords: u32) {
        self.q.indirect_buffer(va, dwords);
    }

    /// Wake a host sleeping on the device's queue event (once, whatever the XCC count).
    fn interrupt(&mut self) {
        if let Some(w) = self.wake {
            self.q.once(|q| q.release_mem(w.mailbox, ReleaseData::U32(w.event), false, Some(w.event)));
        }
    }
}

impl Encoder for AmdCompute {
    fn wait(&mut self, addr: u64, value: u64) -> Patch {
        Patch::new(self.q.wait_mem(addr, value as u32, 0xffff_ffff, Compare::GreaterEqual), PatchWidth::Bits32)
    }

    /// Where several XCCs execute the queue: once all of them finished what came before, and
    /// by one XCC only (each would write it otherwise, and a late XCC could put back a value the
    /// timeline already passed).
    fn signal(&mut self, addr: u64, value: u64, interrupt: bool) -> Patch {
        let at = self.q.once_after_all(|q| q.release_mem(addr, ReleaseData::U32(value as u32), true, None));
        if interrupt {
            self.interrupt();
        }
        Patch::new(at, PatchWidth::Bits32)
    }

    /// The GPU clock (100 MHz) into the signal's timestamp word, by one XCC once all finished
    /// what came before.
    fn timestamp(&mut self, signal_addr: u64) {
        self.q.once_after_all(|q| q.release_mem(signal_addr + 8, ReleaseData::Timestamp, false, None));
    }

    fn finish(&mut self) -> Result<()> {
        Ok(())
    }

    fn words(&self) -> &[u32] {
        self.q.words()
    }
}

impl ComputeEncoder for AmdCompute {
    /// A CS partial flush (earlier dispatches finished: dependent dispatches of one queue),
    /// then the HDP flush (CPU writes through the BAR) and cache invalidation.
    fn barrier(&mut self) {
        self.q.event_write(self.q.gen.cs_partial_flush, 4);
        if let Some(h) = self.hdp {
            self.q.write_then_wait_reg(h.req, h.done, 0xffff_ffff, 0xffff_ffff, Compare::GreaterEqual);
        }
        self.q.acquire_mem(true);
    }
}

/// SDMA commands for the copy queue.
pub struct AmdCopy {
    pub q: Sdma,
    wake: Option<Wake>,
}

impl AmdCopy {
    pub(crate) fn new(gen: &'static SdmaGeneration, wake: Option<Wake>) -> AmdCopy {
        AmdCopy { q: Sdma::new(gen), wake }
    }

    /// Run `dwords` of SDMA commands at `va` (an SDMA INDIRECT packet).
    pub fn indirect(&mut self, va: u64, dwords: u32) {
        self.q.indirect(va, dwords);
    }
}

impl Encoder for AmdCopy {
    fn wait(&mut self, addr: u64, value: u64) -> Patch {
        Patch::new(self.q.poll_ge(addr, value as u32, 0xffff_ffff), PatchWidth::Bits32)
    }

    /// A FENCE of 32 bits after earlier commands, and a TRAP to wake the host.
    fn signal(&mut self, addr: u64, value: u64, interrupt: bool) -> Patch {
        let at = self.q.fence(addr, value as u32);
        if let (true, Some(w)) = (interrupt, self.wake) {
            self.q.fence(w.mailbox, w.event);
            self.q.trap(w.event);
        }
        Patch::new(at, PatchWidth::Bits32)
    }

    fn timestamp(&mut self, signal_addr: u64) {
        self.q.timestamp(signal_addr + 8);
    }

    fn finish(&mut self) -> Result<()> {
        Ok(())
    }

    fn words(&self) -> &[u32] {
        self.q.words()
    }

    fn packets(&self) -> &[usize] {
        self.q.packets()
    }
}

impl CopyEncoder for AmdCopy {
    /// Split as the engine's count field requires.
    fn copy(&mut self, dst: u64, src: u64, bytes: u64) {
        self.q.copy(dst, src, bytes);
    }
}
