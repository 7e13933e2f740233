//! Waiting without burning a core: spin briefly, then yield for a short window (work often comes
//! back within it: a host submitting in a loop, a launch's completion), then sleep in steps that
//! grow to about a millisecond. Every step checks whether the queue is going away, so a destroy
//! (or the machine being dropped) unblocks any wait.

use super::{Ctl, Stop};
use std::time::{Duration, Instant};

const SPINS: u32 = 100;
/// Yield (rather than sleep) until this long after the wait began.
const YIELD_WINDOW: Duration = Duration::from_micros(300);
/// Sleeps of each length before doubling, and the longest sleep.
const STEPS_PER_LEVEL: u32 = 32;
const MAX_SLEEP_US: u64 = 1000;

#[derive(Debug, Default)]
pub(crate) struct Backoff {
    n: u32,
    /// Steps taken after the yield window closed.
    sleeps: u32,
    started: Option<Instant>,
}

impl Backoff {
    pub fn new() -> Backoff {
        Backoff::default()
    }

    /// How long the next step sleeps (zero while spinning or yielding).
    fn sleep_for(&self) -> Duration {
        if self.sleeps == 0 {
            return Duration::ZERO;
        }
        let level = ((self.sleeps - 1) / STEPS_PER_LEVEL).min(10);
        Duration::from_micros((20u64 << level).min(MAX_SLEEP_US))
    }

    /// One step of waiting. `holding` says whether the caller holds a reference to the machine
    /// (then the machine is gone when it holds the only one).
    pub fn wait(&mut self, ctl: &Ctl, holding: bool) -> Result<(), Stop> {
        if ctl.should_stop(holding) {
            return Err(Stop::Destroyed);
        }
        self.n = self.n.saturating_add(1);
        let started = *self.started.get_or_insert_with(Instant::now);
        if self.n <= SPINS {
            std::hint::spin_loop();
        } else if self.sleeps == 0 && started.elapsed() < YIELD_WINDOW {
            std::thread::yield_now();
        } else {
            self.sleeps = self.sleeps.saturating_add(1);
            // A destroy unparks the thread.
            std::thread::park_timeout(self.sleep_for());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleeps_grow_to_a_millisecond() {
        let mut b = Backoff::new();
        assert_eq!(b.sleep_for(), Duration::ZERO);
        b.sleeps = 1;
        assert_eq!(b.sleep_for(), Duration::from_micros(20));
        b.sleeps = 1 + 5 * STEPS_PER_LEVEL;
        assert_eq!(b.sleep_for(), Duration::from_micros(640));
        b.sleeps = u32::MAX;
        assert_eq!(b.sleep_for(), Duration::from_micros(1000));
        assert_eq!(Backoff::new().sleep_for(), Duration::ZERO);
    }
}
