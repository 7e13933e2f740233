//! Typed register access through [`PciDevice`]: a register of the generated tables
//! (`baregpu_autogen::amd::regs`) at an IP instance's segment bases, read, written, updated by
//! field name and polled with a deadline. With `BAREGPU_TRACE=FILE` every write is appended to
//! FILE as `regGRBM_GFX_CNTL <- me=1 pipe=0 queue=0` (field names from the register's table,
//! lowercase; a register without fields shows its hex value).
//!
//! Generations name the same register differently (`GCVM_CONTEXT0_CNTL` on gfx11,
//! `VM_CONTEXT0_CNTL` on gfx9), so the callers look registers up by name in the block bound to
//! an IP ([`Mmio::reg`]); a name or field the table lacks is an error naming both.

use crate::pci::{PciDevice, AMD_BAR_MMIO};
use crate::{Error, Result};
use baregpu_autogen::amd::regs::{Field, Reg};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The hardware IPs the AM driver programs, with their discovery hardware ids
/// (`include/soc15_hw_ip.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ip {
    Gc,
    Mmhub,
    /// MP0: the PSP.
    Mp0,
    /// MP1: the SMU.
    Mp1,
    Hdp,
    /// OSSSYS: the IH.
    Osssys,
    /// NBIO / NBIF: the bus interface (HDP flush remap, doorbell apertures, MM index/data).
    Nbio,
    /// SDMA engines that are their own IP (SDMA 4.x on gfx9; SDMA 6 lives in GC).
    Sdma,
}

impl Ip {
    /// `*_HWID` of `soc15_hw_ip.h` (SDMA: SDMA0_HWID; instances by discovery's instance number).
    pub const fn hw_id(self) -> u16 {
        match self {
            Ip::Gc => 11,
            Ip::Mmhub => 34,
            Ip::Mp0 => 255,
            Ip::Mp1 => 1,
            Ip::Hdp => 41,
            Ip::Osssys => 40,
            Ip::Nbio => 108,
            Ip::Sdma => 42,
        }
    }
}

/// One IP instance: its register table (a generated `REGS`) and its segment bases.
#[derive(Debug, Clone)]
pub struct Block {
    /// The table's module name (`gc_11_0_0`), for errors.
    pub table: &'static str,
    pub regs: &'static [Reg],
    pub bases: Vec<u32>,
}

/// A register resolved to its absolute MMIO dword address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegAt {
    pub reg: &'static Reg,
    pub addr: u32,
}

impl RegAt {
    pub fn field(&self, name: &str) -> Result<&'static Field> {
        self.reg.field(name).ok_or_else(|| Error::Protocol(format!("reg{} has no field {name}", self.reg.name)))
    }

    /// `value` with the named fields replaced.
    pub fn with(&self, mut value: u32, fields: &[(&str, u32)]) -> Result<u32> {
        for (name, v) in fields {
            value = self.field(name)?.set(value, *v);
        }
        Ok(value)
    }
}

/// Register access for one device.
pub struct Mmio {
    pci: Arc<dyn PciDevice>,
    blocks: BTreeMap<(Ip, u8), Block>,
    /// BAR5's size in bytes: registers past it go through the RSMU index/data pair.
    bar_size: u64,
    /// The NBIO `RSMU_INDEX`/`RSMU_DATA` byte offsets in BAR5, when bound.
    indirect: Option<(u64, u64)>,
    trace: Option<Mutex<Box<dyn Write + Send>>>,
}

impl std::fmt::Debug for Mmio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mmio").field("device", &self.pci.name()).field("blocks", &self.blocks.len()).finish()
    }
}

/// The `BAREGPU_TRACE` file, opened for appending; an unwritable path is logged and ignored.
pub fn trace_from_env() -> Option<Box<dyn Write + Send>> {
    let path = std::env::var_os("BAREGPU_TRACE")?;
    match std::fs::OpenOptions::new().create(true).append(true).open(&path) {
        Ok(f) => Some(Box::new(f)),
        Err(e) => {
            log::warn!("BAREGPU_TRACE={}: {e}; not tracing register writes", path.to_string_lossy());
            None
        }
    }
}

impl Mmio {
    pub fn new(pci: Arc<dyn PciDevice>, trace: Option<Box<dyn Write + Send>>) -> Result<Mmio> {
        let bar = pci
            .bar(AMD_BAR_MMIO)
            .ok_or_else(|| Error::Unsupported(format!("{}: no register BAR (BAR{AMD_BAR_MMIO})", pci.name())))?;
        Ok(Mmio { pci, blocks: BTreeMap::new(), bar_size: bar.size, indirect: None, trace: trace.map(Mutex::new) })
    }

    pub fn pci(&self) -> &Arc<dyn PciDevice> {
        &self.pci
    }

    /// Binds a register table to an IP instance's segment bases.
    pub fn bind(&mut self, ip: Ip, inst: u8, block: Block) {
        self.blocks.insert((ip, inst), block);
    }

    /// Routes registers beyond BAR5 through `RSMU_INDEX`/`RSMU_DATA` of the bound NBIO block.
    pub fn enable_indirect(&mut self) -> Result<()> {
        let index = self.reg(Ip::Nbio, 0, "BIF_BX_PF0_RSMU_INDEX")?;
        let data = self.reg(Ip::Nbio, 0, "BIF_BX_PF0_RSMU_DATA")?;
        self.indirect = Some((u64::from(index.addr) * 4, u64::from(data.addr) * 4));
        Ok(())
    }

    pub fn has(&self, ip: Ip, inst: u8) -> bool {
        self.blocks.contains_key(&(ip, inst))
    }

    /// The register `name` (without `reg`) of the table bound to `ip` instance `inst`.
    pub fn reg(&self, ip: Ip, inst: u8, name: &str) -> Result<RegAt> {
        let b = self
            .blocks
            .get(&(ip, inst))
            .ok_or_else(|| Error::Protocol(format!("{}: no {ip:?} instance {inst} bound", self.pci.name())))?;
        let reg = b
            .regs
            .iter()
            .find(|r| r.name == name)
            .ok_or_else(|| Error::Protocol(format!("register {name} is not in table {}", b.table)))?;
        let addr = reg.addr(&b.bases).ok_or_else(|| {
            Error::Protocol(format!(
                "{}: reg{name} is in segment {} but {ip:?} {inst} has {} bases",
                self.pci.name(),
                reg.base_idx,
                b.bases.len()
            ))
        })?;
        Ok(RegAt { reg, addr })
    }

    /// The register of `ip` instance `inst` at absolute dword `addr`, if its table has one.
    pub fn reg_by_addr(&self, ip: Ip, inst: u8, addr: u32) -> Option<RegAt> {
        let b = self.blocks.get(&(ip, inst))?;
        b.regs.iter().find(|r| r.addr(&b.bases) == Some(addr)).map(|reg| RegAt { reg, addr })
    }

    /// Reads the dword at absolute MMIO dword address `addr`.
    pub fn read_dw(&self, addr: u32) -> Result<u32> {
        let byte = u64::from(addr) * 4;
        if byte + 4 <= self.bar_size {
            return self.pci.read32(AMD_BAR_MMIO, byte);
        }
        let (index, data) = self.indirect_pair(addr)?;
        self.pci.write32(AMD_BAR_MMIO, index, byte as u32)?;
        self.pci.read32(AMD_BAR_MMIO, data)
    }

    /// Writes the dword at absolute MMIO dword address `addr` (untraced: callers trace).
    pub fn write_dw(&self, addr: u32, value: u32) -> Result<()> {
        let byte = u64::from(addr) * 4;
        if byte + 4 <= self.bar_size {
            return self.pci.write32(AMD_BAR_MMIO, byte, value);
        }
        let (index, data) = self.indirect_pair(addr)?;
        self.pci.write32(AMD_BAR_MMIO, index, byte as u32)?;
        self.pci.write32(AMD_BAR_MMIO, data, value)
    }

    fn indirect_pair(&self, addr: u32) -> Result<(u64, u64)> {
        self.indirect.ok_or_else(|| {
            Error::Unsupported(format!(
                "{}: register dword {addr:#x} is past BAR{AMD_BAR_MMIO} ({:#x} bytes) and no index/data pair is bound",
                self.pci.name(),
                self.bar_size
            ))
        })
    }

    pub fn read(&self, r: RegAt) -> Result<u32> {
        self.read_dw(r.addr)
    }

    pub fn write(&self, r: RegAt, value: u32) -> Result<()> {
        self.trace_write(r, value);
        self.write_dw(r.addr, value)
    }

    /// Writes the named fields over zero (every other field 0).
    pub fn write_fields(&self, r: RegAt, fields: &[(&str, u32)]) -> Result<()> {
        self.write(r, r.with(0, fields)?)
    }

    /// Read-modify-write of the named fields.
    pub fn update(&self, r: RegAt, fields: &[(&str, u32)]) -> Result<u32> {
        let v = r.with(self.read(r)?, fields)?;
        self.write(r, v)?;
        Ok(v)
    }

    /// Polls until `value & mask == want`, up to `timeout`; the error names the register, what
    /// was expected and what it last read, and `what` the caller was waiting for.
    pub fn poll(&self, r: RegAt, mask: u32, want: u32, timeout: Duration, what: &str) -> Result<u32> {
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            let v = self.read(r)?;
            if v & mask == want {
                return Ok(v);
            }
            if start.elapsed() >= timeout {
                return Err(Error::Protocol(format!(
                    "{}: timed out after {} ms waiting for {what}: reg{} & {mask:#x} == {want:#x}, last read {v:#x}",
                    self.pci.name(),
                    timeout.as_millis(),
                    r.reg.name
                )));
            }
            spins += 1;
            if spins > 64 {
                std::thread::sleep(Duration::from_micros(50));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// A line for the trace, free-form (what a boot step is about to do).
    pub fn trace_note(&self, note: &str) {
        self.trace_line(&format!("# {note}"));
    }

    fn trace_write(&self, r: RegAt, value: u32) {
        if self.trace.is_some() {
            self.trace_line(&format_write(r.reg, value));
        }
    }

    fn trace_line(&self, line: &str) {
        let Some(t) = &self.trace else { return };
        let mut w = t.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = writeln!(w, "{line}") {
            log::warn!("BAREGPU_TRACE: {e}");
        }
    }
}

/// `regNAME <- field=value ...`, or `regNAME <- 0x...` for a register without fields. Bits no
/// field covers are shown as `rest=0x...` when set.
pub fn format_write(reg: &Reg, value: u32) -> String {
    // No fields, or one field that is the whole register (`SCRATCH_REG7.SCRATCH_REG7`).
    if reg.fields.is_empty() || (reg.fields.len() == 1 && reg.fields[0].mask == u32::MAX) {
        return format!("reg{} <- {value:#x}", reg.name);
    }
    let mut s = format!("reg{} <-", reg.name);
    let mut covered = 0u32;
    for f in reg.fields {
        covered |= f.mask;
        let v = f.get(value);
        if v > 9 {
            s.push_str(&format!(" {}={v:#x}", f.name.to_ascii_lowercase()));
        } else {
            s.push_str(&format!(" {}={v}", f.name.to_ascii_lowercase()));
        }
    }
    if value & !covered != 0 {
        s.push_str(&format!(" rest={:#x}", value & !covered));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use baregpu_autogen::amd::regs::gc_11_0_0 as gc;

    #[test]
    fn trace_lines_name_the_fields() {
        let v = gc::GRBM_GFX_CNTL::MEID.val(1) | gc::GRBM_GFX_CNTL::QUEUEID.val(2);
        assert_eq!(
            format_write(&gc::regGRBM_GFX_CNTL, v),
            "regGRBM_GFX_CNTL <- pipeid=0 meid=1 vmid=0 queueid=2 ctxid=0"
        );
        assert_eq!(format_write(&gc::regSCRATCH_REG7, 0xa000_0008), "regSCRATCH_REG7 <- 0xa0000008");
    }
}
