//! The GPU behind an ASMedia ASM24xx USB to PCIe bridge running tinygrad's custom firmware, as
//! a [`PciDevice`]: configuration and BAR accesses become TLPs the firmware issues, and the
//! bridge's SRAM is the only DMA memory (the GPU cannot reach host memory through the bridge).
//! Opening powers PCIe on, numbers the switch's buses, resizes and assigns the GPU's BARs.

pub mod link;
pub mod pipe;
pub mod protocol;
pub mod setup;
pub mod sram;
pub mod windows;

use crate::pci::{BarInfo, DmaMemory, PciDevice};
use crate::usb::host::{self, HostUsb, UsbInfo};
use crate::usb::UsbTransport;
use crate::{Error, Result};
use link::Link;
use protocol::{byte_enable, GPU_BUS, PRODUCT_PREFIXES, USB_IDS};
use sram::SramPool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The GPU at bus 4 behind one bridge.
#[derive(Debug)]
pub struct Asm24xx {
    name: String,
    link: Link,
    bars: [Option<BarInfo>; 6],
    /// The resizable BARs and the sizes opening set them to.
    resized: Vec<(u8, u64)>,
    pool: Arc<SramPool>,
    /// See [`Asm24xx::set_drain_timeout`].
    drain_timeout: Mutex<Duration>,
}

/// Whether `d` is a bridge with the custom firmware.
pub fn is_bridge(d: &UsbInfo) -> bool {
    USB_IDS.contains(&(d.vendor, d.product))
        && d.product_string.as_deref().is_some_and(|p| PRODUCT_PREFIXES.iter().any(|x| p.starts_with(x)))
}

/// The bridges with the custom firmware the host has.
pub fn find_bridges() -> Result<Vec<UsbInfo>> {
    Ok(host::list()?.into_iter().filter(is_bridge).collect())
}

/// Opens the bridge at `path` (`/dev/bus/usb/BBB/DDD`), or the first one found for `""`.
pub fn open_host(path: &str) -> Result<Arc<Asm24xx>> {
    let spec = if path.is_empty() { "usb:first".to_string() } else { format!("usb:{path}") };
    let wanted = match path {
        "" => None,
        p => Some(host::parse_path(p).ok_or_else(|| {
            Error::Unsupported(format!("{spec}: expected usb:/dev/bus/usb/BBB/DDD, usb:first or usb:emu:ARCH"))
        })?),
    };
    let all =
        host::list().map_err(|e| Error::Unsupported(format!("{spec}: cannot list the host's USB devices: {e}")))?;
    let found = match wanted {
        None => all.into_iter().find(is_bridge).ok_or_else(|| {
            Error::Unsupported(format!(
                "{spec}: no ASM24xx USB bridge with the custom firmware (USB id add1:0001 or 3801:0001) is plugged in"
            ))
        })?,
        Some((bus, address)) => {
            let d = all.into_iter().find(|d| d.bus == bus && d.address == address);
            let d = d.ok_or_else(|| Error::Unsupported(format!("{spec}: no such USB device")))?;
            if !is_bridge(&d) {
                return Err(Error::Unsupported(format!(
                    "{spec}: USB device {:04x}:{:04x} ({}) is not an ASM24xx bridge with the custom firmware",
                    d.vendor,
                    d.product,
                    d.product_string.as_deref().unwrap_or("no product string")
                )));
            }
            d
        }
    };
    Asm24xx::open(Arc::new(HostUsb::open(&found)?))
}

impl Asm24xx {
    /// Brings the GPU behind the bridge on `usb` up: PCIe power and link, bus numbers and
    /// windows, resizable BAR, BAR assignment; then checks that a function answers at bus 4.
    pub fn open(usb: Arc<dyn UsbTransport>) -> Result<Arc<Asm24xx>> {
        let link = Link::new(usb).with_depth(pipe::depth_from_env()?);
        let (bars, resized) = {
            let _wire = link.lock();
            link.power_on()?;
            setup::bridges(&link)?;
            let resized = setup::resize_bars(&link)?;
            let ids = link.config_read(GPU_BUS, 0, 0, 0, 4)?;
            if ids & 0xffff == 0xffff || ids == 0 {
                return Err(Error::Protocol(format!("{}: no PCI function answers at 04:00.0", link.name())));
            }
            (setup::assign_bars(&link)?, resized)
        };
        let pool = SramPool::new(link.clone());
        let drain_timeout = Mutex::new(protocol::DRAIN_TIMEOUT);
        Ok(Arc::new(Asm24xx { name: link.name().to_string(), link, bars, resized, pool, drain_timeout }))
    }

    /// The firmware's requests (tests, bring-up tools).
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// The resizable BARs and the sizes opening chose.
    pub fn resized(&self) -> &[(u8, u64)] {
        &self.resized
    }

    /// Bytes of DMA memory the device has (its SRAM pool).
    pub fn dma_pool_size(&self) -> u64 {
        sram::POOL_SIZE
    }

    /// The bus address of `[offset, offset + len)` of BAR `bar`, checked.
    fn at(&self, bar: u8, offset: u64, len: u64, op: &str, align: u64) -> Result<u64> {
        let what = || format!("{}: BAR{bar} {op} of {len} bytes at {offset:#x}", self.name);
        let invalid = |why: String| Error::sys(what(), std::io::Error::new(std::io::ErrorKind::InvalidInput, why));
        let b = self
            .bars
            .get(bar as usize)
            .copied()
            .flatten()
            .ok_or_else(|| invalid("the function has no such BAR".into()))?;
        if offset.checked_add(len).is_none_or(|end| end > b.size) {
            return Err(invalid(format!("past the BAR's {:#x} bytes", b.size)));
        }
        if !offset.is_multiple_of(align) {
            return Err(invalid("not naturally aligned".into()));
        }
        Ok(b.bus_addr + offset)
    }
}

/// Splits `[offset, offset + len)` of config space into naturally aligned 1, 2 and 4 byte pieces.
fn config_pieces(offset: u16, len: usize) -> impl Iterator<Item = (u16, usize, usize)> {
    let mut done = 0usize;
    std::iter::from_fn(move || {
        let left = len - done;
        if left == 0 {
            return None;
        }
        let at = offset + done as u16;
        let size = if at.is_multiple_of(4) && left >= 4 {
            4
        } else if at.is_multiple_of(2) && left >= 2 {
            2
        } else {
            1
        };
        let piece = (at, done, size);
        done += size;
        Some(piece)
    })
}

impl PciDevice for Asm24xx {
    fn name(&self) -> &str {
        &self.name
    }

    fn config_read(&self, offset: u16, buf: &mut [u8]) -> Result<()> {
        let _wire = self.link.lock();
        for (at, i, size) in config_pieces(offset, buf.len()) {
            let v = self.link.config_read(GPU_BUS, 0, 0, at, size)?;
            buf[i..i + size].copy_from_slice(&v.to_le_bytes()[..size]);
        }
        Ok(())
    }

    fn config_write(&self, offset: u16, data: &[u8]) -> Result<()> {
        let _wire = self.link.lock();
        for (at, i, size) in config_pieces(offset, data.len()) {
            let mut v = [0u8; 4];
            v[..size].copy_from_slice(&data[i..i + size]);
            self.link.config_write(GPU_BUS, 0, 0, at, size, u32::from_le_bytes(v))?;
        }
        Ok(())
    }

    fn bar(&self, index: u8) -> Option<BarInfo> {
        self.bars.get(index as usize).copied().flatten()
    }

    fn read32(&self, bar: u8, offset: u64) -> Result<u32> {
        let addr = self.at(bar, offset, 4, "read32", 4)?;
        let mut b = [0u8; 4];
        let _wire = self.link.lock();
        self.link.mem_read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn write32(&self, bar: u8, offset: u64, value: u32) -> Result<()> {
        let addr = self.at(bar, offset, 4, "write32", 4)?;
        let _wire = self.link.lock();
        self.link.mem_write(addr, &value.to_le_bytes())
    }

    fn read64(&self, bar: u8, offset: u64) -> Result<u64> {
        let addr = self.at(bar, offset, 8, "read64", 8)?;
        let mut b = [0u8; 8];
        let _wire = self.link.lock();
        self.link.mem_read(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn write64(&self, bar: u8, offset: u64, value: u64) -> Result<()> {
        let addr = self.at(bar, offset, 8, "write64", 8)?;
        let _wire = self.link.lock();
        self.link.mem_write(addr, &value.to_le_bytes())
    }

    fn copy_from_bar(&self, bar: u8, offset: u64, buf: &mut [u8]) -> Result<()> {
        let addr = self.at(bar, offset, buf.len() as u64, "copy_from_bar", 1)?;
        let (lo, hi) = (addr & !3, (addr + buf.len() as u64).next_multiple_of(4));
        let mut words = vec![0u8; (hi - lo) as usize];
        let _wire = self.link.lock();
        self.link.mem_read_stream(lo, &mut words)?;
        buf.copy_from_slice(&words[(addr - lo) as usize..][..buf.len()]);
        Ok(())
    }

    fn copy_to_bar(&self, bar: u8, offset: u64, data: &[u8]) -> Result<()> {
        let addr = self.at(bar, offset, data.len() as u64, "copy_to_bar", 1)?;
        let _wire = self.link.lock();
        let (mut at, mut rest) = (addr, data);
        // A partial first dword: a single write with byte enables.
        if at % 4 != 0 && !rest.is_empty() {
            let n = rest.len().min(4 - (at % 4) as usize);
            self.partial(at, &rest[..n])?;
            (at, rest) = (at + n as u64, &rest[n..]);
        }
        let whole = rest.len() / 4 * 4;
        self.link.mem_write_stream(at, &rest[..whole])?;
        if whole < rest.len() {
            self.partial(at + whole as u64, &rest[whole..])?;
        }
        Ok(())
    }

    fn alloc_dma(&self, size: u64, contiguous: bool) -> Result<Box<dyn DmaMemory>> {
        // Every allocation is contiguous SRAM.
        let _ = contiguous;
        Ok(Box::new(self.pool.alloc(size)?))
    }

    /// The GPU reaches no host memory through the bridge: only the SRAM pool.
    fn dma_pool(&self) -> Option<u64> {
        Some(sram::POOL_SIZE)
    }

    fn drained_windows(&self) -> Option<&dyn crate::pci::drained::DrainedWindows> {
        Some(self)
    }

    fn wait_interrupt(&self, timeout: Duration) -> Result<bool> {
        // No interrupts cross the bridge: the caller polls the IH ring.
        let _ = timeout;
        Ok(false)
    }
}

impl Asm24xx {
    /// A posted write of `bytes` (inside one dword) at `addr`.
    fn partial(&self, addr: u64, bytes: &[u8]) -> Result<()> {
        let shift = (addr % 4) as usize;
        let mut word = [0u8; 4];
        word[shift..shift + bytes.len()].copy_from_slice(bytes);
        self.link.mem_write_partial(addr, byte_enable(addr, bytes.len()), u32::from_le_bytes(word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_accesses_split_at_natural_alignment() {
        let p: Vec<_> = config_pieces(0x03, 8).collect();
        assert_eq!(p, vec![(0x03, 0, 1), (0x04, 1, 4), (0x08, 5, 2), (0x0a, 7, 1)]);
    }

    #[test]
    fn only_the_custom_firmware_is_a_bridge() {
        let d = |v, p, s: &str| UsbInfo { bus: 1, address: 2, vendor: v, product: p, product_string: Some(s.into()) };
        assert!(is_bridge(&d(0xadd1, 1, "custom asm2464")));
        assert!(is_bridge(&d(0x3801, 1, "AS2462 bridge")));
        assert!(!is_bridge(&d(0xadd1, 1, "ASM2464 NVMe")));
        assert!(!is_bridge(&d(0x174c, 0x2464, "custom")));
    }
}
