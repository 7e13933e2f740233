//! The GPU MMU, the IH ring and compute queues started from HQD registers, driven by raw
//! register writes: hand-built page tables (the drivers' PTE layout) walked on a TLB
//! invalidation, a PM4 RELEASE_MEM run by the same CP the emulated KFD uses, and an access the
//! tables do not map reported as a UTCL2 fault entry with its VA.

use super::common::{fb_base, gpu, Regs};
use baregpu_autogen::amd::regs::{gc_11_0_0 as gc, osssys_6_0_0 as oss};
use baregpu_drivers::amd::am::ih::{IhEntry, IhEvent};
use baregpu_drivers::amd::am::pagetable::{index, PtGeneration, PteFlags};
use baregpu_drivers::amd::pm4::{Pm4, Pm4Generation, ReleaseData};
use baregpu_drivers::pci::{DmaMemory, PciDevice, AMD_BAR_DOORBELL, AMD_BAR_VRAM};
use baregpu_emu::am::EmuPciGpu;
use std::sync::Arc;
use std::time::{Duration, Instant};

const IH_RING: u64 = 0x40_0000;
const IH_WPTR: u64 = 0x40_1000;
const PT: u64 = 0x50_0000;
/// VRAM pages the GPU VAs below map to.
const RING_PA: u64 = 0x60_0000;
const SIGNAL_PA: u64 = 0x60_2000;
const RING_VA: u64 = 0x10_0000;
const PTRS_VA: u64 = 0x10_1000;
const SIGNAL_VA: u64 = 0x10_2000;
const UNMAPPED_VA: u64 = 0x7_0000_0000;

struct Machine {
    g: Arc<EmuPciGpu>,
    gc: Regs<'static>,
    fb: u64,
    /// The pointer page (system memory): rptr at 0, wptr at 8.
    ptrs: Box<dyn DmaMemory>,
}

fn leak(g: &Arc<EmuPciGpu>) -> &'static EmuPciGpu {
    // The test's machine lives for the test; a leaked reference keeps the helpers simple.
    Box::leak(Box::new(g.clone()))
}

/// A GPU with its MEC firmware loaded, its IH ring enabled, a 4-level table mapping the ring,
/// the pointer page (DMA) and a signal page, and the TLB invalidated.
fn machine() -> Machine {
    machine_with(true)
}

fn machine_with(mec_firmware: bool) -> Machine {
    let g = gpu("gfx1100");
    if mec_firmware {
        super::psp::load_gc_firmware(&g);
    }
    let gr: &'static EmuPciGpu = leak(&g);
    let fb = fb_base(&g);
    let ih = Regs { g: gr, bases: g.bases().osssys.clone() };
    ih.write(oss::regIH_RB_BASE, ((fb + IH_RING) >> 8) as u32);
    ih.write(oss::regIH_RB_WPTR_ADDR_LO, (fb + IH_WPTR) as u32);
    ih.write(oss::regIH_RB_WPTR_ADDR_HI, ((fb + IH_WPTR) >> 32) as u32);
    let cntl = oss::IH_RB_CNTL::RB_ENABLE.mask | (10 << 1) | oss::IH_RB_CNTL::WPTR_WRITEBACK_ENABLE.mask;
    ih.write(oss::regIH_RB_CNTL, cntl);

    let ptrs = g.alloc_dma(0x1000, true).unwrap();
    let l = PtGeneration::Gfx11.layout();
    let (pdb1, pdb0, ptb) = (PT + 0x1000, PT + 0x2000, PT + 0x3000);
    let put = |at: u64, e: u64| g.write64(AMD_BAR_VRAM, at, e).unwrap();
    put(PT + index(RING_VA, 0) * 8, l.table(pdb1));
    put(pdb1 + index(RING_VA, 1) * 8, l.table(pdb0));
    put(pdb0 + index(RING_VA, 2) * 8, l.table(ptb));
    put(ptb + index(RING_VA, 3) * 8, l.leaf(3, RING_PA, PteFlags::VRAM, 0));
    put(ptb + index(PTRS_VA, 3) * 8, l.leaf(3, ptrs.bus_pages()[0], PteFlags::SYSTEM_UC, 0));
    put(ptb + index(SIGNAL_VA, 3) * 8, l.leaf(3, SIGNAL_PA, PteFlags::VRAM, 0));

    let gcr = Regs { g: gr, bases: g.bases().gc.clone() };
    // The MEC is halted at power-on; the boot starts it and gives it its doorbell slots.
    gcr.write(gc::regCP_MEC_RS64_CNTL, 0);
    gcr.write(gc::regCP_MEC_DOORBELL_RANGE_UPPER, 0xf8);
    gcr.write(gc::regGCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32, (PT | 1) as u32);
    gcr.write(gc::regGCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32, 0);
    gcr.write(gc::regGCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32, 0xffff_ffff);
    gcr.write(gc::regGCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32, 0xf);
    gcr.write(gc::regGCVM_INVALIDATE_ENG17_REQ, 1 | (0x1f << 19));
    assert_eq!(gcr.read(gc::regGCVM_INVALIDATE_ENG17_ACK) & 1, 1, "invalidation acknowledged");
    Machine { g, gc: gcr, fb, ptrs }
}

impl Machine {
    /// Program HQD (me 1, pipe 0, `queue`) with the mapped ring and pointers and activate it.
    fn start_queue(&self, queue: u32, ring_va: u64) {
        let r = &self.gc;
        r.write(gc::regGRBM_GFX_CNTL, (1 << 2) | (queue << 8));
        r.write(gc::regCP_HQD_PQ_BASE, (ring_va >> 8) as u32);
        r.write(gc::regCP_HQD_PQ_BASE_HI, (ring_va >> 40) as u32);
        r.write(gc::regCP_HQD_PQ_CONTROL, 9); // 1024 dwords
        r.write(gc::regCP_HQD_PQ_RPTR_REPORT_ADDR, PTRS_VA as u32);
        r.write(gc::regCP_HQD_PQ_WPTR_POLL_ADDR, (PTRS_VA + 8) as u32);
        r.write(gc::regCP_HQD_PQ_DOORBELL_CONTROL, (6 << 2) | (1 << 30));
        r.write(gc::regCP_HQD_ACTIVE, 1);
        r.write(gc::regGRBM_GFX_CNTL, 0);
    }

    /// Write `words` at the ring's start, publish the write pointer and ring the doorbell.
    fn submit(&self, words: &[u32]) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.g.copy_to_bar(AMD_BAR_VRAM, RING_PA, &bytes).unwrap();
        self.ptrs.write(8, &(words.len() as u64).to_le_bytes()).unwrap();
        self.g.write64(AMD_BAR_DOORBELL, 3 * 8, words.len() as u64).unwrap();
    }

    fn ih_entries(&self) -> Vec<IhEntry> {
        let w = self.g.read32(AMD_BAR_VRAM, IH_WPTR).unwrap() as u64;
        (0..w / 32)
            .map(|i| {
                let mut d = [0u32; 8];
                for (k, x) in d.iter_mut().enumerate() {
                    *x = self.g.read32(AMD_BAR_VRAM, IH_RING + i * 32 + k as u64 * 4).unwrap();
                }
                IhEntry::decode(&d)
            })
            .collect()
    }
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        assert!(t.elapsed() < Duration::from_secs(10), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn release(addr: u64, v: u32) -> Vec<u32> {
    let mut q = Pm4::new(Pm4Generation::for_arch("gfx1100").unwrap());
    q.release_mem(addr, ReleaseData::U32(v), false, None);
    q.into_words()
}

#[test]
fn a_pm4_queue_started_from_hqd_registers_runs_release_mem() {
    let m = machine();
    m.start_queue(0, RING_VA);
    let words = release(SIGNAL_VA, 0x5eed);
    m.submit(&words);
    wait_for("the signal", || m.g.read32(AMD_BAR_VRAM, SIGNAL_PA).unwrap() == 0x5eed);
    // The read pointer the CP reported (dwords) through the SYSTEM mapping.
    wait_for("the read pointer", || {
        let mut b = [0u8; 8];
        m.ptrs.read(0, &mut b).unwrap();
        u64::from_le_bytes(b) == words.len() as u64
    });
    assert!(m.ih_entries().is_empty(), "no fault");
    let _ = m.fb;
}

/// A MEC the PSP loaded no firmware into runs no queue: an HQD activated on it never starts
/// (the same registers start one once the firmware is in).
#[test]
fn a_queue_on_a_mec_without_firmware_does_not_start() {
    let m = machine_with(false);
    m.start_queue(0, RING_VA);
    m.submit(&release(SIGNAL_VA, 0x5eed));
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(m.g.read32(AMD_BAR_VRAM, SIGNAL_PA).unwrap(), 0, "a queue ran on a MEC without firmware");
    super::psp::load_gc_firmware(&m.g);
    m.start_queue(0, RING_VA);
    m.submit(&release(SIGNAL_VA, 0x5eed));
    wait_for("the signal", || m.g.read32(AMD_BAR_VRAM, SIGNAL_PA).unwrap() == 0x5eed);
}

#[test]
fn an_unmapped_access_is_a_utcl2_fault_in_the_ih_ring_with_its_va() {
    let m = machine();
    m.start_queue(0, RING_VA);
    m.submit(&release(UNMAPPED_VA + 0x40, 1));
    wait_for("the IH entry", || !m.ih_entries().is_empty());
    let e = m.ih_entries()[0];
    match e.event(PtGeneration::Gfx11) {
        IhEvent::VmFault { va, .. } => assert_eq!(va, UNMAPPED_VA, "the faulting page"),
        other => panic!("expected a VM fault, got {other:?}"),
    }
    assert_ne!(m.gc.read(gc::regGCVM_L2_PROTECTION_FAULT_STATUS), 0);
    assert_eq!(m.gc.read(gc::regGCVM_L2_PROTECTION_FAULT_ADDR_LO32) as u64, UNMAPPED_VA >> 12);
}

#[test]
fn a_queue_whose_ring_is_unmapped_does_not_start_and_faults() {
    let m = machine();
    m.start_queue(1, UNMAPPED_VA);
    let e = m.ih_entries();
    assert_eq!(e.len(), 1);
    assert!(matches!(e[0].event(PtGeneration::Gfx11), IhEvent::VmFault { va, .. } if va == UNMAPPED_VA));
}

#[test]
fn tables_changed_without_an_invalidation_are_not_seen_until_one() {
    let m = machine();
    let l = PtGeneration::Gfx11.layout();
    // Unmap the signal page behind the MMU's back: the old translation still holds.
    m.g.write64(AMD_BAR_VRAM, PT + 0x3000 + index(SIGNAL_VA, 3) * 8, 0).unwrap();
    m.start_queue(0, RING_VA);
    m.submit(&release(SIGNAL_VA, 7));
    wait_for("the signal", || m.g.read32(AMD_BAR_VRAM, SIGNAL_PA).unwrap() == 7);
    // After an invalidation the page is gone: the next write faults.
    m.gc.write(gc::regGCVM_INVALIDATE_ENG17_REQ, 1);
    let mut words = release(SIGNAL_VA, 7);
    words.extend(release(SIGNAL_VA, 8));
    m.submit(&words);
    wait_for("the IH entry", || !m.ih_entries().is_empty());
    assert_eq!(m.g.read32(AMD_BAR_VRAM, SIGNAL_PA).unwrap(), 7);
    let _ = l;
}

#[test]
fn an_sdma_ring_started_from_its_registers_writes_a_fence() {
    use baregpu_drivers::amd::sdma::{Sdma, SdmaGeneration};
    let m = machine();
    let r = &m.gc;
    r.write(gc::regSDMA0_QUEUE0_RB_BASE, (RING_VA >> 8) as u32);
    r.write(gc::regSDMA0_QUEUE0_RB_RPTR_ADDR_LO, PTRS_VA as u32);
    r.write(gc::regSDMA0_QUEUE0_RB_WPTR_POLL_ADDR_LO, (PTRS_VA + 8) as u32);
    r.write(gc::regSDMA0_QUEUE0_DOORBELL_OFFSET, (0x100 * 2) << 2);
    r.write(gc::regSDMA0_QUEUE0_RB_CNTL, 1 | (10 << 1)); // enabled, 1024 dwords
    let mut q = Sdma::new(SdmaGeneration::for_arch("gfx1100").unwrap());
    q.fence(SIGNAL_VA, 0xfe11ce);
    let words = q.words().to_vec();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    m.g.copy_to_bar(AMD_BAR_VRAM, RING_PA, &bytes).unwrap();
    // SDMA pointers count bytes.
    m.ptrs.write(8, &(bytes.len() as u64).to_le_bytes()).unwrap();
    m.g.write64(AMD_BAR_DOORBELL, 0x100 * 8, bytes.len() as u64).unwrap();
    wait_for("the fence", || m.g.read32(AMD_BAR_VRAM, SIGNAL_PA).unwrap() == 0xfe11ce);
    // Disabling the ring stops it: more work is not executed.
    r.write(gc::regSDMA0_QUEUE0_RB_CNTL, 10 << 1);
    let mut q = Sdma::new(SdmaGeneration::for_arch("gfx1100").unwrap());
    q.fence(SIGNAL_VA, 2);
    let more: Vec<u8> = q.words().iter().flat_map(|w| w.to_le_bytes()).collect();
    m.g.copy_to_bar(AMD_BAR_VRAM, RING_PA + bytes.len() as u64, &more).unwrap();
    m.ptrs.write(8, &((bytes.len() + more.len()) as u64).to_le_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(m.g.read32(AMD_BAR_VRAM, SIGNAL_PA).unwrap(), 0xfe11ce);
}
