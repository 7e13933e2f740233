//! Dependencies from the byte ranges nodes read and write: a later node depends on an earlier
//! one when it reads what the earlier wrote (RAW), writes what it read (WAR) or writes what it
//! wrote (WAW), on overlapping bytes of the same buffer.

use super::builder::Graph;
use super::node::{Access, NodeId, NodeKind};
use super::slot::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hazards {
    pub raw: bool,
    pub war: bool,
    pub waw: bool,
}

impl Hazards {
    pub fn any(&self) -> bool {
        self.raw || self.war || self.waw
    }
}

/// `to` must not start before `from` has finished; `from` comes first in program order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dep {
    pub from: NodeId,
    pub to: NodeId,
    pub hazards: Hazards,
}

fn any_overlap(a: &[Range], b: &[Range]) -> bool {
    a.iter().any(|x| b.iter().any(|y| x.overlaps(y)))
}

/// Every pair of nodes with a hazard, sorted by `to` then `from`.
pub fn dependencies(access: &[Access]) -> Vec<Dep> {
    let mut deps = Vec::new();
    for (i, later) in access.iter().enumerate() {
        for (j, earlier) in access[..i].iter().enumerate() {
            let hazards = Hazards {
                raw: any_overlap(&later.reads, &earlier.writes),
                war: any_overlap(&later.writes, &earlier.reads),
                waw: any_overlap(&later.writes, &earlier.writes),
            };
            if hazards.any() {
                deps.push(Dep { from: NodeId(j), to: NodeId(i), hazards });
            }
        }
    }
    deps
}

/// Releases of one external signal from different queues land in no particular order unless
/// something orders them, so a later release of a lower value could overwrite the value a
/// waiter needs, and the wait would hang. They are writes of the same word: order them (WAW)
/// in program order, as `deps` orders writes of overlapping bytes.
pub fn order_external_signals<P>(g: &Graph<P>, deps: &mut Vec<Dep>) {
    let signal_of = |n: usize| match g.nodes[n].kind {
        NodeKind::SignalExternal { signal, .. } => Some(signal),
        _ => None,
    };
    for to in 0..g.nodes.len() {
        let Some(s) = signal_of(to) else { continue };
        for from in (0..to).filter(|&f| signal_of(f) == Some(s)) {
            match deps.iter_mut().find(|d| d.from.0 == from && d.to.0 == to) {
                Some(d) => d.hazards.waw = true,
                None => deps.push(Dep {
                    from: NodeId(from),
                    to: NodeId(to),
                    hazards: Hazards { waw: true, ..Hazards::default() },
                }),
            }
        }
    }
    deps.sort_by_key(|d| (d.to, d.from));
}
