//! AmIface over a recording driver: placement, queue memory and its release, the polling
//! sleep's fault reports, foreign objects.

use super::*;
use std::collections::HashMap;

#[derive(Default)]
struct Log {
    next: u64,
    live: HashMap<u64, (u64, Where)>,
    queues: Vec<(QueueKind, u64, u64, u64, u64)>,
    destroyed: Vec<u32>,
    bells: Vec<(u32, u64)>,
    faults: Vec<AmFault>,
    refuse_queues: bool,
}

#[derive(Default)]
struct Recording(Mutex<Log>);

impl Recording {
    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.0.lock().unwrap()
    }
}

impl AmDriver for Recording {
    fn info(&self) -> GpuInfo {
        GpuInfo { arch: "gfx1100".into(), xccs: 1, compute_units: 96, lds_bytes: 65536, scratch_slots_per_cu: 32 }
    }
    fn large_bar(&self) -> bool {
        true
    }
    fn alloc(&self, size: u64, place: Where) -> Result<DriverAlloc> {
        let mut l = self.log();
        l.next += 1;
        let (token, va) = (l.next, 0x1000_0000 * l.next);
        l.live.insert(token, (va, place));
        let size = size.next_multiple_of(0x1000);
        Ok(DriverAlloc { va, size, cpu_mapped: place != Where::Vram { contiguous: false }, token })
    }
    fn free(&self, token: u64) -> Result<()> {
        match self.log().live.remove(&token) {
            Some(_) => Ok(()),
            None => Err(crate::Error::Driver(baregpu_drivers::Error::Protocol(format!("no allocation {token}")))),
        }
    }
    fn create_queue(&self, kind: QueueKind, ring: u64, bytes: u64, rptr: u64, wptr: u64) -> Result<u32> {
        let mut l = self.log();
        if l.refuse_queues {
            return Err(crate::Error::Driver(baregpu_drivers::Error::Protocol("no HQD free".into())));
        }
        l.queues.push((kind, ring, bytes, rptr, wptr));
        Ok(l.queues.len() as u32 + 2)
    }
    fn destroy_queue(&self, handle: u32) -> Result<()> {
        self.log().destroyed.push(handle);
        Ok(())
    }
    fn ring_doorbell(&self, handle: u32, wptr: u64) -> Result<()> {
        self.log().bells.push((handle, wptr));
        Ok(())
    }
    fn poll_faults(&self) -> Result<Option<AmFault>> {
        Ok(self.log().faults.pop())
    }
    fn hdp(&self) -> Option<HdpFlush> {
        None
    }
    fn reset(&self) -> Result<bool> {
        Ok(true)
    }
    fn close(&self) {}
}

fn iface() -> (Arc<Recording>, AmIface) {
    let drv = Arc::new(Recording::default());
    (drv.clone(), AmIface::new(drv))
}

#[test]
fn placement_follows_amd_md_7_6() {
    let vis = MemKind::Vram { cpu_visible: true };
    let invis = MemKind::Vram { cpu_visible: false };
    assert_eq!(place(MemKind::Uncached, true, true), Where::System, "rings, signals, pointers");
    assert_eq!(place(MemKind::Host, true, true), Where::System);
    assert_eq!(place(vis, true, true), Where::Vram { contiguous: true }, "code and buffers, one BAR window");
    assert_eq!(place(invis, true, true), Where::Vram { contiguous: false });
    assert_eq!(place(vis, false, true), Where::System, "a small BAR cannot map it: system memory");
    assert_eq!(place(invis, false, true), Where::Vram { contiguous: false });
}

#[test]
fn without_host_dma_everything_goes_to_vram() {
    let cpu = Where::Vram { contiguous: true };
    for large_bar in [true, false] {
        for kind in [MemKind::Uncached, MemKind::Host, MemKind::Vram { cpu_visible: true }] {
            assert_eq!(place(kind, large_bar, false), cpu, "{kind:?}");
        }
        let invis = place(MemKind::Vram { cpu_visible: false }, large_bar, false);
        assert_eq!(invis, Where::Vram { contiguous: false });
    }
}

#[test]
fn a_queue_lives_in_system_memory_and_gives_it_back() {
    let (drv, i) = iface();
    let q = i.create_queue(QueueKind::Compute, 1 << 16).unwrap();
    assert_eq!(drv.log().live.len(), 2);
    assert!(drv.log().live.values().all(|&(_, w)| w == Where::System), "ring and pointers in system memory");
    let (kind, ring, bytes, rptr, wptr) = drv.log().queues[0];
    assert_eq!((kind, ring, bytes), (QueueKind::Compute, q.ring_va, 1 << 16));
    assert_eq!(rptr, q.queue_va + offset_of!(amd_queue_t, read_dispatch_id) as u64);
    assert_eq!(wptr, q.queue_va + offset_of!(amd_queue_t, write_dispatch_id) as u64);
    assert_eq!((q.read_ptrs.clone(), q.write_ptr), (vec![rptr], wptr));
    q.ring_doorbell(0x40);
    assert_eq!(drv.log().bells, vec![(q.id, 0x40)]);
    let id = q.id;
    i.destroy_queue(q).unwrap();
    assert_eq!(drv.log().destroyed, vec![id]);
    assert!(drv.log().live.is_empty(), "ring and pointers freed");
}

#[test]
fn a_refused_queue_leaves_no_memory_behind() {
    let (drv, i) = iface();
    drv.log().refuse_queues = true;
    assert!(i.create_queue(QueueKind::Sdma, 1 << 12).unwrap_err().to_string().contains("no HQD free"));
    assert!(drv.log().live.is_empty());
}

#[test]
fn the_polling_sleep_turns_ih_faults_into_reports() {
    let (drv, i) = iface();
    assert_eq!(i.wake(), None, "no events on AM: no interrupt is encoded");
    let t = std::time::Instant::now();
    i.sleep(Duration::from_millis(50)).unwrap();
    assert!(t.elapsed() < Duration::from_millis(50), "one poll sleeps at most {MAX_SLEEP:?}");
    drv.log().faults.push(AmFault::Memory { va: 0x7000_1000, write: true });
    let s = i.sleep(Duration::from_millis(1)).unwrap_err();
    assert!(s.why.starts_with("memory fault at VA 0x70001000") && !s.engine_reset, "{s:?}");
    drv.log().faults.push(AmFault::Engine("SQ: illegal instruction".into()));
    let s = i.sleep(Duration::from_millis(1)).unwrap_err();
    assert_eq!((s.why.as_str(), s.engine_reset), ("SQ: illegal instruction", true));
    i.sleep(Duration::from_millis(1)).expect("each report once");
}

#[test]
fn memory_goes_where_its_kind_says_and_foreign_memory_is_refused() {
    let (drv, i) = iface();
    let m = i.alloc(100, MemKind::Vram { cpu_visible: true }, Placement::User).unwrap();
    assert!(m.cpu_mapped && m.size == 0x1000);
    assert_eq!(drv.log().live.values().next().unwrap().1, Where::Vram { contiguous: true });
    assert!(i.alloc(0, MemKind::Host, Placement::User).is_err());
    let stray = Memory::new(m.va, m.size, m.kind, true, 7u32);
    assert!(i.free(stray).unwrap_err().to_string().contains("another device interface"));
    i.free(m).unwrap();
    assert!(drv.log().live.is_empty());
}
