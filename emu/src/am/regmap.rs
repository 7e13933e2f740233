//! The emulated chip's registers by name: the drivers' per-chip tables
//! ([`ChipTables`], the ones the AM driver binds after IP discovery) at the segment bases of the
//! chip's [`Layout`], instance by instance (every XCC's GC, every MMHUB and SDMA engine). One
//! definition of every register: the emulator answers exactly where the driver's tables say the
//! driver will look, and a generation's naming (`GCVM_` or `VM_`, `SDMA0_QUEUE0_` or
//! `SDMA_GFX_`) is the chip data's, not the emulator's.

use super::layout::Layout;
use baregpu_autogen::amd::regs::{Field, Reg};
use baregpu_drivers::amd::am::chip::ChipTables;
use baregpu_drivers::amd::am::mmio::Ip;
use std::collections::HashMap;

/// The address an absent register resolves to: past every BAR, so it never aliases one.
pub const NOWHERE: u32 = u32::MAX;

/// One bound IP instance: its table and every register's absolute dword address.
#[derive(Debug)]
struct Block {
    regs: &'static [Reg],
    addrs: HashMap<&'static str, u32>,
}

#[derive(Debug)]
pub struct RegMap {
    pub chip: ChipTables,
    blocks: HashMap<(Ip, u8), Block>,
}

impl RegMap {
    /// The tables of the layout's GC version bound to its bases; `None` for a GC version the
    /// driver has no tables for.
    pub fn new(layout: &Layout) -> Option<RegMap> {
        let gc = layout.version(Ip::Gc.hw_id())?;
        let chip = ChipTables::for_gc(gc.major, gc.minor).ok()?;
        let mut blocks = HashMap::new();
        for &(ip, _, regs) in chip.tables {
            for inst in 0..=u8::MAX {
                let Some(e) = layout.ip(ip.hw_id(), inst) else { break };
                let addrs = regs.iter().filter_map(|r| Some((r.name, r.addr(&e.bases)?))).collect();
                blocks.insert((ip, inst), Block { regs, addrs });
            }
        }
        Some(RegMap { chip, blocks })
    }

    /// How many instances of `ip` are bound (0, 1, … without gaps).
    pub fn instances(&self, ip: Ip) -> u8 {
        (0..=u8::MAX).take_while(|&i| self.blocks.contains_key(&(ip, i))).count() as u8
    }

    /// The absolute dword address of register `name` of `ip` instance `inst`, or [`NOWHERE`].
    pub fn at(&self, ip: Ip, inst: u8, name: &str) -> u32 {
        self.blocks.get(&(ip, inst)).and_then(|b| b.addrs.get(name)).copied().unwrap_or(NOWHERE)
    }

    /// Field `field` of register `reg` of `ip`'s table (a field the table lacks has mask 0).
    pub fn field(&self, ip: Ip, reg: &str, field: &str) -> Field {
        self.blocks
            .get(&(ip, 0))
            .and_then(|b| b.regs.iter().find(|r| r.name == reg))
            .and_then(|r| r.field(field))
            .copied()
            .unwrap_or(Field { name: "", shift: 0, mask: 0 })
    }

    /// Every register of `ip` instance `inst` with its address.
    pub fn regs(&self, ip: Ip, inst: u8) -> impl Iterator<Item = (&'static Reg, u32)> + '_ {
        self.blocks
            .get(&(ip, inst))
            .into_iter()
            .flat_map(|b| b.regs.iter().filter_map(|r| b.addrs.get(r.name).map(|&a| (r, a))))
    }

    /// A register of the GC hub of XCC `xcc` by its name after the hub prefix (`GCVM_`, `VM_`).
    pub fn gc_vm(&self, xcc: u8, name: &str) -> u32 {
        self.at(Ip::Gc, xcc, &format!("{}{name}", self.chip.gc_hub.vm))
    }

    /// A register of the first SDMA engine's first ring by its name after the ring prefix.
    pub fn sdma_queue(&self, name: &str) -> u32 {
        let n = &self.chip.sdma;
        self.at(n.ip, 0, &format!("{}{name}", n.queue))
    }

    /// A field of a register of the first SDMA ring.
    pub fn sdma_field(&self, reg: &str, field: &str) -> Field {
        let n = &self.chip.sdma;
        self.field(n.ip, &format!("{}{reg}", n.queue), field)
    }
}
