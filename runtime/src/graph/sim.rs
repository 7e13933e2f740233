//! A simulated scheduler for plans (tests only): every queue runs its steps in order, a run's
//! inputs are read when it starts and its outputs written when it finishes (so overlapping
//! runs race), a barrier or a signal waits until the queue's runs finished, a wait blocks until
//! its value is reached; which queue moves and which run finishes next is chosen by the seed.

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
    let mut flight: Vec<Vec<Vec<Write>>> = vec![Vec::new(); nq];
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
    let mut moves = Vec::new();
    loop {
        moves.clear();
        for q in 0..nq {
            moves.extend((0..flight[q].len()).map(|r| (q, Some(r))));
            let Some(step) = plan.queues[q].steps.get(next[q]) else { continue };
            let idle = flight[q].is_empty();
            let ready = match *step {
                Step::Run(_) => true,
                Step::Barrier | Step::Signal(_) | Step::SignalExternal { .. } => idle,
                Step::Wait(sp) => sig[sp.signal] >= sp.value,
                Step::WaitExternal { signal, value, .. } => ext[signal.0] >= value,
            };
            if ready {
                moves.push((q, None));
            }
        }
        if moves.is_empty() {
            return match next.iter().zip(&plan.queues).all(|(&n, q)| n == q.steps.len()) {
                true => Ok(mem),
                false => Err(format!("deadlock at steps {next:?}")),
            };
        }
        match moves[rng.index(moves.len())] {
            (q, Some(r)) => {
                let w = flight[q].swap_remove(r);
                mem.apply(&w);
            }
            (q, None) => {
                match plan.queues[q].steps[next[q]] {
                    Step::Run(n) => flight[q].push(effects(g, n, &mem, bind, kernel)),
                    Step::Signal(sp) => sig[sp.signal] = sig[sp.signal].max(sp.value),
                    Step::SignalExternal { signal, value, .. } => ext[signal.0] = ext[signal.0].max(value),
                    Step::Barrier | Step::Wait(_) | Step::WaitExternal { .. } => {}
                }
                next[q] += 1;
            }
        }
    }
}
