//! `baregpu bench compile`: how long the graph compiler's code generator takes per kernel, on a
//! fixed set of graphs (an elementwise chain, reductions, softmax, a matmul): each kernel of
//! their schedules is lowered to machine code and written as a code object several times; the
//! median counts. Then the wave instructions our kernels execute against clang -O2's for the
//! same computations ([`crate::bench_instructions`]).

use crate::{Error, Result};
use baregpu_compiler::graph::lower_amd::code_object;
use baregpu_compiler::graph::{schedule, DType, GraphError, Tensor};
use baregpu_isa::Arch;
use serde::Serialize;
use std::time::Instant;

/// Lowerings of each kernel measured.
const REPEATS: usize = 15;

#[derive(Debug, Clone, Serialize)]
pub struct KernelCompile {
    /// `softmax/k1_reduce`: the graph and the kernel of its schedule.
    pub kernel: String,
    /// Median milliseconds to lower it and write its code object.
    pub compile_ms: f64,
    /// Bytes of machine code.
    pub code_bytes: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompileReport {
    pub arch: String,
    /// Median over the kernels of their median compile time.
    pub compile_ms_per_kernel: f64,
    pub kernels: Vec<KernelCompile>,
    /// Geometric mean over the graphs of our executed wave instructions over clang -O2's, of
    /// the graphs whose results agree (`None`: none, or no clang fixture for the target).
    pub instructions_vs_clang: Option<f64>,
    /// Per graph: the executed wave instructions of both.
    pub instructions: Vec<crate::bench_instructions::InstructionCount>,
}

/// The fixed set of graphs, by name.
fn graphs() -> std::result::Result<Vec<(&'static str, Tensor)>, GraphError> {
    let x = Tensor::input(0, &[64, 100], DType::F32);
    let y = Tensor::input(1, &[64, 100], DType::F32);
    let chain = x.mul(&y)?.add(&x)?.exp2()?.sqrt()?.maximum(&y)?;
    let rows = x.mul(&x)?.sum(&[1])?.sqrt()?;
    let cols = x.max(&[0])?;
    let b = Tensor::input(1, &[100, 32], DType::F32);
    Ok(vec![
        ("elementwise", chain),
        ("row_norm", rows),
        ("column_max", cols),
        ("softmax", x.softmax(1)?),
        ("matmul", x.matmul(&b)?),
    ])
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        0.0
    } else {
        v[v.len() / 2]
    }
}

/// Measure every kernel of the fixed set for `arch`.
pub fn run(arch: Arch) -> Result<CompileReport> {
    let usage = |e: GraphError| Error::Usage(e.to_string());
    let mut kernels = Vec::new();
    let graphs = graphs().map_err(usage)?;
    for (name, g) in &graphs {
        for k in schedule(g).map_err(usage)?.kernels {
            let bytes = baregpu_compiler::graph::lower_amd::lower(arch, &k.ir).map_err(usage)?.code.len();
            let mut times = Vec::with_capacity(REPEATS);
            for _ in 0..REPEATS {
                let t = Instant::now();
                code_object(arch, std::slice::from_ref(&k.ir)).map_err(usage)?;
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            kernels.push(KernelCompile {
                kernel: format!("{name}/{}", k.ir.name),
                compile_ms: median(&mut times),
                code_bytes: bytes,
            });
        }
    }
    let mut all: Vec<f64> = kernels.iter().map(|k| k.compile_ms).collect();
    let instructions = crate::bench_instructions::run(arch, &graphs)?.unwrap_or_default();
    let instructions_vs_clang = crate::bench_instructions::geomean(&instructions);
    Ok(CompileReport {
        arch: arch.name().to_string(),
        compile_ms_per_kernel: median(&mut all),
        kernels,
        instructions_vs_clang,
        instructions,
    })
}
