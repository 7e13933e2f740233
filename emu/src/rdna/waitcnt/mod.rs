//! The memory counters of a wave, as a checker: the emulated loads complete at once, but a
//! kernel that reads (or overwrites) a load's destination before the `s_waitcnt` that
//! guarantees the load's return would read stale data on the hardware. Each wave keeps, per
//! counter, the operations it issued that no wait has yet proven complete; touching a register
//! one of them writes is a fault naming the register, the counter and the PC.
//!
//! The model (AMD's RDNA3, RDNA4 and CDNA3 ISA guides, "Data Dependency Resolution" / "Memory
//! counters"; LLVM's SIInsertWaitcnts.cpp for the same rules as a compiler applies them):
//! - gfx9 counts vector loads and stores on VM_CNT, LDS and scalar memory on LGKM_CNT; gfx10/11
//!   move stores to VS_CNT; gfx12 splits LOADcnt, STOREcnt, SAMPLEcnt, BVHcnt, DScnt, KMcnt.
//! - Operations of one class on one counter complete in order (vector loads; LDS); scalar
//!   memory may complete in any order. FLAT counts as the access its addresses make (memory
//!   or LDS, as LLVM counts one whose address space it knows); one reaching both may complete
//!   out of order on both VM and LGKM (only a wait for 0 on both guarantees its result). Classes sharing a counter (LDS and SMEM
//!   under LGKM_CNT, loads and stores under gfx9's VM_CNT) complete in any order between them.
//! - A wait for `cnt <= N` proves complete an in-order operation with fewer than `#class - N`
//!   older operations of its class still tracked, an out-of-order one only when N is 0.
//! - A counter at its maximum stalls the next issue: an implicit wait for `max - 1`.
//! - Stores read their data at issue on gfx9+ (LLVM's VMW_GPR_LOCK is for gfx6 only), barriers
//!   wait for nothing, and `s_endpgm` may leave stores outstanding.
//! - Writing a register that an outstanding load of the same in-order class also writes is
//!   allowed (the returns land in order), as LLVM allows it for vector memory.

mod info;
pub use info::{info, Info, Span};

use super::decode::{APERTURE_SIZE, SHARED_BASE};
use super::exec::Wave;
use super::gfx9::{is_gfx9, ACC};
use super::ops::{MemKind, Op};
use baregpu_isa::Arch;

/// The counters, by their gfx12 roles: `Vm` is VM_CNT / LOADcnt, `Vs` VS_CNT / STOREcnt, `Lgkm`
/// LGKM_CNT / DScnt, `Km` gfx12's KMcnt (gfx9-11 count scalar memory on `Lgkm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cnt {
    Vm,
    Vs,
    Sample,
    Bvh,
    Lgkm,
    Km,
    Exp,
}

pub const NCNT: usize = 7;

/// What kind of operation an outstanding entry is: its ordering class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Load,
    Store,
    Lds,
    Smem,
    Flat,
}

impl Class {
    fn in_order(self) -> bool {
        !matches!(self, Class::Smem | Class::Flat)
    }
    fn what(self) -> &'static str {
        match self {
            Class::Load => "vector memory load",
            Class::Store => "vector memory store",
            Class::Lds => "LDS access",
            Class::Smem => "scalar memory load",
            Class::Flat => "FLAT access",
        }
    }
}

/// An instruction's effect on the counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kind {
    #[default]
    Plain,
    /// Increments these counters. FLAT (`flat`): `cnt[0]` with `class` for memory, `cnt[1]`
    /// for the LDS, chosen at run time by the addresses ([`route`]).
    Issue { cnt: [Option<Cnt>; 2], class: Class, flat: bool },
    /// Waits until each counter given is at most its count.
    Wait([Option<u8>; NCNT]),
}

/// SGPRs take bits 0..SGPR_BITS, the unified VGPR/AGPR file the bits after.
const SGPR_BITS: usize = 160;
const WORDS: usize = 11;
const BITS: usize = WORDS * 64;
/// Outstanding operations kept per counter at most (above every counter's maximum).
const QUEUE_CAP: usize = 256;

#[derive(Clone, Copy, Debug)]
struct Entry {
    class: Class,
    pc: u64,
    /// Bits of the registers it writes: [start, start + len).
    start: u16,
    len: u16,
}

/// One wave's outstanding memory operations.
pub struct Tracker {
    /// Some outstanding operation writes a register: instructions must be checked.
    pub busy: bool,
    pending: [u64; WORDS],
    queues: [Vec<Entry>; NCNT],
    max: [usize; NCNT],
    gfx12: bool,
    accum: usize,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            busy: false,
            pending: [0; WORDS],
            queues: Default::default(),
            max: [63; NCNT],
            gfx12: false,
            accum: super::exec::NVGPR,
        }
    }
}

impl Tracker {
    /// A new wave on `arch` whose AGPRs start at `accum` in the unified file.
    pub fn reset(&mut self, arch: Arch, accum: usize) {
        for q in &mut self.queues {
            q.clear();
        }
        self.pending = [0; WORDS];
        self.busy = false;
        self.gfx12 = arch == Arch::Gfx1201;
        self.accum = accum;
        // The counters' widths: gfx9 LGKM_CNT 4 bits, gfx12 KMcnt 5, BVHcnt and EXP 3, else 6.
        self.max = [63; NCNT];
        self.max[Cnt::Exp as usize] = 7;
        self.max[Cnt::Bvh as usize] = 7;
        self.max[Cnt::Km as usize] = 31;
        if is_gfx9(arch) {
            self.max[Cnt::Lgkm as usize] = 15;
        }
    }

    /// Before the instruction at `pc` runs: checks its registers against the outstanding
    /// operations (when `busy`), then counts what it issues or applies what it waits for.
    /// `route`: where a FLAT access goes.
    pub fn step<const W: usize>(&mut self, x: &Info, pc: u64, route: Route) -> Result<(), String> {
        if self.busy {
            self.check::<W>(x, pc)?;
        }
        match x.kind {
            Kind::Plain => {}
            Kind::Issue { cnt, class, flat } => {
                // A FLAT access counts where its addresses go; reaching both, it may complete
                // out of order on either counter.
                let (cnt, class) = match (flat, route) {
                    (false, _) | (true, Route::Memory) => ([cnt[0], None], class),
                    (true, Route::Lds) => ([cnt[1], None], Class::Lds),
                    (true, Route::Both) => (cnt, Class::Flat),
                };
                let (start, len) = x.dest().map_or((0, 0), |s| self.bits::<W>(s));
                for c in cnt.into_iter().flatten() {
                    let max = self.max[c as usize];
                    if self.queues[c as usize].len() >= max {
                        self.wait(c, max - 1);
                    }
                    let q = &mut self.queues[c as usize];
                    if q.len() >= QUEUE_CAP {
                        q.remove(0);
                    }
                    q.push(Entry { class, pc, start, len });
                }
                if len > 0 {
                    self.refresh();
                }
            }
            Kind::Wait(n) => {
                for (c, n) in n.iter().enumerate() {
                    if let Some(n) = *n {
                        self.wait(CNTS[c], n as usize);
                    }
                }
                self.refresh();
            }
        }
        Ok(())
    }

    /// The bits of a register range.
    fn bits<const W: usize>(&self, s: Span) -> (u16, u16) {
        let (start, len) = if s.vector {
            let r = if s.reg >= ACC { self.accum + (s.reg - ACC) as usize } else { s.reg as usize };
            (SGPR_BITS + r, s.n as usize)
        } else {
            (s.reg as usize, if s.n == 0 { W / 32 } else { s.n as usize })
        };
        let start = start.min(BITS);
        (start as u16, len.min(BITS - start) as u16)
    }

    fn hit(&self, start: u16, len: u16) -> Option<usize> {
        (start as usize..(start + len) as usize).find(|&b| self.pending[b / 64] >> (b % 64) & 1 != 0)
    }

    /// The outstanding entries writing bit `b`, with their counters.
    fn writers(&self, b: usize) -> impl Iterator<Item = (usize, &Entry)> {
        self.queues.iter().enumerate().flat_map(move |(c, q)| {
            q.iter().filter(move |e| (e.start as usize..(e.start + e.len) as usize).contains(&b)).map(move |e| (c, e))
        })
    }

    fn check<const W: usize>(&self, x: &Info, pc: u64) -> Result<(), String> {
        for &s in x.uses() {
            let (start, len) = self.bits::<W>(s);
            if let Some(b) = self.hit(start, len) {
                return Err(self.fault(b, "read", pc));
            }
        }
        // A destination an outstanding operation of the same in-order class also writes is
        // fine: the returns land in order.
        let same = match x.kind {
            Kind::Issue { cnt: [Some(c), None], class, flat: false } if class.in_order() => Some((c as usize, class)),
            _ => None,
        };
        for &s in x.defs() {
            let (start, len) = self.bits::<W>(s);
            for b in start as usize..(start + len) as usize {
                if self.pending[b / 64] >> (b % 64) & 1 == 0 {
                    continue;
                }
                let ordered = same.is_some_and(|(c, class)| self.writers(b).all(|(wc, e)| wc == c && e.class == class));
                if !ordered {
                    return Err(self.fault(b, "overwritten", pc));
                }
            }
        }
        Ok(())
    }

    fn fault(&self, b: usize, how: &str, pc: u64) -> String {
        let reg = if b < SGPR_BITS {
            match b {
                106 => "vcc_lo".to_string(),
                107 => "vcc_hi".to_string(),
                125 => "m0".to_string(),
                _ => format!("s{b}"),
            }
        } else if b - SGPR_BITS >= self.accum {
            format!("a{}", b - SGPR_BITS - self.accum)
        } else {
            format!("v{}", b - SGPR_BITS)
        };
        let mut cnts: Vec<&str> = Vec::new();
        let mut first: Option<&Entry> = None;
        for (c, e) in self.writers(b) {
            first.get_or_insert(e);
            let name = self.name(CNTS[c]);
            if !cnts.contains(&name) {
                cnts.push(name);
            }
        }
        let (what, at) = first.map_or(("memory operation", 0), |e| (e.class.what(), e.pc));
        format!(
            "missing wait: {reg} is {how} at PC {pc:#x} while the {what} issued at PC {at:#x} that writes it may be outstanding (wait for {})",
            cnts.join(" and ")
        )
    }

    fn name(&self, c: Cnt) -> &'static str {
        match (c, self.gfx12) {
            (Cnt::Vm, false) => "vmcnt",
            (Cnt::Vm, true) => "loadcnt",
            (Cnt::Vs, false) => "vscnt",
            (Cnt::Vs, true) => "storecnt",
            (Cnt::Sample, _) => "samplecnt",
            (Cnt::Bvh, _) => "bvhcnt",
            (Cnt::Lgkm, false) => "lgkmcnt",
            (Cnt::Lgkm, true) => "dscnt",
            (Cnt::Km, _) => "kmcnt",
            (Cnt::Exp, _) => "expcnt",
        }
    }

    /// Drops the entries a wait for `counter <= n` proves complete.
    fn wait(&mut self, c: Cnt, n: usize) {
        let q = &mut self.queues[c as usize];
        if q.len() <= n {
            // Every one may still be outstanding, except when none may.
            return;
        }
        let count = |class: Class, q: &[Entry]| q.iter().filter(|e| e.class == class).count();
        let mut seen = [0usize; 5];
        let totals: [usize; 5] = [Class::Load, Class::Store, Class::Lds, Class::Smem, Class::Flat].map(|k| count(k, q));
        q.retain(|e| {
            let k = e.class as usize;
            let older = seen[k];
            seen[k] += 1;
            let done = if e.class.in_order() { older + n < totals[k] } else { n == 0 };
            !done
        });
    }

    fn refresh(&mut self) {
        self.pending = [0; WORDS];
        for q in &self.queues {
            for e in q {
                for b in e.start as usize..(e.start + e.len) as usize {
                    self.pending[b / 64] |= 1 << (b % 64);
                }
            }
        }
        self.busy = self.pending.iter().any(|&w| w != 0);
    }
}

/// Where a FLAT access's active lanes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Memory,
    Lds,
    Both,
}

/// The route of `op` if it is a FLAT access (else [`Route::Memory`]), by the active lanes'
/// addresses as the interpreter forms them (the shared aperture is the LDS).
pub fn route<const W: usize>(w: &Wave<W>, op: &Op) -> Route {
    let Op::Mem(m) = op else { return Route::Memory };
    if m.kind != MemKind::Flat {
        return Route::Memory;
    }
    let (exec, r) = (w.exec(), m.addr as usize);
    let (mut lds, mut mem) = (false, false);
    for l in 0..W {
        if exec >> l & 1 != 0 {
            let a = (w.v[r][l] as u64 | (w.v[r + 1][l] as u64) << 32).wrapping_add(m.offset as i64 as u64);
            if (SHARED_BASE..SHARED_BASE + APERTURE_SIZE).contains(&a) {
                lds = true;
            } else {
                mem = true;
            }
        }
    }
    match (lds, mem) {
        (true, false) => Route::Lds,
        (true, true) => Route::Both,
        _ => Route::Memory,
    }
}

const CNTS: [Cnt; NCNT] = [Cnt::Vm, Cnt::Vs, Cnt::Sample, Cnt::Bvh, Cnt::Lgkm, Cnt::Km, Cnt::Exp];

#[cfg(test)]
mod tests;
