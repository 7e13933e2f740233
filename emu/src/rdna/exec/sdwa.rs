//! gfx9 SDWA: a VALU operation on selected bytes or words of its sources, its result placed
//! in selected bytes or words of the destination (see decode/sdwa.rs for the source).

use super::*;

/// The selected part of `x`: BYTE_0..3, WORD_0/1, DWORD; zero- or sign-extended.
fn select(x: u32, sel: u8, sext: bool) -> u32 {
    let (sh, bits) = match sel {
        0..=3 => (8 * sel as u32, 8),
        4 | 5 => (16 * (sel as u32 - 4), 16),
        _ => return x,
    };
    let part = x >> sh & ((1 << bits) - 1);
    if sext && part >> (bits - 1) & 1 != 0 {
        part | !((1 << bits) - 1)
    } else {
        part
    }
}

/// The destination dword: `r`'s low bits in the selected part; the bits around it zeroed,
/// sign-extended above (SEXT), or kept from `old` (PRESERVE).
fn place(r: u32, sel: u8, unused: u8, old: u32) -> u32 {
    let (sh, bits) = match sel {
        0..=3 => (8 * sel as u32, 8),
        4 | 5 => (16 * (sel as u32 - 4), 16),
        _ => return r,
    };
    let field = ((1u64 << bits) - 1) as u32;
    let mask = field << sh;
    let x = (r & field) << sh;
    match unused {
        2 => (old & !mask) | x,
        // SEXT: the bits above the field copy its sign; those below are zero.
        1 if r >> (bits - 1) & 1 != 0 => x | u32::MAX.checked_shl(sh + bits).unwrap_or(0),
        _ => x,
    }
}

impl<const W: usize> Wave<W> {
    pub(super) fn sdwa(&mut self, s: &Sdwa, io: &mut Lanes<W>) -> Result<(), String> {
        let v = &s.v;
        let exec = self.exec();
        // Sources as whole dwords, then selected, then the float modifiers.
        let mut raw = *v;
        (raw.abs, raw.neg) = (0, 0);
        for k in 0..2 {
            if raw.tys[k] != Ty::Mask {
                raw.tys[k] = Ty::B32;
            }
        }
        self.read_srcs(&raw, io);
        for k in 0..(v.nsrc as usize).min(2) {
            let ty = v.tys[k];
            if ty == Ty::Mask {
                continue;
            }
            let sign = match ty {
                Ty::F16 => 0x8000u64,
                Ty::F32 => 0x8000_0000,
                _ => 0,
            };
            let src = if k == 0 { &mut io.a } else { &mut io.b };
            for x in src.iter_mut() {
                let mut y = select(*x as u32, s.src_sel[k], s.sext[k]) as u64;
                if ty.is16() {
                    y &= 0xffff;
                }
                if v.abs >> k & 1 != 0 {
                    y &= !sign;
                }
                if v.neg >> k & 1 != 0 {
                    y ^= sign;
                }
                *x = y;
            }
        }
        let o = self.compute_read(v, exec, io)?;
        if v.op == VOp::Cmp {
            // gfx9 v_cmpx: the SGPR destination gets the result too.
            if !v.cmpx || v.dst as usize != EXEC {
                self.commit(v, &io.r, &o);
            }
            if v.cmpx {
                self.set_exec(o.mask);
            }
            return Ok(());
        }
        let d = v.dst as usize;
        for l in 0..W {
            io.r[l] = place(io.r[l] as u32, s.dst_sel, s.dst_unused, self.v[d][l]) as u64;
        }
        self.commit(&Valu { dty: Ty::B32, ..*v }, &io.r, &o);
        Ok(())
    }
}
