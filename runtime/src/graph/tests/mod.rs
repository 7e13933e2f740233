mod errors;
mod plan_cases;
mod property;

use super::*;

/// A kernel node with stated ranges (its arguments do not matter to the plan).
pub(super) fn k(g: &mut GraphBuilder<()>, at: QueueKey, reads: &[Range], writes: &[Range]) -> NodeId {
    g.launch_ranges(at, (), "k", vec![], Shape::linear(1, 64), reads.to_vec(), writes.to_vec())
}

pub(super) fn two() -> [DeviceCaps; 2] {
    [DeviceCaps::FULL; 2]
}

pub(super) fn c(d: usize) -> QueueKey {
    QueueKey::compute(d)
}

pub(super) fn x(d: usize) -> QueueKey {
    QueueKey::copy(d)
}
