//! The device's signals: slots of its pool's pages (pool.rs), handed out zeroed and taken back.

use super::{Backend, Device};
use crate::signal::Signal;
use crate::Result;

impl<B: Backend> Device<B> {
    /// A signal slot of the device's signal pool, value and timestamp zeroed. It keeps its page
    /// mapped for as long as it lives.
    pub fn new_signal(&self) -> Result<Signal> {
        self.take_signal(&mut self.state())
    }

    /// Give a signal back to the pool.
    pub fn free_signal(&self, s: Signal) {
        self.state().free_signals.push(s);
    }

    /// The device timeline's signal and the last value submitted on it.
    pub fn timeline(&self) -> (Signal, u64) {
        let st = self.state();
        (st.timeline.signal().clone(), st.timeline.last())
    }
}
