//! One wave's state and the execution loop over pre-decoded instructions.

#![allow(clippy::needless_range_loop)]

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use super::decode::{APERTURE_SIZE, PRIVATE_BASE, SHARED_BASE};
use super::fp::*;
use super::gfx9::ACC;
use super::ops::*;
use super::Segment;
use crate::amd::dispatch::{DispatchFault, GpuMemory};

/// Enough SGPRs past 127 that wide loads and pairs never index out of bounds.
pub const NSGPR: usize = 144;
/// 256 addressable VGPRs plus slack for wide accesses starting at v255.
pub const NVGPR: usize = 260;
/// The register file: gfx9's unified file holds 512 (AGPRs from ACCUM_OFFSET on), plus slack.
const NREGS: usize = 520;

/// Why a wave stopped running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Barrier,
    End,
}

/// What the wave needs from the dispatch.
pub struct Ctx<'a> {
    pub mem: &'a GpuMemory,
    pub cancel: &'a crate::amd::dispatch::Cancel,
    pub code: &'a dyn Fn(u64) -> Result<(Arc<Segment>, usize), DispatchFault>,
}

pub struct Wave<const W: usize> {
    pub s: [u32; NSGPR],
    pub scc: bool,
    pub v: Vec<[u32; W]>,
    pub seg: Arc<Segment>,
    pub ip: usize,
    /// VA of this wave's scratch and the bytes each lane owns there.
    pub scratch: u64,
    pub lane_bytes: u64,
    /// gfx9: the VGPR index of a0 in the unified file (ACCUM_OFFSET).
    pub accum: usize,
    /// gfx9: VGPR indexing by M0 (`s_set_gpr_idx_on`) is on.
    pub gpr_idx: bool,
    pub mode: u32,
    /// Wave instructions executed.
    pub count: u64,
    pub done: bool,
}

const VCC: usize = 106;
const EXEC: usize = 126;
const NULL: usize = 124;
/// M0 (the SGPR file index the hardware gives it on gfx11 and gfx12).
const M0_REG: usize = 125;

fn f(x: u64) -> f32 {
    f32::from_bits(x as u32)
}
fn fb(x: f32) -> u64 {
    x.to_bits() as u64
}
fn d(x: u64) -> f64 {
    f64::from_bits(x)
}
fn db(x: f64) -> u64 {
    x.to_bits()
}
fn hf(x: u64) -> f32 {
    f16_to_f32(x as u16)
}
fn hb(x: f32) -> u64 {
    f32_to_f16(x) as u64
}
fn sx16(x: u64) -> i32 {
    x as u16 as i16 as i32
}

fn min3<T: PartialOrd + Copy>(a: T, b: T, c: T) -> T {
    let m = if b < a { b } else { a };
    if c < m {
        c
    } else {
        m
    }
}
fn max3<T: PartialOrd + Copy>(a: T, b: T, c: T) -> T {
    let m = if b > a { b } else { a };
    if c > m {
        c
    } else {
        m
    }
}
fn med3<T: PartialOrd + Copy>(a: T, b: T, c: T) -> T {
    let mx = max3(a, b, c);
    if mx == a {
        if b > c {
            b
        } else {
            c
        }
    } else if mx == b {
        if a > c {
            a
        } else {
            c
        }
    } else if a > b {
        a
    } else {
        b
    }
}
fn fmed3(a: f32, b: f32, c: f32) -> f32 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return a.min(b).min(c);
    }
    med3(a, b, c)
}
fn fmin(a: f32, b: f32) -> f32 {
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}
fn fmax(a: f32, b: f32) -> f32 {
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}
fn dmin(a: f64, b: f64) -> f64 {
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { a } else { b };
    }
    a.min(b)
}
fn dmax(a: f64, b: f64) -> f64 {
    if a == 0.0 && b == 0.0 {
        return if a.is_sign_negative() { b } else { a };
    }
    a.max(b)
}
fn bfe(x: u32, off: u32, w: u32) -> u32 {
    let (off, w) = (off & 31, w & 31);
    if w == 0 {
        0
    } else {
        (x >> off) & (((1u64 << w) - 1) as u32)
    }
}
fn bfe_i(x: u32, off: u32, w: u32) -> u32 {
    let (off, w) = (off & 31, w & 31);
    if w == 0 {
        0
    } else {
        let v = (x >> off) as i32;
        let sh = 32 - w;
        ((v << sh) >> sh) as u32
    }
}
fn perm(a: u32, b: u32, sel: u32) -> u32 {
    let bytes = ((a as u64) << 32) | b as u64;
    let mut r = 0u32;
    for k in 0..4 {
        let s = (sel >> (8 * k)) & 0xff;
        let v: u32 = match s {
            0..=7 => ((bytes >> (8 * s)) & 0xff) as u32,
            8 => {
                if bytes >> 15 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            9 => {
                if bytes >> 31 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            10 => {
                if bytes >> 47 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            11 => {
                if bytes >> 63 & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        r |= v << (8 * k);
    }
    r
}
fn cls32(x: i32) -> u32 {
    if x == 0 || x == -1 {
        u32::MAX
    } else {
        (if x < 0 { (!x).leading_zeros() } else { x.leading_zeros() }) - 1 + 1
    }
}

/// gfx950 `v_bitop3`: each result bit is `table[s0 << 2 | s1 << 1 | s2]` of the source bits.
fn bitop3(table: u8, a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for k in 0..8 {
        if table >> k & 1 != 0 {
            let pick = |x: u32, bit: u32| if k >> bit & 1 != 0 { x } else { !x };
            r |= pick(a, 2) & pick(b, 1) & pick(c, 0);
        }
    }
    r
}

/// VOP3P packed 16-bit operations (and v_dot2), executed per half.
pub fn packed(op: VOp) -> bool {
    use VOp::*;
    matches!(
        op,
        PkAddF16
            | PkMulF16
            | PkFmaF16
            | PkMaxF16
            | PkMinF16
            | PkAddU16
            | PkSubU16
            | PkAddI16
            | PkSubI16
            | PkMulLoU16
            | PkLshlrevB16
            | PkLshrrevB16
            | PkAshrrevI16
            | PkMaxI16
            | PkMinI16
            | PkMaxU16
            | PkMinU16
            | PkMadU16
            | PkMadI16
            | Dot2F32F16
    )
}

fn pk_half(op: VOp, x: u32, y: u32, z: u32, clamp: bool) -> u32 {
    use VOp::*;
    let (sx, sy, sz) = (x as u16 as i16 as i32, y as u16 as i16 as i32, z as u16 as i16 as i32);
    let fh = |r: f32| f32_to_f16(if clamp { r.clamp(0.0, 1.0) } else { r }) as u32;
    let r = match op {
        PkAddF16 => fh(hf(x as u64) + hf(y as u64)),
        PkMulF16 => fh(hf(x as u64) * hf(y as u64)),
        PkFmaF16 => f64_to_f16((hf(x as u64) as f64).mul_add(hf(y as u64) as f64, hf(z as u64) as f64)) as u32,
        PkMaxF16 => fh(fmax(hf(x as u64), hf(y as u64))),
        PkMinF16 => fh(fmin(hf(x as u64), hf(y as u64))),
        PkAddU16 | PkAddI16 => x.wrapping_add(y),
        PkSubU16 | PkSubI16 => x.wrapping_sub(y),
        PkMulLoU16 => x.wrapping_mul(y),
        PkLshlrevB16 => (y & 0xffff) << (x & 15),
        PkLshrrevB16 => (y & 0xffff) >> (x & 15),
        PkAshrrevI16 => (sy >> (x & 15)) as u32,
        PkMaxI16 => sx.max(sy) as u32,
        PkMinI16 => sx.min(sy) as u32,
        PkMaxU16 => (x & 0xffff).max(y & 0xffff),
        PkMinU16 => (x & 0xffff).min(y & 0xffff),
        PkMadU16 => x.wrapping_mul(y).wrapping_add(z),
        PkMadI16 => sx.wrapping_mul(sy).wrapping_add(sz) as u32,
        _ => 0,
    };
    r & 0xffff
}

/// The result of a VALU operation before it is committed.
struct Out<const W: usize> {
    r: [u64; W],
    /// Lane mask result (compares, carries).
    mask: u64,
    /// Lanes whose VGPR result is written.
    wmask: u64,
}

impl<const W: usize> Wave<W> {
    pub fn new(seg: Arc<Segment>) -> Self {
        Wave {
            s: [0; NSGPR],
            scc: false,
            v: vec![[0u32; W]; NREGS],
            seg,
            ip: 0,
            scratch: 0,
            lane_bytes: 0,
            accum: NVGPR,
            gpr_idx: false,
            mode: 0,
            count: 0,
            done: false,
        }
    }

    #[inline(always)]
    fn lane_mask() -> u64 {
        if W == 64 {
            u64::MAX
        } else {
            (1u64 << W) - 1
        }
    }
    #[inline(always)]
    pub fn exec(&self) -> u64 {
        (self.s[EXEC] as u64 | ((self.s[EXEC + 1] as u64) << 32)) & Self::lane_mask()
    }
    #[inline(always)]
    fn set_exec(&mut self, m: u64) {
        self.s[EXEC] = m as u32;
        if W == 64 {
            self.s[EXEC + 1] = (m >> 32) as u32;
        }
    }
    #[inline(always)]
    fn vcc(&self) -> u64 {
        (self.s[VCC] as u64 | ((self.s[VCC + 1] as u64) << 32)) & Self::lane_mask()
    }
    #[inline(always)]
    fn s64(&self, n: u8) -> u64 {
        let n = n as usize;
        self.s[n] as u64 | ((self.s[n + 1] as u64) << 32)
    }
    #[inline(always)]
    fn ws(&mut self, n: usize, v: u32) {
        if n != NULL && n < NSGPR {
            self.s[n] = v;
        }
    }
    #[inline(always)]
    fn ws64(&mut self, n: usize, v: u64) {
        self.ws(n, v as u32);
        self.ws(n + 1, (v >> 32) as u32);
    }
    /// A lane mask write: one SGPR in wave32, a pair in wave64.
    #[inline(always)]
    fn wmask(&mut self, n: usize, m: u64) {
        if n == EXEC {
            self.set_exec(m);
        } else if W == 64 {
            self.ws64(n, m)
        } else {
            self.ws(n, m as u32)
        }
    }

    #[inline(always)]
    fn sval(&self, s: Ss, ty: Ty) -> u64 {
        match s {
            Ss::R(n) => {
                if ty.is64() || (ty == Ty::Mask && W == 64) {
                    self.s64(n)
                } else if ty.is16() {
                    (self.s[n as usize] & 0xffff) as u64
                } else {
                    self.s[n as usize] as u64
                }
            }
            Ss::K(k) => k,
            Ss::Scc => self.scc as u64,
            Ss::Vccz => (self.vcc() == 0) as u64,
            Ss::Execz => (self.exec() == 0) as u64,
        }
    }

    #[inline(always)]
    fn vsrc(&self, s: Vs, ty: Ty, hi: bool) -> [u64; W] {
        let mut out = [0u64; W];
        match s {
            Vs::V(r) => {
                let r = r as usize;
                let a = &self.v[r];
                if ty.is64() {
                    let b = &self.v[r + 1];
                    for i in 0..W {
                        out[i] = a[i] as u64 | ((b[i] as u64) << 32);
                    }
                } else if ty.is16() {
                    let sh = if hi { 16 } else { 0 };
                    for i in 0..W {
                        out[i] = ((a[i] >> sh) & 0xffff) as u64;
                    }
                } else {
                    for i in 0..W {
                        out[i] = a[i] as u64;
                    }
                }
            }
            Vs::S(ss) => {
                let mut x = self.sval(ss, ty);
                if hi && ty.is16() {
                    if let Ss::R(n) = ss {
                        x = (self.s[n as usize] >> 16) as u64;
                    }
                }
                out = [x; W];
            }
        }
        out
    }

    /// DPP: permute src0 across lanes; returns the lanes that may be written.
    fn dpp(&self, dpp: Dpp, a: &mut [u64; W], exec: u64) -> u64 {
        let orig = *a;
        let mut wm = exec;
        match dpp {
            Dpp::None => {}
            Dpp::D8 { sel, .. } => {
                for l in 0..W {
                    let k = (sel >> (3 * (l % 8))) & 7;
                    a[l] = orig[(l & !7) + k as usize];
                }
            }
            Dpp::D16 { ctrl, row_mask, bank_mask, bound_ctrl, fi } => {
                for l in 0..W {
                    let row = l / 16;
                    let bank = (l % 16) / 4;
                    if row_mask >> (row & 3) & 1 == 0 || bank_mask >> bank & 1 == 0 {
                        wm &= !(1u64 << l);
                        continue;
                    }
                    let base = l & !15;
                    let li = (l % 16) as i32;
                    let c = ctrl as i32;
                    let src: Option<usize> = match c {
                        0..=0xff => Some((l & !3) + ((c >> (2 * (l % 4))) & 3) as usize),
                        0x101..=0x10f => {
                            let s = li + (c - 0x100);
                            (s < 16).then(|| base + s as usize)
                        }
                        0x111..=0x11f => {
                            let s = li - (c - 0x110);
                            (s >= 0).then(|| base + s as usize)
                        }
                        0x121..=0x12f => Some(base + ((li - (c - 0x120)).rem_euclid(16)) as usize),
                        // gfx9 only (reserved on gfx10+): whole-wave shifts and rotates by one,
                        // and the row broadcasts of lane 15 / lane 31.
                        0x130 => Some(l + 1),
                        0x134 => Some((l + 1) % W),
                        0x138 => l.checked_sub(1),
                        0x13c => Some((l + W - 1) % W),
                        0x142 => (row >= 1).then(|| (row - 1) * 16 + 15),
                        0x143 => (row >= 2).then_some(31),
                        0x140 => Some(base + (15 - li) as usize),
                        0x141 => Some((l & !7) + (7 - (l % 8))),
                        0x150..=0x15f => Some(base + (c - 0x150) as usize),
                        0x160..=0x16f => Some(base + ((li ^ (c - 0x160)) as usize)),
                        _ => None,
                    };
                    match src {
                        Some(s) if s < W && (fi || exec >> s & 1 != 0) => a[l] = orig[s],
                        _ => {
                            if bound_ctrl {
                                a[l] = 0;
                            } else {
                                wm &= !(1u64 << l);
                            }
                        }
                    }
                }
            }
        }
        wm
    }

    fn read_srcs(&self, v: &Valu) -> [[u64; W]; 3] {
        let mut srcs = [[0u64; W]; 3];
        for k in 0..v.nsrc as usize {
            let ty = v.tys[k];
            let mut a = if ty == Ty::Mask {
                [self.sval(
                    match v.src[k] {
                        Vs::S(s) => s,
                        Vs::V(_) => Ss::K(0),
                    },
                    Ty::Mask,
                ); W]
            } else {
                self.vsrc(v.src[k], ty, v.opsel >> k & 1 != 0)
            };
            if ty.is_float() && (v.abs | v.neg) >> k & 1 != 0 {
                let sign = match ty {
                    Ty::F16 => 0x8000u64,
                    Ty::F32 => 0x8000_0000,
                    _ => 1 << 63,
                };
                let ab = v.abs >> k & 1 != 0;
                let ng = v.neg >> k & 1 != 0;
                for x in a.iter_mut() {
                    if ab {
                        *x &= !sign;
                    }
                    if ng {
                        *x ^= sign;
                    }
                }
            }
            srcs[k] = a;
        }
        srcs
    }

    fn compute(&self, v: &Valu, exec: u64) -> Result<Out<W>, String> {
        if packed(v.op) {
            return Ok(self.packed_op(v, exec));
        }
        let [mut a, b, c] = self.read_srcs(v);
        let wmask = if v.dpp != Dpp::None { self.dpp(v.dpp, &mut a, exec) } else { exec };
        let mut r = [0u64; W];
        let mut mask = 0u64;
        macro_rules! map {
            (|$x:ident, $y:ident, $z:ident, $l:ident| $e:expr) => {{
                for $l in 0..W {
                    let $x = a[$l];
                    let $y = b[$l];
                    let $z = c[$l];
                    r[$l] = $e;
                }
            }};
            (|$x:ident, $y:ident, $z:ident| $e:expr) => {{
                for l in 0..W {
                    let $x = a[l];
                    let $y = b[l];
                    let $z = c[l];
                    r[l] = $e;
                }
            }};
        }
        macro_rules! carry {
            (|$x:ident, $y:ident, $z:ident, $l:ident| $e:expr) => {{
                for $l in 0..W {
                    let $x = a[$l];
                    let $y = b[$l];
                    let $z = c[$l];
                    let (res, co): (u64, bool) = $e;
                    r[$l] = res;
                    mask |= (co as u64) << $l;
                }
            }};
        }
        use VOp::*;
        #[allow(unused_variables)]
        match v.op {
            // Integer clamp: unsigned saturation.
            AddU32 if v.clamp => map!(|x, y, z| (x as u32).saturating_add(y as u32) as u64),
            SubU32 if v.clamp => map!(|x, y, z| (x as u32).saturating_sub(y as u32) as u64),
            SubrevU32 if v.clamp => map!(|x, y, z| (y as u32).saturating_sub(x as u32) as u64),
            AddU32 => map!(|x, y, z| (x as u32).wrapping_add(y as u32) as u64),
            SubU32 => map!(|x, y, z| (x as u32).wrapping_sub(y as u32) as u64),
            SubrevU32 => map!(|x, y, z| (y as u32).wrapping_sub(x as u32) as u64),
            MulLo => map!(|x, y, z| (x as u32).wrapping_mul(y as u32) as u64),
            MulHiU => map!(|x, y, z| (x as u32 as u64 * y as u32 as u64) >> 32),
            MulHiI => map!(|x, y, z| (((x as i32 as i64 * y as i32 as i64) >> 32) as u32) as u64),
            MulU24 => map!(|x, y, z| ((x as u32 & 0xff_ffff).wrapping_mul(y as u32 & 0xff_ffff)) as u64),
            MulI24 => map!(|x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8) as i64 * ((((y as u32) << 8) as i32 >> 8) as i64);
                p as u32 as u64
            }),
            MulHiU24 => map!(|x, y, z| (((x & 0xff_ffff) * (y & 0xff_ffff)) >> 32) & 0xffff_ffff),
            MulHiI24 => map!(|x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8) as i64 * ((((y as u32) << 8) as i32 >> 8) as i64);
                (p >> 32) as u32 as u64
            }),
            LshlRev => map!(|x, y, z| ((y as u32) << (x & 31)) as u64),
            LshrRev => map!(|x, y, z| ((y as u32) >> (x & 31)) as u64),
            AshrRev => map!(|x, y, z| ((y as u32 as i32) >> (x & 31)) as u32 as u64),
            And => map!(|x, y, z| x & y),
            Or => map!(|x, y, z| x | y),
            Xor => map!(|x, y, z| x ^ y),
            Xnor => map!(|x, y, z| !(x ^ y) & 0xffff_ffff),
            MinI => map!(|x, y, z| (x as u32 as i32).min(y as u32 as i32) as u32 as u64),
            MaxI => map!(|x, y, z| (x as u32 as i32).max(y as u32 as i32) as u32 as u64),
            MinU => map!(|x, y, z| x.min(y)),
            MaxU => map!(|x, y, z| x.max(y)),
            Bfm => map!(|x, y, z| ((((1u64 << (x & 31)) - 1) as u32) << (y & 31)) as u64),
            Bcnt => map!(|x, y, z| x.count_ones().wrapping_add(y as u32) as u64),
            MbcntLo => map!(|x, y, z, l| {
                let m = (x as u32) & ((1u64 << l.min(32)) - 1) as u32;
                (m.count_ones()).wrapping_add(y as u32) as u64
            }),
            MbcntHi => map!(|x, y, z, l| {
                let m = if l > 32 { (x as u32) & ((1u64 << (l - 32)) - 1) as u32 } else { 0 };
                (m.count_ones()).wrapping_add(y as u32) as u64
            }),
            Add3 => map!(|x, y, z| (x as u32).wrapping_add(y as u32).wrapping_add(z as u32) as u64),
            LshlAdd => map!(|x, y, z| ((x as u32) << (y & 31)).wrapping_add(z as u32) as u64),
            AddLshl => map!(|x, y, z| ((x as u32).wrapping_add(y as u32) << (z & 31)) as u64),
            LshlOr => map!(|x, y, z| (((x as u32) << (y & 31)) | z as u32) as u64),
            AndOr => map!(|x, y, z| (x & y) | z),
            Or3 => map!(|x, y, z| x | y | z),
            Xor3 => map!(|x, y, z| x ^ y ^ z),
            Xad => map!(|x, y, z| ((x as u32 ^ y as u32).wrapping_add(z as u32)) as u64),
            BfeU => map!(|x, y, z| bfe(x as u32, y as u32, z as u32) as u64),
            BfeI => map!(|x, y, z| bfe_i(x as u32, y as u32, z as u32) as u64),
            Bfi => map!(|x, y, z| (x & y) | (!x & z & 0xffff_ffff)),
            Alignbit => map!(|x, y, z| ((((x << 32) | y) >> (z & 31)) as u32) as u64),
            Alignbyte => map!(|x, y, z| ((((x << 32) | y) >> (8 * (z & 3))) as u32) as u64),
            Perm => map!(|x, y, z| perm(x as u32, y as u32, z as u32) as u64),
            MadU24 => {
                map!(|x, y, z| ((x as u32 & 0xff_ffff).wrapping_mul(y as u32 & 0xff_ffff)).wrapping_add(z as u32) as u64)
            }
            MadI24 => map!(|x, y, z| {
                let p = (((x as u32) << 8) as i32 >> 8).wrapping_mul(((y as u32) << 8) as i32 >> 8);
                p.wrapping_add(z as u32 as i32) as u32 as u64
            }),
            Min3I => map!(|x, y, z| min3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Max3I => map!(|x, y, z| max3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Med3I => map!(|x, y, z| med3(x as u32 as i32, y as u32 as i32, z as u32 as i32) as u32 as u64),
            Min3U => map!(|x, y, z| min3(x, y, z)),
            Max3U => map!(|x, y, z| max3(x, y, z)),
            Med3U => map!(|x, y, z| med3(x, y, z)),
            Mov | MovB16 | Mov64 => map!(|x, y, z| x),
            Not => map!(|x, y, z| !x & 0xffff_ffff),
            NotB16 => map!(|x, y, z| !x & 0xffff),
            Bfrev => map!(|x, y, z| (x as u32).reverse_bits() as u64),
            Clz => map!(|x, y, z| if x as u32 == 0 { u32::MAX as u64 } else { (x as u32).leading_zeros() as u64 }),
            Ctz => map!(|x, y, z| if x as u32 == 0 { u32::MAX as u64 } else { (x as u32).trailing_zeros() as u64 }),
            Cls => map!(|x, y, z| cls32(x as u32 as i32) as u64),
            Cndmask | CndmaskB16 => map!(|x, y, z, l| if z >> l & 1 != 0 { y } else { x }),
            SadU32 => map!(|x, y, z| ((x as u32).abs_diff(y as u32)).wrapping_add(z as u32) as u64),
            AddU16 => map!(|x, y, z| (x + y) & 0xffff),
            SubU16 => map!(|x, y, z| x.wrapping_sub(y) & 0xffff),
            AddI16 => map!(|x, y, z| (x + y) & 0xffff),
            SubI16 => map!(|x, y, z| x.wrapping_sub(y) & 0xffff),
            MulLoU16 => map!(|x, y, z| (x * y) & 0xffff),
            MadU16 => map!(|x, y, z| (x * y + z) & 0xffff),
            LshlRevB16 => map!(|x, y, z| (y << (x & 15)) & 0xffff),
            LshrRevB16 => map!(|x, y, z| (y >> (x & 15)) & 0xffff),
            AshrRevB16 => map!(|x, y, z| ((sx16(y) >> (x & 15)) as u32 & 0xffff) as u64),
            AndB16 => map!(|x, y, z| x & y),
            OrB16 => map!(|x, y, z| x | y),
            XorB16 => map!(|x, y, z| x ^ y),
            MaxU16 => map!(|x, y, z| x.max(y)),
            MinU16 => map!(|x, y, z| x.min(y)),
            MaxI16 => map!(|x, y, z| (sx16(x).max(sx16(y)) as u32 & 0xffff) as u64),
            MinI16 => map!(|x, y, z| (sx16(x).min(sx16(y)) as u32 & 0xffff) as u64),
            PackB32F16 => map!(|x, y, z| (x & 0xffff) | ((y & 0xffff) << 16)),
            CvtPkI16I32 => map!(|x, y, z| {
                let c = |v: u64| ((v as u32 as i32).clamp(-32768, 32767) as u32 & 0xffff) as u64;
                c(x) | (c(y) << 16)
            }),
            CvtPkU16U32 => map!(|x, y, z| (x.min(0xffff)) | (y.min(0xffff) << 16)),
            SextI32I16 => map!(|x, y, z| sx16(x) as u32 as u64),
            Bcnt16 => map!(|x, y, z| (x as u16).count_ones() as u64),
            CvtU32U16F16 => map!(|x, y, z| x & 0xffff),
            AddCo => carry!(|x, y, z, l| {
                let s = x + y;
                (s & 0xffff_ffff, s >> 32 != 0)
            }),
            SubCo => carry!(|x, y, z, l| (x.wrapping_sub(y) & 0xffff_ffff, y > x)),
            SubrevCo => carry!(|x, y, z, l| (y.wrapping_sub(x) & 0xffff_ffff, x > y)),
            AddCoCi => carry!(|x, y, z, l| {
                let s = x + y + (z >> l & 1);
                (s & 0xffff_ffff, s >> 32 != 0)
            }),
            SubCoCi => carry!(|x, y, z, l| {
                let ci = z >> l & 1;
                (x.wrapping_sub(y).wrapping_sub(ci) & 0xffff_ffff, y + ci > x)
            }),
            SubrevCoCi => carry!(|x, y, z, l| {
                let ci = z >> l & 1;
                (y.wrapping_sub(x).wrapping_sub(ci) & 0xffff_ffff, x + ci > y)
            }),
            MadU64U32 => carry!(|x, y, z, l| {
                let p = (x as u32 as u128) * (y as u32 as u128) + z as u128;
                (p as u64, p >> 64 != 0)
            }),
            MadI64I32 => carry!(|x, y, z, l| {
                let p = (x as u32 as i32 as i128) * (y as u32 as i32 as i128) + (z as i64 as i128);
                (p as u64, p != (p as i64) as i128)
            }),
            LshlRev64 => map!(|x, y, z| y << (x & 63)),
            LshrRev64 => map!(|x, y, z| y >> (x & 63)),
            AshrRev64 => map!(|x, y, z| ((y as i64) >> (x & 63)) as u64),
            AddU64 => map!(|x, y, z| x.wrapping_add(y)),
            LshlAddU64 => map!(|x, y, z| (x << (y & 7)).wrapping_add(z)),
            Bitop3 => {
                let t = v.imm;
                map!(|x, y, z| bitop3(t, x as u32, y as u32, z as u32) as u64)
            }
            AddF32 => map!(|x, y, z| fb(f(x) + f(y))),
            SubF32 => map!(|x, y, z| fb(f(x) - f(y))),
            SubrevF32 => map!(|x, y, z| fb(f(y) - f(x))),
            MulF32 => map!(|x, y, z| fb(f(x) * f(y))),
            MulLegacyF32 => map!(|x, y, z| if f(x) == 0.0 || f(y) == 0.0 { 0 } else { fb(f(x) * f(y)) }),
            MinF32 => map!(|x, y, z| fb(fmin(f(x), f(y)))),
            MaxF32 => map!(|x, y, z| fb(fmax(f(x), f(y)))),
            MinimumF32 => {
                map!(|x, y, z| if f(x).is_nan() || f(y).is_nan() { 0x7fc0_0000 } else { fb(fmin(f(x), f(y))) })
            }
            MaximumF32 => {
                map!(|x, y, z| if f(x).is_nan() || f(y).is_nan() { 0x7fc0_0000 } else { fb(fmax(f(x), f(y))) })
            }
            LdexpF32 => map!(|x, y, z| fb(ldexp32(f(x), y as u32 as i32))),
            FmaF32 => map!(|x, y, z| fb(f(x).mul_add(f(y), f(z)))),
            FmaLegacyF32 => {
                map!(|x, y, z| if f(x) == 0.0 || f(y) == 0.0 { fb(0.0 + f(z)) } else { fb(f(x).mul_add(f(y), f(z))) })
            }
            DivFixupF32 => map!(|x, y, z| {
                let (s1, s2) = (f(y), f(z));
                fb(div_fixup(f(x) as f64, s1 as f64, s2 as f64, 150, exp32(s1), exp32(s2), 255) as f32)
            }),
            DivFmasF32 => {
                let vcc = self.vcc();
                map!(|x, y, z, l| fb(div_fmas32(f(x), f(y), f(z), vcc >> l & 1 != 0)))
            }
            DivScaleF32 => carry!(|x, y, z, l| {
                let (r, v) = div_scale32(f(x), f(y), f(z));
                (fb(r), v)
            }),
            Med3F32 => map!(|x, y, z| fb(fmed3(f(x), f(y), f(z)))),
            Min3F32 => map!(|x, y, z| fb(fmin(fmin(f(x), f(y)), f(z)))),
            Max3F32 => map!(|x, y, z| fb(fmax(fmax(f(x), f(y)), f(z)))),
            RcpF32 => map!(|x, y, z| fb(1.0 / f(x))),
            RsqF32 => map!(|x, y, z| fb((1.0 / (f(x) as f64).sqrt()) as f32)),
            SqrtF32 => map!(|x, y, z| fb(f(x).sqrt())),
            ExpF32 => map!(|x, y, z| fb(f(x).exp2())),
            LogF32 => map!(|x, y, z| fb(f(x).log2())),
            SinF32 => map!(|x, y, z| fb((f(x) as f64 * std::f64::consts::TAU).sin() as f32)),
            CosF32 => map!(|x, y, z| fb((f(x) as f64 * std::f64::consts::TAU).cos() as f32)),
            FloorF32 => map!(|x, y, z| fb(f(x).floor())),
            CeilF32 => map!(|x, y, z| fb(f(x).ceil())),
            TruncF32 => map!(|x, y, z| fb(f(x).trunc())),
            RndneF32 => map!(|x, y, z| fb(f(x).round_ties_even())),
            FractF32 => map!(|x, y, z| fb(fract32(f(x)))),
            FrexpMantF32 => map!(|x, y, z| fb(frexp64(f(x) as f64).0 as f32)),
            FrexpExpF32 => map!(|x, y, z| frexp_exp32(f(x)) as u32 as u64),
            CvtF32I32 => map!(|x, y, z| fb(x as u32 as i32 as f32)),
            CvtF32U32 => map!(|x, y, z| fb(x as u32 as f32)),
            CvtI32F32 => map!(|x, y, z| f2i(f(x) as f64) as u32 as u64),
            CvtU32F32 => map!(|x, y, z| f2u(f(x) as f64) as u64),
            CvtF32Ubyte0 => map!(|x, y, z| fb((x & 0xff) as f32)),
            CvtF32Ubyte1 => map!(|x, y, z| fb((x >> 8 & 0xff) as f32)),
            CvtF32Ubyte2 => map!(|x, y, z| fb((x >> 16 & 0xff) as f32)),
            CvtF32Ubyte3 => map!(|x, y, z| fb((x >> 24 & 0xff) as f32)),
            CvtRpiI32F32 => map!(|x, y, z| f2i((f(x) as f64 + 0.5).floor()) as u32 as u64),
            CvtFlrI32F32 => map!(|x, y, z| f2i((f(x) as f64).floor()) as u32 as u64),
            ClassF32 => map!(|x, y, z| (class32(f(x)) & y as u32 != 0) as u64),
            CvtPkRtzF16F32 => map!(|x, y, z| f32_to_f16_rtz(f(x)) as u64 | ((f32_to_f16_rtz(f(y)) as u64) << 16)),
            CvtPkF32ToF16 => map!(|x, y, z| hb(f(x)) | (hb(f(y)) << 16)),
            CvtPkNormI16F32 => return Err("v_cvt_pk_norm_i16_f32: not supported".into()),
            CvtF32F16 => map!(|x, y, z| fb(hf(x))),
            CvtF16F32 => map!(|x, y, z| hb(f(x))),
            AddF16 => map!(|x, y, z| hb(hf(x) + hf(y))),
            SubF16 => map!(|x, y, z| hb(hf(x) - hf(y))),
            SubrevF16 => map!(|x, y, z| hb(hf(y) - hf(x))),
            MulF16 => map!(|x, y, z| hb(hf(x) * hf(y))),
            FmaF16 => map!(|x, y, z| f64_to_f16((hf(x) as f64).mul_add(hf(y) as f64, hf(z) as f64)) as u64),
            MaxF16 => map!(|x, y, z| hb(fmax(hf(x), hf(y)))),
            MinF16 => map!(|x, y, z| hb(fmin(hf(x), hf(y)))),
            LdexpF16 => map!(|x, y, z| f64_to_f16(ldexp64(hf(x) as f64, sx16(y))) as u64),
            SqrtF16 => map!(|x, y, z| hb(hf(x).sqrt())),
            RcpF16 => map!(|x, y, z| hb(1.0 / hf(x))),
            RsqF16 => map!(|x, y, z| hb(1.0 / hf(x).sqrt())),
            ExpF16 => map!(|x, y, z| hb(hf(x).exp2())),
            LogF16 => map!(|x, y, z| hb(hf(x).log2())),
            FloorF16 => map!(|x, y, z| hb(hf(x).floor())),
            CeilF16 => map!(|x, y, z| hb(hf(x).ceil())),
            TruncF16 => map!(|x, y, z| hb(hf(x).trunc())),
            RndneF16 => map!(|x, y, z| hb(hf(x).round_ties_even())),
            FractF16 => map!(|x, y, z| hb(fract32(hf(x)).min(f16_to_f32(0x3bff)))),
            CvtF16I16 => map!(|x, y, z| hb(sx16(x) as f32)),
            CvtF16U16 => map!(|x, y, z| hb((x & 0xffff) as f32)),
            CvtI16F16 => map!(|x, y, z| (f2i(hf(x) as f64).clamp(-32768, 32767) as u32 & 0xffff) as u64),
            CvtU16F16 => map!(|x, y, z| (f2u(hf(x) as f64).min(0xffff)) as u64),
            CvtI32I16F16 => map!(|x, y, z| f2i(hf(x) as f64) as u32 as u64),
            DivFixupF16 => map!(|x, y, z| {
                let (s1, s2) = (hf(y), hf(z));
                let e = |v: f32| ((f32_to_f16(v) >> 10) & 0x1f) as i32;
                f64_to_f16(div_fixup(hf(x) as f64, s1 as f64, s2 as f64, 25, e(s1), e(s2), 31)) as u64
            }),
            ClassF16 => map!(|x, y, z| (class16(x as u16) & y as u32 != 0) as u64),
            Med3F16 => map!(|x, y, z| hb(fmed3(hf(x), hf(y), hf(z)))),
            Min3F16 => map!(|x, y, z| hb(fmin(fmin(hf(x), hf(y)), hf(z)))),
            Max3F16 => map!(|x, y, z| hb(fmax(fmax(hf(x), hf(y)), hf(z)))),
            FmaMixF32 | FmaMixLoF16 | FmaMixHiF16 => {
                // Sources are f32, or f16 (lo/hi by opsel) where opsel_hi is set.
                let mut s = [[0f64; W]; 3];
                for k in 0..3 {
                    let raw = self.vsrc(v.src[k], Ty::B32, false);
                    let is16 = v.opsel_hi >> k & 1 != 0;
                    let hi = v.opsel >> k & 1 != 0;
                    for l in 0..W {
                        let mut x = if is16 {
                            hf(if hi { raw[l] >> 16 } else { raw[l] & 0xffff }) as f64
                        } else {
                            f(raw[l]) as f64
                        };
                        if v.abs >> k & 1 != 0 {
                            x = x.abs();
                        }
                        if v.neg >> k & 1 != 0 {
                            x = -x;
                        }
                        s[k][l] = x;
                    }
                }
                let old = if v.op == FmaMixF32 { [0u64; W] } else { self.vsrc(Vs::V(v.dst), Ty::B32, false) };
                for l in 0..W {
                    let p = (s[0][l] as f32).mul_add(s[1][l] as f32, s[2][l] as f32);
                    let p = if v.clamp { p.clamp(0.0, 1.0) } else { p };
                    r[l] = match v.op {
                        FmaMixF32 => fb(p),
                        FmaMixLoF16 => (old[l] & 0xffff_0000) | f64_to_f16(s[0][l].mul_add(s[1][l], s[2][l])) as u64,
                        _ => (old[l] & 0xffff) | ((f64_to_f16(s[0][l].mul_add(s[1][l], s[2][l])) as u64) << 16),
                    };
                }
                return Ok(Out { r, mask: 0, wmask });
            }
            AddF64 => map!(|x, y, z| db(d(x) + d(y))),
            MulF64 => map!(|x, y, z| db(d(x) * d(y))),
            FmaF64 => map!(|x, y, z| db(d(x).mul_add(d(y), d(z)))),
            MinF64 => map!(|x, y, z| db(dmin(d(x), d(y)))),
            MaxF64 => map!(|x, y, z| db(dmax(d(x), d(y)))),
            MinimumF64 => {
                map!(|x, y, z| if d(x).is_nan() || d(y).is_nan() { db(f64::NAN) } else { db(dmin(d(x), d(y))) })
            }
            MaximumF64 => {
                map!(|x, y, z| if d(x).is_nan() || d(y).is_nan() { db(f64::NAN) } else { db(dmax(d(x), d(y))) })
            }
            LdexpF64 => map!(|x, y, z| db(ldexp64(d(x), y as u32 as i32))),
            DivScaleF64 => carry!(|x, y, z, l| {
                let (r, v) = div_scale64(d(x), d(y), d(z));
                (db(r), v)
            }),
            DivFmasF64 => {
                let vcc = self.vcc();
                map!(|x, y, z, l| db(div_fmas64(d(x), d(y), d(z), vcc >> l & 1 != 0)))
            }
            DivFixupF64 => map!(|x, y, z| db(div_fixup(d(x), d(y), d(z), 1075, exp64(d(y)), exp64(d(z)), 2047))),
            RcpF64 => map!(|x, y, z| db(1.0 / d(x))),
            RsqF64 => map!(|x, y, z| db(1.0 / d(x).sqrt())),
            SqrtF64 => map!(|x, y, z| db(d(x).sqrt())),
            FloorF64 => map!(|x, y, z| db(d(x).floor())),
            CeilF64 => map!(|x, y, z| db(d(x).ceil())),
            TruncF64 => map!(|x, y, z| db(d(x).trunc())),
            RndneF64 => map!(|x, y, z| db(d(x).round_ties_even())),
            FractF64 => map!(|x, y, z| db(fract64(d(x)))),
            FrexpMantF64 => map!(|x, y, z| db(frexp64(d(x)).0)),
            FrexpExpF64 => map!(|x, y, z| frexp64(d(x)).1 as u32 as u64),
            CvtF64I32 => map!(|x, y, z| db(x as u32 as i32 as f64)),
            CvtF64U32 => map!(|x, y, z| db(x as u32 as f64)),
            CvtI32F64 => map!(|x, y, z| f2i(d(x)) as u32 as u64),
            CvtU32F64 => map!(|x, y, z| f2u(d(x)) as u64),
            CvtF64F32 => map!(|x, y, z| db(f(x) as f64)),
            CvtF32F64 => map!(|x, y, z| fb(d(x) as f32)),
            ClassF64 => map!(|x, y, z| (class_f64(d(x)) & y as u32 != 0) as u64),
            Permlane16 | PermlaneX16 => {
                let (sel_lo, sel_hi) = (b[0] as u32, c[0] as u32);
                for l in 0..W {
                    let i = l % 16;
                    let sel = if i < 8 { sel_lo >> (4 * i) } else { sel_hi >> (4 * (i - 8)) } & 0xf;
                    let row = l / 16;
                    let srow = if v.op == PermlaneX16 { row ^ 1 } else { row };
                    let s = srow * 16 + sel as usize;
                    r[l] = if s < W { a[s] } else { 0 };
                }
            }
            Cmp => {
                let (op, ty) = v.cmp;
                let m = cmp_mask::<W>(op, ty, &a, &b);
                return Ok(Out { r, mask: m & exec, wmask: 0 });
            }
            ReadLane | ReadFirstLane | WriteLane => return Err("lane operation in a dual issue".into()),
            _ => return Err(format!("{:?}: not supported here", v.op)),
        }
        // Output modifiers.
        if v.dty.is_float() && (v.omod != 0 || v.clamp) {
            for x in r.iter_mut() {
                *x = match v.dty {
                    Ty::F32 => fb(omod32(f(*x), v.omod, v.clamp)),
                    Ty::F64 => db(omod64(d(*x), v.omod, v.clamp)),
                    _ => hb(omod32(hf(*x), v.omod, v.clamp)),
                };
            }
        }
        Ok(Out { r, mask, wmask })
    }

    fn packed_op(&self, v: &Valu, exec: u64) -> Out<W> {
        let mut lo = [[0u32; W]; 3];
        let mut hi = [[0u32; W]; 3];
        let n = v.nsrc as usize;
        for k in 0..n {
            let raw = self.vsrc(v.src[k], Ty::B32, false);
            let float = v.tys[k].is_float();
            for l in 0..W {
                let r = raw[l] as u32;
                let (h0, h1) = (r & 0xffff, r >> 16);
                let mut a = if v.opsel >> k & 1 != 0 { h1 } else { h0 };
                let mut b = if v.opsel_hi >> k & 1 != 0 { h1 } else { h0 };
                if float && v.neg >> k & 1 != 0 {
                    a ^= 0x8000;
                }
                if float && v.abs >> k & 1 != 0 {
                    b ^= 0x8000;
                }
                lo[k][l] = a;
                hi[k][l] = b;
            }
        }
        let mut r = [0u64; W];
        if v.op == VOp::Dot2F32F16 {
            let c = self.vsrc(v.src[2], Ty::F32, false);
            for l in 0..W {
                let p = (hf(lo[0][l] as u64) as f64) * (hf(lo[1][l] as u64) as f64)
                    + (hf(hi[0][l] as u64) as f64) * (hf(hi[1][l] as u64) as f64)
                    + f(c[l]) as f64;
                r[l] = fb(p as f32);
            }
        } else {
            for l in 0..W {
                let a = pk_half(v.op, lo[0][l], lo[1][l], lo[2][l], v.clamp);
                let b = pk_half(v.op, hi[0][l], hi[1][l], hi[2][l], v.clamp);
                r[l] = (a | (b << 16)) as u64;
            }
        }
        Out { r, mask: 0, wmask: exec }
    }

    fn commit(&mut self, v: &Valu, o: &Out<W>) {
        if v.op == VOp::Cmp {
            self.wmask(v.dst as usize, o.mask);
            return;
        }
        let dst = v.dst as usize;
        let wm = o.wmask;
        match v.dty {
            Ty::B64 | Ty::F64 => {
                for l in 0..W {
                    if wm >> l & 1 != 0 {
                        self.v[dst][l] = o.r[l] as u32;
                        self.v[dst + 1][l] = (o.r[l] >> 32) as u32;
                    }
                }
            }
            Ty::B16 | Ty::F16 => {
                let (sh, keep) = if v.opsel & 8 != 0 { (16, 0xffffu32) } else { (0, 0xffff_0000) };
                let d = &mut self.v[dst];
                for l in 0..W {
                    if wm >> l & 1 != 0 {
                        d[l] = (d[l] & keep) | (((o.r[l] as u32) & 0xffff) << sh);
                    }
                }
            }
            _ => {
                let d = &mut self.v[dst];
                for l in 0..W {
                    let x = o.r[l] as u32;
                    d[l] = if wm >> l & 1 != 0 { x } else { d[l] };
                }
            }
        }
        if matches!(
            v.op,
            VOp::AddCo
                | VOp::SubCo
                | VOp::SubrevCo
                | VOp::AddCoCi
                | VOp::SubCoCi
                | VOp::SubrevCoCi
                | VOp::MadU64U32
                | VOp::MadI64I32
        ) {
            self.wmask(v.sdst as usize, o.mask & self.exec());
        } else if matches!(v.op, VOp::DivScaleF32 | VOp::DivScaleF64) {
            let sd = if v.sdst as usize == NULL { VCC } else { v.sdst as usize };
            self.wmask(sd, o.mask & self.exec());
        }
    }

    fn valu(&mut self, v: &Valu) -> Result<(), String> {
        let exec = self.exec();
        match v.op {
            VOp::ReadLane | VOp::ReadFirstLane => {
                let a = self.vsrc(v.src[0], Ty::B32, false);
                let lane = if v.op == VOp::ReadFirstLane {
                    if exec == 0 {
                        0
                    } else {
                        exec.trailing_zeros() as usize
                    }
                } else {
                    (self.sval(src_s(v.src[1]), Ty::B32) as usize) % W
                };
                self.ws(v.dst as usize, a[lane] as u32);
                return Ok(());
            }
            VOp::WriteLane => {
                let x = self.sval(src_s(v.src[0]), Ty::B32) as u32;
                let lane = (self.sval(src_s(v.src[1]), Ty::B32) as usize) % W;
                self.v[v.dst as usize][lane] = x;
                return Ok(());
            }
            _ => {}
        }
        let o = self.compute(v, exec)?;
        if v.cmpx {
            if v.dst as usize != EXEC {
                // gfx9: the SGPR destination gets the result too.
                self.commit(v, &o);
            }
            self.set_exec(o.mask);
        } else {
            self.commit(v, &o);
        }
        Ok(())
    }

    /// `v_s_*`: the sources are uniform, so lane 0 computes the one result, whatever EXEC is.
    fn scalar_valu(&mut self, v: &Valu) -> Result<(), String> {
        let o = self.compute(v, 1)?;
        let r = if v.dty.is16() { o.r[0] as u32 & 0xffff } else { o.r[0] as u32 };
        self.ws(v.dst as usize, r);
        Ok(())
    }

    fn salu(&mut self, op: SOp, dst: u8, a: Ss, b: Ss, wide: bool) -> Result<(), String> {
        use SOp::*;
        let wide_a = wide
            || matches!(
                op,
                Cselect64
                    | And64
                    | Or64
                    | Xor64
                    | Andn264
                    | Orn264
                    | Nand64
                    | Nor64
                    | Xnor64
                    | Lshl64
                    | Lshr64
                    | Ashr64
                    | BfeU64
                    | BfeI64
                    | AddU64
                    | SubU64
                    | MulU64
                    | Mov64
                    | Cmov64
                    | Not64
                    | Wqm64
                    | Brev64
                    | Bcnt0_64
                    | Bcnt1_64
                    | Ctz64
                    | Clz64
                    | Cls64
                    | Quadmask64
                    | CmpEqU64
                    | CmpLgU64
                    | Bitcmp0_64
                    | Bitcmp1_64
            );
        let wide_b = matches!(
            op,
            Cselect64
                | And64
                | Or64
                | Xor64
                | Andn264
                | Orn264
                | Nand64
                | Nor64
                | Xnor64
                | AddU64
                | SubU64
                | MulU64
                | CmpEqU64
                | CmpLgU64
                | Bitset0_64
                | Bitset1_64
        );
        let ty = |w| if w { Ty::B64 } else { Ty::B32 };
        let x = self.sval(a, ty(wide_a));
        let y = self.sval(b, ty(wide_b));
        let (x32, y32) = (x as u32, y as u32);
        let scc = self.scc;
        let exec = self.exec();
        let saveexec = |s: &mut Self, new: u64| {
            s.set_exec(new);
            s.scc = new != 0;
            exec
        };
        // (result, is 64-bit, new scc)
        let (res, w64, nscc): (u64, bool, Option<bool>) = match op {
            AddU32 => {
                let r = x + y;
                (r & 0xffff_ffff, false, Some(r >> 32 != 0))
            }
            SubU32 => (x32.wrapping_sub(y32) as u64, false, Some(y32 > x32)),
            AddI32 | Addk => {
                let (r, o) = (x32 as i32).overflowing_add(y32 as i32);
                (r as u32 as u64, false, Some(o))
            }
            SubI32 => {
                let (r, o) = (x32 as i32).overflowing_sub(y32 as i32);
                (r as u32 as u64, false, Some(o))
            }
            AddcU32 => {
                let r = x + y + scc as u64;
                (r & 0xffff_ffff, false, Some(r >> 32 != 0))
            }
            SubbU32 => {
                let r = x32.wrapping_sub(y32).wrapping_sub(scc as u32);
                (r as u64, false, Some((y32 as u64 + scc as u64) > x32 as u64))
            }
            MinI32 => ((x32 as i32).min(y32 as i32) as u32 as u64, false, Some((x32 as i32) < (y32 as i32))),
            MinU32 => (x32.min(y32) as u64, false, Some(x32 < y32)),
            MaxI32 => ((x32 as i32).max(y32 as i32) as u32 as u64, false, Some((x32 as i32) > (y32 as i32))),
            MaxU32 => (x32.max(y32) as u64, false, Some(x32 > y32)),
            Cselect32 => (if scc { x } else { y }, false, None),
            Cselect64 => (if scc { x } else { y }, true, None),
            And32 | And64 => bitop(x & y, op == And64),
            Or32 | Or64 => bitop(x | y, op == Or64),
            Xor32 | Xor64 => bitop(x ^ y, op == Xor64),
            Andn232 | Andn264 => bitop(x & !y, op == Andn264),
            Orn232 | Orn264 => bitop(x | !y, op == Orn264),
            Nand32 | Nand64 => bitop(!(x & y), op == Nand64),
            Nor32 | Nor64 => bitop(!(x | y), op == Nor64),
            Xnor32 | Xnor64 => bitop(!(x ^ y), op == Xnor64),
            Lshl32 => bitop(((x32) << (y & 31)) as u64, false),
            Lshl64 => bitop(x << (y & 63), true),
            Lshr32 => bitop((x32 >> (y & 31)) as u64, false),
            Lshr64 => bitop(x >> (y & 63), true),
            Ashr32 => bitop(((x32 as i32) >> (y & 31)) as u32 as u64, false),
            Ashr64 => bitop(((x as i64) >> (y & 63)) as u64, true),
            Bfm32 => ((((1u64 << (x & 31)) - 1) << (y & 31)) & 0xffff_ffff, false, None),
            Bfm64 => ((((1u128 << (x & 63)) - 1) << (y & 63)) as u64, true, None),
            MulI32 | Mulk => (x32.wrapping_mul(y32) as u64, false, None),
            BfeU32 => bitop(bfe(x32, y32, y32 >> 16) as u64, false),
            BfeI32 => bitop(bfe_i(x32, y32, y32 >> 16) as u64, false),
            BfeU64 | BfeI64 => {
                let (off, w) = (y32 & 63, (y32 >> 16) & 127);
                let r = if w == 0 {
                    0
                } else {
                    let v = x >> off;
                    let w = w.min(64);
                    if op == BfeI64 && w < 64 {
                        (((v << (64 - w)) as i64) >> (64 - w)) as u64
                    } else if w < 64 {
                        v & ((1u64 << w) - 1)
                    } else {
                        v
                    }
                };
                bitop(r, true)
            }
            AbsdiffI32 => {
                let r = (x32 as i32 as i64 - y32 as i32 as i64).unsigned_abs() as u32;
                (r as u64, false, Some(r != 0))
            }
            Lshl1Add | Lshl2Add | Lshl3Add | Lshl4Add => {
                let n = match op {
                    Lshl1Add => 1,
                    Lshl2Add => 2,
                    Lshl3Add => 3,
                    _ => 4,
                };
                let r = ((x32 as u64) << n) + y32 as u64;
                (r & 0xffff_ffff, false, Some(r >> 32 != 0))
            }
            PackLl => ((x & 0xffff) | ((y & 0xffff) << 16), false, None),
            PackLh => ((x & 0xffff) | (y & 0xffff_0000), false, None),
            PackHh => ((x >> 16) | (y & 0xffff_0000), false, None),
            PackHl => ((x >> 16) | ((y & 0xffff) << 16), false, None),
            MulHiU32 => ((x32 as u64 * y32 as u64) >> 32, false, None),
            MulHiI32 => ((((x32 as i32 as i64) * (y32 as i32 as i64)) >> 32) as u32 as u64, false, None),
            AddU64 => (x.wrapping_add(y), true, None),
            SubU64 => (x.wrapping_sub(y), true, None),
            MulU64 => (x.wrapping_mul(y), true, None),
            AddF32 => (fb(f(x) + f(y)), false, None),
            SubF32 => (fb(f(x) - f(y)), false, None),
            MulF32 => (fb(f(x) * f(y)), false, None),
            MinF32 => (fb(fmin(f(x), f(y))), false, None),
            MaxF32 => (fb(fmax(f(x), f(y))), false, None),
            FmacF32 => (fb(f(x).mul_add(f(y), f(self.s[dst as usize] as u64))), false, None),
            CvtPkRtz => (f32_to_f16_rtz(f(x)) as u64 | ((f32_to_f16_rtz(f(y)) as u64) << 16), false, None),
            Mov32 | Movk => (x, false, None),
            Mov64 => (x, true, None),
            Cmov32 | Cmovk => {
                if !scc {
                    return Ok(());
                }
                (x, false, None)
            }
            Cmov64 => {
                if !scc {
                    return Ok(());
                }
                (x, true, None)
            }
            Not32 => bitop(!x & 0xffff_ffff, false),
            Not64 => bitop(!x, true),
            Wqm32 | Wqm64 => {
                let mut r = 0u64;
                for q in 0..16 {
                    if (x >> (4 * q)) & 0xf != 0 {
                        r |= 0xf << (4 * q);
                    }
                }
                bitop(if op == Wqm32 { r & 0xffff_ffff } else { r }, op == Wqm64)
            }
            Brev32 => (x32.reverse_bits() as u64, false, None),
            Brev64 => (x.reverse_bits(), true, None),
            Bcnt0_32 => cnt((!x32).count_ones()),
            Bcnt0_64 => cnt((!x).count_ones()),
            Bcnt1_32 => cnt(x32.count_ones()),
            Bcnt1_64 => cnt(x.count_ones()),
            Ctz32 => (if x32 == 0 { u32::MAX } else { x32.trailing_zeros() } as u64, false, None),
            Ctz64 => (if x == 0 { u32::MAX } else { x.trailing_zeros() } as u64, false, None),
            Clz32 => (if x32 == 0 { u32::MAX } else { x32.leading_zeros() } as u64, false, None),
            Clz64 => (if x == 0 { u32::MAX } else { x.leading_zeros() } as u64, false, None),
            Cls32 => (cls32(x32 as i32) as u64, false, None),
            Cls64 => {
                let v = x as i64;
                let r = if v == 0 || v == -1 {
                    u32::MAX
                } else if v < 0 {
                    (!v).leading_zeros()
                } else {
                    v.leading_zeros()
                };
                (r as u64, false, None)
            }
            Sext8 => (x32 as i8 as i32 as u32 as u64, false, None),
            Sext16 => (x32 as i16 as i32 as u32 as u64, false, None),
            Bitset0_32 => ((y32 & !(1 << (x32 & 31))) as u64, false, None),
            Bitset1_32 => ((y32 | (1 << (x32 & 31))) as u64, false, None),
            Bitset0_64 => (y & !(1u64 << (x32 & 63)), true, None),
            Bitset1_64 => (y | (1u64 << (x32 & 63)), true, None),
            AbsI32 => {
                let r = (x32 as i32).unsigned_abs();
                (r as u64, false, Some(r != 0))
            }
            Quadmask32 | Quadmask64 => {
                let mut r = 0u64;
                for q in 0..16 {
                    if (x >> (4 * q)) & 0xf != 0 {
                        r |= 1 << q;
                    }
                }
                (r, op == Quadmask64, Some(r != 0))
            }
            AndSaveexec => (saveexec(self, x & exec), wide_a, None),
            OrSaveexec => (saveexec(self, x | exec), wide_a, None),
            XorSaveexec => (saveexec(self, x ^ exec), wide_a, None),
            AndNot0Saveexec => (saveexec(self, !x & exec), wide_a, None),
            AndNot1Saveexec => (saveexec(self, x & !exec), wide_a, None),
            OrNot0Saveexec => (saveexec(self, !x | exec), wide_a, None),
            OrNot1Saveexec => (saveexec(self, x | !exec), wide_a, None),
            NandSaveexec => (saveexec(self, !(x & exec)), wide_a, None),
            NorSaveexec => (saveexec(self, !(x | exec)), wide_a, None),
            XnorSaveexec => (saveexec(self, !(x ^ exec)), wide_a, None),
            AndNot0Wrexec | AndNot1Wrexec => {
                let r = if op == AndNot0Wrexec { !x & exec } else { x & !exec } & Self::lane_mask();
                self.set_exec(r);
                (r, wide_a, Some(r != 0))
            }
            CvtF32I32 => (fb(x32 as i32 as f32), false, None),
            CvtF32U32 => (fb(x32 as f32), false, None),
            CvtI32F32 => (f2i(f(x) as f64) as u32 as u64, false, None),
            CvtU32F32 => (f2u(f(x) as f64) as u64, false, None),
            CeilF32 => (fb(f(x).ceil()), false, None),
            FloorF32 => (fb(f(x).floor()), false, None),
            TruncF32 => (fb(f(x).trunc()), false, None),
            RndneF32 => (fb(f(x).round_ties_even()), false, None),
            CvtF32F16 => (fb(hf(x)), false, None),
            CvtHiF32F16 => (fb(hf(x >> 16)), false, None),
            CvtF16F32 => (hb(f(x)), false, None),
            CmpEqI32 | CmpEqU32 => return self.setscc(x32 == y32),
            CmpLgI32 | CmpLgU32 => return self.setscc(x32 != y32),
            CmpGtI32 => return self.setscc((x32 as i32) > (y32 as i32)),
            CmpGeI32 => return self.setscc((x32 as i32) >= (y32 as i32)),
            CmpLtI32 => return self.setscc((x32 as i32) < (y32 as i32)),
            CmpLeI32 => return self.setscc((x32 as i32) <= (y32 as i32)),
            CmpGtU32 => return self.setscc(x32 > y32),
            CmpGeU32 => return self.setscc(x32 >= y32),
            CmpLtU32 => return self.setscc(x32 < y32),
            CmpLeU32 => return self.setscc(x32 <= y32),
            CmpEqU64 => return self.setscc(x == y),
            CmpLgU64 => return self.setscc(x != y),
            Bitcmp0_32 => return self.setscc(x32 >> (y32 & 31) & 1 == 0),
            Bitcmp1_32 => return self.setscc(x32 >> (y32 & 31) & 1 == 1),
            Bitcmp0_64 => return self.setscc(x >> (y32 & 63) & 1 == 0),
            Bitcmp1_64 => return self.setscc(x >> (y32 & 63) & 1 == 1),
            CmpLtF32 | CmpEqF32 | CmpLeF32 | CmpGtF32 | CmpLgF32 | CmpGeF32 | CmpOF32 | CmpUF32 | CmpNgeF32
            | CmpNlgF32 | CmpNgtF32 | CmpNleF32 | CmpNeqF32 | CmpNltF32 => {
                let c = match op {
                    CmpLtF32 => CmpOp::Lt,
                    CmpEqF32 => CmpOp::Eq,
                    CmpLeF32 => CmpOp::Le,
                    CmpGtF32 => CmpOp::Gt,
                    CmpLgF32 => CmpOp::Lg,
                    CmpGeF32 => CmpOp::Ge,
                    CmpOF32 => CmpOp::O,
                    CmpUF32 => CmpOp::U,
                    CmpNgeF32 => CmpOp::Nge,
                    CmpNlgF32 => CmpOp::Nlg,
                    CmpNgtF32 => CmpOp::Ngt,
                    CmpNleF32 => CmpOp::Nle,
                    CmpNeqF32 => CmpOp::Neq,
                    _ => CmpOp::Nlt,
                };
                return self.setscc(fcmp(c, f(x) as f64, f(y) as f64));
            }
            Getreg => {
                let id = y32 & 0x3f;
                let off = (y32 >> 6) & 0x1f;
                let size = ((y32 >> 11) & 0x1f) + 1;
                let reg = match id {
                    1 => self.mode,
                    _ => 0,
                };
                let m = if size >= 32 { u32::MAX } else { (1u32 << size) - 1 };
                (((reg >> off) & m) as u64, false, None)
            }
            Setreg | SetregImm => {
                let id = y32 & 0x3f;
                let off = (y32 >> 6) & 0x1f;
                let size = ((y32 >> 11) & 0x1f) + 1;
                if id == 1 {
                    let m = if size >= 32 { u32::MAX } else { ((1u32 << size) - 1) << off };
                    self.mode = (self.mode & !m) | ((x32 << off) & m);
                }
                return Ok(());
            }
            SendmsgRtn => (0, false, None),
        };
        if let Some(s) = nscc {
            self.scc = s;
        }
        if w64 {
            self.ws64(dst as usize, res);
        } else {
            self.ws(dst as usize, res as u32);
        }
        Ok(())
    }

    fn setscc(&mut self, c: bool) -> Result<(), String> {
        self.scc = c;
        Ok(())
    }

    /// Runs until the wave ends or reaches a barrier.
    pub fn run(&mut self, ctx: &Ctx, lds: &mut [u8]) -> Result<Stop, DispatchFault> {
        let mut seg = self.seg.clone();
        let mut ip = self.ip;
        let mut count = 0u64;
        let res = loop {
            let Some(inst) = seg.insts.get(ip) else {
                let pc = seg.insts.last().map_or(seg.start, |i| i.pc + i.size as u64);
                break Err(DispatchFault::Illegal { pc, what: "execution ran past the decoded code".into() });
            };
            count += 1;
            // A kernel that never ends must not hold its queue: look at the flag now and then.
            if count & 0xffff == 0 {
                if let Err(f) = ctx.cancel.check() {
                    break Err(f);
                }
            }
            ip += 1;
            let pc = inst.pc;
            let ill = |what: String| DispatchFault::Illegal { pc, what };
            match &inst.op {
                Op::Nop => {}
                Op::Valu(v) if matches!(v.op, VOp::MovRelD | VOp::MovRelS | VOp::MovRelSD | VOp::MovRelSD2) => {
                    // Indexed VGPR moves: the index comes from M0 at run time.
                    let m0 = self.s[M0_REG];
                    let (ds, ss) = match v.op {
                        VOp::MovRelD => (m0, 0),
                        VOp::MovRelS => (0, m0),
                        VOp::MovRelSD => (m0, m0),
                        _ => ((m0 >> 16) & 0x3ff, m0 & 0x3ff),
                    };
                    let mut w = *v;
                    w.op = VOp::Mov;
                    w.dst = (v.dst as u32).checked_add(ds).filter(|&d| (d as usize) < NVGPR).ok_or_else(|| {
                        ill(format!("v_movrel: destination v{} + M0 {ds} is outside the VGPRs", v.dst))
                    })? as u16;
                    if let Vs::V(r) = v.src[0] {
                        let r = (r as u32)
                            .checked_add(ss)
                            .filter(|&r| (r as usize) < NVGPR)
                            .ok_or_else(|| ill(format!("v_movrel: source v{r} + M0 {ss} is outside the VGPRs")))?;
                        w.src[0] = Vs::V(r as u16);
                    }
                    self.valu(&w).map_err(ill)?
                }
                Op::Valu(v) if self.gpr_idx => {
                    let w = self.gpr_indexed(v).map_err(ill)?;
                    self.valu(&w).map_err(ill)?
                }
                Op::Valu(v) => self.valu(v).map_err(ill)?,
                Op::GprIdxOn { src, mode } => {
                    let idx = self.sval(*src, Ty::B32) as u32 & 0xff;
                    self.s[M0_REG] = (self.s[M0_REG] & !0xf0ff) | idx | (*mode as u32) << 12;
                    self.gpr_idx = true;
                }
                Op::GprIdxOff => self.gpr_idx = false,
                Op::Mfma(x) => self.mfma(x).map_err(ill)?,
                Op::ScalarValu(v) => self.scalar_valu(v).map_err(ill)?,
                Op::Salu { op, dst, a, b, wide } => self.salu(*op, *dst, *a, *b, *wide).map_err(ill)?,
                Op::End => {
                    self.done = true;
                    break Ok(Stop::End);
                }
                Op::Branch(t) => {
                    (seg, ip) = self.target(ctx, *t, &seg)?;
                }
                Op::CBranch(c, t) => {
                    let take = match c {
                        Cond::Scc0 => !self.scc,
                        Cond::Scc1 => self.scc,
                        Cond::Vccz => self.vcc() == 0,
                        Cond::Vccnz => self.vcc() != 0,
                        Cond::Execz => self.exec() == 0,
                        Cond::Execnz => self.exec() != 0,
                    };
                    if take {
                        (seg, ip) = self.target(ctx, *t, &seg)?;
                    }
                }
                Op::Barrier => {
                    break Ok(Stop::Barrier);
                }
                Op::Smem { dst, n, base, off, soff, buffer } => {
                    let soff = self.sval(*soff, Ty::B32) as u32 as u64;
                    let base_addr = if *buffer {
                        let b = *base as usize;
                        self.s[b] as u64 | (((self.s[b + 1] & 0xffff) as u64) << 32)
                    } else {
                        self.s64(*base)
                    };
                    let addr = base_addr.wrapping_add(*off as u64).wrapping_add(soff);
                    if *n > 16 {
                        // Sub-dword loads (gfx12): one SGPR, extended.
                        let (len, signed) = match *n {
                            SMEM_U8 => (1, false),
                            SMEM_I8 => (1, true),
                            SMEM_U16 => (2, false),
                            _ => (2, true),
                        };
                        let va = addr & !(len - 1);
                        let p = ctx.mem.translate(va, len).ok_or(DispatchFault::Memory { va, write: false, pc })?;
                        // SAFETY: translate checked [va, va + len) lies inside one allocation.
                        let x = unsafe {
                            match (len, signed) {
                                (1, false) => *p as u32,
                                (1, true) => *p as i8 as i32 as u32,
                                (_, false) => (p as *const u16).read_unaligned() as u32,
                                (_, true) => (p as *const u16).read_unaligned() as i16 as i32 as u32,
                            }
                        };
                        self.ws(*dst as usize, x);
                        continue;
                    }
                    let va = addr & !3;
                    let len = *n as u64 * 4;
                    let p = ctx.mem.translate(va, len).ok_or(DispatchFault::Memory { va, write: false, pc })?;
                    for k in 0..*n as usize {
                        // SAFETY: translate checked [va, va + len) lies inside one allocation.
                        let x = unsafe { (p.add(4 * k) as *const u32).read_unaligned() };
                        self.ws(*dst as usize + k, x);
                    }
                }
                Op::Vopd(pair) => {
                    let exec = self.exec();
                    let ox = self.compute(&pair[0], exec).map_err(ill)?;
                    let oy = self.compute(&pair[1], exec).map_err(ill)?;
                    self.commit(&pair[0], &ox);
                    self.commit(&pair[1], &oy);
                }
                Op::Mem(m) if m.vdst >= ACC || m.data >= ACC => {
                    let m = VMem { vdst: self.unified(m.vdst), data: self.unified(m.data), ..*m };
                    self.vmem(ctx, lds, &m, pc)?
                }
                Op::Mem(m) => self.vmem(ctx, lds, m, pc)?,
                Op::Ds(m) if m.vdst >= ACC || m.data0 >= ACC => {
                    let (vdst, data0, data1) = (self.unified(m.vdst), self.unified(m.data0), self.unified(m.data1));
                    self.ds(lds, &Ds { vdst, data0, data1, ..*m }, pc)?
                }
                Op::Ds(m) => self.ds(lds, m, pc)?,
                Op::AccMove { dst, src } => {
                    let x = match *src {
                        Vs::V(r) => self.vsrc(Vs::V(self.unified(r)), Ty::B32, false),
                        s => self.vsrc(s, Ty::B32, false),
                    };
                    let (d, exec) = (self.unified(*dst) as usize, self.exec());
                    for l in 0..W {
                        if exec >> l & 1 != 0 {
                            self.v[d][l] = x[l] as u32;
                        }
                    }
                }
                Op::GetPc { dst } => {
                    let next = pc + inst.size as u64;
                    self.ws64(*dst as usize, next);
                }
                Op::SetPc { src } => {
                    let t = self.s64(*src);
                    (seg, ip) = self.target(ctx, Tgt::Pc(t), &seg)?;
                }
                Op::SwapPc { dst, src } => {
                    let t = self.s64(*src);
                    let next = pc + inst.size as u64;
                    self.ws64(*dst as usize, next);
                    (seg, ip) = self.target(ctx, Tgt::Pc(t), &seg)?;
                }
                Op::CallImm { dst, tgt } => {
                    let next = pc + inst.size as u64;
                    self.ws64(*dst as usize, next);
                    (seg, ip) = self.target(ctx, *tgt, &seg)?;
                }
                Op::Trap => break Err(DispatchFault::Trap { pc }),
                Op::Illegal(what) => break Err(ill(what.clone())),
            }
        };
        self.count += count;
        self.ip = ip;
        self.seg = seg;
        res
    }

    /// A VALU operation with the VGPR operands M0[15:12] selects offset by M0[7:0].
    fn gpr_indexed(&self, v: &Valu) -> Result<Valu, String> {
        let m0 = self.s[M0_REG];
        let (idx, mode) = ((m0 & 0xff) as u16, m0 >> 12 & 0xf);
        let mut w = *v;
        let bad = |r: u16| format!("s_set_gpr_idx_on: v{r} + M0 index {idx} is outside the VGPRs");
        for k in 0..3 {
            if let Vs::V(r) = v.src[k] {
                if mode >> k & 1 != 0 {
                    w.src[k] = Vs::V(Some(r + idx).filter(|&x| (x as usize) < NVGPR).ok_or_else(|| bad(r))?);
                }
            }
        }
        if mode & 8 != 0 {
            w.dst = Some(v.dst + idx).filter(|&x| (x as usize) < NVGPR).ok_or_else(|| bad(v.dst))?;
        }
        Ok(w)
    }

    /// A pre-decoded VGPR index in the unified file: AGPR `ACC + k` is VGPR `ACCUM_OFFSET + k`.
    #[inline]
    pub(super) fn unified(&self, r: u16) -> u16 {
        if r >= ACC {
            (self.accum + (r - ACC) as usize) as u16
        } else {
            r
        }
    }

    fn target(&self, ctx: &Ctx, t: Tgt, seg: &Arc<Segment>) -> Result<(Arc<Segment>, usize), DispatchFault> {
        match t {
            Tgt::Idx(i) => Ok((seg.clone(), i as usize)),
            Tgt::Pc(pc) => {
                if let Some(i) = seg.index_of(pc) {
                    return Ok((seg.clone(), i));
                }
                (ctx.code)(pc)
            }
        }
    }

    fn lane_loc(&self, m: &VMem, l: usize) -> Loc {
        match m.kind {
            MemKind::Scratch => {
                let mut o = m.offset as u32;
                if let Some(s) = m.saddr {
                    o = o.wrapping_add(self.s[s as usize]);
                }
                if m.use_vaddr {
                    o = o.wrapping_add(self.v[m.addr as usize][l]);
                }
                Loc::Priv(o)
            }
            _ => {
                let a = match (m.kind, m.saddr) {
                    (MemKind::Global, Some(s)) => {
                        self.s64(s).wrapping_add(self.v[m.addr as usize][l] as u64).wrapping_add(m.offset as i64 as u64)
                    }
                    _ => {
                        let r = m.addr as usize;
                        (self.v[r][l] as u64 | ((self.v[r + 1][l] as u64) << 32)).wrapping_add(m.offset as i64 as u64)
                    }
                };
                if m.kind == MemKind::Flat {
                    if (SHARED_BASE..SHARED_BASE + APERTURE_SIZE).contains(&a) {
                        return Loc::Lds((a - SHARED_BASE) as u32);
                    }
                    if (PRIVATE_BASE..PRIVATE_BASE + APERTURE_SIZE).contains(&a) {
                        return Loc::Priv((a - PRIVATE_BASE) as u32);
                    }
                }
                Loc::Global(a)
            }
        }
    }

    /// Host pointer of `len` bytes at a lane's location.
    #[allow(clippy::too_many_arguments)]
    fn locate(
        &self,
        ctx: &Ctx,
        lds: &mut [u8],
        loc: Loc,
        l: usize,
        len: u64,
        write: bool,
        pc: u64,
    ) -> Result<*mut u8, DispatchFault> {
        match loc {
            Loc::Global(va) => ctx.mem.translate(va, len).ok_or(DispatchFault::Memory { va, write, pc }),
            Loc::Lds(off) => {
                let end = off as u64 + len;
                if end > lds.len() as u64 {
                    return Err(DispatchFault::Memory { va: SHARED_BASE + off as u64, write, pc });
                }
                // SAFETY: in bounds, checked above.
                Ok(unsafe { lds.as_mut_ptr().add(off as usize) })
            }
            Loc::Priv(off) => {
                let va = self.scratch.wrapping_add(l as u64 * self.lane_bytes).wrapping_add(off as u64);
                if off as u64 + len > self.lane_bytes {
                    return Err(DispatchFault::Memory { va: PRIVATE_BASE + off as u64, write, pc });
                }
                ctx.mem.translate(va, len).ok_or(DispatchFault::Memory { va, write, pc })
            }
        }
    }

    fn vmem(&mut self, ctx: &Ctx, lds: &mut [u8], m: &VMem, pc: u64) -> Result<(), DispatchFault> {
        let exec = self.exec();
        if exec == 0 {
            return Ok(());
        }
        // Fast path: every active lane's access inside one allocation, found with one lookup.
        if m.kind != MemKind::Scratch {
            let bytes = match m.op {
                MemOp::Load { bytes, .. } | MemOp::Store { bytes, .. } => bytes as u64,
                MemOp::Atomic { wide, .. } => {
                    if wide {
                        8
                    } else {
                        4
                    }
                }
            };
            let mut va = [0u64; W];
            let (mut lo, mut hi, mut global) = (u64::MAX, 0u64, true);
            for l in 0..W {
                if exec >> l & 1 != 0 {
                    match self.lane_loc(m, l) {
                        Loc::Global(a) => {
                            va[l] = a;
                            lo = lo.min(a);
                            hi = hi.max(a);
                        }
                        _ => global = false,
                    }
                }
            }
            if global {
                if let Some(base) = hi.checked_add(bytes).and_then(|end| ctx.mem.translate(lo, end - lo)) {
                    for l in 0..W {
                        if exec >> l & 1 == 0 {
                            continue;
                        }
                        // SAFETY: [lo, hi + bytes) lies inside one allocation starting at `base`.
                        let p = unsafe { base.add((va[l] - lo) as usize) };
                        self.mem_lane(p, l, m, true);
                    }
                    return Ok(());
                }
            }
        }
        for l in 0..W {
            if exec >> l & 1 == 0 {
                continue;
            }
            let loc = self.lane_loc(m, l);
            match m.op {
                MemOp::Load { bytes, sign, d16 } => {
                    let p = self.locate(ctx, lds, loc, l, bytes as u64, false, pc)?;
                    self.load_lane(p, l, m.vdst as usize, bytes, sign, d16);
                }
                MemOp::Store { bytes, d16hi } => {
                    let p = self.locate(ctx, lds, loc, l, bytes as u64, true, pc)?;
                    self.store_lane(p, l, m.data as usize, bytes, d16hi);
                }
                MemOp::Atomic { op, wide, ret } => {
                    let n = if wide { 8 } else { 4 };
                    let p = self.locate(ctx, lds, loc, l, n, true, pc)?;
                    let shared = matches!(loc, Loc::Global(_) | Loc::Priv(_));
                    let old = self.atomic_lane(p, l, m.data as usize, op, wide, shared);
                    if ret {
                        self.v[m.vdst as usize][l] = old as u32;
                        if wide {
                            self.v[m.vdst as usize + 1][l] = (old >> 32) as u32;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn mem_lane(&mut self, p: *mut u8, l: usize, m: &VMem, shared: bool) {
        match m.op {
            MemOp::Load { bytes, sign, d16 } => self.load_lane(p, l, m.vdst as usize, bytes, sign, d16),
            MemOp::Store { bytes, d16hi } => self.store_lane(p, l, m.data as usize, bytes, d16hi),
            MemOp::Atomic { op, wide, ret } => {
                let old = self.atomic_lane(p, l, m.data as usize, op, wide, shared);
                if ret {
                    self.v[m.vdst as usize][l] = old as u32;
                    if wide {
                        self.v[m.vdst as usize + 1][l] = (old >> 32) as u32;
                    }
                }
            }
        }
    }

    fn load_lane(&mut self, p: *mut u8, l: usize, vdst: usize, bytes: u8, sign: bool, d16: u8) {
        // SAFETY (all reads): `p` points at `bytes` bytes inside an allocation or the LDS.
        unsafe {
            match bytes {
                1 | 2 => {
                    let raw = if bytes == 1 { p.read() as u32 } else { (p as *const u16).read_unaligned() as u32 };
                    let v = match (bytes, sign) {
                        (1, true) => raw as u8 as i8 as i32 as u32,
                        (2, true) => raw as u16 as i16 as i32 as u32,
                        _ => raw,
                    };
                    let d = &mut self.v[vdst][l];
                    *d = match d16 {
                        0 => v,
                        1 => (*d & 0xffff_0000) | (v & 0xffff),
                        _ => (*d & 0xffff) | (v << 16),
                    };
                }
                _ => {
                    for k in 0..(bytes as usize / 4) {
                        self.v[vdst + k][l] = (p.add(4 * k) as *const u32).read_unaligned();
                    }
                }
            }
        }
    }

    fn store_lane(&self, p: *mut u8, l: usize, data: usize, bytes: u8, d16hi: bool) {
        let x = self.v[data][l];
        let x = if d16hi { x >> 16 } else { x };
        // SAFETY (all writes): `p` points at `bytes` bytes inside an allocation or the LDS.
        unsafe {
            match bytes {
                1 => p.write(x as u8),
                2 => (p as *mut u16).write_unaligned(x as u16),
                _ => {
                    for k in 0..(bytes as usize / 4) {
                        (p.add(4 * k) as *mut u32).write_unaligned(self.v[data + k][l]);
                    }
                }
            }
        }
    }

    /// One lane's atomic; returns the old value. `shared`: memory other workgroups may touch.
    fn atomic_lane(&self, p: *mut u8, l: usize, data: usize, op: AtomicOp, wide: bool, shared: bool) -> u64 {
        let src = self.v[data][l] as u64 | if wide { (self.v[data + 1][l] as u64) << 32 } else { 0 };
        let cmp = if wide {
            self.v[data + 2][l] as u64 | ((self.v[data + 3][l] as u64) << 32)
        } else {
            self.v[data + 1][l] as u64
        };
        let f = |old: u64| -> u64 { atomic_new(op, old, src, cmp, wide) };
        if wide {
            if shared && (p as usize).is_multiple_of(8) {
                // SAFETY: aligned, inside an allocation; other threads only access it atomically
                // or through plain accesses the GPU memory model leaves unordered.
                let a = unsafe { AtomicU64::from_ptr(p as *mut u64) };
                let mut old = a.load(Ordering::Relaxed);
                loop {
                    match a.compare_exchange_weak(old, f(old), Ordering::SeqCst, Ordering::Relaxed) {
                        Ok(_) => return old,
                        Err(x) => old = x,
                    }
                }
            }
            // SAFETY: `p` points at 8 bytes inside the allocation or the LDS.
            unsafe {
                let old = (p as *const u64).read_unaligned();
                (p as *mut u64).write_unaligned(f(old));
                old
            }
        } else {
            if shared && (p as usize).is_multiple_of(4) {
                // SAFETY: as above, 4-byte aligned.
                let a = unsafe { AtomicU32::from_ptr(p as *mut u32) };
                let mut old = a.load(Ordering::Relaxed);
                loop {
                    match a.compare_exchange_weak(old, f(old as u64) as u32, Ordering::SeqCst, Ordering::Relaxed) {
                        Ok(_) => return old as u64,
                        Err(x) => old = x,
                    }
                }
            }
            // SAFETY: `p` points at 4 bytes inside the allocation or the LDS.
            unsafe {
                let old = (p as *const u32).read_unaligned();
                (p as *mut u32).write_unaligned(f(old as u64) as u32);
                old as u64
            }
        }
    }

    fn ds(&mut self, lds: &mut [u8], m: &Ds, pc: u64) -> Result<(), DispatchFault> {
        let exec = self.exec();
        let len = lds.len() as u64;
        let at = |addr: u64, n: u64, write: bool| -> Result<usize, DispatchFault> {
            if addr + n > len {
                Err(DispatchFault::Memory { va: SHARED_BASE + addr, write, pc })
            } else {
                Ok(addr as usize)
            }
        };
        match m.op {
            DsOp::Nop => return Ok(()),
            DsOp::Bpermute | DsOp::Permute => {
                let a = self.v[m.addr as usize];
                let dv = self.v[m.data0 as usize];
                let mut r = self.v[m.vdst as usize];
                if m.op == DsOp::Bpermute {
                    for l in 0..W {
                        if exec >> l & 1 != 0 {
                            let s = ((a[l].wrapping_add(m.off0) / 4) as usize) % W;
                            r[l] = if exec >> s & 1 != 0 { dv[s] } else { 0 };
                        }
                    }
                } else {
                    for l in 0..W {
                        if exec >> l & 1 != 0 {
                            let t = ((a[l].wrapping_add(m.off0) / 4) as usize) % W;
                            r[t] = dv[l];
                        }
                    }
                }
                self.v[m.vdst as usize] = r;
                return Ok(());
            }
            DsOp::Swizzle => return Err(DispatchFault::Illegal { pc, what: "ds_swizzle_b32: not supported".into() }),
            _ => {}
        }
        for l in 0..W {
            if exec >> l & 1 == 0 {
                continue;
            }
            let base = self.v[m.addr as usize][l] as u64;
            match m.op {
                DsOp::Load { bytes, sign, d16 } => {
                    let o = at(base + m.off0 as u64, bytes as u64, false)?;
                    // SAFETY: bounds checked by `at`.
                    let p = unsafe { lds.as_mut_ptr().add(o) };
                    self.load_lane(p, l, m.vdst as usize, bytes, sign, d16);
                }
                DsOp::Store { bytes, d16hi } => {
                    let o = at(base + m.off0 as u64, bytes as u64, true)?;
                    // SAFETY: bounds checked by `at`.
                    let p = unsafe { lds.as_mut_ptr().add(o) };
                    self.store_lane(p, l, m.data0 as usize, bytes, d16hi);
                }
                DsOp::Load2 { bytes } => {
                    let o0 = at(base + m.off0 as u64, bytes as u64, false)?;
                    let o1 = at(base + m.off1 as u64, bytes as u64, false)?;
                    let k = bytes as usize / 4;
                    // SAFETY: bounds checked by `at`.
                    unsafe {
                        self.load_lane(lds.as_mut_ptr().add(o0), l, m.vdst as usize, bytes, false, 0);
                        self.load_lane(lds.as_mut_ptr().add(o1), l, m.vdst as usize + k, bytes, false, 0);
                    }
                }
                DsOp::Store2 { bytes } => {
                    let o0 = at(base + m.off0 as u64, bytes as u64, true)?;
                    let o1 = at(base + m.off1 as u64, bytes as u64, true)?;
                    // SAFETY: bounds checked by `at`.
                    unsafe {
                        self.store_lane(lds.as_mut_ptr().add(o0), l, m.data0 as usize, bytes, false);
                        self.store_lane(lds.as_mut_ptr().add(o1), l, m.data1 as usize, bytes, false);
                    }
                }
                DsOp::Atomic { op, wide, ret } => {
                    let n = if wide { 8 } else { 4 };
                    let o = at(base + m.off0 as u64, n, true)?;
                    // For ds_cmpstore the compare value is data0 and the new value data1; the
                    // lane helper wants (new, cmp) in consecutive registers, so stage them.
                    let old = if op == AtomicOp::Cmpswap {
                        let w = if wide { 2 } else { 1 };
                        let (d0, d1) = (m.data0 as usize, m.data1 as usize);
                        let mut tmp = [0u32; 4];
                        for k in 0..w {
                            tmp[k] = self.v[d1 + k][l];
                            tmp[w + k] = self.v[d0 + k][l];
                        }
                        // SAFETY: bounds checked by `at`.
                        let p = unsafe { lds.as_mut_ptr().add(o) };
                        let src = tmp[0] as u64 | if wide { (tmp[1] as u64) << 32 } else { 0 };
                        let cmp = tmp[w] as u64 | if wide { (tmp[w + 1] as u64) << 32 } else { 0 };
                        // SAFETY: `p` points at `n` bytes inside the LDS.
                        unsafe {
                            if wide {
                                let old = (p as *const u64).read_unaligned();
                                (p as *mut u64).write_unaligned(atomic_new(op, old, src, cmp, true));
                                old
                            } else {
                                let old = (p as *const u32).read_unaligned() as u64;
                                (p as *mut u32).write_unaligned(atomic_new(op, old, src, cmp, false) as u32);
                                old
                            }
                        }
                    } else {
                        // SAFETY: bounds checked by `at`.
                        let p = unsafe { lds.as_mut_ptr().add(o) };
                        self.atomic_lane(p, l, m.data0 as usize, op, wide, false)
                    };
                    if ret {
                        self.v[m.vdst as usize][l] = old as u32;
                        if wide {
                            self.v[m.vdst as usize + 1][l] = (old >> 32) as u32;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Loc {
    Global(u64),
    Lds(u32),
    Priv(u32),
}

fn src_s(v: Vs) -> Ss {
    match v {
        Vs::S(s) => s,
        Vs::V(_) => Ss::K(0),
    }
}

fn bitop(r: u64, w: bool) -> (u64, bool, Option<bool>) {
    let r = if w { r } else { r & 0xffff_ffff };
    (r, w, Some(r != 0))
}
fn cnt(c: u32) -> (u64, bool, Option<bool>) {
    (c as u64, false, Some(c != 0))
}

fn omod32(x: f32, omod: u8, clamp: bool) -> f32 {
    let x = match omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if clamp {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    }
}
fn omod64(x: f64, omod: u8, clamp: bool) -> f64 {
    let x = match omod {
        1 => x * 2.0,
        2 => x * 4.0,
        3 => x * 0.5,
        _ => x,
    };
    if clamp {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(0.0, 1.0)
        }
    } else {
        x
    }
}

#[allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool, clippy::double_comparisons)]
fn fcmp(c: CmpOp, a: f64, b: f64) -> bool {
    match c {
        CmpOp::F => false,
        CmpOp::T => true,
        CmpOp::Lt => a < b,
        CmpOp::Eq => a == b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Lg | CmpOp::Ne => a < b || a > b,
        CmpOp::Ge => a >= b,
        CmpOp::O => !a.is_nan() && !b.is_nan(),
        CmpOp::U => a.is_nan() || b.is_nan(),
        CmpOp::Nge => !(a >= b),
        CmpOp::Nlg => !(a < b || a > b),
        CmpOp::Ngt => !(a > b),
        CmpOp::Nle => !(a <= b),
        CmpOp::Neq => a != b,
        CmpOp::Nlt => !(a < b),
        CmpOp::Class => false,
    }
}

fn icmp<T: PartialOrd>(c: CmpOp, a: T, b: T) -> bool {
    match c {
        CmpOp::F => false,
        CmpOp::T => true,
        CmpOp::Lt => a < b,
        CmpOp::Eq => a == b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ne | CmpOp::Lg | CmpOp::Neq => a != b,
        CmpOp::Ge => a >= b,
        _ => false,
    }
}

fn cmp_mask<const W: usize>(op: CmpOp, ty: CmpTy, a: &[u64; W], b: &[u64; W]) -> u64 {
    let mut m = 0u64;
    macro_rules! each {
        (|$x:ident, $y:ident| $e:expr) => {
            for l in 0..W {
                let $x = a[l];
                let $y = b[l];
                m |= ($e as u64) << l;
            }
        };
    }
    if op == CmpOp::Class {
        match ty {
            CmpTy::F16 => each!(|x, y| class16(x as u16) & y as u32 != 0),
            CmpTy::F32 => each!(|x, y| class32(f(x)) & y as u32 != 0),
            _ => each!(|x, y| class_f64(d(x)) & y as u32 != 0),
        }
        return m;
    }
    match ty {
        CmpTy::F16 => each!(|x, y| fcmp(op, hf(x) as f64, hf(y) as f64)),
        CmpTy::F32 => each!(|x, y| fcmp(op, f(x) as f64, f(y) as f64)),
        CmpTy::F64 => each!(|x, y| fcmp(op, d(x), d(y))),
        CmpTy::I16 => each!(|x, y| icmp(op, x as u16 as i16, y as u16 as i16)),
        CmpTy::U16 => each!(|x, y| icmp(op, x as u16, y as u16)),
        CmpTy::I32 => each!(|x, y| icmp(op, x as u32 as i32, y as u32 as i32)),
        CmpTy::U32 => each!(|x, y| icmp(op, x as u32, y as u32)),
        CmpTy::I64 => each!(|x, y| icmp(op, x as i64, y as i64)),
        CmpTy::U64 => each!(|x, y| icmp(op, x, y)),
    }
    m
}

fn atomic_new(op: AtomicOp, old: u64, src: u64, cmp: u64, wide: bool) -> u64 {
    use AtomicOp::*;
    let m = if wide { u64::MAX } else { 0xffff_ffff };
    let (o, s) = (old & m, src & m);
    let sgn = |v: u64| if wide { v as i64 } else { v as u32 as i32 as i64 };
    (match op {
        Swap => s,
        Cmpswap => {
            if o == cmp & m {
                s
            } else {
                o
            }
        }
        Add => o.wrapping_add(s),
        Sub => o.wrapping_sub(s),
        Smin => {
            if sgn(s) < sgn(o) {
                s
            } else {
                o
            }
        }
        Smax => {
            if sgn(s) > sgn(o) {
                s
            } else {
                o
            }
        }
        Umin => o.min(s),
        Umax => o.max(s),
        And => o & s,
        Or => o | s,
        Xor => o ^ s,
        Inc => {
            if o >= s {
                0
            } else {
                o + 1
            }
        }
        Dec => {
            if o == 0 || o > s {
                s
            } else {
                o - 1
            }
        }
        AddF32 => fb(f(o) + f(s)),
        MinF32 => fb(fmin(f(o), f(s))),
        MaxF32 => fb(fmax(f(o), f(s))),
        AddF64 => db(d(o) + d(s)),
        MinF64 => db(dmin(d(o), d(s))),
        MaxF64 => db(dmax(d(o), d(s))),
        CondSub => {
            if o >= s {
                o - s
            } else {
                o
            }
        }
        SubClamp => o.saturating_sub(s),
    }) & m
}
