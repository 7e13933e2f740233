//! Signals: 16-byte slots `{u64 value, u64 timestamp}` in memory that the GPU writes. The host
//! touches them only with atomic accesses. AMD hardware stores and compares the low 32 bits only
//! (RELEASE_MEM send_32_bit_low, SDMA FENCE, WAIT_REG_MEM with mask 0xffffffff), so a signal
//! knows its width and compares what the GPU compares.
//!
//! A signal handed out by a device owns a share of its signal page ([`SignalPage`]): the device
//! unmaps the page only when no handle is left, so reading a signal can never touch memory that
//! is gone, even after its device was dropped. A signal reaches its slot through its device's
//! [`Port`]: through its address where the page is CPU-mapped, by calls over a link otherwise.

use crate::port::{Link, Port};
use crate::timeout::Watchdog;
use baregpu_drivers::pci::Until;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Size of one signal slot.
pub const SIGNAL_BYTES: usize = 16;

/// A wait over a link runs next to the device in slices this long: one round trip each, the
/// device's fault poll between two. Short enough that a fault is reported soon and the link
/// (shared by every thread of the device) is not held long; long enough that most waits on
/// one submission take one slice.
pub const LINK_WAIT_SLICE: Duration = Duration::from_millis(20);

/// How much of the value the GPU writes and compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// AMD: the low 32 bits.
    Bits32,
    /// NVIDIA: 64-bit semaphores.
    Bits64,
}

impl Width {
    pub fn mask(self) -> u64 {
        match self {
            Width::Bits32 => u32::MAX as u64,
            Width::Bits64 => u64::MAX,
        }
    }
}

/// A page of signal slots that a device mapped. Handles share it; the device frees its memory
/// only once it holds the last share (see `core::Device`'s drop).
pub struct SignalPage {
    va: usize,
    bytes: usize,
    port: Port,
    /// Run when the last share goes, where the device went first: it unmaps the page then.
    on_last: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl std::fmt::Debug for SignalPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SignalPage({:#x}, {} bytes)", self.va, self.bytes)
    }
}

impl Drop for SignalPage {
    fn drop(&mut self) {
        if let Some(f) = self.on_last.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
            f();
        }
    }
}

impl SignalPage {
    /// # Safety
    /// `va` must be 8-byte aligned and `bytes` of memory there must stay mapped (for `port`)
    /// for as long as this page (any `Arc` of it) lives.
    pub unsafe fn new(va: usize, bytes: usize, port: Port) -> Arc<SignalPage> {
        assert_eq!(va % 8, 0, "signal page {va:#x} is not 8-byte aligned");
        Arc::new(SignalPage { va, bytes, port, on_last: Mutex::new(None) })
    }

    /// What to do when the last share is gone (a device that closed before its signals hands
    /// over what keeps the page mapped, and how to unmap it).
    pub fn on_last_share(&self, f: Box<dyn FnOnce() + Send>) {
        *self.on_last.lock().unwrap_or_else(|e| e.into_inner()) = Some(f);
    }

    /// Every slot of the page, as owning signals.
    pub fn slots(self: &Arc<Self>, width: Width) -> Vec<Signal> {
        (0..self.bytes / SIGNAL_BYTES)
            .map(|i| Signal {
                addr: self.va + i * SIGNAL_BYTES,
                width,
                port: self.port.clone(),
                _page: Some(self.clone()),
            })
            .collect()
    }
}

/// One signal slot. A device's signals keep their page alive (cloning one is an `Arc`
/// increment); [`Signal::from_addr`] makes one over memory the caller keeps alive.
#[derive(Debug, Clone)]
pub struct Signal {
    addr: usize,
    width: Width,
    port: Port,
    _page: Option<Arc<SignalPage>>,
}

impl PartialEq for Signal {
    fn eq(&self, other: &Self) -> bool {
        (self.addr, self.width) == (other.addr, other.width)
    }
}
impl Eq for Signal {}

/// Why a host wait ended without the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitError {
    /// No progress for the whole timeout: the value stayed at `last`.
    Timeout { last: u64 },
    /// The device reported a fault while we waited.
    Fault(String),
}

impl Signal {
    /// # Safety
    /// `addr` must be 8-byte aligned and point to `SIGNAL_BYTES` of memory that stays mapped for
    /// as long as the signal is used.
    pub unsafe fn from_addr(addr: usize, width: Width) -> Self {
        assert_eq!(addr % 8, 0, "signal slot {addr:#x} is not 8-byte aligned");
        Signal { addr, width, port: Port::Local, _page: None }
    }

    /// The GPU (and CPU) address of the value.
    pub fn value_addr(&self) -> usize {
        self.addr
    }

    /// Where timestamps land: the second word of the slot.
    pub fn timestamp_addr(&self) -> usize {
        self.addr + 8
    }

    pub fn width(&self) -> Width {
        self.width
    }

    fn load(&self, offset: usize) -> u64 {
        // SAFETY: aligned memory that stays mapped while `self` lives: its page's share (the
        // device unmaps a page only when no share is left), or from_addr's contract. The port
        // reads atomically (the GPU writes the word concurrently).
        unsafe { self.port.load_u64((self.addr + offset) as u64) }
    }

    fn store(&self, offset: usize, value: u64) {
        // SAFETY: as load.
        unsafe { self.port.store_u64((self.addr + offset) as u64, value) }
    }

    /// The value as the GPU sees it (masked to its width). Zero once the device's link failed
    /// (the failure ends the next wait).
    pub fn value(&self) -> u64 {
        self.load(0) & self.width.mask()
    }

    /// Set the value from the host (initialisation, host-side signalling).
    pub fn set(&self, value: u64) {
        self.store(0, value);
    }

    /// Raw timestamp ticks written by the last timestamp command.
    pub fn timestamp(&self) -> u64 {
        self.load(8)
    }

    pub fn set_timestamp(&self, ticks: u64) {
        self.store(8, ticks);
    }

    /// Whether the value has reached `target`.
    pub fn reached(&self, target: u64) -> bool {
        self.value() >= (target & self.width.mask())
    }

    /// Wait until the value reaches `target`: spin briefly, then call `sleep(budget)` (the
    /// device's interrupt wait, which may also report a fault) between checks. The value moving
    /// is progress; `dog` sees the device's other progress (workgroups retired inside one long
    /// kernel) and decides when its absence is a hang, so long-running work that makes
    /// progress never times out while a hang does.
    pub fn wait(
        &self,
        target: u64,
        dog: &mut Watchdog,
        sleep: &mut dyn FnMut(Duration) -> Result<(), WaitError>,
    ) -> Result<(), WaitError> {
        if let Port::Link(link) = &self.port {
            return self.wait_over(link, target, dog, sleep);
        }
        // Short work finishes within tens of microseconds: poll that long before paying for a
        // sleep and a wake-up (tinygrad polls far longer; this keeps an idle host core free).
        const SPIN: Duration = Duration::from_micros(50);
        let spin_start = Instant::now();
        while spin_start.elapsed() < SPIN {
            for _ in 0..64 {
                if self.reached(target) {
                    return Ok(());
                }
                std::hint::spin_loop();
            }
            std::thread::yield_now(); // let an emulated engine on this core run (2-core hosts)
        }
        let mut last = self.value();
        loop {
            if self.reached(target) {
                return Ok(());
            }
            let now = self.value();
            if now != last {
                last = now;
                dog.progressed();
            }
            match dog.check() {
                Some(slice) => sleep(slice)?,
                None => return Err(WaitError::Timeout { last }),
            }
        }
    }
}

impl Signal {
    /// [`Signal::wait`] over a link, where each read is a round trip: each slice is one wait
    /// next to the device ([`Link::wait_u64`]), then `sleep(0)` polls the device's faults. The
    /// watchdog decides as in [`Signal::wait`]; a link failure is latched and the sleep reports it.
    fn wait_over(
        &self,
        link: &Link,
        target: u64,
        dog: &mut Watchdog,
        sleep: &mut dyn FnMut(Duration) -> Result<(), WaitError>,
    ) -> Result<(), WaitError> {
        let until = Until::at_least(target, self.width.mask());
        let mut last = None;
        loop {
            let Some(left) = dog.check() else {
                return Err(WaitError::Timeout { last: last.unwrap_or(0) });
            };
            if let Ok(v) = link.wait_u64(self.addr as u64, until, left.min(LINK_WAIT_SLICE)) {
                if until.holds(v) {
                    return Ok(());
                }
                let v = v & self.width.mask();
                if last.is_some_and(|l| l != v) {
                    dog.progressed();
                }
                last = Some(v);
            }
            sleep(Duration::ZERO)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeout::{Progress, ProgressProbe};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    fn slot() -> (Arc<[AtomicU64; 2]>, Signal) {
        let mem = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
        // SAFETY: the Arc keeps the slot alive for the test; it is 8-byte aligned.
        let sig = unsafe { Signal::from_addr(mem.as_ptr() as usize, Width::Bits32) };
        (mem, sig)
    }

    fn nap(d: Duration) -> Result<(), WaitError> {
        std::thread::sleep(d.min(Duration::from_millis(1)));
        Ok(())
    }

    /// A watchdog of `timeout` without a probe.
    fn dog(timeout: Duration) -> Watchdog<'static> {
        Watchdog::new(timeout, None)
    }

    #[test]
    fn thirty_two_bit_signals_ignore_the_high_word() {
        let (mem, sig) = slot();
        mem[0].store(0xdead_0000_0005, Ordering::SeqCst);
        assert_eq!(sig.value(), 5);
        assert!(sig.reached(5) && !sig.reached(6));
        sig.set_timestamp(1234);
        assert_eq!(mem[1].load(Ordering::SeqCst), 1234);
        assert_eq!(sig.timestamp_addr() - sig.value_addr(), 8);
    }

    #[test]
    fn wait_returns_when_another_thread_signals() {
        let (mem, sig) = slot();
        let writer = {
            let mem = mem.clone();
            std::thread::spawn(move || {
                for v in 1..=5 {
                    std::thread::sleep(Duration::from_millis(2));
                    mem[0].store(v, Ordering::Release);
                }
            })
        };
        sig.wait(5, &mut dog(Duration::from_secs(5)), &mut nap).unwrap();
        writer.join().unwrap();
    }

    #[test]
    fn a_stuck_value_times_out_and_a_fault_is_passed_on() {
        let (_mem, sig) = slot();
        sig.set(3);
        let err = sig.wait(4, &mut dog(Duration::from_millis(30)), &mut nap).unwrap_err();
        assert_eq!(err, WaitError::Timeout { last: 3 });
        let err = sig
            .wait(4, &mut dog(Duration::from_secs(5)), &mut |_| Err(WaitError::Fault("page fault at 0x1000".into())));
        assert_eq!(err, Err(WaitError::Fault("page fault at 0x1000".into())));
    }

    #[test]
    fn progress_restarts_the_timeout() {
        let (mem, sig) = slot();
        let writer = {
            let mem = mem.clone();
            std::thread::spawn(move || {
                // 10 steps of 15 ms: 150 ms in all, each step inside a 60 ms timeout.
                for v in 1..=10 {
                    std::thread::sleep(Duration::from_millis(15));
                    mem[0].store(v, Ordering::Release);
                }
            })
        };
        sig.wait(10, &mut dog(Duration::from_millis(60)), &mut nap).unwrap();
        writer.join().unwrap();
    }

    #[test]
    fn device_progress_restarts_the_timeout_and_its_end_times_out() {
        let (mem, sig) = slot();
        // The value stays put for 150 ms while the device reports workgroups retiring for the
        // first 120 ms (one long kernel), inside a 60 ms timeout; then it signals.
        let start = Instant::now();
        let retiring = move |until: u64| -> ProgressProbe {
            Arc::new(move || Progress { retired: (start.elapsed().as_millis() as u64).min(until), ran: Duration::ZERO })
        };
        let probe = retiring(120);
        let mut working = |d: Duration| {
            std::thread::sleep(d.min(Duration::from_millis(1)));
            if start.elapsed() >= Duration::from_millis(150) {
                mem[0].store(1, Ordering::Release);
            }
            Ok(())
        };
        sig.wait(1, &mut Watchdog::new(Duration::from_millis(60), Some(&probe)), &mut working).unwrap();
        // Progress that stops is a hang after the timeout. Reported until 400 ms, it carries the
        // wait well past the 60 ms a wait without it would last.
        let probe = retiring(400);
        let err = sig.wait(2, &mut Watchdog::new(Duration::from_millis(60), Some(&probe)), &mut nap).unwrap_err();
        assert_eq!(err, WaitError::Timeout { last: 1 });
        assert!(start.elapsed() >= Duration::from_millis(400), "timed out while the device reported progress");
    }

    /// Link memory whose word stays at `value`, counting the waits run on it (reads fail: a
    /// wait over a link must not poll by reads).
    struct WaitMem {
        value: AtomicU64,
        waits: AtomicU64,
    }

    impl crate::port::LinkMem for WaitMem {
        fn name(&self) -> String {
            "fake-link".into()
        }
        fn read(&self, va: u64, _: &mut [u8]) -> crate::Result<()> {
            Err(crate::Error::Device { device: self.name(), msg: format!("a read of {va:#x}") })
        }
        fn write(&self, _: u64, _: &[u8]) -> crate::Result<()> {
            Ok(())
        }
        fn wait_u64(&self, _: u64, until: Until, timeout: Duration) -> crate::Result<u64> {
            self.waits.fetch_add(1, Ordering::SeqCst);
            let v = self.value.load(Ordering::SeqCst);
            if !until.holds(v) {
                std::thread::sleep(timeout.min(Duration::from_millis(1)));
            }
            Ok(v)
        }
    }

    #[test]
    fn a_wait_over_a_link_is_one_call_per_slice_and_still_times_out() {
        let mem = Arc::new(WaitMem { value: AtomicU64::new(0x1_0000_0005), waits: AtomicU64::new(0) });
        // SAFETY: a link port never dereferences its addresses.
        let page = unsafe { SignalPage::new(0x1000, SIGNAL_BYTES, Port::Link(Link::new(mem.clone()))) };
        let sig = page.slots(Width::Bits32).remove(0);
        let mut sleeps = 0;
        sig.wait(5, &mut dog(Duration::from_secs(5)), &mut |_| {
            sleeps += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!((mem.waits.load(Ordering::SeqCst), sleeps), (1, 0), "one wait, no fault poll");
        let mut polls = |d: Duration| {
            assert_eq!(d, Duration::ZERO, "the slice waited already");
            Ok(())
        };
        let err = sig.wait(6, &mut dog(Duration::from_millis(30)), &mut polls).unwrap_err();
        assert_eq!(err, WaitError::Timeout { last: 5 });
        assert!(mem.waits.load(Ordering::SeqCst) > 2);
        let mut faults = |_: Duration| Err(WaitError::Fault("memory fault".into()));
        assert_eq!(
            sig.wait(6, &mut dog(Duration::from_secs(5)), &mut faults),
            Err(WaitError::Fault("memory fault".into()))
        );
    }
}
