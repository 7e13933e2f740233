//! The AM firmware parser on the real amdgpu files installed in /lib/firmware/amdgpu (Debian
//! `firmware-amd-graphics` 20230210-5; `.ci/run` installs it). Expected header versions, sizes
//! and components were read from the files independently of this parser (a struct-unpacking
//! script over `amdgpu_ucode.h`). With `CI=true` a missing file fails the test; elsewhere the
//! test says what it skipped.
//!
//! Also: truncations and corrupted header fields of the real files give `Malformed` errors,
//! never a panic.

use baregpu_drivers::amd::am::discovery::IpVersion;
use baregpu_drivers::amd::am::firmware::psp::{Sos, SosKind};
use baregpu_drivers::amd::am::firmware::source::DEFAULT_DIR;
use baregpu_drivers::amd::am::firmware::{check_file, Blob, ChipFirmware, ChipVersions, DirSource, GfxFwType};
use baregpu_drivers::Error;
use std::path::Path;

/// The gfx1100 files and the older GFX9 (aldebaran, MI200) files whose v1 headers GC 9.4.3
/// shares; the gc_9_4_3/psp_13_0_6 files are not in Debian 20230210.
const GFX1100_FILES: [&str; 8] = [
    "psp_13_0_0_sos.bin",
    "smu_13_0_0.bin",
    "sdma_6_0_0.bin",
    "gc_11_0_0_pfp.bin",
    "gc_11_0_0_me.bin",
    "gc_11_0_0_mec.bin",
    "gc_11_0_0_imu.bin",
    "gc_11_0_0_rlc.bin",
];
const GFX9_FILES: [&str; 5] =
    ["aldebaran_sos.bin", "aldebaran_smc.bin", "aldebaran_sdma.bin", "aldebaran_mec.bin", "aldebaran_rlc.bin"];

/// The file, or `None` (with a note) when it is absent outside CI. In CI its absence fails.
fn real(name: &str) -> Option<Vec<u8>> {
    let path = Path::new(DEFAULT_DIR).join(name);
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("{}: {e}; CI installs firmware-amd-graphics (non-free-firmware) in .ci/run", path.display());
            }
            eprintln!("skipped: {} ({e})", path.display());
            None
        }
    }
}

fn all_present(names: &[&str]) -> bool {
    names.iter().all(|n| real(n).is_some())
}

const GFX1100: ChipVersions = ChipVersions {
    gc: IpVersion::new(11, 0, 0),
    mp0: IpVersion::new(13, 0, 0),
    mp1: IpVersion::new(13, 0, 0),
    sdma: IpVersion::new(6, 0, 0),
};

#[test]
fn gfx1100_needs_these_files() {
    assert_eq!(GFX1100.blob_names(), GFX1100_FILES.map(String::from).to_vec());
}

#[test]
fn gfx1100_real_firmware_loads_in_psp_order() {
    if !all_present(&GFX1100_FILES) {
        return;
    }
    let fw = ChipFirmware::load(GFX1100, &DirSource::system()).unwrap();
    let boot: Vec<(u32, SosKind, usize)> = fw.bootloader.iter().map(|s| (s.cmd, s.kind, s.data.len())).collect();
    assert_eq!(
        boot,
        [
            (0x8_0000, SosKind::Kdb, 0x1700),
            (0x1000_0000, SosKind::Spl, 0x2a0),
            (0x1_0000, SosKind::SysDrv, 0x26790),
            (0x2_0000, SosKind::Sos, 0x18380)
        ]
    );
    assert_eq!(fw.bootloader[3].fw_version, 0x310025);
    assert_eq!(fw.toc.as_ref().map(Vec::len), Some(0x900));
    assert_eq!(fw.reg_list, None, "GC 11 autoloads the RLC instead");
    let smu = fw.smu.as_ref().unwrap();
    assert_eq!((smu.fw_type, smu.data.len()), (GfxFwType::SMU, 261632));
    let got: Vec<(GfxFwType, usize)> = fw.ip_fw.iter().map(|p| (p.fw_type, p.data.len())).collect();
    let want = [
        (GfxFwType::SDMA_UCODE_TH0, 17408),
        (GfxFwType::SDMA_UCODE_TH1, 16896),
        (GfxFwType::RS64_PFP, 0x10a60),
        (GfxFwType::RS64_PFP_P0_STACK, 0x22000),
        (GfxFwType::RS64_ME, 0xc2d0),
        (GfxFwType::RS64_ME_P0_STACK, 0x22000),
        (GfxFwType::RS64_MEC, 0x41520),
        (GfxFwType::RS64_MEC_P0_STACK, 0x22000),
        (GfxFwType::IMU_I, 66048),
        (GfxFwType::IMU_D, 66048),
        (GfxFwType::RLC_RESTORE_LIST_GPM_MEM, 0xa00),
        (GfxFwType::RLC_RESTORE_LIST_SRM_MEM, 0x8da0),
        (GfxFwType::RLC_IRAM, 0x10200),
        (GfxFwType::RLC_DRAM_BOOT, 0x8200),
        (GfxFwType::RLC_P, 0x2200),
        (GfxFwType::RLC_V, 0x3200),
        (GfxFwType::RLC_G, 25088),
    ];
    assert_eq!(got, want);
    // The SDMA control thread starts at ctl_ucode_offset (17664) of the file.
    let sdma = std::fs::read(Path::new(DEFAULT_DIR).join("sdma_6_0_0.bin")).unwrap();
    assert_eq!(fw.ip_fw[1].data, sdma[17664..17664 + 16896]);
    assert_eq!(fw.mec_ucode_start_addr, Some(0x7_0000_0000_3000));
    let versions: Vec<(&str, (u16, u16), u32)> =
        fw.files.iter().map(|f| (f.name.as_str(), f.header_version, f.ucode_version)).collect();
    assert_eq!(
        versions,
        [
            ("psp_13_0_0_sos.bin", (2, 0), 0x310025),
            ("smu_13_0_0.bin", (2, 1), 0x4e4b00),
            ("sdma_6_0_0.bin", (2, 0), 0x13),
            ("gc_11_0_0_pfp.bin", (2, 0), 0x5f5),
            ("gc_11_0_0_me.bin", (2, 0), 0x5ce),
            ("gc_11_0_0_mec.bin", (2, 0), 0x1ee),
            ("gc_11_0_0_imu.bin", (1, 0), 0xb1f3600),
            ("gc_11_0_0_rlc.bin", (2, 3), 0x6e),
        ]
    );
}

#[test]
fn smu_13_0_0_lists_six_pptables() {
    let Some(b) = real("smu_13_0_0.bin") else { return };
    let blob = Blob::parse("smu_13_0_0.bin", &b).unwrap();
    let smu = baregpu_drivers::amd::am::firmware::smu::Smu::parse(&blob).unwrap();
    assert_eq!(smu.ucode_start_addr, 131072);
    let ids: Vec<u32> = smu.pptables.iter().map(|p| p.0).collect();
    assert_eq!(ids, [0xe50, 0x8f21, 0xe63, 0x8fdf, 0xe83, 0x911f]);
    assert_eq!(smu.pptable(0xe50).map(|s| (s.offset, s.len)), Some((0x3ff48, 0x12c4)));
}

/// GFX9's header versions (v1 SOS, F32 MEC with jump table, v1 SDMA, RLC v2.1) on MI200 files.
#[test]
fn gfx9_header_versions_on_aldebaran_files() {
    if !all_present(&GFX9_FILES) {
        return;
    }
    let read = |n: &str| std::fs::read(Path::new(DEFAULT_DIR).join(n)).unwrap();
    let sos_bytes = read("aldebaran_sos.bin");
    let sos = Sos::parse(&Blob::parse("aldebaran_sos.bin", &sos_bytes).unwrap()).unwrap();
    assert_eq!(sos.header_version, (1, 3));
    let comps: Vec<(SosKind, usize)> = sos.components.iter().map(|c| (c.kind, c.span.len)).collect();
    assert_eq!(
        comps,
        [(SosKind::SysDrv, 0x1e890), (SosKind::Sos, 0x14450), (SosKind::Kdb, 0xe30), (SosKind::Rl, 0x15c0)]
    );
    assert_eq!(sos.component(SosKind::Rl).unwrap().span.offset, 0x100 + 0x33b10);
    let labels = |n: &str| -> Vec<(String, usize)> {
        check_file(n, &read(n)).unwrap().into_iter().map(|(l, s)| (l, s.len)).collect()
    };
    assert_eq!(
        labels("aldebaran_mec.bin"),
        [
            ("MEC code (GFX_FW_TYPE_CP_MEC)".to_string(), 0x413a0),
            ("MEC jump table (GFX_FW_TYPE_CP_MEC_ME1)".to_string(), 0x480)
        ]
    );
    assert_eq!(labels("aldebaran_sdma.bin"), [("SDMA ucode (GFX_FW_TYPE_SDMA0)".to_string(), 34048)]);
    let rlc: Vec<usize> = labels("aldebaran_rlc.bin").iter().map(|l| l.1).collect();
    assert_eq!(rlc, [0x360, 0x700, 0x36f8, 17152]);
    assert_eq!(labels("aldebaran_smc.bin").len(), 1, "v2.1 with no pptables");
}

fn assert_malformed(name: &str, bytes: &[u8], field: &str) {
    match check_file(name, bytes) {
        Err(e @ Error::Malformed { .. }) => {
            let s = e.to_string();
            assert!(s.contains(name) && s.contains(field), "{s} (wanted {field})");
        }
        other => panic!("{name}: expected Malformed naming {field}, got {other:?}"),
    }
}

fn set32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn corrupted_fields_of_real_files_name_the_field() {
    let Some(mec) = real("gc_11_0_0_mec.bin") else { return };
    let mut b = mec.clone();
    set32(&mut b, 48, 0xFFFF_FF00); // data_offset_bytes
    assert_malformed("gc_11_0_0_mec.bin", &b, "data_offset_bytes");
    let mut b = mec.clone();
    set32(&mut b, 20, mec.len() as u32); // ucode_size_bytes past the end
    assert_malformed("gc_11_0_0_mec.bin", &b, "ucode_size_bytes");
    assert_malformed("gc_11_0_0_mec.bin", &mec[..mec.len() - 1], "size_bytes");
    let mut b = mec.clone();
    b[8] = 7; // header_version_major
    assert_malformed("gc_11_0_0_mec.bin", &b, "header version 7.0");

    let Some(sos) = real("psp_13_0_0_sos.bin") else { return };
    let mut b = sos.clone();
    set32(&mut b, 36 + 16 * 5 + 12, 0x10_0000); // psp_fw_bin[5].size_bytes
    assert_malformed("psp_13_0_0_sos.bin", &b, "psp_fw_bin[5]");
    let mut b = sos.clone();
    set32(&mut b, 32, 1000); // psp_fw_bin_count
    assert_malformed("psp_13_0_0_sos.bin", &b, "psp_fw_bin_count");

    let Some(rlc) = real("gc_11_0_0_rlc.bin") else { return };
    let mut b = rlc.clone();
    set32(&mut b, 32 + 4 * 42, 0xFFFF_FFF0); // rlcv_ucode_offset_bytes
    assert_malformed("gc_11_0_0_rlc.bin", &b, "rlcv_ucode");
    let mut b = rlc.clone();
    set32(&mut b, 4, 100); // header_size_bytes shorter than v2.3's header
    assert_malformed("gc_11_0_0_rlc.bin", &b, "header_size_bytes");
}

/// Every truncation point in the headers (and a spread over the payload), and every header
/// dword set to values that break bounds: errors, never panics.
#[test]
fn truncated_and_corrupted_real_files_never_panic() {
    for name in GFX1100_FILES.iter().chain(GFX9_FILES.iter()) {
        let Some(bytes) = real(name) else { continue };
        check_file(name, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let cuts = (0..400.min(bytes.len())).chain((0..bytes.len()).step_by(bytes.len() / 64 + 1));
        for cut in cuts {
            assert!(check_file(name, &bytes[..cut]).is_err() || cut >= bytes.len() - 1, "{name} cut at {cut} parsed");
        }
        for at in (0..256.min(bytes.len())).step_by(4) {
            for v in [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, bytes.len() as u32, bytes.len() as u32 + 1] {
                let mut b = bytes.clone();
                set32(&mut b, at, v);
                let _ = check_file(name, &b);
            }
        }
    }
}

/// The installed gfx1100 files are the Debian release we know by SHA-256; a pinned source
/// refuses a changed copy and names the file.
#[test]
fn real_files_are_known_by_sha256_and_a_pinned_source_refuses_a_changed_one() {
    use baregpu_drivers::amd::am::firmware::known::{identify, DEBIAN_20230210};
    if !all_present(&GFX1100_FILES) {
        return;
    }
    let fw = ChipFirmware::load(GFX1100, &DirSource::system().pinned()).unwrap();
    for f in &fw.files {
        assert_eq!(f.known_release, Some(DEBIAN_20230210), "{}", f.name);
    }
    let dir = tempfile::tempdir().unwrap();
    for name in GFX1100_FILES {
        let mut b = real(name).unwrap();
        if name == "gc_11_0_0_rlc.bin" {
            let last = b.len() - 1;
            b[last] ^= 1;
            assert!(identify(name, &b).is_none());
        }
        std::fs::write(dir.path().join(name), b).unwrap();
    }
    let e = ChipFirmware::load(GFX1100, &DirSource::new(dir.path()).pinned()).unwrap_err().to_string();
    assert!(e.contains("gc_11_0_0_rlc.bin") && e.contains("sha256"), "{e}");
    let unpinned = ChipFirmware::load(GFX1100, &DirSource::new(dir.path())).unwrap();
    assert_eq!(unpinned.files.last().unwrap().known_release, None);
}
