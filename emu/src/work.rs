//! The work an emulated GPU has done, as hang detection measures it: workgroups (CTAs) retired,
//! which is progress, and wave instructions executed, which is not, but says the emulator is
//! running. Instructions convert to emulated time at [`NOMINAL_RATE`], so that a budget in
//! seconds (the runtime's no-progress timeout, the CP's dispatch budget) can be held against
//! what the emulator did rather than the wall clock: on a host loaded by other work the
//! emulator executes fewer instructions per second, and its emulated time advances as slowly.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Wave instructions per emulated second. Set below what the optimised interpreter executes on
/// a quiet host (8-40 M/s measured by `bench emu`, wave64 memory-bound code the slowest), so
/// that there emulated time runs ahead of the wall clock and a wall-clock budget still decides
/// first: a hang is reported no later than before. An unoptimised (dev-profile) build of the
/// emulator can be slower than this, and there a hang is reported later.
pub const NOMINAL_RATE: u64 = 5_000_000;

/// Instructions a worker publishes at once (see `rdna::retire`).
pub const BATCH: u64 = 4096;

/// `instructions` as emulated time.
pub fn emulated(instructions: u64) -> Duration {
    Duration::from_nanos((instructions as u128 * 1_000_000_000 / NOMINAL_RATE as u128) as u64)
}

/// The counts one emulated GPU's engine publishes while it runs.
#[derive(Debug, Default)]
pub struct WorkCounter {
    retired: AtomicU64,
    executed: AtomicU64,
    /// Nanoseconds to sleep per [`BATCH`] instructions published: a host loaded by other work,
    /// on demand (tests). 0: full speed.
    pace_ns: AtomicU64,
}

impl WorkCounter {
    /// Workgroups (CTAs) retired so far.
    pub fn retired(&self) -> u64 {
        self.retired.load(Ordering::Relaxed)
    }

    /// Wave instructions executed so far (published in batches of at most [`BATCH`] per worker).
    pub fn executed(&self) -> u64 {
        self.executed.load(Ordering::Relaxed)
    }

    pub fn add_retired(&self, n: u64) {
        self.retired.fetch_add(n, Ordering::Relaxed);
    }

    /// `n` more instructions ran; a paced counter then sleeps for them.
    pub fn add_executed(&self, n: u64) {
        self.executed.fetch_add(n, Ordering::Relaxed);
        let pace = self.pace_ns.load(Ordering::Relaxed);
        if pace != 0 {
            std::thread::sleep(Duration::from_nanos(pace.saturating_mul(n) / BATCH));
        }
    }

    /// Slows the engine to stand for a loaded host: each batch of [`BATCH`] instructions costs
    /// `per_batch` of sleep besides its execution (zero: full speed).
    pub fn set_pace(&self, per_batch: Duration) {
        self.pace_ns.store(per_batch.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_convert_to_emulated_time_at_the_nominal_rate() {
        assert_eq!(emulated(NOMINAL_RATE), Duration::from_secs(1));
        assert_eq!(emulated(NOMINAL_RATE / 1000), Duration::from_millis(1));
        assert_eq!(emulated(0), Duration::ZERO);
    }

    #[test]
    fn a_paced_counter_sleeps_for_what_it_publishes() {
        let w = WorkCounter::default();
        w.set_pace(Duration::from_millis(5));
        let t = std::time::Instant::now();
        w.add_executed(4 * BATCH);
        assert!(t.elapsed() >= Duration::from_millis(20), "slept {:?}", t.elapsed());
        assert_eq!(w.executed(), 4 * BATCH);
    }
}
