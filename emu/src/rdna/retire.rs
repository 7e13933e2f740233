//! The count of retired workgroups that a host wait reads as progress
//! ([`WaveEngine::workgroups_retired`](crate::amd::dispatch::WaveEngine::workgroups_retired)).
//! Each worker publishes what it retired in batches, so that a grid of tiny workgroups does not
//! pay a shared atomic per workgroup, but it never keeps more than [`PUBLISH_AFTER`] wave
//! instructions of retired work unpublished. Batches of a fixed 16 workgroups left the count
//! still for 16 long workgroups per worker (half a million instructions for a loop of 30,000):
//! on a loaded 2-core host, or with 16 workers on the 8 XCCs of gfx942, that was over 150 ms
//! while the grid retired steadily, and a short no-progress timeout took it for a hang.

use std::sync::atomic::{AtomicU64, Ordering};

/// Retired work a worker may hold back, in wave instructions (well under a millisecond).
const PUBLISH_AFTER: u64 = 4096;
/// Workgroups a worker may hold back, however short.
const MAX_GROUPS: u64 = 16;

/// What one worker retired and has not published yet.
#[derive(Default)]
pub(super) struct Unpublished {
    groups: u64,
    /// The worker's wave instructions when it last published.
    published_at: u64,
}

impl Unpublished {
    /// One more workgroup retired; `executed`: the worker's wave instructions so far.
    pub(super) fn retire(&mut self, executed: u64, count: &AtomicU64) {
        self.groups += 1;
        if self.groups >= MAX_GROUPS || executed.saturating_sub(self.published_at) >= PUBLISH_AFTER {
            self.publish(executed, count);
        }
    }

    /// Publish what is held back (the worker is done, or a batch is full).
    pub(super) fn publish(&mut self, executed: u64, count: &AtomicU64) {
        if self.groups != 0 {
            count.fetch_add(self.groups, Ordering::Relaxed);
        }
        self.groups = 0;
        self.published_at = executed;
    }
}
