//! Compile, the pure part: a checked graph becomes a [`Plan`], per (device, queue) the ordered
//! steps a lowering pass encodes into one command buffer.
//!
//! Each queue is in order but lets consecutive launches overlap, so a dependency between two
//! nodes of one queue is a [`Step::Barrier`] (no semaphore), and one between queues or devices
//! is a [`Step::Signal`] on the producer's queue paired with a [`Step::Wait`] on the
//! consumer's. A dependency already implied (by an earlier barrier or wait of the consumer's
//! queue, through any chain of them) gets nothing: each queue tracks, per queue, the last
//! position whose completion is guaranteed before its next node starts (a vector clock).

use super::builder::Graph;
use super::check::{check, DeviceCaps};
use super::deps::{dependencies, order_external_signals, Dep};
use super::error::GraphError;
use super::node::{Access, Arg, Dim, NodeId, NodeKind, QueueKey};
use super::order::order;
use super::slot::{BufRef, ExternalId, SlotId};

/// A value of a graph-owned signal: `value` is 1 + the position (on the owning queue) of the
/// last node it covers, so values grow along a queue and a wait is `signal >= value`. The
/// lowering adds a per-run base so that runs never see each other's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncPoint {
    /// Index into [`Plan::signals`].
    pub signal: usize,
    pub value: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Start a kernel or a copy node.
    Run(NodeId),
    /// Earlier nodes of this queue finished and their writes visible before later ones start.
    Barrier,
    /// Stall until the sync point is reached; the lowering follows it with an acquire so the
    /// producer's writes are visible.
    Wait(SyncPoint),
    /// After everything before it on this queue finished, release the sync point, without
    /// holding the queue. The plan relies on a queue's releases landing in order (end-of-pipe
    /// events do): a sync point vouches for everything before it on its queue.
    Signal(SyncPoint),
    WaitExternal {
        node: NodeId,
        signal: ExternalId,
        value: u64,
    },
    SignalExternal {
        node: NodeId,
        signal: ExternalId,
        value: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuePlan {
    pub at: QueueKey,
    pub steps: Vec<Step>,
}

/// A graph-owned signal: released by one queue, waited on by others (possibly of other
/// devices, so it must live in memory every waiter's device maps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphSignal {
    pub owner: QueueKey,
    pub waiters: Vec<QueueKey>,
    /// The highest value one run releases: the stride of the per-run base (values stay below
    /// 2^32 by rebasing when base + last would pass it).
    pub last: u64,
}

/// How a dependency is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    Barrier,
    Wait(SyncPoint),
    /// By other barriers and waits already on the consumer's queue.
    Implied,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedDep {
    pub dep: Dep,
    pub kept: Kept,
}

/// Where in a node a per-run value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// Explicit kernel argument `i` (a buffer address + offset, or a scalar).
    Arg(usize),
    /// Workgroup count of dimension `d` (dispatch words and the hidden block-count argument).
    GridDim(usize),
    CopyDst,
    CopySrc,
}

/// A slot feeding a site: the run's binding of `slot` (plus `offset` for buffers) is written
/// there. Every site without a feed is fixed at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Feed {
    pub node: NodeId,
    pub site: Site,
    pub slot: SlotId,
    pub offset: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// One per (device, queue) the graph uses, sorted by device then queue.
    pub queues: Vec<QueuePlan>,
    pub signals: Vec<GraphSignal>,
    /// Every dependency and how it is kept.
    pub deps: Vec<PlannedDep>,
    /// What each node reads and writes (stated or default).
    pub access: Vec<Access>,
    /// A topological order of the nodes (the host model runs them in it).
    pub order: Vec<NodeId>,
    pub feeds: Vec<Feed>,
}

impl Plan {
    pub fn queue(&self, at: QueueKey) -> Option<&QueuePlan> {
        self.queues.iter().find(|q| q.at == at)
    }

    /// Steps of every queue matching `f`.
    pub fn count(&self, f: impl Fn(&Step) -> bool) -> usize {
        self.queues.iter().flat_map(|q| &q.steps).filter(|s| f(s)).count()
    }
}

/// Check `g` against `devices` and plan it.
pub fn compile<P>(g: &Graph<P>, devices: &[DeviceCaps]) -> Result<Plan, GraphError> {
    let access = check(g, devices)?;
    let mut deps = dependencies(&access);
    order_external_signals(g, &mut deps);
    let order = order(g, &deps)?;
    Ok(plan(g, access, &deps, order))
}

/// The plan of a checked graph, cycles or not (tests plan refused graphs to show they hang).
pub(crate) fn plan<P>(g: &Graph<P>, access: Vec<Access>, deps: &[Dep], order: Vec<NodeId>) -> Plan {
    let mut b = Planner::new(g);
    let deps = b.keep(deps);
    Plan { queues: b.steps(g), signals: b.signals, deps, access, order, feeds: feeds(g) }
}

struct Planner {
    keys: Vec<QueueKey>,
    /// Queue index and position on it, per node.
    qpos: Vec<(usize, usize)>,
    /// known[q][p]: positions of queue p up to this one are finished before q's next start.
    known: Vec<Vec<i64>>,
    /// The consumer queue's knowledge when each node started.
    clock: Vec<Vec<i64>>,
    before: Vec<Vec<Step>>,
    signal_after: Vec<bool>,
    signal_of: Vec<Option<usize>>,
    signals: Vec<GraphSignal>,
}

impl Planner {
    fn new<P>(g: &Graph<P>) -> Self {
        let mut keys: Vec<QueueKey> = g.nodes.iter().map(|n| n.at).collect();
        keys.sort();
        keys.dedup();
        let mut count = vec![0; keys.len()];
        let qpos = g
            .nodes
            .iter()
            .map(|n| {
                let q = keys.binary_search(&n.at).expect("every node's queue is a key");
                count[q] += 1;
                (q, count[q] - 1)
            })
            .collect();
        let nq = keys.len();
        Planner {
            qpos,
            known: vec![vec![-1; nq]; nq],
            clock: vec![Vec::new(); g.nodes.len()],
            before: vec![Vec::new(); g.nodes.len()],
            signal_after: vec![false; g.nodes.len()],
            signal_of: vec![None; nq],
            signals: Vec::new(),
            keys,
        }
    }

    /// Decide, node by node in program order, how each dependency is kept.
    fn keep(&mut self, deps: &[Dep]) -> Vec<PlannedDep> {
        let mut kept = vec![Kept::Implied; deps.len()];
        let mut by_to: Vec<Vec<usize>> = vec![Vec::new(); self.qpos.len()];
        for (k, d) in deps.iter().enumerate() {
            by_to[d.to.0].push(k);
        }
        for (i, mine) in by_to.iter_mut().enumerate() {
            let q = self.qpos[i].0;
            // The latest producers first: their sync points imply the most.
            mine.sort_by_key(|&k| std::cmp::Reverse(deps[k].from));
            for &k in mine.iter() {
                if self.qpos[deps[k].from.0].0 != q {
                    kept[k] = self.cross(deps[k].from, i);
                }
            }
            let pending: Vec<usize> = mine
                .iter()
                .copied()
                .filter(|&k| {
                    let (p, pos) = self.qpos[deps[k].from.0];
                    p == q && self.known[q][q] < pos as i64
                })
                .collect();
            if !pending.is_empty() {
                self.before[i].push(Step::Barrier);
                self.known[q][q] = self.qpos[i].1 as i64 - 1;
                pending.iter().for_each(|&k| kept[k] = Kept::Barrier);
            }
            self.clock[i] = self.known[q].clone();
        }
        deps.iter().zip(kept).map(|(&dep, kept)| PlannedDep { dep, kept }).collect()
    }

    /// A dependency of node `to` on `from` of another queue.
    fn cross(&mut self, from: NodeId, to: usize) -> Kept {
        let (p, pos) = self.qpos[from.0];
        let q = self.qpos[to].0;
        if self.known[q][p] >= pos as i64 {
            return Kept::Implied;
        }
        let signal = *self.signal_of[p].get_or_insert_with(|| {
            self.signals.push(GraphSignal { owner: self.keys[p], waiters: Vec::new(), last: 0 });
            self.signals.len() - 1
        });
        if !self.signals[signal].waiters.contains(&self.keys[q]) {
            self.signals[signal].waiters.push(self.keys[q]);
        }
        self.signal_after[from.0] = true;
        let sync = SyncPoint { signal, value: pos as u64 + 1 };
        self.signals[signal].last = self.signals[signal].last.max(sync.value);
        self.before[to].push(Step::Wait(sync));
        // Once the producer's sync point is reached, so is everything it knew when it started.
        for (k, c) in self.clock[from.0].iter().enumerate() {
            self.known[q][k] = self.known[q][k].max(*c);
        }
        self.known[q][p] = self.known[q][p].max(pos as i64);
        Kept::Wait(sync)
    }

    fn steps<P>(&self, g: &Graph<P>) -> Vec<QueuePlan> {
        let mut queues: Vec<QueuePlan> = self.keys.iter().map(|&at| QueuePlan { at, steps: Vec::new() }).collect();
        for (i, n) in g.nodes.iter().enumerate() {
            let (q, pos) = self.qpos[i];
            let steps = &mut queues[q].steps;
            steps.extend_from_slice(&self.before[i]);
            let node = NodeId(i);
            steps.push(match n.kind {
                NodeKind::Kernel(_) | NodeKind::Copy { .. } => Step::Run(node),
                NodeKind::WaitExternal { signal, value } => Step::WaitExternal { node, signal, value },
                NodeKind::SignalExternal { signal, value } => Step::SignalExternal { node, signal, value },
            });
            if self.signal_after[i] {
                let signal = self.signal_of[q].expect("a signalled queue owns a signal");
                steps.push(Step::Signal(SyncPoint { signal, value: pos as u64 + 1 }));
            }
        }
        queues
    }
}

/// Which slot feeds which site of which node.
fn feeds<P>(g: &Graph<P>) -> Vec<Feed> {
    let mut out = Vec::new();
    for (i, n) in g.nodes.iter().enumerate() {
        let node = NodeId(i);
        match &n.kind {
            NodeKind::Kernel(k) => {
                for (a, arg) in k.args.iter().enumerate() {
                    match *arg {
                        Arg::Buffer(BufRef::Slot(slot), offset) => {
                            out.push(Feed { node, site: Site::Arg(a), slot, offset })
                        }
                        Arg::ScalarSlot(slot) => out.push(Feed { node, site: Site::Arg(a), slot, offset: 0 }),
                        _ => {}
                    }
                }
                for (d, dim) in k.shape.grid.iter().enumerate() {
                    if let Dim::Slot(slot) = *dim {
                        out.push(Feed { node, site: Site::GridDim(d), slot, offset: 0 });
                    }
                }
            }
            NodeKind::Copy { dst, src } => {
                for (site, r) in [(Site::CopyDst, dst), (Site::CopySrc, src)] {
                    if let BufRef::Slot(slot) = r.buf {
                        out.push(Feed { node, site, slot, offset: r.offset });
                    }
                }
            }
            _ => {}
        }
    }
    out
}
