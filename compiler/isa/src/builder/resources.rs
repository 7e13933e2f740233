//! Per-kernel register accounting: the highest SGPR, VGPR and AGPR an instruction names, and
//! whether VCC is used, for the kernel descriptor (`KernelResources` in the code-object writer).

use super::operand::Operand;
use super::reg::{Reg, RegFile};

/// What a kernel's instructions use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResourceUsage {
    /// Highest VGPR used + 1 (LLVM's `.amdhsa_next_free_vgpr`).
    pub vgprs: u32,
    /// Highest SGPR used + 1, VCC excluded (LLVM's `.amdhsa_next_free_sgpr`).
    pub sgprs: u32,
    /// Highest AccVGPR used + 1.
    pub agprs: u32,
    /// Whether VCC (or half of it) is read or written.
    pub vcc: bool,
}

/// Accumulates [`ResourceUsage`] over emitted instructions.
#[derive(Debug, Clone, Default)]
pub struct ResourceTracker {
    /// Per register file (by `RegFile as usize`; trap temporaries are not counted), the
    /// highest register named + 1: the builder's fast path updates it in place.
    pub(crate) used: [u32; 4],
    vcc: bool,
}

impl ResourceTracker {
    pub fn new() -> ResourceTracker {
        ResourceTracker::default()
    }

    /// Counts a register (already checked against its file).
    pub fn note_reg(&mut self, r: &Reg) {
        if r.file != RegFile::Ttmp {
            let e = &mut self.used[r.file as usize];
            *e = (*e).max(r.end().max(0) as u32);
        }
    }

    /// Merges what one instruction names: per register file (by `RegFile as usize`) the
    /// highest register + 1, and whether VCC is named.
    #[inline]
    pub(crate) fn note_used(&mut self, used: [u32; 4], vcc: bool) {
        for f in [RegFile::Sgpr, RegFile::Vgpr, RegFile::Agpr] {
            let e = &mut self.used[f as usize];
            *e = (*e).max(used[f as usize]);
        }
        self.vcc |= vcc;
    }

    /// Counts an operand.
    pub fn note(&mut self, op: &Operand) {
        match op {
            Operand::Reg { reg, .. } => self.note_reg(reg),
            Operand::Special { reg, .. } if reg.is_vcc() => self.vcc = true,
            _ => {}
        }
    }

    /// Registers the hardware initialises (user and system SGPRs, work-item id VGPRs) count as
    /// used even when the code never names them: `reserve_sgprs(16)` covers s0..s15.
    pub fn reserve_sgprs(&mut self, n: u32) {
        let e = &mut self.used[RegFile::Sgpr as usize];
        *e = (*e).max(n);
    }

    pub fn reserve_vgprs(&mut self, n: u32) {
        let e = &mut self.used[RegFile::Vgpr as usize];
        *e = (*e).max(n);
    }

    /// VCC used implicitly (an instruction whose text does not name it).
    pub fn note_vcc(&mut self) {
        self.vcc = true;
    }

    pub fn usage(&self) -> ResourceUsage {
        let u = &self.used;
        ResourceUsage {
            vgprs: u[RegFile::Vgpr as usize],
            sgprs: u[RegFile::Sgpr as usize],
            agprs: u[RegFile::Agpr as usize],
            vcc: self.vcc,
        }
    }

    /// VCC named (by the builder's fast path).
    #[inline]
    pub(crate) fn set_vcc(&mut self, vcc: bool) {
        self.vcc |= vcc;
    }
}
