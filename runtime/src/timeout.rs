//! How long a wait for the GPU may go without progress before the runtime calls it a hang:
//! `BAREGPU_TIMEOUT_MS`, by default 30 s (long enough for a slow but progressing queue; a
//! kernel that runs longer in one dispatch needs the variable raised).

use std::sync::Arc;
use std::time::Duration;

/// A count of work the device finished besides its signals (workgroups retired), read while a
/// wait sleeps so that one long kernel that is still retiring workgroups is not taken for a
/// hang. An emulated GPU can count; KFD and RM expose no such count for a real one, whose waits
/// rely on their signals alone.
pub type ProgressProbe = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Whether `probe` moved since `last` (updated); false without a probe.
pub fn progressed(probe: Option<&ProgressProbe>, last: &mut u64) -> bool {
    let Some(p) = probe else { return false };
    let now = p();
    std::mem::replace(last, now) != now
}

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
