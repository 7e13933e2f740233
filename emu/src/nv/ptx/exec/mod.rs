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

use super::ir::*;
use super::mem::GlobalMemory;
use super::Module;
use baregpu_drivers::nv::ptx_abi::MAX_SHARED_PER_BLOCK;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

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
    pub retired: Option<&'a AtomicU64>,
}

impl<'a> Launch<'a> {
    pub fn new(entry: &'a str, grid: [u32; 3], block: [u32; 3], params: &'a [u8]) -> Launch<'a> {
        Launch { entry, grid, block, params, dynamic_shared: 0, sm_count: 132, cancel: None, retired: None }
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
                    r.fetch_add(1, Ordering::Relaxed);
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

// ---- numbers -------------------------------------------------------------------------------

pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // Subnormal: normalise.
            let mut e = 127 - 15 + 1;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((m & 0x3ff) << 13)
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let mut r = m >> shift;
        let rem = m & ((1 << shift) - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

fn f32_to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let r = b.wrapping_add(0x7fff + ((b >> 16) & 1));
    (r >> 16) as u16
}

/// A float register value as f64.
fn to_f(ty: Ty, v: u64) -> f64 {
    match ty {
        Ty::F16 => f16_to_f32(v as u16) as f64,
        Ty::Bf16 => bf16_to_f32(v as u16) as f64,
        Ty::F32 => f32::from_bits(v as u32) as f64,
        _ => f64::from_bits(v),
    }
}

/// An f64 as the bits of `ty`, rounding to nearest.
fn from_f(ty: Ty, x: f64) -> u64 {
    match ty {
        Ty::F16 => f32_to_f16(x as f32) as u64,
        Ty::Bf16 => f32_to_bf16(x as f32) as u64,
        Ty::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

fn sext(ty: Ty, v: u64) -> i64 {
    let bits = ty.bits().min(64);
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn widen(ty: Ty) -> Ty {
    match ty {
        Ty::U16 => Ty::U32,
        Ty::S16 => Ty::S32,
        Ty::U32 => Ty::U64,
        Ty::S32 => Ty::S64,
        Ty::B16 => Ty::B32,
        Ty::B32 => Ty::B64,
        t => t,
    }
}

/// f64 → f32 with a directed rounding mode.
fn round_f32(x: f64, rnd: Rnd) -> f32 {
    let r = x as f32;
    if !r.is_finite() || r as f64 == x {
        return r;
    }
    let up = |f: f32| f32::from_bits(if f >= 0.0 { f.to_bits() + 1 } else { f.to_bits() - 1 });
    let down = |f: f32| {
        if f == 0.0 {
            -f32::from_bits(1)
        } else if f > 0.0 {
            f32::from_bits(f.to_bits() - 1)
        } else {
            f32::from_bits(f.to_bits() + 1)
        }
    };
    match rnd {
        Rnd::Rz if (r as f64).abs() > x.abs() => {
            if r > 0.0 {
                down(r)
            } else {
                up(r)
            }
        }
        Rnd::Rm if (r as f64) > x => down(r),
        Rnd::Rp if (r as f64) < x => up(r),
        _ => r,
    }
}

fn round_int(x: f64, rnd: Rnd) -> f64 {
    match rnd {
        Rnd::Rzi | Rnd::Rz => x.trunc(),
        Rnd::Rmi | Rnd::Rm => x.floor(),
        Rnd::Rpi | Rnd::Rp => x.ceil(),
        _ => x.round_ties_even(),
    }
}

fn int_range(ty: Ty) -> (f64, f64) {
    let bits = ty.bits() as i32;
    if ty.signed() {
        (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1) - 1.0)
    } else {
        (0.0, 2f64.powi(bits) - 1.0)
    }
}

fn cvt(inst: &Inst, v: u64) -> u64 {
    let (dt, st) = (inst.ty, inst.ty2);
    if st.float() {
        let x = to_f(st, v);
        if dt.float() {
            let x =
                if matches!(inst.rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi) { round_int(x, inst.rnd) } else { x };
            let x = if inst.sat { sat(x) } else { x };
            return match dt {
                Ty::F32 => round_f32(x, inst.rnd).to_bits() as u64,
                _ => from_f(dt, x),
            };
        }
        if x.is_nan() {
            return 0;
        }
        let (lo, hi) = int_range(dt);
        let r = round_int(x, inst.rnd).clamp(lo, hi);
        return if dt.signed() { (r as i64) as u64 & dt.mask() } else { (r as u64) & dt.mask() };
    }
    // Integer source.
    let sv = if st.signed() { sext(st, v) } else { (v & st.mask()) as i64 };
    let unsigned_big = !st.signed() && st.bits() == 64;
    if dt.float() {
        let x = if unsigned_big { v as f64 } else { sv as f64 };
        return match dt {
            Ty::F32 => (if unsigned_big { v as f32 } else { sv as f32 }).to_bits() as u64,
            _ => from_f(dt, x),
        };
    }
    if inst.sat {
        let (lo, hi) = int_range(dt);
        let x = if unsigned_big { v as f64 } else { sv as f64 };
        let c = x.clamp(lo, hi);
        return if dt.signed() { (c as i64) as u64 & dt.mask() } else { (c as u64) & dt.mask() };
    }
    (sv as u64) & if dt.bits() >= 64 { u64::MAX } else { dt.mask() }
}

fn sat(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

fn fbin(ty: Ty, a: u64, b: u64, f32op: fn(f32, f32) -> f32, f64op: fn(f64, f64) -> f64) -> u64 {
    match ty {
        Ty::F32 => f32op(f32::from_bits(a as u32), f32::from_bits(b as u32)).to_bits() as u64,
        Ty::F64 => f64op(f64::from_bits(a), f64::from_bits(b)).to_bits(),
        Ty::F16 | Ty::Bf16 => from_f(ty, f32op(to_f(ty, a) as f32, to_f(ty, b) as f32) as f64),
        Ty::F16x2 | Ty::Bf16x2 => {
            let e = if ty == Ty::F16x2 { Ty::F16 } else { Ty::Bf16 };
            let lo = fbin(e, a & 0xffff, b & 0xffff, f32op, f64op);
            let hi = fbin(e, (a >> 16) & 0xffff, (b >> 16) & 0xffff, f32op, f64op);
            lo | (hi << 16)
        }
        _ => 0,
    }
}

fn compare(cmp: Cmp, ty: Ty, a: u64, b: u64) -> bool {
    if ty.float() {
        let (x, y) = (to_f(ty, a), to_f(ty, b));
        let nan = x.is_nan() || y.is_nan();
        return match cmp {
            Cmp::Eq => !nan && x == y,
            Cmp::Ne => !nan && x != y,
            Cmp::Lt | Cmp::Lo => !nan && x < y,
            Cmp::Le | Cmp::Ls => !nan && x <= y,
            Cmp::Gt | Cmp::Hi => !nan && x > y,
            Cmp::Ge | Cmp::Hs => !nan && x >= y,
            Cmp::Equ => nan || x == y,
            Cmp::Neu => nan || x != y,
            Cmp::Ltu => nan || x < y,
            Cmp::Leu => nan || x <= y,
            Cmp::Gtu => nan || x > y,
            Cmp::Geu => nan || x >= y,
            Cmp::Num => !nan,
            Cmp::Nan => nan,
        };
    }
    let (ua, ub) = (a & ty.mask(), b & ty.mask());
    let (sa, sb) = (sext(ty, a), sext(ty, b));
    let s = ty.signed();
    match cmp {
        Cmp::Eq | Cmp::Equ => ua == ub,
        Cmp::Ne | Cmp::Neu => ua != ub,
        Cmp::Lt | Cmp::Ltu => {
            if s {
                sa < sb
            } else {
                ua < ub
            }
        }
        Cmp::Le | Cmp::Leu => {
            if s {
                sa <= sb
            } else {
                ua <= ub
            }
        }
        Cmp::Gt | Cmp::Gtu => {
            if s {
                sa > sb
            } else {
                ua > ub
            }
        }
        Cmp::Ge | Cmp::Geu => {
            if s {
                sa >= sb
            } else {
                ua >= ub
            }
        }
        Cmp::Lo => ua < ub,
        Cmp::Ls => ua <= ub,
        Cmp::Hi => ua > ub,
        Cmp::Hs => ua >= ub,
        Cmp::Num => true,
        Cmp::Nan => false,
    }
}

fn atom_apply(op: AtomOp, ty: Ty, old: u64, b: u64, c: u64) -> u64 {
    let m = ty.mask();
    let r = match op {
        AtomOp::Add if ty.float() => fbin(ty, old, b, |x, y| x + y, |x, y| x + y),
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::Min if ty.float() => from_f(ty, to_f(ty, old).min(to_f(ty, b))),
        AtomOp::Max if ty.float() => from_f(ty, to_f(ty, old).max(to_f(ty, b))),
        AtomOp::Min => {
            if ty.signed() {
                sext(ty, old).min(sext(ty, b)) as u64
            } else {
                (old & m).min(b & m)
            }
        }
        AtomOp::Max => {
            if ty.signed() {
                sext(ty, old).max(sext(ty, b)) as u64
            } else {
                (old & m).max(b & m)
            }
        }
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old & m == b & m {
                c
            } else {
                old
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Inc => {
            if old & m >= b & m {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old & m == 0 || old & m > b & m {
                b
            } else {
                old - 1
            }
        }
    };
    r & m
}

// ---- one thread ------------------------------------------------------------------------------

/// A resolved memory location.
enum Loc {
    /// An emulator address of global memory (shared with other CTAs and the host).
    Global(usize),
    /// A byte offset into a buffer the worker owns.
    Shared(usize),
    Local(usize),
    Param(usize),
    Const(usize),
    Globals(usize),
}

fn step_thread(ctx: &Ctx, t: &mut Thread, shared: &mut [u8]) -> F<()> {
    let m = ctx.m;
    // A thread runs until it blocks; loops are where a hung one spends its time, so backward
    // branches look at the cancel flag (every 4096th, to keep it off the fast path).
    let mut back_edges = 0u32;
    loop {
        let depth = t.frames.len();
        let fr = t.frames.last_mut().expect("a frame");
        let func = &m.funcs[fr.func as usize];
        let Some(inst) = func.body.get(fr.pc as usize) else {
            return Err(Fault::Illegal(format!("ran off the end of `{}`", func.name)));
        };
        if let Some((p, neg)) = inst.pred {
            if (fr.regs[p as usize] != 0) == neg {
                fr.pc += 1;
                continue;
            }
        }
        match inst.op {
            Op::Bra => {
                let Opnd::Label(target) = inst.ops[0] else { return Err(Fault::Illegal("bra without a label".into())) };
                if target <= fr.pc {
                    back_edges = back_edges.wrapping_add(1);
                    if back_edges.is_multiple_of(4096) && ctx.l.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                        return Err(Fault::Cancelled);
                    }
                }
                fr.pc = target;
                continue;
            }
            Op::Ret | Op::Exit => {
                if inst.op == Op::Exit || depth == 1 {
                    t.status = Status::Exited;
                    return Ok(());
                }
                let done = t.frames.pop().expect("a frame");
                let caller = t.frames.last_mut().expect("a caller");
                for (coff, eoff, size) in &done.rets {
                    let src = &done.param[*eoff as usize..(*eoff + *size) as usize];
                    caller.param[*coff as usize..(*coff + *size) as usize].copy_from_slice(src);
                }
                t.local.truncate(done.local_base as usize);
                caller.pc += 1;
                continue;
            }
            Op::Call => {
                let (Opnd::Vec(rets), Opnd::Sym(Sym::Func(fi)), Opnd::Vec(args)) =
                    (&inst.ops[0], &inst.ops[1], &inst.ops[2])
                else {
                    return Err(Fault::Illegal("malformed call".into()));
                };
                let callee = &m.funcs[*fi as usize];
                if callee.external {
                    return Err(Fault::Illegal(format!("call of `{}`, which the module only declares", callee.name)));
                }
                if depth >= MAX_CALL_DEPTH {
                    return Err(Fault::Illegal("call stack overflow".into()));
                }
                if args.len() != callee.params.len() || rets.len() != callee.rets.len() {
                    return Err(Fault::Illegal(format!(
                        "call of `{}` with the wrong number of arguments",
                        callee.name
                    )));
                }
                let mut param = vec![0u8; callee.param_size as usize];
                for (a, (off, size)) in args.iter().zip(&callee.params) {
                    let Opnd::Sym(Sym::Param(src)) = a else {
                        return Err(Fault::Illegal("call arguments must be .param variables".into()));
                    };
                    let s = *src as usize;
                    let bytes = fr
                        .param
                        .get(s..s + *size as usize)
                        .ok_or_else(|| Fault::Illegal("argument out of range".into()))?;
                    param[*off as usize..(*off + *size) as usize].copy_from_slice(bytes);
                }
                let mut rmap = Vec::new();
                for (r, (off, size)) in rets.iter().zip(&callee.rets) {
                    let Opnd::Sym(Sym::Param(dst)) = r else {
                        return Err(Fault::Illegal("call results must be .param variables".into()));
                    };
                    if (*dst + *size) as usize > fr.param.len() {
                        return Err(Fault::Illegal("call result out of range".into()));
                    }
                    rmap.push((*dst, *off, *size));
                }
                let base = t.local.len().next_multiple_of(16);
                let top = base + callee.local_size as usize;
                if top > LOCAL_LIMIT {
                    return Err(Fault::Illegal("local memory (stack) exhausted".into()));
                }
                t.local.resize(top, 0);
                t.frames.push(Frame {
                    func: *fi,
                    pc: 0,
                    regs: vec![0; callee.nregs as usize],
                    param,
                    local_base: base as u32,
                    rets: rmap,
                });
                continue;
            }
            Op::Bar => {
                fr.pc += 1;
                t.status = Status::Bar;
                return Ok(());
            }
            Op::Shfl(mode) => {
                let ty = inst.ty;
                let (dst, pdst) = match &inst.ops[0] {
                    Opnd::Pair(d, p) => (Some(*d), Some(*p)),
                    Opnd::Reg(d) => (Some(*d), None),
                    _ => (None, None),
                };
                let val = value(ctx, t, &inst.ops[1], ty)?;
                let b = value(ctx, t, &inst.ops[2], Ty::B32)? as u32;
                let c = value(ctx, t, &inst.ops[3], Ty::B32)? as u32;
                let fr = t.frames.last_mut().expect("a frame");
                fr.pc += 1;
                t.status = Status::Coll(Coll::Shfl { mode, val, b, c, dst, pdst });
                return Ok(());
            }
            Op::Vote(mode) => {
                let dst = match &inst.ops[0] {
                    Opnd::Reg(d) => Some(*d),
                    _ => None,
                };
                let val = value(ctx, t, &inst.ops[1], Ty::Pred)? != 0;
                let fr = t.frames.last_mut().expect("a frame");
                fr.pc += 1;
                t.status = Status::Coll(Coll::Vote { mode, val, dst });
                return Ok(());
            }
            Op::Trap => return Err(Fault::Trap),
            _ => {}
        }
        exec(ctx, t, shared, inst)?;
        t.frames.last_mut().expect("a frame").pc += 1;
    }
}

fn sreg(ctx: &Ctx, t: &Thread, s: Sreg) -> u64 {
    let l = ctx.l;
    let lane = t.lin % 32;
    (match s {
        Sreg::Tid(d) => t.tid[d as usize],
        Sreg::Ntid(d) => l.block[d as usize],
        Sreg::Ctaid(d) => ctx.ctaid[d as usize],
        Sreg::Nctaid(d) => l.grid[d as usize],
        Sreg::LaneId => lane,
        Sreg::WarpId => t.lin / 32,
        Sreg::NWarpId => ctx.nthreads.div_ceil(32),
        Sreg::SmId => sm_of(ctx.ctaid, l.sm_count),
        Sreg::NSmId => l.sm_count,
        Sreg::GridId => 1,
        Sreg::Clock => ctx.start.elapsed().as_nanos() as u32,
        Sreg::Clock64 => return ctx.start.elapsed().as_nanos() as u64,
        Sreg::GlobalTimer => return crate::clock::nv_timestamp(),
        Sreg::LanemaskEq => 1 << lane,
        Sreg::LanemaskLt => (1u32 << lane) - 1,
        Sreg::LanemaskLe => ((1u64 << (lane + 1)) - 1) as u32,
        Sreg::LanemaskGt => !(((1u64 << (lane + 1)) - 1) as u32),
        Sreg::LanemaskGe => !((1u32 << lane) - 1),
        Sreg::DynSmemSize => l.dynamic_shared,
    }) as u64
}

fn sym_addr(t: &Thread, s: Sym) -> F<u64> {
    let fr = t.frames.last().expect("a frame");
    Ok(match s {
        Sym::Shared(o) | Sym::Param(o) | Sym::Const(o) => o as u64,
        Sym::Local(o) => (fr.local_base + o) as u64,
        Sym::Global(o) => GLOBALS_WINDOW + o as u64,
        Sym::Func(_) => return Err(Fault::Illegal("a function used as a value".into())),
    })
}

/// Read an operand as the bits of `ty`.
fn value(ctx: &Ctx, t: &Thread, o: &Opnd, ty: Ty) -> F<u64> {
    let fr = t.frames.last().expect("a frame");
    Ok(match o {
        Opnd::Reg(r) => fr.regs[*r as usize],
        Opnd::Int(v) => {
            if ty.float() {
                from_f(ty, *v as i64 as f64)
            } else {
                *v
            }
        }
        Opnd::F32(b) => match ty {
            Ty::F64 => (f32::from_bits(*b) as f64).to_bits(),
            Ty::F16 | Ty::Bf16 => from_f(ty, f32::from_bits(*b) as f64),
            _ => *b as u64,
        },
        Opnd::F64(b) => match ty {
            Ty::F32 | Ty::F16 | Ty::Bf16 => from_f(ty, f64::from_bits(*b)),
            _ => *b,
        },
        Opnd::Sreg(s) => sreg(ctx, t, *s),
        Opnd::Sym(s) => sym_addr(t, *s)?,
        Opnd::Addr(..) => return Err(Fault::Illegal("an address used as a value".into())),
        Opnd::Vec(_) | Opnd::Label(_) | Opnd::Sink | Opnd::Pair(..) => {
            return Err(Fault::Illegal("operand kind not allowed here".into()))
        }
    })
}

fn set(t: &mut Thread, o: &Opnd, ty: Ty, v: u64) -> F<()> {
    let fr = t.frames.last_mut().expect("a frame");
    match o {
        Opnd::Reg(r) => {
            fr.regs[*r as usize] = if ty == Ty::Pred { (v != 0) as u64 } else { v & ty.mask() };
            Ok(())
        }
        Opnd::Sink => Ok(()),
        _ => Err(Fault::Illegal("destination must be a register".into())),
    }
}

/// Where `[addr]` of `space` lies, for an access of `len` bytes.
fn locate(ctx: &Ctx, t: &Thread, shared: &[u8], space: Space, o: &Opnd, len: u32, write: bool) -> F<(Loc, u64)> {
    let Opnd::Addr(base, sym, off) = o else { return Err(Fault::Illegal("expected an address operand".into())) };
    let fr = t.frames.last().expect("a frame");
    let mut a = off.cast_unsigned();
    if let Some(r) = base {
        a = a.wrapping_add(fr.regs[*r as usize]);
    }
    if let Some(s) = sym {
        a = a.wrapping_add(sym_addr(t, *s)?);
    }
    let mut space = space;
    let mut addr = a;
    if space == Space::Generic {
        if (SHARED_WINDOW..SHARED_WINDOW + WINDOW).contains(&a) {
            space = Space::Shared;
            addr = a - SHARED_WINDOW;
        } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW).contains(&a) {
            space = Space::Local;
            addr = a - LOCAL_WINDOW;
        } else {
            space = Space::Global;
        }
    }
    if space == Space::Global && (GLOBALS_WINDOW..GLOBALS_WINDOW + WINDOW).contains(&addr) {
        let o = addr - GLOBALS_WINDOW;
        if o + len as u64 > ctx.globals.len() as u64 * 8 {
            return Err(Fault::Memory { va: a, space: "global", len, write });
        }
        if !o.is_multiple_of(len.min(8) as u64) {
            return Err(Fault::Misaligned { va: a, space: "global", len });
        }
        return Ok((Loc::Globals(o as usize), a));
    }
    if !addr.is_multiple_of(len.min(16) as u64) {
        return Err(Fault::Misaligned { va: a, space: space.name(), len });
    }
    let fault = || Fault::Memory { va: a, space: space.name(), len, write };
    let within = |n: usize| addr.checked_add(len as u64).is_some_and(|e| e <= n as u64);
    Ok(match space {
        Space::Global => (Loc::Global(ctx.mem.host_ptr(addr, len as u64).ok_or_else(fault)?), a),
        Space::Shared if within(shared.len()) => (Loc::Shared(addr as usize), a),
        Space::Local if within(t.local.len()) => (Loc::Local(addr as usize), a),
        Space::Param => {
            if !within(fr.param.len()) {
                return Err(fault());
            }
            (Loc::Param(addr as usize), a)
        }
        Space::Const if !write && within(ctx.m.const_data.len()) => (Loc::Const(addr as usize), a),
        _ => return Err(fault()),
    })
}

fn load(ctx: &Ctx, t: &Thread, shared: &[u8], loc: &Loc, len: u32) -> u64 {
    let mut buf = [0u8; 8];
    let n = len as usize;
    match *loc {
        Loc::Global(p) => {
            // SAFETY: `p` was translated from a live mapping for `len` bytes and is aligned.
            unsafe {
                match len {
                    1 => buf[0] = std::ptr::read_volatile(p as *const u8),
                    2 => buf[..2].copy_from_slice(&std::ptr::read_volatile(p as *const u16).to_ne_bytes()),
                    4 => buf[..4].copy_from_slice(&(*(p as *const AtomicU32)).load(Ordering::Relaxed).to_ne_bytes()),
                    _ => buf.copy_from_slice(&(*(p as *const AtomicU64)).load(Ordering::Relaxed).to_ne_bytes()),
                }
            }
        }
        Loc::Globals(o) => {
            let w = ctx.globals[o / 8].load(Ordering::Relaxed).to_le_bytes();
            buf[..n].copy_from_slice(&w[o % 8..o % 8 + n]);
        }
        Loc::Shared(o) => buf[..n].copy_from_slice(&shared[o..o + n]),
        Loc::Local(o) => buf[..n].copy_from_slice(&t.local[o..o + n]),
        Loc::Param(o) => buf[..n].copy_from_slice(&t.frames.last().expect("a frame").param[o..o + n]),
        Loc::Const(o) => buf[..n].copy_from_slice(&ctx.m.const_data[o..o + n]),
    }
    u64::from_le_bytes(buf)
}

fn store(ctx: &Ctx, t: &mut Thread, shared: &mut [u8], loc: &Loc, len: u32, v: u64) {
    let n = len as usize;
    let bytes = v.to_le_bytes();
    match *loc {
        Loc::Global(p) => {
            // SAFETY: as in `load`.
            unsafe {
                match len {
                    1 => std::ptr::write_volatile(p as *mut u8, v as u8),
                    2 => std::ptr::write_volatile(p as *mut u16, v as u16),
                    4 => (*(p as *const AtomicU32)).store(v as u32, Ordering::Relaxed),
                    _ => (*(p as *const AtomicU64)).store(v, Ordering::Relaxed),
                }
            }
        }
        Loc::Globals(o) => {
            let word = &ctx.globals[o / 8];
            let mut cur = word.load(Ordering::Relaxed);
            loop {
                let mut b = cur.to_le_bytes();
                b[o % 8..o % 8 + n].copy_from_slice(&bytes[..n]);
                match word.compare_exchange(cur, u64::from_le_bytes(b), Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => break,
                    Err(x) => cur = x,
                }
            }
        }
        Loc::Shared(o) => shared[o..o + n].copy_from_slice(&bytes[..n]),
        Loc::Local(o) => t.local[o..o + n].copy_from_slice(&bytes[..n]),
        Loc::Param(o) => t.frames.last_mut().expect("a frame").param[o..o + n].copy_from_slice(&bytes[..n]),
        Loc::Const(_) => {}
    }
}

/// Atomic read-modify-write; returns the old value.
fn atomic(ctx: &Ctx, t: &mut Thread, shared: &mut [u8], loc: &Loc, ty: Ty, f: impl Fn(u64) -> u64) -> F<u64> {
    let len = ty.size();
    match *loc {
        Loc::Global(p) if len == 4 => {
            // SAFETY: translated, aligned, live.
            let a = unsafe { &*(p as *const AtomicU32) };
            let mut cur = a.load(Ordering::Relaxed);
            loop {
                let new = f(cur as u64) as u32;
                match a.compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Relaxed) {
                    Ok(_) => return Ok(cur as u64),
                    Err(x) => cur = x,
                }
            }
        }
        Loc::Global(p) if len == 8 => {
            // SAFETY: translated, aligned, live.
            let a = unsafe { &*(p as *const AtomicU64) };
            let mut cur = a.load(Ordering::Relaxed);
            loop {
                let new = f(cur);
                match a.compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Relaxed) {
                    Ok(_) => return Ok(cur),
                    Err(x) => cur = x,
                }
            }
        }
        Loc::Global(_) => Err(Fault::Illegal(format!("{len}-byte atomic"))),
        _ => {
            let old = load(ctx, t, shared, loc, len);
            store(ctx, t, shared, loc, len, f(old));
            Ok(old)
        }
    }
}

fn int_bin(op: Op, ty: Ty, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let s = ty.signed();
    match op {
        Op::Add => a.wrapping_add(b),
        Op::Sub => a.wrapping_sub(b),
        Op::Div => {
            if b & ty.mask() == 0 {
                u64::MAX
            } else if s {
                sext(ty, a).wrapping_div(sext(ty, b)) as u64
            } else {
                (a & ty.mask()) / (b & ty.mask())
            }
        }
        Op::Rem => {
            if b & ty.mask() == 0 {
                a
            } else if s {
                sext(ty, a).wrapping_rem(sext(ty, b)) as u64
            } else {
                (a & ty.mask()) % (b & ty.mask())
            }
        }
        Op::Min => {
            if s {
                sext(ty, a).min(sext(ty, b)) as u64
            } else {
                (a & ty.mask()).min(b & ty.mask())
            }
        }
        Op::Max => {
            if s {
                sext(ty, a).max(sext(ty, b)) as u64
            } else {
                (a & ty.mask()).max(b & ty.mask())
            }
        }
        Op::And => a & b,
        Op::Or => a | b,
        Op::Xor => a ^ b,
        Op::Shl => {
            let n = b as u32;
            if n >= bits {
                0
            } else {
                a << n
            }
        }
        Op::Shr => {
            let n = (b as u32).min(bits);
            if s {
                (sext(ty, a) >> n.min(63)) as u64
            } else if n >= bits {
                0
            } else {
                (a & ty.mask()) >> n
            }
        }
        _ => 0,
    }
}

fn mul(w: Width, ty: Ty, a: u64, b: u64) -> u64 {
    let bits = ty.bits();
    let full: i128 = if ty.signed() {
        sext(ty, a) as i128 * sext(ty, b) as i128
    } else {
        ((a & ty.mask()) as u128 * (b & ty.mask()) as u128) as i128
    };
    match w {
        Width::Hi => (full >> bits) as u64,
        _ => full as u64,
    }
}

fn exec(ctx: &Ctx, t: &mut Thread, shared: &mut [u8], inst: &Inst) -> F<()> {
    let ty = inst.ty;
    let o = &inst.ops;
    let v = |t: &Thread, i: usize, ty: Ty| value(ctx, t, &o[i], ty);
    match inst.op {
        Op::Mov => match (&o[0], &o[1]) {
            (Opnd::Vec(parts), src) => {
                let x = value(ctx, t, src, ty)?;
                let w = ty.bits() / parts.len() as u32;
                for (k, p) in parts.iter().enumerate() {
                    set(t, p, Ty::B64, (x >> (w * k as u32)) & ((1u64 << w) - 1))?;
                }
            }
            (dst, Opnd::Vec(parts)) => {
                let w = ty.bits() / parts.len() as u32;
                let mut x = 0u64;
                for (k, p) in parts.iter().enumerate() {
                    x |= (value(ctx, t, p, ty)? & ((1u64 << w) - 1)) << (w * k as u32);
                }
                set(t, dst, ty, x)?;
            }
            (dst, src) => {
                let x = value(ctx, t, src, ty)?;
                set(t, dst, ty, x)?;
            }
        },
        Op::Ld(space) => {
            let es = ty.size();
            let n = inst.vec as u32;
            let (loc, _) = locate(ctx, t, shared, space, &o[1], es * n, false)?;
            let dsts: Vec<Opnd> = match &o[0] {
                Opnd::Vec(v) => v.clone(),
                d => vec![d.clone()],
            };
            if dsts.len() as u32 != n {
                return Err(Fault::Illegal("vector width and operand count differ".into()));
            }
            for (k, d) in dsts.iter().enumerate() {
                let eloc = offset_loc(&loc, k * es as usize);
                let x = load(ctx, t, shared, &eloc, es);
                // A signed load sign-extends to the destination register's width (`ld.s8` into a
                // .b32, `ld.s32` into a .b64): registers hold 64 bits, so extend to all of them and
                // let each reader take its width.
                if ty.signed() {
                    set(t, d, Ty::S64, sext(ty, x) as u64)?;
                } else {
                    set(t, d, ty, x)?;
                }
            }
        }
        Op::St(space) => {
            let es = ty.size();
            let n = inst.vec as u32;
            let (loc, _) = locate(ctx, t, shared, space, &o[0], es * n, true)?;
            let srcs: Vec<Opnd> = match &o[1] {
                Opnd::Vec(v) => v.clone(),
                s => vec![s.clone()],
            };
            if srcs.len() as u32 != n {
                return Err(Fault::Illegal("vector width and operand count differ".into()));
            }
            for (k, s) in srcs.iter().enumerate() {
                let x = value(ctx, t, s, ty)?;
                let eloc = offset_loc(&loc, k * es as usize);
                store(ctx, t, shared, &eloc, es, x);
            }
        }
        Op::Cvta { to, space } => {
            let x = v(t, 1, ty)?;
            let window = match space {
                Space::Shared => SHARED_WINDOW,
                Space::Local => LOCAL_WINDOW,
                _ => 0,
            };
            let r = if to { x.wrapping_sub(window) } else { x.wrapping_add(window) };
            set(t, &o[0], ty, r)?;
        }
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Div | Op::Rem if ty.float() => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let r = match inst.op {
                Op::Add => fbin(ty, a, b, |x, y| x + y, |x, y| x + y),
                Op::Sub => fbin(ty, a, b, |x, y| x - y, |x, y| x - y),
                Op::Div => fbin(ty, a, b, |x, y| x / y, |x, y| x / y),
                Op::Min => fbin(ty, a, b, f32::min, f64::min),
                Op::Max => fbin(ty, a, b, f32::max, f64::max),
                _ => return Err(Fault::Illegal("rem on floats".into())),
            };
            let r = if inst.sat { from_f(ty, sat(to_f(ty, r))) } else { r };
            set(t, &o[0], ty, r)?;
        }
        Op::Add | Op::Sub | Op::Min | Op::Max | Op::Div | Op::Rem | Op::And | Op::Or | Op::Xor | Op::Shl | Op::Shr => {
            let bty = if matches!(inst.op, Op::Shl | Op::Shr) { Ty::U32 } else { ty };
            let (a, b) = (v(t, 1, ty)?, v(t, 2, bty)?);
            let mut r = int_bin(inst.op, ty, a, b);
            if inst.sat && ty == Ty::S32 && matches!(inst.op, Op::Add | Op::Sub) {
                let x = if inst.op == Op::Add {
                    sext(ty, a).saturating_add(sext(ty, b))
                } else {
                    sext(ty, a).saturating_sub(sext(ty, b))
                };
                r = x.clamp(i32::MIN as i64, i32::MAX as i64) as u64;
            }
            set(t, &o[0], ty, r)?;
        }
        Op::Mul(w) if ty.float() => {
            let _ = w;
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let r = fbin(ty, a, b, |x, y| x * y, |x, y| x * y);
            let r = if inst.sat { from_f(ty, sat(to_f(ty, r))) } else { r };
            set(t, &o[0], ty, r)?;
        }
        Op::Mul(w) => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let dty = if w == Width::Wide { widen(ty) } else { ty };
            set(t, &o[0], dty, mul(w, ty, a, b))?;
        }
        Op::Mad(w) if !ty.float() => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let dty = if w == Width::Wide { widen(ty) } else { ty };
            let c = v(t, 3, dty)?;
            set(t, &o[0], dty, mul(w, ty, a, b).wrapping_add(c))?;
        }
        Op::Fma | Op::Mad(_) => {
            let (a, b, c) = (v(t, 1, ty)?, v(t, 2, ty)?, v(t, 3, ty)?);
            let r = match ty {
                Ty::F32 => f32::from_bits(a as u32)
                    .mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32))
                    .to_bits() as u64,
                Ty::F64 => f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c)).to_bits(),
                Ty::F16 | Ty::Bf16 => from_f(ty, to_f(ty, a).mul_add(to_f(ty, b), to_f(ty, c))),
                Ty::F16x2 | Ty::Bf16x2 => {
                    let e = if ty == Ty::F16x2 { Ty::F16 } else { Ty::Bf16 };
                    let one = |s: u32| {
                        from_f(
                            e,
                            to_f(e, (a >> s) & 0xffff).mul_add(to_f(e, (b >> s) & 0xffff), to_f(e, (c >> s) & 0xffff)),
                        )
                    };
                    one(0) | (one(16) << 16)
                }
                _ => return Err(Fault::Illegal("fma on a non-float type".into())),
            };
            let r = if inst.sat { from_f(ty, sat(to_f(ty, r))) } else { r };
            set(t, &o[0], ty, r)?;
        }
        Op::Abs | Op::Neg => {
            let a = v(t, 1, ty)?;
            let r = if ty.float() {
                let sign = match ty {
                    Ty::F64 => 1u64 << 63,
                    Ty::F32 => 1 << 31,
                    Ty::F16x2 | Ty::Bf16x2 => 0x8000_8000,
                    _ => 1 << 15,
                };
                if inst.op == Op::Abs {
                    a & !sign
                } else {
                    a ^ sign
                }
            } else if inst.op == Op::Abs {
                sext(ty, a).wrapping_abs() as u64
            } else {
                sext(ty, a).wrapping_neg() as u64
            };
            set(t, &o[0], ty, r)?;
        }
        Op::Not => {
            let a = v(t, 1, ty)?;
            let r = if ty == Ty::Pred { (a == 0) as u64 } else { !a };
            set(t, &o[0], ty, r)?;
        }
        Op::Cnot => {
            let a = v(t, 1, ty)?;
            set(t, &o[0], ty, (a & ty.mask() == 0) as u64)?;
        }
        Op::Setp(cmp, bop) => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let mut r = compare(cmp, ty, a, b);
            let mut q = !r;
            if let Some(bop) = bop {
                let c = v(t, 3, Ty::Pred)? != 0;
                let comb = |x: bool| match bop {
                    BoolOp::And => x && c,
                    BoolOp::Or => x || c,
                    BoolOp::Xor => x ^ c,
                };
                r = comb(r);
                q = comb(q);
            }
            match &o[0] {
                Opnd::Pair(p, pq) => {
                    set(t, &Opnd::Reg(*p), Ty::Pred, r as u64)?;
                    set(t, &Opnd::Reg(*pq), Ty::Pred, q as u64)?;
                }
                d => set(t, d, Ty::Pred, r as u64)?,
            }
        }
        Op::Selp => {
            let c = v(t, 3, Ty::Pred)? != 0;
            let x = if c { v(t, 1, ty)? } else { v(t, 2, ty)? };
            set(t, &o[0], ty, x)?;
        }
        Op::Cvt => {
            let a = v(t, 1, inst.ty2)?;
            set(t, &o[0], ty, cvt(inst, a))?;
        }
        Op::Sqrt | Op::Rcp | Op::Rsqrt | Op::Ex2 | Op::Lg2 | Op::Sin | Op::Cos | Op::Tanh => {
            let a = v(t, 1, ty)?;
            let f32op: fn(f32, f32) -> f32 = match inst.op {
                Op::Sqrt => |x, _| x.sqrt(),
                Op::Rcp => |x, _| 1.0 / x,
                Op::Rsqrt => |x, _| 1.0 / x.sqrt(),
                Op::Ex2 => |x, _| x.exp2(),
                Op::Lg2 => |x, _| x.log2(),
                Op::Sin => |x, _| x.sin(),
                Op::Cos => |x, _| x.cos(),
                _ => |x, _| x.tanh(),
            };
            let f64op: fn(f64, f64) -> f64 = match inst.op {
                Op::Sqrt => |x, _| x.sqrt(),
                Op::Rcp => |x, _| 1.0 / x,
                Op::Rsqrt => |x, _| 1.0 / x.sqrt(),
                Op::Ex2 => |x, _| x.exp2(),
                Op::Lg2 => |x, _| x.log2(),
                Op::Sin => |x, _| x.sin(),
                Op::Cos => |x, _| x.cos(),
                _ => |x, _| x.tanh(),
            };
            set(t, &o[0], ty, fbin(ty, a, 0, f32op, f64op))?;
        }
        Op::Copysign => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let r = from_f(ty, to_f(ty, b).copysign(to_f(ty, a)));
            set(t, &o[0], ty, r)?;
        }
        Op::Testp(k) => {
            let x = to_f(ty, v(t, 1, ty)?);
            let r = match k {
                0 => x.is_finite(),
                1 => x.is_infinite(),
                2 => !x.is_nan(),
                3 => x.is_nan(),
                4 => x.is_normal(),
                _ => x.is_subnormal() || (ty == Ty::F32 && (x as f32).is_subnormal()),
            };
            set(t, &o[0], Ty::Pred, r as u64)?;
        }
        Op::Clz | Op::Popc | Op::Brev => {
            let a = v(t, 1, ty)? & ty.mask();
            let bits = ty.bits();
            let r = match inst.op {
                Op::Clz => (a.leading_zeros() - (64 - bits)) as u64,
                Op::Popc => a.count_ones() as u64,
                _ => a.reverse_bits() >> (64 - bits),
            };
            let dty = if inst.op == Op::Brev { ty } else { Ty::U32 };
            set(t, &o[0], dty, r)?;
        }
        Op::Bfe => {
            let a = v(t, 1, ty)?;
            let pos = (v(t, 2, Ty::U32)? & 0xff) as u32;
            let len = (v(t, 3, Ty::U32)? & 0xff) as u32;
            let bits = ty.bits();
            let r = if len == 0 {
                0
            } else {
                let p = pos.min(bits - 1);
                let x = if ty.signed() { (sext(ty, a) >> p) as u64 } else { (a & ty.mask()) >> p };
                let l = len.min(bits);
                let m = if l >= 64 { u64::MAX } else { (1u64 << l) - 1 };
                let field = x & m;
                if ty.signed() && pos + len > bits {
                    sext(ty, x) as u64
                } else if ty.signed() && l < 64 && field >> (l - 1) & 1 == 1 {
                    field | !m
                } else {
                    field
                }
            };
            set(t, &o[0], ty, r)?;
        }
        Op::Bfi => {
            let (a, b) = (v(t, 1, ty)?, v(t, 2, ty)?);
            let pos = (v(t, 3, Ty::U32)? & 0xff) as u32;
            let len = (v(t, 4, Ty::U32)? & 0xff) as u32;
            let bits = ty.bits();
            let r = if len == 0 || pos >= bits {
                b
            } else {
                let l = len.min(bits - pos);
                let m = if l >= 64 { u64::MAX } else { ((1u64 << l) - 1) << pos };
                (b & !m) | ((a << pos) & m)
            };
            set(t, &o[0], ty, r)?;
        }
        Op::Prmt => {
            let (a, b) = (v(t, 1, Ty::B32)?, v(t, 2, Ty::B32)?);
            let c = v(t, 3, Ty::B32)?;
            let bytes = ((b & 0xffff_ffff) << 32 | (a & 0xffff_ffff)).to_le_bytes();
            let mut r = 0u64;
            for k in 0..4 {
                let sel = (c >> (4 * k)) & 0xf;
                let mut byte = bytes[(sel & 7) as usize];
                if sel & 8 != 0 {
                    byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                }
                r |= (byte as u64) << (8 * k);
            }
            set(t, &o[0], Ty::B32, r)?;
        }
        Op::Shf { left, wrap } => {
            // d = the 32 bits of the 64-bit b:a (b high) shifted by n that straddle the halves:
            // the high word after a left shift, the low word after a right shift.
            let (a, b) = (v(t, 1, Ty::B32)? & 0xffff_ffff, v(t, 2, Ty::B32)? & 0xffff_ffff);
            let c = v(t, 3, Ty::U32)? & 0xffff_ffff;
            let n = if wrap { c & 31 } else { c.min(32) };
            let wide = b << 32 | a;
            let r = if left { (wide << n) >> 32 } else { wide >> n };
            set(t, &o[0], Ty::B32, r & 0xffff_ffff)?;
        }
        Op::Atom(space, op) => {
            let (loc, _) = locate(ctx, t, shared, space, &o[1], ty.size(), true)?;
            let b = v(t, 2, ty)?;
            let c = if op == AtomOp::Cas { v(t, 3, ty)? } else { 0 };
            let old = atomic(ctx, t, shared, &loc, ty, |old| atom_apply(op, ty, old, b, c))?;
            set(t, &o[0], ty, old)?;
        }
        Op::Red(space, op) => {
            let (loc, _) = locate(ctx, t, shared, space, &o[0], ty.size(), true)?;
            let b = v(t, 1, ty)?;
            atomic(ctx, t, shared, &loc, ty, |old| atom_apply(op, ty, old, b, 0))?;
        }
        Op::Activemask => set(t, &o[0], Ty::B32, 0xffff_ffff)?,
        Op::Nop => {}
        Op::Bra | Op::Ret | Op::Exit | Op::Call | Op::Bar | Op::Shfl(_) | Op::Vote(_) | Op::Trap => {
            unreachable!("handled by step_thread")
        }
    }
    Ok(())
}

fn offset_loc(loc: &Loc, d: usize) -> Loc {
    match *loc {
        Loc::Global(p) => Loc::Global(p + d),
        Loc::Shared(o) => Loc::Shared(o + d),
        Loc::Local(o) => Loc::Local(o + d),
        Loc::Param(o) => Loc::Param(o + d),
        Loc::Const(o) => Loc::Const(o + d),
        Loc::Globals(o) => Loc::Globals(o + d),
    }
}
