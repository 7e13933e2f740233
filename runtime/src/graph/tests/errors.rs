//! Graphs compile refuses, each with its error.

use super::*;

fn err(g: GraphBuilder<()>, caps: &[DeviceCaps]) -> GraphError {
    compile(&g.build(), caps).expect_err("compile refuses it")
}

#[test]
fn an_empty_graph() {
    assert_eq!(err(GraphBuilder::new(), &two()), GraphError::Empty);
}

#[test]
fn a_kernel_using_another_devices_buffer() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("far", Home::Device(1), 64);
    g.launch(c(0), (), "mix", vec![Arg::buf(b)], Shape::linear(1, 64));
    let e = err(g, &two());
    assert!(matches!(e, GraphError::ForeignBuffer { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "node 0 (kernel `mix` on device 0 compute queue): uses slot `far` on device 1; a node reaches only its own device's memory and host memory (copy it first)"
    );
}

#[test]
fn a_copy_between_two_peers() {
    let mut g = GraphBuilder::new();
    let (a, b) = (g.buffer_slot("a", Home::Device(1), 64), g.buffer_slot("b", Home::Device(1), 64));
    g.copy(x(0), Range::new(b, 0, 64), Range::new(a, 0, 64));
    assert!(matches!(err(g, &two()), GraphError::ForeignBuffer { .. }));
}

#[test]
fn a_cycle_through_an_external_signal() {
    // The compute queue waits for e >= 1, then writes b; the copy queue signals e after reading b.
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    let e = g.external("e");
    g.wait_external(c(0), e, 1, vec![]);
    k(&mut g, c(0), &[], &[Range::new(b, 0, 64)]);
    g.signal_external(x(0), e, 2, vec![Range::new(b, 0, 64)]);
    let msg = err(g, &two()).to_string();
    assert_eq!(
        msg,
        "dependency cycle: node 0 (wait on external signal 0 >= 1 on device 0 compute queue) -> \
         node 1 (kernel `k` on device 0 compute queue) -> \
         node 2 (signal of external signal 0 = 2 on device 0 copy queue) -> \
         node 0 (wait on external signal 0 >= 1 on device 0 compute queue)"
    );
}

#[test]
fn a_cycle_through_queue_order_alone() {
    let mut g = GraphBuilder::new();
    let e = g.external("e");
    g.wait_external(x(1), e, 3, vec![]);
    g.signal_external(x(1), e, 3, vec![]);
    assert!(matches!(err(g, &two()), GraphError::Cycle { .. }));
}

/// Adds a node using the buffer, scalar and launch-size slots it is given.
type Uses = dyn Fn(&mut GraphBuilder<()>, SlotId, SlotId, SlotId);

#[test]
fn slots_of_the_wrong_kind() {
    let wrong = |f: &Uses| {
        let mut g = GraphBuilder::new();
        let (b, s, n) = (g.buffer_slot("b", Home::Device(0), 64), g.scalar_slot("s", 4), g.size_slot("n"));
        f(&mut g, b, s, n);
        err(g, &two())
    };
    let e = wrong(&|g, b, _, _| {
        g.launch(c(0), (), "k", vec![Arg::ScalarSlot(b)], Shape::linear(1, 1));
    });
    assert_eq!(
        e.to_string(),
        "node 0 (kernel `k` on device 0 compute queue): slot `b` is a buffer slot, used as a scalar slot"
    );
    let e = wrong(&|g, _, s, _| {
        g.launch(c(0), (), "k", vec![Arg::buf(s)], Shape::linear(1, 1));
    });
    assert!(e.to_string().ends_with("slot `s` is a scalar slot, used as a buffer slot"), "{e}");
    let e = wrong(&|g, _, s, _| {
        let shape = Shape { grid: [Dim::Slot(s), Dim::Fixed(1), Dim::Fixed(1)], block: [1; 3] };
        g.launch(c(0), (), "k", vec![], shape);
    });
    assert!(e.to_string().ends_with("slot `s` is a scalar slot, used as a launch-size slot"), "{e}");
    let e = wrong(&|g, _, _, n| {
        g.copy(x(0), Range::new(n, 0, 4), Range::new(n, 0, 4));
    });
    assert!(e.to_string().ends_with("slot `n` is a launch-size slot, used as a buffer slot"), "{e}");
    let e = wrong(&|g, _, _, _| {
        g.launch(c(0), (), "k", vec![Arg::ScalarSlot(SlotId(9))], Shape::linear(1, 1));
    });
    assert!(matches!(e, GraphError::UnknownSlot { slot: 9, .. }), "{e}");
}

#[test]
fn a_scalar_slot_of_three_bytes() {
    let mut g = GraphBuilder::new();
    let s = g.scalar_slot("odd", 3);
    g.launch(c(0), (), "k", vec![Arg::ScalarSlot(s)], Shape::linear(1, 1));
    assert_eq!(err(g, &two()), GraphError::ScalarSize { slot: "odd".into(), bytes: 3 });
}

#[test]
fn a_queue_or_device_the_graph_does_not_have() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    g.copy(x(0), Range::new(b, 0, 4), Range::new(b, 8, 4));
    let no_copy = [DeviceCaps { compute: true, copy: false }];
    assert_eq!(
        err(g.clone(), &no_copy).to_string(),
        "node 0 (copy on device 0 copy queue): the device has no copy queue"
    );
    let mut g = GraphBuilder::new();
    g.launch(c(2), (), "k", vec![], Shape::linear(1, 1));
    assert!(matches!(err(g, &two()), GraphError::NoDevice { devices: 2, .. }));
}

#[test]
fn a_kernel_on_a_copy_queue_and_a_copy_on_a_compute_queue() {
    let mut g = GraphBuilder::new();
    g.launch(x(0), (), "k", vec![], Shape::linear(1, 1));
    assert!(matches!(err(g, &two()), GraphError::WrongQueue { .. }));
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    g.copy(c(0), Range::new(b, 0, 4), Range::new(b, 8, 4));
    assert!(matches!(err(g, &two()), GraphError::WrongQueue { .. }));
}

#[test]
fn ranges_past_the_end_and_mismatched_copies() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    k(&mut g, c(0), &[Range::new(b, 60, 8)], &[]);
    assert_eq!(
        err(g, &two()).to_string(),
        "node 0 (kernel `k` on device 0 compute queue): slot `b` bytes 60..68 pass its end (64 bytes)"
    );
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    g.launch(c(0), (), "k", vec![Arg::buf_at(b, 65)], Shape::linear(1, 1));
    assert!(matches!(err(g, &two()), GraphError::OutOfBounds { .. }));
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    g.copy(x(0), Range::new(b, 0, 4), Range::new(b, 8, 8));
    assert!(matches!(err(g, &two()), GraphError::CopySize { dst: 4, src: 8, .. }));
}

#[test]
fn an_external_signal_the_graph_does_not_have() {
    let mut g = GraphBuilder::new();
    g.wait_external(c(0), ExternalId(0), 1, vec![]);
    assert!(matches!(err(g, &two()), GraphError::UnknownExternal { signal: 0, .. }));
}

#[test]
fn a_wait_only_an_out_of_order_release_could_satisfy_is_a_cycle() {
    // The first signal of e (value 1) needs the wait. A later one (value 2, another queue) could
    // satisfy it only by landing first and then being overwritten with 1: releases of one
    // external signal are ordered in program order, so the wait can never go on.
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    let e = g.external("e");
    g.wait_external(c(0), e, 1, vec![]);
    k(&mut g, c(0), &[], &[Range::new(b, 0, 64)]);
    g.signal_external(x(0), e, 1, vec![Range::new(b, 0, 64)]);
    g.signal_external(c(1), e, 2, vec![]);
    assert!(matches!(err(g, &two()), GraphError::Cycle { .. }));
}
