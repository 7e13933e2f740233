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
