//! A device's timeline: every submission waits for the previous value and signals the next, so
//! the device's work is totally ordered. On AMD the GPU compares 32 bits, so the timeline is
//! rewound to 1 on a second signal slot once it passes 2^31, at a moment the device is idle.

use crate::signal::Signal;

/// Past this value the timeline is rewound at the next idle point.
pub const WRAP_AT: u64 = 1 << 31;

#[derive(Debug)]
pub struct Timeline {
    signal: Signal,
    /// The other slot, used after a rewind.
    shadow: Signal,
    /// The next value to signal. Values below it have been submitted.
    next: u64,
}

impl Timeline {
    /// A timeline over two signal slots. Both are reset; the first value submitted is 1.
    pub fn new(signal: Signal, shadow: Signal) -> Self {
        signal.set(0);
        shadow.set(0);
        Timeline { signal, shadow, next: 1 }
    }

    pub fn signal(&self) -> &Signal {
        &self.signal
    }

    /// The value the last submission signals (0 before any).
    pub fn last(&self) -> u64 {
        self.next - 1
    }

    /// Reserve the value the next submission signals; it waits for `value - 1`.
    pub fn advance(&mut self) -> u64 {
        let v = self.next;
        self.next += 1;
        v
    }

    /// Whether every submitted value has completed.
    pub fn idle(&self) -> bool {
        self.signal.reached(self.last())
    }

    /// Rewind to 1 on the shadow slot when the timeline is past [`WRAP_AT`] and the device idle.
    /// Returns whether it rewound (callers re-base anything they keyed on old values).
    pub fn maybe_wrap(&mut self) -> bool {
        if self.next <= WRAP_AT || !self.idle() {
            return false;
        }
        std::mem::swap(&mut self.signal, &mut self.shadow);
        self.signal.set(0);
        self.next = 1;
        true
    }

    /// Both slots (to give them back to a pool).
    pub fn into_slots(self) -> (Signal, Signal) {
        (self.signal, self.shadow)
    }

    /// Continue from `value`: the next value handed out. Tests of the wrap start high; a
    /// submission that failed before reaching the GPU hands its value back.
    pub fn jump_to(&mut self, value: u64) {
        self.next = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::Width;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn advances_and_wraps_only_when_idle_and_past_the_limit() {
        let mem: Box<[AtomicU64; 4]> = Box::default();
        let base = mem.as_ptr() as usize;
        // SAFETY: `mem` outlives the timeline; slots are 16 bytes apart and aligned.
        let (a, b) = unsafe { (Signal::from_addr(base, Width::Bits32), Signal::from_addr(base + 16, Width::Bits32)) };
        let mut t = Timeline::new(a.clone(), b.clone());
        assert_eq!(t.advance(), 1);
        assert!(!t.idle());
        a.set(1);
        assert!(t.idle());
        assert!(!t.maybe_wrap(), "wrapped below the limit");

        t.jump_to(WRAP_AT - 1);
        let v = t.advance();
        let w = t.advance();
        assert_eq!((v, w), (WRAP_AT - 1, WRAP_AT));
        a.set(v); // one still in flight
        assert!(!t.maybe_wrap(), "wrapped while busy");
        a.set(w);
        assert!(t.maybe_wrap());
        assert_eq!(t.signal(), &b);
        assert_eq!(t.advance(), 1);
        assert_eq!(b.value(), 0);
    }
}
