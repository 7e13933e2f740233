//! What the emulated PCI GPU's tests share: a device with an interpreter for its arch, and
//! register addresses from the generated tables at the emulator's bases.

use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::rdna::Interpreter;
use std::sync::Arc;

pub fn gpu(arch: &str) -> Arc<EmuPciGpu> {
    EmuPciGpu::new(arch, Arc::new(Interpreter::new(arch))).expect("emulated PCI GPU")
}
