//! The layouts against AMD's Matrix Instruction Calculator for every CDNA3 MFMA and SMFMAC:
//! A (with CBSZ/ABID), B (with BLGP), C/D, and the SMFMAC compression indices (with ABID),
//! element by element (tests/fixtures/cdna/mfma-layouts-cdna3-all.txt, made by
//! mfma_layouts_all.py beside it).

use crate::rdna::mfma::layout::{blgp_lane, cbsz_block, d_slot_blocks, d_slot_f64, index_bit};
use crate::rdna::mfma::{Out, Variant};
use baregpu_isa::Arch;

/// "a.b" → (a, b).
fn pair(s: &str) -> (i64, i64) {
    let (a, b) = s.split_once('.').unwrap();
    (a.parse().unwrap(), b.parse().unwrap())
}

/// "x" or "x+d*n" (x and d pairs, or x a plain number with d a pair): n values from x by d.
fn expand(s: &str) -> Vec<(i64, i64)> {
    let scalar = |x: &str| if x.contains('.') { pair(x) } else { (x.parse().unwrap(), 0) };
    match s.split_once('+') {
        None => vec![scalar(s)],
        Some((x, rest)) => {
            let (d, n) = rest.split_once('*').unwrap();
            let ((x0, x1), (d0, d1)) = (scalar(x), pair(d));
            (0..n.parse::<i64>().unwrap()).map(|t| (x0 + t * d0, x1 + t * d1)).collect()
        }
    }
}

/// Ours for one cell: (lane, first bit) of `matrix`[row][col] in logical block `b`.
fn ours(v: &Variant, mods: &[(&str, u32)], matrix: &str, b: usize, row: usize, col: usize) -> (usize, usize) {
    let get = |name: &str| mods.iter().find(|(n, _)| *n == name).map_or(0, |(_, x)| *x);
    let (ga, gb) = (v.a_geom(v.a), v.b_geom(v.b));
    match matrix {
        "A" if v.sparse => {
            // The calculator names the register of the group's pair: the first of the two.
            let (lane, e) = ga.slot(0, row, 2 * (col / 4));
            (lane, e * ga.bits as usize)
        }
        "A" => {
            let (lane, e) = ga.slot(cbsz_block(get("cbsz"), get("abid"), b), row, col);
            (lane, e * ga.bits as usize)
        }
        "B" => {
            let (lane, e) = gb.slot(b, col, row);
            (blgp_lane(get("blgp"), lane), e * gb.bits as usize)
        }
        "k" => {
            let (lane, e) = ga.slot(0, row, 2 * (col / 4));
            (lane, index_bit(ga, get("cbsz"), get("abid"), e))
        }
        _ if v.out == Out::F64 => {
            let (lane, reg) = d_slot_f64(v.m, b, row, col);
            (lane, 32 * reg)
        }
        _ => {
            let (lane, reg) = d_slot_blocks(v.m, b, row, col);
            (lane, 32 * reg)
        }
    }
}

#[test]
fn every_cdna3_layout_matches_amds_matrix_instruction_calculator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/cdna/mfma-layouts-cdna3-all.txt");
    let text = std::fs::read_to_string(path).expect("layout fixture");
    let (mut mnemonics, mut cells) = (std::collections::BTreeSet::new(), 0);
    for line in text.lines() {
        let (head, runs) = line.split_once(": ").expect("HEAD: RUNS");
        let h: Vec<&str> = head.split(' ').collect();
        let [mnemonic, mods, matrix, blocks, rows] = h[..] else { panic!("{line}") };
        let v = Variant::parse(Arch::Gfx942, mnemonic).unwrap_or_else(|| panic!("{mnemonic}: no variant"));
        let mods: Vec<(&str, u32)> = mods
            .split(',')
            .filter(|m| *m != "-")
            .map(|m| m.split_once('=').map(|(n, x)| (n, x.parse().unwrap())).unwrap())
            .collect();
        let theirs: Vec<(i64, i64)> = runs.split(' ').flat_map(expand).collect();
        let (first, _) = rows.split_once('+').unwrap_or((rows, ""));
        let first: i64 = first.parse().unwrap();
        let shifts: Vec<(i64, i64)> = match rows.split_once('+') {
            Some((_, rest)) => expand(&format!("0.0+{rest}")),
            None => vec![(0, 0)],
        };
        for (t, (dl, db)) in shifts.iter().enumerate() {
            let row = (first + t as i64) as usize;
            for b in blocks.split('+').map(|b| b.parse::<usize>().unwrap()) {
                for (col, (lane, bit)) in theirs.iter().enumerate() {
                    let want = ((lane + dl) as usize, (bit + db) as usize);
                    let got = ours(&v, &mods, matrix, b, row, col);
                    assert_eq!(got, want, "{mnemonic} {mods:?} {matrix}[{row}][{col}] block {b}: (lane, bit)");
                    cells += 1;
                }
            }
        }
        mnemonics.insert(mnemonic);
    }
    assert_eq!(mnemonics.len(), 46, "every CDNA3 MFMA and SMFMAC");
    assert!(cells > 50_000, "{cells} cells");
}
