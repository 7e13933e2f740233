//! The emulated chips' discovery tables, written by `emu::am::tables` and read back by the
//! driver's parser (`drivers::amd::am::discovery`): round trips, and damaged tables that must give
//! one `Malformed` error rather than a panic.

use baregpu_drivers::amd::am::discovery::{hw_id, Discovery, GcInfo, IpVersion, DISCOVERY_TMR_SIZE};
use baregpu_drivers::Error;
use baregpu_emu::am::layout::Layout;
use baregpu_emu::am::tables::discovery_table;

fn parsed(arch: &str) -> (Layout, Vec<u8>, Discovery) {
    let layout = Layout::for_arch(arch).unwrap();
    let bin = discovery_table(&layout);
    let d = Discovery::parse(&bin).unwrap_or_else(|e| panic!("{arch}: {e}"));
    (layout, bin, d)
}

#[test]
fn every_layout_round_trips_through_the_parser() {
    for arch in Layout::ARCHS {
        let (layout, bin, d) = parsed(arch);
        assert!(bin.len() <= DISCOVERY_TMR_SIZE, "{arch}: {} bytes", bin.len());
        assert_eq!(d.ips.len(), layout.ips.len(), "{arch}");
        for e in &layout.ips {
            let ip = d.require(e.hw_id, e.instance).unwrap();
            assert_eq!(ip.version, e.version, "{arch} hw_id {} #{}", e.hw_id, e.instance);
            assert_eq!(ip.bases, e.bases, "{arch} hw_id {} #{}", e.hw_id, e.instance);
        }
        assert!(d.harvest.is_empty());
    }
}

#[test]
fn gfx1100_is_navi31_like() {
    let (layout, _, d) = parsed("gfx1100");
    assert_eq!(d.version(hw_id::GC), Some(IpVersion::new(11, 0, 0)));
    assert_eq!(d.version(hw_id::MMHUB), Some(IpVersion::new(3, 0, 0)));
    assert_eq!(d.version(hw_id::OSSSYS), Some(IpVersion::new(6, 0, 0)));
    assert_eq!(d.version(hw_id::MP0), Some(IpVersion::new(13, 0, 0)));
    assert_eq!(d.version(hw_id::MP1), Some(IpVersion::new(13, 0, 0)));
    assert_eq!(d.version(hw_id::SDMA0), Some(IpVersion::new(6, 0, 0)));
    assert_eq!(d.version(hw_id::SDMA1), Some(IpVersion::new(6, 0, 0)));
    assert_eq!(d.version(hw_id::NBIF), Some(IpVersion::new(4, 3, 0)));
    assert_eq!(d.version(hw_id::HDP), Some(IpVersion::new(6, 0, 0)));
    assert_eq!(d.base(hw_id::GC, 0, 1), Some(0xA000));
    assert_eq!(d.table_version, 4);
    // RCC_CONFIG_MEMSIZE is NBIO segment 2 + 0xC3: the dword 0xDE3 the boot reads first.
    let memsize = baregpu_autogen::amd::regs::nbio_4_3_0::regRCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE;
    assert_eq!(layout.reg_addr(hw_id::NBIF, 0, &memsize), Some(0xDE3));
    match d.gc_info.unwrap() {
        g @ GcInfo::V1 { .. } => {
            assert_eq!((g.num_se(), g.num_sh_per_se(), g.num_cu_per_sh()), (6, 2, 8));
            assert_eq!((g.wave_size(), g.lds_size()), (32, 64));
        }
        g => panic!("gfx1100 gc_info {g:?}"),
    }
}

#[test]
fn gfx942_has_8_xccs_16_sdmas_and_64_bit_bases() {
    let (layout, bin, d) = parsed("gfx942");
    assert_eq!(d.instances(hw_id::GC), (0..8).collect::<Vec<u8>>());
    assert_eq!(d.instances(hw_id::SDMA0), (0..16).collect::<Vec<u8>>());
    assert_eq!(d.instances(hw_id::MMHUB), (0..4).collect::<Vec<u8>>());
    assert_eq!(d.version(hw_id::GC), Some(IpVersion::new(9, 4, 3)));
    assert_eq!(d.version(hw_id::MMHUB), Some(IpVersion::new(1, 8, 0)));
    assert_eq!(d.version(hw_id::OSSSYS), Some(IpVersion::new(4, 4, 2)));
    assert_eq!(d.version(hw_id::MP0), Some(IpVersion::new(13, 0, 6)));
    assert_eq!(d.version(hw_id::SDMA0), Some(IpVersion::new(4, 4, 2)));
    assert_eq!(d.version(hw_id::NBIF), Some(IpVersion::new(7, 9, 0)));
    assert_eq!(d.version(hw_id::HDP), Some(IpVersion::new(4, 4, 2)));
    // The AID bits above bit 31 are dropped as the kernel drops them.
    assert_eq!(d.base(hw_id::GC, 7, 0), Some(0x2000 + 7 * 0x10000));
    assert_eq!(layout.ip(hw_id::GC, 7).unwrap().aid, 3);
    assert!(bin.windows(8).any(|w| w == (0x7_2000u64 | 3 << 32).to_le_bytes()), "64-bit base with AID bits");
    match d.gc_info.unwrap() {
        g @ GcInfo::V2 { minor: 1, .. } => assert_eq!((g.num_se(), g.num_cu_per_sh(), g.wave_size()), (4, 10, 64)),
        g => panic!("gfx942 gc_info {g:?}"),
    }
}

/// Register apertures of different blocks must not overlap: the emulator routes an MMIO dword
/// to the one block whose aperture holds it.
#[test]
fn gfx942_xcc_and_aid_apertures_do_not_overlap() {
    let layout = Layout::for_arch("gfx942").unwrap();
    // (start, end) of the register ranges the autogen tables use, per segment.
    let gc = [(0x0000u32, 0x12b6u32), (0x2000, 0x5e17)];
    let mut spans = Vec::new();
    for x in 0..8u8 {
        for (seg, (lo, hi)) in gc.iter().enumerate() {
            let b = layout.bases(hw_id::GC, x)[seg];
            spans.push((b + lo, b + hi, format!("GC{x}.{seg}")));
        }
    }
    for s in 0..16u8 {
        let b = layout.bases(hw_id::SDMA0, s)[0];
        spans.push((b, b + 0x123, format!("SDMA{s}")));
    }
    for m in 0..4u8 {
        let b = layout.bases(hw_id::MMHUB, m)[0];
        spans.push((b, b + 0xd90, format!("MMHUB{m}")));
    }
    spans.sort();
    for w in spans.windows(2) {
        assert!(w[0].1 < w[1].0, "{} overlaps {}", w[0].2, w[1].2);
    }
    assert!(spans.last().unwrap().1 < 0x8_0000, "beyond a 2 MiB BAR5");
}

fn malformed(bin: &[u8]) -> String {
    match Discovery::parse(bin) {
        Err(e @ Error::Malformed { .. }) => e.to_string(),
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[test]
fn damaged_tables_are_malformed_errors() {
    let (_, bin, _) = parsed("gfx1100");
    assert!(malformed(&bin[..bin.len() - 1]).contains("binary_size"));
    assert!(malformed(&[]).contains("binary_header"));
    let mut b = bin.clone();
    b[0] ^= 1;
    assert!(malformed(&b).contains("signature"));
    let mut b = bin.clone();
    *b.last_mut().unwrap() ^= 0x40;
    assert!(malformed(&b).contains("binary checksum"));
}

/// Fix the IP table's and the binary's checksums after editing, so that the edit reaches the
/// checks behind them.
fn reseal(b: &mut [u8]) {
    use baregpu_drivers::amd::am::discovery::BINARY_CHECKSUM_START;
    use baregpu_drivers::amd::am::raw::byte_sum16;
    let le16 = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]) as usize;
    let size = le16(b, 10).min(b.len());
    let ip_off = le16(b, 12);
    if ip_off + 8 <= size {
        let end = (ip_off + le16(b, ip_off + 6)).min(size);
        let sum = byte_sum16(&b[ip_off..end]);
        b[14..16].copy_from_slice(&sum.to_le_bytes());
    }
    let sum = byte_sum16(&b[BINARY_CHECKSUM_START.min(size)..size]);
    b[8..10].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn inconsistent_tables_are_malformed_errors_not_panics() {
    let (_, bin, _) = parsed("gfx942");
    let ip_off = u16::from_le_bytes([bin[12], bin[13]]) as usize;
    // A data-table byte changed: the IP table's own checksum catches it.
    let mut b = bin.clone();
    b[ip_off + 90] ^= 1;
    let sum =
        baregpu_drivers::amd::am::raw::byte_sum16(&b[baregpu_drivers::amd::am::discovery::BINARY_CHECKSUM_START..]);
    b[8..10].copy_from_slice(&sum.to_le_bytes());
    assert!(malformed(&b).contains("IP discovery data table checksum"));
    // A die header that says it is another die.
    let mut b = bin.clone();
    let die_off = u16::from_le_bytes([b[ip_off + 16], b[ip_off + 17]]) as usize;
    b[die_off] = 1;
    reseal(&mut b);
    assert!(malformed(&b).contains("die_id 1"));
    // More IPs than the table holds.
    let mut b = bin.clone();
    b[die_off + 2..die_off + 4].copy_from_slice(&0x7fffu16.to_le_bytes());
    reseal(&mut b);
    assert!(malformed(&b).contains("runs past the end"));
    // Every single-byte corruption and every truncation: an error or a table, never a panic.
    for i in 0..bin.len() {
        for x in [0x01u8, 0x80, 0xff] {
            let mut b = bin.clone();
            b[i] ^= x;
            reseal(&mut b);
            let _ = Discovery::parse(&b);
        }
        let _ = Discovery::parse(&bin[..i]);
    }
}

#[test]
fn a_harvest_table_round_trips() {
    let mut layout = Layout::for_arch("gfx942").unwrap();
    layout.harvest = vec![(hw_id::GC, 7), (hw_id::SDMA0, 15)];
    let d = Discovery::parse(&discovery_table(&layout)).unwrap();
    assert!(d.is_harvested(hw_id::GC, 7) && d.is_harvested(hw_id::SDMA0, 15));
    assert!(!d.is_harvested(hw_id::GC, 0));
    assert_eq!(d.harvest.len(), 2);
}
