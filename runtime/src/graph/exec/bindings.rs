//! What a run binds to a graph's input slots: buffers (address and size), scalars (4 or 8 bytes)
//! and launch sizes (workgroup counts). Checked against the graph at each run (every used slot
//! bound, of its kind, big enough, buffers of different slots apart).

use crate::graph::SlotId;

/// One slot's binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Bound {
    Buffer { va: u64, bytes: u64 },
    Scalar(Vec<u8>),
    Size(u32),
}

/// Per-run values of a graph's input slots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    pub(crate) slots: Vec<Option<Bound>>,
}

impl Bindings {
    pub fn new() -> Self {
        Self::default()
    }

    fn set(&mut self, slot: SlotId, b: Bound) -> &mut Self {
        if self.slots.len() <= slot.0 {
            self.slots.resize(slot.0 + 1, None);
        }
        self.slots[slot.0] = Some(b);
        self
    }

    /// Bind buffer slot `slot` to `bytes` bytes of GPU memory at `va`.
    pub fn buffer(&mut self, slot: SlotId, va: u64, bytes: u64) -> &mut Self {
        self.set(slot, Bound::Buffer { va, bytes })
    }

    /// Bind scalar slot `slot` to `value` (4 or 8 bytes, as the slot declares).
    pub fn scalar(&mut self, slot: SlotId, value: &[u8]) -> &mut Self {
        self.set(slot, Bound::Scalar(value.to_vec()))
    }

    /// Bind launch-size slot `slot` to `groups` workgroups.
    pub fn size(&mut self, slot: SlotId, groups: u32) -> &mut Self {
        self.set(slot, Bound::Size(groups))
    }

    pub(crate) fn get(&self, slot: SlotId) -> Option<&Bound> {
        self.slots.get(slot.0).and_then(|b| b.as_ref())
    }
}
