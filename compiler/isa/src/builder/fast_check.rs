//! The fast path against the general fill, candidate by candidate: on every architecture, every
//! constructor's plain candidates with a fast plan are given operands drawn from a pool (most of
//! the kind the slot wants, some not) and a few modifier sets. Where the fast path says the
//! candidate fits, the general fill must succeed with the same words, literal, branch target
//! and registers; where it says no, the general fill must fail.

use baregpu_autogen::isa::OperandKind as K;

use super::cands::CtorTable;
use super::encode::Fill;
use super::fast::Verdict;
use super::label::Label;
use super::operand::{abs, neg, offset, vmcnt, Mod, Operand};
use super::reg::{a, exec, m0, null, s, s_range, scc, ttmp, v, v_range, vcc, vcc_lo};
use crate::asm::parser::Ext;
use crate::Arch;

/// Operands of every kind, valid and not.
fn pool() -> Vec<Operand> {
    let mut p: Vec<Operand> = vec![
        v(0).into(),
        v(255).into(),
        v(2..4).into(),
        v(3..5).into(),
        v(4..8).into(),
        v(1).h().into(),
        neg(v(1)),
        abs(s(2)),
        s(0).into(),
        s(101).into(),
        s(104).into(),
        s(2..4).into(),
        s(3..5).into(),
        s(8..16).into(),
        a(1).into(),
        a(0..4).into(),
        ttmp(1).into(),
        vcc_lo().into(),
        vcc().into(),
        exec().into(),
        m0().into(),
        null().into(),
        scc().into(),
        Operand::Off,
        Operand::Label(Label(0)),
        vmcnt(0).into(),
        vmcnt(100_000).into(),
        Operand::F64(1.0),
    ];
    for i in [0i64, 64, 65, -1, -16, -17, 70_000, -40_000, 0x1234_5678, 1 << 40] {
        p.push(Operand::Int(i));
    }
    for f in [0.0f32, 0.5, -4.0, 3.25] {
        p.push(Operand::F32(f));
    }
    p
}

/// A deterministic draw (a linear congruential generator).
struct Draw(u64);

impl Draw {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize % n
    }
}

/// An operand the slot's table kind wants (most draws) or any from the pool.
fn operand(d: &mut Draw, pool: &[Operand], kind: K, dwords: u8) -> Operand {
    let n = dwords.max(1) as u32;
    let first = [0u32, 2, 4, 8, 100][d.next(5)];
    match (d.next(4), kind) {
        (0, _) => pool[d.next(pool.len())],
        (_, K::Vgpr | K::Vsrc) if d.next(3) > 0 => v_range(first, n).into(),
        (_, K::Sgpr | K::Ssrc | K::Vsrc) => s_range(first, n).into(),
        (_, K::Simm16 | K::Imm | K::Offset) => Operand::Int([0i64, 3, 64, 1000, -5][d.next(5)]),
        (_, K::Label) => Operand::Label(Label(d.next(2) as u32)),
        _ => pool[d.next(pool.len())],
    }
}

fn mods(d: &mut Draw) -> Vec<Mod> {
    match d.next(6) {
        0 => vec![offset(16)],
        1 => vec![offset(70_000)],
        2 => vec![offset(300)],
        _ => vec![],
    }
}

#[test]
fn fast_path_agrees_with_the_general_fill() {
    let pool = pool();
    let mut d = Draw(12345);
    let (mut fits, mut no) = (0usize, 0usize);
    for arch in Arch::ALL {
        for cands in CtorTable::get(arch, Ext::None).cands.iter() {
            for c in cands.iter() {
                let Some(plan) = &c.fast else { continue };
                for _ in 0..12 {
                    let count = if d.next(16) == 0 { c.slots.len() + 1 } else { c.slots.len() };
                    let ops: Vec<Operand> = (0..count)
                        .map(|k| match c.slots.get(k) {
                            Some(s) => operand(&mut d, &pool, s.op.kind, s.op.dwords),
                            None => pool[0],
                        })
                        .collect();
                    let mods = mods(&mut d);
                    let mut f = plan.start();
                    let mut used = [0; 4];
                    let verdict = plan.fill(&mut f, &ops, &mods, &mut used);
                    let mut g = Fill::new(c, arch, false);
                    g.quiet = true;
                    let ok = g.operands(&ops).is_ok() && g.mods(&mods).is_ok() && g.finish().is_ok();
                    let what = || format!("{} {} {ops:?} {mods:?}", arch.name(), c.init.mnemonic());
                    match verdict {
                        Verdict::Fits => {
                            fits += 1;
                            assert!(ok, "fast path fits, general fill fails: {}", what());
                            assert_eq!(f.words, g.i.words, "words: {}", what());
                            assert_eq!(f.lit, g.lit, "literal: {}", what());
                            assert_eq!(f.target, g.target, "target: {}", what());
                            assert_eq!((used, f.vcc), (g.used, g.vcc), "registers: {}", what());
                        }
                        Verdict::No => {
                            no += 1;
                            assert!(!ok, "fast path says no, general fill fits: {}", what());
                        }
                        Verdict::Unsure => {}
                    }
                }
            }
        }
    }
    // Both verdicts were reached many times (the draw is not all of one kind).
    assert!(fits > 10_000 && no > 1_000, "fits {fits}, no {no}");
}
