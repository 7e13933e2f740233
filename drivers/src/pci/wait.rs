//! Waiting for a 64-bit word of device memory (a signal the GPU writes) to satisfy a condition.
//!
//! Across a link every read is a round trip, so a host that polls a signal pays one per poll.
//! [`crate::pci::PciDevice::wait_bar_u64`] and [`crate::pci::DmaMemory::wait_u64`] instead wait
//! where the memory is: their default polls here ([`poll`]), a link's client asks its server to
//! poll next to the device and answer once (one round trip per wait slice).

use std::time::{Duration, Instant};

/// How a word is compared with [`Until::value`] (after [`Until::mask`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `word & mask >= value`: a signal that counts up reached a target.
    AtLeast,
    /// `word & mask != value`: the word moved from a value seen before.
    NotEqual,
}

/// The condition a wait ends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Until {
    pub cmp: Cmp,
    /// The bits compared (AMD signals: the low 32).
    pub mask: u64,
    pub value: u64,
}

impl Until {
    /// `word & mask >= value & mask`.
    pub fn at_least(value: u64, mask: u64) -> Until {
        Until { cmp: Cmp::AtLeast, mask, value: value & mask }
    }

    pub fn holds(&self, word: u64) -> bool {
        match self.cmp {
            Cmp::AtLeast => word & self.mask >= self.value,
            Cmp::NotEqual => word & self.mask != self.value,
        }
    }
}

/// The longest single wait a server runs for a client (a session always comes back to it).
pub const MAX_WAIT: Duration = Duration::from_secs(60);

/// Spin (yielding) this long before sleeping: short GPU work ends within tens of microseconds.
const SPIN: Duration = Duration::from_micros(100);
/// The longest sleep between two reads.
const MAX_NAP: Duration = Duration::from_millis(1);

/// Read the word (`read`) until it satisfies `until` or `timeout` passes; the last value read,
/// or `read`'s first error.
pub fn poll<E>(mut read: impl FnMut() -> Result<u64, E>, until: Until, timeout: Duration) -> Result<u64, E> {
    let start = Instant::now();
    let mut nap = Duration::from_micros(10);
    loop {
        let word = read()?;
        let waited = start.elapsed();
        if until.holds(word) || waited >= timeout {
            return Ok(word);
        }
        if waited < SPIN {
            // Let an emulated engine on this core run (2-core hosts).
            std::thread::yield_now();
        } else {
            std::thread::sleep(nap.min(timeout - waited));
            nap = (nap * 2).min(MAX_NAP);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    #[test]
    fn conditions_compare_the_masked_word() {
        let u = Until::at_least(0xffff_0000_0005, u32::MAX as u64);
        assert_eq!(u.value, 5);
        assert!(u.holds(0x1_0000_0005) && u.holds(6) && !u.holds(0x7_0000_0004));
        let n = Until { cmp: Cmp::NotEqual, mask: u64::MAX, value: 3 };
        assert!(!n.holds(3) && n.holds(4));
    }

    #[test]
    fn a_poll_ends_when_the_word_arrives_or_at_its_timeout() {
        let word = Arc::new(AtomicU64::new(0));
        let w = word.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            w.store(9, Ordering::SeqCst);
        });
        let t = Instant::now();
        let got =
            poll(|| Ok::<_, ()>(word.load(Ordering::SeqCst)), Until::at_least(9, u64::MAX), Duration::from_secs(5));
        assert_eq!(got.unwrap(), 9);
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        writer.join().unwrap();
        let t = Instant::now();
        let got = poll(|| Ok::<_, ()>(1), Until::at_least(2, u64::MAX), Duration::from_millis(30)).unwrap();
        assert_eq!(got, 1);
        assert!(t.elapsed() >= Duration::from_millis(30));
        let gone = || Err::<u64, _>("gone");
        assert!(poll(gone, Until::at_least(1, 1), Duration::from_secs(1)).is_err());
    }
}
