//! A small transformer block (pre-norm, one attention head) built from the graph's ops, and its
//! host reference in f64:
//!
//! ```text
//!   h   = x + softmax((ln1(x) Wq)(ln1(x) Wk)^T / sqrt(d_model)) (ln1(x) Wv) Wo
//!   out = h + gelu(ln2(h) W1 + b1) W2 + b2
//! ```
//!
//! `ln(x) = layernorm(x) * gamma + beta` over the model axis; GELU is the tanh approximation
//! ([`Tensor::gelu`]). The whole block is one lazy tensor: one schedule, one HCQ2 graph.

use super::dtype::DType;
use super::error::GraphError;
use super::tensor::Tensor;

type R = Result<Tensor, GraphError>;

/// The layernorm epsilon (PyTorch's default).
pub const EPS: f64 = 1e-5;

/// The block's inputs in order: input `n` of the graph is `INPUTS[n]`.
pub const INPUTS: [&str; 13] =
    ["x", "ln1.gamma", "ln1.beta", "wq", "wk", "wv", "wo", "ln2.gamma", "ln2.beta", "w1", "b1", "w2", "b2"];

/// The block's sizes: `seq` tokens of `d_model` features, an MLP of `d_ff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub seq: usize,
    pub d_model: usize,
    pub d_ff: usize,
}

impl Block {
    /// The shape of each of [`INPUTS`].
    pub fn input_shapes(&self) -> Vec<Vec<usize>> {
        let (s, d, f) = (self.seq, self.d_model, self.d_ff);
        vec![
            vec![s, d],
            vec![d],
            vec![d],
            vec![d, d],
            vec![d, d],
            vec![d, d],
            vec![d, d],
            vec![d],
            vec![d],
            vec![d, f],
            vec![f],
            vec![f, d],
            vec![d],
        ]
    }

    /// The output's shape: `[seq, d_model]`.
    pub fn output_shape(&self) -> Vec<usize> {
        vec![self.seq, self.d_model]
    }

    /// The block as one lazy tensor over inputs `0..INPUTS.len()`.
    pub fn graph(&self) -> R {
        let inputs: Vec<Tensor> =
            self.input_shapes().iter().enumerate().map(|(n, s)| Tensor::input(n, s, DType::F32)).collect();
        let [x, g1, b1n, wq, wk, wv, wo, g2, b2n, w1, b1, w2, b2] = &inputs[..] else {
            unreachable!("INPUTS has 13 names")
        };
        let xn = affine_norm(x, g1, b1n)?;
        let (q, k, v) = (xn.matmul(wq)?, xn.matmul(wk)?, xn.matmul(wv)?);
        let scores = q.matmul(&k.permute(&[1, 0])?)?.scale(1.0 / (self.d_model as f64).sqrt())?;
        let attn = scores.softmax(1)?.matmul(&v)?.matmul(wo)?;
        let h = x.add(&attn)?;
        let hn = affine_norm(&h, g2, b2n)?;
        let up = add_row(&hn.matmul(w1)?, b1)?.gelu()?;
        h.add(&add_row(&up.matmul(w2)?, b2)?)
    }

    /// The block on the host in f64, from the same f32 inputs (in [`INPUTS`] order).
    pub fn reference(&self, inputs: &[&[f32]]) -> Vec<f64> {
        let (s, d, f) = (self.seq, self.d_model, self.d_ff);
        let m = |i: usize, rows: usize, cols: usize| Mat::new(rows, cols, inputs[i]);
        let row = |i: usize| inputs[i].iter().map(|&v| v as f64).collect::<Vec<f64>>();
        let x = m(0, s, d);
        let xn = x.layernorm(&row(1), &row(2));
        let (q, k, v) = (xn.matmul(&m(3, d, d)), xn.matmul(&m(4, d, d)), xn.matmul(&m(5, d, d)));
        let mut scores = q.matmul(&k.transpose());
        let scale = 1.0 / (d as f64).sqrt();
        scores.data.iter_mut().for_each(|v| *v *= scale);
        let attn = scores.softmax_rows().matmul(&v).matmul(&m(6, d, d));
        let h = x.add(&attn);
        let hn = h.layernorm(&row(7), &row(8));
        let mut up = hn.matmul(&m(9, d, f)).add_row(&row(10));
        up.data.iter_mut().for_each(|v| *v = gelu(*v));
        h.add(&up.matmul(&m(11, f, d)).add_row(&row(12))).data
    }
}

/// `layernorm(x) * gamma + beta` over the last axis of `[rows, d]`.
fn affine_norm(x: &Tensor, gamma: &Tensor, beta: &Tensor) -> R {
    let n = x.layernorm(EPS)?;
    add_row(&n.mul(&row(gamma, x.shape())?)?, beta)
}

/// A `[d]` vector as a `[rows, d]` tensor (every row the vector).
fn row(v: &Tensor, shape: &[usize]) -> R {
    v.reshape(&[1, v.numel()])?.expand(shape)
}

fn add_row(x: &Tensor, v: &Tensor) -> R {
    x.add(&row(v, x.shape())?)
}

/// GELU's tanh approximation in f64: what [`Tensor::gelu`] computes.
pub fn gelu(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
}

/// A row-major f64 matrix: the host reference's arithmetic.
#[derive(Debug, Clone)]
pub struct Mat {
    pub rows: usize,
    pub cols: usize,
    pub data: Vec<f64>,
}

impl Mat {
    pub fn new(rows: usize, cols: usize, v: &[f32]) -> Mat {
        assert_eq!(v.len(), rows * cols, "a {rows}x{cols} matrix");
        Mat { rows, cols, data: v.iter().map(|&x| x as f64).collect() }
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }

    pub fn matmul(&self, o: &Mat) -> Mat {
        assert_eq!(self.cols, o.rows);
        let data = (0..self.rows * o.cols)
            .map(|i| (0..self.cols).map(|k| self.at(i / o.cols, k) * o.at(k, i % o.cols)).sum())
            .collect();
        Mat { rows: self.rows, cols: o.cols, data }
    }

    pub fn transpose(&self) -> Mat {
        let data = (0..self.rows * self.cols).map(|i| self.at(i % self.rows, i / self.rows)).collect();
        Mat { rows: self.cols, cols: self.rows, data }
    }

    pub fn add(&self, o: &Mat) -> Mat {
        let data = self.data.iter().zip(&o.data).map(|(a, b)| a + b).collect();
        Mat { data, ..*self }
    }

    /// `v` added to every row.
    pub fn add_row(&self, v: &[f64]) -> Mat {
        let data = self.data.iter().enumerate().map(|(i, a)| a + v[i % self.cols]).collect();
        Mat { data, ..*self }
    }

    /// Per row: `e^(x - max) / sum`.
    pub fn softmax_rows(&self) -> Mat {
        let mut data = Vec::with_capacity(self.data.len());
        for r in self.data.chunks(self.cols.max(1)) {
            let mx = r.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = r.iter().map(|v| (v - mx).exp()).sum();
            data.extend(r.iter().map(|v| (v - mx).exp() / s));
        }
        Mat { data, ..*self }
    }

    /// Per row: `(x - mean) / sqrt(var + EPS) * gamma + beta` (the biased variance).
    pub fn layernorm(&self, gamma: &[f64], beta: &[f64]) -> Mat {
        let mut data = Vec::with_capacity(self.data.len());
        for r in self.data.chunks(self.cols.max(1)) {
            let n = r.len() as f64;
            let mean = r.iter().sum::<f64>() / n;
            let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
            let inv = 1.0 / (var + EPS).sqrt();
            data.extend(r.iter().enumerate().map(|(j, v)| (v - mean) * inv * gamma[j] + beta[j]));
        }
        Mat { data, ..*self }
    }
}
