//! Validation of a graph against the devices it will run on, and the memory each node touches
//! (stated ranges, or the defaults for a launch that stated none).

use super::builder::Graph;
use super::error::GraphError;
use super::node::{Access, Arg, Dim, NodeId, NodeKind, Queue};
use super::slot::{BufRef, Home, Range, SlotId, SlotKind};

/// The queues one device of the graph offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceCaps {
    pub compute: bool,
    pub copy: bool,
}

impl DeviceCaps {
    pub const FULL: DeviceCaps = DeviceCaps { compute: true, copy: true };

    pub fn has(&self, q: Queue) -> bool {
        match q {
            Queue::Compute => self.compute,
            Queue::Copy => self.copy,
        }
    }
}

/// Checks every node and returns what each reads and writes, in node order.
pub fn check<P>(g: &Graph<P>, devices: &[DeviceCaps]) -> Result<Vec<Access>, GraphError> {
    if g.nodes.is_empty() {
        return Err(GraphError::Empty);
    }
    for s in &g.slots {
        if let SlotKind::Scalar { bytes } = s.kind {
            if bytes != 4 && bytes != 8 {
                return Err(GraphError::ScalarSize { slot: s.name.clone(), bytes });
            }
        }
    }
    (0..g.nodes.len()).map(|i| check_node(g, devices, NodeId(i))).collect()
}

fn check_node<P>(g: &Graph<P>, devices: &[DeviceCaps], id: NodeId) -> Result<Access, GraphError> {
    let n = &g.nodes[id.0];
    let node = || g.describe(id);
    let caps = devices.get(n.at.device).ok_or_else(|| GraphError::NoDevice { node: node(), devices: devices.len() })?;
    if !caps.has(n.at.queue) {
        return Err(GraphError::NoQueue { node: node(), queue: n.at.queue.to_string() });
    }
    let wrong =
        |what: &str| Err(GraphError::WrongQueue { node: node(), what: what.into(), queue: n.at.queue.to_string() });
    match &n.kind {
        NodeKind::Kernel(_) if n.at.queue != Queue::Compute => return wrong("a kernel"),
        NodeKind::Copy { .. } if n.at.queue != Queue::Copy => return wrong("a copy"),
        NodeKind::Copy { dst, src } if dst.bytes != src.bytes => {
            return Err(GraphError::CopySize { node: node(), dst: dst.bytes, src: src.bytes })
        }
        NodeKind::WaitExternal { signal, .. } | NodeKind::SignalExternal { signal, .. }
            if signal.0 >= g.externals.len() =>
        {
            return Err(GraphError::UnknownExternal { node: node(), signal: signal.0 })
        }
        _ => {}
    }
    if let NodeKind::Kernel(k) = &n.kind {
        for a in &k.args {
            match a {
                Arg::Buffer(b, off) => {
                    let size = buffer(g, id, b)?;
                    in_bounds(g, id, b, *off, 0, size)?;
                }
                Arg::ScalarSlot(s) => slot_of(g, id, *s, "a scalar slot", |k| matches!(k, SlotKind::Scalar { .. }))?,
                Arg::Scalar(_) => {}
            }
        }
        for d in k.shape.grid {
            if let Dim::Slot(s) = d {
                slot_of(g, id, s, "a launch-size slot", |k| *k == SlotKind::LaunchSize)?;
            }
        }
    }
    let access = match &n.access {
        Some(a) => a.clone(),
        None => default_access(g, id),
    };
    let mut peer_sides = 0;
    for r in access.reads.iter().chain(&access.writes) {
        let size = buffer(g, id, &r.buf)?;
        in_bounds(g, id, &r.buf, r.offset, r.bytes, size)?;
        let home = home_of(g, &r.buf);
        let local = home == Home::Host || home == Home::Device(n.at.device);
        // A copy may push to or pull from one peer device; everything else stays local.
        let allowed = local || (matches!(n.kind, NodeKind::Copy { .. }) && peer_sides == 0);
        if !allowed {
            return Err(GraphError::ForeignBuffer { node: node(), buffer: name_of(g, &r.buf), home: home.to_string() });
        }
        peer_sides += usize::from(!local);
    }
    Ok(access)
}

/// The defaults for a launch that stated no ranges: every buffer argument is read and written
/// from its offset to the buffer's end.
pub fn default_access<P>(g: &Graph<P>, id: NodeId) -> Access {
    let NodeKind::Kernel(k) = &g.nodes[id.0].kind else { return Access::default() };
    let mut ranges = Vec::new();
    for a in &k.args {
        if let Arg::Buffer(b, off) = a {
            let size = size_of(g, b).unwrap_or(0);
            ranges.push(Range { buf: *b, offset: *off, bytes: size.saturating_sub(*off) });
        }
    }
    Access { reads: ranges.clone(), writes: ranges }
}

fn slot_of<P>(
    g: &Graph<P>,
    id: NodeId,
    s: SlotId,
    wanted: &str,
    ok: impl Fn(&SlotKind) -> bool,
) -> Result<(), GraphError> {
    let slot = g.slot(s).ok_or_else(|| GraphError::UnknownSlot { node: g.describe(id), slot: s.0 })?;
    match ok(&slot.kind) {
        true => Ok(()),
        false => Err(GraphError::SlotKind {
            node: g.describe(id),
            slot: slot.name.clone(),
            is: slot.kind.describe().into(),
            wanted: wanted.into(),
        }),
    }
}

/// The size of a buffer reference, checking that a slot is a buffer slot.
fn buffer<P>(g: &Graph<P>, id: NodeId, b: &BufRef) -> Result<u64, GraphError> {
    if let BufRef::Slot(s) = b {
        slot_of(g, id, *s, "a buffer slot", |k| matches!(k, SlotKind::Buffer { .. }))?;
    }
    Ok(size_of(g, b).unwrap_or(0))
}

fn in_bounds<P>(g: &Graph<P>, id: NodeId, b: &BufRef, start: u64, bytes: u64, size: u64) -> Result<(), GraphError> {
    match start.checked_add(bytes) {
        Some(end) if end <= size => Ok(()),
        end => Err(GraphError::OutOfBounds {
            node: g.describe(id),
            buffer: name_of(g, b),
            start,
            end: end.unwrap_or(u64::MAX),
            size,
        }),
    }
}

pub(crate) fn size_of<P>(g: &Graph<P>, b: &BufRef) -> Option<u64> {
    match b {
        BufRef::Slot(s) => match g.slot(*s)?.kind {
            SlotKind::Buffer { bytes, .. } => Some(bytes),
            _ => None,
        },
        BufRef::Fixed(f) => Some(f.bytes),
    }
}

/// Where a (checked) buffer lives.
pub(crate) fn home_of<P>(g: &Graph<P>, b: &BufRef) -> Home {
    match b {
        BufRef::Slot(s) => match g.slots[s.0].kind {
            SlotKind::Buffer { home, .. } => home,
            _ => Home::Host,
        },
        BufRef::Fixed(f) => f.home,
    }
}

fn name_of<P>(g: &Graph<P>, b: &BufRef) -> String {
    match b {
        BufRef::Slot(s) => match g.slot(*s) {
            Some(slot) => format!("slot `{}`", slot.name),
            None => format!("slot {}", s.0),
        },
        BufRef::Fixed(f) => format!("the buffer at {:#x}", f.va),
    }
}

/// What a copy node moves, for the lowering (peer copies need the peer's memory mapped on the
/// copying device).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// Both sides in the copying device's memory.
    SameDevice,
    /// One side (or both) in host memory: an upload, a download or a host-to-host copy.
    Host,
    /// Into the memory of device `0`, pushed by the copying device.
    ToPeer(usize),
    /// Out of the memory of device `0`, pulled by the copying device.
    FromPeer(usize),
}

/// The kind of copy node `id` of a checked graph (`None` for other nodes).
pub fn copy_kind<P>(g: &Graph<P>, id: NodeId) -> Option<CopyKind> {
    let n = &g.nodes[id.0];
    let NodeKind::Copy { dst, src } = &n.kind else { return None };
    let (d, s) = (home_of(g, &dst.buf), home_of(g, &src.buf));
    let me = Home::Device(n.at.device);
    Some(match (d, s) {
        (Home::Device(p), _) if d != me => CopyKind::ToPeer(p),
        (_, Home::Device(p)) if s != me => CopyKind::FromPeer(p),
        _ if d == me && s == me => CopyKind::SameDevice,
        _ => CopyKind::Host,
    })
}
