//! The firmware a chip needs, named from its IP versions (discovery), parsed, and cut into the
//! payloads the boot hands to the PSP, in the order amd.md §7.4 (tinygrad's AM) and the kernel's
//! `psp_load_non_psp_fw` load them: the SOS components through the bootloader, the TOC, the SMU
//! (GC ≥ 11) before `SETUP_TMR`, then SDMA, the command processors, IMU and RLC (RLC_G last,
//! followed by `AUTOLOAD_RLC` on GC ≥ 11), and on GFX9 the P2S table first and the register
//! list (`REG_LIST`, the SOS's RL component) last.

use super::fw_type::GfxFwType;
use super::gfx::{CpEngine, CpFirmware};
use super::header::Blob;
use super::imu::Imu;
use super::psp::{Sos, SosKind};
use super::rlc::Rlc;
use super::sdma::Sdma;
use super::smu::{Smu, P2S_TABLE_ID_X};
use super::source::FirmwareSource;
use super::Span;
use crate::amd::am::discovery::{hw_id, Discovery, IpVersion};
use crate::{Error, Result};

/// The IP versions that name a chip's firmware files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChipVersions {
    pub gc: IpVersion,
    pub mp0: IpVersion,
    pub mp1: IpVersion,
    pub sdma: IpVersion,
}

impl ChipVersions {
    pub fn from_discovery(d: &Discovery) -> Result<ChipVersions> {
        let v = |id| d.require(id, 0).map(|ip| ip.version);
        Ok(ChipVersions { gc: v(hw_id::GC)?, mp0: v(hw_id::MP0)?, mp1: v(hw_id::MP1)?, sdma: v(hw_id::SDMA0)? })
    }

    /// GC ≥ 11: RS64 command processors, an IMU, and RLC autoload through the PSP.
    pub fn is_soc21(&self) -> bool {
        self.gc.major >= 11
    }

    fn gc_file(&self, part: &str) -> String {
        format!("gc_{}_{part}.bin", self.gc.underscored())
    }

    pub fn sos_file(&self) -> String {
        format!("psp_{}_sos.bin", self.mp0.underscored())
    }

    /// `None` where the chip loads no SMU firmware (MP1 13.0.12).
    pub fn smu_file(&self) -> Option<String> {
        (self.mp1 != IpVersion::new(13, 0, 12)).then(|| format!("smu_{}.bin", self.mp1.underscored()))
    }

    pub fn sdma_file(&self) -> String {
        format!("sdma_{}.bin", self.sdma.underscored())
    }

    /// The command-processor engines with their own file: MEC everywhere, PFP and ME on GC ≥ 11
    /// (GFX9's compute-only parts have no graphics pipe to load).
    pub fn cp_engines(&self) -> &'static [CpEngine] {
        if self.is_soc21() {
            &[CpEngine::Pfp, CpEngine::Me, CpEngine::Mec]
        } else {
            &[CpEngine::Mec]
        }
    }

    /// SDMA firmware types a v1 image is loaded as: one per engine of an AID on SDMA 4.4.2
    /// (`amdgpu_sdma_init_microcode`: `num_inst_per_aid` = 4), else one.
    pub fn sdma_v1_engines(&self) -> usize {
        if self.sdma == IpVersion::new(4, 4, 2) {
            4
        } else {
            1
        }
    }

    /// Every file the chip needs, in load order.
    pub fn blob_names(&self) -> Vec<String> {
        let mut v = vec![self.sos_file()];
        v.extend(self.smu_file());
        v.push(self.sdma_file());
        v.extend(self.cp_engines().iter().map(|e| self.gc_file(e.suffix())));
        if self.is_soc21() {
            v.push(self.gc_file("imu"));
        }
        v.push(self.gc_file("rlc"));
        v
    }
}

/// One image for the PSP's `LOAD_IP_FW`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    pub fw_type: GfxFwType,
    /// The file it was cut from, and which part (`RS64 code`).
    pub file: String,
    pub part: &'static str,
    pub data: Vec<u8>,
}

/// One bootloader step: `C2PMSG_35 = cmd` with `data` in the message buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootloaderStep {
    pub cmd: u32,
    pub kind: SosKind,
    pub fw_version: u32,
    pub data: Vec<u8>,
}

/// What was read from a file (for traces and the closing note).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub name: String,
    pub header_version: (u16, u16),
    pub ucode_version: u32,
    pub size: usize,
    pub sha256: String,
    /// The release of a file we know by its SHA-256 (`known::KNOWN`).
    pub known_release: Option<&'static str>,
}

/// Everything the boot loads, parsed and cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipFirmware {
    pub versions: ChipVersions,
    /// SOS components in the bootloader's order (the SOS last).
    pub bootloader: Vec<BootloaderStep>,
    /// The TOC for `LOAD_TOC`, when the SOS file carries one.
    pub toc: Option<Vec<u8>>,
    /// The SMU image, loaded right after `LOAD_TOC` (GC ≥ 11).
    pub smu: Option<Payload>,
    /// `LOAD_IP_FW` payloads in order.
    pub ip_fw: Vec<Payload>,
    /// GFX9: `LOAD_IP_FW(REG_LIST)` after the rest. GC ≥ 11 sends `AUTOLOAD_RLC` instead.
    pub reg_list: Option<Payload>,
    /// RS64 MEC start address (`CP_MEC_RS64_PRGRM_CNTR_START` = this >> 2), GC ≥ 11.
    pub mec_ucode_start_addr: Option<u64>,
    pub files: Vec<FileInfo>,
}

/// A loaded file with its parsed common header.
struct File {
    name: String,
    bytes: Vec<u8>,
}

impl File {
    fn load(src: &dyn FirmwareSource, name: String) -> Result<File> {
        let bytes = src.load(&name)?;
        Ok(File { name, bytes })
    }

    fn blob(&self) -> Result<Blob<'_>> {
        Blob::parse(&self.name, &self.bytes)
    }

    fn payload(&self, (fw_type, span, part): (GfxFwType, Span, &'static str)) -> Payload {
        Payload { fw_type, file: self.name.clone(), part, data: span.of(&self.bytes).to_vec() }
    }

    fn info(&self, b: &Blob) -> FileInfo {
        FileInfo {
            name: self.name.clone(),
            header_version: b.version(),
            ucode_version: b.common.ucode_version,
            size: self.bytes.len(),
            sha256: super::known::sha256_hex(&self.bytes),
            known_release: super::known::identify(&self.name, &self.bytes).map(|k| k.release),
        }
    }
}

impl ChipFirmware {
    /// Load and parse every file `versions` needs from `src`.
    pub fn load(versions: ChipVersions, src: &dyn FirmwareSource) -> Result<ChipFirmware> {
        let mut fw = ChipFirmware {
            versions,
            bootloader: Vec::new(),
            toc: None,
            smu: None,
            ip_fw: Vec::new(),
            reg_list: None,
            mec_ucode_start_addr: None,
            files: Vec::new(),
        };
        fw.load_sos(src)?;
        if let Some(name) = versions.smu_file() {
            fw.load_smu(src, name)?;
        }
        let f = File::load(src, versions.sdma_file())?;
        let b = f.blob()?;
        fw.ip_fw.extend(Sdma::parse(&b)?.payloads(versions.sdma_v1_engines()).into_iter().map(|p| f.payload(p)));
        fw.files.push(f.info(&b));
        for &engine in versions.cp_engines() {
            let f = File::load(src, versions.gc_file(engine.suffix()))?;
            let b = f.blob()?;
            let cp = CpFirmware::parse(&b)?;
            if engine == CpEngine::Mec {
                fw.mec_ucode_start_addr = cp.ucode_start_addr();
            }
            fw.ip_fw.extend(cp.payloads(engine).into_iter().map(|p| f.payload(p)));
            fw.files.push(f.info(&b));
        }
        if versions.is_soc21() {
            let f = File::load(src, versions.gc_file("imu"))?;
            let b = f.blob()?;
            fw.ip_fw.extend(Imu::parse(&b)?.payloads().into_iter().map(|p| f.payload(p)));
            fw.files.push(f.info(&b));
        }
        let f = File::load(src, versions.gc_file("rlc"))?;
        let b = f.blob()?;
        fw.ip_fw.extend(Rlc::parse(&b)?.parts.into_iter().map(|p| f.payload(p)));
        fw.files.push(f.info(&b));
        Ok(fw)
    }

    fn load_sos(&mut self, src: &dyn FirmwareSource) -> Result<()> {
        let f = File::load(src, self.versions.sos_file())?;
        let b = f.blob()?;
        let sos = Sos::parse(&b)?;
        for (cmd, c) in sos.bootloader_steps() {
            self.bootloader.push(BootloaderStep {
                cmd,
                kind: c.kind,
                fw_version: c.fw_version,
                data: c.span.of(&f.bytes).to_vec(),
            });
        }
        if !self.bootloader.iter().any(|s| s.kind == SosKind::Sos) {
            return Err(b.bad("no SOS component"));
        }
        self.toc = sos.component(SosKind::Toc).map(|c| c.span.of(&f.bytes).to_vec());
        if !self.versions.is_soc21() {
            self.reg_list =
                sos.component(SosKind::Rl).map(|c| f.payload((GfxFwType::REG_LIST, c.span, "register list (RL)")));
        }
        self.files.push(f.info(&b));
        Ok(())
    }

    fn load_smu(&mut self, src: &dyn FirmwareSource, name: String) -> Result<()> {
        let f = File::load(src, name)?;
        let b = f.blob()?;
        let smu = Smu::parse(&b)?;
        if self.versions.is_soc21() {
            self.smu = Some(f.payload((GfxFwType::SMU, smu.ucode, "SMU ucode")));
        } else {
            let span = smu.pptable(P2S_TABLE_ID_X).ok_or_else(|| {
                Error::malformed(
                    &f.name,
                    format!("no P2S table (pptable id {P2S_TABLE_ID_X:#x}) for a discrete GFX9 part"),
                )
            })?;
            self.ip_fw.push(f.payload((GfxFwType::P2S_TABLE, span, "P2S table")));
        }
        self.files.push(f.info(&b));
        Ok(())
    }

    /// Every payload the PSP receives through `LOAD_IP_FW`, in order (SMU, the rest, REG_LIST).
    pub fn load_ip_fw_order(&self) -> impl Iterator<Item = &Payload> {
        self.smu.iter().chain(self.ip_fw.iter()).chain(self.reg_list.iter())
    }
}

/// The kind of a firmware file, from its name (`psp_13_0_0_sos.bin`, `gc_11_0_0_mec.bin`, and
/// the older chip-named files such as `aldebaran_mec.bin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Sos,
    Smu,
    Sdma,
    Cp(CpEngine),
    Imu,
    Rlc,
}

impl FileKind {
    pub fn of_name(name: &str) -> Option<FileKind> {
        let stem = name.strip_suffix(".bin")?;
        let last = stem.rsplit('_').next()?;
        Some(match last {
            "sos" => FileKind::Sos,
            "smc" => FileKind::Smu,
            "sdma" => FileKind::Sdma,
            "pfp" => FileKind::Cp(CpEngine::Pfp),
            "me" => FileKind::Cp(CpEngine::Me),
            "mec" => FileKind::Cp(CpEngine::Mec),
            "imu" => FileKind::Imu,
            "rlc" => FileKind::Rlc,
            _ if stem.starts_with("smu_") => FileKind::Smu,
            _ if stem.starts_with("sdma_") => FileKind::Sdma,
            _ => return None,
        })
    }
}

/// Parse a whole file by the kind its name gives; returns its parts (a label and the checked
/// span), e.g. `RS64 code` or `SOS component Kdb`. For checks of files outside a chip's load
/// (tests, the emulator's own firmware store).
pub fn check_file(name: &str, bytes: &[u8]) -> Result<Vec<(String, Span)>> {
    let kind = FileKind::of_name(name).ok_or_else(|| Error::malformed(name, "not a firmware file name we know"))?;
    let b = Blob::parse(name, bytes)?;
    let parts =
        |v: Vec<(GfxFwType, Span, &'static str)>| v.into_iter().map(|(t, s, p)| (format!("{p} ({t})"), s)).collect();
    Ok(match kind {
        FileKind::Sos => {
            Sos::parse(&b)?.components.iter().map(|c| (format!("SOS component {:?}", c.kind), c.span)).collect()
        }
        FileKind::Smu => {
            let s = Smu::parse(&b)?;
            let mut v = vec![("SMU ucode".to_string(), s.ucode)];
            v.extend(s.pptables.iter().map(|&(id, span)| (format!("pptable {id:#x}"), span)));
            v
        }
        FileKind::Sdma => parts(Sdma::parse(&b)?.payloads(1)),
        FileKind::Cp(e) => parts(CpFirmware::parse(&b)?.payloads(e)),
        FileKind::Imu => parts(Imu::parse(&b)?.payloads()),
        FileKind::Rlc => parts(Rlc::parse(&b)?.parts),
    })
}
