//! The operand under `fneg`/`fabs`/`sext` ([`super::Operand::Modified`]), packed into 12 bytes
//! so that the operand stays 16 bytes and `Copy` (it was a `Box`, freed after every
//! instruction built).

use std::fmt;

use super::intern::Interned;
use super::label::Label;
use super::operand::{Attr, Operand, Waitcnt};
use super::reg::{Half, Reg, RegFile, Special};

/// What a [`Base`] holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Reg,
    Special,
    Int,
    F32,
    F64,
    Off,
    Label,
    Waitcnt,
    Attr,
    Hwreg,
    Sendmsg,
}

/// An operand other than `Modified`, packed: its kind and 64 bits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Base {
    kind: Kind,
    /// Low and high halves (two `u32`s: 4-byte alignment keeps the operand at 16 bytes).
    bits: [u32; 2],
}

const FILES: [RegFile; 4] = [RegFile::Sgpr, RegFile::Vgpr, RegFile::Agpr, RegFile::Ttmp];

/// One waitcnt counter in 21 bits: 0 for none, else `n + 1` (saturated; any modifier on a
/// waitcnt is an error before its value is read).
fn counter(c: Option<u32>) -> u64 {
    c.map_or(0, |n| (n as u64 + 1).min((1 << 21) - 1))
}

fn uncounter(bits: u64) -> Option<u32> {
    (bits & ((1 << 21) - 1)).checked_sub(1).map(|n| n as u32)
}

impl Base {
    fn new(kind: Kind, v: u64) -> Base {
        Base { kind, bits: [v as u32, (v >> 32) as u32] }
    }

    fn v(self) -> u64 {
        self.bits[0] as u64 | (self.bits[1] as u64) << 32
    }

    /// Packs `x`; a `Modified` operand gives the operand under it (its modifier bits are the
    /// caller's to merge).
    pub(crate) fn of(x: Operand) -> Base {
        match x {
            Operand::Reg { reg, .. } => {
                let half = match reg.half {
                    None => 0,
                    Some(Half::Lo) => 1,
                    Some(Half::Hi) => 2,
                };
                let lo = reg.file as u64 | half << 8 | (reg.count as u16 as u64) << 16;
                Base::new(Kind::Reg, lo | (reg.first as u32 as u64) << 32)
            }
            Operand::Special { reg, .. } => Base::new(Kind::Special, reg as u64),
            Operand::Int(i) => Base::new(Kind::Int, i as u64),
            Operand::F32(f) => Base::new(Kind::F32, f.to_bits() as u64),
            Operand::F64(f) => Base::new(Kind::F64, f.to_bits()),
            Operand::Off => Base::new(Kind::Off, 0),
            Operand::Label(l) => Base::new(Kind::Label, l.0 as u64),
            Operand::Waitcnt(w) => {
                let [a, b, c] = w.counters();
                Base::new(Kind::Waitcnt, counter(a) | counter(b) << 21 | counter(c) << 42)
            }
            Operand::Attr(a) => Base::new(Kind::Attr, a.index as u64 | (a.chan as u64) << 8),
            Operand::Hwreg(h) => Base::new(Kind::Hwreg, h.index() as u64),
            Operand::Sendmsg(m) => Base::new(Kind::Sendmsg, m.index() as u64),
            Operand::Modified { x, .. } => x,
        }
    }

    /// The operand it holds (without modifiers).
    pub fn get(self) -> Operand {
        let v = self.v();
        match self.kind {
            Kind::Reg => {
                let half = match v >> 8 & 3 {
                    1 => Some(Half::Lo),
                    2 => Some(Half::Hi),
                    _ => None,
                };
                let reg =
                    Reg { file: FILES[v as usize & 3], half, count: (v >> 16) as u16 as i16, first: (v >> 32) as i32 };
                Operand::Reg { reg, neg: false, abs: false }
            }
            Kind::Special => {
                Operand::Special { reg: Special::ALL[v as usize % Special::ALL.len()], neg: false, abs: false }
            }
            Kind::Int => Operand::Int(v as i64),
            Kind::F32 => Operand::F32(f32::from_bits(v as u32)),
            Kind::F64 => Operand::F64(f64::from_bits(v)),
            Kind::Off => Operand::Off,
            Kind::Label => Operand::Label(Label(v as u32)),
            Kind::Waitcnt => {
                let mut w = Waitcnt::new();
                if let Some(n) = uncounter(v) {
                    w = w.vmcnt(n);
                }
                if let Some(n) = uncounter(v >> 21) {
                    w = w.expcnt(n);
                }
                if let Some(n) = uncounter(v >> 42) {
                    w = w.lgkmcnt(n);
                }
                Operand::Waitcnt(w)
            }
            Kind::Attr => Operand::Attr(Attr { index: v as u8, chan: (v >> 8) as u8 }),
            Kind::Hwreg => Operand::Hwreg(Interned::from_index(v as u32)),
            Kind::Sendmsg => Operand::Sendmsg(Interned::from_index(v as u32)),
        }
    }
}

impl fmt::Debug for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::*;

    #[test]
    fn round_trip() {
        let all: Vec<Operand> = vec![
            v(3).into(),
            s(-5..70000).into(),
            v(7).h().into(),
            a(4..8).into(),
            ttmp(2).into(),
            vcc_lo().into(),
            null().into(),
            Operand::Int(-123_456_789_012),
            Operand::F32(-0.5),
            Operand::F64(1e300),
            off(),
            Operand::Label(Label(77)),
            vmcnt(3).lgkmcnt(0).into(),
            Waitcnt::new().expcnt(9).into(),
            attr(31, 'w').into(),
            hwreg("HW_REG_MODE").into(),
            sendmsg_op("MSG_GS", "GS_OP_EMIT", 1).into(),
        ];
        for x in all {
            assert_eq!(Base::of(x).get(), x, "{x:?}");
        }
    }

    #[test]
    fn modifiers_stack() {
        let x = sext(fabs(fneg(0.5f32)));
        assert_eq!(x, Operand::Modified { x: Base::of(Operand::F32(0.5)), neg: true, abs: true, sext: true });
        assert_eq!(fneg(v(1)), Operand::Reg { reg: v(1), neg: true, abs: false });
    }
}
