//! Smoke: the AM driver's boot (`AmDevice::open`) against the emulated PCI GPU with synthetic
//! firmware, then a compute queue whose RELEASE_MEM lands.

use super::common::gpu;
use baregpu_drivers::amd::am::boot::{BootFirmware, IpFirmware};
use baregpu_drivers::amd::am::discovery::Discovery;
use baregpu_drivers::amd::am::psp::BlComponent;
use baregpu_drivers::amd::am::psp_abi::*;
use baregpu_drivers::amd::am::AmDevice;
use baregpu_drivers::pci::PciDevice;
use std::sync::Arc;

struct Synthetic;

impl Synthetic {
    fn boot_firmware(&self, _d: &Discovery) -> baregpu_drivers::Result<BootFirmware> {
        let blob = |n: u8| vec![n; 4096];
        Ok(BootFirmware {
            sos: vec![
                BlComponent { name: "SYS_DRV".into(), bl_cmd: PSP_BL_LOAD_SYSDRV, data: blob(1) },
                BlComponent { name: "SOS".into(), bl_cmd: PSP_BL_LOAD_SOSDRV, data: blob(2) },
            ],
            toc: Some(blob(3)),
            ip: vec![
                IpFirmware { name: "smu".into(), fw_type: 18, data: blob(4) },
                IpFirmware { name: "rlc".into(), fw_type: GFX_FW_TYPE_RLC_G, data: blob(5) },
            ],
            mec_ucode_start: 0,
        })
    }
}

#[test]
fn the_am_boot_opens_the_emulated_gpu() {
    let g = gpu("gfx1100");
    let pci: Arc<dyn PciDevice> = g.clone();
    let mut dev =
        AmDevice::open_with(pci, &mut |d| Synthetic.boot_firmware(d)).unwrap_or_else(|e| panic!("boot failed: {e}"));
    // A PM4 queue in system memory (ring, pointers) writing a signal in VRAM.
    let ring = dev.alloc(0x1000, false).unwrap();
    let ptrs = dev.alloc(0x1000, false).unwrap();
    let sig = dev.alloc(0x1000, true).unwrap();
    let q = dev.create_compute_queue(0, ring.va, 0x1000, ptrs.va, ptrs.va + 8).unwrap();
    let mut pm4 =
        baregpu_drivers::amd::pm4::Pm4::new(baregpu_drivers::amd::pm4::Pm4Generation::for_arch("gfx1100").unwrap());
    pm4.release_mem(sig.va, baregpu_drivers::amd::pm4::ReleaseData::U32(0xb007), false, None);
    let words = pm4.into_words();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    dev.write(&ring, 0, &bytes).unwrap();
    dev.write(&ptrs, 8, &(words.len() as u64).to_le_bytes()).unwrap();
    dev.ring_doorbell(q, words.len() as u64).unwrap();
    let t = std::time::Instant::now();
    loop {
        let mut b = [0u8; 4];
        dev.read(&sig, 0, &mut b).unwrap();
        if u32::from_le_bytes(b) == 0xb007 {
            break;
        }
        assert!(t.elapsed() < std::time::Duration::from_secs(10), "the signal never came: {:?}", dev.poll_interrupts());
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert!(dev.poll_interrupts().unwrap().is_empty());
}
