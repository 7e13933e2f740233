//! Waiting for everything submitted, the timeline rewind at idle points, and recovery after a
//! fault or hang (where the backend can rebuild its queues; otherwise the device stays broken).

use super::{Backend, Device, Queue};
use crate::alloc::Ring;
use crate::signal::Width;
use crate::timeline::Timeline;
use crate::Result;

impl<B: Backend> Device<B> {
    /// Wait for everything submitted so far on both queues. A fault or timeout marks the device
    /// broken, recovers it where the backend can, and is returned.
    pub fn synchronize(&self) -> Result<()> {
        let mut st = self.state();
        self.usable(&st)?;
        for q in [Queue::Compute, Queue::Copy] {
            let counter = match q {
                Queue::Compute => &st.compute_done,
                Queue::Copy => &st.copy_done,
            };
            if let Err(e) = self.wait_on(counter.signal(), counter.last(), Self::queue_name(q), &st.last) {
                st.broken = Some(e.to_string());
                drop(st);
                self.recover_if_possible()?;
                return Err(e);
            }
        }
        // Idle: 32-bit counters rewind before the GPU's compares wrap (64-bit ones compare
        // circularly and never need to).
        if B::WIDTH == Width::Bits32 {
            st.timeline.maybe_wrap();
            st.copy_done.maybe_wrap();
            if st.compute_done.maybe_wrap() {
                st.args = Ring::new(B::ARGS_BYTES);
            }
        }
        Ok(())
    }

    /// Continue the device timeline from `value` once everything submitted has finished: a
    /// bring-up and test hook that reaches the wrap without 2^31 submissions.
    pub fn jump_timeline(&self, value: u64) -> Result<()> {
        self.synchronize()?;
        if value == 0 {
            return Err(self.err("the timeline starts at 1"));
        }
        let mut st = self.state();
        st.timeline.signal().set(value - 1);
        st.timeline.jump_to(value);
        Ok(())
    }

    /// Rebuild the queues after a fault or hang so the device is usable again; an error where
    /// the backend cannot (the device must be reopened).
    pub fn recover(&self) -> Result<()> {
        if !self.recover_if_possible()? {
            let st = self.state();
            let why = st.broken.clone().unwrap_or_else(|| "recovery".into());
            return Err(self.err(B::broken_message(&why)));
        }
        Ok(())
    }

    /// Recovery where the backend supports it: whether the device is usable again.
    pub(crate) fn recover_if_possible(&self) -> Result<bool> {
        if !self.backend.recover()? {
            return Ok(false);
        }
        let mut st = self.state();
        // The old counters may never reach their last values: start fresh ones.
        for which in 0..3 {
            let (a, b) = (self.take_signal(&mut st)?, self.take_signal(&mut st)?);
            let fresh = Timeline::new(a, b);
            let old = match which {
                0 => std::mem::replace(&mut st.timeline, fresh),
                1 => std::mem::replace(&mut st.compute_done, fresh),
                _ => std::mem::replace(&mut st.copy_done, fresh),
            };
            let (x, y) = old.into_slots();
            st.free_signals.extend([x, y]);
        }
        st.args = Ring::new(B::ARGS_BYTES);
        st.broken = None;
        log::debug!("{}: queues rebuilt after a fault", self.label);
        Ok(true)
    }
}
