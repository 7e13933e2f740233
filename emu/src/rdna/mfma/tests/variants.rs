//! Every MFMA and SMFMAC of the gfx942 and gfx950 instruction tables but the f8f6f4 forms
//! (scaled.rs): random operand registers (small values, so every product and sum is exact and
//! any summation model agrees), the broadcasts (CBSZ/ABID, BLGP), f64's NEG and the sparse
//! index sets chosen at random; the logical matrices read back from the registers by the
//! layouts (checked against AMD's calculator in calculator.rs), their product computed here.

use super::harness::*;
use super::reference::*;
use crate::rdna::mfma::layout::{blgp_lane, cbsz_block, d_slot_blocks, d_slot_f64, index_bit};
use crate::rdna::mfma::{Fmt, Out, Variant};
use baregpu_isa::Arch;

/// A random pattern of format `f`: with a small exact value (a multiple of 1/4 within ±8), or
/// (`exact` false) any finite one.
fn pick(f: Fmt, rng: &mut Rng, exact: bool) -> (u64, f64) {
    let int = rng.range(-8, 8);
    let mini = |d: Def, rng: &mut Rng| {
        let (x, v) = d.pick(rng, exact);
        (x as u64, v)
    };
    match f {
        Fmt::F32 if !exact => loop {
            let x = f32::from_bits(rng.next() as u32 ^ (rng.next() as u32) << 16);
            if x.is_finite() {
                return (x.to_bits() as u64, x as f64);
            }
        },
        Fmt::F64 if !exact => {
            // Full 52-bit mantissas, exponents within ±20: products that round.
            let x = f64::from_bits((rng.next() << 21 ^ rng.next()) & ((1 << 52) - 1) | 1023 << 52)
                * (rng.range(-20, 20) as f64).exp2()
                * if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
            (x.to_bits(), x)
        }
        Fmt::I8 if !exact => {
            let x = rng.next() as u8;
            (x as u64, x as i8 as f64)
        }
        Fmt::F32 | Fmt::Xf32 => ((int as f32).to_bits() as u64, int as f64),
        Fmt::F64 => ((int as f64).to_bits(), int as f64),
        Fmt::I8 => (int as u8 as u64, int as f64),
        Fmt::F16 => mini(F16, rng),
        Fmt::Bf16 => mini(BF16, rng),
        Fmt::Fp8 => mini(FP8, rng),
        Fmt::Bf8 => mini(BF8, rng),
        Fmt::Fp8Fnuz => mini(FP8_FNUZ, rng),
        Fmt::Bf8Fnuz => mini(BF8_FNUZ, rng),
        other => panic!("{other:?} is an f8f6f4 format"),
    }
}

/// Broadcasts and modifiers for one run.
#[derive(Default, Debug)]
struct Mods {
    cbsz: u32,
    abid: u32,
    blgp: u32,
    neg: u32,
}

impl Mods {
    fn random(v: &Variant, rng: &mut Rng) -> Mods {
        let mut m = Mods::default();
        if v.sparse {
            // As many index sets as 32 bits hold; CBSZ non-zero: ABID ignored, the first set.
            let sets = 32 / (4 * v.a_geom(v.a).per_lane() / 2);
            m.abid = rng.range(0, sets as i64 - 1) as u32;
            m.cbsz = rng.range(0, 1) as u32;
        } else if v.out == Out::F64 {
            m.neg = rng.range(0, 7) as u32;
        } else {
            m.blgp = rng.range(0, 7) as u32;
            if v.blocks > 1 {
                m.cbsz = rng.range(0, v.blocks.ilog2() as i64) as u32;
                m.abid = rng.range(0, (1 << m.cbsz) - 1) as u32;
            }
        }
        m
    }

    fn text(&self, v: &Variant) -> String {
        let mut s = String::new();
        if self.cbsz != 0 || self.abid != 0 {
            s += &format!(" cbsz:{} abid:{}", self.cbsz, self.abid);
        }
        if self.blgp != 0 {
            s += &format!(" blgp:{}", self.blgp);
        }
        if v.out == Out::F64 && self.neg != 0 {
            s += &format!(" neg:[{},{},{}]", self.neg & 1, self.neg >> 1 & 1, self.neg >> 2 & 1);
        }
        s
    }
}

/// One run of `mnemonic`; `exact`: data every summation model agrees on, else any finite data
/// against the model (docs/cdna-mfma.md).
fn check(arch: &'static str, mnemonic: &str, mods: &Mods, agpr: bool, exact: bool, rng: &mut Rng) {
    let v = Variant::parse(Arch::from_name(arch).unwrap(), mnemonic).unwrap();
    let (ga, gb) = (v.a_geom(v.a), v.b_geom(v.b));
    let (m, k, nb) = (v.m as usize, v.k as usize, v.blocks as usize);
    let mut lanes = Lanes::new();
    for w in lanes.0.iter_mut() {
        *w = rng.next() as u32;
    }
    // The stored elements, [lane][element].
    let mut fill = |base: usize, f: Fmt, n: usize| -> Vec<Vec<f64>> {
        (0..64)
            .map(|lane| {
                (0..n)
                    .map(|e| {
                        let (x, val) = pick(f, rng, exact);
                        lanes.put(base, lane, f.bits() as usize, e, x);
                        val
                    })
                    .collect()
            })
            .collect()
    };
    let (sa, sb) = (fill(A, v.a, ga.per_lane()), fill(B, v.b, gb.per_lane()));
    let sign = |bit: u32| if mods.neg & bit != 0 { -1.0 } else { 1.0 };
    let mut a = vec![0f64; nb * m * k];
    if v.sparse {
        // Two distinct positions of four a group, in the index set ABID picks.
        for lane in 0..64 {
            for e in (0..ga.per_lane()).step_by(2) {
                let p0 = rng.range(0, 2);
                let p1 = rng.range(p0 + 1, 3);
                let bit = index_bit(ga, mods.cbsz, mods.abid, e);
                let w = lanes.get(IDX, lane, 0) & !(0xf << bit) | ((p0 | p1 << 2) as u32) << bit;
                lanes.set(IDX, lane, 0, w);
            }
        }
        for i in 0..m {
            for kc in 0..ga.k as usize {
                let (lane, e) = ga.slot(0, i, kc);
                let nib = lanes.get(IDX, lane, 0) >> index_bit(ga, mods.cbsz, mods.abid, e) & 0xf;
                a[i * k + 4 * (kc / 2) + (nib >> (2 * (kc % 2)) & 3) as usize] = sa[lane][e];
            }
        }
    } else {
        for b in 0..nb {
            for i in 0..m {
                for kk in 0..k {
                    let (lane, e) = ga.slot(cbsz_block(mods.cbsz, mods.abid, b), i, kk);
                    a[(b * m + i) * k + kk] = sa[lane][e] * sign(1);
                }
            }
        }
    }
    let mut bm = vec![0f64; nb * k * m];
    for b in 0..nb {
        for kk in 0..k {
            for j in 0..m {
                let (lane, e) = gb.slot(b, j, kk);
                bm[(b * k + kk) * m + j] = sb[blgp_lane(mods.blgp, lane)][e] * sign(2);
            }
        }
    }
    // C (D's registers for SMFMAC): small integers in the result's type.
    let slot = |b: usize, i: usize, j: usize| match v.out {
        Out::F64 => d_slot_f64(v.m, b, i, j),
        _ => d_slot_blocks(v.m, b, i, j),
    };
    let mut c = vec![0f64; nb * m * m];
    for b in 0..nb {
        for i in 0..m {
            for j in 0..m {
                let x = rng.range(-100, 100) as f64 * if exact || v.out == Out::I32 { 1.0 } else { 0.37 };
                let (lane, reg) = slot(b, i, j);
                let bits = match v.out {
                    Out::F32 => (x as f32).to_bits() as u64,
                    Out::I32 => x as i32 as u32 as u64,
                    Out::F64 => x.to_bits(),
                };
                lanes.set(CD, lane, reg, bits as u32);
                if v.out == Out::F64 {
                    lanes.set(CD, lane, reg + 1, (bits >> 32) as u32);
                }
                c[(b * m + i) * m + j] = if v.out == Out::F32 { (x as f32) as f64 } else { x } * sign(4);
            }
        }
    }
    let cd = cd_regs(v.d_regs(), agpr);
    let (ra, rb) = (vregs(A, ga.regs()), vregs(B, gb.regs()));
    let src2 = if v.sparse { vregs(IDX, 1) } else { cd.clone() };
    let inst = format!("{mnemonic} {cd}, {ra}, {rb}, {src2}{}", mods.text(&v));
    run(arch, &inst, &mut lanes, agpr, v.d_regs());
    for b in 0..nb {
        for i in 0..m {
            for j in 0..m {
                let (a, bm) = (&a[(b * m + i) * k..], &bm[b * k * m + j..]);
                let c = c[(b * m + i) * m + j];
                let want = match v.out {
                    Out::F32 => ((0..k).fold(0f64, |s, kk| s + a[kk] * bm[kk * m]) + c) as f32 as f64,
                    Out::I32 => {
                        (c as i32).wrapping_add((0..k).map(|kk| a[kk] * bm[kk * m]).sum::<f64>() as i64 as i32) as f64
                    }
                    Out::F64 => (0..k).fold(c, |s, kk| a[kk].mul_add(bm[kk * m], s)),
                };
                let (lane, reg) = slot(b, i, j);
                let got = match v.out {
                    Out::F32 => f32::from_bits(lanes.get(CD, lane, reg)) as f64,
                    Out::I32 => lanes.get(CD, lane, reg) as i32 as f64,
                    Out::F64 => {
                        f64::from_bits(lanes.get(CD, lane, reg) as u64 | (lanes.get(CD, lane, reg + 1) as u64) << 32)
                    }
                };
                assert_eq!(got.to_bits(), want.to_bits(), "{arch} {inst}: D[{b}][{i}][{j}] {got} != {want}");
            }
        }
    }
}

/// The MFMA/SMFMAC mnemonics of `arch`'s instruction table, the f8f6f4 forms aside.
fn table(arch: Arch) -> Vec<&'static str> {
    let mut v: Vec<&str> = baregpu_isa::tables::Tables::get(arch)
        .by_mnemonic
        .keys()
        .copied()
        .filter(|m| (m.starts_with("v_mfma") || m.starts_with("v_smfmac")) && !m.contains("f8f6f4"))
        .filter(|m| *m != "v_mfma_ld_scale_b32")
        .collect();
    v.sort();
    v
}

#[test]
fn every_mfma_and_smfmac_of_both_tables_matches_the_reference() {
    let mut rng = Rng(21);
    for arch in ["gfx942", "gfx950"] {
        let names = table(Arch::from_name(arch).unwrap());
        assert!(names.len() >= 44, "{arch}: {} MFMA/SMFMAC mnemonics", names.len());
        for (n, mnemonic) in names.iter().enumerate() {
            let v = Variant::parse(Arch::from_name(arch).unwrap(), mnemonic)
                .unwrap_or_else(|| panic!("{arch} {mnemonic}: not an MFMA variant the emulator knows"));
            check(arch, mnemonic, &Mods::default(), n % 2 == 0, true, &mut rng);
            let mods = Mods::random(&v, &mut rng);
            check(arch, mnemonic, &mods, n % 2 == 1, true, &mut rng);
        }
    }
}

/// Every mnemonic on any finite data (xf32: exact data, its narrowing is our choice) against
/// the model: f64 sums in K order, one rounding; f64 a chain of fused multiply-adds.
#[test]
fn every_mfma_and_smfmac_on_random_data_matches_the_model() {
    let mut rng = Rng(22);
    for arch in ["gfx942", "gfx950"] {
        for (n, mnemonic) in table(Arch::from_name(arch).unwrap()).iter().enumerate() {
            let v = Variant::parse(Arch::from_name(arch).unwrap(), mnemonic).unwrap();
            let mods = Mods::random(&v, &mut rng);
            check(arch, mnemonic, &mods, n % 2 == 0, v.a == Fmt::Xf32, &mut rng);
        }
    }
}
