//! The fields of a QMD (Queue Meta Data, the compute launch descriptor) the emulated GPU uses,
//! decoded per layout: V03_00 (Ampere/Ada, `clc6c0qmd.h`), V04_00 (Hopper, `clcbc0qmd.h`) and
//! V05_00 (Blackwell, `clcec0qmd.h`). Bit positions are those of NVIDIA's open-gpu-doc headers
//! as summarised in the project's reference notes (§9.2). `drivers::nv::qmd` did not exist when
//! this was written, so the decoder is the emulator's own.

/// What a launch needs from a QMD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QmdLaunch {
    pub version: u32,
    pub program: u64,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// Constant banks 0..8: (address, size in bytes) for the valid ones.
    pub cbufs: [Option<(u64, u32)>; 8],
    /// Release semaphores: (address, payload, 64-bit payload, one word (no timestamp)).
    pub releases: Vec<(u64, u64, bool, bool)>,
    /// A dependent QMD to schedule after this one.
    pub dependent: Option<u64>,
}

/// The bits hi:lo of a little-endian QMD.
pub fn bits(q: &[u8], hi: u32, lo: u32) -> u64 {
    let mut v = 0u64;
    for b in lo..=hi {
        let byte = q.get((b / 8) as usize).copied().unwrap_or(0);
        v |= (((byte >> (b % 8)) & 1) as u64) << (b - lo);
    }
    v
}

/// The size of a QMD of `version` (V3: 256 bytes; V4, V5: 384).
pub fn size(version: u32) -> usize {
    if version >= 4 {
        384
    } else {
        256
    }
}

pub fn decode(q: &[u8], version: u32) -> Result<QmdLaunch, String> {
    let b = |hi, lo| bits(q, hi, lo);
    let mut cbufs = [None; 8];
    let mut releases = Vec::new();
    let l = match version {
        3 => {
            for (i, cb) in cbufs.iter_mut().enumerate() {
                let i = i as u32;
                if b(640 + i, 640 + i) == 1 {
                    let addr = b(1055 + 64 * i, 1024 + 64 * i) | b(1072 + 64 * i, 1056 + 64 * i) << 32;
                    *cb = Some((addr, (b(1087 + 64 * i, 1075 + 64 * i) as u32) << 4));
                }
            }
            if b(823, 823) == 1 {
                releases.push((b(799, 768) | b(807, 800) << 32, b(863, 832) | b(895, 864) << 32, false, false));
            }
            if b(951, 951) == 1 {
                releases.push((b(927, 896) | b(935, 928) << 32, b(991, 960) | b(1023, 992) << 32, false, false));
            }
            QmdLaunch {
                version: b(583, 580) as u32,
                program: b(1567, 1536) | b(1584, 1568) << 32,
                grid: [b(415, 384) as u32, b(431, 416) as u32, b(463, 448) as u32],
                block: [b(607, 592) as u32, b(623, 608) as u32, b(639, 624) as u32],
                shared_bytes: b(561, 544) as u32,
                cbufs,
                releases,
                dependent: (b(512, 512) == 1 && b(515, 513) == 1).then(|| b(511, 480) << 8),
            }
        }
        4 => {
            for (i, cb) in cbufs.iter_mut().enumerate() {
                let i = i as u32;
                if b(416 + 4 * i, 416 + 4 * i) == 1 {
                    let s6 = b(1567 + 64 * i, 1536 + 64 * i) | b(1586 + 64 * i, 1568 + 64 * i) << 32;
                    *cb = Some((s6 << 6, (b(1599 + 64 * i, 1587 + 64 * i) as u32) << 4));
                }
            }
            for (k, (lo, hi, plo, phi)) in [(640, 672, 704, 736), (768, 800, 832, 864)].into_iter().enumerate() {
                let k = k as u32;
                if b(320 + 16 * k, 320 + 16 * k) == 1 {
                    let one_word = b(322 + 16 * k, 321 + 16 * k) == 1;
                    let p64 = b(332 + 16 * k, 332 + 16 * k) == 1;
                    releases.push((
                        b(lo + 31, lo) | b(hi + 24, hi) << 32,
                        b(plo + 31, plo) | b(phi + 31, phi) << 32,
                        p64,
                        one_word,
                    ));
                }
            }
            QmdLaunch {
                version: b(583, 580) as u32,
                program: b(1247, 1216) | b(1272, 1248) << 32,
                grid: [b(1055, 1024) as u32, b(1071, 1056) as u32, b(1103, 1088) as u32],
                block: [b(1167, 1152) as u32, b(1183, 1168) as u32, b(1199, 1184) as u32],
                shared_bytes: b(601, 584) as u32,
                cbufs,
                releases,
                dependent: (b(368, 368) == 1 && b(371, 369) == 1).then(|| b(479, 448) << 8),
            }
        }
        5 => {
            for (i, cb) in cbufs.iter_mut().enumerate() {
                let i = i as u32;
                if b(1856 + 4 * i, 1856 + 4 * i) == 1 {
                    let s6 = b(1375 + 64 * i, 1344 + 64 * i) | b(1394 + 64 * i, 1376 + 64 * i) << 32;
                    *cb = Some((s6 << 6, (b(1407 + 64 * i, 1395 + 64 * i) as u32) << 4));
                }
            }
            if b(288, 288) == 1 {
                releases.push((b(511, 480) | b(536, 512) << 32, b(575, 544) | b(607, 576) << 32, false, false));
            }
            if b(304, 304) == 1 {
                releases.push((b(799, 768) | b(824, 800) << 32, b(863, 832) | b(895, 864) << 32, false, false));
            }
            QmdLaunch {
                version: b(471, 468) as u32,
                program: (b(1055, 1024) | b(1076, 1056) << 32) << 4,
                grid: [b(1279, 1248) as u32, b(1295, 1280) as u32, b(1327, 1312) as u32],
                block: [b(1103, 1088) as u32, b(1119, 1104) as u32, b(1127, 1120) as u32],
                shared_bytes: (b(1162, 1152) as u32) << 7,
                cbufs,
                releases,
                dependent: (b(336, 336) == 1 && b(339, 337) == 1).then(|| b(415, 384) << 8),
            }
        }
        v => return Err(format!("QMD version {v} is not modelled")),
    };
    if l.version != version {
        return Err(format!("the QMD says major version {}, the compute class takes {version}", l.version));
    }
    Ok(l)
}

/// Set bits hi:lo (for building QMDs in tests and tools).
pub fn set_bits(q: &mut [u8], hi: u32, lo: u32, v: u64) {
    for b in lo..=hi {
        let bit = (v >> (b - lo)) & 1;
        let byte = &mut q[(b / 8) as usize];
        *byte = (*byte & !(1 << (b % 8))) | ((bit as u8) << (b % 8));
    }
}

/// A V4 (Hopper) QMD for a launch: version, program, grid, block, shared memory, constant
/// bank 0, and optionally release semaphore 0 (four words, 32-bit payload).
pub fn build_v4(
    program: u64,
    grid: [u32; 3],
    block: [u32; 3],
    cb0: (u64, u32),
    release: Option<(u64, u32)>,
) -> Vec<u8> {
    let mut q = vec![0u8; 384];
    set_bits(&mut q, 583, 580, 4);
    set_bits(&mut q, 1247, 1216, program & 0xffff_ffff);
    set_bits(&mut q, 1272, 1248, program >> 32);
    set_bits(&mut q, 1055, 1024, grid[0] as u64);
    set_bits(&mut q, 1071, 1056, grid[1] as u64);
    set_bits(&mut q, 1103, 1088, grid[2] as u64);
    set_bits(&mut q, 1167, 1152, block[0] as u64);
    set_bits(&mut q, 1183, 1168, block[1] as u64);
    set_bits(&mut q, 1199, 1184, block[2] as u64);
    set_bits(&mut q, 416, 416, 1);
    let s6 = cb0.0 >> 6;
    set_bits(&mut q, 1567, 1536, s6 & 0xffff_ffff);
    set_bits(&mut q, 1586, 1568, s6 >> 32);
    set_bits(&mut q, 1599, 1587, (cb0.1 as u64).div_ceil(16));
    if let Some((addr, payload)) = release {
        set_bits(&mut q, 320, 320, 1);
        set_bits(&mut q, 671, 640, addr & 0xffff_ffff);
        set_bits(&mut q, 696, 672, addr >> 32);
        set_bits(&mut q, 735, 704, payload as u64);
    }
    q
}
