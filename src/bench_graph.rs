//! `bench graph`: what a compiled graph saves. A graph of N empty kernels on the compute queue
//! plus one small host-to-device copy per 10 kernels on the copy queue (spread over the devices
//! given), compiled once; then, medians over many runs: the host cost of `run()` per node (the
//! previous run complete), submit-to-complete per node (run + wait), and the host cost per node
//! of submitting the same nodes eagerly (launch by launch, copy by copy) in the same process.

use crate::gpu::{Buffer, ExecOptions, Gpu, GraphDesc, Program};
use crate::{Error, Result};
use baregpu_runtime::graph::{Bindings, QueueKey, Range, Shape};
use baregpu_runtime::program::Launch;
use serde::Serialize;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct GraphFigures {
    /// The devices the graph spans, `+`-joined.
    pub device: String,
    /// Nodes of the graph: kernels and copies.
    pub nodes: usize,
    pub runs: usize,
    pub compile_us: f64,
    /// Host cost of one `run()`, per node, the previous run complete.
    pub run_host_us_per_node: f64,
    /// `run()` to the end of `wait()`, per node.
    pub run_complete_us_per_node: f64,
    /// Host cost of submitting the same nodes one by one, per node.
    pub eager_host_us_per_node: f64,
    /// `eager_host_us_per_node / run_host_us_per_node`.
    pub ratio: f64,
}

/// The most kernels a graph of the bench takes (its command buffers and the eager samples are
/// kept in memory).
pub const MAX_NODES: usize = 10_000;
/// The most runs of each measurement.
pub const MAX_RUNS: usize = 100_000;
/// How many devices a graph of the bench spans at most.
pub const MAX_DEVICES: usize = 2;
/// Kernels per copy.
const KERNELS_PER_COPY: usize = 10;
/// Bytes of each copy.
const COPY_BYTES: u64 = 256;

/// The arguments, checked before any device is opened.
pub fn check(nodes: usize, runs: usize, devices: usize) -> Result<()> {
    let range = |what: &str, n: usize, max: usize| match n {
        0 => Err(Error::Usage(format!("--{what} 0: expected 1 to {max}"))),
        n if n > max => Err(Error::Usage(format!("--{what} {n}: expected 1 to {max}"))),
        _ => Ok(()),
    };
    range("nodes", nodes, MAX_NODES)?;
    range("runs", runs, MAX_RUNS)?;
    range("devices", devices, MAX_DEVICES)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// One device's share of the work: its empty kernel and the buffers its copies use.
struct Side<'d> {
    dev: &'d dyn Gpu,
    prog: Program,
    /// Host memory the copies read, and device memory they write (one slice per copy).
    src: Buffer,
    dst: Buffer,
}

/// A node of the bench, on device `dev`: an empty kernel, or copy number `k`.
#[derive(Clone, Copy)]
enum Work {
    Kernel { dev: usize },
    Copy { dev: usize, k: u64 },
}

/// The nodes in program order: kernels round-robin over the devices, a copy after every
/// [`KERNELS_PER_COPY`] kernels (at least one).
fn work(kernels: usize, devices: usize) -> Vec<Work> {
    let mut w = Vec::new();
    let mut copies = 0;
    for i in 0..kernels {
        w.push(Work::Kernel { dev: i % devices });
        if (i + 1) % KERNELS_PER_COPY == 0 || (i + 1 == kernels && copies == 0) {
            w.push(Work::Copy { dev: copies % devices, k: copies as u64 / devices as u64 });
            copies += 1;
        }
    }
    w
}

fn empty_shape() -> Launch {
    Launch::new([1, 1, 1], [32, 1, 1])
}

pub fn run(devs: &[&dyn Gpu], kernels: usize, runs: usize) -> Result<GraphFigures> {
    check(kernels, runs, devs.len())?;
    let work = work(kernels, devs.len());
    let copies = work.iter().filter(|w| matches!(w, Work::Copy { .. })).count() as u64;
    let per_dev = copies.div_ceil(devs.len() as u64) * COPY_BYTES;
    let mut sides = Vec::new();
    let mut r = (|| {
        for &dev in devs {
            let src = dev.alloc_host(per_dev)?;
            let dst = match dev.alloc(per_dev) {
                Ok(b) => b,
                Err(e) => {
                    dev.free(src)?;
                    return Err(e);
                }
            };
            match dev.empty_kernel() {
                Ok(prog) => sides.push(Side { dev, prog, src, dst }),
                Err(e) => {
                    dev.free(src)?;
                    dev.free(dst)?;
                    return Err(e);
                }
            }
        }
        measure(&sides, &work, runs)
    })();
    for s in sides {
        let freed = s.dev.unload(s.prog).and(s.dev.free(s.src)).and(s.dev.free(s.dst));
        if r.is_ok() {
            if let Err(e) = freed {
                r = Err(e);
            }
        }
    }
    r
}

fn measure(sides: &[Side], work: &[Work], runs: usize) -> Result<GraphFigures> {
    let nodes = work.len();
    let per_node = |v: Vec<f64>| median(v) / nodes as f64;
    let t = Instant::now();
    let mut exec = compile(sides, work)?;
    let compile_us = t.elapsed().as_secs_f64() * 1e6;
    let bindings = Bindings::new();
    // A first run outside the figures (first touches of the command buffers).
    exec.run(&bindings)?;
    exec.wait()?;
    let (mut host, mut complete) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for _ in 0..runs {
        let t = Instant::now();
        exec.run(&bindings)?;
        host.push(t.elapsed().as_secs_f64() * 1e6);
        exec.wait()?;
        complete.push(t.elapsed().as_secs_f64() * 1e6);
    }
    drop(exec);
    let eager = eager(sides, work, runs)?;
    let (run_host, eager_host) = (per_node(host), per_node(eager));
    Ok(GraphFigures {
        device: sides.iter().map(|s| s.dev.label()).collect::<Vec<_>>().join("+"),
        nodes,
        runs,
        compile_us,
        run_host_us_per_node: run_host,
        run_complete_us_per_node: per_node(complete),
        eager_host_us_per_node: eager_host,
        ratio: eager_host / run_host,
    })
}

fn compile<'a>(sides: &'a [Side], work: &[Work]) -> Result<Box<dyn crate::gpu::GpuGraph + 'a>> {
    let mut g = GraphDesc::new();
    let bufs: Vec<_> = sides.iter().enumerate().map(|(d, s)| (g.buffer(d, &s.src), g.buffer(d, &s.dst))).collect();
    for w in work {
        match *w {
            Work::Kernel { dev } => {
                g.launch(QueueKey::compute(dev), &sides[dev].prog, "empty", vec![], Shape::linear(1, 32));
            }
            Work::Copy { dev, k } => {
                let (src, dst) = bufs[dev];
                let at = k * COPY_BYTES;
                g.copy(QueueKey::copy(dev), Range::new(dst, at, COPY_BYTES), Range::new(src, at, COPY_BYTES));
            }
        }
    }
    let (first, peers) = (sides[0].dev, sides[1..].iter().map(|s| s.dev).collect::<Vec<_>>());
    first.compile_graph(g, &peers, ExecOptions::default())
}

/// Host cost of submitting every node eagerly, per run; each run completes before the next.
fn eager(sides: &[Side], work: &[Work], runs: usize) -> Result<Vec<f64>> {
    let shape = empty_shape();
    let mut out = Vec::with_capacity(runs);
    let mut launched = Vec::with_capacity(work.len());
    for _ in 0..runs {
        let t = Instant::now();
        for w in work {
            match *w {
                Work::Kernel { dev } => {
                    let s = &sides[dev];
                    launched.push((dev, s.dev.launch(&s.prog, "empty", &[], &shape, false)?));
                }
                Work::Copy { dev, k } => {
                    let s = &sides[dev];
                    s.dev.copy(&s.dst, k * COPY_BYTES, &s.src, k * COPY_BYTES, COPY_BYTES)?;
                }
            }
        }
        out.push(t.elapsed().as_secs_f64() * 1e6);
        for s in sides {
            s.dev.synchronize()?;
        }
        for (dev, sub) in launched.drain(..) {
            sides[dev].dev.release(sub)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_per_ten_kernels_spread_over_the_devices() {
        let w = work(25, 2);
        let copies: Vec<(usize, u64)> = w
            .iter()
            .filter_map(|w| match *w {
                Work::Copy { dev, k } => Some((dev, k)),
                _ => None,
            })
            .collect();
        assert_eq!(w.len(), 27);
        assert_eq!(copies, [(0, 0), (1, 0)]);
        let kernels_on_1 = w.iter().filter(|w| matches!(w, Work::Kernel { dev: 1 })).count();
        assert_eq!(kernels_on_1, 12);
        // A small graph still has a copy on the copy queue.
        assert_eq!(work(3, 1).len(), 4);
    }

    #[test]
    fn arguments_are_bounded() {
        assert!(check(100, 200, 1).is_ok());
        let e = |n, r, d| check(n, r, d).unwrap_err().to_string();
        assert_eq!(e(0, 1, 1), "--nodes 0: expected 1 to 10000");
        assert_eq!(e(10_001, 1, 1), "--nodes 10001: expected 1 to 10000");
        assert_eq!(e(1, 0, 1), "--runs 0: expected 1 to 100000");
        assert_eq!(e(1, 1, 3), "--devices 3: expected 1 to 2");
    }
}
