//! Host waits on signals: the backend's sleep between polls, the device's progress probe, and
//! the mapping of a timeout or a reported fault to an error naming the device, the queue and
//! what was last submitted — once, for both vendors.

use super::last::Last;
use super::{Backend, Device, Queue, SubmitError};
use crate::signal::{Signal, WaitError};
use crate::timeout::Watchdog;
use crate::{Error, Result};
use std::time::Duration;

impl<B: Backend> Device<B> {
    /// Wait until `sig` reaches `value`; `queue` and `last` go into the error.
    pub(crate) fn wait_on(&self, sig: &Signal, value: u64, queue: &'static str, last: &Last) -> Result<()> {
        let mut dog = Watchdog::new(self.timeout, self.progress.as_ref());
        let mut sleep = |d: Duration| self.backend.sleep(d).map_err(WaitError::Fault);
        sig.wait(value, &mut dog, &mut sleep).map_err(|e| match e {
            WaitError::Timeout { last: reached } => Error::Timeout {
                device: self.label.clone(),
                queue,
                secs: self.timeout.as_secs_f64(),
                reached,
                wanted: value,
                last: last.to_string(),
            },
            WaitError::Fault(fault) => {
                Error::Fault { device: self.label.clone(), queue, fault, last: last.to_string() }
            }
        })
    }

    /// A submission that did not reach its ring, as an error.
    pub(crate) fn submit_error(&self, queue: Queue, e: SubmitError, last: &Last) -> Error {
        match e {
            SubmitError::Refused(what) => self.err(what),
            SubmitError::Stalled { reached, wanted } => Error::Timeout {
                device: self.label.clone(),
                queue: Self::queue_name(queue),
                secs: self.timeout.as_secs_f64(),
                reached,
                wanted,
                last: last.to_string(),
            },
            SubmitError::Failed(e) => e,
        }
    }

    /// Wait until `signal` reaches `value`, sleeping as the device does between polls.
    pub fn wait(&self, signal: &Signal, value: u64) -> Result<()> {
        let last = self.state().last.clone();
        self.wait_on(signal, value, Self::queue_name(Queue::Compute), &last)
    }

    /// Wait until the device timeline reaches `value`.
    pub fn wait_value(&self, value: u64) -> Result<()> {
        self.wait(&self.timeline().0, value)
    }
}
