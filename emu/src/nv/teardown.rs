//! The teardown order of the emulated NVIDIA GPU: no thread may touch memory that is gone.
//!
//! Channel processors reach memory through raw host addresses (USERD, the error notifier, every
//! translated GPU VA, a kernel's snapshot of the GPU mappings), so:
//! - a processor does its work inside a *busy window* ([`Inner::begin_work`] /
//!   [`Inner::end_work`]); the emulator's own views of freed memory are unmapped only while no
//!   window is open ([`release`] defers them until the last one closes);
//! - memory the emulator cannot defer (the caller's own pages, an OS descriptor, which the
//!   caller unmaps after RM_FREE returns) stops the channels that could be using it, and RM_FREE
//!   joins them ([`Retired::join`]) before it returns;
//! - a channel whose object, USERD or error notifier goes is stopped and joined the same way;
//! - the doorbell watcher reads the doorbell list under its lock, so a view removed from the
//!   list under that lock is not read again;
//! - dropping the device stops and joins every thread before any memory goes.

use super::channel::ChannelCtl;
use super::{Inner, State};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// An arena range with the emulator's view of it, freed by RM.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Freed {
    pub view: usize,
    pub off: u64,
    pub size: u64,
}

/// Give `f` back now if no channel is working, else when the last busy window closes.
pub(crate) fn release(st: &mut State, f: Freed) {
    if st.busy == 0 {
        unmap(st, f);
    } else {
        st.pending.push(f);
    }
}

fn unmap(st: &State, f: Freed) {
    st.arena.unmap(f.view, f.size);
    st.arena.release(f.off, f.size);
}

/// Release what waited for the busy windows to close.
pub(crate) fn release_pending(st: &mut State) {
    for f in std::mem::take(&mut st.pending) {
        unmap(st, f);
    }
}

/// Channels stopped by one RM call, joined before the call returns.
#[derive(Default)]
pub(crate) struct Retired(Vec<Arc<ChannelCtl>>);

impl Retired {
    /// Stop `ch`; `why` (if any) is reported as the channel's fault.
    pub fn push(&mut self, ch: Arc<ChannelCtl>, why: Option<String>) {
        ch.stop(why);
        self.0.push(ch);
    }

    /// Wait for every stopped processor to leave. Call without the state lock: a processor
    /// may need it to finish.
    pub fn join(self) {
        for ch in self.0 {
            ch.join();
        }
    }
}

impl Inner {
    /// Open a busy window for `ch`; false (and no window) when the channel is stopping, so a
    /// processor never starts on memory its teardown already released.
    pub(crate) fn begin_work(&self, ch: &ChannelCtl) -> bool {
        let mut st = self.lock();
        if ch.stopping() || self.stop.load(Ordering::Acquire) {
            return false;
        }
        st.busy += 1;
        ch.busy.store(true, Ordering::Release);
        true
    }

    pub(crate) fn end_work(&self, ch: &ChannelCtl) {
        let mut st = self.lock();
        ch.busy.store(false, Ordering::Release);
        st.busy -= 1;
        if st.busy == 0 {
            release_pending(&mut st);
        }
    }

    /// Device teardown: stop every channel and the watcher, join them, then release what they
    /// might still have been using.
    pub(crate) fn shut_down(&self) {
        self.stop.store(true, Ordering::Release);
        let mut retired = Retired::default();
        for (_, ch) in self.lock().channels.drain() {
            retired.push(ch, None);
        }
        retired.join();
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            // It sleeps between looks: wake it to see the stop.
            t.thread().unpark();
            if t.join().is_err() {
                log::error!("emulated NV GPU: the doorbell watcher panicked");
            }
        }
        release_pending(&mut self.lock());
    }
}
