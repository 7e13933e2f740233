//! Matmuls lowered as tiled kernels (LDS tiles, a register block per lane): odd sizes that are
//! not tile multiples, size 1, an empty reduction, batch axes (own and broadcast), transposed
//! views, and fused prologues and epilogues, each against the host evaluator on every device.

use crate::host::{on_device, Host};
use crate::{values, DEVICES};
use baregpu_compiler::graph::{schedule, DType, Tensor};

fn input(shape: &[usize], seed: u32) -> Host {
    let n = shape.iter().product();
    Host {
        shape: shape.to_vec(),
        dtype: DType::F32,
        data: values(n, seed, -1.0, 1.0).iter().map(|&v| v as f64).collect(),
    }
}

/// `[.., m, k] x [.., k, n]` by expand, multiply and sum over k (batch axes first).
fn batched(a: &Tensor, b: &Tensor) -> Tensor {
    let (ra, rb) = (a.shape().len(), b.shape().len());
    let (m, k, n) = (a.shape()[ra - 2], a.shape()[ra - 1], b.shape()[rb - 1]);
    let batch = a.shape()[..ra - 2].to_vec();
    let full = [batch.clone(), vec![m, k, n]].concat();
    let x = a.reshape(&[a.shape(), &[1]].concat()).unwrap().expand(&full).unwrap();
    let bb: Vec<usize> = b.shape()[..rb - 2].to_vec();
    let y = b.reshape(&[&bb[..], &[1, k, n]].concat()).unwrap();
    let y = y.expand(&[&full[..full.len() - 3], &[m, k, n]].concat()).unwrap();
    let s = x.mul(&y).unwrap().sum(&[full.len() - 2]).unwrap();
    s.reshape(&[batch, vec![m, n]].concat()).unwrap()
}

/// Whether the single kernel of `out`'s schedule is lowered as a matmul.
fn is_tiled(out: &Tensor) -> bool {
    let s = schedule(out).unwrap();
    s.kernels.len() == 1 && s.kernels[0].ir.matmul.is_some()
}

/// Each graph on every device against the host; one kernel each.
fn check_all(cases: &[(String, Tensor, Vec<Host>)]) {
    for spec in DEVICES {
        on_device(spec, |r| {
            for (what, out, inputs) in cases {
                assert_eq!(r.check(out, inputs, true, what), 1, "{spec}: {what}");
            }
        });
    }
}

#[test]
fn matmuls_of_odd_sizes_and_size_one_match_the_host() {
    let mut cases = Vec::new();
    for (i, &(m, k, n)) in
        [(37, 21, 45), (32, 32, 32), (64, 48, 33), (1, 7, 40), (9, 1, 11), (5, 100, 3), (2, 3, 1)].iter().enumerate()
    {
        let a = Tensor::input(0, &[m, k], DType::F32);
        let b = Tensor::input(1, &[k, n], DType::F32);
        let out = a.matmul(&b).unwrap();
        // A row or a column of 1 is a plain reduction; every other shape is tiled.
        assert_eq!(is_tiled(&out), m > 1 && n > 1, "{m}x{k}x{n}");
        let inputs = vec![input(&[m, k], 2 * i as u32 + 1), input(&[k, n], 2 * i as u32 + 2)];
        cases.push((format!("{m}x{k}x{n}"), out, inputs));
    }
    check_all(&cases);
}

#[test]
fn an_empty_reduction_gives_zeros() {
    let a = Tensor::input(0, &[5, 0], DType::F32);
    let b = Tensor::input(1, &[0, 6], DType::F32);
    let out = a.matmul(&b).unwrap();
    let e = |s: &[usize]| Host { shape: s.to_vec(), dtype: DType::F32, data: vec![] };
    check_all(&[("5x0x6".into(), out, vec![e(&[5, 0]), e(&[0, 6])])]);
}

#[test]
fn batched_transposed_and_fused_matmuls_match_the_host() {
    let mut cases = Vec::new();
    // Batch axes of both, and a B shared by every batch (broadcast).
    let a = Tensor::input(0, &[3, 2, 17, 9], DType::F32);
    let b = Tensor::input(1, &[3, 2, 9, 35], DType::F32);
    cases.push(("batched".into(), batched(&a, &b), vec![input(&[3, 2, 17, 9], 11), input(&[3, 2, 9, 35], 12)]));
    let b1 = Tensor::input(1, &[1, 1, 9, 35], DType::F32);
    let bb = b1.expand(&[3, 2, 9, 35]).unwrap();
    cases.push(("broadcast B".into(), batched(&a, &bb), vec![input(&[3, 2, 17, 9], 13), input(&[1, 1, 9, 35], 14)]));
    // A^T B^T from [k, m] and [n, k] buffers: transposed views.
    let at = Tensor::input(0, &[19, 40], DType::F32);
    let bt = Tensor::input(1, &[33, 19], DType::F32);
    let t = at.permute(&[1, 0]).unwrap().matmul(&bt.permute(&[1, 0]).unwrap()).unwrap();
    cases.push(("transposed".into(), t, vec![input(&[19, 40], 15), input(&[33, 19], 16)]));
    // A flipped window of A, a prologue on both factors, an epilogue reading a bias row and the
    // prologue's input again.
    let x = Tensor::input(0, &[30, 22], DType::F32);
    let w = Tensor::input(1, &[21, 34], DType::F32);
    let bias = Tensor::input(2, &[1, 34], DType::F32);
    let xa = x.flip(&[1]).unwrap().shrink(&[(0, 30), (1, 22)]).unwrap(); // [30, 21]
    let xa = xa.mul(&xa.full_like(2.0)).unwrap().add(&xa.full_like(0.5)).unwrap();
    let wf = w.exp2().unwrap();
    let y = xa.matmul(&wf).unwrap();
    let y = y.add(&bias.expand(&[30, 34]).unwrap()).unwrap().maximum(&y.full_like(0.0)).unwrap();
    let y = y.mul(&x.shrink(&[(0, 30), (0, 1)]).unwrap().expand(&[30, 34]).unwrap()).unwrap();
    cases.push(("fused".into(), y, vec![input(&[30, 22], 17), input(&[21, 34], 18), input(&[1, 34], 19)]));
    for (what, out, _) in &cases {
        assert!(is_tiled(out), "{what}");
    }
    check_all(&cases);
}
