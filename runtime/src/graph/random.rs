//! Random graphs for the property tests: DAGs of small non-commutative `mix` kernels and copies
//! reading and writing random ranges of a few shared buffers, on both queues of up to two
//! devices, with external signal pairs; and `mix`'s host semantics.
//!
//! `mix(dst, src, n, k)`: `dst[i] = dst[i] * 3 + src[i] + k` (u32, wrapping) for
//! `i < min(n, work-items)`. The order of two `mix`es on the same bytes changes the result,
//! so a missing dependency shows in the output.

use super::builder::{Graph, GraphBuilder};
use super::model::{Bindings, Invocation, Memory, Value, Write};
use super::node::{Arg, Dim, QueueKey, Shape};
use super::rng::Rng;
use super::slot::{BufRef, ExternalId, FixedBuffer, Home, Range, SlotId};

/// Work-items per workgroup of every generated launch.
pub const BLOCK: u32 = 64;

#[derive(Debug, Clone)]
pub struct GenConfig {
    /// Devices of the graph (1 or 2 in the tests).
    pub devices: usize,
    pub max_nodes: usize,
    /// Buffers with fixed addresses the nodes may use too (distinct, not overlapping).
    pub fixed: Vec<FixedBuffer>,
    /// Percent of cases with one external wait placed before the signal it waits for (some of
    /// these are cycles, which compile must refuse).
    pub backward_wait_pct: u64,
}

/// A random graph with its initial memory and per-run bindings.
#[derive(Debug, Clone)]
pub struct Case<P> {
    pub graph: Graph<P>,
    pub init: Memory,
    pub bind: Bindings,
}

struct Buf {
    r: BufRef,
    home: Home,
    words: u64,
}

struct Gen<'a, P> {
    rng: &'a mut Rng,
    g: GraphBuilder<P>,
    program: P,
    bufs: Vec<Buf>,
    k: SlotId,
    groups: SlotId,
}

/// A random case: `program` is the handle every `mix` launch uses.
pub fn generate<P: Clone>(rng: &mut Rng, program: &P, cfg: &GenConfig) -> Case<P> {
    let mut g = GraphBuilder::new();
    let mut bufs = Vec::new();
    let homes = (0..cfg.devices).map(Home::Device).chain([Home::Host]);
    for (h, home) in homes.enumerate() {
        for b in 0..2 {
            let words = 16 + rng.below(49);
            let r = BufRef::Slot(g.buffer_slot(&format!("b{h}.{b}"), home, words * 4));
            bufs.push(Buf { r, home, words });
        }
    }
    for f in cfg.fixed.iter().filter(|f| !matches!(f.home, Home::Device(d) if d >= cfg.devices)) {
        bufs.push(Buf { r: BufRef::Fixed(*f), home: f.home, words: f.bytes / 4 });
    }
    let k = g.scalar_slot("k", 4);
    let groups = g.size_slot("groups");
    let mut gen = Gen { rng, g, program: program.clone(), bufs, k, groups };
    gen.nodes(cfg);
    let graph = gen.g.build();
    let mut init = Memory::for_graph(&graph);
    for bytes in init.buffers_mut() {
        bytes.iter_mut().for_each(|x| *x = gen.rng.next_u64() as u8);
    }
    let mut bind = Bindings::default();
    bind.scalars.insert(k, (gen.rng.next_u64() as u32).to_le_bytes().to_vec());
    bind.sizes.insert(groups, 1);
    Case { graph, init, bind }
}

impl<P: Clone> Gen<'_, P> {
    fn nodes(&mut self, cfg: &GenConfig) {
        let n = 1 + self.rng.index(cfg.max_nodes);
        let (signalled, host) = (self.g.external("signalled"), self.g.external("host"));
        let mut value = 0;
        // Waits on values this graph signals, placed after their signal in program order.
        let mut pending: Vec<(usize, u64)> = Vec::new();
        // A wait placed before the signal it waits for: fine unless the signal depends on it.
        let mut backward = None;
        if self.rng.chance(cfg.backward_wait_pct) {
            value += 1;
            let at = self.queue(cfg.devices);
            self.g.wait_external(at, signalled, value, vec![]);
            backward = Some(self.rng.index(n));
        }
        for i in 0..n {
            let d = self.rng.index(cfg.devices);
            match self.rng.below(100) {
                0..=54 => self.mix(d),
                55..=89 => self.copy(d),
                90..=94 => {
                    value += 1;
                    let at = self.queue(cfg.devices);
                    let reads = vec![self.range(Self::local(at.device))];
                    self.g.signal_external(at, signalled, value, reads);
                    pending.push((i + 1 + self.rng.index(n - i), value));
                }
                _ => {
                    let at = self.queue(cfg.devices);
                    self.g.wait_external(at, host, 1, vec![]);
                }
            }
            if backward == Some(i) {
                let at = self.queue(cfg.devices);
                let reads = vec![self.range(Self::local(at.device))];
                self.g.signal_external(at, signalled, 1, reads);
            }
            self.flush_waits(&mut pending, i + 1, signalled, cfg.devices);
        }
        self.flush_waits(&mut pending, usize::MAX, signalled, cfg.devices);
    }

    fn flush_waits(&mut self, pending: &mut Vec<(usize, u64)>, now: usize, e: ExternalId, devices: usize) {
        while let Some(k) = pending.iter().position(|&(when, _)| when <= now) {
            let (_, v) = pending.remove(k);
            let at = self.queue(devices);
            self.g.wait_external(at, e, v, vec![]);
        }
    }

    fn queue(&mut self, devices: usize) -> QueueKey {
        let d = self.rng.index(devices);
        match self.rng.chance(50) {
            true => QueueKey::compute(d),
            false => QueueKey::copy(d),
        }
    }

    /// A random buffer among those `ok` accepts, other than `not`.
    fn pick(&mut self, ok: impl Fn(Home) -> bool, not: Option<BufRef>) -> usize {
        let c: Vec<usize> =
            (0..self.bufs.len()).filter(|&i| ok(self.bufs[i].home) && Some(self.bufs[i].r) != not).collect();
        c[self.rng.index(c.len())]
    }

    /// A random whole-word range of a random buffer `ok` accepts.
    fn range(&mut self, ok: impl Fn(Home) -> bool) -> Range {
        let b = self.pick(ok, None);
        let words = self.bufs[b].words;
        let start = self.rng.below(words);
        let len = 1 + self.rng.below(words - start);
        Range::new(self.bufs[b].r, start * 4, len * 4)
    }

    fn local(d: usize) -> impl Fn(Home) -> bool {
        move |h| h == Home::Host || h == Home::Device(d)
    }

    fn mix(&mut self, d: usize) {
        let dst = self.pick(Self::local(d), None);
        let src = self.pick(Self::local(d), Some(self.bufs[dst].r));
        let (dw, sw) = (self.bufs[dst].words, self.bufs[src].words);
        let n = 1 + self.rng.below(dw.min(sw));
        let (doff, soff) = (4 * self.rng.below(dw - n + 1), 4 * self.rng.below(sw - n + 1));
        let (dst, src) = (self.bufs[dst].r, self.bufs[src].r);
        let k = match self.rng.chance(50) {
            true => Arg::ScalarSlot(self.k),
            false => Arg::u32(self.rng.next_u64() as u32),
        };
        let args = vec![Arg::buf_at(dst, doff), Arg::buf_at(src, soff), Arg::u32(n as u32), k];
        let groups = match self.rng.chance(50) {
            true => Dim::Slot(self.groups),
            false => Dim::Fixed(1),
        };
        let shape = Shape { grid: [groups, Dim::Fixed(1), Dim::Fixed(1)], block: [BLOCK, 1, 1] };
        let (p, at) = (self.program.clone(), QueueKey::compute(d));
        // Mostly exact ranges; sometimes the defaults (whole buffers from the offsets).
        if self.rng.chance(80) {
            let (dr, sr) = (Range::new(dst, doff, n * 4), Range::new(src, soff, n * 4));
            self.g.launch_ranges(at, p, "mix", args, shape, vec![dr, sr], vec![dr]);
        } else {
            self.g.launch(at, p, "mix", args, shape);
        }
    }

    fn copy(&mut self, d: usize) {
        // One side may be on a peer device; the other is local or host memory.
        let peer_src = self.rng.chance(50);
        let any = |_: Home| true;
        let (src, dst) = match peer_src {
            true => {
                let s = self.pick(any, None);
                let local = Self::local(d);
                let t = match local(self.bufs[s].home) {
                    true => self.pick(any, Some(self.bufs[s].r)),
                    false => self.pick(Self::local(d), Some(self.bufs[s].r)),
                };
                (s, t)
            }
            false => {
                let s = self.pick(Self::local(d), None);
                (s, self.pick(any, Some(self.bufs[s].r)))
            }
        };
        let (sw, dw) = (self.bufs[src].words, self.bufs[dst].words);
        let n = 1 + self.rng.below(sw.min(dw));
        let (soff, doff) = (4 * self.rng.below(sw - n + 1), 4 * self.rng.below(dw - n + 1));
        let (s, t) = (Range::new(self.bufs[src].r, soff, n * 4), Range::new(self.bufs[dst].r, doff, n * 4));
        self.g.copy(QueueKey::copy(d), t, s);
    }
}

fn word(v: &Value) -> u32 {
    match v {
        Value::Bytes(b) => u32::from_le_bytes(b[..4].try_into().expect("a 4-byte scalar")),
        Value::Buffer(..) => panic!("mix: a buffer where a scalar belongs"),
    }
}

/// `mix`'s host semantics (the model's kernel closure for generated graphs).
pub fn mix<P>(inv: &Invocation<P>, mem: &Memory) -> Vec<Write> {
    let (Value::Buffer(dst, doff), Value::Buffer(src, soff)) = (&inv.args[0], &inv.args[1]) else {
        panic!("mix: buffer arguments expected");
    };
    let items = inv.grid[0] as u64 * inv.block[0] as u64;
    let n = (word(&inv.args[2]) as u64).min(items) as usize;
    let k = word(&inv.args[3]);
    let words = |b: &[u8], from: u64| -> Vec<u32> {
        let b = &b[from as usize..from as usize + 4 * n];
        b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("a word"))).collect()
    };
    let mut d = words(mem.get(dst), *doff);
    mix_words(&mut d, &words(mem.get(src), *soff), k);
    vec![Write { buf: *dst, offset: *doff, bytes: d.iter().flat_map(|w| w.to_le_bytes()).collect() }]
}

/// `mix` on words: `dst[i] = dst[i] * 3 + src[i] + k` for every `i` of `dst`.
pub fn mix_words(dst: &mut [u32], src: &[u32], k: u32) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = d.wrapping_mul(3).wrapping_add(*s).wrapping_add(k);
    }
}
