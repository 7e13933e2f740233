//! Buffer accesses (MUBUF, MTBUF, VBUFFER): the buffer resource (V#), per-lane addresses, the
//! range check, and loads straight to the LDS.
//!
//! Sources: AMD "Vega" / "Instinct MI300 (CDNA3)" ISA guides, "Vector Memory Buffer Instructions"
//! (address = base + soffset + offset + stride × index, index = VGPR index + TID when ADD_TID,
//! offset = VGPR offset + instruction offset; swizzled: element size 4 bytes, INDEX_STRIDE 8 << n;
//! range checking: out-of-range loads return 0, stores are dropped, dword-x{2,3,4} are checked
//! per dword, format accesses and atomics all or nothing); the V# bit layout as Mesa's
//! si_make_buffer_descriptor writes it and its note on NUM_RECORDS units (gfx9: bytes unless
//! IDXEN and STRIDE != 0, then records; gfx10+: by OOB_SELECT); "Buffer load to LDS" (the data
//! goes to the LDS at M0 + instruction offset + TID × size, not to VGPRs) and LLVM's
//! llvm.amdgcn.*.load.lds intrinsics (the immediate offset applies to both addresses).

use super::*;

/// A buffer resource as the access needs it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Vsharp {
    pub base: u64,
    pub stride: u64,
    pub swizzle: bool,
    pub num_records: u64,
    /// The V#'s format (gfx9: DFMT | NFMT << 4; gfx11: FORMAT).
    pub format: u8,
    pub index_stride: u64,
    pub add_tid: bool,
    /// gfx10+ OOB_SELECT; gfx9 has none (`None`).
    pub oob: Option<u8>,
}

impl Vsharp {
    pub fn new(w: [u32; 4], layout: VsharpLayout) -> Vsharp {
        let base = w[0] as u64 | ((w[1] & 0xffff) as u64) << 32;
        let stride = (w[1] >> 16 & 0x3fff) as u64;
        let (swizzle, format, oob) = match layout {
            VsharpLayout::Gfx9 => (w[1] >> 31 != 0, ((w[3] >> 15 & 0xf) | (w[3] >> 12 & 7) << 4) as u8, None),
            VsharpLayout::Gfx11 => (w[1] >> 30 != 0, (w[3] >> 12 & 0x7f) as u8, Some((w[3] >> 28 & 3) as u8)),
            VsharpLayout::Gfx12 => (w[1] >> 30 != 0, (w[3] >> 12 & 0x3f) as u8, Some((w[3] >> 28 & 3) as u8)),
        };
        Vsharp {
            base,
            stride,
            swizzle,
            num_records: w[2] as u64,
            format,
            index_stride: 8 << (w[3] >> 21 & 3),
            add_tid: w[3] >> 23 & 1 != 0,
            oob,
        }
    }

    /// Whether bytes [off + at, off + at + n) of an access at `index` pass the range check.
    pub fn in_range(&self, idxen: bool, index: u64, off: u64, at: u64, n: u64) -> bool {
        let bytes = || off + at + n <= self.num_records;
        match self.oob {
            None if self.add_tid && !idxen => true,
            None if idxen && self.stride != 0 => index < self.num_records,
            None => bytes(),
            Some(0) => index < self.num_records && off + at + n <= self.stride,
            Some(1) => index < self.num_records,
            Some(2) => true,
            Some(_) => bytes(),
        }
    }

    /// The byte offset from base + soffset of (index, offset): linear or swizzled.
    pub fn buffer_offset(&self, index: u64, off: u64) -> u64 {
        if !self.swizzle {
            return index * self.stride + off;
        }
        const ES: u64 = 4;
        let is = self.index_stride;
        (index / is * self.stride + off / ES * ES) * is + (index % is) * ES + off % ES
    }
}

/// Bytes per lane and whether dwords are range-checked one by one.
fn access_bytes(b: &BufAccess) -> (u64, bool) {
    match b.op {
        MemOp::Load { bytes, .. } | MemOp::Store { bytes, .. } => (bytes as u64, bytes > 4),
        MemOp::Atomic { wide, .. } => (if wide { 8 } else { 4 }, false),
    }
}

impl<const W: usize> Wave<W> {
    pub(super) fn vsharp(&self, b: &BufAccess) -> Vsharp {
        let r = b.srsrc as usize;
        Vsharp::new([self.s[r], self.s[r + 1], self.s[r + 2], self.s[r + 3]], b.layout)
    }

    /// One lane's (index, offset) before the V#'s stride and swizzle.
    pub(super) fn buf_lane(&self, b: &BufAccess, vs: &Vsharp, l: usize) -> (u64, u64) {
        let mut index = if b.idxen { self.v[b.vaddr as usize][l] as u64 } else { 0 };
        if vs.add_tid {
            index += l as u64;
        }
        let voff = if b.offen { self.v[b.vaddr as usize + b.idxen as usize][l] } else { 0 };
        (index, voff.wrapping_add(b.offset) as u64)
    }

    pub(super) fn buffer(&mut self, ctx: &Ctx, lds: &mut [u8], b: &BufAccess, pc: u64) -> Result<(), DispatchFault> {
        let vs = self.vsharp(b);
        if vs.swizzle && vs.oob.is_some() {
            return Err(DispatchFault::Illegal {
                pc,
                what: "swizzled buffer resources: not supported on gfx11+".into(),
            });
        }
        if let Some(f) = b.fmt {
            return self.buffer_format(ctx, b, f, &vs, pc);
        }
        let soff = self.sval(b.soffset, Ty::B32) as u32 as u64;
        let exec = self.exec();
        let (bytes, per_dword) = access_bytes(b);
        let m0 = self.s[M0_REG] as u64 & LDS_M0_MASK;
        for l in 0..W {
            if exec >> l & 1 == 0 {
                continue;
            }
            let (index, off) = self.buf_lane(b, &vs, l);
            let va = vs.base.wrapping_add(soff).wrapping_add(vs.buffer_offset(index, off));
            let ok = |at: u64, n: u64| vs.in_range(b.idxen, index, off, at, n);
            let at = |at: u64, n: u64, write: bool| -> Result<*mut u8, DispatchFault> {
                let a = va.wrapping_add(at);
                ctx.mem.translate(a, n).ok_or(DispatchFault::Memory { va: a, write, pc })
            };
            match b.op {
                MemOp::Load { bytes: n, sign, d16 } if b.lds => {
                    // Sub-dword loads land extended to a dword.
                    let size = bytes.max(4);
                    let dst = m0 + b.offset as u64 + l as u64 * size;
                    if dst + size > lds.len() as u64 {
                        return Err(DispatchFault::Memory { va: SHARED_BASE + dst, write: true, pc });
                    }
                    for k in 0..size / 4 {
                        let (at_k, n_k) = if per_dword { (4 * k, 4) } else { (0, n as u64) };
                        // SAFETY: `at` checked that `n_k` bytes at `at_k` lie in the translated range.
                        let x = if ok(at_k, n_k) {
                            unsafe { read_ext(at(at_k, n_k, false)?, n_k, sign && d16 == 0) }
                        } else {
                            0
                        };
                        let o = (dst + 4 * k) as usize;
                        lds[o..o + 4].copy_from_slice(&x.to_le_bytes());
                    }
                }
                MemOp::Load { bytes: n, sign, d16 } => {
                    if per_dword {
                        for k in 0..bytes / 4 {
                            let r = self.unified(b.vdata) as usize + k as usize;
                            // SAFETY: `at` checked that the dword lies in the translated range.
                            self.v[r][l] =
                                if ok(4 * k, 4) { unsafe { read_ext(at(4 * k, 4, false)?, 4, false) } } else { 0 };
                        }
                    } else if ok(0, bytes) {
                        self.load_lane(at(0, bytes, false)?, l, self.unified(b.vdata) as usize, n, sign, d16);
                    } else {
                        let zero = 0u32;
                        let p = &zero as *const u32 as *mut u8;
                        self.load_lane(p, l, self.unified(b.vdata) as usize, n, false, d16);
                    }
                }
                MemOp::Store { bytes: n, d16hi } => {
                    let data = self.unified(b.vdata) as usize;
                    if per_dword {
                        for k in 0..bytes / 4 {
                            if ok(4 * k, 4) {
                                self.store_lane(at(4 * k, 4, true)?, l, data + k as usize, 4, false);
                            }
                        }
                    } else if ok(0, bytes) {
                        self.store_lane(at(0, bytes, true)?, l, data, n, d16hi);
                    }
                }
                MemOp::Atomic { op, wide, ret } => {
                    let data = self.unified(b.vdata) as usize;
                    let old =
                        if ok(0, bytes) { self.atomic_lane(at(0, bytes, true)?, l, data, op, wide, true) } else { 0 };
                    if ret {
                        self.v[data][l] = old as u32;
                        if wide {
                            self.v[data + 1][l] = (old >> 32) as u32;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// gfx9 `global_load_lds_*` / `scratch_load_lds_*`: the flat-style address, the data to the
    /// LDS at M0 + offset + TID × size (sub-dword loads extended to a dword).
    pub(super) fn vmem_lds(&mut self, ctx: &Ctx, lds: &mut [u8], m: &VMem, pc: u64) -> Result<(), DispatchFault> {
        let MemOp::Load { bytes, sign, .. } = m.op else {
            return Err(DispatchFault::Illegal { pc, what: "LDS-bound memory access that is not a load".into() });
        };
        let size = (bytes as u64).max(4);
        let m0 = self.s[M0_REG] as u64 & LDS_M0_MASK;
        let exec = self.exec();
        for l in 0..W {
            if exec >> l & 1 == 0 {
                continue;
            }
            let loc = self.lane_loc(m, l);
            let dst = (m0 + m.offset as i64 as u64 + l as u64 * size) & 0xffff_ffff;
            if dst + size > lds.len() as u64 {
                return Err(DispatchFault::Memory { va: SHARED_BASE + dst, write: true, pc });
            }
            let p = self.locate(ctx, lds, loc, l, bytes as u64, false, pc)?;
            for k in 0..size / 4 {
                // SAFETY: `locate` translated `bytes` bytes at `p`; with `bytes` >= 4, `size` is
                // `bytes`, so every dword read lies within them.
                let x = unsafe {
                    if bytes >= 4 {
                        read_ext(p.wrapping_add(4 * k as usize), 4, false)
                    } else {
                        read_ext(p, bytes as u64, sign)
                    }
                };
                let o = (dst + 4 * k) as usize;
                lds[o..o + 4].copy_from_slice(&x.to_le_bytes());
            }
        }
        Ok(())
    }
}

/// M0's bits that hold the LDS address of a load to LDS: enough for gfx950's 160 KiB.
const LDS_M0_MASK: u64 = 0x3_ffff;

/// `n` (1, 2 or 4) bytes at `p`, zero- or sign-extended.
///
/// # Safety
/// `p` points at `n` readable bytes.
unsafe fn read_ext(p: *mut u8, n: u64, sign: bool) -> u32 {
    // SAFETY: the caller's contract.
    unsafe {
        match (n, sign) {
            (1, false) => p.read() as u32,
            (1, true) => p.read() as i8 as i32 as u32,
            (2, false) => (p as *const u16).read_unaligned() as u32,
            (2, true) => (p as *const u16).read_unaligned() as i16 as i32 as u32,
            _ => (p as *const u32).read_unaligned(),
        }
    }
}
