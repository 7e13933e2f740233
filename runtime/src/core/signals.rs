//! The device's signal pool: slots of its signal page, handed out zeroed and taken back.

use super::{Backend, Device, State};
use crate::signal::Signal;
use crate::Result;

impl<B: Backend> Device<B> {
    pub(crate) fn take_signal(&self, st: &mut State) -> Result<Signal> {
        let s = st.free_signals.pop().ok_or_else(|| self.err("out of signal slots"))?;
        s.set(0);
        s.set_timestamp(0);
        Ok(s)
    }

    /// A signal slot of the device's signal page, value and timestamp zeroed. It keeps the page
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
