//! The graph compiler end to end on emu:gfx1100, emu:gfx1201, emu:gfx950 and emu-nv:sm_90: lazy tensors scheduled into fused kernels,
//! lowered by our code generator, run as one HCQ2 graph, each result checked against a host
//! reference computed in f64; kernel counts of known graphs; a second realize of the same
//! computation replays its graph without compiling; bad graphs fail when they are built.

// The bounded graph cache.
#[path = "graph_compiler/cache.rs"]
mod cache;
// Dtypes and random expression graphs, checked with a host evaluator of their own.
#[path = "graph_compiler/dtypes.rs"]
mod dtypes;
#[path = "graph_compiler/host.rs"]
mod host;
// Matmuls as tiled kernels.
#[path = "graph_compiler/matmul.rs"]
mod matmul;
#[path = "graph_compiler/property.rs"]
mod property;

use baregpu::gpu::{Buffer, Gpu};
use baregpu::realize::{ProgramArena, Realizer};
use baregpu::DeviceSpec;
use baregpu_compiler::graph::transformer::{self, Block};
use baregpu_compiler::graph::{schedule, BufferKind, DType, Tensor};

/// Every graph runs on each: RDNA3 and RDNA4 (wave32), CDNA4 (wave64), and NVIDIA through PTX.
const DEVICES: &[&str] = &["emu:gfx1100", "emu:gfx1201", "emu:gfx950", "emu-nv:sm_90"];

fn open_on(spec: &str) -> Box<dyn Gpu> {
    baregpu::open(&DeviceSpec::parse(spec).unwrap()).unwrap()
}

fn open() -> Box<dyn Gpu> {
    open_on(DEVICES[0])
}

/// Deterministic values in [lo, hi).
fn values(n: usize, seed: u32, lo: f32, hi: f32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2654435761).max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            lo + (hi - lo) * (x as f32 / u32::MAX as f32)
        })
        .collect()
}

fn upload(dev: &dyn Gpu, v: &[f32]) -> Buffer {
    let b = dev.alloc((4 * v.len()).max(4) as u64).unwrap();
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    dev.write(&b, 0, &bytes).unwrap();
    b
}

fn download(dev: &dyn Gpu, b: &Buffer, n: usize) -> Vec<f32> {
    let mut bytes = vec![0u8; 4 * n];
    dev.read(b, 0, &mut bytes).unwrap();
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Realize `out` from `inputs` on a fresh realizer on every device of [`DEVICES`]; (result,
/// kernels in the schedule), the same on each (checked).
fn run(out: &Tensor, inputs: &[&[f32]]) -> (Vec<f32>, usize) {
    let mut first: Option<(Vec<f32>, usize)> = None;
    for spec in DEVICES {
        let got = run_on(spec, out, inputs);
        match &first {
            None => first = Some(got),
            Some(f) => {
                assert_eq!(f.1, got.1, "{spec}: kernel count");
                for (i, (a, b)) in f.0.iter().zip(&got.0).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-4 * (1.0 + a.abs()),
                        "{spec}: element {i}: {b}, {} gave {a}",
                        DEVICES[0]
                    );
                }
            }
        }
    }
    first.unwrap()
}

fn run_on(spec: &str, out: &Tensor, inputs: &[&[f32]]) -> (Vec<f32>, usize) {
    let dev = open_on(spec);
    let arena = ProgramArena::new();
    let mut r = Realizer::new(&*dev, &arena).unwrap();
    let bufs: Vec<Buffer> = inputs.iter().map(|v| upload(&*dev, v)).collect();
    let refs: Vec<&Buffer> = bufs.iter().collect();
    let o = dev.alloc((4 * out.numel()).max(4) as u64).unwrap();
    let done = r.realize(out, &refs, &o).unwrap();
    let got = download(&*dev, &o, out.numel());
    r.close().unwrap();
    arena.unload_all(&*dev).unwrap();
    (got, done.kernels)
}

/// Every element within `tol` (absolute plus relative) of the f64 reference.
fn check(got: &[f32], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!((g as f64 - w).abs() <= tol * (1.0 + w.abs()), "element {i}: got {g}, want {w}");
    }
}

fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

#[test]
fn an_elementwise_chain_is_one_kernel() {
    let (m, n) = (37, 29);
    let (xv, yv) = (values(m * n, 1, 0.1, 2.0), values(m * n, 2, -1.0, 1.0));
    let x = Tensor::input(0, &[m, n], DType::F32);
    let y = Tensor::input(1, &[m, n], DType::F32);
    // where(x < y+1, log2(exp2(x) + y*y) * sin(y), sqrt(x) / (x - y)) max -3
    let a = x.exp2().unwrap().add(&y.mul(&y).unwrap()).unwrap().log2().unwrap().mul(&y.sin().unwrap()).unwrap();
    let b = x.sqrt().unwrap().div(&x.sub(&y).unwrap()).unwrap();
    let c = x.lt(&y.add(&y.full_like(1.0)).unwrap()).unwrap();
    let out = c.where_(&a, &b).unwrap().maximum(&x.full_like(-3.0)).unwrap();
    let (got, kernels) = run(&out, &[&xv, &yv]);
    assert_eq!(kernels, 1);
    let want: Vec<f64> = f64s(&xv)
        .iter()
        .zip(f64s(&yv))
        .map(|(&x, y)| {
            let v = if x < y + 1.0 { (x.exp2() + y * y).log2() * y.sin() } else { x.sqrt() / (x - y) };
            v.max(-3.0)
        })
        .collect();
    check(&got, &want, 1e-4);
}

#[test]
fn broadcasts_through_expand_fuse_into_one_kernel() {
    let (m, n) = (5, 7);
    let (av, bv) = (values(m, 3, -1.0, 1.0), values(n, 4, -1.0, 1.0));
    let a = Tensor::input(0, &[m, 1], DType::F32).expand(&[m, n]).unwrap();
    let b = Tensor::input(1, &[1, n], DType::F32).expand(&[m, n]).unwrap();
    let out = a.mul(&b).unwrap().add(&a).unwrap();
    let (got, kernels) = run(&out, &[&av, &bv]);
    assert_eq!(kernels, 1);
    let want: Vec<f64> = (0..m * n).map(|i| av[i / n] as f64 * bv[i % n] as f64 + av[i / n] as f64).collect();
    check(&got, &want, 1e-6);
}

#[test]
fn permute_flip_pad_and_shrink_are_views_of_one_load() {
    let xv = values(3 * 4 * 5, 5, -1.0, 1.0);
    let x = Tensor::input(0, &[3, 4, 5], DType::F32);
    // [5,3,4], flipped on axis 2, padded by 1 before and 2 after on axis 0, then a window.
    let v = x.permute(&[2, 0, 1]).unwrap().flip(&[2]).unwrap().pad(&[(1, 2), (0, 0), (0, 0)]).unwrap();
    let v = v.shrink(&[(0, 7), (1, 3), (0, 4)]).unwrap(); // [7,2,4]
    let out = v.add(&v.full_like(0.5)).unwrap();
    let (got, kernels) = run(&out, &[&xv]);
    assert_eq!(kernels, 1);
    let mut want = Vec::new();
    for p in 0..7 {
        for q in 0..2 {
            for r in 0..4 {
                // permuted [k][i][j] = x[i][j][k], k = p - 1 (padding), i = q + 1, j = 3 - r (flip)
                let inside = (1..6).contains(&p);
                let x = if inside { xv[(q + 1) * 20 + (3 - r) * 5 + (p - 1)] as f64 } else { 0.0 };
                want.push(x + 0.5);
            }
        }
    }
    check(&got, &want, 1e-6);
}

/// Host sum or max of `x` ([d0, d1, d2]) over `axes`, keeping them as size 1.
fn host_reduce(x: &[f32], shape: [usize; 3], axes: &[usize], max: bool) -> Vec<f64> {
    let mut out_shape = shape;
    for &a in axes {
        out_shape[a] = 1;
    }
    let n: usize = out_shape.iter().product();
    let mut out = vec![if max { f64::NEG_INFINITY } else { 0.0 }; n];
    for i in 0..shape[0] {
        for j in 0..shape[1] {
            for k in 0..shape[2] {
                let o = [i, j, k];
                let oc: Vec<usize> = (0..3).map(|d| if axes.contains(&d) { 0 } else { o[d] }).collect();
                let at = (oc[0] * out_shape[1] + oc[1]) * out_shape[2] + oc[2];
                let v = x[(i * shape[1] + j) * shape[2] + k] as f64;
                out[at] = if max { out[at].max(v) } else { out[at] + v };
            }
        }
    }
    out
}

#[test]
fn sum_and_max_over_different_axes() {
    let shape = [6, 7, 9];
    let xv = values(6 * 7 * 9, 6, -2.0, 2.0);
    for (axes, max) in
        [(&[0][..], false), (&[2][..], false), (&[1][..], true), (&[0, 2][..], false), (&[0, 1, 2][..], true)]
    {
        let x = Tensor::input(0, &shape, DType::F32);
        let out = if max { x.max(axes) } else { x.sum(axes) }.unwrap();
        let (got, kernels) = run(&out, &[&xv]);
        assert_eq!(kernels, 1, "axes {axes:?}");
        check(&got, &host_reduce(&xv, shape, axes, max), 1e-5);
    }
}

#[test]
fn a_reduction_fuses_its_prologue_and_epilogue() {
    // sqrt(sum(x*x over axis 1)) + 1: one kernel.
    let xv = values(10 * 70, 7, -1.0, 1.0);
    let x = Tensor::input(0, &[10, 70], DType::F32);
    let s = x.mul(&x).unwrap().sum(&[1]).unwrap();
    let out = s.sqrt().unwrap().add(&s.full_like(1.0)).unwrap();
    let (got, kernels) = run(&out, &[&xv]);
    assert_eq!(kernels, 1);
    let want: Vec<f64> =
        (0..10).map(|i| f64s(&xv[i * 70..][..70]).iter().map(|v| v * v).sum::<f64>().sqrt() + 1.0).collect();
    check(&got, &want, 1e-5);
}

#[test]
fn softmax_from_max_exp_sum_and_div() {
    let (m, n) = (8, 33);
    let xv = values(m * n, 8, -4.0, 4.0);
    let out = Tensor::input(0, &[m, n], DType::F32).softmax(1).unwrap();
    let (got, kernels) = run(&out, &[&xv]);
    // max; sum with the exp prologue; exp / sum.
    assert_eq!(kernels, 3);
    let mut want = Vec::new();
    for row in f64s(&xv).chunks(n) {
        let mx = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row.iter().map(|v| (v - mx).exp()).sum();
        want.extend(row.iter().map(|v| (v - mx).exp() / s));
    }
    check(&got, &want, 1e-5);
}

#[test]
fn matmul_from_expand_mul_and_sum_is_one_kernel() {
    let (m, k, n) = (9, 13, 11);
    let (av, bv) = (values(m * k, 9, -1.0, 1.0), values(k * n, 10, -1.0, 1.0));
    let a = Tensor::input(0, &[m, k], DType::F32);
    let b = Tensor::input(1, &[k, n], DType::F32);
    let (got, kernels) = run(&a.matmul(&b).unwrap(), &[&av, &bv]);
    assert_eq!(kernels, 1);
    let want: Vec<f64> =
        (0..m * n).map(|i| (0..k).map(|j| av[(i / n) * k + j] as f64 * bv[j * n + i % n] as f64).sum()).collect();
    check(&got, &want, 1e-5);
}

#[test]
fn a_second_realize_on_new_inputs_replays_without_compiling() {
    let dev = open();
    let arena = ProgramArena::new();
    let mut r = Realizer::new(&*dev, &arena).unwrap();
    let graph = || Tensor::input(0, &[4, 50], DType::F32).softmax(1).unwrap();
    let o = dev.alloc(4 * 200).unwrap();
    let mut compiled = Vec::new();
    for seed in [11, 12] {
        let xv = values(200, seed, -3.0, 3.0);
        let x = upload(&*dev, &xv);
        let done = r.realize(&graph(), &[&x], &o).unwrap();
        compiled.push((done.compiled, r.compilations()));
        let got = download(&*dev, &o, 200);
        let mut want = Vec::new();
        for row in f64s(&xv).chunks(50) {
            let mx = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = row.iter().map(|v| (v - mx).exp()).sum();
            want.extend(row.iter().map(|v| (v - mx).exp() / s));
        }
        check(&got, &want, 1e-5);
        dev.free(x).unwrap();
    }
    assert_eq!(compiled, vec![(true, 3), (false, 3)]);
    r.close().unwrap();
    arena.unload_all(&*dev).unwrap();
}

#[test]
fn intermediates_share_buffers_when_lifetimes_do_not_overlap() {
    // Four reductions in a row, each read only by the next: two pool buffers serve them.
    let mut t = Tensor::input(0, &[4, 4, 4, 4, 4], DType::F32);
    for rank in (2..=5).rev() {
        let kept = t.shape()[..rank - 1].to_vec();
        t = t.sum(&[rank - 1]).unwrap().reshape(&kept).unwrap();
        // A permute over each sum keeps it from fusing into the next one.
        let mut axes: Vec<usize> = (0..rank - 1).collect();
        axes.reverse();
        t = t.mul(&t.full_like(2.0)).unwrap().permute(&axes).unwrap();
    }
    let s = schedule(&t).unwrap();
    let temps = s.buffers.iter().filter(|b| matches!(b.kind, BufferKind::Temp(_))).count();
    assert!(temps >= 3, "{temps} intermediates");
    assert_eq!(s.pool.len(), 2, "pool {:?}", s.pool);
}

#[test]
fn bad_graphs_fail_when_built() {
    let x = Tensor::input(0, &[3, 4], DType::F32);
    let y = Tensor::input(1, &[4, 3], DType::F32);
    let i = Tensor::input(2, &[3, 4], DType::I32);
    let msg = |r: Result<Tensor, baregpu_compiler::graph::GraphError>| r.unwrap_err().to_string();
    assert!(msg(x.add(&y)).starts_with("shape mismatch: Add of shapes [3, 4] and [4, 3]"));
    assert!(msg(x.add(&i)).starts_with("dtype mismatch: Add of f32 and i32"));
    assert!(msg(x.expand(&[3, 8])).starts_with("shape mismatch"));
    assert!(msg(x.reshape(&[5, 2])).starts_with("shape mismatch"));
    assert!(msg(x.sum(&[2])).starts_with("shape mismatch"));
    assert!(msg(x.matmul(&x)).starts_with("shape mismatch: matmul"));
}

/// `bench compile --json`: one object with the median and an entry per kernel of the fixed set,
/// every figure positive, and the executed-instruction comparison with clang -O2.
#[test]
fn bench_compile_reports_time_per_kernel() {
    for arch in ["gfx1100", "gfx950"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_baregpu"))
            .args(["bench", "compile", "--arch", arch, "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(v["arch"], arch);
        let ms = v["compile_ms_per_kernel"].as_f64().unwrap();
        assert!(ms > 0.0 && ms.is_finite(), "{v}");
        let ks = v["kernels"].as_array().unwrap();
        // elementwise 1, row norm 1, column max 1, softmax 3, matmul 1.
        assert_eq!(ks.len(), 7, "{v}");
        assert!(ks.iter().all(|k| k["compile_ms"].as_f64().unwrap() > 0.0 && k["code_bytes"].as_u64().unwrap() > 0));
        // Executed wave instructions, ours against clang -O2's, per graph of the fixed set; the
        // elementwise chain and the plain reductions give the same results on both sides.
        let counts = v["instructions"].as_array().unwrap();
        let names: Vec<&str> = counts.iter().map(|c| c["graph"].as_str().unwrap()).collect();
        assert_eq!(names, ["elementwise", "row_norm", "column_max", "softmax", "matmul"], "{v}");
        for c in counts {
            assert!(c["ours"].as_u64().unwrap() > 0 && c["clang"].as_u64().unwrap() > 0, "{c}");
        }
        assert!(counts[..3].iter().all(|c| c["results_agree"] == true), "{v}");
        // The tiled matmul against clang's build of the same tiling.
        assert_eq!(counts[4]["results_agree"], true, "{v}");
        let g = v["instructions_vs_clang"].as_f64().unwrap();
        assert!(g > 0.0 && g.is_finite(), "{v}");
    }
}

#[test]
fn a_reshape_no_view_can_express_realizes_its_source() {
    // [3,4] permuted to [4,3] then flattened: not one strided view of the [3,4] buffer.
    let xv = values(12, 13, -1.0, 1.0);
    let x = Tensor::input(0, &[3, 4], DType::F32);
    let t = x.mul(&x.full_like(3.0)).unwrap().permute(&[1, 0]).unwrap().reshape(&[12]).unwrap();
    let out = t.add(&t.full_like(1.0)).unwrap();
    let (got, kernels) = run(&out, &[&xv]);
    assert_eq!(kernels, 2, "the permuted product is realized first");
    let want: Vec<f64> = (0..12).map(|i| xv[(i % 3) * 4 + i / 3] as f64 * 3.0 + 1.0).collect();
    check(&got, &want, 1e-6);
    // Splitting axes of the same permuted view is one view: one kernel.
    let split = x.permute(&[1, 0]).unwrap().reshape(&[2, 2, 3]).unwrap();
    assert_eq!(schedule(&split.add(&split).unwrap()).unwrap().kernels.len(), 1);
}

#[test]
fn i32_math_size_one_axes_and_empty_tensors() {
    let iv: Vec<i32> = (0..30).map(|i| i * 7 - 100).collect();
    let bits: Vec<f32> = iv.iter().map(|&i| f32::from_bits(i as u32)).collect();
    let x = Tensor::input(0, &[5, 1, 6], DType::I32);
    // (x * 3 - x max 7) summed over the size-1 axis and the last, as f32.
    let y = x.mul(&x.full_like(3.0)).unwrap().sub(&x.maximum(&x.full_like(7.0)).unwrap()).unwrap();
    let out = y.sum(&[1, 2]).unwrap().cast(DType::F32).unwrap();
    let (got, _) = run(&out, &[&bits]);
    let want: Vec<f64> = (0..5).map(|r| iv[r * 6..][..6].iter().map(|&v| (3 * v - v.max(7)) as f64).sum()).collect();
    check(&got, &want, 0.0);
    // A sum over an empty axis is 0; an empty result launches nothing.
    let e = Tensor::input(0, &[3, 0], DType::F32);
    let (got, kernels) = run(&e.sum(&[1]).unwrap(), &[&[]]);
    assert_eq!((got, kernels), (vec![0.0; 3], 1));
    let (got, kernels) = run(&e.exp2().unwrap(), &[&[]]);
    assert_eq!((got.len(), kernels), (0, 0));
}

/// Buffers that do not fit the graph are one clear error before anything runs, and the
/// realizer keeps working after it.
#[test]
fn missing_or_small_buffers_are_refused_before_running() {
    let dev = open();
    let arena = ProgramArena::new();
    let mut r = Realizer::new(&*dev, &arena).unwrap();
    // 16 KiB tensors: larger than the page a small allocation is rounded up to.
    let x = Tensor::input(0, &[64, 64], DType::F32);
    let y = Tensor::input(1, &[64, 64], DType::F32);
    let out = x.add(&y).unwrap();
    let (a, small, o) = (upload(&*dev, &[1.0; 4096]), upload(&*dev, &[1.0; 8]), dev.alloc(16384).unwrap());
    let err = r.realize(&out, &[&a], &o).unwrap_err().to_string();
    assert_eq!(err, "the graph reads input 1, but 1 were given");
    let err = r.realize(&out, &[&a, &small], &o).unwrap_err().to_string();
    assert!(err.starts_with("input 1: a buffer of ") && err.ends_with("bytes, the graph needs 16384"), "{err}");
    let err = r.realize(&out, &[&a, &a], &small).unwrap_err().to_string();
    assert!(err.starts_with("the output: a buffer of ") && err.ends_with("bytes, the graph needs 16384"), "{err}");
    assert_eq!(r.compilations(), 0);
    let b = upload(&*dev, &[2.0; 4096]);
    r.realize(&out, &[&a, &b], &o).unwrap();
    assert_eq!(download(&*dev, &o, 4096), vec![3.0; 4096]);
    r.close().unwrap();
    arena.unload_all(&*dev).unwrap();
}

/// Shapes for the op tests: size 1 alone and inside, odd sizes, a row longer than a workgroup
/// (64 lanes), and two drawn from `seed`.
fn op_shapes(seed: u32) -> Vec<Vec<usize>> {
    let r = values(4, seed, 1.0, 40.0);
    vec![
        vec![1, 1],
        vec![3, 1],
        vec![1, 7],
        vec![5, 33],
        vec![2, 3, 65],
        vec![r[0] as usize, r[1] as usize],
        vec![r[2] as usize, 1, r[3] as usize],
    ]
}

/// Host layernorm over the last axis of rows `n` long, in f64.
fn host_layernorm(x: &[f32], n: usize, eps: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for row in f64s(x).chunks(n) {
        let mean = row.iter().sum::<f64>() / n as f64;
        let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        out.extend(row.iter().map(|v| (v - mean) / (var + eps).sqrt()));
    }
    out
}

#[test]
fn layernorm_matches_the_host_on_odd_shapes_and_size_one() {
    for (i, shape) in op_shapes(21).into_iter().enumerate() {
        let n: usize = shape.iter().product();
        // A large mean per row: E[x^2] - mean^2 would lose the variance to cancellation.
        let xv: Vec<f32> = values(n, 30 + i as u32, -2.0, 2.0).iter().map(|v| v + 100.0).collect();
        let out = Tensor::input(0, &shape, DType::F32).layernorm(1e-5).unwrap();
        let (got, kernels) = run(&out, &[&xv]);
        // The mean, the variance (the centering fused into its prologue), the normalization.
        assert_eq!(kernels, 3, "{shape:?}");
        check(&got, &host_layernorm(&xv, *shape.last().unwrap(), 1e-5), 1e-4);
    }
    let scalar = Tensor::input(0, &[], DType::F32);
    assert!(scalar.layernorm(1e-5).unwrap_err().to_string().starts_with("shape mismatch: layernorm of a scalar"));
}

#[test]
fn gelu_is_the_tanh_approximation_and_one_kernel() {
    for (i, shape) in op_shapes(22).into_iter().enumerate() {
        let n: usize = shape.iter().product();
        let mut xv = values(n, 40 + i as u32, -5.0, 5.0);
        // Far tails: tanh's e^(2y) overflows to infinity or underflows to 0 there.
        if n >= 4 {
            xv[..4].copy_from_slice(&[-30.0, 30.0, -1e20, 1e20]);
        }
        let out = Tensor::input(0, &shape, DType::F32).gelu().unwrap();
        let (got, kernels) = run(&out, &[&xv]);
        assert_eq!(kernels, 1, "{shape:?}");
        let want: Vec<f64> = f64s(&xv).iter().map(|&x| transformer::gelu(x)).collect();
        check(&got, &want, 1e-5);
    }
}

#[test]
fn softmax_over_any_axis_matches_the_host_and_is_stable() {
    for (i, shape) in op_shapes(23).into_iter().enumerate() {
        let n: usize = shape.iter().product();
        // Logits up to 200: e^x alone overflows f32; the max subtracted first keeps it finite.
        let xv = values(n, 50 + i as u32, -200.0, 200.0);
        let axis = i % shape.len();
        let out = Tensor::input(0, &shape, DType::F32).softmax(axis).unwrap();
        let (got, kernels) = run(&out, &[&xv]);
        assert_eq!(kernels, 3, "{shape:?}");
        // The host's softmax along `axis` of the row-major `shape`.
        let inner: usize = shape[axis + 1..].iter().product();
        let len = shape[axis];
        let mut want = vec![0.0; n];
        for base in (0..n).filter(|b| (b / inner) % len == 0) {
            let at = |k: usize| base + k * inner;
            let mx = (0..len).map(|k| xv[at(k)] as f64).fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = (0..len).map(|k| (xv[at(k)] as f64 - mx).exp()).sum();
            (0..len).for_each(|k| want[at(k)] = (xv[at(k)] as f64 - mx).exp() / s);
        }
        check(&got, &want, 1e-4);
    }
}

/// The transformer block's inputs: tokens from `x_seed`, weights by 1/sqrt(fan-in).
fn block_inputs(block: &Block, x_seed: u32) -> Vec<Vec<f32>> {
    let shapes = block.input_shapes();
    let scaled = |n: usize, s: &[usize]| {
        let v = values(s.iter().product(), 60 + n as u32, -1.0, 1.0);
        let k = if s.len() == 2 { 1.0 / (s[0] as f32).sqrt() } else { 0.2 };
        v.iter().map(|x| x * k + if matches!(n, 1 | 7) { 1.0 } else { 0.0 }).collect()
    };
    shapes
        .iter()
        .enumerate()
        .map(|(n, s)| if n == 0 { values(s.iter().product(), x_seed, -2.0, 2.0) } else { scaled(n, s) })
        .collect()
}

/// The block on every device: checked against the f64 host reference, then again on new tokens
/// as a replay of the same graph (nothing compiled).
#[test]
fn the_transformer_block_verifies_and_replays_on_every_device() {
    let block = Block { seq: 5, d_model: 12, d_ff: 20 };
    for spec in DEVICES {
        let dev = open_on(spec);
        let arena = ProgramArena::new();
        let mut r = Realizer::new(&*dev, &arena).unwrap();
        let o = dev.alloc(4 * 60).unwrap();
        for (i, x_seed) in [71, 72].into_iter().enumerate() {
            let vals = block_inputs(&block, x_seed);
            let bufs: Vec<Buffer> = vals.iter().map(|v| upload(&*dev, v)).collect();
            let refs: Vec<&Buffer> = bufs.iter().collect();
            let done = r.realize(&block.graph().unwrap(), &refs, &o).unwrap();
            assert_eq!(
                (done.kernels, done.compiled, r.compilations()),
                (BLOCK_KERNELS, i == 0, BLOCK_KERNELS),
                "{spec}"
            );
            let want = block.reference(&vals.iter().map(|v| &v[..]).collect::<Vec<_>>());
            check(&download(&*dev, &o, 60), &want, 1e-4);
            bufs.into_iter().for_each(|b| dev.free(b).unwrap());
        }
        r.close().unwrap();
        arena.unload_all(&*dev).unwrap();
    }
}

/// Kernels of the block's schedule: layernorm 2 (mean, variance; the normalization is inlined
/// into its readers), Q, K and V 3, scores 1, softmax 2 (max, sum; the division is inlined into
/// the product with V), attention times V 1, the output projection 1, layernorm 2, the MLP's
/// up projection 1 (layernorm inlined) and down projection 1 (GELU inlined into its operand, the
/// bias and the residual add into its epilogue).
const BLOCK_KERNELS: usize = 14;

#[test]
fn the_transformer_block_schedules_into_known_fused_kernels() {
    for block in [Block { seq: 5, d_model: 12, d_ff: 20 }, Block { seq: 16, d_model: 32, d_ff: 64 }] {
        let s = schedule(&block.graph().unwrap()).unwrap();
        assert_eq!(s.kernels.len(), BLOCK_KERNELS, "{block:?}");
        // Every kernel is a reduction with its elementwise work fused around it: no kernel of
        // its own for the final residual add (the order the scheduler meets the two reductions
        // under it must not cost one).
        assert!(s.kernels.iter().all(|k| k.ir.reduce.is_some()), "{block:?}");
        // Q, K, V, the scores, attention times V, the output projection and the MLP's two:
        // tiled matmuls, their prologues and epilogues fused in.
        let tiled = s.kernels.iter().filter(|k| k.ir.matmul.is_some()).count();
        assert_eq!(tiled, 8, "{block:?}");
    }
}
