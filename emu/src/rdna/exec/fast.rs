//! The VALU's fast path: the common 32-bit operations with no modifiers, DPP, clamp or carry,
//! computed straight on the 32-bit registers. The general path ([`super::valu`]) widens every
//! source to 64-bit lanes, clears the result and narrows it back, which costs more than the
//! operation itself; these operations need none of it. Decode marks them once
//! ([`Valu::fast`], from [`fast`]); the arithmetic is that of the general path.

use super::*;

/// Whether the fast path runs `v` (decided once, at decode).
pub fn fast(v: &Valu) -> bool {
    use VOp::*;
    let plain = v.dpp == Dpp::None && v.neg | v.abs | v.opsel == 0 && !v.clamp && v.omod == 0 && !v.cmpx;
    match v.op {
        // 64-bit address arithmetic (pointer increments): loops of their own.
        LshlAddU64 => return plain && v.tys == [Ty::B64, Ty::B32, Ty::B64] && v.dty == Ty::B64,
        LshlRev64 => return plain && v.tys == [Ty::B32, Ty::B64, Ty::B32] && v.dty == Ty::B64,
        _ => {}
    }
    let wide32 = |t: &Ty| matches!(t, Ty::B32 | Ty::F32);
    let srcs = &v.tys[..v.nsrc as usize];
    let sources_32 = match v.op {
        Cndmask | AddCoCi | SubCoCi => wide32(&srcs[0]) && wide32(&srcs[1]),
        _ => srcs.iter().all(wide32),
    };
    plain
        && wide32(&v.dty)
        && sources_32
        && matches!(
            v.op,
            AddU32
                | SubU32
                | SubrevU32
                | MulLo
                | MulU24
                | LshlRev
                | LshrRev
                | AshrRev
                | And
                | Or
                | Xor
                | MinI
                | MaxI
                | MinU
                | MaxU
                | Add3
                | LshlAdd
                | AddLshl
                | LshlOr
                | AndOr
                | Or3
                | Xor3
                | BfeU
                | Mov
                | Cndmask
                | AddCo
                | SubCo
                | AddCoCi
                | SubCoCi
                | AddF32
                | SubF32
                | SubrevF32
                | MulF32
                | FmaF32
        )
}

/// `r = a × b + c` in f32, fused, with the host's FMA instruction.
///
/// # Safety
/// The host must have FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn fma_x86<const W: usize>(a: &[u32; W], b: &[u32; W], c: &[u32; W], r: &mut [u32; W]) {
    fma_lanes(a, b, c, r)
}

#[inline(always)]
fn fma_lanes<const W: usize>(a: &[u32; W], b: &[u32; W], c: &[u32; W], r: &mut [u32; W]) {
    for l in 0..W {
        r[l] = f32::from_bits(a[l]).mul_add(f32::from_bits(b[l]), f32::from_bits(c[l])).to_bits();
    }
}

fn fma<const W: usize>(a: &[u32; W], b: &[u32; W], c: &[u32; W], r: &mut [u32; W]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the host has FMA (checked just above), all the function requires.
        unsafe { fma_x86(a, b, c, r) };
        return;
    }
    fma_lanes(a, b, c, r)
}

impl<const W: usize> Wave<W> {
    /// A 32-bit source's lanes.
    #[inline(always)]
    fn src32(&self, s: Vs, out: &mut [u32; W]) {
        match s {
            Vs::V(r) => *out = self.v[r as usize],
            Vs::S(ss) => *out = [self.sval(ss, Ty::B32) as u32; W],
        }
    }

    /// Runs an operation [`fast`] accepted: the active lanes of `dst` get the result. False
    /// (nothing done) for any other operation.
    pub(super) fn valu_fast(&mut self, v: &Valu) -> bool {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the host has AVX2 and FMA (checked just above), all the function requires.
            return unsafe { self.valu_fast_avx2(v) };
        }
        self.valu_fast_lanes(v)
    }

    /// [`Self::valu_fast`] compiled for AVX2: the lane loops run 8 lanes at a time (the build's
    /// baseline, SSE2, has no variable shifts or 256-bit integer operations).
    ///
    /// # Safety
    /// The host must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn valu_fast_avx2(&mut self, v: &Valu) -> bool {
        self.valu_fast_lanes(v)
    }

    #[inline(always)]
    fn valu_fast_lanes(&mut self, v: &Valu) -> bool {
        use VOp::*;
        match v.op {
            LshlAddU64 | LshlRev64 => {
                self.shift64(v);
                return true;
            }
            AddCo | SubCo | AddCoCi | SubCoCi => {
                self.carry32(v);
                return true;
            }
            _ => {}
        }
        let (mut a, mut b, mut c, mut r) = ([0u32; W], [0u32; W], [0u32; W], [0u32; W]);
        self.src32(v.src[0], &mut a);
        if v.nsrc > 1 {
            self.src32(v.src[1], &mut b);
        }
        if v.nsrc > 2 && v.op != Cndmask {
            self.src32(v.src[2], &mut c);
        }
        macro_rules! lanes {
            (|$x:ident, $y:ident, $z:ident| $e:expr) => {{
                #[allow(unused_variables)]
                for l in 0..W {
                    let ($x, $y, $z) = (a[l], b[l], c[l]);
                    r[l] = $e;
                }
            }};
        }
        let fl = f32::from_bits;
        match v.op {
            AddU32 => lanes!(|x, y, z| x.wrapping_add(y)),
            SubU32 => lanes!(|x, y, z| x.wrapping_sub(y)),
            SubrevU32 => lanes!(|x, y, z| y.wrapping_sub(x)),
            MulLo => lanes!(|x, y, z| x.wrapping_mul(y)),
            MulU24 => lanes!(|x, y, z| (x & 0xff_ffff).wrapping_mul(y & 0xff_ffff)),
            LshlRev => lanes!(|x, y, z| y << (x & 31)),
            LshrRev => lanes!(|x, y, z| y >> (x & 31)),
            AshrRev => lanes!(|x, y, z| ((y as i32) >> (x & 31)) as u32),
            And => lanes!(|x, y, z| x & y),
            Or => lanes!(|x, y, z| x | y),
            Xor => lanes!(|x, y, z| x ^ y),
            MinI => lanes!(|x, y, z| (x as i32).min(y as i32) as u32),
            MaxI => lanes!(|x, y, z| (x as i32).max(y as i32) as u32),
            MinU => lanes!(|x, y, z| x.min(y)),
            MaxU => lanes!(|x, y, z| x.max(y)),
            Add3 => lanes!(|x, y, z| x.wrapping_add(y).wrapping_add(z)),
            LshlAdd => lanes!(|x, y, z| (x << (y & 31)).wrapping_add(z)),
            AddLshl => lanes!(|x, y, z| x.wrapping_add(y) << (z & 31)),
            LshlOr => lanes!(|x, y, z| (x << (y & 31)) | z),
            AndOr => lanes!(|x, y, z| (x & y) | z),
            Or3 => lanes!(|x, y, z| x | y | z),
            Xor3 => lanes!(|x, y, z| x ^ y ^ z),
            BfeU => lanes!(|x, y, z| bfe(x, y, z)),
            Mov => r = a,
            Cndmask => {
                let m = self.sval(valu::src_s(v.src[2]), Ty::Mask);
                for l in 0..W {
                    r[l] = if m >> l & 1 != 0 { b[l] } else { a[l] };
                }
            }
            AddF32 => lanes!(|x, y, z| (fl(x) + fl(y)).to_bits()),
            SubF32 => lanes!(|x, y, z| (fl(x) - fl(y)).to_bits()),
            SubrevF32 => lanes!(|x, y, z| (fl(y) - fl(x)).to_bits()),
            MulF32 => lanes!(|x, y, z| (fl(x) * fl(y)).to_bits()),
            FmaF32 => fma(&a, &b, &c, &mut r),
            _ => return false,
        }
        self.write_active(v.dst as usize, &r);
        true
    }

    /// A 64-bit source's lanes, as low and high dwords.
    #[inline(always)]
    fn src64(&self, s: Vs, lo: &mut [u32; W], hi: &mut [u32; W]) {
        match s {
            Vs::V(r) => {
                *lo = self.v[r as usize];
                *hi = self.v[r as usize + 1];
            }
            Vs::S(ss) => {
                let x = self.sval(ss, Ty::B64);
                (*lo, *hi) = ([x as u32; W], [(x >> 32) as u32; W]);
            }
        }
    }

    /// `v_lshl_add_u64`: D = (S0 << S1[2:0]) + S2, and `v_lshlrev_b64`: D = S1 << S0[5:0], in
    /// 64 bits (as the general path's arms).
    #[inline(always)]
    fn shift64(&mut self, v: &Valu) {
        let (mut a0, mut a1, mut c0, mut c1, mut sh) = ([0u32; W], [0u32; W], [0u32; W], [0u32; W], [0u32; W]);
        let add = v.op == VOp::LshlAddU64;
        if add {
            self.src64(v.src[0], &mut a0, &mut a1);
            self.src32(v.src[1], &mut sh);
            self.src64(v.src[2], &mut c0, &mut c1);
        } else {
            self.src32(v.src[0], &mut sh);
            self.src64(v.src[1], &mut a0, &mut a1);
        }
        let (mut r0, mut r1) = ([0u32; W], [0u32; W]);
        for l in 0..W {
            let a = a0[l] as u64 | (a1[l] as u64) << 32;
            let r = if add {
                (a << (sh[l] & 7)).wrapping_add(c0[l] as u64 | (c1[l] as u64) << 32)
            } else {
                a << (sh[l] & 63)
            };
            (r0[l], r1[l]) = (r as u32, (r >> 32) as u32);
        }
        self.write_active(v.dst as usize, &r0);
        self.write_active(v.dst as usize + 1, &r1);
    }

    /// `v_add_co_u32`, `v_sub_co_u32` and their carry-in forms: the 32-bit result, and the
    /// carry (borrow) of the active lanes into `sdst` (as the general path's arms and commit).
    #[inline(always)]
    fn carry32(&mut self, v: &Valu) {
        use VOp::*;
        let (mut a, mut b) = ([0u32; W], [0u32; W]);
        self.src32(v.src[0], &mut a);
        self.src32(v.src[1], &mut b);
        let cin = match v.op {
            AddCoCi | SubCoCi => self.sval(valu::src_s(v.src[2]), Ty::Mask),
            _ => 0,
        };
        let (mut r, mut carry) = ([0u32; W], 0u64);
        let sub = matches!(v.op, SubCo | SubCoCi);
        for l in 0..W {
            let (x, y, ci) = (a[l] as u64, b[l] as u64, cin >> l & 1);
            let (s, c) = if sub {
                (x.wrapping_sub(y).wrapping_sub(ci), y + ci > x)
            } else {
                let s = x + y + ci;
                (s, s >> 32 != 0)
            };
            r[l] = s as u32;
            carry |= (c as u64) << l;
        }
        self.write_active(v.dst as usize, &r);
        let exec = self.exec();
        self.wmask(v.sdst as usize, carry & exec);
    }

    /// VGPR `d` takes `r` in the active lanes.
    #[inline(always)]
    fn write_active(&mut self, d: usize, r: &[u32; W]) {
        let exec = self.exec();
        let d = &mut self.v[d];
        if exec == Self::lane_mask() {
            *d = *r;
        } else {
            for l in 0..W {
                d[l] = if exec >> l & 1 != 0 { r[l] } else { d[l] };
            }
        }
    }
}
