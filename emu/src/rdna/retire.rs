//! What one worker publishes of its work ([`WorkCounter`]): the workgroups it retired, which a
//! host wait reads as progress, and the wave instructions it executed, which hang detection
//! holds its budgets against (`crate::work`). Each worker publishes in batches, so that a grid
//! of tiny workgroups does not pay a shared atomic per workgroup, but it never keeps more than
//! [`BATCH`] wave instructions unpublished: retired workgroups are published once that much
//! work is behind them (batches of a fixed 16 workgroups left the count still for 16 long
//! workgroups per worker, over 150 ms on a loaded 2-core host), and a wave inside one long
//! workgroup publishes its instructions every [`BATCH`] as it runs.

use crate::amd::dispatch::Cancel;
use crate::work::{WorkCounter, BATCH};
use std::cell::Cell;

/// Workgroups a worker may hold back, however short.
const MAX_GROUPS: u64 = 16;

/// What one worker retired and executed and has not published yet. One per worker thread.
pub struct Unpublished<'a> {
    work: &'a WorkCounter,
    /// The dispatch's own count (its budget).
    cancel: &'a Cancel,
    groups: Cell<u64>,
    /// The worker's wave instructions when it last published its retired workgroups.
    retired_at: Cell<u64>,
    /// The worker's wave instructions published so far.
    published: Cell<u64>,
}

impl<'a> Unpublished<'a> {
    pub fn new(work: &'a WorkCounter, cancel: &'a Cancel) -> Self {
        Unpublished { work, cancel, groups: Cell::new(0), retired_at: Cell::new(0), published: Cell::new(0) }
    }

    /// A wave inside a workgroup ran [`BATCH`] more instructions.
    #[inline(never)]
    pub fn ran_batch(&self) {
        self.published.set(self.published.get() + BATCH);
        self.add(BATCH);
    }

    fn add(&self, n: u64) {
        self.cancel.spend(n);
        self.work.add_executed(n);
    }

    /// One more workgroup retired; `executed`: the worker's wave instructions so far.
    pub fn retire(&self, executed: u64) {
        self.groups.set(self.groups.get() + 1);
        if self.groups.get() >= MAX_GROUPS || executed.saturating_sub(self.retired_at.get()) >= BATCH {
            self.publish(executed);
        }
    }

    /// Publish what is held back (the worker is done, or a batch is full); `executed`: the
    /// worker's wave instructions so far, every wave between workgroups.
    pub fn publish(&self, executed: u64) {
        if self.groups.get() != 0 {
            self.work.add_retired(self.groups.get());
        }
        self.groups.set(0);
        self.retired_at.set(executed);
        let left = executed.saturating_sub(self.published.get());
        if left != 0 {
            self.published.set(executed);
            self.add(left);
        }
    }
}
