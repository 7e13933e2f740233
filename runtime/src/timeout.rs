//! When a wait for the GPU that sees no progress is a hang: `BAREGPU_TIMEOUT_MS` of wall clock
//! without progress, by default 30 s on a real GPU and 10 s on an emulated one. An emulated GPU
//! also reports the work it did ([`ProgressProbe`]), and there the timeout must pass in its
//! emulated time too, so that a host loaded by other work (whose emulator executes little per
//! wall second) does not turn a long but valid workgroup into a hang (see [`Watchdog`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

/// What an emulated GPU reports of its work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Workgroups (CTAs) retired: progress, like a signal moving.
    pub retired: u64,
    /// How long its waves have run, in emulated time (instructions at the emulator's nominal
    /// rate): not progress, but proof the emulator runs, and the clock a hang is measured in.
    /// Zero for an emulator that does not count.
    pub ran: Duration,
}

/// Reads an emulated GPU's [`Progress`] while a wait sleeps. KFD and RM expose no such count for
/// a real GPU, whose waits rely on their signals and the wall clock alone.
pub type ProgressProbe = Arc<dyn Fn() -> Progress + Send + Sync>;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The default for a device with a [`ProgressProbe`]: a hang is nothing retiring at all, which
/// a valid kernel never does for this long, so it is reported sooner.
pub const MEASURED_TIMEOUT: Duration = Duration::from_secs(10);

/// The no-progress timeout of a device opened now.
pub fn no_progress_timeout() -> Duration {
    from_env(DEFAULT_TIMEOUT)
}

/// The no-progress timeout of a device whose progress a [`ProgressProbe`] measures.
pub fn measured_timeout() -> Duration {
    from_env(MEASURED_TIMEOUT)
}

fn from_env(default: Duration) -> Duration {
    baregpu_drivers::env::millis("BAREGPU_TIMEOUT_MS", default)
}

/// The longest sleep between two looks, so that progress is noticed and the timeout accurate.
const SLICE: Duration = Duration::from_millis(10);

/// Decides when one wait is a hang. Without a probe: no progress for the timeout. With one, a
/// hang is either no progress while the timeout passed in wall clock AND in the emulator's
/// emulated time, or an emulator that ran nothing at all for the timeout (stuck on a queue
/// wait, or dead). On a quiet host the emulator's time runs ahead of the wall clock (its
/// nominal rate is set low), so a hang is reported when it was before; on a loaded one a
/// workgroup shorter than the timeout in emulated time finishes however slowly it runs.
pub struct Watchdog<'a> {
    timeout: Duration,
    probe: Option<&'a ProgressProbe>,
    seen: Progress,
    /// When progress was last seen, and the emulated time then.
    since: Instant,
    ran_then: Duration,
    /// When the emulated time last moved.
    busy_at: Instant,
}

impl<'a> Watchdog<'a> {
    pub fn new(timeout: Duration, probe: Option<&'a ProgressProbe>) -> Self {
        let now = Instant::now();
        let seen = probe.map_or(Progress::default(), |p| p());
        Watchdog { timeout, probe, seen, since: now, ran_then: seen.ran, busy_at: now }
    }

    /// Progress seen by the waiter (its signal moved): the clocks start again.
    pub fn progressed(&mut self) {
        let now = Instant::now();
        (self.since, self.ran_then, self.busy_at) = (now, self.seen.ran, now);
    }

    /// None: a hang. Else how long to sleep before looking again.
    pub fn check(&mut self) -> Option<Duration> {
        if let Some(p) = self.probe {
            let now = p();
            if now.retired != self.seen.retired {
                self.seen = now;
                self.progressed();
            } else if now.ran != self.seen.ran {
                self.seen.ran = now.ran;
                self.busy_at = Instant::now();
            }
        }
        let t = self.timeout;
        let (stalled, idle) = (self.since.elapsed(), self.busy_at.elapsed());
        let ran = self.seen.ran.saturating_sub(self.ran_then);
        // Without a probe nothing moves `busy_at` apart from `since`: idle == stalled.
        if idle >= t || (stalled >= t && ran >= t) {
            return None;
        }
        let left = if stalled < t { t - stalled } else { t - idle };
        Some(left.min(SLICE))
    }

    /// The timeout, for the report.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Runs `dog` to its verdict, sleeping as told: how long it took.
    fn until_hung(dog: &mut Watchdog) -> Duration {
        let t = Instant::now();
        while let Some(d) = dog.check() {
            std::thread::sleep(d);
            assert!(t.elapsed() < Duration::from_secs(5), "never called a hang");
        }
        t.elapsed()
    }

    /// A probe whose emulated time advances `per_ms` for each wall millisecond since `start`.
    fn running(start: Instant, per_ms: Duration) -> ProgressProbe {
        Arc::new(move || Progress { retired: 0, ran: per_ms * start.elapsed().as_millis() as u32 })
    }

    #[test]
    fn without_a_probe_a_hang_is_the_wall_timeout() {
        let took = until_hung(&mut Watchdog::new(Duration::from_millis(40), None));
        assert!(took >= Duration::from_millis(40) && took < Duration::from_millis(1000), "{took:?}");
    }

    #[test]
    fn a_quiet_emulator_spinning_is_a_hang_after_the_wall_timeout() {
        // Emulated time runs ahead of the wall clock: the wall decides, as without a probe.
        let probe = running(Instant::now(), Duration::from_millis(4));
        let took = until_hung(&mut Watchdog::new(Duration::from_millis(40), Some(&probe)));
        assert!(took >= Duration::from_millis(40) && took < Duration::from_millis(1000), "{took:?}");
    }

    #[test]
    fn a_slowed_emulator_is_a_hang_only_once_its_own_time_passed_the_timeout() {
        // A loaded host: a tenth of a millisecond of emulated time per wall millisecond.
        let probe = running(Instant::now(), Duration::from_micros(100));
        let took = until_hung(&mut Watchdog::new(Duration::from_millis(20), Some(&probe)));
        assert!(took >= Duration::from_millis(200), "called a hang after {took:?} of 200 ms emulated");
    }

    #[test]
    fn an_emulator_that_runs_nothing_is_a_hang_after_the_wall_timeout() {
        let probe: ProgressProbe = Arc::new(|| Progress { retired: 3, ran: Duration::from_secs(7) });
        let took = until_hung(&mut Watchdog::new(Duration::from_millis(40), Some(&probe)));
        assert!(took >= Duration::from_millis(40) && took < Duration::from_millis(1000), "{took:?}");
    }

    #[test]
    fn retired_work_starts_both_clocks_again() {
        // Emulated time well past the timeout, but a workgroup retires every 10 ms until 150 ms.
        let start = Instant::now();
        let n = Arc::new(AtomicU64::new(0));
        let probe: ProgressProbe = {
            let n = n.clone();
            Arc::new(move || {
                let ms = start.elapsed().as_millis() as u64;
                n.store(ms.min(150) / 10, Ordering::Relaxed);
                Progress { retired: n.load(Ordering::Relaxed), ran: Duration::from_millis(10 * ms) }
            })
        };
        let took = until_hung(&mut Watchdog::new(Duration::from_millis(40), Some(&probe)));
        assert!(took >= Duration::from_millis(190), "called a hang while workgroups retired: {took:?}");
    }
}
