//! The harness of `cp`: a recording wave engine, an emulated machine opened through the real
//! KFD driver, a minimal ring writer and the KFD events the tests wait on.

use baregpu_drivers::amd::kfd::{EventKind, Kfd, KfdDevice, KfdEvent, KfdMemory, KfdQueue, MemKind, QueueKind};
use baregpu_drivers::amd::pm4::Pm4Generation;
use baregpu_drivers::amd::sdma::SdmaGeneration;
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::Os;
use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::amd::{machine, EmuKfd};
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const TIMEOUT: Duration = Duration::from_secs(10);

/// A wave engine for tests: records every dispatch and writes `0xC0DE0000 | grid.x` to the
/// address in USER_DATA_0/1, or fails with the fault it was given.
#[derive(Default)]
pub struct TestEngine {
    pub seen: Mutex<Vec<DispatchState>>,
    pub fail: Mutex<Option<DispatchFault>>,
}

impl WaveEngine for TestEngine {
    fn dispatch(&self, d: &DispatchState, mem: &GpuMemory) -> Result<(), DispatchFault> {
        self.seen.lock().unwrap().push(d.clone());
        if let Some(f) = self.fail.lock().unwrap().clone() {
            return Err(f);
        }
        let va = d.user_data[0] as u64 | (d.user_data[1] as u64) << 32;
        let p = mem.translate(va, 4).ok_or(DispatchFault::Memory { va, write: true, pc: d.pgm })?;
        // SAFETY: translated into a live mapping of 4 bytes.
        unsafe { (*(p as *const AtomicU32)).store(0xc0de_0000 | d.grid[0], Ordering::Release) };
        Ok(())
    }
}

pub struct Machine {
    pub emu: Arc<EmuKfd>,
    pub dev: KfdDevice,
    pub engine: Arc<TestEngine>,
    pub pm4: &'static Pm4Generation,
    pub sdma: &'static SdmaGeneration,
}

pub fn open(arch: &str) -> Machine {
    let _ = env_logger::builder().is_test(true).try_init();
    let engine = Arc::new(TestEngine::default());
    let emu = machine(&[arch], engine.clone()).unwrap();
    let os: Arc<dyn Os> = emu.clone();
    let gpu = topology::discover(&*os).unwrap().remove(0);
    let kfd = Kfd::open(os).unwrap();
    let dev = KfdDevice::open(kfd, gpu).unwrap();
    let pm4 = Pm4Generation::for_arch(arch).unwrap();
    let sdma = SdmaGeneration::for_arch(arch).unwrap();
    Machine { emu, dev, engine, pm4, sdma }
}

pub fn wait_until(timeout: Duration, mut f: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < timeout {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    f()
}

pub fn rd32(va: u64) -> u32 {
    // SAFETY: test addresses are live CPU mappings of uncached memory.
    unsafe { (*(va as *const AtomicU32)).load(Ordering::Acquire) }
}
pub fn wr32(va: u64, v: u32) {
    // SAFETY: as rd32.
    unsafe { (*(va as *const AtomicU32)).store(v, Ordering::Release) }
}
pub fn rd64(va: u64) -> u64 {
    // SAFETY: as rd32.
    unsafe { (*(va as *const AtomicU64)).load(Ordering::Acquire) }
}

/// A minimal ring writer, the protocol of runtime/src/amd/ring.rs: a monotonic write pointer
/// (PM4 dwords, SDMA bytes), PM4 packets may wrap, SDMA batches that would straddle the end
/// start at offset 0 after zero (NOP) dwords.
pub struct Ring {
    pub q: KfdQueue,
    pub put: u64,
    /// The ring size CREATE_QUEUE got (the allocation is rounded up to a page).
    pub bytes: u64,
}

impl Ring {
    pub fn new(dev: &KfdDevice, kind: QueueKind, bytes: u64) -> Ring {
        Ring { q: dev.create_queue(kind, bytes).unwrap(), put: 0, bytes }
    }
    pub fn unit(&self) -> u64 {
        if self.q.kind == QueueKind::Sdma {
            4
        } else {
            1
        }
    }
    pub fn ring_dw(&self) -> u64 {
        self.bytes / 4
    }
    /// How far every XCC that reads the ring has read.
    pub fn read_dw(&self) -> u64 {
        self.q.read_ptrs().map(|p| rd64(p) / self.unit()).min().unwrap_or(0)
    }
    pub fn put_dw(&self) -> u64 {
        self.put / self.unit()
    }
    /// Write and ring the doorbell (waiting for space).
    pub fn submit(&mut self, words: &[u32]) {
        let n = self.ring_dw();
        let mut at = self.put_dw();
        let tail = n - at % n;
        let fill = if self.q.kind == QueueKind::Sdma && words.len() as u64 > tail { tail } else { 0 };
        let total = words.len() as u64 + fill;
        assert!(total < n);
        assert!(wait_until(TIMEOUT, || self.put_dw() + total - self.read_dw() < n), "ring never drained");
        let store = |i: u64, w: u32| wr32(self.q.ring.va + (i % n) * 4, w);
        for _ in 0..fill {
            store(at, 0);
            at += 1;
        }
        for &w in words {
            store(at, w);
            at += 1;
        }
        self.put = at * self.unit();
        fence(Ordering::SeqCst);
        // SAFETY: the pointer page is a live mapping.
        unsafe { (*(self.q.write_ptr as *const AtomicU64)).store(self.put, Ordering::Release) };
        fence(Ordering::SeqCst);
        self.q.ring_doorbell(self.put);
    }
    pub fn idle(&self, timeout: Duration) -> bool {
        wait_until(timeout, || self.read_dw() == self.put_dw())
    }
}

pub struct Events {
    pub page: KfdMemory,
    pub sig: KfdEvent,
    pub mem: KfdEvent,
    pub hw: KfdEvent,
}

impl Events {
    pub fn new(dev: &KfdDevice) -> Events {
        let page = dev.alloc(0x8000, MemKind::Uncached).unwrap();
        let sig = dev.create_event(EventKind::Signal, true, Some(page.handle)).unwrap();
        let mem = dev.create_event(EventKind::MemoryFault, false, None).unwrap();
        let hw = dev.create_event(EventKind::HwException, false, None).unwrap();
        Events { page, sig, mem, hw }
    }
    pub fn mailbox(&self) -> u64 {
        self.page.va + self.sig.slot as u64 * 8
    }
    pub fn all(&self) -> [KfdEvent; 3] {
        [self.sig, self.mem, self.hw]
    }
    /// Fault events stay signaled once fired (they are not auto-reset): new ones for the next check.
    pub fn renew(&mut self, dev: &KfdDevice) {
        dev.destroy_event(self.mem).unwrap();
        dev.destroy_event(self.hw).unwrap();
        self.mem = dev.create_event(EventKind::MemoryFault, false, None).unwrap();
        self.hw = dev.create_event(EventKind::HwException, false, None).unwrap();
    }
    /// Wait for a memory fault at `va`'s page, then renew.
    pub fn expect_fault(&mut self, dev: &KfdDevice, va: u64, what: &str) {
        let out = dev.kfd().wait_events(&self.all(), 5000).unwrap();
        let f = out.memory_fault.clone().unwrap_or_else(|| panic!("{what}: no memory fault: {out:?}"));
        assert_eq!((f.va, f.gpu_id), (va & !0xfff, dev.gpu.gpu_id), "{what}");
        self.renew(dev);
    }
    /// Wait for a hardware exception, then renew.
    pub fn expect_hw_exception(&mut self, dev: &KfdDevice, what: &str) {
        let out = dev.kfd().wait_events(&self.all(), 5000).unwrap();
        assert!(out.hw_exception.is_some() && out.memory_fault.is_none(), "{what}: {out:?}");
        self.renew(dev);
    }
}
