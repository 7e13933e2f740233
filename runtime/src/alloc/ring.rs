//! A ring of memory that the GPU consumes in submission order (kernarg memory, command rings).
//! Each allocation is tagged with the timeline value whose completion frees it; an allocation
//! that would overwrite memory the GPU has not consumed yet is refused with the value to wait
//! for, so the caller waits and retries instead of corrupting in-flight work.

use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingAlloc {
    /// Offset of the allocation within the ring.
    Ok(u64),
    /// Wait until the timeline reaches this value, then retry.
    Wait(u64),
    /// The request can never fit.
    TooLarge,
}

#[derive(Debug)]
pub struct Ring {
    size: u64,
    /// Next free offset.
    head: u64,
    /// In-flight spans in allocation order: (start, end, timeline value that frees them).
    pending: VecDeque<(u64, u64, u64)>,
}

impl Ring {
    pub fn new(size: u64) -> Self {
        Ring { size, head: 0, pending: VecDeque::new() }
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Drop every span whose timeline value has been reached.
    fn retire(&mut self, completed: u64) {
        while self.pending.front().is_some_and(|p| p.2 <= completed) {
            self.pending.pop_front();
        }
        if self.pending.is_empty() {
            self.head = 0; // nothing in flight: start over and keep allocations contiguous
        }
    }

    /// Allocate `size` bytes aligned to `align`, to be freed when the timeline reaches `frees_at`.
    /// `completed` is the timeline's current value.
    pub fn alloc(&mut self, size: u64, align: u64, frees_at: u64, completed: u64) -> RingAlloc {
        assert!(align.is_power_of_two(), "alignment {align} is not a power of two");
        if size == 0 || size > self.size {
            return RingAlloc::TooLarge;
        }
        self.retire(completed);
        let mut start = self.head.div_ceil(align) * align;
        if start + size > self.size {
            start = 0; // wrap: the tail of the ring is skipped
        }
        let end = start + size;
        // Any in-flight span that [start, end) touches must be finished first; spans are in ring
        // order from the oldest, so the newest overlapping one decides.
        let blocking = self.pending.iter().filter(|&&(s, e, _)| s < end && start < e).map(|p| p.2).max();
        if let Some(value) = blocking {
            return RingAlloc::Wait(value);
        }
        self.pending.push_back((start, end, frees_at));
        self.head = end;
        RingAlloc::Ok(start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuse_waits_for_the_gpu() {
        let mut r = Ring::new(1024);
        assert_eq!(r.alloc(400, 64, 1, 0), RingAlloc::Ok(0));
        assert_eq!(r.alloc(400, 64, 2, 0), RingAlloc::Ok(448));
        // 448+400 = 848; the next 400 would wrap onto the first span, still in flight.
        assert_eq!(r.alloc(400, 64, 3, 0), RingAlloc::Wait(1));
        // Once value 1 completed, the wrapped allocation lands at 0.
        assert_eq!(r.alloc(400, 64, 3, 1), RingAlloc::Ok(0));
        // The next one would overlap the span freed at 2.
        assert_eq!(r.alloc(100, 64, 4, 1), RingAlloc::Wait(2));
        assert_eq!(r.alloc(2000, 64, 5, 1), RingAlloc::TooLarge);
    }

    #[test]
    fn never_hands_out_memory_in_flight() {
        let mut r = Ring::new(4096);
        let mut completed = 0u64;
        let mut next = 1u64;
        let mut live: Vec<(u64, u64, u64)> = Vec::new();
        let mut seed = 12345u64;
        for _ in 0..10_000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let size = 1 + (seed >> 33) % 700;
            match r.alloc(size, 16, next, completed) {
                RingAlloc::Ok(off) => {
                    assert_eq!(off % 16, 0);
                    assert!(off + size <= 4096);
                    live.retain(|l| l.2 > completed);
                    for &(s, e, _) in &live {
                        assert!(off + size <= s || e <= off, "[{off}, {}) overlaps in-flight [{s}, {e})", off + size);
                    }
                    live.push((off, off + size, next));
                    next += 1;
                }
                RingAlloc::Wait(v) => {
                    assert!(v > completed && v < next);
                    completed = v; // the "GPU" finishes up to v
                }
                RingAlloc::TooLarge => unreachable!(),
            }
        }
    }
}
