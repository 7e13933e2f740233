//! Running a kernel: CTAs in parallel on worker threads, the threads of a CTA interleaved on
//! one worker (each runs until it reaches a barrier, a warp collective — shfl.sync, vote.sync —
//! or its end; barriers release when every live thread of the CTA waits at one, collectives
//! when every live thread of the warp that is not at a barrier has reached one).
//!
//! Address spaces: shared and local addresses are offsets in the CTA's shared memory and the
//! thread's local stack; param and const addresses are offsets in the frame's parameter area
//! and the module's constant segment. Generic addresses (after `cvta`) put shared memory at
//! [`SHARED_WINDOW`] and local memory at [`LOCAL_WINDOW`] (4 GiB each, the windows the NV
//! driver programs), module `.global` variables at [`GLOBALS_WINDOW`], and everything else in
//! global memory, which goes through [`GlobalMemory`]. Every access is bounds- and
//! alignment-checked.

mod inst;
mod memory;
mod numeric;
mod thread;

use super::ir::*;
use super::mem::GlobalMemory;
use super::Module;
use baregpu_drivers::nv::ptx_abi::MAX_SHARED_PER_BLOCK;
pub use numeric::{f16_to_f32, f32_to_f16};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use thread::step_thread;

pub const SHARED_WINDOW: u64 = 0x7294_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x7293_0000_0000;
pub const GLOBALS_WINDOW: u64 = 0x7295_0000_0000;
const WINDOW: u64 = 1 << 32;
/// Local memory a thread may use (its call stack of `.local` frames): the hardware's per-thread
/// bound, which also bounds each function's `.local` at load.
const LOCAL_LIMIT: usize = super::parser::vars::MAX_LOCAL_BYTES as usize;
const MAX_CALL_DEPTH: usize = 256;

/// One launch: the kernel, its shape and its parameter block.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    pub entry: &'a str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// What `%ntid` and `%nctaid` read: on a GPU, ptxas-compiled code loads them from the
    /// driver's slots in constant bank 0 (`drivers::nv::cbank0`), not from the launch itself.
    pub ntid: [u32; 3],
    pub nctaid: [u32; 3],
    /// The kernel parameter block (see [`Module::param_block`]).
    pub params: &'a [u8],
    /// Dynamic shared memory bytes (after the static variables).
    pub dynamic_shared: u32,
    /// SMs reported by %nsmid (and used to spread %smid).
    pub sm_count: u32,
    /// Set by whoever tears the channel down: the launch stops with [`Fault::Cancelled`] (a hung
    /// kernel must not outlive its channel).
    pub cancel: Option<&'a AtomicBool>,
    /// Counts every CTA that retires: the progress a host wait can see inside one long launch.
    pub retired: Option<&'a crate::work::WorkCounter>,
}

impl<'a> Launch<'a> {
    pub fn new(entry: &'a str, grid: [u32; 3], block: [u32; 3], params: &'a [u8]) -> Launch<'a> {
        let (ntid, nctaid) = (block, grid);
        Launch {
            entry,
            grid,
            block,
            ntid,
            nctaid,
            params,
            dynamic_shared: 0,
            sm_count: 132,
            cancel: None,
            retired: None,
        }
    }
}

/// The SM a CTA runs on: what %smid reads and where a fault's SM error state is recorded. CTAs
/// are spread over the SMs by their x and y index (z does not move them).
pub fn sm_of(ctaid: [u32; 3], sm_count: u32) -> u32 {
    (ctaid[0].wrapping_add(ctaid[1].wrapping_mul(7))) % sm_count.max(1)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// An access outside every allocation it may touch.
    Memory {
        va: u64,
        space: &'static str,
        len: u32,
        write: bool,
    },
    Misaligned {
        va: u64,
        space: &'static str,
        len: u32,
    },
    Illegal(String),
    Trap,
    /// Threads wait for each other in ways that can never resolve.
    Deadlock(String),
    /// The launch itself is wrong (no such kernel, a bad shape, a short parameter block).
    BadLaunch(String),
    /// The launch was cancelled (see [`Launch::cancel`]).
    Cancelled,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Memory { va, space, len, write } => write!(
                f,
                "memory fault: {} of {len} bytes at {space} address {va:#x} outside every allocation",
                if *write { "write" } else { "read" }
            ),
            Fault::Misaligned { va, space, len } => {
                write!(f, "misaligned {len}-byte access at {space} address {va:#x}")
            }
            Fault::Illegal(m) => write!(f, "illegal instruction: {m}"),
            Fault::Trap => write!(f, "trap"),
            Fault::Cancelled => write!(f, "cancelled: the channel was torn down while the kernel ran"),
            Fault::Deadlock(m) => write!(f, "deadlock: {m}"),
            Fault::BadLaunch(m) => write!(f, "bad launch: {m}"),
        }
    }
}

/// A fault with where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchError {
    pub kernel: String,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
    /// PTX line of the faulting instruction (0 when none).
    pub line: u32,
    pub fault: Fault,
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel {} CTA ({},{},{}) thread ({},{},{}) at PTX line {}: {}",
            self.kernel,
            self.cta[0],
            self.cta[1],
            self.cta[2],
            self.thread[0],
            self.thread[1],
            self.thread[2],
            self.line,
            self.fault
        )
    }
}

impl std::error::Error for LaunchError {}

#[derive(Debug, Clone, Copy)]
enum Coll {
    Shfl { mode: ShflMode, val: u64, b: u32, c: u32, dst: Option<u32>, pdst: Option<u32> },
    Vote { mode: VoteMode, val: bool, dst: Option<u32> },
}

#[derive(Debug, Clone, Copy)]
enum Status {
    Running,
    Bar,
    Coll(Coll),
    Exited,
}

struct Frame {
    func: u32,
    pc: u32,
    regs: Vec<u64>,
    param: Vec<u8>,
    local_base: u32,
    /// (caller param offset, callee param offset, size) copied back on return.
    rets: Vec<(u32, u32, u32)>,
}

struct Thread {
    tid: [u32; 3],
    lin: u32,
    frames: Vec<Frame>,
    local: Vec<u8>,
    status: Status,
}

struct Ctx<'a> {
    m: &'a Module,
    l: &'a Launch<'a>,
    mem: &'a dyn GlobalMemory,
    globals: &'a [AtomicU64],
    ctaid: [u32; 3],
    nthreads: u32,
    start: std::time::Instant,
}

type F<T> = Result<T, Fault>;

impl Module {
    /// Run `l` to completion against `mem`. Module `.global` variables start from their
    /// initialisers at every launch.
    pub fn launch(&self, l: &Launch, mem: &dyn GlobalMemory) -> Result<(), LaunchError> {
        let bad = |m: String| LaunchError {
            kernel: l.entry.to_string(),
            cta: [0; 3],
            thread: [0; 3],
            line: 0,
            fault: Fault::BadLaunch(m),
        };
        let entry = self.func_index.get(l.entry).copied().ok_or_else(|| bad(format!("no kernel `{}`", l.entry)))?;
        let f = &self.funcs[entry as usize];
        if !f.is_entry || f.external {
            return Err(bad(format!("`{}` is not a kernel defined in the module", l.entry)));
        }
        let nthreads = l.block.iter().map(|&d| d as u64).product::<u64>();
        if nthreads == 0 || nthreads > 1024 || l.grid.contains(&0) {
            return Err(bad(format!("grid {:?} block {:?}", l.grid, l.block)));
        }
        let formal = f.formal_param_size() as usize;
        if l.params.len() < formal {
            return Err(bad(format!(
                "kernel `{}` takes {formal} bytes of parameters, {} given",
                l.entry,
                l.params.len()
            )));
        }
        // Each CTA holds the module's static shared variables side by side, then the dynamic.
        let shared = u64::from(self.shared_size) + u64::from(l.dynamic_shared);
        if shared > u64::from(MAX_SHARED_PER_BLOCK) {
            return Err(bad(format!(
                "{shared} bytes of shared memory per CTA ({} static in the module, {} dynamic); the limit is {MAX_SHARED_PER_BLOCK}",
                self.shared_size, l.dynamic_shared
            )));
        }
        let mut gwords = vec![0u64; self.global_data.len().div_ceil(8)];
        for (i, b) in self.global_data.iter().enumerate() {
            gwords[i / 8] |= (*b as u64) << (8 * (i % 8));
        }
        let globals: Vec<AtomicU64> = gwords.into_iter().map(AtomicU64::new).collect();
        let ctas: u64 = l.grid.iter().map(|&d| d as u64).product();
        let next = AtomicU64::new(0);
        let failed = AtomicBool::new(false);
        let workers = crate::host_cores::host_cores().min(8).min(ctas as usize);
        let start = std::time::Instant::now();
        let run = || -> Result<(), LaunchError> {
            loop {
                if failed.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= ctas {
                    return Ok(());
                }
                let (gx, gy) = (l.grid[0] as u64, l.grid[1] as u64);
                let ctaid = [(i % gx) as u32, ((i / gx) % gy) as u32, (i / (gx * gy)) as u32];
                let ctx = Ctx { m: self, l, mem, globals: &globals, ctaid, nthreads: nthreads as u32, start };
                if let Err(e) = run_cta(&ctx, entry) {
                    failed.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                if let Some(r) = l.retired {
                    r.add_retired(1);
                }
            }
        };
        if workers <= 1 {
            return run();
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers).map(|_| s.spawn(run)).collect();
            let mut first = Ok(());
            for h in handles {
                let r = h.join().unwrap_or_else(|_| Err(bad("a worker thread panicked".into())));
                if first.is_ok() {
                    first = r;
                }
            }
            first
        })
    }
}

fn run_cta(ctx: &Ctx, entry: u32) -> Result<(), LaunchError> {
    let l = ctx.l;
    let f = &ctx.m.funcs[entry as usize];
    let shared_len = ctx.m.shared_size as usize + l.dynamic_shared as usize;
    let mut shared = vec![0u8; shared_len];
    // The parameter frame: the parameters as passed, then zeroed room for the call sites' `.param`s.
    let formal = f.formal_param_size() as usize;
    let mut frame = l.params[..formal].to_vec();
    frame.resize((f.param_size as usize).max(formal), 0);
    let mut threads: Vec<Thread> = (0..ctx.nthreads)
        .map(|lin| {
            let tid = [lin % l.block[0], (lin / l.block[0]) % l.block[1], lin / (l.block[0] * l.block[1])];
            let local = vec![0; f.local_size.next_multiple_of(16) as usize];
            Thread {
                tid,
                lin,
                frames: vec![Frame {
                    func: entry,
                    pc: 0,
                    regs: vec![0; f.nregs as usize],
                    param: frame.clone(),
                    local_base: 0,
                    rets: Vec::new(),
                }],
                local,
                status: Status::Running,
            }
        })
        .collect();
    let n = threads.len();
    let nwarps = n.div_ceil(32);
    let err = |t: &Thread, fault: Fault| {
        let line = t
            .frames
            .last()
            .and_then(|fr| ctx.m.funcs[fr.func as usize].body.get(fr.pc as usize))
            .map(|i| i.line)
            .unwrap_or(0);
        LaunchError { kernel: l.entry.to_string(), cta: ctx.ctaid, thread: t.tid, line, fault }
    };
    loop {
        if l.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(err(&threads[0], Fault::Cancelled));
        }
        for w in 0..nwarps {
            let range = w * 32..((w + 1) * 32).min(n);
            loop {
                for t in range.clone() {
                    if matches!(threads[t].status, Status::Running) {
                        if let Err(fault) = step_thread(ctx, &mut threads[t], &mut shared) {
                            return Err(err(&threads[t], fault));
                        }
                    }
                }
                let waiting = range.clone().filter(|&t| matches!(threads[t].status, Status::Coll(_))).count();
                let others = range.clone().filter(|&t| matches!(threads[t].status, Status::Running)).count();
                if waiting > 0 && others == 0 {
                    let bar_free = range.clone().all(|t| !matches!(threads[t].status, Status::Bar)) || waiting > 0;
                    if bar_free {
                        resolve(&mut threads[range.clone()]);
                        continue;
                    }
                }
                break;
            }
        }
        let live = threads.iter().filter(|t| !matches!(t.status, Status::Exited)).count();
        if live == 0 {
            return Ok(());
        }
        let at_bar = threads.iter().filter(|t| matches!(t.status, Status::Bar)).count();
        if at_bar == live {
            for t in &mut threads {
                if matches!(t.status, Status::Bar) {
                    t.status = Status::Running;
                }
            }
            continue;
        }
        if threads.iter().any(|t| matches!(t.status, Status::Running | Status::Coll(_))) {
            continue;
        }
        let t = threads.iter().find(|t| !matches!(t.status, Status::Exited)).expect("a live thread");
        return Err(err(t, Fault::Deadlock("threads wait at different barriers or collectives".into())));
    }
}

/// Resolve the warp collective the waiting threads of `warp` reached.
fn resolve(warp: &mut [Thread]) {
    let mut vals = [None::<u64>; 32];
    let mut votes = 0u32;
    let mut members = 0u32;
    for t in warp.iter() {
        let lane = (t.lin % 32) as usize;
        match t.status {
            Status::Coll(Coll::Shfl { val, .. }) => vals[lane] = Some(val),
            Status::Coll(Coll::Vote { val, .. }) => {
                members |= 1 << lane;
                if val {
                    votes |= 1 << lane;
                }
            }
            _ => {}
        }
    }
    for t in warp.iter_mut() {
        let lane = t.lin % 32;
        let Status::Coll(c) = t.status else { continue };
        let fr = t.frames.last_mut().expect("a frame");
        match c {
            Coll::Shfl { mode, val, b, c, dst, pdst } => {
                let segmask = (c >> 8) & 0x1f;
                let cval = c & 0x1f;
                let bval = b & 0x1f;
                let max_lane = ((lane & segmask) | (cval & !segmask)) as i32;
                let min_lane = (lane & segmask) as i32;
                let (j, p) = match mode {
                    ShflMode::Up => {
                        let j = lane as i32 - bval as i32;
                        (j, j >= max_lane)
                    }
                    ShflMode::Down => {
                        let j = lane as i32 + bval as i32;
                        (j, j <= max_lane)
                    }
                    ShflMode::Bfly => {
                        let j = (lane ^ bval) as i32;
                        (j, j <= max_lane)
                    }
                    ShflMode::Idx => {
                        let j = min_lane | (bval & !segmask) as i32;
                        (j, j <= max_lane)
                    }
                };
                let src = if p && (0..32).contains(&j) { j as usize } else { lane as usize };
                let v = vals[src].unwrap_or(val);
                if let Some(d) = dst {
                    fr.regs[d as usize] = v;
                }
                if let Some(d) = pdst {
                    fr.regs[d as usize] = p as u64;
                }
            }
            Coll::Vote { mode, dst, .. } => {
                let v = match mode {
                    VoteMode::Ballot => votes as u64,
                    VoteMode::All => (votes & members == members) as u64,
                    VoteMode::Any => (votes != 0) as u64,
                    VoteMode::Uni => (votes == 0 || votes == members) as u64,
                };
                if let Some(d) = dst {
                    fr.regs[d as usize] = v;
                }
            }
        }
        t.status = Status::Running;
    }
}
