//! Vector memory: global, flat and scratch accesses per lane, and atomics.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::*;

#[derive(Clone, Copy)]
pub(super) enum Loc {
    Global(u64),
    Lds(u32),
    Priv(u32),
}

impl<const W: usize> Wave<W> {
    pub(super) fn lane_loc(&self, m: &VMem, l: usize) -> Loc {
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
    pub(super) fn locate(
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

    pub(super) fn vmem(&mut self, ctx: &Ctx, lds: &mut [u8], m: &VMem, pc: u64) -> Result<(), DispatchFault> {
        let exec = self.exec();
        if exec == 0 {
            return Ok(());
        }
        // Fast path: every active lane's access inside one allocation, found with one lookup.
        if m.kind != MemKind::Scratch && self.vmem_one_allocation(ctx, m, exec) {
            return Ok(());
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

    /// Every active lane's global address (the addressing mode chosen once, not per lane);
    /// `None` when a flat address of an active lane falls in the LDS or private aperture.
    #[inline(always)]
    fn global_addrs(&self, m: &VMem, exec: u64, va: &mut [u64; W]) -> Option<()> {
        let off = m.offset as i64 as u64;
        let r = m.addr as usize;
        match (m.kind, m.saddr) {
            (MemKind::Global, Some(s)) => {
                let base = self.s64(s).wrapping_add(off);
                let a = &self.v[r];
                for l in 0..W {
                    va[l] = base.wrapping_add(a[l] as u64);
                }
            }
            _ => {
                let (lo, hi) = (&self.v[r], &self.v[r + 1]);
                for l in 0..W {
                    va[l] = (lo[l] as u64 | ((hi[l] as u64) << 32)).wrapping_add(off);
                }
            }
        }
        if m.kind == MemKind::Flat {
            let mut apertures = 0u64;
            for l in 0..W {
                let a = va[l];
                let in_ap = (SHARED_BASE..SHARED_BASE + APERTURE_SIZE).contains(&a)
                    || (PRIVATE_BASE..PRIVATE_BASE + APERTURE_SIZE).contains(&a);
                apertures |= (in_ap as u64) << l;
            }
            if apertures & exec != 0 {
                return None;
            }
        }
        Some(())
    }

    /// A global/flat access whose active lanes all fall inside one allocation: one translation,
    /// then the operation lane by lane (dword loads and stores without a per-lane match).
    /// Returns false, having done nothing, when that does not hold.
    fn vmem_one_allocation(&mut self, ctx: &Ctx, m: &VMem, exec: u64) -> bool {
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
        if self.global_addrs(m, exec, &mut va).is_none() {
            return false;
        }
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        if exec == Self::lane_mask() {
            // Every lane: no mask to test per lane.
            for &a in va.iter() {
                lo = lo.min(a);
                hi = hi.max(a);
            }
        } else {
            for l in 0..W {
                let on = exec >> l & 1 != 0;
                lo = if on { lo.min(va[l]) } else { lo };
                hi = if on { hi.max(va[l]) } else { hi };
            }
        }
        let Some(base) = hi.checked_add(bytes).and_then(|end| ctx.mem.translate(lo, end - lo)) else {
            return false;
        };
        // SAFETY (every pointer below): [lo, hi + bytes) lies inside one allocation starting at
        // `base`, and each active lane's access is `bytes` long at `va[l]` within it.
        let at = |l: usize| unsafe { base.add((va[l] - lo) as usize) };
        match m.op {
            MemOp::Load { bytes: 4 | 8 | 12 | 16, .. } if exec == Self::lane_mask() => {
                // Every lane: a straight loop, no mask to walk.
                for k in 0..bytes as usize / 4 {
                    let d = &mut self.v[m.vdst as usize + k];
                    for l in 0..W {
                        // SAFETY: dword k of lane l's access, inside the allocation (above).
                        d[l] = unsafe { (at(l).add(4 * k) as *const u32).read_unaligned() };
                    }
                }
            }
            MemOp::Load { bytes: 4 | 8 | 12 | 16, .. } => {
                for k in 0..bytes as usize / 4 {
                    let d = &mut self.v[m.vdst as usize + k];
                    let mut e = exec;
                    while e != 0 {
                        let l = e.trailing_zeros() as usize;
                        e &= e - 1;
                        // SAFETY: dword k of lane l's access, inside the allocation (above).
                        d[l] = unsafe { (at(l).add(4 * k) as *const u32).read_unaligned() };
                    }
                }
            }
            MemOp::Store { bytes: 4 | 8 | 12 | 16, .. } => {
                // Lane by lane, each lane's dwords together: where lanes overlap, the higher wins.
                let src = &self.v[m.data as usize..m.data as usize + bytes as usize / 4];
                let mut e = exec;
                while e != 0 {
                    let l = e.trailing_zeros() as usize;
                    e &= e - 1;
                    for (k, s) in src.iter().enumerate() {
                        // SAFETY: dword k of lane l's access, inside the allocation (above).
                        unsafe { (at(l).add(4 * k) as *mut u32).write_unaligned(s[l]) };
                    }
                }
            }
            _ => {
                let mut e = exec;
                while e != 0 {
                    let l = e.trailing_zeros() as usize;
                    e &= e - 1;
                    self.mem_lane(at(l), l, m, true);
                }
            }
        }
        true
    }

    pub(super) fn mem_lane(&mut self, p: *mut u8, l: usize, m: &VMem, shared: bool) {
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

    pub(super) fn load_lane(&mut self, p: *mut u8, l: usize, vdst: usize, bytes: u8, sign: bool, d16: u8) {
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

    pub(super) fn store_lane(&self, p: *mut u8, l: usize, data: usize, bytes: u8, d16hi: bool) {
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
    pub(super) fn atomic_lane(&self, p: *mut u8, l: usize, data: usize, op: AtomicOp, wide: bool, shared: bool) -> u64 {
        let src = self.v[data][l] as u64 | if wide { (self.v[data + 1][l] as u64) << 32 } else { 0 };
        let cmp = if wide {
            self.v[data + 2][l] as u64 | ((self.v[data + 3][l] as u64) << 32)
        } else {
            self.v[data + 1][l] as u64
        };
        atomic_rmw(p, wide, shared, |old| atomic_new(op, old, src, cmp, wide))
    }
}

/// Replaces the 4 (`wide`: 8) bytes at `p` with `f(old)`; returns `old`. `shared`: memory
/// other workgroups may touch, so the update is atomic where `p` is aligned.
///
/// `p` must point at 4 (8) bytes inside an allocation or the LDS (every caller checks bounds
/// first, through `translate` or the LDS length).
pub(super) fn atomic_rmw(p: *mut u8, wide: bool, shared: bool, f: impl Fn(u64) -> u64) -> u64 {
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

pub(super) fn atomic_new(op: AtomicOp, old: u64, src: u64, cmp: u64, wide: bool) -> u64 {
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
        PkAddF16 | PkAddBf16 => super::cdna4::pk_add16(op == PkAddBf16, o as u32, s as u32) as u64,
        Rsub => s.wrapping_sub(o),
        Mskor => (o & !cmp) | s,
        Wrap => {
            let c = cmp & m;
            if o >= c {
                o - c
            } else {
                o.wrapping_add(s)
            }
        }
        CmpswapF => {
            let eq = if wide { d(o) == d(cmp) } else { f(o) == f(cmp & m) };
            if eq {
                s
            } else {
                o
            }
        }
    }) & m
}
