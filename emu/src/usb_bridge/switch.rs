//! The PCIe switch between the bridge and the GPU: one type 1 (bridge) header on each of
//! buses 0..3. What the driver programs decides routing: a configuration request reaches bus
//! N only through bridges whose bus ranges hold N, and a memory request only through bridges
//! whose windows hold its address and whose memory decode is on.

use baregpu_drivers::pci::asm24xx::protocol::GPU_BUS;
use baregpu_drivers::pci::config::{PCI_COMMAND, PCI_COMMAND_MEMORY, PCI_SECONDARY_BUS, PCI_SUBORDINATE_BUS};

const CONFIG_SIZE: usize = 0x1000;
const COMMAND: usize = PCI_COMMAND as usize;
const COMMAND_MEM: u8 = PCI_COMMAND_MEMORY as u8;
const SECONDARY: usize = PCI_SECONDARY_BUS as usize;
const SUBORDINATE: usize = PCI_SUBORDINATE_BUS as usize;

/// Vendor and device ids of the switch's ports (as an RX 7900 XTX enclosure shows them).
const PORT_IDS: [(u16, u16); GPU_BUS as usize] =
    [(0x1b21, 0x2461), (0x1b21, 0x2461), (0x1002, 0x1478), (0x1002, 0x1479)];

/// One bridge's configuration space.
#[derive(Debug, Clone)]
pub struct BridgeConfig {
    bytes: Vec<u8>,
}

impl BridgeConfig {
    fn new(vendor: u16, device: u16) -> BridgeConfig {
        let mut bytes = vec![0u8; CONFIG_SIZE];
        bytes[0..2].copy_from_slice(&vendor.to_le_bytes());
        bytes[2..4].copy_from_slice(&device.to_le_bytes());
        // Class: PCI-to-PCI bridge; header type 1.
        bytes[0x0a] = 0x04;
        bytes[0x0b] = 0x06;
        bytes[0x0e] = 0x01;
        // 64-bit prefetchable window.
        bytes[0x24] = 0x01;
        bytes[0x26] = 0x01;
        BridgeConfig { bytes }
    }

    pub fn read32(&self, reg: usize) -> u32 {
        let r = reg & 0xffc;
        u32::from_le_bytes(self.bytes[r..r + 4].try_into().unwrap_or_default())
    }

    /// Writes the bytes `byte_en` selects; only the command register, bus numbers and
    /// windows are writable.
    pub fn write32(&mut self, reg: usize, byte_en: u8, value: u32) {
        let r = reg & 0xffc;
        for (i, b) in value.to_le_bytes().into_iter().enumerate() {
            let at = r + i;
            if byte_en & (1 << i) == 0 {
                continue;
            }
            match at {
                COMMAND => self.bytes[at] = b & 0x07,
                0x18..=0x1a | 0x20..=0x23 | 0x28..=0x2f => self.bytes[at] = b,
                // The low nibble of the prefetchable base and limit says 64-bit: read-only.
                0x24 | 0x26 => self.bytes[at] = (b & 0xf0) | 0x01,
                0x25 | 0x27 => self.bytes[at] = b,
                _ => {}
            }
        }
    }

    fn u16_at(&self, at: usize) -> u64 {
        u16::from_le_bytes([self.bytes[at], self.bytes[at + 1]]) as u64
    }

    fn forwards_bus(&self, bus: u8) -> bool {
        (self.bytes[SECONDARY]..=self.bytes[SUBORDINATE]).contains(&bus) && self.bytes[SECONDARY] != 0
    }

    fn forwards_memory(&self, addr: u64, len: u64) -> bool {
        if self.bytes[COMMAND] & COMMAND_MEM == 0 {
            return false;
        }
        let end = addr + len - 1;
        let mem = ((self.u16_at(0x20) & 0xfff0) << 16, (self.u16_at(0x22) & 0xfff0) << 16 | 0xf_ffff);
        let upper = |at: usize| self.read32(at) as u64;
        let pref = (
            (self.u16_at(0x24) & 0xfff0) << 16 | upper(0x28) << 32,
            ((self.u16_at(0x26) & 0xfff0) << 16 | 0xf_ffff) | upper(0x2c) << 32,
        );
        [mem, pref].iter().any(|&(lo, hi)| lo <= addr && end <= hi && lo <= hi)
    }
}

/// The four bridges.
#[derive(Debug, Clone)]
pub struct Switch {
    pub ports: Vec<BridgeConfig>,
}

impl Default for Switch {
    fn default() -> Self {
        Switch { ports: PORT_IDS.iter().map(|&(v, d)| BridgeConfig::new(v, d)).collect() }
    }
}

impl Switch {
    /// Whether a configuration request for `bus` gets there: bus 0 directly, bus N through
    /// every bridge above it.
    pub fn reaches_bus(&self, bus: u8) -> bool {
        bus <= GPU_BUS && self.ports[..bus as usize].iter().all(|p| p.forwards_bus(bus))
    }

    /// Whether a memory request at `[addr, addr + len)` reaches the GPU's bus.
    pub fn reaches_memory(&self, addr: u64, len: u64) -> bool {
        len > 0 && self.ports.iter().all(|p| p.forwards_memory(addr, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unprogrammed_bridges_route_nothing_past_bus_zero() {
        let mut s = Switch::default();
        assert!(s.reaches_bus(0) && !s.reaches_bus(1) && !s.reaches_bus(4));
        for (bus, p) in s.ports.iter_mut().enumerate() {
            p.write32(0x18, 0x7, bus as u32 | (bus as u32 + 1) << 8 | 4 << 16);
        }
        assert!(s.reaches_bus(4) && !s.reaches_bus(5));
        assert!(!s.reaches_memory(0x1000_0000, 4));
        for p in s.ports.iter_mut() {
            p.write32(0x20, 0xf, 0xfff0_1000);
            p.write32(0x04, 0x3, 0x2);
        }
        assert!(s.reaches_memory(0x1000_0000, 4) && s.reaches_memory(0xffff_fffc, 4));
        assert!(!s.reaches_memory(0x0fff_fffc, 4));
    }
}
