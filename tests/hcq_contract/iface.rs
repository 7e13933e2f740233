//! The AMD backend's driver interface (`baregpu_runtime::amd::iface`), checked through the trait
//! alone, so that every implementation (KFD today, AM next) is held to the same contract:
//! memory at one address the CPU and GPU share, queues whose ring, pointers and doorbell work
//! as the runtime drives them, a sleep that returns and reports faults, foreign objects refused,
//! memory usable after close. And the backend's side: every allocation and queue it takes
//! through an interface is given back by the time the device closes, also after recovery.

use baregpu::device::open_amd_iface;
use baregpu_drivers::amd::pm4::{Pm4, Pm4Generation, ReleaseData};
use baregpu_drivers::amd::sdma::{Sdma, SdmaGeneration};
use baregpu_drivers::va_window::Placement;
use baregpu_runtime::amd::hdp::HdpFlush;
use baregpu_runtime::amd::iface::{AmdIface, GpuInfo, HwQueue, MemKind, Memory, QueueKind, Stopped, Wake};
use baregpu_runtime::amd::AmdDevice;
use baregpu_runtime::port::Port;
use baregpu_runtime::program::{ArgValue, Launch};
use baregpu_runtime::DeviceSpec;
use std::any::Any;
use std::sync::atomic::{fence, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The interface of the contract's device (as `open()` picks it).
fn iface() -> Box<dyn AmdIface> {
    if let Some(o) = super::OVER.get() {
        return o.iface().0;
    }
    if let Some(r) = super::remote::current() {
        return r.iface();
    }
    let spec: DeviceSpec = super::spec();
    open_amd_iface(&spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

const PAGE: u64 = 0x1000;
const DEADLINE: Duration = Duration::from_secs(20);

fn poll_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < DEADLINE, "{what}: not within {DEADLINE:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn load32(port: &Port, va: u64) -> u32 {
    // SAFETY: the tests pass addresses of memory they hold, reached through the interface's
    // port; the GPU writes it too. The slots are 8-byte aligned; the low word is the value.
    (unsafe { port.load_u64(va) }) as u32
}

fn load64(port: &Port, va: u64) -> u64 {
    // SAFETY: as load32; read and write pointers are 8-byte aligned words.
    unsafe { port.load_u64(va) }
}

/// A queue as the runtime drives it: ring words, release fence, write pointer, fence, doorbell,
/// through the interface's port.
struct Driven {
    q: HwQueue,
    port: Port,
    /// Monotonic write position in the queue's units (PM4: dwords, SDMA: bytes).
    put: u64,
}

impl Driven {
    fn new(i: &dyn AmdIface, kind: QueueKind, ring_bytes: u64) -> Driven {
        Driven { q: i.create_queue(kind, ring_bytes).unwrap(), port: i.port(), put: 0 }
    }

    fn unit(&self) -> u64 {
        if self.q.kind == QueueKind::Sdma {
            4
        } else {
            1
        }
    }

    fn push(&mut self, words: &[u32]) {
        let ring_dwords = self.q.ring_bytes / 4;
        let mut at = self.put / self.unit();
        for &w in words {
            let va = self.q.ring_va + (at % ring_dwords) * 4;
            // SAFETY: inside the ring, reached through the port while the queue lives; the
            // engine reads only up to the write pointer published below.
            unsafe { self.port.write_words(va, &[w]) }.unwrap();
            at += 1;
        }
        self.put = at * self.unit();
        fence(Ordering::Release);
        // SAFETY: the write pointer is reached through the port while the queue lives.
        unsafe { self.port.store_u64(self.q.write_ptr, self.put) };
        fence(Ordering::SeqCst);
        self.q.ring_doorbell(self.put);
    }

    /// Every XCC's engine reports that it consumed all that was pushed.
    fn wait_consumed(&self) {
        let ring = self.q.ring_bytes / 4 * self.unit();
        poll_until("the read pointers reach the write pointer", || {
            self.q.read_ptrs.iter().all(|&r| load64(&self.port, r) % ring == self.put % ring)
        });
    }
}

fn release(info: &GpuInfo, addr: u64, value: u32) -> Vec<u32> {
    let mut q = Pm4::for_xccs(Pm4Generation::for_arch(&info.arch).unwrap(), 1, 0);
    q.release_mem(addr, ReleaseData::U32(value), true, None);
    q.into_words()
}

fn fence_words(info: &GpuInfo, addr: u64, value: u32) -> Vec<u32> {
    let mut q = Sdma::new(SdmaGeneration::for_arch(&info.arch).unwrap());
    q.fence(addr, value);
    q.words().to_vec()
}

#[test]
pub(super) fn memory_of_every_kind_has_one_address_for_cpu_and_gpu() {
    let i = iface();
    let kinds = [
        (MemKind::Vram { cpu_visible: true }, Placement::User),
        (MemKind::Host, Placement::User),
        (MemKind::Uncached, Placement::Internal),
        (MemKind::Vram { cpu_visible: false }, Placement::Internal),
    ];
    let mut held: Vec<Memory> = Vec::new();
    for (kind, placement) in kinds {
        let m = i.alloc(5000, kind, placement).unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert_eq!((m.kind, m.va % PAGE, m.size), (kind, 0, 2 * PAGE), "{m:?}");
        assert!(m.va != 0);
        assert_eq!(m.cpu_mapped, kind != MemKind::Vram { cpu_visible: false }, "{m:?}");
        for h in &held {
            assert!(m.va + m.size <= h.va || h.va + h.size <= m.va, "{m:?} overlaps {h:?}");
        }
        held.push(m);
    }
    // A signal slot written by the GPU at the address the CPU reads.
    let mut q = Driven::new(&*i, QueueKind::Compute, 1 << 12);
    for (n, m) in held.iter().filter(|m| m.cpu_mapped).enumerate() {
        q.push(&release(i.info(), m.va + 8, 0x5eed + n as u32));
        poll_until(&format!("the GPU's write into {:?}", m.kind), || load32(&q.port, m.va + 8) == 0x5eed + n as u32);
    }
    i.destroy_queue(q.q).unwrap();
    for m in held {
        i.free(m).unwrap();
    }
    assert!(i.alloc(0, MemKind::Host, Placement::User).is_err(), "a zero-byte allocation is refused");
}

#[test]
pub(super) fn queues_run_what_is_pushed_and_report_their_read_pointers() {
    let i = iface();
    let sig = i.alloc(PAGE, MemKind::Uncached, Placement::Internal).unwrap();
    let info = i.info().clone();
    for (kind, xccs) in [(QueueKind::Compute, info.xccs), (QueueKind::Sdma, 1)] {
        let mut d = Driven::new(&*i, kind, 1 << 12);
        let q = &d.q;
        assert_eq!((q.kind, q.ring_bytes, q.xccs()), (kind, 1 << 12, xccs), "{q:?}");
        assert_eq!(q.ring_va % PAGE, 0);
        // Past the ring's end twice: the engine wraps where the queue says.
        for n in 1..=600u32 {
            let words = match kind {
                QueueKind::Compute => release(&info, sig.va, n),
                QueueKind::Sdma => fence_words(&info, sig.va, n),
            };
            if kind == QueueKind::Sdma && (d.put / 4) % (1 << 10) + words.len() as u64 > 1 << 10 {
                // An SDMA packet may not straddle the ring's end: NOPs (zero dwords) to it.
                let fill = (1 << 10) - (d.put / 4) % (1 << 10);
                d.push(&vec![0; fill as usize]);
            }
            d.push(&words);
            if n % 50 == 0 {
                poll_until(&format!("{kind:?} signal {n}"), || load32(&d.port, sig.va) == n);
                d.wait_consumed();
            }
        }
        assert!(d.put / d.unit() > 2 * (1 << 10), "the test wrapped the ring");
        i.destroy_queue(d.q).unwrap();
    }
    i.free(sig).unwrap();
}

#[test]
pub(super) fn sleep_returns_and_reports_a_fault_then_recovery_rebuilds_the_queue() {
    let i = iface();
    let t = Instant::now();
    i.sleep(Duration::from_millis(5)).unwrap();
    assert!(t.elapsed() < Duration::from_secs(2), "a 5 ms sleep took {:?}", t.elapsed());
    // A CP write to a page nothing maps.
    let mut q = Driven::new(&*i, QueueKind::Compute, 1 << 12);
    q.push(&release(i.info(), 0x4000, 1));
    let start = Instant::now();
    let stopped: Stopped = loop {
        match i.sleep(Duration::from_millis(20)) {
            Err(s) => break s,
            Ok(()) => assert!(start.elapsed() < DEADLINE, "no fault reported for a write to VA 0x4000"),
        }
    };
    assert!(stopped.why.contains("0x4000"), "{stopped:?}");
    assert!(!stopped.engine_reset, "{stopped:?}");
    i.destroy_queue(q.q).unwrap();
    // Every XCC that ran the packet faulted: reports may have followed the first. None may
    // come once the queue is destroyed.
    let drained = (0..=i.info().xccs).any(|_| i.sleep(Duration::from_millis(1)).is_ok());
    assert!(drained, "fault reports kept coming after the queue was destroyed");
    assert!(i.recover().unwrap());
    let sig = i.alloc(PAGE, MemKind::Uncached, Placement::Internal).unwrap();
    let mut q = Driven::new(&*i, QueueKind::Compute, 1 << 12);
    q.push(&release(i.info(), sig.va, 9));
    poll_until("a signal after recovery", || load32(&q.port, sig.va) == 9);
    i.sleep(Duration::from_millis(1)).expect("no fault after recovery");
    i.destroy_queue(q.q).unwrap();
    i.free(sig).unwrap();
}

#[test]
pub(super) fn foreign_memory_and_queues_are_refused_and_memory_works_after_close() {
    let mut i = iface();
    let err = i.free(Memory::new(0x10_0000, PAGE, MemKind::Host, true, "not a driver record")).unwrap_err();
    assert!(err.to_string().contains("another device interface"), "{err}");
    let q = i.create_queue(QueueKind::Sdma, 1 << 12).unwrap();
    let fake = Fake::new(i.info().clone());
    let foreign = fake.create_queue(QueueKind::Sdma, 1 << 12).unwrap();
    assert!(i.destroy_queue(foreign).is_err());
    let m = i.alloc(PAGE, MemKind::Host, Placement::User).unwrap();
    assert!(i.map_for_peer(&m, &fake).unwrap_err().contains("not"), "a peer of another interface");
    i.destroy_queue(q).unwrap();
    i.close();
    let m2 = i.alloc(PAGE, MemKind::Uncached, Placement::Internal).unwrap();
    i.free(m).unwrap();
    i.free(m2).unwrap();
}

/// The backend's bookkeeping: opened over a counting interface, a device that launches, faults,
/// recovers and closes gives back every allocation and queue, and closes the interface once.
#[test]
pub(super) fn the_backend_gives_back_all_it_took_through_the_interface() {
    let counts = Arc::new(Counts::default());
    {
        let dev =
            AmdDevice::open_on(Box::new(Counting { inner: iface(), n: counts.clone() }), &super::label()).unwrap();
        let prog = dev.load(super::fixture(&dev.arch)).unwrap();
        let buf = dev.alloc(4096).unwrap();
        let s = dev.new_signal().unwrap();
        let mut q = dev.compute_queue().unwrap();
        q.signal(&s, 1);
        q.submit().unwrap();
        dev.synchronize().unwrap();
        // A fault (a store past the buffer), then recovery.
        let bad = (buf.va() + buf.size()).next_multiple_of(0x1000);
        let args =
            [ArgValue::Pointer(buf.va()), ArgValue::Pointer(buf.va()), ArgValue::Pointer(bad), ArgValue::u32(64)];
        let one = Launch::new([1, 1, 1], [64, 1, 1]);
        let f = dev.launch(&prog, "vector_add", &args, &one, false).unwrap();
        assert!(dev.synchronize().unwrap_err().to_string().contains("memory fault"));
        dev.release(f);
        let args =
            [ArgValue::Pointer(buf.va()), ArgValue::Pointer(buf.va()), ArgValue::Pointer(buf.va()), ArgValue::u32(64)];
        let ok = dev.launch(&prog, "vector_add", &args, &one, false).unwrap();
        dev.synchronize().unwrap();
        dev.release(ok);
        dev.free(buf).unwrap();
        dev.unload(prog).unwrap();
        drop(s);
        assert!(counts.queues.load(Ordering::Relaxed) >= 4, "recovery rebuilt the queues: {counts:?}");
        assert_eq!(counts.closed.load(Ordering::Relaxed), 0);
    }
    assert_eq!(counts.live_mem.load(Ordering::Relaxed), 0, "allocations left at close: {counts:?}");
    assert_eq!(counts.live_queues.load(Ordering::Relaxed), 0, "queues left at close: {counts:?}");
    assert_eq!(counts.closed.load(Ordering::Relaxed), 1);
}

#[derive(Debug, Default)]
struct Counts {
    live_mem: AtomicUsize,
    live_queues: AtomicUsize,
    queues: AtomicUsize,
    closed: AtomicUsize,
}

/// An interface that forwards to another and counts what is live.
struct Counting {
    inner: Box<dyn AmdIface>,
    n: Arc<Counts>,
}

impl AmdIface for Counting {
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
    fn info(&self) -> &GpuInfo {
        self.inner.info()
    }
    fn alloc(&self, size: u64, kind: MemKind, placement: Placement) -> baregpu_runtime::Result<Memory> {
        let m = self.inner.alloc(size, kind, placement)?;
        self.n.live_mem.fetch_add(1, Ordering::Relaxed);
        Ok(m)
    }
    fn free(&self, mem: Memory) -> baregpu_runtime::Result<()> {
        self.n.live_mem.fetch_sub(1, Ordering::Relaxed);
        self.inner.free(mem)
    }
    fn map_for_peer(&self, mem: &Memory, peer: &dyn AmdIface) -> Result<(), String> {
        let peer = peer.as_any().downcast_ref::<Counting>().map_or(peer, |c| &*c.inner);
        self.inner.map_for_peer(mem, peer)
    }
    fn create_queue(&self, kind: QueueKind, ring_bytes: u64) -> baregpu_runtime::Result<HwQueue> {
        let q = self.inner.create_queue(kind, ring_bytes)?;
        self.n.live_queues.fetch_add(1, Ordering::Relaxed);
        self.n.queues.fetch_add(1, Ordering::Relaxed);
        Ok(q)
    }
    fn destroy_queue(&self, q: HwQueue) -> baregpu_runtime::Result<()> {
        self.n.live_queues.fetch_sub(1, Ordering::Relaxed);
        self.inner.destroy_queue(q)
    }
    fn hdp(&self) -> Option<HdpFlush> {
        self.inner.hdp()
    }
    fn port(&self) -> Port {
        self.inner.port()
    }
    fn dma_pool(&self) -> Option<u64> {
        self.inner.dma_pool()
    }
    fn wake(&self) -> Option<Wake> {
        self.inner.wake()
    }
    fn sleep(&self, d: Duration) -> Result<(), Stopped> {
        self.inner.sleep(d)
    }
    fn queue_exception(&self, id: u32) -> Option<String> {
        self.inner.queue_exception(id)
    }
    fn recover(&self) -> baregpu_runtime::Result<bool> {
        self.inner.recover()
    }
    fn close(&mut self) {
        self.n.closed.fetch_add(1, Ordering::Relaxed);
        self.inner.close()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// An interface of another kind, whose objects the real one must refuse.
struct Fake {
    info: GpuInfo,
}

struct FakeQueue;

impl baregpu_runtime::amd::iface::QueueBacking for FakeQueue {
    fn ring_doorbell(&self, _: u64) {}
}

impl Fake {
    fn new(info: GpuInfo) -> Fake {
        Fake { info }
    }
}

impl AmdIface for Fake {
    fn kind(&self) -> &'static str {
        "fake"
    }
    fn info(&self) -> &GpuInfo {
        &self.info
    }
    fn alloc(&self, _: u64, _: MemKind, _: Placement) -> baregpu_runtime::Result<Memory> {
        unreachable!("not used")
    }
    fn free(&self, _: Memory) -> baregpu_runtime::Result<()> {
        Ok(())
    }
    fn map_for_peer(&self, _: &Memory, _: &dyn AmdIface) -> Result<(), String> {
        Err("fake".into())
    }
    fn create_queue(&self, kind: QueueKind, ring_bytes: u64) -> baregpu_runtime::Result<HwQueue> {
        Ok(HwQueue::new(1, kind, 0, ring_bytes, 0, vec![0], 0, FakeQueue))
    }
    fn destroy_queue(&self, _: HwQueue) -> baregpu_runtime::Result<()> {
        Ok(())
    }
    fn hdp(&self) -> Option<HdpFlush> {
        None
    }
    fn wake(&self) -> Option<Wake> {
        None
    }
    fn sleep(&self, _: Duration) -> Result<(), Stopped> {
        Ok(())
    }
    fn queue_exception(&self, _: u32) -> Option<String> {
        None
    }
    fn recover(&self) -> baregpu_runtime::Result<bool> {
        Ok(true)
    }
    fn close(&mut self) {}
    fn as_any(&self) -> &dyn Any {
        self
    }
}
