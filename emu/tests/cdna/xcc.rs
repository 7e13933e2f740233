//! MI300-class partitions on the emulated gfx942: one KFD node of 8 XCCs, whose compute ring the
//! driver has every XCC execute (one PM4 queue per XCC over the same ring). The emulated CP of
//! each XCC runs every packet it is not told to skip, so a signal the driver does not keep to
//! one XCC is written 8 times, and a dispatch it does not split runs whole on every XCC: the
//! tests count what each XCC's CP did.

use baregpu_autogen::amd::pm4_nv as nv;
use baregpu_drivers::amd::kfd::{EventKind, Kfd, KfdDevice, MemKind, QueueKind};
use baregpu_drivers::amd::pm4::{Pm4, ReleaseData, GFX9};
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::Os;
use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::amd::{self as emu_amd, CommandProcessors, EmuKfd};
use baregpu_runtime::amd::AmdDevice;
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(10);

/// Records every dispatch (one per XCC that takes it) and runs nothing.
#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<DispatchState>>,
}

impl WaveEngine for Recorder {
    fn dispatch(&self, d: &DispatchState, _mem: &GpuMemory) -> Result<(), DispatchFault> {
        self.seen.lock().unwrap().push(d.clone());
        Ok(())
    }
}

struct Machine {
    emu: Arc<EmuKfd>,
    cps: Arc<CommandProcessors>,
    engine: Arc<Recorder>,
}

fn machine(arch: &str) -> Machine {
    let engine = Arc::new(Recorder::default());
    let emu = EmuKfd::new(&[arch]).unwrap();
    let cps = Arc::new(CommandProcessors::new(Arc::downgrade(&emu), engine.clone()));
    emu.set_queue_observer(Some(cps.clone()));
    Machine { emu, cps, engine }
}

fn wait_until(mut f: impl FnMut() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < TIMEOUT {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    f()
}

impl Machine {
    /// The compute queues, by target XCC.
    fn compute_queues(&self) -> Vec<emu_amd::EmuQueue> {
        let mut q: Vec<_> = self.emu.queues().into_iter().filter(|q| q.kind == emu_amd::QueueKind::Compute).collect();
        q.sort_by_key(|q| q.pm4_target_xcc);
        q
    }

    /// Wait until every compute queue's CP read all that was written, then the end-of-pipe
    /// writes each made, by XCC.
    fn eop_writes_when_idle(&self) -> Vec<u64> {
        let qs = self.compute_queues();
        // SAFETY: the pointer pages are live mappings of the emulated KFD while the queues live.
        let idle = |q: &emu_amd::EmuQueue| unsafe {
            (*(q.read_ptr_host as *const AtomicU64)).load(Ordering::Acquire)
                == (*(q.write_ptr_host as *const AtomicU64)).load(Ordering::Acquire)
        };
        assert!(wait_until(|| qs.iter().all(idle)), "the XCCs' CPs never caught up");
        qs.iter().map(|q| self.cps.eop_writes(q.queue_id).unwrap()).collect()
    }
}

fn fixture(arch: &str) -> CodeObject {
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/fixtures/hsaco/basic-{arch}.hsaco"));
    CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap()
}

#[test]
fn every_xcc_executes_the_ring_and_only_xcc0_writes_signals_and_timestamps() {
    let m = machine("gfx942");
    let mut dev = AmdDevice::open(m.emu.clone(), 0, "emu:gfx942").unwrap();
    dev.timeout = TIMEOUT;
    let qs = m.compute_queues();
    assert_eq!(qs.iter().map(|q| q.pm4_target_xcc).collect::<Vec<_>>(), (0..8).collect::<Vec<_>>());
    assert!(qs.windows(2).all(|p| p[0].ring_va == p[1].ring_va && p[0].read_ptr_va != p[1].read_ptr_va));
    let before = m.eop_writes_when_idle();
    let s = dev.new_signal().unwrap();
    let mut q = dev.compute_queue().unwrap();
    q.signal(&s, 5);
    q.timestamp(&s);
    q.submit().unwrap();
    dev.synchronize().unwrap();
    assert_eq!(s.value(), 5);
    let after = m.eop_writes_when_idle();
    let made: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    // The signal, its interrupt, the timestamp, the completion signal and its interrupt.
    assert_eq!(made[0], 5, "XCC 0: {made:?}");
    assert!(made[1..].iter().all(|&n| n == 0), "only XCC 0 writes: {made:?}");
    drop(dev);
    assert!(m.emu.queues().is_empty());
}

#[test]
fn a_dispatch_runs_each_workgroup_once_across_the_xccs() {
    for (arch, xccs) in [("gfx942", 8u32), ("gfx1100", 1)] {
        let m = machine(arch);
        let mut dev = AmdDevice::open(m.emu.clone(), 0, &format!("emu:{arch}")).unwrap();
        dev.timeout = TIMEOUT;
        assert_eq!(m.compute_queues().len(), xccs as usize, "{arch}");
        let prog = dev.load(fixture(arch)).unwrap();
        let buf = dev.alloc(4096).unwrap();
        let args =
            [ArgValue::Pointer(buf.va()), ArgValue::Pointer(buf.va()), ArgValue::Pointer(buf.va()), ArgValue::u32(0)];
        let grid = [5u32, 3, 2];
        let done = dev.launch(&prog, "vector_add", &args, &Launch::new(grid, [64, 1, 1]), false).unwrap();
        dev.synchronize().unwrap();
        dev.release(done);
        m.eop_writes_when_idle();
        let seen = m.engine.seen.lock().unwrap().clone();
        assert_eq!(seen.len(), xccs as usize, "{arch}: one dispatch per XCC");
        let mut runs = vec![0u32; 30];
        for d in &seen {
            for n in 0..d.groups() {
                let [x, y, z] = d.group_id(n);
                runs[(x + 5 * (y + 3 * z)) as usize] += 1;
            }
        }
        assert!(runs.iter().all(|&r| r == 1), "{arch}: workgroup runs {runs:?}");
        let mut shares: Vec<u32> = seen.iter().map(|d| d.xcc.index).collect();
        shares.sort_unstable();
        assert_eq!(shares, (0..xccs).collect::<Vec<_>>(), "{arch}");
        dev.free(buf).unwrap();
        dev.unload(prog).unwrap();
    }
}

/// Raw PM4 on the driver's queue of 8 XCCs: PRED_EXEC works in an IB and picks the XCCs; in the
/// ring itself it is a bad packet; an unwrapped RELEASE_MEM is executed by every XCC.
#[test]
fn pred_exec_selects_xccs_in_an_ib_and_is_refused_in_the_ring() {
    let m = machine("gfx942");
    let os: Arc<dyn Os> = m.emu.clone();
    let gpu = topology::discover(&*os).unwrap().remove(0);
    assert_eq!(gpu.num_xcc, 8);
    let dev = KfdDevice::open(Kfd::open(os).unwrap(), gpu).unwrap();
    let hw = dev.create_event(EventKind::HwException, false, None).unwrap();
    let q = dev.create_queue(QueueKind::Compute, 1 << 12).unwrap();
    assert_eq!(q.xccs(), 8);
    let mem = dev.alloc(0x2000, MemKind::Uncached).unwrap();
    let put_words = |va: u64, words: &[u32]| {
        for (i, &w) in words.iter().enumerate() {
            // SAFETY: `va` is a CPU mapping of uncached memory with room for `words`.
            unsafe { (*((va + 4 * i as u64) as *const AtomicU32)).store(w, Ordering::Release) };
        }
    };
    let mut put = 0u64;
    let mut submit = |words: &[u32]| {
        put_words(q.ring.va + put * 4, words);
        put += words.len() as u64;
        fence(Ordering::SeqCst);
        // SAFETY: the write pointer is in the queue's live pointer page.
        unsafe { (*(q.write_ptr as *const AtomicU64)).store(put, Ordering::Release) };
        q.ring_doorbell(put);
    };
    // In an IB: XCC 2 alone writes; then a plain write that every XCC makes.
    let mut ib = Pm4::for_xccs(&GFX9, 8, 0);
    ib.pred_exec(0b100, |q| q.release_mem(mem.va, ReleaseData::U32(2), false, None));
    ib.release_mem(mem.va + 8, ReleaseData::U32(8), false, None);
    put_words(mem.va + 0x1000, ib.words());
    let mut ring = Pm4::new(&GFX9);
    ring.indirect_buffer(mem.va + 0x1000, ib.len() as u32);
    submit(ring.words());
    let writes = m.eop_writes_when_idle();
    assert_eq!(writes, [1, 1, 2, 1, 1, 1, 1, 1]);
    assert!(dev.kfd().wait_events(&[hw], 0).unwrap().hw_exception.is_none());
    // In the ring: the hardware does not honour it; the emulated CP stops the queue.
    let mut bad = Pm4::for_xccs(&GFX9, 8, 0);
    bad.pred_exec(1, |q| q.release_mem(mem.va, ReleaseData::U32(3), false, None));
    submit(bad.words());
    let out = dev.kfd().wait_events(&[hw], 5000).unwrap();
    assert!(out.hw_exception.is_some(), "{out:?}");
    assert_eq!(nv::CP_PACKET3_GET_OPCODE(bad.words()[0]), nv::PACKET3_PRED_EXEC);
    dev.destroy_queue(q).unwrap();
    assert!(m.emu.queues().is_empty(), "every XCC's queue is destroyed");
}
