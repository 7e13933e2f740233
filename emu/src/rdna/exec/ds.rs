//! LDS (DS) instructions: loads, stores, atomics and lane permutes.

use super::*;

impl<const W: usize> Wave<W> {
    pub(super) fn ds(&mut self, lds: &mut [u8], m: &Ds, pc: u64) -> Result<(), DispatchFault> {
        let exec = self.exec();
        let len = lds.len() as u64;
        let at = |addr: u64, n: u64, write: bool| -> Result<usize, DispatchFault> {
            // The LDS address is ADDR + OFFSET in 32 bits: compilers fold a constant into the
            // offset field of a negative VGPR base (LLVM on gfx9+: `-4l` with offset 252).
            let addr = addr as u32 as u64;
            if addr + n > len {
                Err(DispatchFault::Memory { va: SHARED_BASE + addr, write, pc })
            } else {
                Ok(addr as usize)
            }
        };
        match m.op {
            DsOp::Nop => return Ok(()),
            DsOp::Bpermute | DsOp::Permute => {
                self.ds_permute(m, exec);
                return Ok(());
            }
            DsOp::Append { consume } => {
                if exec == 0 {
                    return Ok(());
                }
                let o = at(self.s[M0_REG] as u64 + m.off0 as u64, 4, true)?;
                // SAFETY: bounds checked by `at`.
                let p = unsafe { lds.as_mut_ptr().add(o) };
                let n = exec.count_ones() as u64;
                let old = atomic_rmw(p, false, false, |x| if consume { x.wrapping_sub(n) } else { x.wrapping_add(n) });
                let d = &mut self.v[m.vdst as usize];
                for l in (0..W).filter(|l| exec >> l & 1 != 0) {
                    d[l] = old as u32;
                }
                return Ok(());
            }
            DsOp::Swizzle => return Err(DispatchFault::Illegal { pc, what: "ds_swizzle_b32: not supported".into() }),
            DsOp::LoadTr { bytes, bits } => {
                let mut raw = vec![[0u8; 12]; W];
                for l in (0..W).filter(|l| exec >> l & 1 != 0) {
                    let o = at(self.v[m.addr as usize][l] as u64 + m.off0 as u64, bytes as u64, false)?;
                    raw[l][..bytes as usize].copy_from_slice(&lds[o..o + bytes as usize]);
                }
                self.ds_transpose(m.vdst as usize, &raw, bytes, bits, exec);
                return Ok(());
            }
            _ => {}
        }
        for l in 0..W {
            if exec >> l & 1 == 0 {
                continue;
            }
            let (base, op) = match m.op {
                DsOp::LoadTid => (self.addtid(l), DsOp::Load { bytes: 4, sign: false, d16: 0 }),
                DsOp::StoreTid => (self.addtid(l), DsOp::Store { bytes: 4, d16hi: false }),
                op => (self.v[m.addr as usize][l] as u64, op),
            };
            match op {
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
                DsOp::Xchg2 { bytes } => {
                    let n = bytes as usize;
                    let o0 = at(base + m.off0 as u64, n as u64, true)?;
                    let o1 = at(base + m.off1 as u64, n as u64, true)?;
                    // The values before, taken first: VDST may overlap DATA.
                    let mut old = [0u8; 16];
                    old[..n].copy_from_slice(&lds[o0..o0 + n]);
                    old[n..2 * n].copy_from_slice(&lds[o1..o1 + n]);
                    // SAFETY: bounds checked by `at`; `old` holds the 2n bytes read back.
                    unsafe {
                        self.store_lane(lds.as_mut_ptr().add(o0), l, m.data0 as usize, bytes, false);
                        self.store_lane(lds.as_mut_ptr().add(o1), l, m.data1 as usize, bytes, false);
                        self.load_lane(old.as_mut_ptr(), l, m.vdst as usize, 2 * bytes, false, 0);
                    }
                }
                DsOp::Atomic { op, wide, ret } => {
                    let n = if wide { 8 } else { 4 };
                    let o = at(base + m.off0 as u64, n, true)?;
                    let two = matches!(op, AtomicOp::Cmpswap | AtomicOp::CmpswapF | AtomicOp::Mskor | AtomicOp::Wrap);
                    let old = if two {
                        // SAFETY: bounds checked by `at`.
                        let p = unsafe { lds.as_mut_ptr().add(o) };
                        self.ds_atomic2_lane(p, l, m, op, wide)
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

    /// The LDS address of lane `l` of an `*_addtid_*` access (before the offset).
    fn addtid(&self, l: usize) -> u64 {
        (self.s[M0_REG] & 0xffff) as u64 + 4 * l as u64
    }

    /// ds_bpermute_b32 / ds_permute_b32: lanes read (or write) the lane their address names.
    fn ds_permute(&mut self, m: &Ds, exec: u64) {
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
    }

    /// An LDS atomic with two data operands (ds_cmpst*, ds_mskor*, ds_wrap*) on one lane;
    /// returns the old value. DATA (data0) is the compare (mask) value and DATA2 (data1) the
    /// new one; they are staged as (src, cmp), the order `atomic_new` takes them in.
    fn ds_atomic2_lane(&self, p: *mut u8, l: usize, m: &Ds, op: AtomicOp, wide: bool) -> u64 {
        let w = if wide { 2 } else { 1 };
        let (d0, d1) = (m.data0 as usize, m.data1 as usize);
        let mut tmp = [0u32; 4];
        for k in 0..w {
            tmp[k] = self.v[d1 + k][l];
            tmp[w + k] = self.v[d0 + k][l];
        }
        let src = tmp[0] as u64 | if wide { (tmp[1] as u64) << 32 } else { 0 };
        let cmp = tmp[w] as u64 | if wide { (tmp[w + 1] as u64) << 32 } else { 0 };
        // SAFETY: the caller checked `p` points at the 4 or 8 (`wide`) bytes inside the LDS.
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
    }
}
