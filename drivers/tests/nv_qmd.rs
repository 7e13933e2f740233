//! QMD layouts (V3 Ampere/Ada, V4 Hopper, V5 Blackwell) and compute/copy method tables, against
//! NVIDIA's class headers (open-gpu-doc c8607fe5 `classes/compute/clc6c0qmd.h`, `clcbc0qmd.h`,
//! `clcec0qmd.h`, `clc6c0.h`, `clcbc0.h`, `classes/dma-copy/clc6b5.h`, `clc8b5.h`).
//!
//! `HEADER_MW` holds, for every field the layouts expose, the header's macro name and its
//! `MW(hi:lo)` text exactly as the header writes it. Each field is then set alone in a zeroed
//! QMD and the test checks that exactly bits lo..=hi changed. With `BAREGPU_OPEN_GPU_DOC` set to
//! an open-gpu-doc checkout (or a directory holding the headers), `header_cross_check` re-reads
//! the headers themselves and compares every entry and method offset.

use baregpu_drivers::nv::methods::{self, compute, copy, ComputeCmds, CopyCmds, COMPUTE_METHODS, COPY_METHODS};
use baregpu_drivers::nv::pushbuf::PushBuffer;
use baregpu_drivers::nv::qmd::{self, Field, LaunchDesc, Qmd, QmdVersion, Release};

/// (version, header name (with `(i)` for indexed macros), the header's MW argument).
const HEADER_MW: &[(QmdVersion, &str, &str)] = &[
    (QmdVersion::V3, "API_VISIBLE_CALL_LIMIT", "378:378"),
    (QmdVersion::V3, "BARRIER_COUNT", "767:763"),
    (QmdVersion::V3, "CONSTANT_BUFFER_ADDR_LOWER(i)", "(1055+(i)*64):(1024+(i)*64)"),
    (QmdVersion::V3, "CONSTANT_BUFFER_ADDR_UPPER(i)", "(1072+(i)*64):(1056+(i)*64)"),
    (QmdVersion::V3, "CONSTANT_BUFFER_INVALIDATE(i)", "(1074+(i)*64):(1074+(i)*64)"),
    (QmdVersion::V3, "CONSTANT_BUFFER_SIZE_SHIFTED4(i)", "(1087+(i)*64):(1075+(i)*64)"),
    (QmdVersion::V3, "CONSTANT_BUFFER_VALID(i)", "(640+(i)*1):(640+(i)*1)"),
    (QmdVersion::V3, "CTA_RASTER_DEPTH", "463:448"),
    (QmdVersion::V3, "CTA_RASTER_HEIGHT", "431:416"),
    (QmdVersion::V3, "CTA_RASTER_WIDTH", "415:384"),
    (QmdVersion::V3, "CTA_THREAD_DIMENSION0", "607:592"),
    (QmdVersion::V3, "CTA_THREAD_DIMENSION1", "623:608"),
    (QmdVersion::V3, "CTA_THREAD_DIMENSION2", "639:624"),
    (QmdVersion::V3, "CWD_MEMBAR_TYPE", "369:368"),
    (QmdVersion::V3, "DEPENDENT_QMD0_ACTION", "515:513"),
    (QmdVersion::V3, "DEPENDENT_QMD0_ENABLE", "512:512"),
    (QmdVersion::V3, "DEPENDENT_QMD0_POINTER", "511:480"),
    (QmdVersion::V3, "DEPENDENT_QMD0_PREFETCH", "516:516"),
    (QmdVersion::V3, "DEPENDENT_QMD1_ACTION", "520:518"),
    (QmdVersion::V3, "DEPENDENT_QMD1_ENABLE", "517:517"),
    (QmdVersion::V3, "DEPENDENT_QMD1_PREFETCH", "521:521"),
    (QmdVersion::V3, "INVALIDATE_INSTRUCTION_CACHE", "190:190"),
    (QmdVersion::V3, "INVALIDATE_SHADER_CONSTANT_CACHE", "191:191"),
    (QmdVersion::V3, "INVALIDATE_SHADER_DATA_CACHE", "189:189"),
    (QmdVersion::V3, "INVALIDATE_TEXTURE_DATA_CACHE", "188:188"),
    (QmdVersion::V3, "INVALIDATE_TEXTURE_HEADER_CACHE", "186:186"),
    (QmdVersion::V3, "INVALIDATE_TEXTURE_SAMPLER_CACHE", "187:187"),
    (QmdVersion::V3, "IS_QUEUE", "136:136"),
    (QmdVersion::V3, "MAX_SM_CONFIG_SHARED_MEM_SIZE", "574:569"),
    (QmdVersion::V3, "MIN_SM_CONFIG_SHARED_MEM_SIZE", "567:562"),
    (QmdVersion::V3, "PROGRAM_ADDRESS_LOWER", "1567:1536"),
    (QmdVersion::V3, "PROGRAM_ADDRESS_UPPER", "1584:1568"),
    (QmdVersion::V3, "PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED", "287:256"),
    (QmdVersion::V3, "PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED", "1640:1632"),
    (QmdVersion::V3, "PROGRAM_PREFETCH_SIZE", "1649:1641"),
    (QmdVersion::V3, "PROGRAM_PREFETCH_TYPE", "1651:1650"),
    (QmdVersion::V3, "QMD_GROUP_ID", "133:128"),
    (QmdVersion::V3, "QMD_MAJOR_VERSION", "583:580"),
    (QmdVersion::V3, "QMD_VERSION", "579:576"),
    (QmdVersion::V3, "REGISTER_COUNT_V", "656:648"),
    (QmdVersion::V3, "RELEASE0_ADDRESS_LOWER", "799:768"),
    (QmdVersion::V3, "RELEASE0_ADDRESS_UPPER", "807:800"),
    (QmdVersion::V3, "RELEASE0_ENABLE", "823:823"),
    (QmdVersion::V3, "RELEASE0_MEMBAR_TYPE", "819:819"),
    (QmdVersion::V3, "RELEASE0_PAYLOAD64B", "829:829"),
    (QmdVersion::V3, "RELEASE0_PAYLOAD_LOWER", "863:832"),
    (QmdVersion::V3, "RELEASE0_PAYLOAD_UPPER", "895:864"),
    (QmdVersion::V3, "RELEASE0_STRUCTURE_SIZE", "831:830"),
    (QmdVersion::V3, "RELEASE1_ADDRESS_LOWER", "927:896"),
    (QmdVersion::V3, "RELEASE1_ADDRESS_UPPER", "935:928"),
    (QmdVersion::V3, "RELEASE1_ENABLE", "951:951"),
    (QmdVersion::V3, "RELEASE1_MEMBAR_TYPE", "947:947"),
    (QmdVersion::V3, "RELEASE1_PAYLOAD64B", "957:957"),
    (QmdVersion::V3, "RELEASE1_PAYLOAD_LOWER", "991:960"),
    (QmdVersion::V3, "RELEASE1_PAYLOAD_UPPER", "1023:992"),
    (QmdVersion::V3, "RELEASE1_STRUCTURE_SIZE", "959:958"),
    (QmdVersion::V3, "RELEASE2_ADDRESS_LOWER", "1695:1664"),
    (QmdVersion::V3, "RELEASE2_ADDRESS_UPPER", "1703:1696"),
    (QmdVersion::V3, "RELEASE2_ENABLE", "1719:1719"),
    (QmdVersion::V3, "RELEASE2_MEMBAR_TYPE", "1715:1715"),
    (QmdVersion::V3, "RELEASE2_PAYLOAD64B", "1725:1725"),
    (QmdVersion::V3, "RELEASE2_PAYLOAD_LOWER", "1759:1728"),
    (QmdVersion::V3, "RELEASE2_PAYLOAD_UPPER", "1791:1760"),
    (QmdVersion::V3, "RELEASE2_STRUCTURE_SIZE", "1727:1726"),
    (QmdVersion::V3, "SAMPLER_INDEX", "382:382"),
    (QmdVersion::V3, "SASS_VERSION", "1663:1656"),
    (QmdVersion::V3, "SHADER_LOCAL_MEMORY_HIGH_SIZE", "1623:1600"),
    (QmdVersion::V3, "SHADER_LOCAL_MEMORY_LOW_SIZE", "759:736"),
    (QmdVersion::V3, "SHARED_MEMORY_SIZE", "561:544"),
    (QmdVersion::V3, "SM_GLOBAL_CACHING_ENABLE", "134:134"),
    (QmdVersion::V3, "TARGET_SM_CONFIG_SHARED_MEM_SIZE", "662:657"),
    (QmdVersion::V4, "API_VISIBLE_CALL_LIMIT", "568:568"),
    (QmdVersion::V4, "BARRIER_COUNT", "1215:1211"),
    (QmdVersion::V4, "CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(i)", "(1567+(i)*64):(1536+(i)*64)"),
    (QmdVersion::V4, "CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6(i)", "(1586+(i)*64):(1568+(i)*64)"),
    (QmdVersion::V4, "CONSTANT_BUFFER_INVALIDATE(i)", "(419+(i)*4):(419+(i)*4)"),
    (QmdVersion::V4, "CONSTANT_BUFFER_SIZE_SHIFTED4(i)", "(1599+(i)*64):(1587+(i)*64)"),
    (QmdVersion::V4, "CONSTANT_BUFFER_VALID(i)", "(416+(i)*4):(416+(i)*4)"),
    (QmdVersion::V4, "CTA_THREAD_DIMENSION0", "1167:1152"),
    (QmdVersion::V4, "CTA_THREAD_DIMENSION1", "1183:1168"),
    (QmdVersion::V4, "CTA_THREAD_DIMENSION2", "1199:1184"),
    (QmdVersion::V4, "CWD_MEMBAR_TYPE", "1137:1136"),
    (QmdVersion::V4, "DEPENDENT_QMD0_POINTER", "479:448"),
    (QmdVersion::V4, "DEPENDENT_QMD1_POINTER", "511:480"),
    (QmdVersion::V4, "DEPENDENT_QMD_ACTION(i)", "(371+(i)*5):(369+(i)*5)"),
    (QmdVersion::V4, "DEPENDENT_QMD_ENABLE(i)", "(368+(i)*5):(368+(i)*5)"),
    (QmdVersion::V4, "DEPENDENT_QMD_PREFETCH(i)", "(372+(i)*5):(372+(i)*5)"),
    (QmdVersion::V4, "GRID_DEPTH", "1103:1088"),
    (QmdVersion::V4, "GRID_HEIGHT", "1071:1056"),
    (QmdVersion::V4, "GRID_WIDTH", "1055:1024"),
    (QmdVersion::V4, "INVALIDATE_INSTRUCTION_CACHE", "606:606"),
    (QmdVersion::V4, "INVALIDATE_SHADER_CONSTANT_CACHE", "607:607"),
    (QmdVersion::V4, "INVALIDATE_SHADER_DATA_CACHE", "605:605"),
    (QmdVersion::V4, "INVALIDATE_TEXTURE_DATA_CACHE", "604:604"),
    (QmdVersion::V4, "INVALIDATE_TEXTURE_HEADER_CACHE", "602:602"),
    (QmdVersion::V4, "INVALIDATE_TEXTURE_SAMPLER_CACHE", "603:603"),
    (QmdVersion::V4, "MAX_SM_CONFIG_SHARED_MEM_SIZE", "619:614"),
    (QmdVersion::V4, "MIN_SM_CONFIG_SHARED_MEM_SIZE", "613:608"),
    (QmdVersion::V4, "PROGRAM_ADDRESS_LOWER", "1247:1216"),
    (QmdVersion::V4, "PROGRAM_ADDRESS_UPPER", "1272:1248"),
    (QmdVersion::V4, "PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED", "1375:1344"),
    (QmdVersion::V4, "PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED", "1392:1376"),
    (QmdVersion::V4, "PROGRAM_PREFETCH_SIZE", "1401:1393"),
    (QmdVersion::V4, "PROGRAM_PREFETCH_TYPE", "1403:1402"),
    (QmdVersion::V4, "QMD_GROUP_ID", "21:16"),
    (QmdVersion::V4, "QMD_MAJOR_VERSION", "583:580"),
    (QmdVersion::V4, "QMD_MINOR_VERSION", "579:576"),
    (QmdVersion::V4, "QMD_TYPE", "25:23"),
    (QmdVersion::V4, "REGISTER_COUNT", "1208:1200"),
    (QmdVersion::V4, "RELEASE_ENABLE(i)", "(320+(i)*16):(320+(i)*16)"),
    (QmdVersion::V4, "RELEASE_MEMBAR_TYPE(i)", "(323+(i)*16):(323+(i)*16)"),
    (QmdVersion::V4, "RELEASE_PAYLOAD64B(i)", "(332+(i)*16):(332+(i)*16)"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE0_ADDR_LOWER", "671:640"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE0_ADDR_UPPER", "696:672"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE0_PAYLOAD_LOWER", "735:704"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE0_PAYLOAD_UPPER", "767:736"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE1_ADDR_LOWER", "799:768"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE1_ADDR_UPPER", "824:800"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE1_PAYLOAD_LOWER", "863:832"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE1_PAYLOAD_UPPER", "895:864"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE2_ADDR_LOWER", "927:896"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE2_ADDR_UPPER", "952:928"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE2_PAYLOAD_LOWER", "991:960"),
    (QmdVersion::V4, "RELEASE_SEMAPHORE2_PAYLOAD_UPPER", "1023:992"),
    (QmdVersion::V4, "RELEASE_STRUCTURE_SIZE(i)", "(322+(i)*16):(321+(i)*16)"),
    (QmdVersion::V4, "SAMPLER_INDEX", "569:569"),
    (QmdVersion::V4, "SASS_VERSION", "543:536"),
    (QmdVersion::V4, "SHADER_LOCAL_MEMORY_HIGH_SIZE", "567:544"),
    (QmdVersion::V4, "SHADER_LOCAL_MEMORY_LOW_SIZE", "535:512"),
    (QmdVersion::V4, "SHARED_MEMORY_SIZE", "601:584"),
    (QmdVersion::V4, "TARGET_SM_CONFIG_SHARED_MEM_SIZE", "625:620"),
    (QmdVersion::V5, "API_VISIBLE_CALL_LIMIT", "456:456"),
    (QmdVersion::V5, "BARRIER_COUNT", "1141:1137"),
    (QmdVersion::V5, "CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(i)", "(1375+(i)*64):(1344+(i)*64)"),
    (QmdVersion::V5, "CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6(i)", "(1394+(i)*64):(1376+(i)*64)"),
    (QmdVersion::V5, "CONSTANT_BUFFER_INVALIDATE(i)", "(1859+(i)*4):(1859+(i)*4)"),
    (QmdVersion::V5, "CONSTANT_BUFFER_SIZE_SHIFTED4(i)", "(1407+(i)*64):(1395+(i)*64)"),
    (QmdVersion::V5, "CONSTANT_BUFFER_VALID(i)", "(1856+(i)*4):(1856+(i)*4)"),
    (QmdVersion::V5, "CTA_THREAD_DIMENSION0", "1103:1088"),
    (QmdVersion::V5, "CTA_THREAD_DIMENSION1", "1119:1104"),
    (QmdVersion::V5, "CTA_THREAD_DIMENSION2", "1127:1120"),
    (QmdVersion::V5, "CWD_MEMBAR_TYPE", "625:624"),
    (QmdVersion::V5, "DEPENDENT_QMD_ACTION(i)", "(339+(i)*8):(337+(i)*8)"),
    (QmdVersion::V5, "DEPENDENT_QMD_ENABLE(i)", "(336+(i)*8):(336+(i)*8)"),
    (QmdVersion::V5, "DEPENDENT_QMD_POINTER(i)", "(415+(i)*32):(384+(i)*32)"),
    (QmdVersion::V5, "DEPENDENT_QMD_PREFETCH(i)", "(340+(i)*8):(340+(i)*8)"),
    (QmdVersion::V5, "GRID_DEPTH", "1327:1312"),
    (QmdVersion::V5, "GRID_HEIGHT", "1295:1280"),
    (QmdVersion::V5, "GRID_WIDTH", "1279:1248"),
    (QmdVersion::V5, "INVALIDATE_INSTRUCTION_CACHE", "476:476"),
    (QmdVersion::V5, "INVALIDATE_SHADER_CONSTANT_CACHE", "477:477"),
    (QmdVersion::V5, "INVALIDATE_SHADER_DATA_CACHE", "475:475"),
    (QmdVersion::V5, "INVALIDATE_TEXTURE_DATA_CACHE", "474:474"),
    (QmdVersion::V5, "INVALIDATE_TEXTURE_HEADER_CACHE", "472:472"),
    (QmdVersion::V5, "INVALIDATE_TEXTURE_SAMPLER_CACHE", "473:473"),
    (QmdVersion::V5, "MAX_SM_CONFIG_SHARED_MEM_SIZE", "1174:1169"),
    (QmdVersion::V5, "MIN_SM_CONFIG_SHARED_MEM_SIZE", "1168:1163"),
    (QmdVersion::V5, "PROGRAM_ADDRESS_LOWER_SHIFTED4", "1055:1024"),
    (QmdVersion::V5, "PROGRAM_ADDRESS_UPPER_SHIFTED4", "1076:1056"),
    (QmdVersion::V5, "PROGRAM_PREFETCH_ADDR_LOWER_SHIFTED", "1919:1888"),
    (QmdVersion::V5, "PROGRAM_PREFETCH_ADDR_UPPER_SHIFTED", "1936:1920"),
    (QmdVersion::V5, "PROGRAM_PREFETCH_SIZE", "1085:1077"),
    (QmdVersion::V5, "PROGRAM_PREFETCH_TYPE", "1087:1086"),
    (QmdVersion::V5, "QMD_GROUP_ID", "149:144"),
    (QmdVersion::V5, "QMD_MAJOR_VERSION", "471:468"),
    (QmdVersion::V5, "QMD_MINOR_VERSION", "467:464"),
    (QmdVersion::V5, "QMD_TYPE", "153:151"),
    (QmdVersion::V5, "REGISTER_COUNT", "1136:1128"),
    (QmdVersion::V5, "RELEASE_ENABLE(i)", "(288+(i)*16):(288+(i)*16)"),
    (QmdVersion::V5, "RELEASE_MEMBAR_TYPE(i)", "(291+(i)*16):(291+(i)*16)"),
    (QmdVersion::V5, "RELEASE_PAYLOAD64B(i)", "(300+(i)*16):(300+(i)*16)"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE0_ADDR_LOWER", "511:480"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE0_ADDR_UPPER", "536:512"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE0_PAYLOAD_LOWER", "575:544"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE0_PAYLOAD_UPPER", "607:576"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE1_ADDR_LOWER", "799:768"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE1_ADDR_UPPER", "824:800"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE1_PAYLOAD_LOWER", "863:832"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE1_PAYLOAD_UPPER", "895:864"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE2_ADDR_LOWER", "927:896"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE2_ADDR_UPPER", "952:928"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE2_PAYLOAD_LOWER", "991:960"),
    (QmdVersion::V5, "RELEASE_SEMAPHORE2_PAYLOAD_UPPER", "1023:992"),
    (QmdVersion::V5, "RELEASE_STRUCTURE_SIZE(i)", "(290+(i)*16):(289+(i)*16)"),
    (QmdVersion::V5, "SAMPLER_INDEX", "457:457"),
    (QmdVersion::V5, "SASS_VERSION", "455:448"),
    (QmdVersion::V5, "SHADER_LOCAL_MEMORY_HIGH_SIZE_SHIFTED4", "1215:1200"),
    (QmdVersion::V5, "SHADER_LOCAL_MEMORY_LOW_SIZE_SHIFTED4", "1199:1184"),
    (QmdVersion::V5, "SHARED_MEMORY_SIZE_SHIFTED7", "1162:1152"),
    (QmdVersion::V5, "TARGET_SM_CONFIG_SHARED_MEM_SIZE", "1180:1175"),
];

/// Evaluate one side of an MW argument: `378`, `(1055+(i)*64)`.
fn eval_side(s: &str, i: u32) -> u32 {
    let s = s.trim().trim_start_matches('(').trim_end_matches(')');
    match s.split_once("+(i)*") {
        Some((base, stride)) => base.parse::<u32>().unwrap() + i * stride.parse::<u32>().unwrap(),
        None => s.parse().unwrap(),
    }
}

fn eval_mw(expr: &str, i: u32) -> (u32, u32) {
    // The top-level ':' is the one outside parentheses.
    let mut depth = 0;
    for (pos, c) in expr.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ':' if depth == 0 => return (eval_side(&expr[..pos], i), eval_side(&expr[pos + 1..], i)),
            _ => {}
        }
    }
    panic!("no ':' in {expr}");
}

fn expected(version: QmdVersion, bits: &qmd::Bits) -> (u32, u32) {
    let key = match bits.index {
        Some(_) => format!("{}(i)", bits.name),
        None => bits.name.to_string(),
    };
    let (_, _, expr) = HEADER_MW
        .iter()
        .find(|(v, n, _)| *v == version && *n == key)
        .unwrap_or_else(|| panic!("{version:?} {key} not in HEADER_MW"));
    eval_mw(expr, bits.index.unwrap_or(0))
}

fn set_bits(q: &Qmd) -> Vec<u32> {
    let mut out = vec![];
    for (w, &word) in q.words().iter().enumerate() {
        for b in 0..32 {
            if word >> b & 1 == 1 {
                out.push(w as u32 * 32 + b);
            }
        }
    }
    out
}

#[test]
fn every_field_matches_the_header_bit_for_bit() {
    let mut used = std::collections::HashSet::new();
    for version in QmdVersion::ALL {
        for field in Field::all() {
            let Some(bits) = version.bits(field) else { continue };
            let (hi, lo) = expected(version, &bits);
            assert_eq!((bits.hi, bits.lo), (hi, lo), "{version:?} {field:?} {}", bits.name);
            used.insert((version, bits.name, bits.index.is_some()));
            // All ones: exactly lo..=hi.
            let mut q = Qmd::zeroed(version);
            q.set(field, bits.max()).unwrap();
            assert_eq!(set_bits(&q), (lo..=hi).collect::<Vec<_>>(), "{version:?} {field:?}");
            assert_eq!(q.get(field).unwrap(), bits.max());
            // One: exactly bit lo.
            let mut q = Qmd::zeroed(version);
            q.set(field, 1).unwrap();
            assert_eq!(set_bits(&q), vec![lo], "{version:?} {field:?}");
            // Too wide: an error, nothing written.
            if bits.width() < 64 {
                let mut q = Qmd::zeroed(version);
                assert!(q.set(field, bits.max() + 1).is_err());
                assert!(set_bits(&q).is_empty());
            }
            // Inside the QMD.
            assert!((hi as usize) < version.dwords() * 32);
        }
    }
    for (v, n, _) in HEADER_MW {
        let base = n.trim_end_matches("(i)");
        assert!(used.contains(&(*v, base, n.ends_with("(i)"))), "{v:?} {n} is in the table but no Field maps to it");
    }
}

#[test]
fn fields_do_not_overlap() {
    for version in QmdVersion::ALL {
        let mut owner: std::collections::HashMap<u32, Field> = Default::default();
        for field in Field::all() {
            let Some(bits) = version.bits(field) else { continue };
            for b in bits.lo..=bits.hi {
                if let Some(prev) = owner.insert(b, field) {
                    panic!("{version:?}: bit {b} in both {prev:?} and {field:?}");
                }
            }
        }
    }
}

#[test]
fn sizes_versions_and_classes() {
    assert_eq!(QmdVersion::V3.bytes(), 256);
    assert_eq!(QmdVersion::V4.bytes(), 384);
    assert_eq!(QmdVersion::V5.bytes(), 384);
    assert_eq!(QmdVersion::for_compute_class(0xc6c0), Some(QmdVersion::V3));
    assert_eq!(QmdVersion::for_compute_class(0xc7c0), Some(QmdVersion::V3));
    assert_eq!(QmdVersion::for_compute_class(0xc9c0), Some(QmdVersion::V3));
    assert_eq!(QmdVersion::for_compute_class(0xcbc0), Some(QmdVersion::V4));
    assert_eq!(QmdVersion::for_compute_class(0xcec0), Some(QmdVersion::V5));
    assert_eq!(QmdVersion::for_compute_class(0xc5c0), None);
    // QMD_MAJOR_VERSION: 583:580 on V3/V4, 471:468 on V5.
    assert_eq!(Qmd::new(QmdVersion::V3).words()[18], 3 << 4);
    assert_eq!(Qmd::new(QmdVersion::V4).words()[18], 4 << 4);
    assert_eq!(Qmd::new(QmdVersion::V5).words()[14], 5 << 20);
    assert_eq!(Qmd::new(QmdVersion::V5).to_bytes().len(), 384);
    // Fields a layout lacks are errors.
    assert!(Qmd::zeroed(QmdVersion::V3).set(Field::QmdType, 2).is_err());
    assert!(Qmd::zeroed(QmdVersion::V4).set(Field::SmGlobalCachingEnable, 1).is_err());
    assert!(Qmd::zeroed(QmdVersion::V3).set(Field::DependentQmdPointer(1), 1).is_err());
    assert!(Qmd::from_words(QmdVersion::V4, &[0; 0x40]).is_err());
}

#[test]
fn program_address_encoding_per_version() {
    let addr = 0x12_3456_7800u64;
    // V3: unshifted lower/upper.
    let mut q = Qmd::zeroed(QmdVersion::V3);
    q.set_program(addr, 0x1000).unwrap();
    assert_eq!(q.words()[1536 / 32], 0x3456_7800);
    assert_eq!(q.words()[1568 / 32] & 0x1ffff, 0x12);
    assert_eq!(q.get(Field::ProgramPrefetchAddrLowerShifted).unwrap(), addr >> 8 & 0xffff_ffff);
    assert_eq!(q.get(Field::ProgramPrefetchSize).unwrap(), 0x10);
    // V4: unshifted, 25-bit upper.
    let mut q = Qmd::zeroed(QmdVersion::V4);
    q.set_program(1 << 56, 0x100).unwrap();
    assert_eq!(q.get(Field::ProgramAddressUpper).unwrap(), 1 << 24);
    assert!(q.set_program(1 << 57, 0x100).is_err());
    // V5: shifted by 4, so 16-byte alignment is required.
    let mut q = Qmd::zeroed(QmdVersion::V5);
    q.set_program(addr, 0x80).unwrap();
    assert_eq!(q.get(Field::ProgramAddressLower).unwrap(), (addr >> 4) & 0xffff_ffff);
    assert_eq!(q.get(Field::ProgramAddressUpper).unwrap(), addr >> 36);
    assert!(Qmd::zeroed(QmdVersion::V5).set_program(addr + 8, 0x80).is_err());
    // Prefetch size caps at the field (9 bits of 256-byte units).
    let mut q = Qmd::zeroed(QmdVersion::V4);
    q.set_program(0x1000, 1 << 30).unwrap();
    assert_eq!(q.get(Field::ProgramPrefetchSize).unwrap(), 0x1ff);
}

#[test]
fn constant_buffer_encoding_per_version() {
    // V3: unshifted address, SIZE_SHIFTED4 rounds up, VALID/INVALIDATE set.
    let mut q = Qmd::zeroed(QmdVersion::V3);
    q.set_constant_buffer(0, 0x7f_0000_1004, 0x174).unwrap();
    assert_eq!(q.words()[1024 / 32], 0x0000_1004);
    assert_eq!(q.get(Field::ConstantBufferAddrUpper(0)).unwrap(), 0x7f);
    assert_eq!(q.get(Field::ConstantBufferSizeShifted4(0)).unwrap(), 0x18);
    assert_eq!(q.get(Field::ConstantBufferValid(0)).unwrap(), 1);
    assert_eq!(q.get(Field::ConstantBufferInvalidate(0)).unwrap(), 1);
    assert_eq!(q.get(Field::ConstantBufferValid(1)).unwrap(), 0);
    // Bank 3 of V4: shifted by 6.
    let mut q = Qmd::zeroed(QmdVersion::V4);
    q.set_constant_buffer(3, 0x7f_0000_1040, 0x10).unwrap();
    assert_eq!(q.get(Field::ConstantBufferAddrLower(3)).unwrap(), (0x7f_0000_1040u64 >> 6) & 0xffff_ffff);
    assert_eq!(q.get(Field::ConstantBufferAddrUpper(3)).unwrap(), 0x7f_0000_1040u64 >> 38);
    assert_eq!(set_bits(&q).iter().filter(|&&b| (416..448).contains(&b)).count(), 2, "VALID(3), INVALIDATE(3)");
    assert!(Qmd::zeroed(QmdVersion::V4).set_constant_buffer(0, 0x1010, 0x10).is_err(), "64-byte alignment");
    assert!(Qmd::zeroed(QmdVersion::V5).set_constant_buffer(8, 0x1000, 0x10).is_err());
    // 64 KiB is 0x1000 16-byte units, within SIZE_SHIFTED4's 13 bits.
    let mut q = Qmd::zeroed(QmdVersion::V5);
    q.set_constant_buffer(0, 0x1000, 0x10000).unwrap();
    assert_eq!(q.get(Field::ConstantBufferSizeShifted4(0)).unwrap(), 0x1000);
}

#[test]
fn grid_block_shared_local() {
    for version in QmdVersion::ALL {
        let mut q = Qmd::zeroed(version);
        q.set_grid([0x8000_0001, 0xffff, 7]).unwrap();
        q.set_block([256, 2, 2]).unwrap();
        assert_eq!(q.get(Field::GridWidth).unwrap(), 0x8000_0001);
        assert_eq!(q.get(Field::GridHeight).unwrap(), 0xffff);
        assert_eq!(q.get(Field::GridDepth).unwrap(), 7);
        assert_eq!(q.get(Field::CtaThreadDimension0).unwrap(), 256);
        assert!(q.set_grid([1, 0x10000, 1]).is_err(), "{version:?}: GRID_HEIGHT is 16 bits");
        assert!(q.set_grid([0, 1, 1]).is_err());
        assert!(q.set_block([1024, 2, 1]).is_err());
        q.set_shared_memory(0x4400, 89).unwrap();
        let shared = q.get(Field::SharedMemorySize).unwrap();
        match version {
            QmdVersion::V5 => assert_eq!(shared, 0x4400 >> 7),
            _ => assert_eq!(shared, 0x4400),
        }
        // 17 KiB fits the 32 KiB carve-out: 32/4+1 = 9; max on sm_89 is 100 KiB: 26.
        assert_eq!(q.get(Field::MinSmConfigSharedMemSize).unwrap(), 9);
        assert_eq!(q.get(Field::TargetSmConfigSharedMemSize).unwrap(), 9);
        assert_eq!(q.get(Field::MaxSmConfigSharedMemSize).unwrap(), 26);
        q.set_local_memory(0, 0x240).unwrap();
        let high = q.get(Field::ShaderLocalMemoryHighSize).unwrap();
        assert_eq!(high, if version == QmdVersion::V5 { 0x24 } else { 0x240 });
    }
    // Hopper goes up to 228 KiB (58), Ada stops at 100 KiB.
    assert_eq!(qmd::sm_config(200 * 1024, 90).unwrap(), (qmd::sm_config_encoding(228), 58, 58));
    assert!(qmd::sm_config(101 * 1024, 89).is_err());
    assert_eq!(qmd::shared_memory_bytes(0x400, 0), 0x800);
    assert_eq!(qmd::sass_version(90), 0x90);
    assert_eq!(qmd::sass_version(89), 0x89);
    assert_eq!(qmd::sass_version(120), 0xc0);
}

#[test]
fn releases_and_dependent_qmds() {
    // V3: RELEASE0 = 4-word, 32-bit payload, 40-bit address.
    let mut q = Qmd::zeroed(QmdVersion::V3);
    let r = Release { address: 0xab_1234_5670, payload: 0x55, payload64: false, timestamp: true };
    assert_eq!(q.free_release_slot(), Some(0));
    q.set_release(0, r).unwrap();
    assert_eq!(q.free_release_slot(), Some(1));
    assert_eq!(q.words()[768 / 32], 0x1234_5670);
    assert_eq!(q.words()[800 / 32], 0xab | 1 << (823 - 800) | 1 << (819 - 800));
    assert_eq!(q.words()[832 / 32], 0x55);
    assert!(q.set_release(1, Release { address: 1 << 40, ..r }).is_err(), "V3 release upper is 8 bits");
    assert!(q.set_release(1, Release { payload: 1 << 32, ..r }).is_err());
    // V4: RELEASE_ENABLE(i) at 320+16i, 57-bit addresses, 64-bit payload.
    let mut q = Qmd::zeroed(QmdVersion::V4);
    q.set_release(1, Release { address: 1 << 56, payload: 1 << 40, payload64: true, timestamp: false }).unwrap();
    assert_eq!(q.get(Field::ReleaseEnable(1)).unwrap(), 1);
    assert_eq!(q.get(Field::ReleaseStructureSize(1)).unwrap(), qmd::RELEASE_STRUCTURE_SIZE_ONE_WORD);
    assert_eq!(q.get(Field::ReleasePayload64b(1)).unwrap(), 1);
    assert_eq!(q.get(Field::ReleaseAddrUpper(1)).unwrap(), 1 << 24);
    assert_eq!(q.get(Field::ReleasePayloadUpper(1)).unwrap(), 1 << 8);
    assert_eq!(q.free_release_slot(), Some(0));
    // Dependent QMD: pointer >> 8, QMD_SCHEDULE, prefetch, enable.
    for version in QmdVersion::ALL {
        let mut q = Qmd::zeroed(version);
        q.set_dependent(0, 0x12_3456_7800).unwrap();
        assert_eq!(q.get(Field::DependentQmdPointer(0)).unwrap(), 0x1234_5678);
        assert_eq!(q.get(Field::DependentQmdAction(0)).unwrap(), 1);
        assert_eq!(q.get(Field::DependentQmdPrefetch(0)).unwrap(), 1);
        assert_eq!(q.get(Field::DependentQmdEnable(0)).unwrap(), 1);
        assert!(q.set_dependent(0, 0x1080).is_err());
        assert!(q.set_dependent(0, 1 << 40).is_err());
    }
}

#[test]
fn launch_qmd_sets_what_a_launch_needs() {
    for (version, sm) in [(QmdVersion::V3, 89), (QmdVersion::V4, 90), (QmdVersion::V5, 120)] {
        let desc = LaunchDesc {
            program_address: 0x7f_0000_0000,
            program_size: 0x380,
            registers: 12,
            barriers: 1,
            shared_bytes: qmd::shared_memory_bytes(0x400, 0),
            sm,
            local_bytes: 0,
            grid: [4, 1, 1],
            block: [256, 1, 1],
            constant_buffers: vec![(0, 0x7f_0010_0000, 0x224), (3, 0x7f_0000_1000, 0x10)],
        };
        let q = Qmd::launch(version, &desc).unwrap();
        assert_eq!(q.get(Field::QmdMajorVersion).unwrap(), version.major());
        assert_eq!(q.get(Field::QmdGroupId).unwrap(), 0x3f);
        assert_eq!(q.get(Field::RegisterCount).unwrap(), 12);
        assert_eq!(q.get(Field::BarrierCount).unwrap(), 1);
        assert_eq!(q.get(Field::SassVersion).unwrap(), qmd::sass_version(sm));
        assert_eq!(q.get(Field::GridWidth).unwrap(), 4);
        assert_eq!(q.get(Field::CtaThreadDimension0).unwrap(), 256);
        assert_eq!(q.get(Field::ConstantBufferValid(0)).unwrap(), 1);
        assert_eq!(q.get(Field::ConstantBufferValid(3)).unwrap(), 1);
        assert_eq!(q.get(Field::ConstantBufferValid(1)).unwrap(), 0);
        assert_eq!(q.get(Field::ConstantBufferSizeShifted4(0)).unwrap(), 0x23);
        assert_eq!(q.get(Field::InvalidateShaderDataCache).unwrap(), 1);
        assert_eq!(q.get(Field::ApiVisibleCallLimit).unwrap(), 1);
        assert_eq!(q.get(Field::SamplerIndex).unwrap(), 1);
        assert_eq!(q.get(Field::CwdMembarType).unwrap(), 1);
        if version == QmdVersion::V3 {
            assert_eq!(q.get(Field::SmGlobalCachingEnable).unwrap(), 1);
        } else {
            assert_eq!(q.get(Field::QmdType).unwrap(), qmd::QMD_TYPE_GRID_CTA);
        }
        assert_eq!(q.free_release_slot(), Some(0));
    }
    let bad = LaunchDesc {
        program_address: 0x1000,
        program_size: 0x100,
        registers: 512,
        barriers: 1,
        shared_bytes: 0x800,
        sm: 90,
        local_bytes: 0,
        grid: [1, 1, 1],
        block: [32, 1, 1],
        constant_buffers: vec![],
    };
    assert!(Qmd::launch(QmdVersion::V4, &bad).is_err(), "REGISTER_COUNT is 9 bits");
}

#[test]
fn method_offsets_and_header_words() {
    assert_eq!(compute::SEND_PCAS_A, 0x2b4);
    assert_eq!(compute::SEND_SIGNALING_PCAS2_B, 0x2c0);
    assert_eq!(compute::SET_SHADER_SHARED_MEMORY_WINDOW_A, 0x2a0);
    assert_eq!(compute::SET_SHADER_LOCAL_MEMORY_A, 0x790);
    assert_eq!(compute::SET_SHADER_LOCAL_MEMORY_WINDOW_A, 0x7b0);
    assert_eq!(compute::SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A, 0x2e4);
    assert_eq!(compute::INVALIDATE_SHADER_CACHES_NO_WFI, 0x1698);
    assert_eq!(compute::SET_REPORT_SEMAPHORE_A, 0x1b00);
    assert_eq!(copy::LAUNCH_DMA, 0x300);
    assert_eq!(copy::OFFSET_IN_UPPER, 0x400);
    assert_eq!(copy::OFFSET_OUT_LOWER, 0x40c);
    assert_eq!(copy::LINE_LENGTH_IN, 0x418);
    assert_eq!(copy::SET_SEMAPHORE_A, 0x240);
    assert_eq!(copy::SET_SEMAPHORE_PAYLOAD_UPPER, 0x24c);
    // Tables: sorted, unique, dword aligned.
    for table in [COMPUTE_METHODS, COPY_METHODS] {
        for w in table.windows(2) {
            assert!(w[0].offset < w[1].offset, "{:?} {:?}", w[0], w[1]);
        }
        assert!(table.iter().all(|m| m.offset.is_multiple_of(4)));
    }

    // Launch: the header words tinygrad emits (0x200120ad, 0x200120b0).
    let mut pb = PushBuffer::new();
    ComputeCmds::launch(&mut pb, 0x12_3456_7800).unwrap();
    assert_eq!(pb.words(), &[0x2001_20ad, 0x1234_5678, 0x2001_20b0, 9]);
    assert!(ComputeCmds::launch(&mut PushBuffer::new(), 0x1040).is_err());
    assert!(ComputeCmds::launch(&mut PushBuffer::new(), 1 << 40).is_err());

    let mut pb = PushBuffer::new();
    ComputeCmds::shared_memory_window(&mut pb, 0x7294_0000_0000).unwrap();
    ComputeCmds::local_memory_window(&mut pb, 0x7293_0000_0000).unwrap();
    ComputeCmds::invalidate_caches(&mut pb).unwrap();
    assert_eq!(
        pb.words(),
        &[0x2002_20a8, 0x7294, 0, 0x2002_21ec, 0x7293, 0, 0x2001_25a6, 0x1011],
        "SET_SHADER_SHARED/LOCAL_MEMORY_WINDOW_A, INVALIDATE_SHADER_CACHES_NO_WFI"
    );
    let mut pb = PushBuffer::new();
    ComputeCmds::local_memory(&mut pb, 0x7f_0000_0000, 0x48000, false).unwrap();
    assert_eq!(pb.words(), &[0x2002_21e4, 0x7f, 0, 0x2003_20b9, 0, 0x48000, 0xff]);
    assert!(ComputeCmds::local_memory(&mut PushBuffer::new(), 1 << 50, 0x1000, false).is_err());
    ComputeCmds::local_memory(&mut PushBuffer::new(), 1 << 50, 0x1000, true).unwrap();

    let mut pb = PushBuffer::new();
    ComputeCmds::report_semaphore(&mut pb, 0x10_0000_1000, 7, false, true).unwrap();
    assert_eq!(pb.words(), &[0x2004_26c0, 0x10, 0x1000, 7, 1 << 28]);
}

#[test]
fn copy_engine_commands() {
    // A copy: OFFSET_IN_UPPER..OFFSET_OUT_LOWER, LINE_LENGTH_IN, LAUNCH_DMA 0x182 (tinygrad's words).
    let mut pb = PushBuffer::new();
    CopyCmds::copy(&mut pb, 0x20_0000_0000, 0x10_0000_1000, 0x1000, false).unwrap();
    assert_eq!(pb.words(), &[0x2004_8100, 0x10, 0x1000, 0x20, 0, 0x2001_8106, 0x1000, 0x2001_80c0, 0x182]);
    assert_eq!(CopyCmds::LINEAR_COPY, 0x182);
    // Split at 2 GiB.
    let mut pb = PushBuffer::new();
    CopyCmds::copy(&mut pb, 0x1_0000_0000, 0x10_0000_0000, (1 << 31) + 16, false).unwrap();
    let launches = pb.words().iter().filter(|&&w| w == 0x2001_80c0).count();
    assert_eq!(launches, 2);
    assert_eq!(pb.words()[6], 1 << 31);
    assert_eq!(pb.words()[9 + 2], 0x8000_0000, "second piece starts 2 GiB in");
    assert!(CopyCmds::copy(&mut PushBuffer::new(), u64::MAX - 4, 0, 16, true).is_err());
    assert!(CopyCmds::copy(&mut PushBuffer::new(), 1 << 49, 0, 16, false).is_err());
    // Release: SET_SEMAPHORE_A/B/PAYLOAD then LAUNCH_DMA FLUSH | FOUR_WORD (0x14, tinygrad's value).
    let mut pb = PushBuffer::new();
    CopyCmds::release(&mut pb, 0x10_0000_2000, 5, true, false).unwrap();
    assert_eq!(pb.words(), &[0x2003_8090, 0x10, 0x2000, 5, 0x2001_80c0, 0x14]);
    // 64-bit payload: Hopper only, PAYLOAD_UPPER and SEMAPHORE_PAYLOAD_SIZE.
    assert!(CopyCmds::release(&mut PushBuffer::new(), 0x1000, 1 << 32, true, false).is_err());
    let mut pb = PushBuffer::new();
    CopyCmds::release(&mut pb, 0x1000, 1 << 32, false, true).unwrap();
    assert_eq!(pb.words(), &[0x2004_8090, 0, 0x1000, 0, 1, 0x2001_80c0, 0x0800_000c]);
    assert_eq!(methods::upper_address_bits(true), 25);
}

/// Read the headers and compare: every HEADER_MW entry (and so every layout field) and every
/// method offset. Skips, saying why, without `BAREGPU_OPEN_GPU_DOC`.
#[test]
fn header_cross_check() {
    let Some(root) = std::env::var_os("BAREGPU_OPEN_GPU_DOC") else {
        eprintln!("skipped: set BAREGPU_OPEN_GPU_DOC to an open-gpu-doc checkout to compare with the headers");
        return;
    };
    let root = std::path::PathBuf::from(root);
    let read = |sub: &str, name: &str| -> String {
        for p in [root.join(sub).join(name), root.join(name)] {
            if let Ok(s) = std::fs::read_to_string(&p) {
                return s;
            }
        }
        panic!("{name} not found under {}", root.display());
    };
    let defines = |text: &str, prefix: &str| -> std::collections::HashMap<String, String> {
        let mut out = std::collections::HashMap::new();
        for line in text.lines() {
            let mut it = line.split_whitespace();
            if it.next() != Some("#define") {
                continue;
            }
            let (Some(name), Some(value)) = (it.next(), it.next()) else { continue };
            if let Some(n) = name.strip_prefix(prefix) {
                out.insert(n.to_string(), value.to_string());
            }
        }
        out
    };
    let mut checked = 0;
    for version in QmdVersion::ALL {
        let (file, prefix) = version.header();
        let defs = defines(&read("classes/compute", file), prefix);
        for (v, name, expr) in HEADER_MW.iter().filter(|e| e.0 == version) {
            let got = defs.get(*name).unwrap_or_else(|| panic!("{file}: no {prefix}{name}"));
            let got = got.trim_start_matches("MW(").trim_end_matches(')');
            let want = expr.trim_end_matches(')');
            assert_eq!(got.trim_end_matches(')'), want, "{v:?} {name}");
            checked += 1;
        }
    }
    for (file, prefix) in [("clc6c0.h", "NVC6C0_"), ("clcbc0.h", "NVCBC0_"), ("clcec0.h", "NVCEC0_")] {
        let defs = defines(&read("classes/compute", file), prefix);
        for m in COMPUTE_METHODS {
            let key = m.name.replace("(0)", "(i)");
            let v = defs.get(&key).unwrap_or_else(|| panic!("{file}: no {prefix}{}", m.name));
            let v = v.trim_start_matches('(');
            let v = u32::from_str_radix(v.trim_start_matches("0x").split(['+', ')']).next().unwrap(), 16).unwrap();
            assert_eq!(v, m.offset, "{file} {}", m.name);
            checked += 1;
        }
    }
    for (file, prefix, hopper) in
        [("clc6b5.h", "NVC6B5_", false), ("clc8b5.h", "NVC8B5_", true), ("clcab5.h", "NVCAB5_", true)]
    {
        let defs = defines(&read("classes/dma-copy", file), prefix);
        for m in COPY_METHODS {
            if m.name == "SET_SEMAPHORE_PAYLOAD_UPPER" && !hopper {
                assert!(!defs.contains_key(m.name));
                continue;
            }
            let v = defs.get(m.name).unwrap_or_else(|| panic!("{file}: no {prefix}{}", m.name));
            let v = u32::from_str_radix(v.trim_matches(['(', ')']).trim_start_matches("0x"), 16).unwrap();
            assert_eq!(v, m.offset, "{file} {}", m.name);
            checked += 1;
        }
    }
    eprintln!("compared {checked} fields and methods with {}", root.display());
}
