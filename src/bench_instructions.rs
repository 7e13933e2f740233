//! `bench compile`'s code-quality figure: the wave instructions the emulator executes for each
//! graph of the fixed set, our kernels against the same computation written in OpenCL C
//! (`tests/kernels/graph_bench.cl`, built by clang-22 -O2 for the target: the fixtures of
//! `tests/fixtures/graph_bench/build.sh`). The OpenCL kernels follow our schedule kernel for
//! kernel (the same launches, the same hardware ops), so the ratio compares code generators.
//! Both results are compared: a graph whose results differ is reported and left out of the
//! geometric mean (its counts are not trusted).

use crate::demo::{bytes, floats, inputs};
use crate::{Error, Result};
use baregpu_compiler::graph::lower_amd::{code_object, launch_shape};
use baregpu_compiler::graph::{schedule, BufferKind, Tensor};
use baregpu_emu::rdna::Interpreter;
use baregpu_isa::Arch;
use baregpu_runtime::amd::{AmdDevice, Buffer, Program};
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
use serde::Serialize;
use std::sync::Arc;

/// One graph: wave instructions executed by our kernels and by clang's.
#[derive(Debug, Clone, Serialize)]
pub struct InstructionCount {
    pub graph: String,
    pub ours: u64,
    pub clang: u64,
    /// `ours / clang`.
    pub ratio: f64,
    /// Largest difference between the two results, relative (`|a - b| / (1 + |b|)`).
    pub max_difference: f64,
    /// Whether the results agree (within [`AGREE`]): only then does the ratio count in the
    /// geometric mean.
    pub results_agree: bool,
}

/// The largest relative difference of two results that still agree (f32 sums in other orders).
pub const AGREE: f64 = 1e-4;

/// A buffer of a clang launch.
#[derive(Clone, Copy)]
enum Buf {
    Input(usize),
    Temp(usize),
    Output,
}

/// Each graph's clang kernels: (name, workgroups of 64 lanes, buffers).
fn clang_launches(graph: &str) -> Option<Vec<(&'static str, u32, Vec<Buf>)>> {
    use Buf::*;
    Some(match graph {
        "elementwise" => vec![("elementwise", 100, vec![Input(0), Input(1), Output])],
        "row_norm" => vec![("row_norm", 64, vec![Input(0), Output])],
        "column_max" => vec![("column_max", 100, vec![Input(0), Output])],
        "softmax" => vec![
            ("softmax_max", 64, vec![Input(0), Temp(0)]),
            ("softmax_sum", 64, vec![Input(0), Temp(0), Temp(1)]),
            ("softmax_div", 100, vec![Input(0), Temp(0), Temp(1), Output]),
        ],
        // Tiles of 32x32 of the [64, 32] result.
        "matmul" => vec![("matmul", 2, vec![Input(0), Input(1), Output])],
        _ => return None,
    })
}

/// The clang -O2 code object for `arch`, if built.
fn fixture(arch: Arch) -> Option<&'static [u8]> {
    #[allow(unreachable_patterns)]
    Some(match arch {
        Arch::Gfx1100 => include_bytes!("../tests/fixtures/graph_bench/graph_bench-gfx1100.hsaco"),
        Arch::Gfx1201 => include_bytes!("../tests/fixtures/graph_bench/graph_bench-gfx1201.hsaco"),
        Arch::Gfx942 => include_bytes!("../tests/fixtures/graph_bench/graph_bench-gfx942.hsaco"),
        Arch::Gfx950 => include_bytes!("../tests/fixtures/graph_bench/graph_bench-gfx950.hsaco"),
        _ => return None,
    })
}

fn load(dev: &AmdDevice, code: &[u8]) -> Result<Program> {
    let co = CodeObject::parse(code).map_err(|e| Error::Usage(format!("bench compile: {e}")))?;
    Ok(dev.load(co)?)
}

/// Counts on the emulated `arch`: one device, every graph's inputs shared by both sides.
struct Counter {
    dev: AmdDevice,
    interp: Arc<Interpreter>,
    clang: Program,
}

impl Counter {
    /// Run `kernel` of `prog` over `groups` workgroups of `block` lanes; wave instructions.
    fn launch(&self, prog: &Program, kernel: &str, args: &[ArgValue], groups: u32, block: u32) -> Result<u64> {
        let before = self.interp.instructions();
        let s = self.dev.launch(prog, kernel, args, &Launch::new([groups, 1, 1], [block, 1, 1]), false)?;
        self.dev.synchronize()?;
        self.dev.release(s);
        Ok(self.interp.instructions() - before)
    }

    fn read(&self, b: &Buffer, n: usize) -> Result<Vec<f32>> {
        let mut raw = vec![0u8; 4 * n];
        self.dev.read(b, 0, &mut raw)?;
        Ok(floats(&raw))
    }

    /// Our schedule of `g` and clang's kernels on the same inputs: (ours, clang, the largest
    /// relative difference of their results).
    fn graph(&self, arch: Arch, name: &str, g: &Tensor) -> Result<(u64, u64, f64)> {
        let usage = |e: baregpu_compiler::graph::GraphError| Error::Usage(e.to_string());
        let launches =
            clang_launches(name).ok_or_else(|| Error::Usage(format!("bench compile: no clang kernels for {name}")))?;
        let sched = schedule(g).map_err(usage)?;
        let irs: Vec<_> = sched.kernels.iter().map(|k| k.ir.clone()).collect();
        let ours = load(&self.dev, &code_object(arch, &irs).map_err(usage)?)?;
        let mut held = Vec::new();
        let r = self.both(&sched, &ours, &launches, g.numel(), &mut held);
        for b in held {
            self.dev.free(b)?;
        }
        self.dev.unload(ours)?;
        let (ours_n, clang_n, a, b) = r?;
        // Relative difference per element; a NaN or infinity on either side is infinitely off.
        let off = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| {
                let d = ((x - y).abs() / (1.0 + y.abs())) as f64;
                if d.is_finite() {
                    d
                } else {
                    f64::INFINITY
                }
            })
            .fold(if a.len() == b.len() { 0.0 } else { f64::INFINITY }, f64::max);
        Ok((ours_n, clang_n, off))
    }

    #[allow(clippy::type_complexity)]
    fn both(
        &self,
        sched: &baregpu_compiler::graph::Schedule,
        ours: &Program,
        launches: &[(&'static str, u32, Vec<Buf>)],
        out_len: usize,
        held: &mut Vec<Buffer>,
    ) -> Result<(u64, u64, Vec<f32>, Vec<f32>)> {
        // Buffers: the schedule's (inputs filled), then clang's temps and output.
        let mut inputs_at = Vec::new();
        for info in &sched.buffers {
            held.push(self.dev.alloc(info.bytes.max(4))?);
            if let BufferKind::Input(n) = info.kind {
                let v = inputs((info.bytes / 4) as usize, 1 + n as u32)?;
                self.dev.write(held.last().expect("pushed"), 0, &bytes(&v))?;
                inputs_at.push((n, held.len() - 1));
            }
        }
        let mut n_ours = 0;
        for k in &sched.kernels {
            let args: Vec<ArgValue> = k.args.iter().map(|&b| ArgValue::Pointer(held[b].va())).collect();
            let (groups, block) = launch_shape(&k.ir);
            n_ours += self.launch(ours, &k.ir.name, &args, groups, block)?;
        }
        let a = self.read(&held[sched.output], out_len)?;
        let first = held.len();
        for _ in 0..3 {
            held.push(self.dev.alloc((4 * out_len.max(64 * 100)) as u64)?);
        }
        let at = |b: Buf| match b {
            Buf::Input(n) => inputs_at.iter().find(|(i, _)| *i == n).map(|&(_, at)| at),
            Buf::Temp(t) => Some(first + 1 + t),
            Buf::Output => Some(first),
        };
        let mut n_clang = 0;
        for (kernel, groups, bufs) in launches {
            let mut args = Vec::new();
            for &b in bufs {
                let i = at(b).ok_or_else(|| Error::Usage(format!("bench compile: {kernel} reads a missing input")))?;
                args.push(ArgValue::Pointer(held[i].va()));
            }
            n_clang += self.launch(&self.clang, kernel, &args, *groups, 64)?;
        }
        let b = self.read(&held[first], out_len)?;
        Ok((n_ours, n_clang, a, b))
    }
}

/// Wave instructions of ours and clang's for each graph on the emulated `arch`, or `None` where
/// there is no clang fixture for it.
pub fn run(arch: Arch, graphs: &[(&'static str, Tensor)]) -> Result<Option<Vec<InstructionCount>>> {
    let Some(code) = fixture(arch) else { return Ok(None) };
    let interp = Arc::new(Interpreter::new(arch.name()));
    let dev = crate::device::open_emulated(arch.name(), 0, interp.clone())?;
    let clang = load(&dev, code)?;
    let c = Counter { dev, interp, clang };
    let mut out = Vec::new();
    for (name, g) in graphs {
        let (ours, clang, off) = c.graph(arch, name, g)?;
        out.push(InstructionCount {
            graph: name.to_string(),
            ours,
            clang,
            ratio: ours as f64 / clang.max(1) as f64,
            max_difference: off,
            results_agree: off <= AGREE,
        });
    }
    c.dev.unload(c.clang)?;
    Ok(Some(out))
}

/// The geometric mean of the ratios of the graphs whose results agree (`None`: none do).
pub fn geomean(counts: &[InstructionCount]) -> Option<f64> {
    let ok: Vec<f64> = counts.iter().filter(|c| c.results_agree).map(|c| c.ratio.ln()).collect();
    (!ok.is_empty()).then(|| (ok.iter().sum::<f64>() / ok.len() as f64).exp())
}
