//! The order the graph's nodes can run in: data dependencies, the program order of each
//! in-order queue, and external waits on values the same graph signals. A cycle among these is
//! a graph that would hang, so it is a compile error.

use super::builder::Graph;
use super::deps::Dep;
use super::error::GraphError;
use super::node::{NodeId, NodeKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// For each external wait the graph itself satisfies: (the signalling node, the waiting node).
/// A wait is matched to the first node in program order that signals its signal with a value
/// at least the one waited for; a wait no node satisfies is the host's (or another graph's).
pub fn external_edges<P>(g: &Graph<P>) -> Vec<(NodeId, NodeId)> {
    let mut edges = Vec::new();
    for (w, node) in g.nodes.iter().enumerate() {
        let NodeKind::WaitExternal { signal, value } = node.kind else { continue };
        let first = g.nodes.iter().position(
            |n| matches!(n.kind, NodeKind::SignalExternal { signal: s, value: v } if s == signal && v >= value),
        );
        if let Some(s) = first {
            edges.push((NodeId(s), NodeId(w)));
        }
    }
    edges
}

/// Every "runs before" edge between nodes.
fn all_edges<P>(g: &Graph<P>, deps: &[Dep]) -> Vec<(NodeId, NodeId)> {
    let mut edges: Vec<_> = deps.iter().map(|d| (d.from, d.to)).collect();
    let mut last_on = std::collections::HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if let Some(prev) = last_on.insert(n.at, i) {
            edges.push((NodeId(prev), NodeId(i)));
        }
    }
    edges.extend(external_edges(g));
    edges
}

/// A topological order (smallest index first among the ready nodes), or the cycle.
pub fn order<P>(g: &Graph<P>, deps: &[Dep]) -> Result<Vec<NodeId>, GraphError> {
    let n = g.nodes.len();
    let mut succ = vec![Vec::new(); n];
    let mut pred = vec![Vec::new(); n];
    for (a, b) in all_edges(g, deps) {
        succ[a.0].push(b.0);
        pred[b.0].push(a.0);
    }
    let mut indeg: Vec<usize> = pred.iter().map(Vec::len).collect();
    let mut ready: BinaryHeap<_> = (0..n).filter(|&i| indeg[i] == 0).map(Reverse).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        out.push(NodeId(i));
        for &s in &succ[i] {
            indeg[s] -= 1;
            if indeg[s] == 0 {
                ready.push(Reverse(s));
            }
        }
    }
    if out.len() == n {
        return Ok(out);
    }
    // Every node left has a predecessor left: walk predecessors until one repeats.
    let mut seen = vec![usize::MAX; n];
    let mut path = Vec::new();
    let mut at = (0..n).find(|&i| indeg[i] > 0).expect("a node is left");
    while seen[at] == usize::MAX {
        seen[at] = path.len();
        path.push(at);
        at = *pred[at].iter().find(|&&p| indeg[p] > 0).expect("a node left has a predecessor left");
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
