//! How an engine waits on memory (AMD WAIT_REG_MEM and SDMA POLL_REGMEM, the NVIDIA semaphore
//! acquire) without sleeping past the write it waits for. Every write an engine of the machine
//! makes to memory (a release, a fence, a copy, a kernel) bumps the machine's [`Writes`] epoch
//! and unparks the engines parked in a memory wait, which look again at once: on a real GPU the
//! waiting engine re-reads when the write lands, not a millisecond later. A write by the host
//! CPU bumps nothing, so the wait still polls as a safety net: it spins and yields for about
//! 50 µs, then sleeps in steps that grow from 20 µs to 1 ms.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread::Thread;
use std::time::{Duration, Instant};

const SPINS: u32 = 100;
/// Yield (rather than sleep) until this long after the wait began.
const YIELD_WINDOW: Duration = Duration::from_micros(50);
/// Sleeps of each length before doubling.
const STEPS_PER_LEVEL: u32 = 32;
const FIRST_SLEEP: Duration = Duration::from_micros(20);
const LONGEST_SLEEP: Duration = Duration::from_millis(1);

/// The memory writes of one emulated machine (every GPU of an `EmuKfd`, of an `EmuRm`).
#[derive(Debug)]
pub struct Writes {
    epoch: AtomicU64,
    /// Threads parked in a memory wait (`parked.len()`, read without the lock by writers).
    waiting: AtomicUsize,
    parked: Mutex<Vec<Thread>>,
    /// The safety-net poll: the first and the longest sleep, in µs.
    first_us: AtomicU64,
    longest_us: AtomicU64,
}

impl Default for Writes {
    fn default() -> Writes {
        Writes {
            epoch: AtomicU64::new(0),
            waiting: AtomicUsize::new(0),
            parked: Mutex::new(Vec::new()),
            first_us: AtomicU64::new(FIRST_SLEEP.as_micros() as u64),
            longest_us: AtomicU64::new(LONGEST_SLEEP.as_micros() as u64),
        }
    }
}

impl Writes {
    /// An engine wrote memory: wake every engine parked in a memory wait. Costs two atomics
    /// when none is.
    pub fn wrote(&self) {
        // SeqCst pairs with `MemoryWait::park`: either the waiter sees the new epoch after it
        // registered, or this sees the waiter registered (and its thread in the list).
        self.epoch.fetch_add(1, Ordering::SeqCst);
        if self.waiting.load(Ordering::SeqCst) != 0 {
            for t in self.parked.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                t.unpark();
            }
        }
    }

    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Set the safety-net poll's sleeps (by default 20 µs growing to 1 ms). Tests set them
    /// long so that a wait can only end through an engine's write.
    pub fn set_poll(&self, first: Duration, longest: Duration) {
        self.first_us.store(first.as_micros() as u64, Ordering::Relaxed);
        self.longest_us.store(longest.max(first).as_micros() as u64, Ordering::Relaxed);
    }

    fn sleep_for(&self, sleeps: u32) -> Duration {
        let level = ((sleeps.max(1) - 1) / STEPS_PER_LEVEL).min(20);
        let first = self.first_us.load(Ordering::Relaxed);
        let longest = self.longest_us.load(Ordering::Relaxed);
        Duration::from_micros(first.saturating_mul(1 << level).min(longest))
    }

    fn register(&self) {
        let mut p = self.parked.lock().unwrap_or_else(|e| e.into_inner());
        p.push(std::thread::current());
        self.waiting.fetch_add(1, Ordering::SeqCst);
    }

    fn unregister(&self) {
        let me = std::thread::current().id();
        let mut p = self.parked.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = p.iter().position(|t| t.id() == me) {
            p.swap_remove(i);
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// What the memory waits of one engine did, for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryWaitStats {
    /// Times the engine parked in a memory wait.
    pub parks: u64,
    /// Parks ended by an engine's write to memory.
    pub write_wakes: u64,
    /// Parks that slept their whole safety-net sleep with no write.
    pub timeouts: u64,
    /// Parks that ended early with no write (a doorbell or a stop unparked the thread).
    pub other_wakes: u64,
}

/// The counters behind [`MemoryWaitStats`], one set per engine.
#[derive(Debug, Default)]
pub struct WaitCounters {
    parks: AtomicU64,
    write_wakes: AtomicU64,
    timeouts: AtomicU64,
    other_wakes: AtomicU64,
}

impl WaitCounters {
    pub fn stats(&self) -> MemoryWaitStats {
        MemoryWaitStats {
            parks: self.parks.load(Ordering::Relaxed),
            write_wakes: self.write_wakes.load(Ordering::Relaxed),
            timeouts: self.timeouts.load(Ordering::Relaxed),
            other_wakes: self.other_wakes.load(Ordering::Relaxed),
        }
    }

    pub fn add(a: MemoryWaitStats, b: MemoryWaitStats) -> MemoryWaitStats {
        MemoryWaitStats {
            parks: a.parks + b.parks,
            write_wakes: a.write_wakes + b.write_wakes,
            timeouts: a.timeouts + b.timeouts,
            other_wakes: a.other_wakes + b.other_wakes,
        }
    }
}

/// One memory wait: create it before the first look at memory, and call [`MemoryWait::step`]
/// after each look that found the condition unmet (and whether to stop: whoever stops the
/// engine unparks its thread).
pub struct MemoryWait<'a> {
    writes: &'a Writes,
    counters: &'a WaitCounters,
    /// The epoch read before the last look at memory.
    seen: u64,
    n: u32,
    sleeps: u32,
    started: Instant,
}

impl<'a> MemoryWait<'a> {
    pub fn new(writes: &'a Writes, counters: &'a WaitCounters) -> MemoryWait<'a> {
        MemoryWait { writes, counters, seen: writes.epoch(), n: 0, sleeps: 0, started: Instant::now() }
    }

    pub fn step(&mut self) {
        let now = self.writes.epoch();
        if now != self.seen {
            // An engine wrote since the last look: look again at once.
            self.seen = now;
            return;
        }
        self.n = self.n.saturating_add(1);
        if self.n <= SPINS {
            std::hint::spin_loop();
        } else if self.sleeps == 0 && self.started.elapsed() < YIELD_WINDOW {
            std::thread::yield_now();
        } else {
            self.sleeps = self.sleeps.saturating_add(1);
            self.park();
        }
    }

    fn park(&mut self) {
        self.writes.register();
        let now = self.writes.epoch();
        if now == self.seen {
            self.counters.parks.fetch_add(1, Ordering::Relaxed);
            // A write unparks us; one between `register` and here left its token, so this
            // returns at once.
            let (sleep, t) = (self.writes.sleep_for(self.sleeps), Instant::now());
            std::thread::park_timeout(sleep);
            let after = self.writes.epoch();
            let c = if t.elapsed() >= sleep {
                &self.counters.timeouts
            } else if after != self.seen {
                &self.counters.write_wakes
            } else {
                &self.counters.other_wakes
            };
            c.fetch_add(1, Ordering::Relaxed);
            self.seen = after;
        } else {
            self.seen = now;
        }
        self.writes.unregister();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn sleeps_grow_from_the_first_to_the_longest() {
        let w = Writes::default();
        assert_eq!(w.sleep_for(1), FIRST_SLEEP);
        assert_eq!(w.sleep_for(1 + 5 * STEPS_PER_LEVEL), Duration::from_micros(640));
        assert_eq!(w.sleep_for(u32::MAX), LONGEST_SLEEP);
        w.set_poll(Duration::from_secs(30), Duration::from_secs(30));
        assert_eq!(w.sleep_for(1), Duration::from_secs(30));
    }

    #[test]
    fn a_write_wakes_a_parked_wait_before_its_poll_would() {
        let w = Arc::new(Writes::default());
        w.set_poll(Duration::from_secs(5), Duration::from_secs(5));
        let flag = Arc::new(AtomicU64::new(0));
        let c = Arc::new(WaitCounters::default());
        let (w2, f2, c2) = (w.clone(), flag.clone(), c.clone());
        let t = std::thread::spawn(move || {
            let mut wait = MemoryWait::new(&w2, &c2);
            while f2.load(Ordering::Acquire) == 0 {
                wait.step();
            }
        });
        while c.stats().parks == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        flag.store(1, Ordering::Release);
        w.wrote();
        t.join().unwrap();
        let s = c.stats();
        assert!(s.write_wakes >= 1 && s.timeouts == 0, "{s:?}");
        assert_eq!(w.waiting.load(Ordering::SeqCst), 0);
    }
}
