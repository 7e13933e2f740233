//! Scalar memory addresses, and gfx9's scalar stores and atomics (`s_store_*`, `s_atomic_*`,
//! and their `s_buffer_*` forms; CDNA3 ISA guide §4 "Scalar Memory Operations").

use super::*;

impl<const W: usize> Wave<W> {
    /// A scalar memory access's address: SBASE (an SGPR pair, or a V#'s 48-bit base address)
    /// plus the instruction offset and the SGPR offset.
    pub(super) fn smem_addr(&self, base: u8, off: i64, soff: Ss, buffer: bool) -> u64 {
        let soff = self.sval(soff, Ty::B32) as u32 as u64;
        let base_addr = if buffer {
            let b = base as usize;
            self.s[b] as u64 | (((self.s[b + 1] & 0xffff) as u64) << 32)
        } else {
            self.s64(base)
        };
        base_addr.wrapping_add(off as u64).wrapping_add(soff)
    }

    /// A scalar store of SGPRs, or a scalar atomic (dword-aligned, as the loads are).
    pub(super) fn smem_write(&mut self, ctx: &Ctx, w: &SmemWrite, pc: u64) -> Result<(), DispatchFault> {
        let va = self.smem_addr(w.base, w.off, w.soff, w.buffer) & !3;
        let d = w.data as usize;
        match w.kind {
            SmemWriteKind::Scratch { n, store } => {
                // `va` is a byte offset into this wave's scratch (W lanes × lane_bytes): an
                // access outside it faults at the VA it would have reached.
                let len = n as u64 * 4;
                let at = self.scratch.wrapping_add(va);
                let fault = DispatchFault::Memory { va: at, write: store, pc };
                if va.checked_add(len).is_none_or(|end| end > W as u64 * self.lane_bytes) {
                    return Err(fault);
                }
                let p = ctx.mem.translate(at, len).ok_or(fault)?;
                for k in 0..n as usize {
                    let r = (d + k).min(NSGPR - 1);
                    // SAFETY: translate checked [at, at + 4n) lies inside one allocation.
                    unsafe {
                        let q = p.add(4 * k) as *mut u32;
                        if store {
                            q.write_unaligned(self.s[r]);
                        } else {
                            self.ws(r, q.read_unaligned());
                        }
                    }
                }
            }
            SmemWriteKind::Store { n } => {
                let p = ctx.mem.translate(va, n as u64 * 4).ok_or(DispatchFault::Memory { va, write: true, pc })?;
                for k in 0..n as usize {
                    // SAFETY: translate checked [va, va + 4n) lies inside one allocation.
                    unsafe { (p.add(4 * k) as *mut u32).write_unaligned(self.s[(d + k).min(NSGPR - 1)]) };
                }
            }
            SmemWriteKind::Atomic { op, wide, ret } => {
                let n = if wide { 8 } else { 4 };
                let p = ctx.mem.translate(va, n).ok_or(DispatchFault::Memory { va, write: true, pc })?;
                let sg = |k: usize| self.s[(d + k).min(NSGPR - 1)] as u64;
                let (src, cmp) = if wide { (sg(0) | sg(1) << 32, sg(2) | sg(3) << 32) } else { (sg(0), sg(1)) };
                // `p` points at n bytes inside an allocation (translate above).
                let old = atomic_rmw(p, wide, true, |old| atomic_new(op, old, src, cmp, wide));
                if ret {
                    if wide {
                        self.ws64(d, old);
                    } else {
                        self.ws(d, old as u32);
                    }
                }
            }
        }
        Ok(())
    }
}
