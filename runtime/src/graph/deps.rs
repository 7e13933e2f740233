//! Dependencies from the byte ranges nodes read and write: a later node depends on an earlier
//! one when it reads what the earlier wrote (RAW), writes what it read (WAR) or writes what it
//! wrote (WAW), on overlapping bytes of the same buffer.

use super::node::{Access, NodeId};
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
