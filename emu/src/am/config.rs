//! PCI configuration space of the emulated GPU (a type 0 header): vendor and device ids,
//! class, the command register (memory decode and bus mastering), and BARs that answer the
//! sizing protocol (write all ones, read back the size mask) as a real function's do.

use baregpu_drivers::pci::config::{PCI_BASE_ADDRESS_0, PCI_COMMAND};
use baregpu_drivers::pci::BarInfo;

pub const VENDOR_AMD: u16 = 0x1002;
/// Bytes of configuration space (the PCI header page; extended space reads as zeroes).
pub const CONFIG_SIZE: usize = 0x1000;

const COMMAND: usize = PCI_COMMAND as usize;
/// Command register bits the function implements: I/O, memory decode, bus master.
const COMMAND_WRITABLE: u16 = 0x0007;
const BAR0: usize = PCI_BASE_ADDRESS_0 as usize;

/// One BAR as the header describes it: where it sits in the BAR registers and what it is.
#[derive(Debug, Clone, Copy)]
pub struct BarSlot {
    pub index: u8,
    pub info: BarInfo,
    pub is_64: bool,
}

impl BarSlot {
    fn flags(&self) -> u32 {
        (if self.is_64 { 0b100 } else { 0 }) | (if self.info.prefetchable { 0b1000 } else { 0 })
    }
}

#[derive(Debug)]
pub struct ConfigSpace {
    bytes: Vec<u8>,
    bars: Vec<BarSlot>,
}

impl ConfigSpace {
    pub fn new(device_id: u16, revision: u8, class: u32, bars: Vec<BarSlot>) -> ConfigSpace {
        let mut c = ConfigSpace { bytes: vec![0; CONFIG_SIZE], bars };
        c.put16(0x00, VENDOR_AMD);
        c.put16(0x02, device_id);
        c.bytes[0x08] = revision;
        // Class code, subclass, programming interface (bytes 0x09..0x0c).
        c.bytes[0x09] = class as u8;
        c.bytes[0x0a] = (class >> 8) as u8;
        c.bytes[0x0b] = (class >> 16) as u8;
        c.bytes[0x0e] = 0; // header type 0, single function
        c.put16(0x2c, VENDOR_AMD); // subsystem vendor
        c.put16(0x2e, device_id);
        for b in c.bars.clone() {
            c.put_bar(b.index, b.info.bus_addr, &b);
        }
        c
    }

    fn put16(&mut self, off: usize, v: u16) {
        self.bytes[off..off + 2].copy_from_slice(&v.to_le_bytes());
    }

    fn get32(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.bytes[off..off + 4].try_into().expect("4 bytes"))
    }

    fn put32(&mut self, off: usize, v: u32) {
        self.bytes[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn put_bar(&mut self, index: u8, addr: u64, b: &BarSlot) {
        let mask = !(b.info.size - 1);
        let v = addr & mask;
        let off = BAR0 + 4 * index as usize;
        self.put32(off, (v as u32 & !0xf) | b.flags());
        if b.is_64 {
            self.put32(off + 4, (v >> 32) as u32);
        }
    }

    pub fn read(&self, offset: usize, buf: &mut [u8]) -> bool {
        let Some(src) = self.bytes.get(offset..offset + buf.len()) else { return false };
        buf.copy_from_slice(src);
        true
    }

    /// A write: the command register's implemented bits, the BAR registers (addresses
    /// aligned to the BAR's size, so all ones reads back the size mask); the rest of the
    /// header is read-only.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> bool {
        if offset.checked_add(data.len()).is_none_or(|end| end > CONFIG_SIZE) {
            return false;
        }
        for (i, &byte) in data.iter().enumerate() {
            let at = offset + i;
            match at {
                COMMAND => self.bytes[at] = byte & COMMAND_WRITABLE as u8,
                0x10..=0x27 => self.bytes[at] = byte,
                _ => {}
            }
        }
        // Re-apply every BAR's size mask and flags to what was written; BAR registers no BAR
        // owns stay zero.
        for i in 0..6 {
            let owned = self.bars.iter().any(|b| b.index as usize == i || (b.is_64 && b.index as usize + 1 == i));
            if !owned {
                self.put32(BAR0 + 4 * i, 0);
            }
        }
        for b in self.bars.clone() {
            let off = BAR0 + 4 * b.index as usize;
            let lo = self.get32(off) as u64 & !0xf;
            let hi = if b.is_64 { self.get32(off + 4) as u64 } else { 0 };
            self.put_bar(b.index, hi << 32 | lo, &b);
        }
        true
    }
}
