//! A host evaluator of lazy tensor graphs, written apart from the compiler: it walks the nodes
//! and computes every element in f64 (integers exact, wrapping as their type does), movement
//! ops by mapping each output coordinate to its source coordinate (no views, no strides). With
//! it: values per dtype as bytes, and a realize on a device that gives the result back decoded.

use std::collections::HashMap;

use baregpu::gpu::{Buffer, Gpu};
use baregpu::realize::{ProgramArena, Realizer};
use baregpu::DeviceSpec;
use baregpu_compiler::graph::tensor::Op;
use baregpu_compiler::graph::{BinaryOp, DType, MovementOp, ReduceOp, Tensor, UnaryOp};
use half::{bf16, f16};

/// A tensor's elements on the host (each a value of its dtype, as f64).
#[derive(Debug, Clone)]
pub struct Host {
    pub shape: Vec<usize>,
    pub dtype: DType,
    pub data: Vec<f64>,
}

fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Row-major coordinates of linear index `i`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = i % shape[d];
        i /= shape[d];
    }
    c
}

fn ravel(c: &[usize], shape: &[usize]) -> usize {
    c.iter().zip(shape).fold(0, |acc, (&x, &n)| acc * n + x)
}

/// `x` as a value of `d` from a float: rounded to its precision (f32 first, as a device does).
pub fn round_float(d: DType, x: f64) -> f64 {
    match d {
        DType::F32 => x as f32 as f64,
        DType::F16 => f16::from_f32(x as f32).to_f64(),
        DType::BF16 => bf16::from_f32(x as f32).to_f64(),
        _ => x,
    }
}

/// An integer value wrapped to its dtype's range.
fn wrap(d: DType, x: i64) -> f64 {
    match d {
        DType::I32 => x as i32 as f64,
        DType::U8 => x as u8 as f64,
        DType::Bool => (x != 0) as i64 as f64,
        _ => x as f64,
    }
}

/// The value a constant node's bits stand for.
fn const_value(d: DType, bits: u32) -> f64 {
    if d.is_float() {
        f32::from_bits(bits) as f64
    } else if d == DType::I32 {
        bits as i32 as f64
    } else {
        bits as f64
    }
}

fn cast(from: DType, to: DType, x: f64) -> f64 {
    match to {
        _ if from == to => x,
        DType::Bool => (x != 0.0) as i64 as f64,
        // Truncation, saturating at i32's range, NaN to 0; u8 wraps the i32.
        DType::I32 | DType::U8 if from.is_float() => wrap(to, (x as f32) as i32 as i64),
        DType::I32 | DType::U8 => wrap(to, x as i64),
        _ => round_float(to, x),
    }
}

/// The bits of `x` as `d` in memory.
fn bits(d: DType, x: f64) -> u32 {
    match d {
        DType::F32 => (x as f32).to_bits(),
        DType::F16 => f16::from_f32(x as f32).to_bits() as u32,
        DType::BF16 => bf16::from_f32(x as f32).to_bits() as u32,
        DType::I32 => x as i32 as u32,
        _ => x as u32,
    }
}

fn from_bits(d: DType, b: u32) -> f64 {
    match d {
        DType::F32 => f32::from_bits(b) as f64,
        DType::F16 => f16::from_bits(b as u16).to_f64(),
        DType::BF16 => bf16::from_bits(b as u16).to_f64(),
        DType::I32 => b as i32 as f64,
        DType::U8 => (b & 0xff) as f64,
        DType::Bool => (b != 0) as i64 as f64,
    }
}

fn unary(op: UnaryOp, from: DType, to: DType, x: f64) -> f64 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Exp2 => x.exp2(),
        UnaryOp::Log2 => x.log2(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Recip => 1.0 / x,
        UnaryOp::Sin => x.sin(),
        UnaryOp::Cast(_) => cast(from, to, x),
        UnaryOp::Bitcast(_) => from_bits(to, bits(from, x)),
    }
}

fn binary(op: BinaryOp, d: DType, a: f64, b: f64) -> f64 {
    use BinaryOp::*;
    let t = |c: bool| c as i64 as f64;
    if d.is_float() {
        return match op {
            Add => a + b,
            Sub => a - b,
            Mul => a * b,
            Div => a / b,
            Max => a.max(b),
            Min => a.min(b),
            CmpLt => t(a < b),
            CmpEq => t(a == b),
            CmpNe => t(a != b),
            _ => panic!("{op:?} of floats"),
        };
    }
    let (x, y) = (a as i64, b as i64);
    let bits = if d == DType::I32 { x as i32 as u32 as i64 } else { x };
    match op {
        Add => wrap(d, x + y),
        Sub => wrap(d, x - y),
        Mul => wrap(d, x.wrapping_mul(y)),
        Max => a.max(b),
        Min => a.min(b),
        CmpLt => t(a < b),
        CmpEq => t(a == b),
        CmpNe => t(a != b),
        And => wrap(d, x & y),
        Or => wrap(d, x | y),
        Xor => wrap(d, x ^ y),
        Shl => wrap(d, ((bits as u32) << (y & 31)) as i64),
        Shr if d == DType::I32 => ((x as i32) >> (y & 31)) as f64,
        Shr => wrap(d, x >> (y & 31)),
        Div => panic!("{op:?} of integers"),
    }
}

/// The source coordinate of output coordinate `c` under a movement op (`None`: padding).
fn source(op: &MovementOp, src: &[usize], c: &[usize]) -> Option<Vec<usize>> {
    Some(match op {
        MovementOp::Reshape(_) => unreachable!("reshapes keep the linear index"),
        MovementOp::Permute(axes) => {
            let mut s = vec![0; c.len()];
            for (i, &a) in axes.iter().enumerate() {
                s[a] = c[i];
            }
            s
        }
        MovementOp::Expand(_) => c.iter().zip(src).map(|(&x, &n)| if n == 1 { 0 } else { x }).collect(),
        MovementOp::Pad(p) => {
            let mut s = Vec::with_capacity(c.len());
            for ((&x, &(before, _)), &n) in c.iter().zip(p).zip(src) {
                if x < before || x - before >= n {
                    return None;
                }
                s.push(x - before);
            }
            s
        }
        MovementOp::Shrink(r) => c.iter().zip(r).map(|(&x, &(start, _))| x + start).collect(),
        MovementOp::Flip(f) => c.iter().zip(f).zip(src).map(|((&x, &fl), &n)| if fl { n - 1 - x } else { x }).collect(),
    })
}

/// Evaluates graphs; `max_abs` is the largest float magnitude any node reached (the scale of
/// the rounding error a device's f32 order of operations may leave).
pub struct Eval<'a> {
    inputs: &'a [Host],
    memo: HashMap<u64, Host>,
    pub max_abs: f64,
}

impl<'a> Eval<'a> {
    pub fn new(inputs: &'a [Host]) -> Self {
        Eval { inputs, memo: HashMap::new(), max_abs: 0.0 }
    }

    pub fn eval(&mut self, t: &Tensor) -> Host {
        if let Some(h) = self.memo.get(&t.node().id) {
            return h.clone();
        }
        let n = t.node();
        let (shape, dtype) = (n.shape.clone(), n.dtype);
        let len = numel(&shape);
        let data: Vec<f64> = match &n.op {
            Op::Input(i) => self.inputs[*i].data.clone(),
            Op::Const(b) => vec![const_value(dtype, *b); len],
            Op::Unary(op, a) => {
                let a = self.eval(a);
                a.data.iter().map(|&x| unary(*op, a.dtype, dtype, x)).collect()
            }
            Op::Binary(op, a, b) => {
                let (a, b) = (self.eval(a), self.eval(b));
                a.data.iter().zip(&b.data).map(|(&x, &y)| binary(*op, a.dtype, x, y)).collect()
            }
            Op::Where(c, a, b) => {
                let (c, a, b) = (self.eval(c), self.eval(a), self.eval(b));
                (0..len).map(|i| if c.data[i] != 0.0 { a.data[i] } else { b.data[i] }).collect()
            }
            Op::Reduce(op, a, axes) => {
                let a = self.eval(a);
                reduce(*op, &a, axes, &shape)
            }
            Op::Movement(MovementOp::Reshape(_), a) => self.eval(a).data,
            Op::Movement(op, a) => {
                let a = self.eval(a);
                (0..len)
                    .map(|i| match source(op, &a.shape, &unravel(i, &shape)) {
                        Some(s) => a.data[ravel(&s, &a.shape)],
                        None => 0.0,
                    })
                    .collect()
            }
        };
        if dtype.is_float() {
            let m = data.iter().filter(|x| x.is_finite()).fold(0.0f64, |m, x| m.max(x.abs()));
            self.max_abs = self.max_abs.max(m);
        }
        let h = Host { shape, dtype, data };
        self.memo.insert(n.id, h.clone());
        h
    }
}

fn reduce(op: ReduceOp, a: &Host, axes: &[usize], out: &[usize]) -> Vec<f64> {
    let init = match op {
        ReduceOp::Sum => 0.0,
        ReduceOp::Max if a.dtype == DType::I32 => i32::MIN as f64,
        ReduceOp::Max => f64::NEG_INFINITY,
    };
    let mut acc = vec![init; numel(out)];
    for (i, &x) in a.data.iter().enumerate() {
        let mut c = unravel(i, &a.shape);
        for &ax in axes {
            c[ax] = 0;
        }
        let o = ravel(&c, out);
        acc[o] = match op {
            ReduceOp::Sum if a.dtype == DType::I32 => wrap(DType::I32, acc[o] as i64 + x as i64),
            ReduceOp::Sum => acc[o] + x,
            ReduceOp::Max => acc[o].max(x),
        };
    }
    acc
}

/// The graph under `t` as text, one node a line (`%id = op operands : shape dtype`), sources
/// first: what a failing case prints.
pub fn show(t: &Tensor) -> String {
    let mut lines = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![(t.clone(), false)];
    while let Some((t, done)) = stack.pop() {
        let n = t.node();
        let srcs: Vec<Tensor> = match &n.op {
            Op::Input(_) | Op::Const(_) => vec![],
            Op::Unary(_, a) | Op::Reduce(_, a, _) | Op::Movement(_, a) => vec![a.clone()],
            Op::Binary(_, a, b) => vec![a.clone(), b.clone()],
            Op::Where(c, a, b) => vec![c.clone(), a.clone(), b.clone()],
        };
        if done {
            let what = match &n.op {
                Op::Input(i) => format!("input {i}"),
                Op::Const(b) => format!("const {}", const_value(n.dtype, *b)),
                Op::Unary(op, _) => format!("{op:?}"),
                Op::Binary(op, ..) => format!("{op:?}"),
                Op::Where(..) => "where".into(),
                Op::Reduce(op, _, axes) => format!("{op:?} {axes:?}"),
                Op::Movement(op, _) => format!("{op:?}"),
            };
            let args: Vec<String> = srcs.iter().map(|s| format!("%{}", s.node().id)).collect();
            lines.push(format!("%{} = {what} {} : {:?} {}", n.id, args.join(" "), n.shape, n.dtype));
            continue;
        }
        if !seen.insert(n.id) {
            continue;
        }
        stack.push((t.clone(), true));
        for s in srcs {
            stack.push((s, false));
        }
    }
    lines.join("\n")
}

/// The bytes of `h` as its dtype lays them out in memory.
pub fn encode(h: &Host) -> Vec<u8> {
    let size = h.dtype.size();
    h.data.iter().flat_map(|&x| bits(h.dtype, x).to_le_bytes()[..size].to_vec()).collect()
}

pub fn decode(d: DType, shape: &[usize], bytes: &[u8]) -> Host {
    let size = d.size();
    let data = bytes
        .chunks_exact(size)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..size].copy_from_slice(c);
            from_bits(d, u32::from_le_bytes(w))
        })
        .collect();
    Host { shape: shape.to_vec(), dtype: d, data }
}

/// A device and a realizer on it.
pub struct Runner<'a> {
    pub spec: &'a str,
    dev: &'a dyn Gpu,
    r: Realizer<'a>,
}

/// Opens `spec` and hands `f` a runner on it; closes everything after.
pub fn on_device(spec: &str, f: impl FnOnce(&mut Runner)) {
    let dev: Box<dyn Gpu> = baregpu::open(&DeviceSpec::parse(spec).unwrap()).unwrap();
    let arena = ProgramArena::new();
    {
        let r = Realizer::new(&*dev, &arena).unwrap();
        let mut runner = Runner { spec, dev: &*dev, r };
        f(&mut runner);
        runner.r.close().unwrap();
    }
    arena.unload_all(&*dev).unwrap();
}

impl Runner<'_> {
    /// Realizes `out` from `inputs`: the result and the kernel count.
    pub fn run(&mut self, out: &Tensor, inputs: &[Host]) -> (Host, usize) {
        self.try_run(out, inputs).unwrap_or_else(|e| panic!("{}: {e}", self.spec))
    }

    /// [`Runner::run`], the realizer's error given back.
    pub fn try_run(&mut self, out: &Tensor, inputs: &[Host]) -> Result<(Host, usize), String> {
        let dev = self.dev;
        let bufs: Vec<Buffer> = inputs
            .iter()
            .map(|h| {
                let bytes = encode(h);
                let b = dev.alloc(bytes.len().max(4) as u64).unwrap();
                dev.write(&b, 0, &bytes).unwrap();
                b
            })
            .collect();
        let refs: Vec<&Buffer> = bufs.iter().collect();
        let nbytes = out.numel() * out.dtype().size();
        let o = dev.alloc(nbytes.max(4) as u64).unwrap();
        let done = self.r.realize(out, &refs, &o).map_err(|e| e.to_string());
        let mut bytes = vec![0u8; nbytes];
        dev.read(&o, 0, &mut bytes).unwrap();
        dev.free(o).unwrap();
        for b in bufs {
            dev.free(b).unwrap();
        }
        Ok((decode(out.dtype(), out.shape(), &bytes), done?.kernels))
    }

    /// Realizes `out` and checks it against the host evaluator (`rtol` of the output dtype,
    /// scaled by the largest magnitude in the graph when `scaled`); the kernel count.
    pub fn check(&mut self, out: &Tensor, inputs: &[Host], scaled: bool, what: &str) -> usize {
        let mut e = Eval::new(inputs);
        let want = e.eval(out);
        let (got, kernels) = self.run(out, inputs);
        let scale = if scaled { e.max_abs } else { 0.0 };
        if let Some(m) = mismatch(&got, &want, rtol(out.dtype()), scale) {
            panic!("{}: {what}: {m}", self.spec);
        }
        kernels
    }
}

/// Whether `got` matches `want`: integers exactly; floats to within `rtol` of the larger of the
/// value and `scale` (NaN matches NaN, infinities of one sign match). The first mismatch.
pub fn mismatch(got: &Host, want: &Host, rtol: f64, scale: f64) -> Option<String> {
    assert_eq!(got.data.len(), want.data.len());
    for (i, (&g, &w)) in got.data.iter().zip(&want.data).enumerate() {
        let w = if want.dtype.is_float() { round_float(want.dtype, w) } else { w };
        let ok = if !want.dtype.is_float() {
            g == w
        } else if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else if w.is_infinite() || g.is_infinite() {
            g == w || (g - w).abs() <= rtol * (1.0 + scale.max(w.abs()))
        } else {
            (g - w).abs() <= rtol * (1.0 + w.abs().max(scale))
        };
        if !ok {
            return Some(format!("element {i} of {:?} ({}): got {g}, want {w}", want.shape, want.dtype));
        }
    }
    None
}

/// The relative tolerance of a float result of `d` computed in f32 on the device.
pub fn rtol(d: DType) -> f64 {
    match d {
        DType::F16 => 4e-3,
        DType::BF16 => 3e-2,
        _ => 2e-4,
    }
}
