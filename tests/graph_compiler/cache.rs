//! The realizer's graph cache is bounded: one realizer realizes far more distinct computations
//! than its device has signals for cached graphs (a page of 256; each graph holds two), each
//! result checked, and an evicted computation compiles again while a recent one replays.

use crate::{download, open, upload, values};
use baregpu::realize::{ProgramArena, Realizer, CACHED_GRAPHS};
use baregpu_compiler::graph::{DType, Tensor};

/// `x * k + k` for constant `k`: one small kernel, a distinct schedule per `k`.
fn affine(k: f64) -> Tensor {
    let x = Tensor::input(0, &[4], DType::F32);
    x.mul(&x.full_like(k)).unwrap().add(&x.full_like(k)).unwrap()
}

#[test]
fn one_realizer_realizes_thousands_of_distinct_graphs() {
    const GRAPHS: usize = 2000;
    let dev = open();
    let arena = ProgramArena::new();
    let mut r = Realizer::new(&*dev, &arena).unwrap();
    let xv = values(4, 7, -2.0, 2.0);
    let x = upload(&*dev, &xv);
    let o = dev.alloc(16).unwrap();
    let realize = |r: &mut Realizer, k: usize| {
        let done = r.realize(&affine(k as f64), &[&x], &o).unwrap_or_else(|e| panic!("graph {k}: {e}"));
        let got = download(&*dev, &o, 4);
        for (i, (&g, &v)) in got.iter().zip(&xv).enumerate() {
            let want = v * k as f32 + k as f32;
            assert!((g - want).abs() <= 1e-5 * (1.0 + want.abs()), "graph {k}, element {i}: got {g}, want {want}");
        }
        done.compiled
    };
    for k in 0..GRAPHS {
        assert!(realize(&mut r, k), "graph {k} is new: it compiles");
        assert!(r.cached() <= CACHED_GRAPHS, "{} graphs cached", r.cached());
    }
    assert_eq!(r.compilations(), GRAPHS);
    assert_eq!(r.cached(), CACHED_GRAPHS);
    // The most recent graph replays; the first, long evicted, compiles again.
    assert!(!realize(&mut r, GRAPHS - 1), "the last graph replays");
    assert!(realize(&mut r, 0), "the first graph was evicted");
    assert_eq!(r.compilations(), GRAPHS + 1);
    r.close().unwrap();
    dev.free(x).unwrap();
    dev.free(o).unwrap();
    arena.unload_all(&*dev).unwrap();
}

#[test]
fn a_replay_keeps_a_graph_from_being_evicted() {
    let dev = open();
    let arena = ProgramArena::new();
    let mut r = Realizer::new(&*dev, &arena).unwrap().with_cache_capacity(2);
    let x = upload(&*dev, &values(4, 3, -1.0, 1.0));
    let o = dev.alloc(16).unwrap();
    let mut compiled = Vec::new();
    // 1, 2, 1 (replay: 1 is now the most recent), 3 (evicts 2), 1 (replay), 2 (compiles).
    for k in [1.0, 2.0, 1.0, 3.0, 1.0, 2.0] {
        compiled.push(r.realize(&affine(k), &[&x], &o).unwrap().compiled);
        assert!(r.cached() <= 2);
    }
    assert_eq!(compiled, [true, true, false, true, false, true]);
    r.close().unwrap();
    dev.free(x).unwrap();
    dev.free(o).unwrap();
    arena.unload_all(&*dev).unwrap();
}
