//! gfx942 (MI300X-like: GC 9.4.3 on 8 XCCs, MMHUB 1.8 on 4 AIDs, PSP 13.0.6, 16 SDMA 4.4
//! engines) through the AM driver: the full boot and a partial one after a clean close, the
//! registers it leaves in every XCC and hub, a compute queue mapped on every XCC, and an SDMA
//! 4.4 ring.

use super::common::gpu;
use baregpu_drivers::amd::am::AmDevice;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;

fn open(g: std::sync::Arc<baregpu_emu::am::EmuPciGpu>) -> AmDevice {
    let fw = StandinSource::only(&Layout::for_arch("gfx942").expect("layout"));
    match AmDevice::open(g, &fw) {
        Ok(d) => d,
        Err(e) => panic!("AmDevice::open(gfx942): {e}"),
    }
}

#[test]
fn gfx942_boots_fully_then_partly_after_a_clean_close() {
    let g = gpu("gfx942");
    let dev = open(g.clone());
    assert!(!dev.partial_boot);
    assert_eq!(dev.gc_major(), 9);
    dev.close().unwrap();
    let dev = open(g);
    assert!(dev.partial_boot, "the second open reuses the running firmware");
    dev.close().unwrap();
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !done() {
        assert!(t.elapsed() < std::time::Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

fn read_u64(dev: &AmDevice, a: &baregpu_drivers::amd::am::GpuAlloc, off: u64) -> u64 {
    let mut b = [0u8; 8];
    dev.read(a, off, &mut b).unwrap();
    u64::from_le_bytes(b)
}

/// XCC `xcc`'s HQD (ME 1, pipe 0, queue 0) doorbell byte offset and its MEC's doorbell range.
fn hqd_doorbell(g: &baregpu_emu::am::EmuPciGpu, xcc: u8) -> (u64, u64, u64) {
    use baregpu_autogen::amd::regs::{gc_9_4_3 as gc, Reg};
    use baregpu_drivers::amd::am::discovery::hw_id;
    use baregpu_drivers::pci::{PciDevice, AMD_BAR_MMIO};
    let layout = Layout::for_arch("gfx942").unwrap();
    let at = |r: Reg| u64::from(layout.reg_addr(hw_id::GC, xcc, &r).unwrap()) * 4;
    g.write32(AMD_BAR_MMIO, at(gc::regGRBM_GFX_CNTL), gc::GRBM_GFX_CNTL::MEID.val(1)).unwrap();
    let db = g.read32(AMD_BAR_MMIO, at(gc::regCP_HQD_PQ_DOORBELL_CONTROL)).unwrap();
    g.write32(AMD_BAR_MMIO, at(gc::regGRBM_GFX_CNTL), 0).unwrap();
    let r = |reg| u64::from(g.read32(AMD_BAR_MMIO, at(reg)).unwrap());
    let offset = u64::from(gc::CP_HQD_PQ_DOORBELL_CONTROL::DOORBELL_OFFSET.get(db)) * 4;
    (offset, r(gc::regCP_MEC_DOORBELL_RANGE_LOWER), r(gc::regCP_MEC_DOORBELL_RANGE_UPPER))
}

/// Each XCC's GC hub and each AID's MMHUB 1.8 got context 0 at its own aperture (the
/// discovery table's bases), with the FB location the driver read from MMHUB 0.
#[test]
fn every_xcc_and_every_mmhub_gets_context_0_at_its_own_aperture() {
    use baregpu_autogen::amd::regs::{gc_9_4_3 as gc, mmhub_1_8_0 as mm};
    use baregpu_drivers::amd::am::discovery::hw_id;
    use baregpu_drivers::pci::{PciDevice, AMD_BAR_MMIO};
    let g = gpu("gfx942");
    let layout = Layout::for_arch("gfx942").unwrap();
    let dev = open(g.clone());
    let read = |hw, inst, r: baregpu_autogen::amd::regs::Reg| {
        let addr = layout.reg_addr(hw, inst, &r).expect("register in the block's segments");
        g.read32(AMD_BAR_MMIO, u64::from(addr) * 4).unwrap()
    };
    let root = read(hw_id::GC, 0, gc::regVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32);
    assert_eq!(root & 1, 1, "context 0's table is valid");
    for xcc in 0..8 {
        assert_eq!(read(hw_id::GC, xcc, gc::regVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32), root, "XCC {xcc}");
        let cntl = read(hw_id::GC, xcc, gc::regVM_CONTEXT0_CNTL);
        assert_eq!(gc::VM_CONTEXT0_CNTL::ENABLE_CONTEXT.get(cntl), 1, "XCC {xcc}");
        assert_eq!(read(hw_id::GC, xcc, gc::regCP_MEC_CNTL), 0, "XCC {xcc}'s MEC un-halted");
        assert_eq!(read(hw_id::GC, xcc, gc::regGB_ADDR_CONFIG), 0x2a11_4042, "XCC {xcc}");
    }
    for aid in 0..4 {
        assert_eq!(read(hw_id::MMHUB, aid, mm::regVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32), root, "MMHUB {aid}");
        assert_ne!(read(hw_id::MMHUB, aid, mm::regMC_VM_FB_LOCATION_BASE), 0, "MMHUB {aid}");
    }
    dev.close().unwrap();
}

/// A PM4 ring the driver maps on all 8 XCCs: every XCC's CP runs it and reports its own read
/// pointer (8 bytes apart); the signal a RELEASE_MEM writes arrives; close dequeues all eight.
#[test]
fn a_compute_ring_runs_on_every_xcc_with_a_read_pointer_each() {
    use baregpu_drivers::amd::pm4::{Pm4, Pm4Generation, ReleaseData};
    let g = gpu("gfx942");
    let mut dev = open(g.clone());
    let ring = dev.alloc(0x1000, true).unwrap();
    let ptrs = dev.alloc(0x1000, false).unwrap();
    let signal = dev.alloc(0x1000, true).unwrap();
    let (wptr, rptr) = (0u64, 0x100u64);
    let q = dev.create_compute_queue(0, ring.va, 0x1000, ptrs.va + rptr, ptrs.va + wptr).unwrap();
    // Each XCC's HQD has its own doorbell, inside the range that XCC's MEC answers.
    for xcc in 0..8u8 {
        let (db, lower, upper) = hqd_doorbell(&g, xcc);
        assert_eq!(db, (u64::from(xcc) * 0x20 + 3) * 8, "XCC {xcc}");
        assert!((lower..=upper).contains(&db), "XCC {xcc}: {db:#x} outside [{lower:#x}, {upper:#x}]");
    }
    let mut p = Pm4::new(Pm4Generation::for_arch("gfx942").unwrap());
    p.release_mem(signal.va, ReleaseData::U32(0x942), false, None);
    let words = p.into_words();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    dev.write(&ring, 0, &bytes).unwrap();
    dev.write(&ptrs, wptr, &(words.len() as u64).to_le_bytes()).unwrap();
    dev.ring_doorbell(q, words.len() as u64).unwrap();
    wait_for("every XCC's read pointer", || (0..8).all(|x| read_u64(&dev, &ptrs, rptr + 8 * x) == words.len() as u64));
    assert_eq!(read_u64(&dev, &signal, 0) as u32, 0x942);
    assert_eq!(read_u64(&dev, &ptrs, rptr + 8 * 8), 0, "no ninth XCC");
    dev.close().unwrap();
}

/// SDMA 4.4 (its own IP, `SDMA_GFX_*` of engine 0): the driver's ring writes a fence.
#[test]
fn an_sdma_4_4_ring_writes_a_fence() {
    use baregpu_drivers::amd::sdma::{Sdma, SdmaGeneration};
    let mut dev = open(gpu("gfx942"));
    let ring = dev.alloc(0x1000, true).unwrap();
    let ptrs = dev.alloc(0x1000, false).unwrap();
    let signal = dev.alloc(0x1000, true).unwrap();
    let q = dev.create_sdma_queue(ring.va, 0x1000, ptrs.va, ptrs.va + 8).unwrap();
    let mut p = Sdma::new(SdmaGeneration::for_arch("gfx942").unwrap());
    p.fence(signal.va, 0x5d4a);
    let bytes: Vec<u8> = p.words().iter().flat_map(|w| w.to_le_bytes()).collect();
    dev.write(&ring, 0, &bytes).unwrap();
    dev.write(&ptrs, 8, &(bytes.len() as u64).to_le_bytes()).unwrap();
    dev.ring_doorbell(q, bytes.len() as u64).unwrap();
    wait_for("the fence", || read_u64(&dev, &signal, 0) as u32 == 0x5d4a);
    assert_eq!(read_u64(&dev, &ptrs, 0), bytes.len() as u64, "the read pointer reports in bytes");
    dev.close().unwrap();
}

/// Each XCC's MEC starts its HQDs only while it runs: halting XCC 5's MEC after the boot leaves
/// that XCC's read pointer where it was while the other seven run the ring.
#[test]
fn an_xcc_whose_mec_is_halted_runs_nothing() {
    use baregpu_autogen::amd::regs::gc_9_4_3 as gc;
    use baregpu_drivers::amd::am::discovery::hw_id;
    use baregpu_drivers::amd::pm4::{Pm4, Pm4Generation, ReleaseData};
    use baregpu_drivers::pci::{PciDevice, AMD_BAR_MMIO};
    let g = gpu("gfx942");
    let layout = Layout::for_arch("gfx942").unwrap();
    let mut dev = open(g.clone());
    let mec5 = layout.reg_addr(hw_id::GC, 5, &gc::regCP_MEC_CNTL).unwrap();
    g.write32(AMD_BAR_MMIO, u64::from(mec5) * 4, gc::CP_MEC_CNTL::MEC_ME1_HALT.mask).unwrap();
    let ring = dev.alloc(0x1000, true).unwrap();
    let ptrs = dev.alloc(0x1000, false).unwrap();
    let signal = dev.alloc(0x1000, true).unwrap();
    let q = dev.create_compute_queue(0, ring.va, 0x1000, ptrs.va + 0x100, ptrs.va).unwrap();
    let mut p = Pm4::new(Pm4Generation::for_arch("gfx942").unwrap());
    p.release_mem(signal.va, ReleaseData::U32(7), false, None);
    let words = p.into_words();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    dev.write(&ring, 0, &bytes).unwrap();
    dev.write(&ptrs, 0, &(words.len() as u64).to_le_bytes()).unwrap();
    dev.ring_doorbell(q, words.len() as u64).unwrap();
    let others = [0u64, 1, 2, 3, 4, 6, 7];
    wait_for("the running XCCs", || others.iter().all(|x| read_u64(&dev, &ptrs, 0x100 + 8 * x) == words.len() as u64));
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(read_u64(&dev, &ptrs, 0x100 + 8 * 5), 0, "XCC 5 is halted");
    dev.close().unwrap();
}

/// PSP 13.0.6 takes GC's firmware block by block, the RLC's register list last: a register
/// list before the RLC and MEC firmware is refused (and the boot fails naming it); the device
/// boots afterwards with the firmware in order.
#[test]
fn the_psp_refuses_the_register_list_before_the_rlc_and_mec_firmware() {
    use baregpu_drivers::amd::am::firmware::GfxFwType;
    use baregpu_drivers::amd::am::BootFirmware;
    use baregpu_emu::am::psp::status;
    let g = gpu("gfx942");
    let fw = StandinSource::only(&Layout::for_arch("gfx942").unwrap());
    let e = AmDevice::open_with(g.clone(), &mut |d| {
        let mut b = BootFirmware::load(d, &fw)?;
        let i = b.ip.iter().position(|f| f.fw_type == GfxFwType::REG_LIST.0).expect("a register list");
        let rl = b.ip.remove(i);
        b.ip.insert(0, rl);
        Ok(b)
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("register list") && e.contains(&format!("{:#x}", status::OUT_OF_ORDER)), "{e}");
    open(g).close().unwrap();
}
