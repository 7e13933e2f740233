//! PSP SOS firmware (`psp_<MP0>_sos.bin`): the components the PSP bootloader loads (KDB, SPL,
//! SYS_DRV, SOC/INTF/DBG/RAS drivers, the SOS itself), the TOC (for `LOAD_TOC`) and the register
//! list RL (`LOAD_IP_FW(REG_LIST)` on GFX9). Header v1.0–v1.3 name fixed components; v2.0/v2.1
//! carry a list of `psp_fw_bin_desc`. Layouts: `amdgpu_ucode.h`; offsets as
//! `psp_init_sos_microcode`/`parse_sos_bin_descriptor` (`amdgpu_psp.c`, linux-source-6.12) read
//! them: relative to the ucode array.

#![allow(non_camel_case_types)]

use super::header::{common_firmware_header, Blob};
use super::Span;
use crate::amd::am::raw::{self, layout, raw_structs};
use crate::Result;

/// `psp_fw_legacy_bin_desc`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct psp_fw_legacy_bin_desc {
    pub fw_version: u32,
    pub offset_bytes: u32,
    pub size_bytes: u32,
}
layout!(psp_fw_legacy_bin_desc, 12, { fw_version: 0, offset_bytes: 4, size_bytes: 8 });

/// `psp_firmware_header_v1_0`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct psp_firmware_header_v1_0 {
    pub header: common_firmware_header,
    pub sos: psp_fw_legacy_bin_desc,
}
layout!(psp_firmware_header_v1_0, 44, { header: 0, sos: 32 });

/// `psp_firmware_header_v1_1` (v1.2 has `res` where v1.1 has `toc`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct psp_firmware_header_v1_1 {
    pub v1_0: psp_firmware_header_v1_0,
    pub toc: psp_fw_legacy_bin_desc,
    pub kdb: psp_fw_legacy_bin_desc,
}
layout!(psp_firmware_header_v1_1, 68, { v1_0: 0, toc: 44, kdb: 56 });

/// `psp_firmware_header_v1_3`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct psp_firmware_header_v1_3 {
    pub v1_1: psp_firmware_header_v1_1,
    pub spl: psp_fw_legacy_bin_desc,
    pub rl: psp_fw_legacy_bin_desc,
    pub sys_drv_aux: psp_fw_legacy_bin_desc,
    pub sos_aux: psp_fw_legacy_bin_desc,
}
layout!(psp_firmware_header_v1_3, 116, { v1_1: 0, spl: 68, rl: 80, sys_drv_aux: 92, sos_aux: 104 });

/// `psp_fw_bin_desc` (v2 headers).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct psp_fw_bin_desc {
    pub fw_type: u32,
    pub fw_version: u32,
    pub offset_bytes: u32,
    pub size_bytes: u32,
}
layout!(psp_fw_bin_desc, 16, { fw_type: 0, fw_version: 4, offset_bytes: 8, size_bytes: 12 });

/// `psp_firmware_header_v2_0` without its flexible `psp_fw_bin[]`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct psp_firmware_header_v2_0 {
    pub header: common_firmware_header,
    pub psp_fw_bin_count: u32,
}
layout!(psp_firmware_header_v2_0, 36, { header: 0, psp_fw_bin_count: 32 });

/// `psp_firmware_header_v2_1` without its flexible `psp_fw_bin[]`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct psp_firmware_header_v2_1 {
    pub header: common_firmware_header,
    pub psp_fw_bin_count: u32,
    pub psp_aux_fw_bin_index: u32,
}
layout!(psp_firmware_header_v2_1, 40, { header: 0, psp_fw_bin_count: 32, psp_aux_fw_bin_index: 36 });

raw_structs!(
    psp_fw_legacy_bin_desc,
    psp_firmware_header_v1_0,
    psp_firmware_header_v1_1,
    psp_firmware_header_v1_3,
    psp_fw_bin_desc,
    psp_firmware_header_v2_0,
    psp_firmware_header_v2_1
);

/// `UCODE_MAX_PSP_PACKAGING`: the most descriptors a v2 header may list (the kernel refuses
/// counts at or above it).
pub const UCODE_MAX_PSP_PACKAGING: u32 = ((0x100 - 32 - 4) / 16) * 2;

/// `enum psp_fw_type`: what an SOS component is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SosKind {
    Sos,
    SysDrv,
    Kdb,
    Toc,
    Spl,
    Rl,
    SocDrv,
    IntfDrv,
    DbgDrv,
    RasDrv,
    IpKeyMgrDrv,
}

impl SosKind {
    /// From `psp_fw_bin_desc.fw_type`; `None` for types we do not load.
    pub fn from_psp_fw_type(t: u32) -> Option<SosKind> {
        use SosKind::*;
        Some(match t {
            1 => Sos,
            2 => SysDrv,
            3 => Kdb,
            4 => Toc,
            5 => Spl,
            6 => Rl,
            7 => SocDrv,
            8 => IntfDrv,
            9 => DbgDrv,
            10 => RasDrv,
            11 => IpKeyMgrDrv,
            _ => return None,
        })
    }

    /// The bootloader command that loads it (`enum psp_bootloader_cmd`, in `psp_abi`); `None`
    /// for the TOC and RL, which go through the KM ring once the SOS runs.
    pub fn bootloader_cmd(self) -> Option<u32> {
        use crate::amd::am::psp_abi::*;
        use SosKind::*;
        Some(match self {
            SysDrv => PSP_BL_LOAD_SYSDRV,
            Sos => PSP_BL_LOAD_SOSDRV,
            Kdb => PSP_BL_LOAD_KEY_DATABASE,
            SocDrv => PSP_BL_LOAD_SOCDRV,
            DbgDrv => PSP_BL_LOAD_DBGDRV,
            IntfDrv => PSP_BL_LOAD_INTFDRV,
            RasDrv => PSP_BL_LOAD_RASDRV,
            IpKeyMgrDrv => PSP_BL_LOAD_IPKEYMGRDRV,
            Spl => PSP_BL_LOAD_TOS_SPL_TABLE,
            Toc | Rl => return None,
        })
    }

    /// The bootloader's order (`psp_hw_start`): key database, SPL, system driver, the other
    /// drivers, and the SOS last.
    pub const BOOT_ORDER: [SosKind; 9] = [
        SosKind::Kdb,
        SosKind::Spl,
        SosKind::SysDrv,
        SosKind::SocDrv,
        SosKind::IntfDrv,
        SosKind::DbgDrv,
        SosKind::RasDrv,
        SosKind::IpKeyMgrDrv,
        SosKind::Sos,
    ];
}

/// One component of the SOS file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SosComponent {
    pub kind: SosKind,
    pub fw_version: u32,
    pub span: Span,
}

/// A parsed SOS file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sos {
    pub header_version: (u16, u16),
    /// `ucode_version` of the common header (the SOS version on v1).
    pub ucode_version: u32,
    /// Non-empty components in file order.
    pub components: Vec<SosComponent>,
}

impl Sos {
    pub fn parse(blob: &Blob) -> Result<Sos> {
        let components = match blob.version() {
            (1, minor) => v1(blob, minor)?,
            (2, minor) => v2(blob, minor)?,
            _ => return Err(blob.unknown_version("PSP SOS", "1.0-1.3, 2.0, 2.1")),
        };
        Ok(Sos { header_version: blob.version(), ucode_version: blob.common.ucode_version, components })
    }

    pub fn component(&self, kind: SosKind) -> Option<&SosComponent> {
        self.components.iter().find(|c| c.kind == kind)
    }

    /// The components the bootloader loads, in its order, each with its command.
    pub fn bootloader_steps(&self) -> Vec<(u32, SosComponent)> {
        SosKind::BOOT_ORDER.iter().filter_map(|&k| Some((k.bootloader_cmd()?, *self.component(k)?))).collect()
    }
}

fn push(
    blob: &Blob,
    out: &mut Vec<SosComponent>,
    kind: SosKind,
    d: &psp_fw_legacy_bin_desc,
    field: &str,
) -> Result<()> {
    if d.size_bytes != 0 {
        let span = blob.ucode_span(d.offset_bytes, d.size_bytes, field)?;
        out.push(SosComponent { kind, fw_version: d.fw_version, span });
    }
    Ok(())
}

/// v1.x: SYS_DRV is the ucode array up to `sos.offset_bytes`, then SOS; v1.1 adds TOC and KDB,
/// v1.2 KDB, v1.3 TOC, KDB, SPL and RL. (The `*_aux` pair serves MP0 13.0.2 only.)
fn v1(blob: &Blob, minor: u16) -> Result<Vec<SosComponent>> {
    let h: psp_firmware_header_v1_0 = blob.header("psp_firmware_header_v1_0")?;
    let mut out = Vec::new();
    let sys = psp_fw_legacy_bin_desc { fw_version: h.sos.fw_version, offset_bytes: 0, size_bytes: h.sos.offset_bytes };
    push(blob, &mut out, SosKind::SysDrv, &sys, "sos.offset_bytes (SYS_DRV size)")?;
    push(blob, &mut out, SosKind::Sos, &h.sos, "sos")?;
    match minor {
        1 => {
            let h: psp_firmware_header_v1_1 = blob.header("psp_firmware_header_v1_1")?;
            push(blob, &mut out, SosKind::Toc, &h.toc, "toc")?;
            push(blob, &mut out, SosKind::Kdb, &h.kdb, "kdb")?;
        }
        2 => {
            let h: psp_firmware_header_v1_1 = blob.header("psp_firmware_header_v1_2")?;
            push(blob, &mut out, SosKind::Kdb, &h.kdb, "kdb")?;
        }
        3 => {
            let h: psp_firmware_header_v1_3 = blob.header("psp_firmware_header_v1_3")?;
            push(blob, &mut out, SosKind::Toc, &h.v1_1.toc, "toc")?;
            push(blob, &mut out, SosKind::Kdb, &h.v1_1.kdb, "kdb")?;
            push(blob, &mut out, SosKind::Spl, &h.spl, "spl")?;
            push(blob, &mut out, SosKind::Rl, &h.rl, "rl")?;
        }
        0 => {}
        _ => return Err(blob.unknown_version("PSP SOS", "1.0-1.3, 2.0, 2.1")),
    }
    Ok(out)
}

/// v2.x: `psp_fw_bin_count` descriptors; v2.1 lists the primary set before `psp_aux_fw_bin_index`
/// more (the kernel loads `count − aux_index` of them when no aux SOS is needed).
fn v2(blob: &Blob, minor: u16) -> Result<Vec<SosComponent>> {
    let (count, first_desc) = match minor {
        0 => (blob.header::<psp_firmware_header_v2_0>("psp_firmware_header_v2_0")?.psp_fw_bin_count, 36),
        1 => {
            let h: psp_firmware_header_v2_1 = blob.header("psp_firmware_header_v2_1")?;
            let n = h.psp_fw_bin_count.checked_sub(h.psp_aux_fw_bin_index).ok_or_else(|| {
                blob.bad(format!(
                    "psp_aux_fw_bin_index {} > psp_fw_bin_count {}",
                    h.psp_aux_fw_bin_index, h.psp_fw_bin_count
                ))
            })?;
            if h.psp_fw_bin_count >= UCODE_MAX_PSP_PACKAGING {
                return Err(blob.bad(format!("psp_fw_bin_count {} ≥ {UCODE_MAX_PSP_PACKAGING}", h.psp_fw_bin_count)));
            }
            (n, 40)
        }
        _ => return Err(blob.unknown_version("PSP SOS", "1.0-1.3, 2.0, 2.1")),
    };
    if count >= UCODE_MAX_PSP_PACKAGING {
        return Err(blob.bad(format!("psp_fw_bin_count {count} ≥ {UCODE_MAX_PSP_PACKAGING}")));
    }
    let mut out = Vec::new();
    for i in 0..count as usize {
        let what = format!("psp_fw_bin[{i}]");
        let d: psp_fw_bin_desc = raw::read(blob.bytes, first_desc + 16 * i, blob.name, &what)?;
        let Some(kind) = SosKind::from_psp_fw_type(d.fw_type) else { continue };
        let legacy =
            psp_fw_legacy_bin_desc { fw_version: d.fw_version, offset_bytes: d.offset_bytes, size_bytes: d.size_bytes };
        push(blob, &mut out, kind, &legacy, &what)?;
    }
    Ok(out)
}
