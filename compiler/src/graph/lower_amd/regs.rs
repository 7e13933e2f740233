//! Register allocation for the loop IR: which values are uniform (one SGPR for the wave) and
//! which are per lane (a VGPR), where each value is last used, and a linear scan that gives a
//! register back after its last use.
//!
//! Positions run through the regions in order with two virtual ones: the loop's head (after
//! `pre`) and its end (where the accumulator takes `body_result`). A `pre` value read in the loop
//! lives to the loop's end: every iteration reads it.

use super::super::ir::{Inst, Kernel, Region, TileAxis, Val};

/// Where a value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// Not in a register: an immediate operand.
    Const,
    Sgpr(u32),
    Vgpr(u32),
}

/// Whether each value is the same in every lane of the wave.
pub fn uniform(k: &Kernel) -> Vec<bool> {
    let mut u = vec![false; k.insts.len()];
    for (v, inst) in k.insts.iter().enumerate() {
        u[v] = match *inst {
            // With a reduction a workgroup computes one output element.
            Inst::OutIdx => k.reduce.is_some(),
            Inst::Const(..) | Inst::Tile(TileAxis::Batch) => true,
            Inst::Idx(_, a, b) => u[a] && u[b],
            _ => false,
        };
    }
    u
}

/// The program order of the values and the position of each, with the loop's head and end.
pub struct Order {
    pub pre: Vec<Val>,
    pub body: Vec<Val>,
    pub post: Vec<Val>,
    pub pos: Vec<usize>,
    pub loop_end: usize,
}

impl Order {
    pub fn of(k: &Kernel) -> Order {
        let pre: Vec<Val> = k.in_region(Region::Pre).collect();
        let body: Vec<Val> = k.in_region(Region::Body).collect();
        let post: Vec<Val> = k.in_region(Region::Post).collect();
        let mut pos = vec![0; k.insts.len()];
        for (i, &v) in pre.iter().enumerate() {
            pos[v] = i;
        }
        let head = pre.len();
        for (i, &v) in body.iter().enumerate() {
            pos[v] = head + 1 + i;
        }
        let loop_end = head + 1 + body.len();
        for (i, &v) in post.iter().enumerate() {
            pos[v] = loop_end + 1 + i;
        }
        Order { pre, body, post, pos, loop_end }
    }

    /// The position after which each value is dead.
    pub fn last_use(&self, k: &Kernel) -> Vec<usize> {
        let mut last: Vec<usize> = self.pos.clone();
        let in_loop = |p: usize| p > self.pre.len() && p <= self.loop_end;
        let use_at = |v: Val, at: usize, last: &mut Vec<usize>| {
            let at = if in_loop(at) && !in_loop(self.pos[v]) { self.loop_end } else { at };
            last[v] = last[v].max(at);
        };
        for (v, inst) in k.insts.iter().enumerate() {
            for o in Kernel::operands(inst) {
                use_at(o, self.pos[v], &mut last);
            }
        }
        if let Some(r) = k.body_result {
            use_at(r, self.loop_end, &mut last);
        }
        last
    }
}

/// Free registers of one file, lowest first.
pub struct Pool {
    free: Vec<u32>,
    pub high: u32,
}

impl Pool {
    pub fn new(first: u32, end: u32) -> Pool {
        Pool { free: (first..end).rev().collect(), high: first }
    }

    pub fn take(&mut self) -> Option<u32> {
        let r = self.free.pop()?;
        self.high = self.high.max(r + 1);
        Some(r)
    }

    pub fn give(&mut self, r: u32) {
        // Keep the lowest on top so the register count stays small.
        let at = self.free.partition_point(|&x| x > r);
        self.free.insert(at, r);
    }
}
