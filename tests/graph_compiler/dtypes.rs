//! f16, bf16, u8 and bool tensors end to end (with f32 and i32): loads and stores at each
//! width, casts and bitcasts between every pair, arithmetic, broadcasts and non-contiguous
//! views, size 1 and empty tensors, reductions of narrow types; on emu:gfx1100, emu:gfx1201,
//! emu:gfx950 and emu-nv:sm_90, each result checked against the host evaluator
//! (tests/graph_compiler/host.rs), which computes in f64 apart from the compiler.

use crate::host::{on_device, Host};
use baregpu_compiler::graph::{BinaryOp, DType, Tensor, UnaryOp};
use baregpu_runtime::graph::rng::Rng;

const DEVICES: &[&str] = &["emu:gfx1100", "emu:gfx1201", "emu:gfx950", "emu-nv:sm_90"];
const DTYPES: [DType; 6] = [DType::F32, DType::F16, DType::BF16, DType::I32, DType::U8, DType::Bool];

/// Random values of `d` in `shape`: floats in [-3, 3) rounded to the type, i32 in
/// [-1000, 1000), u8 anywhere, bools.
fn random(rng: &mut Rng, d: DType, shape: &[usize]) -> Host {
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|_| match d {
            DType::I32 => rng.below(2000) as f64 - 1000.0,
            DType::U8 => rng.below(256) as f64,
            DType::Bool => rng.below(2) as f64,
            _ => crate::host::round_float(d, (rng.below(1 << 20) as f64 / (1 << 20) as f64) * 6.0 - 3.0),
        })
        .collect();
    Host { shape: shape.to_vec(), dtype: d, data }
}

/// An odd shape of rank 1 to 3.
fn odd_shape(rng: &mut Rng) -> Vec<usize> {
    const SIZES: [usize; 7] = [1, 2, 3, 5, 7, 13, 33];
    (0..1 + rng.index(3)).map(|_| SIZES[rng.index(SIZES.len())]).collect()
}

#[test]
fn every_cast_between_every_dtype_loads_and_stores_at_its_width() {
    for spec in DEVICES {
        on_device(spec, |r| {
            let mut rng = Rng::new(11);
            for from in DTYPES {
                for to in DTYPES {
                    let shape = odd_shape(&mut rng);
                    let x = random(&mut rng, from, &shape);
                    let out = Tensor::input(0, &shape, from).cast(to).unwrap();
                    assert_eq!(r.check(&out, &[x], false, &format!("cast {from} -> {to} of {shape:?}")), 1);
                }
            }
        });
    }
}

#[test]
fn bitcasts_keep_the_bits_rounding_a_computed_value_first() {
    for spec in DEVICES {
        on_device(spec, |r| {
            let mut rng = Rng::new(12);
            for (from, to) in [
                (DType::F32, DType::I32),
                (DType::I32, DType::F32),
                (DType::F16, DType::BF16),
                (DType::BF16, DType::F16),
                (DType::U8, DType::U8),
            ] {
                let x = random(&mut rng, from, &[5, 7]);
                let t = Tensor::input(0, &[5, 7], from);
                // A computed f16/bf16 value is rounded to the type before its bits are taken.
                let t = if from.is_float() { t.scale(1.37).unwrap() } else { t };
                let out = t.unary(UnaryOp::Bitcast(to)).unwrap();
                r.check(&out, &[x], false, &format!("bitcast {from} -> {to}"));
            }
        });
    }
}

/// `x` [m, n] plain, `y` read through a permute and a flip, `z` [1, n] broadcast; every op the
/// dtype takes.
fn arithmetic(d: DType, m: usize, n: usize) -> Tensor {
    let x = Tensor::input(0, &[m, n], d);
    let y = Tensor::input(1, &[n, m], d).permute(&[1, 0]).unwrap().flip(&[0]).unwrap();
    let z = Tensor::input(2, &[1, n], d).expand(&[m, n]).unwrap();
    let bin = |op, a: &Tensor, b: &Tensor| a.binary(op, b).unwrap();
    match d {
        DType::Bool => {
            let a = bin(BinaryOp::Or, &bin(BinaryOp::And, &x, &y), &bin(BinaryOp::Xor, &z, &x));
            let b = bin(BinaryOp::Max, &bin(BinaryOp::CmpEq, &x, &z), &bin(BinaryOp::Min, &y, &z));
            let c = bin(BinaryOp::CmpLt, &x, &y);
            c.where_(&a, &bin(BinaryOp::CmpNe, &b, &y)).unwrap()
        }
        DType::I32 | DType::U8 => {
            let a = bin(BinaryOp::Add, &x, &bin(BinaryOp::Mul, &y, &z));
            let b = bin(BinaryOp::Xor, &bin(BinaryOp::And, &x, &z), &bin(BinaryOp::Or, &y, &x.full_like(5.0)));
            let s = bin(BinaryOp::Shl, &a, &x.full_like(3.0));
            let s = bin(BinaryOp::Sub, &s, &bin(BinaryOp::Shr, &b, &x.full_like(2.0)));
            let c = bin(BinaryOp::CmpLt, &x, &y);
            c.where_(&bin(BinaryOp::Max, &s, &z), &bin(BinaryOp::Min, &s, &b)).unwrap()
        }
        _ => {
            let one = x.full_like(1.0);
            let a = x.add(&y.mul(&z).unwrap()).unwrap().sub(&x.scale(0.5).unwrap()).unwrap();
            let sq = x.mul(&x).unwrap().add(&one).unwrap();
            let b = sq.sqrt().unwrap().add(&sq.log2().unwrap()).unwrap().mul(&y.sin().unwrap()).unwrap();
            let b = b.add(&x.neg().unwrap().mul(&x).unwrap().exp2().unwrap()).unwrap();
            let c = a.div(&z.mul(&z).unwrap().add(&one).unwrap()).unwrap().add(&sq.rsqrt().unwrap()).unwrap();
            let c = c.add(&sq.recip().unwrap()).unwrap();
            let pick = x.lt(&y).unwrap().where_(&b.maximum(&y).unwrap(), &c.minimum(&z).unwrap()).unwrap();
            let ne = y.binary(BinaryOp::CmpNe, &z).unwrap().cast(d).unwrap();
            let eq = x.binary(BinaryOp::CmpEq, &x).unwrap().cast(d).unwrap();
            pick.add(&ne).unwrap().add(&eq).unwrap()
        }
    }
}

#[test]
fn arithmetic_in_every_dtype_with_broadcasts_and_non_contiguous_views() {
    for spec in DEVICES {
        on_device(spec, |r| {
            let mut rng = Rng::new(13);
            for d in DTYPES {
                for (m, n) in [(7, 13), (1, 33), (5, 1), (3, 65)] {
                    let ins =
                        [random(&mut rng, d, &[m, n]), random(&mut rng, d, &[n, m]), random(&mut rng, d, &[1, n])];
                    let kernels = r.check(&arithmetic(d, m, n), &ins, true, &format!("{d} arithmetic [{m}, {n}]"));
                    assert_eq!(kernels, 1, "{d}: one fused kernel");
                }
            }
        });
    }
}

#[test]
fn size_one_and_empty_tensors_of_every_dtype() {
    for spec in DEVICES {
        on_device(spec, |r| {
            let mut rng = Rng::new(14);
            for d in DTYPES {
                for shape in [vec![1], vec![1, 1], vec![0], vec![4, 0], vec![0, 3]] {
                    let x = random(&mut rng, d, &shape);
                    let t = Tensor::input(0, &shape, d);
                    let op = if d == DType::Bool { BinaryOp::Xor } else { BinaryOp::Max };
                    let padded: Vec<(usize, usize)> = shape.iter().map(|_| (1, 0)).collect();
                    let out = t.binary(op, &t.flip(&[0]).unwrap()).unwrap().pad(&padded).unwrap().cast(DType::F16);
                    r.check(&out.unwrap(), &[x], false, &format!("{d} of shape {shape:?}"));
                }
            }
        });
    }
}

#[test]
fn reductions_of_narrow_types_through_casts() {
    for spec in DEVICES {
        on_device(spec, |r| {
            let mut rng = Rng::new(15);
            let (m, n) = (9, 70);
            let h = random(&mut rng, DType::F16, &[m, n]);
            let x = Tensor::input(0, &[m, n], DType::F16);
            let out = x.cast(DType::F32).unwrap().sum(&[1]).unwrap().cast(DType::F16).unwrap();
            r.check(&out, &[h], false, "sum of f16 rows to f16");
            let u = random(&mut rng, DType::U8, &[m, n]);
            let x = Tensor::input(0, &[m, n], DType::U8);
            let out = x.cast(DType::I32).unwrap().max(&[0]).unwrap().cast(DType::U8).unwrap();
            r.check(&out, &[u], false, "max of u8 columns");
            let b = random(&mut rng, DType::Bool, &[m, n]);
            let x = Tensor::input(0, &[m, n], DType::Bool);
            let out = x.cast(DType::I32).unwrap().sum(&[0, 1]).unwrap();
            r.check(&out, &[b], false, "count of true");
            let g = random(&mut rng, DType::BF16, &[m, n]);
            let x = Tensor::input(0, &[m, n], DType::BF16);
            let out = x.cast(DType::F32).unwrap().softmax(1).unwrap().cast(DType::BF16).unwrap();
            r.check(&out, &[g], false, "softmax of bf16 rows");
        });
    }
}

#[test]
fn ops_a_dtype_does_not_take_fail_when_the_graph_is_built() {
    let b = Tensor::input(0, &[3], DType::Bool);
    let i = Tensor::input(1, &[3], DType::I32);
    let h = Tensor::input(2, &[3], DType::F16);
    let e = |r: Result<Tensor, baregpu_compiler::graph::GraphError>| r.unwrap_err().to_string();
    assert_eq!(e(b.add(&b)), "dtype mismatch: Add of bools (use and, or, xor, max, min)");
    assert_eq!(e(i.div(&i)), "dtype mismatch: Div of i32 (floats only)");
    assert_eq!(
        e(h.unary(UnaryOp::Bitcast(DType::Bool))),
        "dtype mismatch: bitcast of f16 to bool: bool has no bit pattern"
    );
    assert_eq!(e(h.unary(UnaryOp::Bitcast(DType::F32))), "dtype mismatch: bitcast of f16 to f32: sizes differ");
    assert_eq!(e(h.binary(BinaryOp::Xor, &h)), "dtype mismatch: Xor needs integers or bools, not f16");
    assert_eq!(e(h.sum(&[0])), "dtype mismatch: Sum of f16 (f32 or i32)");
}

/// Two cases the property test found: a unary op of a constant (its operand and the op's own
/// literal would both be scalars in one instruction) and a graph that is just its input.
#[test]
fn unary_ops_of_constants_and_a_graph_that_is_its_input() {
    for spec in DEVICES {
        on_device(spec, |r| {
            let c = Tensor::full(-0.75, &[5], DType::F16);
            let out = c.neg().unwrap().add(&c.sin().unwrap()).unwrap().add(&c.exp2().unwrap()).unwrap();
            r.check(&out, &[], false, "unary ops of a constant");
            let mut rng = Rng::new(16);
            let x = random(&mut rng, DType::BF16, &[3, 5]);
            assert_eq!(r.check(&Tensor::input(0, &[3, 5], DType::BF16), &[x], false, "the input itself"), 1);
        });
    }
}
