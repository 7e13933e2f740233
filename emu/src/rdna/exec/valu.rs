//! The vector ALU: reading sources, computing per lane, committing results.

use super::*;

/// What a VALU operation produced besides its lane results (which stay in [`Lanes::r`]).
pub(super) struct Out {
    /// Lane mask result (compares, carries).
    pub(super) mask: u64,
    /// Lanes whose VGPR result is written.
    pub(super) wmask: u64,
}

impl<const W: usize> Wave<W> {
    /// Reads the sources (modifiers applied) into `io.a`, `io.b`, `io.c`; the sources the
    /// operation does not have read as 0.
    pub(super) fn read_srcs(&self, v: &Valu, io: &mut Lanes<W>) {
        for k in 0..3 {
            let a = match k {
                0 => &mut io.a,
                1 => &mut io.b,
                _ => &mut io.c,
            };
            if k >= v.nsrc as usize {
                // Zeroed only when an earlier operation left lanes there.
                if io.filled >> k & 1 != 0 {
                    *a = [0; W];
                }
                continue;
            }
            let ty = v.tys[k];
            if ty == Ty::Mask {
                *a = [self.sval(src_s(v.src[k]), Ty::Mask); W];
            } else {
                self.vsrc_into(v.src[k], ty, v.opsel >> k & 1 != 0, a);
            }
            if ty.is_float() && (v.abs | v.neg) >> k & 1 != 0 {
                let sign = match ty {
                    Ty::F16 => 0x8000u64,
                    Ty::F32 => 0x8000_0000,
                    _ => 1 << 63,
                };
                let clear = if v.abs >> k & 1 != 0 { !sign } else { u64::MAX };
                let flip = if v.neg >> k & 1 != 0 { sign } else { 0 };
                for x in a.iter_mut() {
                    *x = (*x & clear) ^ flip;
                }
            }
        }
        io.filled = (1u8 << (v.nsrc as usize).min(3)) - 1;
    }

    /// Computes `v` into `io.r` (and the masks).
    pub(super) fn compute(&self, v: &Valu, exec: u64, io: &mut Lanes<W>) -> Result<Out, String> {
        if packed(v.op) {
            return Ok(self.packed_op(v, exec, io));
        }
        self.read_srcs(v, io);
        self.compute_read(v, exec, io)
    }

    /// [`Self::compute`] on sources already read into `io` (SDWA selects them first).
    pub(super) fn compute_read(&self, v: &Valu, exec: u64, io: &mut Lanes<W>) -> Result<Out, String> {
        let wmask = if v.dpp != Dpp::None { self.dpp(v.dpp, &mut io.a, exec) } else { exec };
        // No clearing of `io.r`: every family's arm writes all its lanes.
        io.mask = 0;
        // Each family's match passes on the operations it does not hold.
        let mut arm = self.valu_int32(v, io)?;
        if let Arm::Next = arm {
            arm = self.valu_int_wide(v, io)?;
        }
        if let Arm::Next = arm {
            arm = self.valu_f32(v, io)?;
        }
        if let Arm::Next = arm {
            arm = self.valu_f16(v, io)?;
        }
        if let Arm::Next = arm {
            arm = self.valu_f64(v, io)?;
        }
        if let Arm::Next = arm {
            arm = self.valu_cdna4(v, io)?;
        }
        if let Arm::Next = arm {
            arm = self.valu_gfx9(v, io)?;
        }
        if let Arm::Next = arm {
            arm = self.valu_special(v, io)?;
        }
        if let Arm::Next = arm {
            arm = self.valu_lanes(v, exec, io)?;
        }
        match arm {
            Arm::Raw => return Ok(Out { mask: 0, wmask }),
            Arm::Mask => return Ok(Out { mask: io.mask, wmask: 0 }),
            Arm::Lanes | Arm::Next => {}
        }
        // Output modifiers.
        if v.dty.is_float() && (v.omod != 0 || v.clamp) {
            for x in io.r.iter_mut() {
                *x = match v.dty {
                    Ty::F32 => fb(omod32(f(*x), v.omod, v.clamp)),
                    Ty::F64 => db(omod64(d(*x), v.omod, v.clamp)),
                    _ => hb(omod32(hf(*x), v.omod, v.clamp)),
                };
            }
        }
        Ok(Out { mask: io.mask, wmask })
    }

    /// Operations across lanes, compares, and what no family holds.
    #[inline(always)]
    fn valu_lanes(&self, v: &Valu, exec: u64, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        match v.op {
            Permlane16 | PermlaneX16 => {
                let (sel_lo, sel_hi) = (io.b[0] as u32, io.c[0] as u32);
                for l in 0..W {
                    let i = l % 16;
                    let sel = if i < 8 { sel_lo >> (4 * i) } else { sel_hi >> (4 * (i - 8)) } & 0xf;
                    let row = l / 16;
                    let srow = if v.op == PermlaneX16 { row ^ 1 } else { row };
                    let s = srow * 16 + sel as usize;
                    io.r[l] = if s < W { io.a[s] } else { 0 };
                }
            }
            Cmp => {
                let (op, ty) = v.cmp;
                let m = cmp_mask::<W>(op, ty, &io.a, &io.b);
                io.mask = m & exec;
                return Ok(Arm::Mask);
            }
            ReadLane | ReadFirstLane | WriteLane => return Err("lane operation in a dual issue".into()),
            _ => return Err(format!("{:?}: not supported here", v.op)),
        }
        Ok(Arm::Lanes)
    }

    pub(super) fn commit(&mut self, v: &Valu, r: &[u64; W], o: &Out) {
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
                        self.v[dst][l] = r[l] as u32;
                        self.v[dst + 1][l] = (r[l] >> 32) as u32;
                    }
                }
            }
            Ty::B16 | Ty::F16 => {
                let (sh, keep) = match (v.opsel & 8 != 0, v.zero_hi) {
                    (true, _) => (16, 0xffffu32),
                    (false, true) => (0, 0),
                    (false, false) => (0, 0xffff_0000),
                };
                let d = &mut self.v[dst];
                for l in 0..W {
                    if wm >> l & 1 != 0 {
                        d[l] = (d[l] & keep) | (((r[l] as u32) & 0xffff) << sh);
                    }
                }
            }
            _ => {
                let d = &mut self.v[dst];
                if wm == Self::lane_mask() {
                    for l in 0..W {
                        d[l] = r[l] as u32;
                    }
                } else {
                    for l in 0..W {
                        let x = r[l] as u32;
                        d[l] = if wm >> l & 1 != 0 { x } else { d[l] };
                    }
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

    pub(super) fn valu(&mut self, v: &Valu, io: &mut Lanes<W>) -> Result<(), String> {
        let exec = self.exec();
        match v.op {
            VOp::ReadLane | VOp::ReadFirstLane => {
                let lane = if v.op == VOp::ReadFirstLane {
                    if exec == 0 {
                        0
                    } else {
                        exec.trailing_zeros() as usize
                    }
                } else {
                    (self.sval(src_s(v.src[1]), Ty::B32) as usize) % W
                };
                let x = self.vsrc(v.src[0], Ty::B32, false)[lane];
                self.ws(v.dst as usize, x as u32);
                return Ok(());
            }
            VOp::WriteLane => {
                let x = self.sval(src_s(v.src[0]), Ty::B32) as u32;
                let lane = (self.sval(src_s(v.src[1]), Ty::B32) as usize) % W;
                self.v[v.dst as usize][lane] = x;
                return Ok(());
            }
            VOp::MqsadU32U8 => {
                self.mqsad_u32(v);
                return Ok(());
            }
            _ => {}
        }
        let o = self.compute(v, exec, io)?;
        if v.cmpx {
            if v.dst as usize != EXEC {
                // gfx9: the SGPR destination gets the result too.
                self.commit(v, &io.r, &o);
            }
            self.set_exec(o.mask);
        } else {
            self.commit(v, &io.r, &o);
        }
        Ok(())
    }

    /// `v_s_*`: the sources are uniform, so lane 0 computes the one result, whatever EXEC is.
    pub(super) fn scalar_valu(&mut self, v: &Valu, io: &mut Lanes<W>) -> Result<(), String> {
        self.compute(v, 1, io)?;
        let r = if v.dty.is16() { io.r[0] as u32 & 0xffff } else { io.r[0] as u32 };
        self.ws(v.dst as usize, r);
        Ok(())
    }
}

pub(super) fn src_s(v: Vs) -> Ss {
    match v {
        Vs::S(s) => s,
        Vs::V(_) => Ss::K(0),
    }
}
