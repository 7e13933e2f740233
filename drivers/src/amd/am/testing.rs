//! A register-file stand-in for unit tests of the AM driver's sequences: BAR5 and BAR0 as
//! sparse maps; reads of a register never written return `default_read`; every write is logged.
//! It answers nothing by itself (the emulated GPU of the emu crate does that); tests use it to
//! check that every register and field name a sequence uses exists in each generation's tables
//! and that values land where they should.

use crate::amd::am::chip::ChipTables;
use crate::amd::am::mmio::{Ip, Mmio};
use crate::pci::{BarInfo, DmaMemory, PciDevice, AMD_BAR_DOORBELL, AMD_BAR_MMIO, AMD_BAR_VRAM};
use crate::{Error, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Debug, Default)]
pub struct FakePci {
    pub regs: Mutex<HashMap<u64, u32>>,
    pub vram: Mutex<HashMap<u64, u8>>,
    pub writes: Mutex<Vec<(u64, u32)>>,
    pub default_read: u32,
}

impl FakePci {
    pub fn new(default_read: u32) -> FakePci {
        FakePci { default_read, ..Default::default() }
    }

    /// The last value written to byte offset `off` of BAR5.
    pub fn reg(&self, dword: u32) -> Option<u32> {
        self.regs.lock().unwrap().get(&(u64::from(dword) * 4)).copied()
    }
}

impl PciDevice for FakePci {
    fn name(&self) -> &str {
        "fake"
    }
    fn config_read(&self, _: u16, buf: &mut [u8]) -> Result<()> {
        buf.fill(0);
        Ok(())
    }
    fn config_write(&self, _: u16, _: &[u8]) -> Result<()> {
        Ok(())
    }
    fn bar(&self, index: u8) -> Option<BarInfo> {
        let size = match index {
            AMD_BAR_VRAM => 512 << 20,
            AMD_BAR_DOORBELL => 2 << 20,
            AMD_BAR_MMIO => 16 << 20,
            _ => return None,
        };
        Some(BarInfo { size, bus_addr: 0, prefetchable: index == AMD_BAR_VRAM })
    }
    fn read32(&self, bar: u8, offset: u64) -> Result<u32> {
        let mut b = [0u8; 4];
        self.copy_from_bar(bar, offset, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn write32(&self, bar: u8, offset: u64, value: u32) -> Result<()> {
        self.copy_to_bar(bar, offset, &value.to_le_bytes())
    }
    fn read64(&self, bar: u8, offset: u64) -> Result<u64> {
        let mut b = [0u8; 8];
        self.copy_from_bar(bar, offset, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn write64(&self, bar: u8, offset: u64, value: u64) -> Result<()> {
        self.copy_to_bar(bar, offset, &value.to_le_bytes())
    }
    fn copy_from_bar(&self, bar: u8, offset: u64, buf: &mut [u8]) -> Result<()> {
        if bar == AMD_BAR_MMIO {
            let v = self.regs.lock().unwrap().get(&offset).copied().unwrap_or(self.default_read);
            buf.copy_from_slice(&v.to_le_bytes()[..buf.len()]);
            return Ok(());
        }
        let m = self.vram.lock().unwrap();
        for (i, b) in buf.iter_mut().enumerate() {
            *b = m.get(&(offset + i as u64)).copied().unwrap_or(0);
        }
        Ok(())
    }
    fn copy_to_bar(&self, bar: u8, offset: u64, data: &[u8]) -> Result<()> {
        if bar == AMD_BAR_MMIO {
            let mut b = [0u8; 4];
            b[..data.len()].copy_from_slice(data);
            let v = u32::from_le_bytes(b);
            self.regs.lock().unwrap().insert(offset, v);
            self.writes.lock().unwrap().push((offset, v));
            return Ok(());
        }
        let mut m = self.vram.lock().unwrap();
        for (i, b) in data.iter().enumerate() {
            m.insert(offset + i as u64, *b);
        }
        Ok(())
    }
    fn alloc_dma(&self, _: u64, _: bool) -> Result<Box<dyn DmaMemory>> {
        Err(Error::Unsupported("fake: no DMA memory".into()))
    }
    fn wait_interrupt(&self, _: Duration) -> Result<bool> {
        Ok(false)
    }
}

/// Test bases: every IP's segments at distinct, far-apart dword addresses.
pub fn bound(chip: ChipTables, default_read: u32) -> (Arc<FakePci>, Mmio) {
    let pci = Arc::new(FakePci::new(default_read));
    let mut mmio = Mmio::new(pci.clone(), None).unwrap();
    let bases =
        |ip: Ip, inst: u8| (inst == 0).then(|| (0..6).map(|s| 0x1000 + (ip as u32) * 0x8000 + s * 0x1000).collect());
    chip.bind(&mut mmio, &bases).unwrap();
    (pci, mmio)
}
