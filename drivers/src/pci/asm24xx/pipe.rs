//! Pipelined bulk transfers on one endpoint: up to a depth of them queued on the USB boundary at
//! once, taken back oldest first, each with what it was for (to name it in an error, and for the
//! caller to place its data). Dropping a pipe with transfers still queued (an error on the way)
//! cancels them, so the endpoint is empty for the next request and nothing is reported done that
//! was not taken back.

use super::link::Link;
use super::protocol::BULK_TIMEOUT;
use crate::{Error, Result};
use std::collections::VecDeque;

/// Bulk transfers a pipelined copy keeps in flight by default: enough to cover a control round
/// trip (each transfer's arm) behind the data of the ones before it.
pub const DEPTH: usize = 4;
/// Most transfers the depth may be set to.
pub const MAX_DEPTH: usize = 64;
/// The environment variable setting the depth (1: every copy synchronous, chunk by chunk).
pub const DEPTH_ENV: &str = "BAREGPU_USB_QUEUE_DEPTH";

/// The depth [`DEPTH_ENV`] sets, else [`DEPTH`].
pub fn depth_from_env() -> Result<usize> {
    match std::env::var(DEPTH_ENV) {
        Ok(s) => match s.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_DEPTH).contains(&n) => Ok(n),
            _ => Err(Error::Unsupported(format!("{DEPTH_ENV}={s}: not a transfer count from 1 to {MAX_DEPTH}"))),
        },
        Err(_) => Ok(DEPTH),
    }
}

pub struct Pipe<'a, T> {
    link: &'a Link,
    endpoint: u8,
    depth: usize,
    queued: VecDeque<(T, String)>,
}

impl<'a, T> Pipe<'a, T> {
    pub fn new(link: &'a Link, endpoint: u8, depth: usize) -> Pipe<'a, T> {
        Pipe { link, endpoint, depth: depth.max(1), queued: VecDeque::new() }
    }

    /// Whether the next transfer would exceed the depth: take one back first.
    pub fn full(&self) -> bool {
        self.queued.len() >= self.depth
    }

    /// Queues a bulk OUT of `data`, known as `what` in errors.
    pub fn submit_out(&mut self, tag: T, what: String, data: Vec<u8>) -> Result<()> {
        let usb = self.link.usb();
        usb.bulk_submit_out(self.endpoint, data).map_err(|e| self.link.failed(what.clone(), e))?;
        self.queued.push_back((tag, what));
        Ok(())
    }

    /// Queues a bulk IN of `len` bytes.
    pub fn submit_in(&mut self, tag: T, what: String, len: usize) -> Result<()> {
        let usb = self.link.usb();
        usb.bulk_submit_in(self.endpoint, len).map_err(|e| self.link.failed(what.clone(), e))?;
        self.queued.push_back((tag, what));
        Ok(())
    }

    /// Takes the oldest transfer back: its tag and (for IN) its bytes; `None` when none is queued.
    pub fn take_oldest(&mut self) -> Result<Option<(T, Vec<u8>)>> {
        let Some((tag, what)) = self.queued.pop_front() else { return Ok(None) };
        match self.link.usb().bulk_complete(self.endpoint, BULK_TIMEOUT) {
            Ok(data) => Ok(Some((tag, data))),
            Err(e) => Err(self.link.failed(what, e)),
        }
    }

    /// Takes every transfer back, in order, handing each to `done`.
    pub fn finish(mut self, mut done: impl FnMut(T, Vec<u8>)) -> Result<()> {
        while let Some((tag, data)) = self.take_oldest()? {
            done(tag, data);
        }
        Ok(())
    }
}

impl<T> Drop for Pipe<'_, T> {
    fn drop(&mut self) {
        let usb = self.link.usb();
        if !self.queued.is_empty() || usb.bulk_pending(self.endpoint) != 0 {
            usb.bulk_cancel(self.endpoint);
        }
    }
}
