//! The signal pool grows by pages: a program keeps a thousand compiled graphs alive (each holds
//! signals) on every backend, and each still replays correctly.

use super::*;

/// `count` one-kernel graphs, all compiled before any runs; graph `i` mixes `a` into `o` with
/// k = i. Each is then replayed (newest first, so late pages are used while early ones live)
/// and its result checked against the host.
fn many_live_graphs<B: Backend>(dev: &core::Device<B>, prog: &B::Program, count: u32) {
    let n = 64u32;
    let (a, o) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    let init = random_words(n as usize, 11);
    dev.write(&a, 0, &bytes(&init)).unwrap();
    let (fa, fo) = (fixed::<B>(&a, 0), fixed::<B>(&o, 0));
    let shape = Shape::linear(1, 64);
    let mut execs = Vec::new();
    for i in 0..count {
        let mut g = GraphBuilder::new();
        g.launch(QueueKey::compute(0), prog, "mix", mix_args(fo, 0, fa, 0, n, Arg::u32(i)), shape);
        let e = GraphExec::compile(&g.build(), &[dev], ExecOptions::default())
            .unwrap_or_else(|e| panic!("{}: graph {i} of {count}: {e}", dev.label));
        execs.push(e);
    }
    assert!(dev.signal_pages() > 1, "{}: the graphs fit one page: this proves nothing", dev.label);
    for (i, exec) in execs.iter_mut().enumerate().rev() {
        dev.write(&o, 0, &bytes(&init)).unwrap();
        exec.run(&Bindings::new()).unwrap();
        exec.wait().unwrap_or_else(|e| panic!("{}: graph {i}: {e}", dev.label));
        let mut want = init.clone();
        mix_words(&mut want, &init, i as u32);
        assert_eq!(read(dev, &o)[..n as usize], want, "{}: graph {i}", dev.label);
    }
    drop(execs);
    dev.free(a).unwrap();
    dev.free(o).unwrap();
}

#[test]
fn a_thousand_live_graphs_replay_on_emulated_amd() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    many_live_graphs(&dev, &prog, 1000);
}

#[test]
fn a_thousand_live_graphs_replay_on_emulated_nvidia() {
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    many_live_graphs(&dev, &prog, 1000);
}

#[test]
fn a_thousand_live_graphs_replay_on_am() {
    let Device::Amd(dev) = device::open(&"am:emu:gfx1100".parse().unwrap()).unwrap() else { panic!("not AMD") };
    let p = format!("{}/tests/fixtures/hsaco/graph-gfx1100.hsaco", env!("CARGO_MANIFEST_DIR"));
    let prog = dev.load(CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap()).unwrap();
    many_live_graphs(&dev, &prog, 1000);
}

#[test]
fn a_thousand_live_graphs_replay_over_the_emulated_usb_bridge() {
    let Device::Amd(dev) = device::open(&"usb:emu:gfx1100".parse().unwrap()).unwrap() else { panic!("not AMD") };
    let p = format!("{}/tests/fixtures/hsaco/graph-gfx1100.hsaco", env!("CARGO_MANIFEST_DIR"));
    let prog = dev.load(CodeObject::parse(&std::fs::read(&p).unwrap()).unwrap()).unwrap();
    many_live_graphs(&dev, &prog, 1000);
}
