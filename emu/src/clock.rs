//! The emulated GPUs' one clock: the host's CLOCK_MONOTONIC_RAW (steady, never slewed by NTP,
//! the clock KFD's GET_CLOCK_COUNTERS pairs with the GPU counter), read in nanoseconds, and the
//! rates at which each device's timestamp counter ticks.

/// Nanoseconds of the GPU clock source.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we pass; CLOCK_MONOTONIC_RAW always exists on
    // Linux, so it cannot fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
    ts.tv_sec as u64 * NS_PER_SEC + ts.tv_nsec as u64
}

const NS_PER_SEC: u64 = 1_000_000_000;

/// AMD's timestamp counter (RELEASE_MEM / SDMA timestamps, GET_CLOCK_COUNTERS'
/// `gpu_clock_counter`) runs at 100 MHz.
pub const AMD_TIMESTAMP_HZ: u64 = 100_000_000;

/// Ticks of a `hz` counter at `ns`.
pub fn ticks(ns: u64, hz: u64) -> u64 {
    (ns as u128 * hz as u128 / NS_PER_SEC as u128) as u64
}

/// The AMD timestamp counter now.
pub fn amd_timestamp() -> u64 {
    ticks(now_ns(), AMD_TIMESTAMP_HZ)
}

/// NVIDIA's PTIMER (semaphore timestamps, `%globaltimer`) counts nanoseconds.
pub fn nv_timestamp() -> u64 {
    now_ns()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_monotonic_and_ticks_convert() {
        let (a, b) = (now_ns(), now_ns());
        assert!(b >= a);
        assert_eq!(ticks(1_000_000_000, AMD_TIMESTAMP_HZ), 100_000_000);
        assert_eq!(ticks(25, AMD_TIMESTAMP_HZ), 2);
        // No overflow for a host up for centuries.
        assert_eq!(ticks(u64::MAX, NS_PER_SEC), u64::MAX);
        let (t, n) = (amd_timestamp(), now_ns());
        assert!(t <= ticks(n, AMD_TIMESTAMP_HZ) && ticks(n, AMD_TIMESTAMP_HZ) - t < AMD_TIMESTAMP_HZ);
        assert!(nv_timestamp() >= n);
    }
}
