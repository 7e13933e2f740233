//! The demo's second step: a small transformer block ([`baregpu_compiler::graph::transformer`])
//! through the graph compiler on the device. The block is one lazy tensor, scheduled into fused
//! kernels, compiled by our code generator and run as ONE HCQ2 graph; then a second input (same
//! weights, new tokens) replays that graph without compiling anything (checked: the compile
//! count must not move). Both results are checked against the host reference in f64.

use crate::demo::{bytes, floats, inputs};
use crate::gpu::{Buffer, Gpu};
use crate::realize::{ProgramArena, Realizer};
use crate::{Error, Result};
use baregpu_compiler::graph::transformer::Block;
use baregpu_compiler::graph::view::numel;
use serde::Serialize;
use std::time::Instant;

/// The demo's block: small enough that the emulators run it in well under a second.
pub const DEMO_BLOCK: Block = Block { seq: 16, d_model: 32, d_ff: 64 };

/// Largest absolute difference from the f64 reference that still verifies: f32 arithmetic
/// through two layernorms, a softmax and six matmuls of at most 64 terms, on outputs of
/// magnitude about 1-10.
pub const TOLERANCE: f64 = 1e-3;

/// How the transformer block ran.
#[derive(Debug, Clone, Serialize)]
pub struct TransformerRun {
    pub seq: usize,
    pub d_model: usize,
    pub d_ff: usize,
    /// Kernels in the block's schedule: launches of its one graph.
    pub kernels: usize,
    /// Kernels compiled over both runs (the second compiles none).
    pub compiled: usize,
    /// Runs of the graph without compiling (the second input).
    pub replays: usize,
    /// Milliseconds our code generator took for all kernels.
    pub compile_ms: f64,
    /// Wall time of the first run (schedule, compile, graph build, run) and of the replay.
    pub first_wall_us: f64,
    pub replay_wall_us: f64,
    /// Largest absolute difference from the f64 host reference over both runs.
    pub max_error: f64,
    pub ok: bool,
}

/// The block's inputs for token seed `x_seed`: weights scaled by 1/sqrt(fan-in) (activations stay
/// about unit size), layernorm gains near 1, biases small.
fn block_inputs(block: &Block, x_seed: u32) -> Result<Vec<Vec<f32>>> {
    let mut out = Vec::new();
    for (n, shape) in block.input_shapes().iter().enumerate() {
        let seed = if n == 0 { x_seed } else { 1000 + n as u32 };
        let v = inputs(numel(shape), seed)?;
        let v = match (n, shape.len()) {
            (0, _) => v,
            (_, 2) => v.iter().map(|x| x / (shape[0] as f32).sqrt()).collect(),
            // Layernorm gains (inputs 1 and 7) near 1; the other vectors are biases.
            (1 | 7, _) => v.iter().map(|x| 1.0 + 0.1 * x).collect(),
            _ => v.iter().map(|x| 0.1 * x).collect(),
        };
        out.push(v);
    }
    Ok(out)
}

/// Run the block twice on `dev` (the second time on new tokens: a replay), checking both.
pub fn run(dev: &dyn Gpu, block: Block, progress: &mut dyn FnMut(&str) -> Result<()>) -> Result<TransformerRun> {
    let arena = ProgramArena::new();
    let mut realizer = Realizer::new(dev, &arena)?;
    let mut held = Vec::new();
    let r = runs(dev, block, &mut realizer, &mut held, progress);
    let closed = realizer.close();
    let mut rest = closed.and_then(|()| arena.unload_all(dev));
    for b in held {
        let freed = dev.free(b);
        rest = rest.and(freed);
    }
    // The run's own error, if any, is the one to report.
    let run = r?;
    rest?;
    Ok(run)
}

fn upload(dev: &dyn Gpu, v: &[f32], held: &mut Vec<Buffer>) -> Result<usize> {
    let b = dev.alloc((4 * v.len()).max(4) as u64)?;
    held.push(b);
    let b = held.last().expect("just pushed");
    dev.write(b, 0, &bytes(v))?;
    Ok(held.len() - 1)
}

fn runs(
    dev: &dyn Gpu,
    block: Block,
    realizer: &mut Realizer,
    held: &mut Vec<Buffer>,
    progress: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<TransformerRun> {
    let usage = |e: baregpu_compiler::graph::GraphError| Error::Usage(format!("transformer block: {e}"));
    let out_len = numel(&block.output_shape());
    let out = upload(dev, &vec![0.0; out_len], held)?;
    let (mut max_error, mut walls, mut compile_ms, mut kernels, mut replays) = (0f64, [0f64; 2], 0.0, 0, 0);
    for (i, wall) in walls.iter_mut().enumerate() {
        let values = block_inputs(&block, 1 + i as u32)?;
        // The weights are the same both times; only the tokens (input 0) are new.
        let first = held.len();
        for v in if i == 0 { &values[..] } else { &values[..1] } {
            upload(dev, v, held)?;
        }
        let mut bufs: Vec<&Buffer> = held[first..].iter().collect();
        if i > 0 {
            bufs.extend(&held[out + 2..out + 1 + values.len()]);
        }
        let before = realizer.compilations();
        let t = Instant::now();
        // A fresh graph each time: the realizer finds the compiled one by its schedule.
        let done = realizer.realize(&block.graph().map_err(usage)?, &bufs, &held[out])?;
        *wall = t.elapsed().as_secs_f64() * 1e6;
        let mut raw = vec![0u8; 4 * out_len];
        dev.read(&held[out], 0, &mut raw)?;
        let refs: Vec<&[f32]> = values.iter().map(|v| &v[..]).collect();
        let want = block.reference(&refs);
        let err = floats(&raw).iter().zip(&want).map(|(&g, w)| (g as f64 - w).abs()).fold(0.0, f64::max);
        max_error = max_error.max(if err.is_nan() { f64::INFINITY } else { err });
        kernels = done.kernels;
        if i == 0 {
            compile_ms = done.codegen_ms;
            progress(&format!(
                "transformer block (seq {}, d_model {}, d_ff {}): {} kernels compiled in {compile_ms:.1} ms, run as one HCQ2 graph",
                block.seq, block.d_model, block.d_ff, done.kernels
            ))?;
        } else {
            if done.compiled || realizer.compilations() != before {
                return Err(Error::Usage(
                    "transformer block: the second run compiled again instead of replaying".into(),
                ));
            }
            replays += 1;
            progress("transformer block: new tokens, the same graph replayed (nothing compiled)")?;
        }
    }
    Ok(TransformerRun {
        seq: block.seq,
        d_model: block.d_model,
        d_ff: block.d_ff,
        kernels,
        compiled: realizer.compilations(),
        replays,
        compile_ms,
        first_wall_us: walls[0],
        replay_wall_us: walls[1],
        max_error,
        ok: max_error <= TOLERANCE,
    })
}
