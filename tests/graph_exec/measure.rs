//! Figures of 100-node graphs against the same nodes launched eagerly (release build).

use super::*;

/// Figures (release build): `cargo test --release --test graph_exec measure -- --ignored --nocapture`.
fn measure<B: Backend>(dev: &core::Device<B>, prog: &B::Program) {
    const NODES: usize = 100;
    let bufs: Vec<B::Buffer> = (0..3).map(|_| dev.alloc(64 * NODES as u64).unwrap()).collect();
    let f: Vec<FixedBuffer> = bufs.iter().map(|b| fixed::<B>(b, 0)).collect();
    let mut g = GraphBuilder::new();
    for i in 0..NODES as u64 {
        let at = 64 * i;
        if i % 5 == 4 {
            g.copy(QueueKey::copy(0), Range::new(f[2], at, 64), Range::new(f[1], at, 64));
        } else {
            let args = mix_args(f[0], at, f[1], at, 16, Arg::u32(1));
            let r = (Range::new(f[0], at, 64), Range::new(f[1], at, 64));
            g.launch_ranges(QueueKey::compute(0), prog, "mix", args, Shape::linear(1, 64), vec![r.0, r.1], vec![r.0]);
        }
    }
    let graph = g.build();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    for round in 0..3 {
        let t = Instant::now();
        let mut exec = GraphExec::compile(&graph, &[dev], ExecOptions::default()).unwrap();
        let compile_us = t.elapsed().as_secs_f64() * 1e6;
        let (mut host, mut total, runs) = (0.0, 0.0, 200);
        for _ in 0..runs {
            let t = Instant::now();
            exec.run(&Bindings::new()).unwrap();
            host += t.elapsed().as_secs_f64();
            exec.wait().unwrap();
            total += t.elapsed().as_secs_f64();
        }
        let per = |s: f64| s * 1e6 / (runs * NODES) as f64;
        let t = Instant::now();
        for i in 0..NODES as u64 {
            let at = 64 * i;
            if i % 5 == 4 {
                dev.copy(&bufs[2], at, &bufs[1], at, 64).unwrap();
            } else {
                let args = [
                    ArgValue::Pointer(bufs[0].va() + at),
                    ArgValue::Pointer(bufs[1].va() + at),
                    ArgValue::u32(16),
                    ArgValue::u32(1),
                ];
                let s = dev.launch(prog, "mix", &args, &Launch::new([1, 1, 1], [64, 1, 1]), false).unwrap();
                dev.release(s);
            }
        }
        let eager_host = t.elapsed().as_secs_f64() * 1e6 / NODES as f64;
        dev.synchronize().unwrap();
        let eager_total = t.elapsed().as_secs_f64() * 1e6 / NODES as f64;
        eprintln!(
            "{} round {round}: compile {compile_us:.0} us ({:?} dwords); run host {:.3} us/node, submit-to-complete {:.2} us/node; eager host {eager_host:.2} us/node, complete {eager_total:.2} us/node; load {}",
            dev.label,
            exec.command_dwords().iter().map(|(_, d)| *d).collect::<Vec<_>>(),
            per(host),
            per(total),
            load.trim()
        );
    }
}

#[test]
#[ignore]
fn measure_100_node_graphs() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    measure(&dev, &prog);
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    measure(&dev, &prog);
}
