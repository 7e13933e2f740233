//! gfx950 `v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4` and the unscaled `v_mfma_f32_*_f8f6f4`:
//! every A/B format pair (CBSZ, BLGP), E8M0 scales with the byte chosen by op_sel/op_sel_hi,
//! C/D in VGPRs and AGPRs. The operands are placed the way AMD's CDNA4 matrix-core blog's
//! kernels load them (written here apart from the emulator's layout code): FP8 in two halves
//! of K, 16 contiguous elements a lane in each; FP6/FP4 32 contiguous elements a lane.

use super::harness::*;
use super::reference::*;

/// The test's own placement of A[i][k] (B[k][i]) of an f8f6f4 operand: (lane, element).
fn slot(m: usize, k_total: usize, bits: u32, i: usize, k: usize) -> (usize, usize) {
    if bits == 8 {
        let half = k_total / 2;
        let (h, r) = (k / half, k % half);
        (i + m * (r / 16), 16 * h + r % 16)
    } else {
        (i + m * (k / 32), k % 32)
    }
}

/// D[i][j] of a 16×16 or 32×32 f32 result: (lane, register) (the blog's store loops).
fn d_slot(m: usize, i: usize, j: usize) -> (usize, usize) {
    if m == 16 {
        (j + 16 * (i / 4), i % 4)
    } else {
        (j + 32 * ((i % 8) / 4), 4 * (i / 8) + i % 4)
    }
}

struct Case {
    m: usize,
    fa: usize,
    fb: usize,
    scaled: bool,
    /// Data every summation model agrees on (exact products and sums) or any finite data.
    exact: bool,
    agpr: bool,
}

fn check(c: &Case, rng: &mut Rng) {
    let (m, k) = (c.m, if c.m == 16 { 128 } else { 64 });
    let (da, db) = (F8F6F4[c.fa], F8F6F4[c.fb]);
    let mut lanes = Lanes::new();
    // Fill everything with noise first: unused bytes of the scale registers must not matter.
    for w in lanes.0.iter_mut() {
        *w = rng.next() as u32;
    }
    let mut a = vec![0f64; m * k];
    let mut b = vec![0f64; k * m];
    for i in 0..m {
        for kk in 0..k {
            let (x, v) = da.pick(rng, c.exact);
            let (lane, e) = slot(m, k, da.bits(), i, kk);
            lanes.put(A, lane, da.bits() as usize, e, x as u64);
            a[i * k + kk] = v;
            let (x, v) = db.pick(rng, c.exact);
            let (lane, e) = slot(m, k, db.bits(), i, kk);
            lanes.put(B, lane, db.bits() as usize, e, x as u64);
            b[kk * m + i] = v;
        }
    }
    // Scales: lane i + M·kb holds row/column i's scale for K block kb, in the byte op_sel picks.
    let (abyte, bbyte) = (rng.range(0, 3) as usize, rng.range(0, 3) as usize);
    let spread = if c.exact { 1 } else { 20 };
    let kb = k / 32;
    let (mut sa, mut sb) = (vec![1f64; m * kb], vec![1f64; m * kb]);
    for i in 0..m {
        for blk in 0..kb {
            for (base, byte, s) in [(SA, abyte, &mut sa), (SB, bbyte, &mut sb)] {
                let e = if c.scaled { 127 + rng.range(-spread, spread) } else { 127 };
                let lane = i + m * blk;
                let w = lanes.get(base, lane, 0) & !(0xff << (8 * byte)) | (e as u32) << (8 * byte);
                lanes.set(base, lane, 0, w);
                s[i * kb + blk] = ((e - 127) as f64).exp2();
            }
        }
    }
    let cm: Vec<f32> = (0..m * m).map(|_| rng.range(-64, 64) as f32 * if c.exact { 1.0 } else { 0.37 }).collect();
    let d_regs = m * m / 64;
    for i in 0..m {
        for j in 0..m {
            let (lane, reg) = d_slot(m, i, j);
            lanes.set(CD, lane, reg, cm[i * m + j].to_bits());
        }
    }
    let cd = cd_regs(d_regs, c.agpr);
    let (ra, rb) = (vregs(A, da.bits() as usize), vregs(B, db.bits() as usize));
    let inst = if c.scaled {
        format!(
            "v_mfma_scale_f32_{m}x{m}x{k}_f8f6f4 {cd}, {ra}, {rb}, {cd}, {}, {} op_sel:[{},{},0] op_sel_hi:[{},{},0] cbsz:{} blgp:{}",
            vregs(SA, 1),
            vregs(SB, 1),
            abyte & 1,
            bbyte & 1,
            abyte >> 1,
            bbyte >> 1,
            c.fa,
            c.fb
        )
    } else {
        format!("v_mfma_f32_{m}x{m}x{k}_f8f6f4 {cd}, {ra}, {rb}, {cd} cbsz:{} blgp:{}", c.fa, c.fb)
    };
    run("gfx950", &inst, &mut lanes, c.agpr, d_regs);
    let scale = |i: usize, j: usize, kk: usize| sa[i * kb + kk / 32] * sb[j * kb + kk / 32];
    let want = product(m, k, &a, &b, &cm, &scale);
    for i in 0..m {
        for j in 0..m {
            let w = want[i * m + j];
            if c.exact {
                assert!(exact_in_f32(w), "{inst}: the exact data must keep D[{i}][{j}] = {w} exact");
            }
            let (lane, reg) = d_slot(m, i, j);
            let got = f32::from_bits(lanes.get(CD, lane, reg));
            assert_eq!(
                got.to_bits(),
                (w as f32).to_bits(),
                "{inst} ({}×{}): D[{i}][{j}] {got} != {w}",
                da.name,
                db.name
            );
        }
    }
}

/// Every format pair on both shapes, scaled, on data where every summation model agrees.
#[test]
fn every_format_pair_matches_the_reference_exactly() {
    let mut rng = Rng(11);
    for (n, m) in [16, 32].into_iter().enumerate() {
        for fa in 0..5 {
            for fb in 0..5 {
                check(&Case { m, fa, fb, scaled: true, exact: true, agpr: (fa + fb + n) % 2 == 0 }, &mut rng);
            }
        }
    }
}

/// Every format pair on any finite data and scales over a wide range, against the model.
#[test]
fn random_data_matches_the_model() {
    let mut rng = Rng(12);
    for fa in 0..5 {
        for fb in 0..5 {
            let m = if (fa + fb) % 3 == 0 { 32 } else { 16 };
            check(&Case { m, fa, fb, scaled: true, exact: false, agpr: fa % 2 == 0 }, &mut rng);
        }
    }
}

/// The unscaled `v_mfma_f32_*_f8f6f4` (scale 1): each format against itself and mixed.
#[test]
fn unscaled_f8f6f4_matches_the_reference() {
    let mut rng = Rng(13);
    for m in [16, 32] {
        for (fa, fb) in [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (0, 4), (4, 2), (3, 1)] {
            check(&Case { m, fa, fb, scaled: false, exact: m == 16, agpr: fa == fb }, &mut rng);
        }
    }
}

/// An E8M0 scale of 0xFF is NaN (OCP MX): the rows it scales come out NaN, the others not.
#[test]
fn nan_scale_makes_its_rows_nan() {
    let mut lanes = Lanes::new();
    // FP4 1.0 everywhere (0x2 a nibble), scales 1.0 (127) but A's row 3, K block 1 (lane 19).
    for lane in 0..64 {
        for r in 0..4 {
            lanes.set(A, lane, r, 0x2222_2222);
            lanes.set(B, lane, r, 0x2222_2222);
        }
        lanes.set(SA, lane, 0, if lane == 19 { 0xff } else { 127 });
        lanes.set(SB, lane, 0, 127);
    }
    let inst = format!(
        "v_mfma_scale_f32_16x16x128_f8f6f4 {}, {}, {}, 0, {}, {} op_sel_hi:[0,0,0] cbsz:4 blgp:4",
        vregs(CD, 4),
        vregs(A, 4),
        vregs(B, 4),
        vregs(SA, 1),
        vregs(SB, 1)
    );
    run("gfx950", &inst, &mut lanes, false, 4);
    for i in 0..16 {
        for j in 0..16 {
            let (lane, reg) = d_slot(16, i, j);
            let got = f32::from_bits(lanes.get(CD, lane, reg));
            assert_eq!(got.is_nan(), i == 3, "D[{i}][{j}] = {got}");
            if i != 3 {
                assert_eq!(got, 128.0, "D[{i}][{j}]");
            }
        }
    }
}
