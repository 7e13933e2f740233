//! A property test of random expression graphs: a seeded generator builds DAGs of every op over
//! random shapes, dtypes and views (inputs read through permutes, broadcasts, pads, shrinks,
//! flips and reshapes; movement ops and reductions inside the graph; shared subexpressions),
//! and each is realized on emu:gfx1100, emu:gfx1201, emu:gfx950 and emu-nv:sm_90 and compared
//! with the host evaluator (tests/graph_compiler/host.rs), which knows nothing of views, fusion or codegen.
//!
//! Bounded: `CASES` graphs (`GRAPH_PROPERTY_CASES` to change) and at most `BUDGET` per device.
//! A failure names its seed; `GRAPH_PROPERTY_SEED=<seed>` runs that graph alone.
//!
//! What the generator avoids, because the result would depend on rounding rather than on the
//! compiler: float-to-integer casts and comparisons of computed floats (it compares inputs), and
//! shifts by 32 or more (AMD takes the amount mod 32, PTX clamps it).

use std::time::{Duration, Instant};

use crate::host::{on_device, rtol, Host};
use baregpu_compiler::graph::{BinaryOp, DType, ReduceOp, Tensor};
use baregpu_runtime::graph::rng::Rng;

const DEVICES: &[&str] = &["emu:gfx1100", "emu:gfx1201", "emu:gfx950", "emu-nv:sm_90"];
const CASES: u64 = 200;
const BUDGET: Duration = Duration::from_secs(20);
const FIRST_SEED: u64 = 0x5eed_0000;

/// One random graph: its output, its inputs' values, and the tolerance its dtypes call for.
struct Case {
    out: Tensor,
    inputs: Vec<Host>,
    rtol: f64,
}

struct Gen {
    rng: Rng,
    inputs: Vec<Host>,
    /// Every node made, for shared subexpressions.
    made: Vec<Tensor>,
    rtol: f64,
}

const FLOATS: [DType; 4] = [DType::F32, DType::F32, DType::F16, DType::BF16];
/// The most elements any node of a graph has (a bound on the work of a case).
const MAX_ELEMENTS: usize = 4096;
const SIZES: [usize; 9] = [1, 1, 2, 3, 4, 5, 7, 13, 33];

fn ok(r: Result<Tensor, baregpu_compiler::graph::GraphError>) -> Tensor {
    r.expect("the generator builds only valid graphs")
}

impl Gen {
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.rng.index(xs.len())]
    }

    fn case(seed: u64) -> Case {
        let mut g = Gen { rng: Rng::new(seed), inputs: Vec::new(), made: Vec::new(), rtol: rtol(DType::F32) };
        let rank = 1 + g.rng.index(3);
        let mut shape: Vec<usize> = (0..rank).map(|_| g.pick(&SIZES)).collect();
        // Mostly small; now and then empty.
        while shape.iter().product::<usize>() > 600 {
            let big = (0..rank).max_by_key(|&i| shape[i]).unwrap_or(0);
            shape[big] = shape[big].div_ceil(2);
        }
        if g.rng.chance(4) {
            shape[0] = 0;
        }
        let dtype = g.pick(&[DType::F32, DType::F16, DType::BF16, DType::I32, DType::U8, DType::Bool, DType::F32]);
        let out = g.node(4, &shape, dtype);
        Case { out, inputs: g.inputs, rtol: g.rtol }
    }

    /// A value of `shape` and `dtype`, at most `depth` ops deep.
    fn node(&mut self, depth: u32, shape: &[usize], dtype: DType) -> Tensor {
        if dtype.is_float() {
            self.rtol = self.rtol.max(rtol(dtype));
        }
        if self.rng.chance(15) {
            let same: Vec<Tensor> =
                self.made.iter().filter(|t| t.shape() == shape && t.dtype() == dtype).cloned().collect();
            if !same.is_empty() {
                return same[self.rng.index(same.len())].clone();
            }
        }
        let t = if depth == 0 || self.rng.chance(20) {
            self.leaf(shape, dtype)
        } else if self.rng.chance(12) {
            self.moved(depth, shape, dtype)
        } else {
            match dtype {
                DType::Bool => self.boolean(depth, shape),
                DType::I32 | DType::U8 => self.integer(depth, shape, dtype),
                _ => self.float(depth, shape, dtype),
            }
        };
        self.made.push(t.clone());
        t
    }

    /// A constant, or an input read through a random view.
    fn leaf(&mut self, shape: &[usize], dtype: DType) -> Tensor {
        if self.rng.chance(15) {
            let v = match dtype {
                DType::Bool => self.rng.below(2) as f64,
                DType::I32 | DType::U8 => self.rng.below(9) as f64,
                _ => self.rng.below(64) as f64 / 16.0 - 2.0,
            };
            return Tensor::full(v, shape, dtype);
        }
        let n = shape.len();
        match self.rng.index(6) {
            1 => {
                let perm = self.permutation(n);
                let mut src = vec![0; n];
                for (i, &p) in perm.iter().enumerate() {
                    src[p] = shape[i];
                }
                ok(self.input(&src, dtype).permute(&perm))
            }
            2 => {
                let src: Vec<usize> = shape.iter().map(|&s| if self.rng.chance(50) { 1 } else { s }).collect();
                ok(self.input(&src, dtype).expand(shape))
            }
            3 => {
                let pads: Vec<(usize, usize)> = shape
                    .iter()
                    .map(|&s| {
                        let (b, a) = (self.rng.index(3), self.rng.index(3));
                        if b + a <= s {
                            (b, a)
                        } else {
                            (0, 0)
                        }
                    })
                    .collect();
                let src: Vec<usize> = shape.iter().zip(&pads).map(|(&s, &(b, a))| s - b - a).collect();
                ok(self.input(&src, dtype).pad(&pads))
            }
            4 => {
                let ranges: Vec<(usize, usize)> = shape
                    .iter()
                    .map(|&s| {
                        let start = self.rng.index(3);
                        (start, start + s)
                    })
                    .collect();
                let src: Vec<usize> =
                    shape.iter().zip(&ranges).map(|(&s, &(st, _))| s + st + self.rng.index(2)).collect();
                ok(self.input(&src, dtype).shrink(&ranges))
            }
            5 => {
                let axes: Vec<usize> = (0..n).filter(|_| self.rng.chance(50)).collect();
                ok(self.input(shape, dtype).flip(&axes))
            }
            _ if self.rng.chance(40) => {
                let flat = [shape.iter().product::<usize>()];
                ok(self.input(&flat, dtype).reshape(shape))
            }
            _ => self.input(shape, dtype),
        }
    }

    fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, self.rng.index(i + 1));
        }
        p
    }

    fn input(&mut self, shape: &[usize], dtype: DType) -> Tensor {
        let n: usize = shape.iter().product();
        let data = (0..n)
            .map(|_| match dtype {
                DType::Bool => self.rng.below(2) as f64,
                DType::U8 => self.rng.below(256) as f64,
                DType::I32 => self.rng.below(2001) as f64 - 1000.0,
                _ => crate::host::round_float(dtype, self.rng.below(1 << 16) as f64 / (1 << 14) as f64 - 2.0),
            })
            .collect();
        self.inputs.push(Host { shape: shape.to_vec(), dtype, data });
        Tensor::input(self.inputs.len() - 1, shape, dtype)
    }

    /// A node computed in another shape, brought to `shape` by a movement op.
    fn moved(&mut self, depth: u32, shape: &[usize], dtype: DType) -> Tensor {
        let n = shape.len();
        match self.rng.index(4) {
            0 => {
                let perm = self.permutation(n);
                let mut src = vec![0; n];
                for (i, &p) in perm.iter().enumerate() {
                    src[p] = shape[i];
                }
                ok(self.node(depth - 1, &src, dtype).permute(&perm))
            }
            1 => {
                let axes: Vec<usize> = (0..n).filter(|_| self.rng.chance(50)).collect();
                ok(self.node(depth - 1, shape, dtype).flip(&axes))
            }
            2 => {
                let src: Vec<usize> = shape.iter().map(|&s| s + 2).collect();
                let ranges: Vec<(usize, usize)> = shape.iter().map(|&s| (1, 1 + s)).collect();
                ok(self.node(depth - 1, &src, dtype).shrink(&ranges))
            }
            _ => {
                let flat = [shape.iter().product::<usize>()];
                ok(self.node(depth - 1, &flat, dtype).reshape(shape))
            }
        }
    }

    /// A sum or max over a new axis of an f32 or i32 value, broadcast back to `shape`.
    fn reduction(&mut self, depth: u32, shape: &[usize], dtype: DType) -> Tensor {
        let axis = self.rng.index(shape.len());
        // Nested reductions multiply the work: at most MAX_ELEMENTS in any node.
        let room = MAX_ELEMENTS / shape.iter().product::<usize>().max(1);
        let lens: Vec<usize> = [1, 2, 5, 33, 64, 70].into_iter().filter(|&l| l <= room).collect();
        let len = self.pick(&lens);
        let mut src = shape.to_vec();
        src[axis] = len;
        let x = self.node(depth - 1, &src, dtype);
        let op = self.pick(&[ReduceOp::Sum, ReduceOp::Max]);
        let r = ok(x.reduce(op, &[axis]));
        ok(r.expand(shape))
    }

    fn float(&mut self, depth: u32, shape: &[usize], d: DType) -> Tensor {
        let sub = |g: &mut Gen| g.node(depth - 1, shape, d);
        match self.rng.index(7) {
            0 => {
                let a = sub(self);
                let sq1 = || ok(ok(a.mul(&a)).add(&a.full_like(1.0)));
                match self.rng.index(7) {
                    0 => ok(a.neg()),
                    1 => ok(a.sin()),
                    2 => ok(ok(a.mul(&a)).sqrt()),
                    3 => ok(sq1().log2()),
                    4 => ok(sq1().recip()),
                    5 => ok(sq1().rsqrt()),
                    _ => ok(ok(a.sin()).exp2()),
                }
            }
            1 | 2 => {
                let (a, b) = (sub(self), sub(self));
                let op = self.pick(&[BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min]);
                ok(a.binary(op, &b))
            }
            3 => {
                let (a, b) = (sub(self), sub(self));
                ok(a.div(&ok(ok(b.mul(&b)).add(&b.full_like(1.0)))))
            }
            4 => {
                let c = self.node(depth - 1, shape, DType::Bool);
                let (a, b) = (sub(self), sub(self));
                ok(c.where_(&a, &b))
            }
            5 => {
                let from = self.pick(&[DType::F32, DType::F16, DType::BF16, DType::I32, DType::U8, DType::Bool]);
                ok(self.node(depth - 1, shape, from).cast(d))
            }
            _ if shape.is_empty() => sub(self),
            _ => {
                let r = self.reduction(depth, shape, DType::F32);
                ok(r.cast(d))
            }
        }
    }

    fn integer(&mut self, depth: u32, shape: &[usize], d: DType) -> Tensor {
        let sub = |g: &mut Gen| g.node(depth - 1, shape, d);
        match self.rng.index(6) {
            0 | 1 => {
                let (a, b) = (sub(self), sub(self));
                let ops = [
                    BinaryOp::Add,
                    BinaryOp::Sub,
                    BinaryOp::Mul,
                    BinaryOp::And,
                    BinaryOp::Or,
                    BinaryOp::Xor,
                    BinaryOp::Max,
                    BinaryOp::Min,
                ];
                let op = self.pick(&ops);
                ok(a.binary(op, &b))
            }
            2 => {
                let a = sub(self);
                let by = a.full_like(self.rng.below(8) as f64);
                ok(a.binary(self.pick(&[BinaryOp::Shl, BinaryOp::Shr]), &by))
            }
            3 => {
                let c = self.node(depth - 1, shape, DType::Bool);
                let (a, b) = (sub(self), sub(self));
                ok(c.where_(&a, &b))
            }
            4 => {
                let from = self.pick(&[DType::I32, DType::U8, DType::Bool]);
                ok(self.node(depth - 1, shape, from).cast(d))
            }
            _ => {
                let r = self.reduction(depth, shape, DType::I32);
                ok(r.cast(d))
            }
        }
    }

    fn boolean(&mut self, depth: u32, shape: &[usize]) -> Tensor {
        let cmp = [BinaryOp::CmpLt, BinaryOp::CmpEq, BinaryOp::CmpNe];
        match self.rng.index(5) {
            0 => {
                let d = self.pick(&[DType::I32, DType::U8]);
                let (a, b) = (self.node(depth - 1, shape, d), self.node(depth - 1, shape, d));
                ok(a.binary(self.pick(&cmp), &b))
            }
            1 => {
                // Inputs, not computed floats: their order does not depend on rounding.
                let d = self.pick(&FLOATS);
                let (a, b) = (self.leaf(shape, d), self.leaf(shape, d));
                ok(a.binary(self.pick(&cmp), &b))
            }
            2 => {
                let (a, b) = (self.node(depth - 1, shape, DType::Bool), self.node(depth - 1, shape, DType::Bool));
                let ops = [BinaryOp::And, BinaryOp::Or, BinaryOp::Xor, BinaryOp::Max, BinaryOp::Min];
                ok(a.binary(self.pick(&ops), &b))
            }
            3 => {
                let from = self.pick(&[DType::I32, DType::U8]);
                ok(self.node(depth - 1, shape, from).cast(DType::Bool))
            }
            _ => {
                let c = self.node(depth - 1, shape, DType::Bool);
                let (a, b) = (self.node(depth - 1, shape, DType::Bool), self.node(depth - 1, shape, DType::Bool));
                ok(c.where_(&a, &b))
            }
        }
    }
}

fn seeds() -> Vec<u64> {
    if let Ok(s) = std::env::var("GRAPH_PROPERTY_SEED") {
        // One seed, or `first..end`.
        return match s.split_once("..") {
            Some((a, b)) => (a.parse().expect("a seed")..b.parse().expect("a seed")).collect(),
            None => vec![s.parse().expect("GRAPH_PROPERTY_SEED is a number or first..end")],
        };
    }
    let n = std::env::var("GRAPH_PROPERTY_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(CASES);
    (FIRST_SEED..FIRST_SEED + n).collect()
}

#[test]
fn random_expression_graphs_match_the_host_evaluator_on_every_device() {
    let seeds = seeds();
    for spec in DEVICES {
        let start = Instant::now();
        let mut ran = 0;
        // One realizer for every seed: its graph cache is bounded, so the device's signals last.
        on_device(spec, |r| {
            for &seed in &seeds {
                if start.elapsed() > BUDGET {
                    break;
                }
                let case = Gen::case(seed);
                let mut e = crate::host::Eval::new(&case.inputs);
                let want = e.eval(&case.out);
                let failed = match r.try_run(&case.out, &case.inputs) {
                    Ok((got, kernels)) => crate::host::mismatch(&got, &want, case.rtol, e.max_abs)
                        .map(|m| format!("({kernels} kernels): {m}")),
                    Err(e) => Some(e),
                };
                if let Some(m) = failed {
                    panic!(
                        "{spec}: seed {seed} {m}; rerun with GRAPH_PROPERTY_SEED={seed}\n{}",
                        crate::host::show(&case.out)
                    );
                }
                ran += 1;
            }
        });
        eprintln!("{spec}: {ran} random graphs in {:.1} s", start.elapsed().as_secs_f64());
        assert!(ran > 0, "{spec}: no graph ran within the budget");
    }
}

/// The generator is deterministic: a seed names one graph (what makes a printed seed useful).
#[test]
fn a_seed_gives_the_same_graph_and_inputs() {
    let (a, b) = (Gen::case(FIRST_SEED + 3), Gen::case(FIRST_SEED + 3));
    assert_eq!(format!("{:?}", a.out.shape()), format!("{:?}", b.out.shape()));
    assert_eq!(a.inputs.len(), b.inputs.len());
    for (x, y) in a.inputs.iter().zip(&b.inputs) {
        assert_eq!(x.data, y.data);
    }
    let sched = |c: &Case| format!("{:?}", baregpu_compiler::graph::schedule(&c.out).map(|s| s.kernels));
    assert_eq!(sched(&a), sched(&b));
}
