//! Where a faulting kernel went wrong, as RM's SM debugger reports it (see [`super::rm::debugger`]
//! and [`super::device::NvDevice::fault_report`]): the MMU faults of the channel's context and the
//! SMs whose error status registers are set — with the codes named.
//!
//! Code names:
//! - MMU fault types: RM's `FAULT_TYPE` (`src/nvidia/generated/g_kern_gmmu_nvoc.h`, 580.65.06),
//!   which `kgrctxRecordMmuFault` stores in the debugger's fault list;
//! - access types: `NV_PFAULT_ACCESS_TYPE_*` (`swref/published/volta/gv100/dev_fault.h`, the same
//!   values in `blackwell/gb100` and `gb202`), which RM passes through from the fault packet;
//! - warp ESR error codes (bits 15:0 of HWW_WARP_ESR) and global ESR bits: NVIDIA publishes no
//!   header for them in open-gpu-kernel-modules; the names are nouveau's
//!   (`nvkm/engine/gr/gf100.c`, `gf100_mp_warp_error` / `gf100_mp_global_error`, which nouveau
//!   also uses for Volta), and codes not in that table are printed as numbers.

use std::fmt;

/// `FAULT_TYPE` (`g_kern_gmmu_nvoc.h`): value → what it means.
pub const FAULT_TYPES: &[(u32, &str)] = &[
    (0x0, "invalid PDE"),
    (0x1, "invalid PDE size"),
    (0x2, "invalid PTE"),
    (0x3, "limit violation"),
    (0x4, "unbound instance block"),
    (0x5, "privilege violation"),
    (0x6, "write to a read-only page"),
    (0x7, "read of a write-only page"),
    (0x8, "pitch mask violation"),
    (0x9, "work creation"),
    (0xa, "unsupported aperture"),
    (0xb, "compression failure or CC violation"),
    (0xc, "unsupported kind"),
    (0xd, "region violation"),
    (0xe, "poison"),
    (0xf, "atomic violation"),
];

// The fault types the emulated GPU reports.
pub const FAULT_TYPE_INVALID_PDE: u32 = 0x0;
pub const FAULT_TYPE_INVALID_PTE: u32 = 0x2;

/// `NV_PFAULT_ACCESS_TYPE_*` (`dev_fault.h`).
pub const ACCESS_TYPES: &[(u32, &str)] = &[
    (0x0, "read"),
    (0x1, "write"),
    (0x2, "atomic"),
    (0x3, "prefetch"),
    (0x4, "weak atomic"),
    (0x8, "physical read"),
    (0x9, "physical write"),
    (0xa, "physical atomic"),
    (0xb, "physical prefetch"),
];
pub const NV_PFAULT_ACCESS_TYPE_VIRT_READ: u32 = 0x0;
pub const NV_PFAULT_ACCESS_TYPE_VIRT_WRITE: u32 = 0x1;
pub const NV_PFAULT_ACCESS_TYPE_VIRT_ATOMIC: u32 = 0x2;

/// Warp ESR error codes (bits 15:0), nouveau's `gf100_mp_warp_error`.
pub const WARP_ESR_ERRORS: &[(u32, &str)] = &[
    (0x01, "STACK_ERROR"),
    (0x02, "API_STACK_ERROR"),
    (0x03, "RET_EMPTY_STACK_ERROR"),
    (0x04, "PC_WRAP"),
    (0x05, "MISALIGNED_PC"),
    (0x06, "PC_OVERFLOW"),
    (0x07, "MISALIGNED_IMMC_ADDR"),
    (0x08, "MISALIGNED_REG"),
    (0x09, "ILLEGAL_INSTR_ENCODING"),
    (0x0a, "ILLEGAL_SPH_INSTR_COMBO"),
    (0x0b, "ILLEGAL_INSTR_PARAM"),
    (0x0c, "INVALID_CONST_ADDR"),
    (0x0d, "OOR_REG"),
    (0x0e, "OOR_ADDR"),
    (0x0f, "MISALIGNED_ADDR"),
    (0x10, "INVALID_ADDR_SPACE"),
    (0x11, "ILLEGAL_INSTR_PARAM2"),
    (0x12, "INVALID_CONST_ADDR_LDC"),
    (0x13, "GEOMETRY_SM_ERROR"),
    (0x14, "DIVERGENT"),
    (0x15, "WARP_EXIT"),
];
// The warp errors the emulated GPU reports.
pub const WARP_ESR_ILLEGAL_INSTR_ENCODING: u32 = 0x09;
pub const WARP_ESR_OOR_ADDR: u32 = 0x0e;
pub const WARP_ESR_MISALIGNED_ADDR: u32 = 0x0f;

/// Global ESR bits, nouveau's `gf100_mp_global_error`.
pub const GLOBAL_ESR_BITS: &[(u32, &str)] = &[
    (0x0000_0001, "SM_TO_SM_FAULT"),
    (0x0000_0002, "L1_ERROR"),
    (0x0000_0004, "MULTIPLE_WARP_ERRORS"),
    (0x0000_0008, "PHYSICAL_STACK_OVERFLOW"),
    (0x0000_0010, "BPT_INT"),
    (0x0000_0020, "BPT_PAUSE"),
    (0x0000_0040, "SINGLE_STEP_COMPLETE"),
    (0x2000_0000, "ECC_SEC_ERROR"),
    (0x4000_0000, "ECC_DED_ERROR"),
    (0x8000_0000, "TIMEOUT"),
];
/// A breakpoint trap (what PTX `trap` raises in the emulated GPU).
pub const GLOBAL_ESR_BPT_INT: u32 = 0x10;

fn lookup(table: &[(u32, &'static str)], v: u32) -> Option<&'static str> {
    table.iter().find(|e| e.0 == v).map(|e| e.1)
}

pub fn fault_type_name(v: u32) -> Option<&'static str> {
    lookup(FAULT_TYPES, v)
}

pub fn access_type_name(v: u32) -> Option<&'static str> {
    lookup(ACCESS_TYPES, v)
}

/// The name of a warp ESR's error code (bits 15:0).
pub fn warp_error_name(esr: u32) -> Option<&'static str> {
    lookup(WARP_ESR_ERRORS, esr & 0xffff)
}

/// The names of a global ESR's set bits, `|`-joined, with unnamed bits in hex.
pub fn global_esr_names(esr: u32) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = esr;
    for (bit, name) in GLOBAL_ESR_BITS {
        if esr & bit != 0 {
            parts.push((*name).into());
            rest &= !bit;
        }
    }
    if rest != 0 {
        parts.push(format!("{rest:#x}"));
    }
    parts.join("|")
}

/// One MMU fault the channel's context took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmuFault {
    pub address: u64,
    /// [`FAULT_TYPES`].
    pub fault_type: u32,
    /// [`ACCESS_TYPES`].
    pub access_type: u32,
}

impl fmt::Display for MmuFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MMU fault at {:#x}: ", self.address)?;
        match access_type_name(self.access_type) {
            Some(n) => write!(f, "{n}")?,
            None => write!(f, "access type {:#x}", self.access_type)?,
        }
        match fault_type_name(self.fault_type) {
            Some(n) => write!(f, ", {n}"),
            None => write!(f, ", fault type {:#x}", self.fault_type),
        }
    }
}

/// One SM whose error status registers are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmError {
    pub sm: u32,
    pub global_esr: u32,
    pub warp_esr: u32,
    /// The faulting warp's PC (`hwwWarpEsrPc64`).
    pub pc: u64,
    /// The address a memory-access warp error was about (`hwwEsrAddr`; 0 if none).
    pub esr_addr: u64,
}

impl fmt::Display for SmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SM {}:", self.sm)?;
        if self.global_esr != 0 {
            write!(f, " global ESR {:#x} ({})", self.global_esr, global_esr_names(self.global_esr))?;
            if self.warp_esr != 0 {
                write!(f, ",")?;
            }
        }
        if self.warp_esr != 0 {
            write!(f, " warp ESR {:#x}", self.warp_esr)?;
            if let Some(n) = warp_error_name(self.warp_esr) {
                write!(f, " ({n})")?;
            }
        }
        write!(f, ", PC {:#x}", self.pc)?;
        if self.esr_addr != 0 {
            write!(f, ", address {:#x}", self.esr_addr)?;
        }
        Ok(())
    }
}

/// What RM's SM debugger says about a channel's fault.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultReport {
    /// Oldest first (RM keeps the last 4).
    pub mmu_faults: Vec<MmuFault>,
    /// In SM order.
    pub sm_errors: Vec<SmError>,
}

impl FaultReport {
    pub fn is_empty(&self) -> bool {
        self.mmu_faults.is_empty() && self.sm_errors.is_empty()
    }
}

impl fmt::Display for FaultReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "no MMU fault and no SM error state recorded");
        }
        let parts: Vec<String> = self
            .mmu_faults
            .iter()
            .map(ToString::to_string)
            .chain(self.sm_errors.iter().map(ToString::to_string))
            .collect();
        write!(f, "{}", parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_name_their_codes() {
        let r = FaultReport {
            mmu_faults: vec![MmuFault { address: 0x100, fault_type: 0, access_type: 1 }],
            sm_errors: vec![
                SmError { sm: 3, global_esr: 0, warp_esr: 0x9, pc: 0x1c, esr_addr: 0 },
                SmError { sm: 7, global_esr: 0x14, warp_esr: 0x7f, pc: 0x20, esr_addr: 0x40 },
            ],
        };
        assert_eq!(
            r.to_string(),
            "MMU fault at 0x100: write, invalid PDE; SM 3: warp ESR 0x9 (ILLEGAL_INSTR_ENCODING), PC 0x1c; \
             SM 7: global ESR 0x14 (MULTIPLE_WARP_ERRORS|BPT_INT), warp ESR 0x7f, PC 0x20, address 0x40"
        );
        let odd = MmuFault { address: 1, fault_type: 0x33, access_type: 0x7 };
        assert_eq!(odd.to_string(), "MMU fault at 0x1: access type 0x7, fault type 0x33");
        assert_eq!(global_esr_names(0x8000_0100), "TIMEOUT|0x100");
        assert!(FaultReport::default().to_string().contains("no MMU fault"));
    }

    #[test]
    fn named_constants_match_their_tables() {
        assert_eq!(fault_type_name(FAULT_TYPE_INVALID_PTE), Some("invalid PTE"));
        assert_eq!(fault_type_name(FAULT_TYPE_INVALID_PDE), Some("invalid PDE"));
        assert_eq!(access_type_name(NV_PFAULT_ACCESS_TYPE_VIRT_READ), Some("read"));
        assert_eq!(access_type_name(NV_PFAULT_ACCESS_TYPE_VIRT_WRITE), Some("write"));
        assert_eq!(access_type_name(NV_PFAULT_ACCESS_TYPE_VIRT_ATOMIC), Some("atomic"));
        assert_eq!(warp_error_name(WARP_ESR_ILLEGAL_INSTR_ENCODING), Some("ILLEGAL_INSTR_ENCODING"));
        assert_eq!(warp_error_name(WARP_ESR_OOR_ADDR), Some("OOR_ADDR"));
        assert_eq!(warp_error_name(WARP_ESR_MISALIGNED_ADDR), Some("MISALIGNED_ADDR"));
        assert_eq!(global_esr_names(GLOBAL_ESR_BPT_INT), "BPT_INT");
    }
}
