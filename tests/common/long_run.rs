//! Tests that a long, steadily progressing job is not taken for a hang. They only prove
//! something when the job outlasts the no-progress timeout many times over, and how long the
//! job takes depends on the machine and on what else runs, so the timeout is set from the
//! job's own time here rather than fixed.

use std::time::Duration;

/// Calls `run(timeout)`, which runs the job once under that no-progress timeout and returns
/// how long it took (it fails the test itself if the job is taken for a hang). The first run
/// sets the pace under a generous timeout; then the timeout is an eighth of the fastest run
/// seen, until one run outlasts its timeout four times over. A run that came out too short
/// (the first run is slower, with cold caches; other tests share the CPU) is retried.
pub fn outlasts_timeout(mut run: impl FnMut(Duration) -> Duration) {
    let mut fastest = run(Duration::from_secs(60));
    let mut timeout = fastest;
    for _ in 0..4 {
        timeout = (fastest / 8).max(Duration::from_millis(10));
        let took = run(timeout);
        if took > 4 * timeout {
            return;
        }
        fastest = fastest.min(took);
    }
    panic!("the job never ran 4 times longer than its timeout ({timeout:?}; fastest run {fastest:?})");
}
