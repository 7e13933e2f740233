//! Stand-in firmware for the emulated PCI GPU: for every file a layout needs, a small blob with
//! valid headers (the drivers' own `amdgpu_ucode.h` structs, the header versions the real files
//! of that chip carry) and deterministic payloads that start with [`STANDIN_MARK`]. The
//! emulated GPU does not run firmware, so any well-formed blob boots it; the driver's parser
//! still reads every header. [`StandinSource`] serves the real file when the directory has it
//! (gfx1100 on Debian 20230210) and the stand-in otherwise (gfx942's are not in that release).

use super::layout::Layout;
use baregpu_drivers::amd::am::discovery::{hw_id, IpVersion};
use baregpu_drivers::amd::am::firmware::gfx::{gfx_firmware_header_v1_0, gfx_firmware_header_v2_0};
use baregpu_drivers::amd::am::firmware::header::common_firmware_header;
use baregpu_drivers::amd::am::firmware::imu::imu_firmware_header_v1_0;
use baregpu_drivers::amd::am::firmware::psp::{psp_firmware_header_v2_0, psp_fw_bin_desc};
use baregpu_drivers::amd::am::firmware::rlc::{rlc_firmware_header_v2_1, rlc_firmware_header_v2_3};
use baregpu_drivers::amd::am::firmware::sdma::{sdma_firmware_header_v1_0, sdma_firmware_header_v2_0};
use baregpu_drivers::amd::am::firmware::smu::{smc_firmware_header_v2_1, smc_soft_pptable_entry, P2S_TABLE_ID_X};
use baregpu_drivers::amd::am::firmware::{ChipVersions, DirSource, FirmwareSource};
use baregpu_drivers::amd::am::raw::{bytes_of, Raw};
use baregpu_drivers::{Error, Result};

/// The first bytes of every stand-in payload, so that a dump or the emulated PSP can tell
/// a stand-in from real firmware.
pub const STANDIN_MARK: &[u8; 16] = b"BAREGPU-STANDIN\0";

/// Where the ucode array starts in a stand-in (as in the real files).
const UCODE_OFFSET: usize = 0x100;

/// The IP versions that name a layout's firmware files.
pub fn chip_versions(layout: &Layout) -> ChipVersions {
    let v = |id| layout.version(id).unwrap_or(IpVersion::new(0, 0, 0));
    ChipVersions { gc: v(hw_id::GC), mp0: v(hw_id::MP0), mp1: v(hw_id::MP1), sdma: v(hw_id::SDMA0) }
}

/// Deterministic payload bytes for `tag`: the mark, the tag, then a xorshift stream seeded by
/// the tag's FNV-1a hash.
fn payload(tag: &str, len: usize) -> Vec<u8> {
    let mut s = tag.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let mut out: Vec<u8> = STANDIN_MARK.iter().chain(tag.as_bytes()).copied().take(len).collect();
    while out.len() < len {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out.push(s as u8);
    }
    out
}

/// A file being assembled: the header struct at 0, the ucode array from [`UCODE_OFFSET`].
struct File {
    bytes: Vec<u8>,
}

impl File {
    fn new() -> File {
        File { bytes: vec![0; UCODE_OFFSET] }
    }

    /// Append a payload; returns its file offset.
    fn add(&mut self, tag: &str, len: usize) -> u32 {
        let at = self.bytes.len();
        self.bytes.extend(payload(tag, len));
        at as u32
    }

    fn add_raw(&mut self, data: &[u8]) -> u32 {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(data);
        at as u32
    }

    /// The common header for a file whose ucode array ends at `ucode_end`.
    fn common(&self, version: (u16, u16), header_size: usize, ucode_end: u32) -> common_firmware_header {
        common_firmware_header {
            size_bytes: self.bytes.len() as u32,
            header_size_bytes: header_size as u32,
            header_version_major: version.0,
            header_version_minor: version.1,
            ucode_version: 0x5741_4E44,
            ucode_size_bytes: ucode_end - UCODE_OFFSET as u32,
            ucode_array_offset_bytes: UCODE_OFFSET as u32,
            ..Default::default()
        }
    }

    /// Write `header` (whose first field is the common header) at 0 and return the file.
    fn finish<T: Raw>(mut self, header: &T) -> Vec<u8> {
        let h = bytes_of(header);
        self.bytes[..h.len()].copy_from_slice(h);
        self.bytes
    }
}

/// PSP SOS v2.0: SYS_DRV, SOS, TOC, KDB, SPL and (GFX9) RL, offsets from the ucode array.
fn sos(v: &ChipVersions) -> Vec<u8> {
    let mut f = File::new();
    let mut kinds =
        vec![(2u32, "SYS_DRV", 0x800), (1, "SOS", 0x800), (4, "TOC", 0x100), (3, "KDB", 0x200), (5, "SPL", 0x80)];
    if !v.is_soc21() {
        kinds.push((6, "RL", 0x100));
    }
    let mut descs = Vec::new();
    for (fw_type, tag, len) in kinds {
        let at = f.add(&format!("{} {tag}", v.sos_file()), len);
        descs.push(psp_fw_bin_desc {
            fw_type,
            fw_version: 0x10,
            offset_bytes: at - UCODE_OFFSET as u32,
            size_bytes: len as u32,
        });
    }
    let end = f.bytes.len() as u32;
    let hs = std::mem::size_of::<psp_firmware_header_v2_0>();
    let h = psp_firmware_header_v2_0 { header: f.common((2, 0), hs, end), psp_fw_bin_count: descs.len() as u32 };
    let mut bytes = f.finish(&h);
    for (i, d) in descs.iter().enumerate() {
        let at = hs + 16 * i;
        bytes[at..at + 16].copy_from_slice(bytes_of(d));
    }
    bytes
}

/// SMC v2.1: the ucode, then (GFX9) one P2S pptable entry and its table.
fn smu(v: &ChipVersions, name: &str) -> Vec<u8> {
    let mut f = File::new();
    let end = f.add(&format!("{name} ucode"), 0x1000) + 0x1000;
    let (count, entry_at) = if v.is_soc21() {
        (0, end)
    } else {
        let entry_at = f.add_raw(&[0; 12]);
        let table = f.add(&format!("{name} P2S"), 0x100);
        let e = smc_soft_pptable_entry { id: P2S_TABLE_ID_X, ppt_offset_bytes: table, ppt_size_bytes: 0x100 };
        f.bytes[entry_at as usize..entry_at as usize + 12].copy_from_slice(bytes_of(&e));
        (1, entry_at)
    };
    let hs = std::mem::size_of::<smc_firmware_header_v2_1>();
    let mut h = smc_firmware_header_v2_1 { pptable_count: count, pptable_entry_offset: entry_at, ..Default::default() };
    h.v1_0.header = f.common((2, 1), hs, end);
    h.v1_0.ucode_start_addr = 0x2_0000;
    f.finish(&h)
}

/// SDMA: v2.0 (TH0 and TH1) on SDMA ≥ 5, v1.0 with a jump table on SDMA 4.
fn sdma(v: &ChipVersions, name: &str) -> Vec<u8> {
    let mut f = File::new();
    if v.sdma.major >= 5 {
        let ctx = f.add(&format!("{name} TH0"), 0x800);
        let ctl = f.add(&format!("{name} TH1"), 0x800);
        let end = ctl + 0x800;
        let hs = std::mem::size_of::<sdma_firmware_header_v2_0>();
        let h = sdma_firmware_header_v2_0 {
            header: f.common((2, 0), hs, end),
            ucode_feature_version: 1,
            ctx_ucode_size_bytes: ctl - ctx,
            ctl_ucode_offset: ctl,
            ctl_ucode_size_bytes: 0x800,
            ..Default::default()
        };
        f.finish(&h)
    } else {
        let end = f.add(&format!("{name} ucode"), 0x800) + 0x800;
        let hs = std::mem::size_of::<sdma_firmware_header_v1_0>();
        let h = sdma_firmware_header_v1_0 {
            header: f.common((1, 0), hs, end),
            ucode_feature_version: 1,
            jt_offset: 0x1e0,
            jt_size: 0x20,
            ..Default::default()
        };
        f.finish(&h)
    }
}

/// The RS64 start address the real gc_11_0_0 PFP/ME/MEC files carry (lo 0x3000, hi 0x70000).
const RS64_START: (u32, u32) = (0x3000, 0x7_0000);

/// PFP/ME/MEC: RS64 v2.0 (code, data) on GC ≥ 11, F32 v1.0 (code then a jump table) on GFX9.
fn cp(v: &ChipVersions, name: &str) -> Vec<u8> {
    let mut f = File::new();
    if v.is_soc21() {
        let code = f.add(&format!("{name} code"), 0x1000);
        let data = f.add(&format!("{name} data"), 0x800);
        let hs = std::mem::size_of::<gfx_firmware_header_v2_0>();
        let h = gfx_firmware_header_v2_0 {
            header: f.common((2, 0), hs, data + 0x800),
            ucode_feature_version: 1,
            ucode_size_bytes: data - code,
            ucode_offset_bytes: code,
            data_size_bytes: 0x800,
            data_offset_bytes: data,
            ucode_start_addr_lo: RS64_START.0,
            ucode_start_addr_hi: RS64_START.1,
        };
        f.finish(&h)
    } else {
        f.add(&format!("{name} code"), 0x1000);
        let jt = f.add(&format!("{name} JT"), 0x80);
        let hs = std::mem::size_of::<gfx_firmware_header_v1_0>();
        let h = gfx_firmware_header_v1_0 {
            header: f.common((1, 0), hs, jt + 0x80),
            ucode_feature_version: 1,
            jt_offset: 0x1000 / 4,
            jt_size: 0x80 / 4,
        };
        f.finish(&h)
    }
}

/// IMU v1.0: IMU_I then IMU_D.
fn imu(name: &str) -> Vec<u8> {
    let mut f = File::new();
    let i = f.add(&format!("{name} IMU_I"), 0x800);
    let d = f.add(&format!("{name} IMU_D"), 0x800);
    let hs = std::mem::size_of::<imu_firmware_header_v1_0>();
    let h = imu_firmware_header_v1_0 {
        header: f.common((1, 0), hs, d + 0x800),
        imu_iram_ucode_size_bytes: d - i,
        imu_iram_ucode_offset_bytes: 0,
        imu_dram_ucode_size_bytes: 0x800,
        imu_dram_ucode_offset_bytes: d - i,
    };
    f.finish(&h)
}

/// RLC: v2.3 on GC ≥ 11 (restore lists, IRAM/DRAM, RLC_P/RLC_V), v2.1 on GFX9 (restore lists).
fn rlc(v: &ChipVersions, name: &str) -> Vec<u8> {
    let mut f = File::new();
    let g_end = f.add(&format!("{name} RLC_G"), 0x800) + 0x800;
    let mut part = |tag: &str, len: u32| (f.add(&format!("{name} {tag}"), len as usize), len);
    let cntl = part("SRM_CNTL", 0x100);
    let gpm = part("GPM_MEM", 0x100);
    let srm = part("SRM_MEM", 0x100);
    let mut h1 = rlc_firmware_header_v2_1 {
        save_restore_list_cntl_offset_bytes: cntl.0,
        save_restore_list_cntl_size_bytes: cntl.1,
        save_restore_list_gpm_offset_bytes: gpm.0,
        save_restore_list_gpm_size_bytes: gpm.1,
        save_restore_list_srm_offset_bytes: srm.0,
        save_restore_list_srm_size_bytes: srm.1,
        ..Default::default()
    };
    h1.v2_0.ucode_feature_version = 1;
    if !v.is_soc21() {
        h1.v2_0.header = f.common((2, 1), std::mem::size_of_val(&h1), g_end);
        return f.finish(&h1);
    }
    let mut part = |tag: &str, len: u32| (f.add(&format!("{name} {tag}"), len as usize), len);
    let (iram, dram, p, vv) = (part("IRAM", 0x200), part("DRAM", 0x200), part("RLC_P", 0x200), part("RLC_V", 0x200));
    let mut h = rlc_firmware_header_v2_3 {
        rlcp_ucode_offset_bytes: p.0,
        rlcp_ucode_size_bytes: p.1,
        rlcv_ucode_offset_bytes: vv.0,
        rlcv_ucode_size_bytes: vv.1,
        ..Default::default()
    };
    h.v2_2.v2_1 = h1;
    (h.v2_2.rlc_iram_ucode_offset_bytes, h.v2_2.rlc_iram_ucode_size_bytes) = iram;
    (h.v2_2.rlc_dram_ucode_offset_bytes, h.v2_2.rlc_dram_ucode_size_bytes) = dram;
    h.v2_2.v2_1.v2_0.header = f.common((2, 3), std::mem::size_of_val(&h), g_end);
    f.finish(&h)
}

/// The stand-in for file `name` of a chip with `versions`; `None` for a name the chip does not
/// need.
pub fn standin_blob(versions: &ChipVersions, name: &str) -> Option<Vec<u8>> {
    let gc = |part: &str| format!("gc_{}_{part}.bin", versions.gc.underscored());
    if name == versions.sos_file() {
        Some(sos(versions))
    } else if versions.smu_file().as_deref() == Some(name) {
        Some(smu(versions, name))
    } else if name == versions.sdma_file() {
        Some(sdma(versions, name))
    } else if versions.cp_engines().iter().any(|e| gc(e.suffix()) == name) {
        Some(cp(versions, name))
    } else if versions.is_soc21() && name == gc("imu") {
        Some(imu(name))
    } else if name == gc("rlc") {
        Some(rlc(versions, name))
    } else {
        None
    }
}

/// Firmware for an emulated chip: the real file from `real` when it exists there, else the
/// stand-in. Other errors of the real source (unreadable, compressed-only) pass through.
pub struct StandinSource {
    pub versions: ChipVersions,
    pub real: Option<DirSource>,
}

impl StandinSource {
    /// Real files from /lib/firmware/amdgpu where present, stand-ins for the rest.
    pub fn for_layout(layout: &Layout) -> StandinSource {
        StandinSource { versions: chip_versions(layout), real: Some(DirSource::system()) }
    }

    /// Stand-ins only (deterministic whatever the machine has installed).
    pub fn only(layout: &Layout) -> StandinSource {
        StandinSource { versions: chip_versions(layout), real: None }
    }
}

impl FirmwareSource for StandinSource {
    fn load(&self, name: &str) -> Result<Vec<u8>> {
        if let Some(real) = &self.real {
            match real.load(name) {
                Err(e) if e.is_not_found() => {}
                other => return other,
            }
        }
        standin_blob(&self.versions, name)
            .ok_or_else(|| Error::Unsupported(format!("{name}: not a firmware file of this emulated chip")))
    }

    fn describe(&self) -> String {
        match &self.real {
            Some(r) => format!("{} (stand-ins for missing files)", r.describe()),
            None => "stand-in firmware".to_string(),
        }
    }
}
