//! Hand-written plans: each hazard kind, what needs no sync, barriers, waits, chains.

use super::*;

fn steps(p: &Plan, at: QueueKey) -> Vec<Step> {
    p.queue(at).expect("the queue is used").steps.clone()
}

fn dep(p: &Plan, from: usize, to: usize) -> Option<PlannedDep> {
    p.deps.iter().find(|d| d.dep.from == NodeId(from) && d.dep.to == NodeId(to)).copied()
}

fn sp(signal: usize, value: u64) -> SyncPoint {
    SyncPoint { signal, value }
}

fn hz(raw: bool, war: bool, waw: bool) -> Hazards {
    Hazards { raw, war, waw }
}

#[test]
fn raw_on_one_queue_is_a_barrier() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    k(&mut g, c(0), &[], &[Range::new(b, 0, 16)]);
    k(&mut g, c(0), &[Range::new(b, 12, 4)], &[]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(dep(&p, 0, 1).unwrap().dep.hazards, hz(true, false, false));
    assert_eq!(dep(&p, 0, 1).unwrap().kept, Kept::Barrier);
    assert_eq!(steps(&p, c(0)), vec![Step::Run(NodeId(0)), Step::Barrier, Step::Run(NodeId(1))]);
    assert!(p.signals.is_empty());
}

#[test]
fn war_and_waw_are_found_alone() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    k(&mut g, c(0), &[Range::new(b, 0, 8)], &[]); // 0 reads 0..8
    k(&mut g, c(0), &[], &[Range::new(b, 4, 4)]); // 1 writes 4..8: WAR on 0
    k(&mut g, c(0), &[], &[Range::new(b, 4, 8)]); // 2 writes 4..12: WAW on 1, WAR on 0
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(dep(&p, 0, 1).unwrap().dep.hazards, hz(false, true, false));
    assert_eq!(dep(&p, 1, 2).unwrap().dep.hazards, hz(false, false, true));
    assert_eq!(dep(&p, 0, 2).unwrap().dep.hazards, hz(false, true, false));
    // 1's barrier already orders 0 before 2; 2 needs its own for 1.
    assert_eq!(dep(&p, 0, 2).unwrap().kept, Kept::Implied);
    assert_eq!(p.count(|s| *s == Step::Barrier), 2);
}

#[test]
fn reads_disjoint_ranges_and_other_buffers_need_nothing() {
    let mut g = GraphBuilder::new();
    let (a, b) = (g.buffer_slot("a", Home::Device(0), 64), g.buffer_slot("b", Home::Device(0), 64));
    k(&mut g, c(0), &[Range::new(a, 0, 64)], &[Range::new(a, 0, 16)]);
    k(&mut g, c(0), &[Range::new(a, 16, 48)], &[Range::new(a, 16, 4)]); // touches 0's write range's end
    k(&mut g, c(0), &[Range::new(b, 0, 64)], &[Range::new(b, 0, 64)]);
    k(&mut g, c(0), &[Range::new(a, 32, 8)], &[Range::new(a, 60, 0)]); // empty write
    let p = compile(&g.build(), &two()).unwrap();
    // 1 writes a[16..20] which 0 read: WAR; nothing else conflicts (read-read, adjacent, empty).
    let found: Vec<_> = p.deps.iter().map(|d| (d.dep.from.0, d.dep.to.0)).collect();
    assert_eq!(found, vec![(0, 1)]);
    assert_eq!(dep(&p, 0, 1).unwrap().dep.hazards, hz(false, true, false));
}

#[test]
fn fixed_buffers_conflict_by_address_within_their_home() {
    let mut g = GraphBuilder::new();
    let whole = FixedBuffer { home: Home::Device(0), va: 0x1000, bytes: 256 };
    let part = FixedBuffer { home: Home::Device(0), va: 0x1080, bytes: 16 };
    let elsewhere = FixedBuffer { home: Home::Host, va: 0x1080, bytes: 16 };
    k(&mut g, c(0), &[], &[Range::new(whole, 0x80, 4)]);
    k(&mut g, c(0), &[Range::new(part, 0, 4)], &[]);
    k(&mut g, c(0), &[Range::new(elsewhere, 0, 4)], &[]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(dep(&p, 0, 1).unwrap().dep.hazards, hz(true, false, false));
    assert!(dep(&p, 0, 2).is_none(), "host memory is another address space");
}

#[test]
fn cross_queue_raw_is_a_signal_and_a_wait() {
    let mut g = GraphBuilder::new();
    let (a, b) = (g.buffer_slot("a", Home::Device(0), 64), g.buffer_slot("b", Home::Device(0), 64));
    k(&mut g, c(0), &[], &[Range::new(a, 0, 64)]);
    g.copy(x(0), Range::new(b, 0, 64), Range::new(a, 0, 64));
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(steps(&p, c(0)), vec![Step::Run(NodeId(0)), Step::Signal(sp(0, 1))]);
    assert_eq!(steps(&p, x(0)), vec![Step::Wait(sp(0, 1)), Step::Run(NodeId(1))]);
    assert_eq!(p.signals, vec![GraphSignal { owner: c(0), waiters: vec![x(0)], last: 1 }]);
    assert_eq!(dep(&p, 0, 1).unwrap().kept, Kept::Wait(sp(0, 1)));
}

/// A on compute; B on copy and C on compute both read A's output; D reads both.
#[test]
fn a_diamond_across_two_queues_has_one_wait_per_cross_queue_edge() {
    let mut g = GraphBuilder::new();
    let [a, b, cc, d] = ["a", "b", "c", "d"].map(|n| g.buffer_slot(n, Home::Device(0), 64));
    let all = |s| Range::new(s, 0, 64);
    k(&mut g, c(0), &[], &[all(a)]);
    g.copy(x(0), all(b), all(a));
    k(&mut g, c(0), &[all(a)], &[all(cc)]);
    k(&mut g, c(0), &[all(b), all(cc)], &[all(d)]);
    let p = compile(&g.build(), &two()).unwrap();
    let cross: Vec<_> = [(0, 1), (1, 3)].iter().map(|&(f, t)| dep(&p, f, t).unwrap().kept).collect();
    assert_eq!(cross, vec![Kept::Wait(sp(0, 1)), Kept::Wait(sp(1, 1))]);
    assert_eq!(p.count(|s| matches!(s, Step::Wait(_))), 2);
    assert_eq!(p.count(|s| matches!(s, Step::Signal(_))), 2);
    assert_eq!(
        steps(&p, c(0)),
        vec![
            Step::Run(NodeId(0)),
            Step::Signal(sp(0, 1)),
            Step::Barrier,
            Step::Run(NodeId(2)),
            Step::Wait(sp(1, 1)),
            Step::Barrier,
            Step::Run(NodeId(3)),
        ]
    );
    assert_eq!(steps(&p, x(0)), vec![Step::Wait(sp(0, 1)), Step::Run(NodeId(1)), Step::Signal(sp(1, 1))]);
}

#[test]
fn an_edge_implied_through_another_queue_needs_no_barrier() {
    // A (compute) -> B (copy) -> C (compute), and A -> C directly: C's wait on B covers A.
    let mut g = GraphBuilder::new();
    let (a, b, o) = (
        g.buffer_slot("a", Home::Device(0), 64),
        g.buffer_slot("b", Home::Device(0), 64),
        g.buffer_slot("o", Home::Device(0), 64),
    );
    k(&mut g, c(0), &[], &[Range::new(a, 0, 64)]);
    g.copy(x(0), Range::new(b, 0, 64), Range::new(a, 0, 64));
    k(&mut g, c(0), &[Range::new(a, 0, 64), Range::new(b, 0, 64)], &[Range::new(o, 0, 64)]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(dep(&p, 0, 2).unwrap().kept, Kept::Implied);
    assert_eq!(dep(&p, 1, 2).unwrap().kept, Kept::Wait(sp(1, 1)));
    assert_eq!(p.count(|s| *s == Step::Barrier), 0);
}

#[test]
fn one_wait_covers_earlier_nodes_of_the_same_producer() {
    // Two compute nodes write a and b; a copy reads both, then a second copy reads a again.
    let mut g = GraphBuilder::new();
    let [a, b, o1, o2] = ["a", "b", "o1", "o2"].map(|n| g.buffer_slot(n, Home::Device(0), 64));
    k(&mut g, c(0), &[], &[Range::new(a, 0, 64)]);
    k(&mut g, c(0), &[], &[Range::new(b, 0, 64)]);
    g.copy(x(0), Range::new(o1, 0, 32), Range::new(b, 0, 32));
    g.copy(x(0), Range::new(o2, 0, 32), Range::new(a, 0, 32));
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(steps(&p, x(0)), vec![Step::Wait(sp(0, 2)), Step::Run(NodeId(2)), Step::Run(NodeId(3))]);
    assert_eq!(dep(&p, 0, 3).unwrap().kept, Kept::Implied);
    // Only the sync point someone waits for is released.
    assert_eq!(steps(&p, c(0)), vec![Step::Run(NodeId(0)), Step::Run(NodeId(1)), Step::Signal(sp(0, 2))]);
}

#[test]
fn across_devices_through_host_memory() {
    let mut g = GraphBuilder::new();
    let h = g.buffer_slot("h", Home::Host, 64);
    let d1 = g.buffer_slot("d1", Home::Device(1), 64);
    k(&mut g, c(0), &[], &[Range::new(h, 0, 64)]);
    g.copy(x(1), Range::new(d1, 0, 64), Range::new(h, 0, 64));
    k(&mut g, c(1), &[Range::new(d1, 0, 64)], &[Range::new(d1, 0, 64)]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(p.signals[0], GraphSignal { owner: c(0), waiters: vec![x(1)], last: 1 });
    assert_eq!(p.signals[1], GraphSignal { owner: x(1), waiters: vec![c(1)], last: 1 });
    assert_eq!(steps(&p, c(1)), vec![Step::Wait(sp(1, 1)), Step::Run(NodeId(2))]);
    assert_eq!(p.queues.iter().map(|q| q.at).collect::<Vec<_>>(), vec![c(0), c(1), x(1)]);
}

#[test]
fn a_device_to_device_copy_may_reach_one_peer() {
    let mut g = GraphBuilder::new();
    let (a, b) = (g.buffer_slot("a", Home::Device(0), 64), g.buffer_slot("b", Home::Device(1), 64));
    g.copy(x(0), Range::new(b, 0, 64), Range::new(a, 0, 64));
    k(&mut g, c(1), &[Range::new(b, 0, 64)], &[]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(dep(&p, 0, 1).unwrap().kept, Kept::Wait(sp(0, 1)));
}

#[test]
fn default_ranges_are_the_buffer_from_the_argument_offset() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    g.launch(c(0), (), "k", vec![Arg::buf_at(b, 8), Arg::u32(1)], Shape::linear(1, 64));
    k(&mut g, c(0), &[], &[Range::new(b, 0, 8)]);
    k(&mut g, c(0), &[], &[Range::new(b, 60, 4)]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(p.access[0].reads, vec![Range::new(b, 8, 56)]);
    assert_eq!(p.access[0].writes, vec![Range::new(b, 8, 56)]);
    assert!(dep(&p, 0, 1).is_none());
    assert_eq!(dep(&p, 0, 2).unwrap().dep.hazards, hz(false, true, true));
}

#[test]
fn external_waits_and_signals_are_steps_with_their_ranges() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    let (e, done) = (g.external("filled"), g.external("done"));
    g.wait_external(x(0), e, 5, vec![Range::new(b, 0, 64)]); // the producer filled b
    k(&mut g, c(0), &[Range::new(b, 0, 64)], &[Range::new(b, 0, 64)]);
    g.signal_external(x(0), done, 6, vec![Range::new(b, 0, 64)]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(
        steps(&p, x(0)),
        vec![
            Step::WaitExternal { node: NodeId(0), signal: e, value: 5 },
            Step::Signal(sp(0, 1)),
            Step::Wait(sp(1, 1)),
            Step::SignalExternal { node: NodeId(2), signal: done, value: 6 },
        ]
    );
    assert_eq!(steps(&p, c(0)), vec![Step::Wait(sp(0, 1)), Step::Run(NodeId(1)), Step::Signal(sp(1, 1))]);
}

/// Releases of one external signal on two queues are ordered (WAW) in program order: unordered,
/// the copy queue's 1 could land after the compute queue's 2 and a wait for 2 would hang (seen
/// in the random-graph test on the emulated gfx1100).
#[test]
fn signals_of_one_external_signal_on_two_queues_are_ordered() {
    let mut g = GraphBuilder::<()>::new();
    let e = g.external("e");
    g.signal_external(x(0), e, 1, vec![]);
    g.signal_external(c(0), e, 2, vec![]);
    g.wait_external(c(1), e, 2, vec![]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(dep(&p, 0, 1).unwrap().dep.hazards, hz(false, false, true));
    assert!(matches!(dep(&p, 0, 1).unwrap().kept, Kept::Wait(_)), "{:?}", p.deps);
    assert_eq!(steps(&p, c(0))[0], Step::Wait(sp(0, 1)));
}

#[test]
fn a_wait_before_the_signal_it_needs_is_fine_without_a_dependency() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    let e = g.external("e");
    g.wait_external(c(0), e, 1, vec![]);
    k(&mut g, c(0), &[], &[Range::new(b, 0, 64)]);
    g.signal_external(x(0), e, 1, vec![]);
    let p = compile(&g.build(), &two()).unwrap();
    assert_eq!(p.order, vec![NodeId(2), NodeId(0), NodeId(1)]);
}

#[test]
fn feeds_name_the_slot_of_every_per_run_site() {
    let mut g = GraphBuilder::new();
    let b = g.buffer_slot("b", Home::Device(0), 64);
    let h = g.buffer_slot("h", Home::Host, 64);
    let s = g.scalar_slot("s", 8);
    let n = g.size_slot("n");
    let f = FixedBuffer { home: Home::Device(0), va: 0x4000, bytes: 64 };
    let shape = Shape { grid: [Dim::Fixed(1), Dim::Slot(n), Dim::Fixed(1)], block: [64, 1, 1] };
    g.launch(c(0), (), "k", vec![Arg::buf(f), Arg::buf_at(b, 16), Arg::ScalarSlot(s), Arg::u32(3)], shape);
    g.copy(x(0), Range::new(h, 4, 8), Range::new(f, 0, 8));
    let p = compile(&g.build(), &two()).unwrap();
    let (n0, n1) = (NodeId(0), NodeId(1));
    assert_eq!(
        p.feeds,
        vec![
            Feed { node: n0, site: Site::Arg(1), slot: b, offset: 16 },
            Feed { node: n0, site: Site::Arg(2), slot: s, offset: 0 },
            Feed { node: n0, site: Site::GridDim(1), slot: n, offset: 0 },
            Feed { node: n1, site: Site::CopyDst, slot: h, offset: 4 },
        ]
    );
}

#[test]
fn copies_are_classified_for_the_lowering() {
    let mut g = GraphBuilder::<()>::new();
    let (a, b) = (g.buffer_slot("a", Home::Device(0), 64), g.buffer_slot("b", Home::Device(0), 64));
    let (h, p) = (g.buffer_slot("h", Home::Host, 64), g.buffer_slot("p", Home::Device(1), 64));
    let all = |s| Range::new(s, 0, 64);
    g.copy(x(0), all(b), all(a));
    g.copy(x(0), all(h), all(a));
    g.copy(x(0), all(a), all(h));
    g.copy(x(0), all(p), all(a));
    g.copy(x(0), all(a), all(p));
    g.copy(x(1), all(h), all(p));
    let g = g.build();
    compile(&g, &two()).unwrap();
    let kinds: Vec<_> = (0..6).map(|i| copy_kind(&g, NodeId(i)).unwrap()).collect();
    use CopyKind::*;
    assert_eq!(kinds, vec![SameDevice, Host, Host, ToPeer(1), FromPeer(1), Host]);
}
