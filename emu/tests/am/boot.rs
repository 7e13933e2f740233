//! The AM driver's boot against the emulated PCI GPU: `AmDevice::open` through discovery, the
//! PSP, the SMU, the hubs, the IH and the MEC; memory mapped into context 0; a compute queue
//! whose doorbell starts the emulated command processor; a fault reported from the IH ring;
//! close and a partial boot after it.

use super::common::gpu;
use baregpu_drivers::amd::am::{AmDevice, FirmwareSource};
use baregpu_drivers::pci::PciDevice;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use std::sync::Arc;

fn standins(arch: &str) -> StandinSource {
    StandinSource::only(&Layout::for_arch(arch).expect("layout"))
}

fn open(pci: Arc<dyn PciDevice>, fw: &dyn FirmwareSource) -> AmDevice {
    match AmDevice::open(pci, fw) {
        Ok(d) => d,
        Err(e) => panic!("AmDevice::open: {e}"),
    }
}

#[test]
fn gfx1100_boots_fully_then_partly_after_a_clean_close() {
    let g = gpu("gfx1100");
    let fw = standins("gfx1100");
    let dev = open(g.clone(), &fw);
    assert!(!dev.partial_boot, "a fresh device boots fully");
    assert_eq!(dev.gc_major(), 11);
    dev.close().unwrap();
    let dev = open(g, &fw);
    assert!(dev.partial_boot, "the second open reuses the running firmware");
    dev.close().unwrap();
}

#[test]
fn memory_is_mapped_and_readable_through_both_placements() {
    let g = gpu("gfx1100");
    let mut dev = open(g, &standins("gfx1100"));
    for vram in [true, false] {
        let a = dev.alloc(0x3000, vram).unwrap();
        dev.write(&a, 0x1ff0, b"hello, context 0").unwrap();
        let mut back = [0u8; 16];
        dev.read(&a, 0x1ff0, &mut back).unwrap();
        assert_eq!(&back, b"hello, context 0");
        assert!(a.va >= baregpu_drivers::amd::am::boot::VA_START);
        dev.free(a).unwrap();
    }
    dev.close().unwrap();
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let t = std::time::Instant::now();
    while !done() {
        assert!(t.elapsed() < std::time::Duration::from_secs(10), "timed out waiting for {what}");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

fn release(addr: u64, v: u32) -> Vec<u32> {
    use baregpu_drivers::amd::pm4::{Pm4, Pm4Generation, ReleaseData};
    let mut q = Pm4::new(Pm4Generation::for_arch("gfx1100").unwrap());
    q.release_mem(addr, ReleaseData::U32(v), false, None);
    q.into_words()
}

/// A PM4 queue made by the driver (ring in VRAM, pointers in system memory), its doorbell rung:
/// the emulated CP writes the signal; a write to an unmapped VA comes back from the IH ring
/// as a VM fault with that VA.
#[test]
fn a_driver_made_compute_queue_runs_and_a_fault_reaches_the_ih_ring() {
    use baregpu_drivers::amd::am::ih::IhEvent;
    let mut dev = open(gpu("gfx1100"), &standins("gfx1100"));
    let ring = dev.alloc(0x1000, true).unwrap();
    let ptrs = dev.alloc(0x1000, false).unwrap();
    let signal = dev.alloc(0x1000, true).unwrap();
    let q = dev.create_compute_queue(0, ring.va, 0x1000, ptrs.va, ptrs.va + 8).unwrap();
    let mut words = release(signal.va, 0x5eed);
    let unmapped = signal.va + 0x10_0000;
    words.extend(release(unmapped, 1));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    dev.write(&ring, 0, &bytes).unwrap();
    dev.write(&ptrs, 8, &(words.len() as u64).to_le_bytes()).unwrap();
    dev.ring_doorbell(q, words.len() as u64).unwrap();
    wait_for("the signal", || {
        let mut b = [0u8; 4];
        dev.read(&signal, 0, &mut b).unwrap();
        u32::from_le_bytes(b) == 0x5eed
    });
    let mut events = Vec::new();
    wait_for("the fault", || {
        events.extend(dev.poll_interrupts().unwrap().into_iter().map(|(_, e)| e));
        events.iter().any(|e| matches!(e, IhEvent::VmFault { .. }))
    });
    let fault = events.iter().find(|e| matches!(e, IhEvent::VmFault { .. })).unwrap();
    assert!(matches!(fault, IhEvent::VmFault { va, .. } if *va == unmapped & !0xfff), "{fault:?}");
    // The HQD answers CP_HQD_DEQUEUE_REQUEST: close dequeues it within its poll.
    dev.close().unwrap();
}

/// Firmware that is not what its name says is one error naming the file, not a panic, and
/// the device is left as it was (the next open with good firmware boots).
#[test]
fn malformed_firmware_is_an_error_naming_the_file() {
    struct Truncated(StandinSource);
    impl FirmwareSource for Truncated {
        fn load(&self, name: &str) -> baregpu_drivers::Result<Vec<u8>> {
            let mut b = self.0.load(name)?;
            if name.contains("sos") {
                b.truncate(40);
            }
            Ok(b)
        }
        fn describe(&self) -> String {
            "truncated SOS".into()
        }
    }
    let g = gpu("gfx1100");
    let e = AmDevice::open(g.clone(), &Truncated(standins("gfx1100"))).unwrap_err().to_string();
    assert!(e.contains("psp_13_0_0_sos.bin"), "{e}");
    open(g, &standins("gfx1100")).close().unwrap();
}

/// The driver's SDMA0 queue (ring in VRAM, pointers in system memory): a fence written when its
/// doorbell rings with the byte write pointer; close (which disables the ring) succeeds.
#[test]
fn a_driver_made_sdma_queue_writes_a_fence() {
    use baregpu_drivers::amd::sdma::{Sdma, SdmaGeneration};
    let mut dev = open(gpu("gfx1100"), &standins("gfx1100"));
    let ring = dev.alloc(0x1000, true).unwrap();
    let ptrs = dev.alloc(0x1000, false).unwrap();
    let signal = dev.alloc(0x1000, true).unwrap();
    let q = dev.create_sdma_queue(ring.va, 0x1000, ptrs.va, ptrs.va + 8).unwrap();
    let mut p = Sdma::new(SdmaGeneration::for_arch("gfx1100").unwrap());
    p.fence(signal.va, 0xfe11ce);
    let bytes: Vec<u8> = p.words().iter().flat_map(|w| w.to_le_bytes()).collect();
    dev.write(&ring, 0, &bytes).unwrap();
    // SDMA pointers count bytes.
    dev.write(&ptrs, 8, &(bytes.len() as u64).to_le_bytes()).unwrap();
    dev.ring_doorbell(q, bytes.len() as u64).unwrap();
    wait_for("the fence", || {
        let mut b = [0u8; 4];
        dev.read(&signal, 0, &mut b).unwrap();
        u32::from_le_bytes(b) == 0xfe11ce
    });
    dev.close().unwrap();
}

/// Firmware without the MEC's image boots (gfx11's RLC autoload needs only the RLC's), but the
/// driver refuses a compute queue with an error saying why, and the emulated MEC would not run
/// one; the next boot with the whole firmware makes queues again.
#[test]
fn no_compute_queue_before_the_mec_firmware_is_loaded() {
    use baregpu_drivers::amd::am::firmware::GfxFwType;
    use baregpu_drivers::amd::am::BootFirmware;
    let g = gpu("gfx1100");
    let fw = standins("gfx1100");
    let mec = [GfxFwType::CP_MEC.0, GfxFwType::RS64_MEC.0];
    let mut dev = AmDevice::open_with(g.clone(), &mut |d| {
        let mut f = BootFirmware::load(d, &fw)?;
        f.ip.retain(|p| !mec.contains(&p.fw_type));
        Ok(f)
    })
    .unwrap_or_else(|e| panic!("boot without the MEC image: {e}"));
    let ring = dev.alloc(0x1000, false).unwrap();
    let ptrs = dev.alloc(0x1000, false).unwrap();
    let e = dev.create_compute_queue(0, ring.va, 0x1000, ptrs.va, ptrs.va + 8).unwrap_err().to_string();
    assert!(e.contains("the MEC has no firmware"), "{e}");
    dev.free(ring).unwrap();
    dev.free(ptrs).unwrap();
    dev.close().unwrap();
    // The session marked itself unclean (its MEC had no firmware): the next open boots fully.
    let mut dev = open(g, &fw);
    assert!(!dev.partial_boot, "a session without MEC firmware was reused");
    let ring = dev.alloc(0x1000, false).unwrap();
    let ptrs = dev.alloc(0x1000, false).unwrap();
    let q =
        dev.create_compute_queue(0, ring.va, 0x1000, ptrs.va, ptrs.va + 8).expect("a queue with the MEC's firmware");
    dev.destroy_queue(q).unwrap();
    dev.close().unwrap();
}
