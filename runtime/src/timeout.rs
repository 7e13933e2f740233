//! How long a wait for the GPU may go without progress before the runtime calls it a hang:
//! `BAREGPU_TIMEOUT_MS`, by default 30 s (long enough for a slow but progressing queue; a
//! kernel that runs longer in one dispatch needs the variable raised).

use std::time::Duration;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The no-progress timeout of a device opened now.
pub fn no_progress_timeout() -> Duration {
    match std::env::var("BAREGPU_TIMEOUT_MS") {
        Err(_) => DEFAULT_TIMEOUT,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => Duration::from_millis(ms),
            _ => {
                log::warn!(
                    "BAREGPU_TIMEOUT_MS={v:?} is not a positive number of milliseconds; using {} ms",
                    DEFAULT_TIMEOUT.as_millis()
                );
                DEFAULT_TIMEOUT
            }
        },
    }
}
