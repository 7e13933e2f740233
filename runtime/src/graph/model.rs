//! The host model of a graph: every node run on host byte arrays, one at a time, in a
//! topological order of the graph's dependencies. Kernel semantics are closures. It is the
//! oracle of the property tests; a node's effect is split into computing its writes from
//! memory ([`effects`]) and storing them ([`Memory::apply`]), so a scheduler can read at a
//! node's start and write at its end.

use super::builder::Graph;
use super::node::{Arg, Dim, NodeId, NodeKind};
use super::slot::{BufRef, Home, SlotId, SlotKind};
use std::collections::{BTreeMap, HashMap};

/// The graph's buffers as host bytes: slot buffers by slot, fixed buffers by (home, address).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Memory {
    slots: BTreeMap<SlotId, Vec<u8>>,
    fixed: BTreeMap<(Home, u64), Vec<u8>>,
}

impl Memory {
    /// Every buffer slot and every fixed buffer the nodes name, zeroed. Distinct fixed buffers
    /// must not overlap (the model keeps them apart).
    pub fn for_graph<P>(g: &Graph<P>) -> Self {
        let mut m = Memory::default();
        for (i, s) in g.slots.iter().enumerate() {
            if let SlotKind::Buffer { bytes, .. } = s.kind {
                m.slots.insert(SlotId(i), vec![0; bytes as usize]);
            }
        }
        for n in &g.nodes {
            let mut bufs: Vec<BufRef> =
                n.access.iter().flat_map(|a| a.reads.iter().chain(&a.writes)).map(|r| r.buf).collect();
            if let NodeKind::Kernel(k) = &n.kind {
                bufs.extend(k.args.iter().filter_map(|a| match a {
                    Arg::Buffer(b, _) => Some(*b),
                    _ => None,
                }));
            }
            for b in bufs {
                if let BufRef::Fixed(f) = b {
                    m.fixed.entry((f.home, f.va)).or_insert_with(|| vec![0; f.bytes as usize]);
                }
            }
        }
        m
    }

    pub fn get(&self, b: &BufRef) -> &[u8] {
        match b {
            BufRef::Slot(s) => &self.slots[s],
            BufRef::Fixed(f) => &self.fixed[&(f.home, f.va)],
        }
    }

    pub fn get_mut(&mut self, b: &BufRef) -> &mut Vec<u8> {
        match b {
            BufRef::Slot(s) => self.slots.get_mut(s).expect("a buffer slot"),
            BufRef::Fixed(f) => self.fixed.get_mut(&(f.home, f.va)).expect("a fixed buffer of the graph"),
        }
    }

    /// Every buffer's bytes, slots then fixed buffers, in a fixed order.
    pub fn buffers_mut(&mut self) -> impl Iterator<Item = &mut Vec<u8>> {
        self.slots.values_mut().chain(self.fixed.values_mut())
    }

    pub fn apply(&mut self, writes: &[Write]) {
        for w in writes {
            let at = w.offset as usize;
            self.get_mut(&w.buf)[at..at + w.bytes.len()].copy_from_slice(&w.bytes);
        }
    }
}

/// Bytes a node stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    pub buf: BufRef,
    pub offset: u64,
    pub bytes: Vec<u8>,
}

/// A kernel argument with the run's bindings applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Buffer(BufRef, u64),
    Bytes(Vec<u8>),
}

/// One launch as a kernel closure sees it.
#[derive(Debug)]
pub struct Invocation<'a, P> {
    pub node: NodeId,
    pub program: &'a P,
    pub kernel: &'a str,
    pub args: Vec<Value>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

/// What a kernel writes, given its invocation and the memory when it starts.
pub type KernelFn<P> = dyn Fn(&Invocation<P>, &Memory) -> Vec<Write>;

/// Per-run values of scalar and launch-size slots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    pub scalars: HashMap<SlotId, Vec<u8>>,
    pub sizes: HashMap<SlotId, u32>,
}

/// The writes of node `id` run on `mem`.
pub fn effects<P>(g: &Graph<P>, id: NodeId, mem: &Memory, bind: &Bindings, kernel: &KernelFn<P>) -> Vec<Write> {
    match &g.nodes[id.0].kind {
        NodeKind::Kernel(k) => {
            let args = k
                .args
                .iter()
                .map(|a| match a {
                    Arg::Buffer(b, off) => Value::Buffer(*b, *off),
                    Arg::ScalarSlot(s) => Value::Bytes(bind.scalars[s].clone()),
                    Arg::Scalar(v) => Value::Bytes(v.clone()),
                })
                .collect();
            let grid = k.shape.grid.map(|d| match d {
                Dim::Fixed(n) => n,
                Dim::Slot(s) => bind.sizes[&s],
            });
            let inv = Invocation { node: id, program: &k.program, kernel: &k.kernel, args, grid, block: k.shape.block };
            kernel(&inv, mem)
        }
        NodeKind::Copy { dst, src } => {
            let from = src.offset as usize;
            let bytes = mem.get(&src.buf)[from..from + src.bytes as usize].to_vec();
            vec![Write { buf: dst.buf, offset: dst.offset, bytes }]
        }
        NodeKind::WaitExternal { .. } | NodeKind::SignalExternal { .. } => Vec::new(),
    }
}

/// Run the nodes one at a time in `order` (a topological order: [`super::Plan::order`]).
pub fn run<P>(g: &Graph<P>, order: &[NodeId], mem: &mut Memory, bind: &Bindings, kernel: &KernelFn<P>) {
    for &id in order {
        let w = effects(g, id, mem, bind, kernel);
        mem.apply(&w);
    }
}
