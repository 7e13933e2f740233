//! A command processor's memory and register waits: [`crate::memory_wait`] (woken by the
//! machine's engine writes, polling as a safety net for the host's), plus a check at every step
//! of whether the queue is going away, so a destroy (or the machine being dropped) unblocks any
//! wait.

use super::{Ctl, Stop};
use crate::memory_wait::MemoryWait;

pub(crate) struct Backoff<'a> {
    wait: MemoryWait<'a>,
}

impl<'a> Backoff<'a> {
    pub fn new(ctl: &'a Ctl) -> Backoff<'a> {
        Backoff { wait: MemoryWait::new(&ctl.writes, &ctl.waits) }
    }

    /// One step of waiting. `holding` says whether the caller holds a reference to the machine
    /// (then the machine is gone when it holds the only one).
    pub fn wait(&mut self, ctl: &Ctl, holding: bool) -> Result<(), Stop> {
        if ctl.should_stop(holding) {
            return Err(Stop::Destroyed);
        }
        // A destroy unparks the thread.
        self.wait.step();
        Ok(())
    }
}
