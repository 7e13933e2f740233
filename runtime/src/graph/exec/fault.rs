//! A run that faulted or hung: which node it was, from the progress word each queue writes
//! before every node (a release that lands once the queue's earlier work finished), and the
//! device's recovery (AMD rebuilds its queues; an NVIDIA channel RM stopped stays broken and the
//! device must be reopened).

use super::{GraphExec, DONE};
use crate::core::Backend;
use crate::Error;
use std::sync::atomic::Ordering;

/// `e`, raised while waiting for device `d`, as an error naming the node at fault.
pub(super) fn node_error<B: Backend>(x: &GraphExec<'_, B>, d: usize, e: Error) -> Error {
    x.faulted.store(true, Ordering::Relaxed);
    let dev = x.devices[d];
    // What the core's synchronize does on a failed wait: mark the device, then rebuild it.
    dev.state().broken = Some(e.to_string());
    let recovered = match dev.recover_if_possible() {
        Ok(r) => r,
        Err(r) => {
            log::warn!("{}: recovery after a graph fault: {r}", dev.label);
            false
        }
    };
    let source = match recovered {
        true => e,
        false => Error::Graph(format!("{e}; {} must be reopened", dev.label)),
    };
    Error::InGraph { node: culprit(x, d), source: Box::new(source) }
}

/// The node the device stopped in: the last node a queue started and did not finish (the
/// compute queue first, where kernels fault and hang; a copy queue stuck in a wait shows the
/// node before the wait).
fn culprit<B: Backend>(x: &GraphExec<'_, B>, d: usize) -> String {
    let mut queues: Vec<_> = x.queues.iter().filter(|q| q.at.device == d).collect();
    queues.sort_by_key(|q| q.at.queue);
    for q in queues {
        let p = q.progress.value();
        if p != DONE && p != 0 && (p as usize) <= x.names.len() {
            return x.names[p as usize - 1].clone();
        }
    }
    format!("a graph on {} (no node had started)", x.devices[d].label)
}
