//! What the emulated PCI GPU's tests share: a device with an interpreter for its arch, and
//! register addresses from the generated tables at the emulator's bases.

use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::rdna::Interpreter;
use std::sync::Arc;

pub fn gpu(arch: &str) -> Arc<EmuPciGpu> {
    EmuPciGpu::new(arch, Arc::new(Interpreter::new(arch))).expect("emulated PCI GPU")
}

use baregpu_autogen::amd::regs::Reg;
use baregpu_drivers::pci::{PciDevice, AMD_BAR_MMIO};

/// Raw register access at the emulator's bases (what the driver does after IP discovery).
pub struct Regs<'a> {
    pub g: &'a EmuPciGpu,
    pub bases: Vec<u32>,
}

impl Regs<'_> {
    pub fn addr(&self, r: Reg) -> u64 {
        r.addr(&self.bases).unwrap() as u64 * 4
    }
    pub fn read(&self, r: Reg) -> u32 {
        self.g.read32(AMD_BAR_MMIO, self.addr(r)).unwrap()
    }
    pub fn write(&self, r: Reg, v: u32) {
        self.g.write32(AMD_BAR_MMIO, self.addr(r), v).unwrap()
    }
}

/// The MC address of VRAM offset 0 (MMMC_VM_FB_LOCATION_BASE, 16 MiB units).
pub fn fb_base(g: &EmuPciGpu) -> u64 {
    use baregpu_autogen::amd::regs::mmhub_3_0_0 as mmhub;
    let r = Regs { g, bases: g.bases().mmhub.clone() };
    ((r.read(mmhub::regMMMC_VM_FB_LOCATION_BASE) & 0xff_ffff) as u64) << 24
}
