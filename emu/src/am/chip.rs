//! The emulated boards' PCI functions: class, revision and the sizes of the doorbell and
//! register BARs (the device id, VRAM size and IP blocks are the chip's [`super::layout`]).

/// One emulated board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chip {
    /// LLVM processor name (`gfx1100`).
    pub arch: &'static str,
    pub revision: u8,
    /// Class code (class << 16 | subclass << 8 | prog-if).
    pub class: u32,
    /// Bytes of the doorbell BAR and of the register BAR.
    pub doorbell_bar: u64,
    pub mmio_bar: u64,
}

/// Navi31 (Radeon RX 7900 XTX), a display controller (0x0300).
pub const GFX1100: Chip =
    Chip { arch: "gfx1100", revision: 0xc8, class: 0x03_00_00, doorbell_bar: 2 << 20, mmio_bar: 1 << 20 };

/// MI300X, a processing accelerator (0x1200).
pub const GFX942: Chip =
    Chip { arch: "gfx942", revision: 0x00, class: 0x12_00_00, doorbell_bar: 2 << 20, mmio_bar: 8 << 20 };

pub const CHIPS: [Chip; 2] = [GFX1100, GFX942];

impl Chip {
    pub fn for_arch(arch: &str) -> Option<Chip> {
        CHIPS.into_iter().find(|c| c.arch == arch)
    }
}
