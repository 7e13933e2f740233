//! The execution loop: dispatching pre-decoded instructions, branches, scalar memory.

use super::*;

impl<const W: usize> Wave<W> {
    /// Runs until the wave ends or reaches a barrier.
    pub fn run(&mut self, ctx: &Ctx, lds: &mut [u8]) -> Result<Stop, DispatchFault> {
        let mut seg = self.seg.clone();
        let mut ip = self.ip;
        let mut count = 0u64;
        // The VALU's lanes, kept across instructions (VOPD computes both halves before writing).
        let mut io = Lanes::<W>::new();
        let mut io2 = Lanes::<W>::new();
        let res = loop {
            let Some(inst) = seg.insts.get(ip) else {
                // Past where the segment's decode stopped: the code goes on in a segment of its own.
                let pc = seg.insts.last().map_or(seg.start, |i| i.pc + i.size as u64);
                match (ctx.code)(pc) {
                    Ok((s, i)) if s.insts.get(i).is_some() => {
                        (seg, ip) = (s, i);
                        continue;
                    }
                    Ok(_) => {
                        break Err(DispatchFault::Illegal { pc, what: "execution ran past the decoded code".into() })
                    }
                    Err(f) => break Err(f),
                }
            };
            count += 1;
            // Hang detection counts the work of a long workgroup as it runs, and a kernel that
            // never ends must not hold its queue: publish and look at the flag now and then.
            if count.is_multiple_of(crate::work::BATCH) {
                ctx.tally.ran_batch();
                if let Err(f) = ctx.cancel.check() {
                    break Err(f);
                }
            }
            let pc = inst.pc;
            let ill = |what: String| DispatchFault::Illegal { pc, what };
            // The wait checker: a flag test unless a memory operation is outstanding.
            if inst.counters || self.wc.busy {
                let route = super::super::waitcnt::route(self, &inst.op);
                self.wc.step::<W>(&seg.wc[ip], pc, route).map_err(ill)?;
            }
            ip += 1;
            match &inst.op {
                Op::Nop => {}
                Op::Valu(v) if matches!(v.op, VOp::MovRelD | VOp::MovRelS | VOp::MovRelSD | VOp::MovRelSD2) => {
                    let w = self.movrel(v).map_err(ill)?;
                    self.valu(&w, &mut io).map_err(ill)?
                }
                Op::Valu(v) if self.gpr_idx => {
                    let w = self.gpr_indexed(v).map_err(ill)?;
                    self.valu(&w, &mut io).map_err(ill)?
                }
                Op::Valu(v) if v.fast && self.valu_fast(v) => {}
                Op::Valu(v) => self.valu(v, &mut io).map_err(ill)?,
                Op::GprIdxOn { src, mode } => {
                    let idx = self.sval(*src, Ty::B32) as u32 & 0xff;
                    self.s[M0_REG] = (self.s[M0_REG] & !0xf0ff) | idx | (*mode as u32) << 12;
                    self.gpr_idx = true;
                }
                Op::GprIdxOff => self.gpr_idx = false,
                Op::Mfma(x) => self.mfma(x).map_err(ill)?,
                // The shader clock counts this wave's instructions: monotonic and reproducible.
                Op::Clock { dst, real } => {
                    self.ws64(*dst as usize, if *real { real_time() } else { self.count + count })
                }
                Op::Cvt8(c) => self.cvt8(c),
                Op::VSwap { a, b } => self.vswap(*a as usize, *b as usize),
                Op::Sdwa(s) => self.sdwa(s, &mut io).map_err(ill)?,
                Op::PermlaneSwap { vdst, src, half, fi, bound_ctrl } => {
                    self.permlane_swap(*vdst, *src, *half, *fi, *bound_ctrl)
                }
                Op::ScalarValu(v) => self.scalar_valu(v, &mut io).map_err(ill)?,
                Op::Salu { op, dst, a, b, wide } => self.salu(*op, *dst, *a, *b, *wide).map_err(ill)?,
                Op::End => {
                    self.done = true;
                    break Ok(Stop::End);
                }
                Op::Branch(t) => {
                    (seg, ip) = self.target(ctx, *t, &seg)?;
                }
                Op::CBranch(c, t) => {
                    let take = self.taken(*c);
                    if take {
                        (seg, ip) = self.target(ctx, *t, &seg)?;
                    }
                }
                Op::Barrier => {
                    break Ok(Stop::Barrier);
                }
                Op::Smem { dst, n, base, off, soff, buffer } => {
                    self.smem(ctx, *dst, *n, *base, *off, *soff, *buffer, pc)?
                }
                Op::SmemWrite(w) => self.smem_write(ctx, w, pc)?,
                Op::SMovRel { dst, src, wide, rel_dst } => self.smovrel(*dst, *src, *wide, *rel_dst).map_err(ill)?,
                Op::Vopd(pair) => {
                    let exec = self.exec();
                    let ox = self.compute(&pair[0], exec, &mut io).map_err(ill)?;
                    let oy = self.compute(&pair[1], exec, &mut io2).map_err(ill)?;
                    self.commit(&pair[0], &io.r, &ox);
                    self.commit(&pair[1], &io2.r, &oy);
                }
                Op::Mem(m) if m.vdst >= ACC || m.data >= ACC => {
                    let m = VMem { vdst: self.unified(m.vdst), data: self.unified(m.data), ..*m };
                    self.vmem(ctx, lds, &m, pc)?
                }
                Op::Mem(m) => self.vmem(ctx, lds, m, pc)?,
                Op::Buf(b) => self.buffer(ctx, lds, b, pc)?,
                Op::MemLds(m) => {
                    let m = VMem { vdst: self.unified(m.vdst), data: self.unified(m.data), ..*m };
                    self.vmem_lds(ctx, lds, &m, pc)?
                }
                Op::Ds(m) if m.vdst >= ACC || m.data0 >= ACC => {
                    let (vdst, data0, data1) = (self.unified(m.vdst), self.unified(m.data0), self.unified(m.data1));
                    self.ds(lds, &Ds { vdst, data0, data1, ..*m }, pc)?
                }
                Op::Ds(m) => self.ds(lds, m, pc)?,
                Op::AccMove { dst, src } => self.acc_move(*dst, *src),
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
    pub(super) fn gpr_indexed(&self, v: &Valu) -> Result<Valu, String> {
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

    pub(super) fn target(&self, ctx: &Ctx, t: Tgt, seg: &Arc<Segment>) -> Result<(Arc<Segment>, usize), DispatchFault> {
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

    /// `v_movrel*`: a move whose VGPR indices M0 offsets at run time, as a plain move.
    fn movrel(&self, v: &Valu) -> Result<Valu, String> {
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
        w.dst = (v.dst as u32)
            .checked_add(ds)
            .filter(|&d| (d as usize) < NVGPR)
            .ok_or_else(|| format!("v_movrel: destination v{} + M0 {ds} is outside the VGPRs", v.dst))?
            as u16;
        if let Vs::V(r) = v.src[0] {
            let r = (r as u32)
                .checked_add(ss)
                .filter(|&r| (r as usize) < NVGPR)
                .ok_or_else(|| format!("v_movrel: source v{r} + M0 {ss} is outside the VGPRs"))?;
            w.src[0] = Vs::V(r as u16);
        }
        Ok(w)
    }

    /// Whether a conditional branch is taken.
    #[inline(always)]
    fn taken(&self, c: Cond) -> bool {
        match c {
            Cond::Scc0 => !self.scc,
            Cond::Scc1 => self.scc,
            Cond::Vccz => self.vcc() == 0,
            Cond::Vccnz => self.vcc() != 0,
            Cond::Execz => self.exec() == 0,
            Cond::Execnz => self.exec() != 0,
        }
    }

    /// A scalar memory load (s_load*, s_buffer_load*) of `n` dwords, or of a sub-dword (gfx12).
    #[allow(clippy::too_many_arguments)]
    fn smem(
        &mut self,
        ctx: &Ctx,
        dst: u8,
        n: u8,
        base: u8,
        off: i64,
        soff: Ss,
        buffer: bool,
        pc: u64,
    ) -> Result<(), DispatchFault> {
        let addr = self.smem_addr(base, off, soff, buffer);
        if n > 16 {
            // Sub-dword loads (gfx12): one SGPR, extended.
            let (len, signed) = match n {
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
            self.ws(dst as usize, x);
            return Ok(());
        }
        let va = addr & !3;
        let len = n as u64 * 4;
        let p = ctx.mem.translate(va, len).ok_or(DispatchFault::Memory { va, write: false, pc })?;
        for k in 0..n as usize {
            // SAFETY: translate checked [va, va + len) lies inside one allocation.
            let x = unsafe { (p.add(4 * k) as *const u32).read_unaligned() };
            self.ws(dst as usize + k, x);
        }
        Ok(())
    }

    /// gfx9 v_accvgpr_read/write/mov: a move within the unified file.
    fn acc_move(&mut self, dst: u16, src: Vs) {
        let x = match src {
            Vs::V(r) => self.vsrc(Vs::V(self.unified(r)), Ty::B32, false),
            s => self.vsrc(s, Ty::B32, false),
        };
        let (d, exec) = (self.unified(dst) as usize, self.exec());
        for l in 0..W {
            if exec >> l & 1 != 0 {
                self.v[d][l] = x[l] as u32;
            }
        }
    }
}

/// The "real time" clock of `s_memrealtime`: 100 MHz ticks of the host's monotonic clock since
/// the first read (the rate KFD reports for gfx9's REFCLK; the origin is arbitrary).
fn real_time() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    (START.get_or_init(std::time::Instant::now).elapsed().as_nanos() / 10) as u64
}
