//! Bring-up of the PCIe hierarchy behind the bridge (what firmware or an OS would do): bus
//! numbers and memory windows of the switch's bridges on buses 0..3, the GPU's resizable BAR
//! set to its largest size, and the GPU's BARs sized and assigned from the windows.

use super::link::Link;
use super::protocol::{GPU_BUS, MEM_WINDOW_BASE, PREF_WINDOW_BASE};
use crate::pci::BarInfo;
use crate::{Error, Result};

use crate::pci::config::{
    PCI_BASE_ADDRESS_0 as BAR0, PCI_COMMAND as COMMAND, PCI_COMMAND_IO, PCI_COMMAND_MASTER, PCI_COMMAND_MEMORY,
    PCI_EXT_CAP_ID_REBAR as EXT_CAP_REBAR, PCI_EXT_CAP_START as EXT_CAP_START, PCI_MEMORY_BASE as MEM_BASE,
    PCI_PREF_BASE_UPPER32 as PREF_BASE_UPPER, PCI_PREF_LIMIT_UPPER32 as PREF_LIMIT_UPPER,
    PCI_PREF_MEMORY_BASE as PREF_BASE, PCI_PRIMARY_BUS as BUS_NUMBERS,
};

/// I/O space, memory space, bus master.
pub const COMMAND_ENABLE: u32 = (PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER) as u32;
/// BARs are placed at least this aligned.
const BAR_ALIGN: u64 = 2 << 20;

/// Numbers the bridges on buses 0..3 so that each forwards down to the GPU's bus, and opens
/// their memory windows (256 MiB up for registers, 32 GiB up for prefetchable VRAM).
pub fn bridges(link: &Link) -> Result<()> {
    for bus in 0..GPU_BUS {
        let numbers = bus as u32 | (bus as u32 + 1) << 8 | (GPU_BUS as u32) << 16;
        link.config_write(bus, 0, 0, BUS_NUMBERS, 4, numbers)?;
        let mem = (MEM_WINDOW_BASE >> 16) as u32 | 0xfff0 << 16;
        link.config_write(bus, 0, 0, MEM_BASE, 4, mem)?;
        // 64-bit prefetchable window: [32 GiB, top of the address space).
        let pref = ((PREF_WINDOW_BASE >> 16) as u32 & 0xfff0) | 1 | 0xfff1 << 16;
        link.config_write(bus, 0, 0, PREF_BASE, 4, pref)?;
        link.config_write(bus, 0, 0, PREF_BASE_UPPER, 4, (PREF_WINDOW_BASE >> 32) as u32)?;
        link.config_write(bus, 0, 0, PREF_LIMIT_UPPER, 4, u32::MAX)?;
        link.config_write(bus, 0, 0, COMMAND, 2, COMMAND_ENABLE)?;
    }
    Ok(())
}

/// Sets every BAR of the GPU's resizable-BAR capability to its largest supported size; the
/// sizes it chose (BAR index, bytes). None when the GPU has no such capability.
pub fn resize_bars(link: &Link) -> Result<Vec<(u8, u64)>> {
    let mut at = EXT_CAP_START;
    let mut seen = 0;
    while at >= EXT_CAP_START && seen < 64 {
        let header = link.config_read(GPU_BUS, 0, 0, at, 4)?;
        if header == 0 || header == u32::MAX {
            return Ok(Vec::new());
        }
        if header & 0xffff == EXT_CAP_REBAR {
            return resize_at(link, at);
        }
        at = (header >> 20) as u16 & 0xffc;
        seen += 1;
    }
    Ok(Vec::new())
}

fn resize_at(link: &Link, cap: u16) -> Result<Vec<(u8, u64)>> {
    let first_ctrl = link.config_read(GPU_BUS, 0, 0, cap + 8, 4)?;
    let entries = ((first_ctrl >> 5) & 7).max(1) as u16;
    let mut chosen = Vec::new();
    for i in 0..entries {
        let (cap_reg, ctrl_reg) = (cap + 4 + 8 * i, cap + 8 + 8 * i);
        let sizes = link.config_read(GPU_BUS, 0, 0, cap_reg, 4)? >> 4;
        if sizes == 0 {
            continue;
        }
        let largest = 31 - sizes.leading_zeros();
        let ctrl = link.config_read(GPU_BUS, 0, 0, ctrl_reg, 4)?;
        link.config_write(GPU_BUS, 0, 0, ctrl_reg, 4, (ctrl & !0x3f00) | largest << 8)?;
        chosen.push(((ctrl & 7) as u8, 1u64 << (20 + largest)));
    }
    Ok(chosen)
}

/// Sizes the GPU's BARs (all ones, read back), assigns them addresses from the windows and
/// enables memory decode and bus mastering. The BARs by index.
pub fn assign_bars(link: &Link) -> Result<[Option<BarInfo>; 6]> {
    let mut bars = [None; 6];
    let (mut mem, mut pref) = (MEM_WINDOW_BASE, PREF_WINDOW_BASE);
    link.config_write(GPU_BUS, 0, 0, COMMAND, 2, 0)?;
    let mut i = 0u8;
    while i < 6 {
        let reg = BAR0 + 4 * i as u16;
        let orig = link.config_read(GPU_BUS, 0, 0, reg, 4)?;
        link.config_write(GPU_BUS, 0, 0, reg, 4, u32::MAX)?;
        let lo = link.config_read(GPU_BUS, 0, 0, reg, 4)?;
        let is_64 = orig & 0b110 == 0b100;
        let hi = if is_64 {
            link.config_write(GPU_BUS, 0, 0, reg + 4, 4, u32::MAX)?;
            link.config_read(GPU_BUS, 0, 0, reg + 4, 4)?
        } else {
            u32::MAX
        };
        let mask = (hi as u64) << 32 | (lo & !0xf) as u64;
        if lo & !0xf == 0 || orig & 1 == 1 {
            // No BAR here (or an I/O BAR, which the bridge cannot reach): leave it zero.
            link.config_write(GPU_BUS, 0, 0, reg, 4, 0)?;
            i += 1;
            continue;
        }
        let size = (!mask).wrapping_add(1);
        let prefetchable = orig & 0b1000 != 0;
        let next = if prefetchable { &mut pref } else { &mut mem };
        let addr = next.next_multiple_of(size.max(BAR_ALIGN));
        if !is_64 && addr + size > 1 << 32 {
            return Err(Error::Unsupported(format!(
                "{}: BAR{i} of {size:#x} bytes does not fit the 32-bit window",
                link.name()
            )));
        }
        *next = addr + size;
        link.config_write(GPU_BUS, 0, 0, reg, 4, addr as u32)?;
        if is_64 {
            link.config_write(GPU_BUS, 0, 0, reg + 4, 4, (addr >> 32) as u32)?;
        }
        bars[i as usize] = Some(BarInfo { size, bus_addr: addr, prefetchable });
        i += if is_64 { 2 } else { 1 };
    }
    link.config_write(GPU_BUS, 0, 0, COMMAND, 2, COMMAND_ENABLE)?;
    Ok(bars)
}
