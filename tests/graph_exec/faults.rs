//! A fault and a hang inside a graph name the node; the device (AMD) or a reopened one (NVIDIA) works afterwards.

use super::*;

/// A graph of three mixes whose middle one writes through slot `out`.
fn fault_graph<'d, B: Backend>(prog: &'d B::Program, a: &B::Buffer, n: u32) -> (Graph<&'d B::Program>, SlotId) {
    let mut g = GraphBuilder::new();
    let out = g.buffer_slot("out", Home::Device(0), 4 * n as u64);
    let fa = fixed::<B>(a, 0);
    let shape = Shape::linear(n.div_ceil(64), 64);
    let cq = QueueKey::compute(0);
    g.launch(cq, prog, "mix", mix_args(fa, 0, fa, 0, n, Arg::u32(1)), shape);
    g.launch(cq, prog, "mix", mix_args(out, 0, fa, 0, n, Arg::u32(2)), shape);
    g.launch(cq, prog, "mix", mix_args(fa, 0, fa, 0, n, Arg::u32(3)), shape);
    (g.build(), out)
}

#[test]
fn a_fault_inside_a_graph_names_the_node_and_the_device_keeps_working() {
    let (dev, code) = amd("gfx1100");
    let prog = dev.load(code).unwrap();
    let n = 64;
    let (a, good) = (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    let bad = (good.va() + good.size()).next_multiple_of(0x1000);
    let (g, out) = fault_graph::<Amd>(&prog, &a, n as u32);
    let mut exec = GraphExec::compile(&g, &[&dev], ExecOptions::default()).unwrap();
    exec.run(Bindings::new().buffer(out, bad, 4 * n as u64)).unwrap();
    let err = exec.wait().unwrap_err().to_string();
    assert!(err.contains("graph node 1 (kernel `mix`) on emu:gfx1100 compute queue"), "{err}");
    assert!(err.contains("memory fault") && err.contains(&format!("{bad:#x}")), "{err}");
    // The device and the same graph work afterwards.
    let init = random_words(n, 9);
    dev.write(&a, 0, &bytes(&init)).unwrap();
    dev.write(&good, 0, &bytes(&init)).unwrap();
    exec.run(Bindings::new().buffer(out, good.va(), good.size())).unwrap();
    exec.wait().unwrap();
    let mut want = init.clone();
    mix_words(&mut want, &init, 1);
    let after1 = want.clone();
    let mut o = init.clone();
    mix_words(&mut o, &after1, 2);
    mix_words(&mut want, &after1, 3);
    assert_eq!(read(&dev, &a)[..n], want);
    assert_eq!(read(&dev, &good)[..n], o);
    dev.marker().unwrap();
    dev.synchronize().unwrap();
}

#[test]
fn a_hang_inside_a_graph_names_the_node_and_the_device_keeps_working() {
    use baregpu_compiler::codeobj::{write_code_object, Kernel};
    use baregpu_isa::Arch;
    let (mut dev, code) = amd("gfx1100");
    dev.timeout = Duration::from_millis(500);
    let arch = Arch::from_name(&dev.arch).unwrap();
    let spin = baregpu_isa::assemble(arch, "spin:\n  s_branch spin\n").unwrap();
    let spin = CodeObject::parse(&write_code_object(arch, &[Kernel::new(arch, "spin", spin)]).unwrap()).unwrap();
    let (prog, spin) = (dev.load(code).unwrap(), dev.load(spin).unwrap());
    let n = 64u32;
    let a = dev.alloc(4 * n as u64).unwrap();
    let fa = fixed::<Amd>(&a, 0);
    let mut g = GraphBuilder::new();
    let cq = QueueKey::compute(0);
    g.launch(cq, &prog, "mix", mix_args(fa, 0, fa, 0, n, Arg::u32(1)), Shape::linear(1, 64));
    g.launch_ranges(cq, &spin, "spin", vec![], Shape::linear(1, 32), vec![], vec![Range::new(fa, 0, 4)]);
    let mut exec = GraphExec::compile(&g.build(), &[&dev], ExecOptions::default()).unwrap();
    let t = Instant::now();
    exec.run(&Bindings::new()).unwrap();
    let err = exec.wait().unwrap_err().to_string();
    assert!(err.contains("graph node 1 (kernel `spin`)") && err.contains("timed out"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(10), "the timeout took {:?}", t.elapsed());
    drop(exec);
    // Another graph runs on the rebuilt queues.
    many_runs(&dev, &prog, 20, 10);
}

#[test]
fn a_fault_inside_a_graph_on_nvidia_names_the_node_and_reopening_works() {
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    let n = 64;
    let a = dev.alloc(4 * n as u64).unwrap();
    let (g, out) = fault_graph::<Nv>(&prog, &a, n as u32);
    let mut exec = GraphExec::compile(&g, &[&dev], ExecOptions::default()).unwrap();
    exec.run(Bindings::new().buffer(out, 0x100, 4 * n as u64)).unwrap();
    let err = exec.wait().unwrap_err().to_string();
    assert!(err.contains("graph node 1 (kernel `mix`) on emu-nv:sm_90 compute queue"), "{err}");
    assert!(err.contains("reopen"), "{err}");
    drop(exec);
    drop(a);
    drop(dev);
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    many_runs(&dev, &prog, 20, 10);
}

#[test]
fn a_hang_inside_a_graph_on_nvidia_names_the_node_and_reopening_works() {
    let (mut dev, code) = nv();
    dev.timeout = Duration::from_millis(300);
    let spin =
        ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry spin()\n{\n$L_top:\n\tbra.uni $L_top;\n}\n";
    let (prog, spin) = (dev.load(code).unwrap(), dev.load(NvCode::parse(spin.as_bytes()).unwrap()).unwrap());
    let a = dev.alloc(256).unwrap();
    let fa = fixed::<Nv>(&a, 0);
    let mut g = GraphBuilder::new();
    let cq = QueueKey::compute(0);
    g.launch(cq, &prog, "mix", mix_args(fa, 0, fa, 0, 64, Arg::u32(1)), Shape::linear(1, 64));
    g.launch_ranges(cq, &spin, "spin", vec![], Shape::linear(1, 32), vec![], vec![Range::new(fa, 0, 4)]);
    let mut exec = GraphExec::compile(&g.build(), &[&dev], ExecOptions::default()).unwrap();
    let t = Instant::now();
    exec.run(&Bindings::new()).unwrap();
    let err = exec.wait().unwrap_err().to_string();
    assert!(err.contains("graph node 1 (kernel `spin`)") && err.contains("timed out"), "{err}");
    assert!(err.contains("reopen"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(10), "the timeout took {:?}", t.elapsed());
    // Dropping the device tears the channel down, which cancels the kernel.
    drop(exec);
    drop((a, prog, spin));
    drop(dev);
    let (dev, code) = nv();
    let prog = dev.load(code).unwrap();
    many_runs(&dev, &prog, 20, 10);
}
