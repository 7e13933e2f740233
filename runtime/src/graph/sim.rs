//! A simulated scheduler for plans (tests only): every queue runs its steps in order, a run's
//! inputs are read when it starts and its outputs written when it finishes (so overlapping
//! runs race), a barrier holds the queue until its runs finished, a signal is released once the
//! runs issued before it finished and after the queue's earlier releases (without holding the
//! queue), a wait holds the queue until its
//! value is reached; which queue moves, which run finishes and which release lands next is
//! chosen by the seed.

use super::builder::Graph;
use super::model::{effects, Bindings, KernelFn, Memory, Write};
use super::node::NodeKind;
use super::plan::{Plan, Step};
use super::rng::Rng;

/// The memory after running `plan` in one random interleaving, or why it stopped.
pub fn simulate<P>(
    g: &Graph<P>,
    plan: &Plan,
    init: &Memory,
    bind: &Bindings,
    kernel: &KernelFn<P>,
    rng: &mut Rng,
) -> Result<Memory, String> {
    let mut mem = init.clone();
    let nq = plan.queues.len();
    let mut next = vec![0usize; nq];
    let mut sig = vec![0u64; plan.signals.len()];
    // External waits nothing in the graph satisfies are the host's: satisfied from the start.
    let mut ext = vec![0u64; g.externals.len()];
    for n in &g.nodes {
        if let NodeKind::WaitExternal { signal, value } = n.kind {
            let ours = g.nodes.iter().any(
                |m| matches!(m.kind, NodeKind::SignalExternal { signal: s, value: v } if s == signal && v >= value),
            );
            if !ours {
                ext[signal.0] = ext[signal.0].max(value);
            }
        }
    }
    // In-flight runs (issue number, writes) and issued releases waiting for the runs before them.
    let mut flight: Vec<Vec<(usize, Vec<Write>)>> = vec![Vec::new(); nq];
    let mut pending: Vec<Vec<(usize, Release)>> = vec![Vec::new(); nq];
    let mut issued = vec![0usize; nq];
    let mut moves = Vec::new();
    loop {
        moves.clear();
        for q in 0..nq {
            moves.extend((0..flight[q].len()).map(|r| Move::Complete(q, r)));
            // Releases land in order (end-of-pipe events), each after the runs issued before it.
            if let Some((mark, _)) = pending[q].first() {
                if flight[q].iter().all(|(seq, _)| seq >= mark) {
                    moves.push(Move::Release(q));
                }
            }
            let Some(step) = plan.queues[q].steps.get(next[q]) else { continue };
            let ready = match *step {
                Step::Run(_) | Step::Signal(_) | Step::SignalExternal { .. } => true,
                Step::Barrier => flight[q].is_empty(),
                Step::Wait(sp) => sig[sp.signal] >= sp.value,
                Step::WaitExternal { signal, value, .. } => ext[signal.0] >= value,
            };
            if ready {
                moves.push(Move::Issue(q));
            }
        }
        if moves.is_empty() {
            return match next.iter().zip(&plan.queues).all(|(&n, q)| n == q.steps.len()) {
                true => Ok(mem),
                false => Err(format!("deadlock at steps {next:?}")),
            };
        }
        match moves[rng.index(moves.len())] {
            Move::Complete(q, r) => {
                let (_, w) = flight[q].swap_remove(r);
                mem.apply(&w);
            }
            Move::Release(q) => match pending[q].remove(0).1 {
                Release::Graph(s, v) => sig[s] = sig[s].max(v),
                Release::External(s, v) => ext[s] = ext[s].max(v),
            },
            Move::Issue(q) => {
                match plan.queues[q].steps[next[q]] {
                    Step::Run(n) => flight[q].push((issued[q], effects(g, n, &mem, bind, kernel))),
                    Step::Signal(sp) => pending[q].push((issued[q], Release::Graph(sp.signal, sp.value))),
                    Step::SignalExternal { signal, value, .. } => {
                        pending[q].push((issued[q], Release::External(signal.0, value)))
                    }
                    Step::Barrier | Step::Wait(_) | Step::WaitExternal { .. } => {}
                }
                issued[q] += 1;
                next[q] += 1;
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Move {
    /// Run `r` in flight on queue `q` finishes (its writes land).
    Complete(usize, usize),
    /// The oldest pending release of queue `q` happens.
    Release(usize),
    /// Queue `q` issues its next step.
    Issue(usize),
}

#[derive(Debug, Clone, Copy)]
enum Release {
    Graph(usize, u64),
    External(usize, u64),
}

/// The first dependency the plan's steps do not order, checked without running anything: an
/// event graph of node starts and ends, barrier and signal points, where a queue issues each
/// step after the previous one, a run ends after it starts, a barrier or signal comes after
/// the ends of the queue's earlier runs, and a wait lets its queue go on after the signal.
/// External signals order nothing here (their value is the caller's).
pub fn unordered(plan: &Plan, nodes: usize) -> Option<super::deps::Dep> {
    // Events: 0..nodes starts, nodes..2*nodes ends, then one per barrier/signal/wait step.
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); 2 * nodes];
    let mut signal_event = std::collections::HashMap::new();
    let mut waits = Vec::new();
    let new_event = |succ: &mut Vec<Vec<usize>>| {
        succ.push(Vec::new());
        succ.len() - 1
    };
    for q in &plan.queues {
        let mut issue: Option<usize> = None;
        let mut release: Option<usize> = None;
        let mut runs = Vec::new();
        for step in &q.steps {
            let ev = match *step {
                Step::Run(n) => {
                    succ[n.0].push(nodes + n.0);
                    runs.push(nodes + n.0);
                    n.0
                }
                Step::Barrier | Step::Signal(_) | Step::SignalExternal { .. } => {
                    let e = match *step {
                        Step::SignalExternal { node, .. } => node.0,
                        _ => new_event(&mut succ),
                    };
                    runs.iter().for_each(|&r| succ[r].push(e));
                    // Releases of one queue land in order.
                    if let Some(r) = release {
                        succ[r].push(e);
                    }
                    if !matches!(step, Step::Barrier) {
                        release = Some(e);
                    }
                    if let Step::Signal(sp) = step {
                        signal_event.insert((sp.signal, sp.value), e);
                    }
                    e
                }
                Step::Wait(sp) => {
                    let e = new_event(&mut succ);
                    waits.push((sp, e));
                    e
                }
                Step::WaitExternal { node, .. } => node.0,
            };
            if let Some(i) = issue {
                succ[i].push(ev);
            }
            // A release does not hold the queue: later steps only follow its issue.
            if !matches!(step, Step::Signal(_) | Step::SignalExternal { .. }) {
                issue = Some(ev);
            }
        }
    }
    for (sp, e) in waits {
        // A wait for v goes on at the first release of its signal with a value >= v: releases
        // of one queue land in order and their values grow, so the one with the least value.
        let first =
            signal_event.iter().filter(|(&(s, v), _)| s == sp.signal && v >= sp.value).min_by_key(|(&(_, v), _)| v);
        if let Some((_, &from)) = first {
            succ[from].push(e);
        }
    }
    let reaches = |from: usize, to: usize| {
        let mut seen = vec![false; succ.len()];
        let mut stack = vec![from];
        while let Some(e) = stack.pop() {
            if e == to {
                return true;
            }
            for &s in &succ[e] {
                if !std::mem::replace(&mut seen[s], true) {
                    stack.push(s);
                }
            }
        }
        false
    };
    // Non-run nodes (external waits and signals) have no end event of their own: use the node's
    // step event for both.
    let end = |n: usize| {
        let is_run = plan.queues.iter().any(|q| q.steps.contains(&Step::Run(super::node::NodeId(n))));
        if is_run {
            nodes + n
        } else {
            n
        }
    };
    plan.deps.iter().map(|d| d.dep).find(|d| !reaches(end(d.from.0), d.to.0))
}
