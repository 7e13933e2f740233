//! The demo's work as ONE graph: the four inputs copied from host memory to the device on the
//! copy queue, the matmul and the vector add on the compute queue (each waits only for the
//! copies it reads: the plan inserts the waits), the two results copied back to host memory on
//! the copy queue (each after the kernel that wrote it). Every node is profiled.

use crate::demo::{GraphRun, Job, Memory, Timings};
use crate::gpu::{Buffer, ExecOptions, Gpu, GraphDesc};
use crate::Result;
use baregpu_runtime::graph::{Arg, Bindings, FixedBuffer, NodeId, QueueKey, Range, Shape, Step};
use baregpu_runtime::program::ArgValue;
use std::time::Instant;

/// A whole buffer as a range of the graph.
fn whole(f: FixedBuffer) -> Range {
    Range::new(f, 0, f.bytes)
}

/// A kernel argument of the eager launch as a graph argument: pointers name the graph's fixed
/// buffers (`bufs`, by address; an address outside them is passed as a plain value), values
/// are fixed bytes.
fn graph_arg(a: &ArgValue, bufs: &[FixedBuffer]) -> Arg {
    match a {
        ArgValue::Pointer(va) => match bufs.iter().find(|f| f.va == *va) {
            Some(f) => Arg::buf(*f),
            None => Arg::u64(*va),
        },
        ArgValue::Bytes(b) => Arg::Scalar(b.clone()),
    }
}

/// Build, compile and run the graph once; (per kernel GPU us and the graph's wall time).
pub(crate) fn run(dev: &dyn Gpu, mem: &Memory, jobs: &[Job; 2]) -> Result<Timings> {
    let mut g = GraphDesc::new();
    let mut fixed = |b: &Buffer| g.buffer(0, b);
    let staged = mem.staged.each_ref().map(&mut fixed);
    let device = mem.device.each_ref().map(&mut fixed);
    let outputs = mem.outputs.each_ref().map(&mut fixed);
    let results = mem.results.each_ref().map(&mut fixed);
    for (d, s) in device.iter().zip(&staged) {
        g.copy(QueueKey::copy(0), whole(*d), whole(*s));
    }
    let bufs: Vec<FixedBuffer> = device.iter().chain(&outputs).copied().collect();
    // Kernel k reads device inputs 2k and 2k+1 and writes output k.
    let mut kernel_nodes = [NodeId(0); 2];
    for (k, j) in jobs.iter().enumerate() {
        let args = j.args.iter().map(|a| graph_arg(a, &bufs)).collect();
        let shape = Shape { grid: j.shape.grid.map(baregpu_runtime::graph::Dim::Fixed), block: j.shape.block };
        let reads = vec![whole(device[2 * k]), whole(device[2 * k + 1])];
        kernel_nodes[k] =
            g.launch_ranges(QueueKey::compute(0), j.program, j.kernel, args, shape, reads, vec![whole(outputs[k])]);
    }
    for (r, o) in results.iter().zip(&outputs) {
        g.copy(QueueKey::copy(0), whole(*r), whole(*o));
    }
    let mut exec = dev.compile_graph(g, &[], ExecOptions { profile: true })?;
    let t = Instant::now();
    exec.run(&Bindings::new())?;
    exec.wait()?;
    let wall_us = t.elapsed().as_secs_f64() * 1e6;
    let waits = exec.plan().count(|s| matches!(s, Step::Wait(_)));
    let graph = GraphRun { nodes: exec.node_count(), queues: exec.queues(), waits, wall_us };
    Ok(Timings { kernels: kernel_nodes.map(|n| (exec.node_gpu_us(n), wall_us)), graph: Some(graph) })
}
