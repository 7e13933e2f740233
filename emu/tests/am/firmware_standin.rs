//! Stand-in firmware (`emu::am::firmware_standin`): every file an emulated chip needs exists,
//! parses with the driver's firmware module, and cuts into the payload sequence the real files
//! of that chip give.

use baregpu_drivers::amd::am::firmware::psp::SosKind;
use baregpu_drivers::amd::am::firmware::{check_file, ChipFirmware, FirmwareSource, GfxFwType};
use baregpu_emu::am::firmware_standin::{chip_versions, standin_blob, StandinSource, STANDIN_MARK};
use baregpu_emu::am::layout::Layout;

fn load(arch: &str) -> ChipFirmware {
    let layout = Layout::for_arch(arch).unwrap();
    ChipFirmware::load(chip_versions(&layout), &StandinSource::only(&layout)).unwrap_or_else(|e| panic!("{arch}: {e}"))
}

#[test]
fn every_needed_file_has_a_stand_in_that_parses() {
    for arch in Layout::ARCHS {
        let v = chip_versions(&Layout::for_arch(arch).unwrap());
        for name in v.blob_names() {
            let blob = standin_blob(&v, &name).unwrap_or_else(|| panic!("{arch}: no stand-in for {name}"));
            let parts = check_file(&name, &blob).unwrap_or_else(|e| panic!("{e}"));
            assert!(!parts.is_empty(), "{name}");
            assert_eq!(standin_blob(&v, &name), Some(blob), "{name} is deterministic");
        }
        assert_eq!(standin_blob(&v, "nonexistent.bin"), None);
    }
}

#[test]
fn gfx1100_stand_ins_cut_like_the_real_files() {
    let fw = load("gfx1100");
    let kinds: Vec<SosKind> = fw.bootloader.iter().map(|s| s.kind).collect();
    assert_eq!(kinds, [SosKind::Kdb, SosKind::Spl, SosKind::SysDrv, SosKind::Sos]);
    assert!(fw.toc.is_some() && fw.reg_list.is_none());
    assert_eq!(fw.smu.as_ref().map(|p| p.fw_type), Some(GfxFwType::SMU));
    let types: Vec<GfxFwType> = fw.ip_fw.iter().map(|p| p.fw_type).collect();
    use GfxFwType as T;
    assert_eq!(
        types,
        [
            T::SDMA_UCODE_TH0,
            T::SDMA_UCODE_TH1,
            T::RS64_PFP,
            T::RS64_PFP_P0_STACK,
            T::RS64_ME,
            T::RS64_ME_P0_STACK,
            T::RS64_MEC,
            T::RS64_MEC_P0_STACK,
            T::IMU_I,
            T::IMU_D,
            T::RLC_RESTORE_LIST_SRM_CNTL,
            T::RLC_RESTORE_LIST_GPM_MEM,
            T::RLC_RESTORE_LIST_SRM_MEM,
            T::RLC_IRAM,
            T::RLC_DRAM_BOOT,
            T::RLC_P,
            T::RLC_V,
            T::RLC_G
        ]
    );
    assert_eq!(fw.mec_ucode_start_addr, Some(0x7_0000_0000_3000));
    for p in fw.load_ip_fw_order() {
        assert!(p.data.starts_with(STANDIN_MARK), "{} {}", p.file, p.part);
    }
}

#[test]
fn gfx942_stand_ins_cut_like_gfx9_firmware() {
    let fw = load("gfx942");
    assert!(fw.smu.is_none());
    let types: Vec<GfxFwType> = fw.ip_fw.iter().map(|p| p.fw_type).collect();
    use GfxFwType as T;
    assert_eq!(
        types,
        [
            T::P2S_TABLE,
            T::SDMA0,
            T::SDMA1,
            T::SDMA2,
            T::SDMA3,
            T::CP_MEC,
            T::CP_MEC_ME1,
            T::RLC_RESTORE_LIST_SRM_CNTL,
            T::RLC_RESTORE_LIST_GPM_MEM,
            T::RLC_RESTORE_LIST_SRM_MEM,
            T::RLC_G
        ]
    );
    assert_eq!(fw.reg_list.as_ref().map(|p| p.fw_type), Some(T::REG_LIST));
    assert_eq!(fw.mec_ucode_start_addr, None);
    let names: Vec<&str> = fw.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["psp_13_0_6_sos.bin", "smu_13_0_6.bin", "sdma_4_4_2.bin", "gc_9_4_3_mec.bin", "gc_9_4_3_rlc.bin"]
    );
}

/// With the real directory first, installed files win and missing ones fall back.
#[test]
fn real_files_win_over_stand_ins() {
    let src = StandinSource::for_layout(&Layout::for_arch("gfx1100").unwrap());
    let real = std::fs::read("/lib/firmware/amdgpu/gc_11_0_0_mec.bin");
    let got = src.load("gc_11_0_0_mec.bin").unwrap();
    match real {
        Ok(r) => assert_eq!(got, r),
        Err(_) => assert!(got[0x100..].starts_with(STANDIN_MARK)),
    }
    let gfx942 = StandinSource::for_layout(&Layout::for_arch("gfx942").unwrap());
    if std::fs::metadata("/lib/firmware/amdgpu/gc_9_4_3_mec.bin").is_err() {
        assert!(gfx942.load("gc_9_4_3_mec.bin").unwrap()[0x100..].starts_with(STANDIN_MARK));
    }
    assert!(src.load("gc_12_0_0_mec.bin").is_err());
}

/// Truncated stand-ins are errors naming the file, never panics.
#[test]
fn truncated_stand_ins_are_errors() {
    for arch in Layout::ARCHS {
        let v = chip_versions(&Layout::for_arch(arch).unwrap());
        for name in v.blob_names() {
            let blob = standin_blob(&v, &name).unwrap();
            for cut in (0..blob.len()).step_by(7) {
                let e = check_file(&name, &blob[..cut]).expect_err(&format!("{name} cut at {cut}"));
                assert!(e.to_string().contains(&name), "{e}");
            }
        }
    }
}
