//! The host's usable cores, asked once: `available_parallelism` reads cgroup files on every
//! call (tens of microseconds), too slow for every dispatch of an empty kernel.

use std::sync::OnceLock;

/// How many threads the host can run at once (at least 1).
pub(crate) fn host_cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
