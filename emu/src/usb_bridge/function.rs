//! The GPU function at bus 4 as the bridge's TLPs see it: its configuration space (the
//! emulated PCI GPU's, plus a resizable-BAR capability for BAR0 at 0x100 that the GPU's own
//! header lacks) and memory decode of its BARs at the addresses the driver assigned.

use crate::am::EmuPciGpu;
use baregpu_drivers::pci::config::{PCI_COMMAND_MEMORY, PCI_EXT_CAP_ID_REBAR, PCI_EXT_CAP_START};
use baregpu_drivers::pci::PciDevice;
use std::sync::Arc;

const REBAR: usize = PCI_EXT_CAP_START as usize;
const EXT_CAP_REBAR: u32 = PCI_EXT_CAP_ID_REBAR;
const MIB: u64 = 1 << 20;
/// The size BAR0 decodes before the driver resizes it.
const DEFAULT_BAR0: u64 = 256 * MIB;
const COMMAND_MEM: u32 = PCI_COMMAND_MEMORY as u32;

/// The GPU function and the state of its resizable BAR.
#[derive(Debug)]
pub struct GpuFunction {
    pub gpu: Arc<EmuPciGpu>,
    /// log2(BAR0 bytes / 1 MiB).
    rebar_size: u32,
}

impl GpuFunction {
    pub fn new(gpu: Arc<EmuPciGpu>) -> GpuFunction {
        let rebar_size = (DEFAULT_BAR0.min(gpu.vram_size()) / MIB).trailing_zeros();
        GpuFunction { gpu, rebar_size }
    }

    fn supported_sizes(&self) -> u32 {
        let largest = (self.gpu.vram_size() / MIB).trailing_zeros();
        (8.min(largest)..=largest).fold(0, |m, s| m | 1 << (s + 4))
    }

    pub fn bar0_size(&self) -> u64 {
        MIB << self.rebar_size
    }

    fn raw32(&self, reg: usize) -> u32 {
        let mut b = [0u8; 4];
        match self.gpu.config_read(reg as u16, &mut b) {
            Ok(()) => u32::from_le_bytes(b),
            Err(_) => u32::MAX,
        }
    }

    /// A dword of configuration space.
    pub fn read32(&self, reg: usize) -> u32 {
        let reg = reg & 0xffc;
        match reg {
            REBAR => EXT_CAP_REBAR | 1 << 16,
            0x104 => self.supported_sizes(),
            0x108 => 1 << 5 | self.rebar_size << 8,
            0x10c..=0xfff => 0,
            // BAR0 (64-bit) decodes only the resizable BAR's size.
            0x10 | 0x14 => {
                let v = self.raw32(0x10) as u64 | (self.raw32(0x14) as u64) << 32;
                let v = v & !(self.bar0_size() - 1) | v & 0xf;
                if reg == 0x10 {
                    v as u32
                } else {
                    (v >> 32) as u32
                }
            }
            _ => self.raw32(reg),
        }
    }

    /// Writes the bytes `byte_en` selects of a configuration dword.
    pub fn write32(&mut self, reg: usize, byte_en: u8, value: u32) {
        let reg = reg & 0xffc;
        if reg == 0x108 {
            let size = (value >> 8) & 0x3f;
            if byte_en & 0x2 != 0 && self.supported_sizes() & 1 << (size + 4) != 0 {
                self.rebar_size = size;
            }
            return;
        }
        if reg >= REBAR {
            return;
        }
        let old = self.raw32(reg).to_le_bytes();
        let new = value.to_le_bytes();
        let mut merged = [0u8; 4];
        for i in 0..4 {
            merged[i] = if byte_en & (1 << i) != 0 { new[i] } else { old[i] };
        }
        if let Err(e) = self.gpu.config_write(reg as u16, &merged) {
            log::warn!("emulated ASM24xx: GPU config write at {reg:#x}: {e}");
        }
    }

    /// The BAR and offset a memory request at `[addr, addr + len)` falls in, when memory
    /// decode is on and one BAR holds all of it.
    pub fn decode(&self, addr: u64, len: u64) -> Option<(u8, u64)> {
        if self.raw32(0x04) & COMMAND_MEM == 0 {
            return None;
        }
        (0..6u8).find_map(|i| {
            let size = if i == 0 { self.bar0_size() } else { self.gpu.bar(i)?.size };
            self.gpu.bar(i)?;
            let reg = 0x10 + 4 * i as usize;
            let lo = self.read32(reg) as u64;
            let base = if lo & 0b110 == 0b100 { (self.read32(reg + 4) as u64) << 32 } else { 0 } | (lo & !0xf);
            (base != 0 && addr >= base && addr + len <= base + size).then(|| (i, addr - base))
        })
    }
}
