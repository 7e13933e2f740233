//! How an idle engine thread (an AMD queue's command processor, an NVIDIA channel's GPFIFO
//! processor) waits for work: the doorbell. A doorbell write through the OS boundary
//! (`Os::ring_doorbell`) rings the engine's [`Bell`], which wakes its thread the way a doorbell
//! write wakes a real engine. The thread spins and yields briefly after
//! work (a host submitting in a loop comes back within that), then parks until the bell rings,
//! with a long timeout only as a safety net for a write pointer published without a doorbell.
//! Rings while the thread is awake cost an atomic store each (std's unpark only makes a system
//! call for a parked thread), so a burst of doorbells is cheap.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;
use std::time::{Duration, Instant};

/// Spin this many polls of the write pointer after work before yielding.
const SPINS: u32 = 200;
/// Yield (rather than park) until this long after the queue went idle.
const YIELD_WINDOW: Duration = Duration::from_micros(50);
/// The safety net: an idle thread looks at its write pointer this often even without a doorbell.
const PARK_TIMEOUT: Duration = Duration::from_millis(10);

/// What the doorbell did, for tests and diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BellStats {
    /// Times the thread parked with nothing to do.
    pub parks: u64,
    /// Parks ended by a doorbell (or found it already rung).
    pub doorbell_wakes: u64,
    /// Parks that ended without a ring (the safety-net timeout, a stop, a stale wake).
    pub timeouts: u64,
}

/// One engine's doorbell, shared by whoever rings it and the engine's thread.
#[derive(Debug, Default)]
pub struct Bell {
    rung: AtomicBool,
    /// The queue's thread, set once it is started.
    thread: OnceLock<Thread>,
    parks: AtomicU64,
    doorbell_wakes: AtomicU64,
    timeouts: AtomicU64,
}

impl Bell {
    /// Called by the thread that waits on this bell, before it first waits: rings from then
    /// on unpark it (one before finds the bell rung).
    pub fn attach_current(&self) {
        let _ = self.thread.set(std::thread::current());
    }

    /// A doorbell write: wake the queue's thread (coalesced with any pending ring). A ring
    /// before the thread is attached needs no wake: the thread looks at its write pointer first.
    pub fn ring(&self) {
        if !self.rung.swap(true, Ordering::AcqRel) {
            if let Some(t) = self.thread.get() {
                t.unpark();
            }
        }
    }

    pub fn stats(&self) -> BellStats {
        BellStats {
            parks: self.parks.load(Ordering::Relaxed),
            doorbell_wakes: self.doorbell_wakes.load(Ordering::Relaxed),
            timeouts: self.timeouts.load(Ordering::Relaxed),
        }
    }
}

/// The idle side of a queue thread: call [`Idle::wait`] while there is no work and
/// [`Idle::reset`] when work came.
#[derive(Debug, Default)]
pub struct Idle {
    n: u32,
    since: Option<Instant>,
}

impl Idle {
    pub fn reset(&mut self) {
        *self = Idle::default();
    }

    /// One step of waiting for the doorbell; the caller then looks for work again (and whether
    /// it should stop: whoever stops the engine rings the bell).
    pub fn wait(&mut self, bell: &Bell) {
        self.n = self.n.saturating_add(1);
        let since = *self.since.get_or_insert_with(Instant::now);
        if self.n <= SPINS {
            std::hint::spin_loop();
            return;
        }
        if since.elapsed() < YIELD_WINDOW {
            std::thread::yield_now();
            return;
        }
        // A ring that came while we were spinning: its work is already visible.
        if bell.rung.swap(false, Ordering::AcqRel) {
            return;
        }
        bell.parks.fetch_add(1, Ordering::Relaxed);
        // A destroy unparks the thread too; a stale unpark token only costs one more look.
        std::thread::park_timeout(PARK_TIMEOUT);
        if bell.rung.swap(false, Ordering::AcqRel) {
            bell.doorbell_wakes.fetch_add(1, Ordering::Relaxed);
        } else {
            bell.timeouts.fetch_add(1, Ordering::Relaxed);
        }
    }
}
