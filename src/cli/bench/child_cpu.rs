//! CPU time of the waited-for child processes (llvm-mc), so that `bench asm` compares ours with
//! llvm-mc by CPU time as well as by the wall clock: on a shared machine the wall clock also
//! counts other processes' turns, and by different amounts for the two tools.

use std::time::Duration;

/// Ticks per second of `/proc`'s times (`USER_HZ`: 100 on x86 and arm64 Linux, a fixed part of
/// the kernel's user interface whatever the kernel's own tick).
const USER_HZ: u64 = 100;

/// User plus system time of this process's children that have been waited for
/// (`/proc/self/stat` fields 16 and 17, `cutime` and `cstime`); `None` where there is no such
/// file. Its resolution is 10 ms, small against llvm-mc's seconds on the bench's file.
pub(super) fn children_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which ends at the last ')': field 3 is the first.
    let mut rest = s.rsplit_once(')')?.1.split_whitespace().skip(16 - 3);
    let user: u64 = rest.next()?.parse().ok()?;
    let system: u64 = rest.next()?.parse().ok()?;
    Some(Duration::from_millis((user + system) * 1000 / USER_HZ))
}

/// Keeps the smaller of a best-so-far and the time between two readings.
pub(super) fn keep_least(best: &mut Option<Duration>, before: Option<Duration>, after: Option<Duration>) {
    if let (Some(a), Some(b)) = (before, after) {
        let d = b.saturating_sub(a);
        *best = Some(best.map_or(d, |c| c.min(d)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child that spins for a while shows up in the children's time, and only once waited for.
    #[test]
    fn counts_a_waited_child() {
        let Some(before) = children_cpu() else { return };
        let status = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"])
            .status()
            .expect("sh runs");
        assert!(status.success());
        let after = children_cpu().expect("readable twice");
        assert!(after > before, "{before:?} -> {after:?}");
    }

    #[test]
    fn keeps_the_least() {
        let mut best = None;
        let s = |ms| Some(Duration::from_millis(ms));
        keep_least(&mut best, s(10), s(40));
        keep_least(&mut best, s(40), s(60));
        keep_least(&mut best, None, s(100));
        keep_least(&mut best, s(60), s(100));
        assert_eq!(best, s(20));
    }
}
