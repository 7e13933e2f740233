//! The order the graph's nodes can run in: data dependencies, the program order of each
//! in-order queue, and external waits on values the same graph signals. A graph where some
//! node can never run is a graph that would hang, so it is a compile error.
//!
//! A wait on an external signal the graph signals (with a value at least the one waited for)
//! goes on once ANY such signal ran; a wait no node satisfies is the host's (or another
//! graph's). So runnability is a fixpoint: a node runs once its predecessors ran and, for such
//! a wait, one of its signals ran.

use super::builder::Graph;
use super::deps::Dep;
use super::error::GraphError;
use super::node::{NodeId, NodeKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// For each node, the graph's signal nodes that satisfy it (empty unless it is an external
/// wait the graph itself satisfies).
fn satisfiers<P>(g: &Graph<P>) -> Vec<Vec<usize>> {
    g.nodes
        .iter()
        .map(|node| {
            let NodeKind::WaitExternal { signal, value } = node.kind else { return Vec::new() };
            let satisfies = |n: &super::node::Node<P>| {
                matches!(n.kind, NodeKind::SignalExternal { signal: s, value: v } if s == signal && v >= value)
            };
            (0..g.nodes.len()).filter(|&s| satisfies(&g.nodes[s])).collect()
        })
        .collect()
}

/// Each node's predecessors by data dependency and queue order.
fn predecessors<P>(g: &Graph<P>, deps: &[Dep]) -> Vec<Vec<usize>> {
    let mut pred = vec![Vec::new(); g.nodes.len()];
    for d in deps {
        pred[d.to.0].push(d.from.0);
    }
    let mut last_on = std::collections::HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if let Some(prev) = last_on.insert(n.at, i) {
            pred[i].push(prev);
        }
    }
    pred
}

/// An order the nodes can run in (the earliest runnable node first), or a cycle of nodes that
/// wait for each other.
pub fn order<P>(g: &Graph<P>, deps: &[Dep]) -> Result<Vec<NodeId>, GraphError> {
    let n = g.nodes.len();
    let (pred, sat) = (predecessors(g, deps), satisfiers(g));
    let mut succ = vec![Vec::new(); n];
    for (i, ps) in pred.iter().enumerate() {
        ps.iter().for_each(|&p| succ[p].push(i));
    }
    let mut freed_by = vec![Vec::new(); n];
    for (w, ss) in sat.iter().enumerate() {
        ss.iter().for_each(|&s| freed_by[s].push(w));
    }
    // Blocked on: unfinished predecessors, plus one while a wait's signals have all not run.
    let mut blocked: Vec<usize> = (0..n).map(|i| pred[i].len() + usize::from(!sat[i].is_empty())).collect();
    let mut ready: BinaryHeap<Reverse<usize>> = (0..n).filter(|&i| blocked[i] == 0).map(Reverse).collect();
    let mut done = vec![false; n];
    let mut out = Vec::with_capacity(n);
    let unblock = |i: usize, blocked: &mut Vec<usize>, ready: &mut BinaryHeap<Reverse<usize>>| {
        blocked[i] -= 1;
        if blocked[i] == 0 {
            ready.push(Reverse(i));
        }
    };
    while let Some(Reverse(i)) = ready.pop() {
        done[i] = true;
        out.push(NodeId(i));
        for &s in &succ[i] {
            unblock(s, &mut blocked, &mut ready);
        }
        // The first of a wait's signals to run frees it.
        for &w in &freed_by[i] {
            if sat[w].iter().filter(|&&s| done[s]).count() == 1 {
                unblock(w, &mut blocked, &mut ready);
            }
        }
    }
    if out.len() == n {
        return Ok(out);
    }
    // Every stuck node waits for a stuck node: a predecessor, or (all its signals being stuck)
    // its first signal. Follow those until one repeats.
    let blocker = |i: usize| {
        pred[i].iter().chain(&sat[i]).copied().find(|&p| !done[p]).expect("a stuck node waits for a stuck node")
    };
    let mut seen = vec![usize::MAX; n];
    let mut path = Vec::new();
    let mut at = (0..n).find(|&i| !done[i]).expect("a node is stuck");
    while seen[at] == usize::MAX {
        seen[at] = path.len();
        path.push(at);
        at = blocker(at);
    }
    let mut cycle: Vec<usize> = path[seen[at]..].to_vec();
    cycle.reverse();
    // Start at the earliest node, so a cycle is always told the same way.
    let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).expect("a cycle has nodes");
    cycle.rotate_left(first);
    cycle.push(cycle[0]);
    let path = cycle.iter().map(|&i| g.describe(NodeId(i))).collect::<Vec<_>>().join(" -> ");
    Err(GraphError::Cycle { path })
}
