//! The emulated boards: what each arch's PCI function looks like (device id, class, BAR
//! sizes) and how much VRAM it has. VRAM is modest (the host backs only what is touched).

/// One emulated board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chip {
    /// LLVM processor name (`gfx1100`).
    pub arch: &'static str,
    pub device_id: u16,
    pub revision: u8,
    /// Class code (class << 16 | subclass << 8 | prog-if).
    pub class: u32,
    /// Bytes of VRAM, all of it reachable through BAR0 (a large BAR).
    pub vram: u64,
    /// Bytes of the doorbell BAR and of the register BAR.
    pub doorbell_bar: u64,
    pub mmio_bar: u64,
    /// Compute dies (XCCs) of the whole board.
    pub xccs: u32,
}

/// Navi31 (Radeon RX 7900 XTX, 0x744c), a display controller (0x0300).
pub const GFX1100: Chip = Chip {
    arch: "gfx1100",
    device_id: 0x744c,
    revision: 0xc8,
    class: 0x03_00_00,
    vram: 512 << 20,
    doorbell_bar: 2 << 20,
    mmio_bar: 1 << 20,
    xccs: 1,
};

/// MI300X (0x74a1), a processing accelerator (0x1200).
pub const GFX942: Chip = Chip {
    arch: "gfx942",
    device_id: 0x74a1,
    revision: 0x00,
    class: 0x12_00_00,
    vram: 1 << 30,
    doorbell_bar: 2 << 20,
    mmio_bar: 8 << 20,
    xccs: 8,
};

pub const CHIPS: [Chip; 2] = [GFX1100, GFX942];

impl Chip {
    pub fn for_arch(arch: &str) -> Option<Chip> {
        CHIPS.into_iter().find(|c| c.arch == arch)
    }
}
