//! The interface between the emulated command processor and the wave interpreter: what a
//! DISPATCH_DIRECT launches with (the compute registers), the GPU's memory as the dispatch sees
//! it, and how a dispatch fails. The command processor builds a [`DispatchState`] from its
//! register file and hands it to a [`WaveEngine`].

use super::EmuKfd;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Set when the dispatch must stop: its queue is being destroyed (after a hang, say), or it
/// ran past its budget. Engines check it now and then (between workgroups, and every few
/// thousand instructions), so a kernel that never ends cannot hold its queue forever.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    flag: Option<Arc<AtomicBool>>,
    /// When the dispatch may end at the earliest, and the budget that set it (for the report).
    deadline: Option<(Instant, Duration)>,
    /// Wave instructions the dispatch executed (published in batches, as `crate::work` counts).
    spent: Arc<AtomicU64>,
}

impl Cancel {
    pub fn new(flag: Arc<AtomicBool>) -> Cancel {
        Cancel { flag: Some(flag), deadline: None, spent: Arc::default() }
    }

    /// The same flag, and a budget: the dispatch is over it once `budget` of wall clock has
    /// passed from now AND its instructions make `budget` of emulated time
    /// ([`crate::work::emulated`]). The second keeps a valid dispatch on a host loaded by other
    /// work (whose emulator executes little per second) from being called a hang; the first
    /// keeps a quiet host, where emulated time runs ahead, reporting a hang no sooner than the
    /// budget says.
    pub fn with_budget(mut self, budget: Duration) -> Cancel {
        self.deadline = Instant::now().checked_add(budget).map(|t| (t, budget));
        self
    }

    /// `n` more instructions of the dispatch ran.
    #[inline]
    pub fn spend(&self, n: u64) {
        self.spent.fetch_add(n, Ordering::Relaxed);
    }

    #[inline]
    pub fn is_set(&self) -> bool {
        self.flag.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Why the dispatch must stop now, if it must.
    #[inline]
    pub fn check(&self) -> Result<(), DispatchFault> {
        if self.is_set() {
            return Err(DispatchFault::Cancelled);
        }
        match self.deadline {
            Some((at, budget))
                if crate::work::emulated(self.spent.load(Ordering::Relaxed)) >= budget && Instant::now() >= at =>
            {
                Err(DispatchFault::OverBudget { budget })
            }
            _ => Ok(()),
        }
    }
}

/// Two dispatch states are equal whatever their cancellation flags.
impl PartialEq for Cancel {
    fn eq(&self, _: &Cancel) -> bool {
        true
    }
}

impl Eq for Cancel {}

/// Register state of one dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchState {
    /// LLVM processor name of the device (`gfx1100`).
    pub arch: &'static str,
    /// Address of the first instruction (COMPUTE_PGM_LO/HI << 8).
    pub pgm: u64,
    pub rsrc1: u32,
    pub rsrc2: u32,
    pub rsrc3: u32,
    /// COMPUTE_USER_DATA_0..15.
    pub user_data: [u32; 16],
    /// Workgroups per dimension (DISPATCH_DIRECT).
    pub grid: [u32; 3],
    /// Work-items per workgroup (COMPUTE_NUM_THREAD_X/Y/Z).
    pub block: [u32; 3],
    /// COMPUTE_START_X/Y/Z: the first workgroup id.
    pub start: [u32; 3],
    /// DISPATCH_INITIATOR.CS_W32_EN (gfx10+); always false (wave64) on gfx9.
    pub wave32: bool,
    pub tmpring_size: u32,
    /// COMPUTE_DISPATCH_SCRATCH_BASE_LO/HI << 8 (architected flat scratch).
    pub scratch_base: u64,
    /// Bytes of LDS per workgroup (RSRC2.LDS_SIZE granules of 512 bytes).
    pub lds_bytes: u32,
    /// The workgroups this XCC runs (all of them but on a split multi-XCC dispatch).
    pub xcc: XccShare,
    pub cancel: Cancel,
}

/// The part of a dispatch's grid one XCC runs: with chunks of `chunk` workgroups in flattened
/// order (x fastest), XCC `index` of `count` runs the chunks c with c % count == index, one
/// chunk at a time round-robin (COMPUTE_TG_CHUNK_SIZE, COMPUTE_CURRENT_LOGIC_XCC_ID). A chunk
/// of 0 is the whole grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct XccShare {
    pub index: u32,
    pub count: u32,
    pub chunk: u32,
}

impl XccShare {
    fn split(&self) -> bool {
        self.chunk != 0 && self.count > 1
    }
}

impl DispatchState {
    /// Workgroups in the whole grid.
    pub fn grid_groups(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }

    /// Workgroups this XCC runs.
    pub fn groups(&self) -> u64 {
        let total = self.grid_groups();
        let x = self.xcc;
        if !x.split() {
            return total;
        }
        let (chunk, count, index) = (x.chunk as u64, x.count as u64, x.index as u64);
        let full = total / (chunk * count);
        // What the last, partial round gives this XCC.
        let rest = total - full * chunk * count;
        full * chunk + rest.saturating_sub(index * chunk).min(chunk)
    }

    /// The workgroup id (COMPUTE_START_X.. added) of this XCC's `n`-th workgroup, n < groups().
    pub fn group_id(&self, n: u64) -> [u32; 3] {
        let x = self.xcc;
        let g = if x.split() {
            let (chunk, count, index) = (x.chunk as u64, x.count as u64, x.index as u64);
            (n / chunk * count + index) * chunk + n % chunk
        } else {
            n
        };
        let (gx, gy) = (self.grid[0] as u64, self.grid[1] as u64);
        [
            (g % gx) as u32 + self.start[0],
            ((g / gx) % gy) as u32 + self.start[1],
            (g / (gx * gy)) as u32 + self.start[2],
        ]
    }
}

/// Why a dispatch stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DispatchFault {
    /// An access outside every allocation mapped on the GPU.
    Memory { va: u64, write: bool, pc: u64 },
    /// An instruction the interpreter cannot run (unknown, unsupported, malformed).
    Illegal { pc: u64, what: String },
    /// A wave executed `s_trap` (clang's `__builtin_trap`, a failed device assert).
    Trap { pc: u64 },
    /// Stopped through [`DispatchState::cancel`].
    Cancelled,
    /// Ran past its budget, of wall clock and of emulated time (a hang, as the hardware's hang
    /// detection sees it).
    OverBudget { budget: Duration },
}

impl fmt::Display for DispatchFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchFault::Memory { va, write, pc } => {
                write!(f, "memory fault: {} of VA {va:#x} at PC {pc:#x}", if *write { "write" } else { "read" })
            }
            DispatchFault::Illegal { pc, what } => write!(f, "illegal instruction at PC {pc:#x}: {what}"),
            DispatchFault::Trap { pc } => write!(f, "the kernel trapped (s_trap) at PC {pc:#x}"),
            DispatchFault::Cancelled => write!(f, "dispatch cancelled"),
            DispatchFault::OverBudget { budget } => {
                write!(f, "the dispatch ran past its {:.1} s budget (hang)", budget.as_secs_f64())
            }
        }
    }
}

/// Runs the waves of a dispatch to completion.
pub trait WaveEngine: Send + Sync {
    fn dispatch(&self, d: &DispatchState, mem: &GpuMemory) -> Result<(), DispatchFault>;

    /// Workgroups retired over every dispatch so far: the progress a host wait can see inside
    /// one long dispatch. An engine that does not count says 0, and waits rely on signals.
    fn workgroups_retired(&self) -> u64 {
        0
    }

    /// Wave instructions executed over every dispatch so far, those of a running dispatch
    /// included (published in batches): what hang detection holds its budgets against
    /// (`crate::work`). An engine that does not count says 0, and waits fall back on the wall
    /// clock alone.
    fn instructions_executed(&self) -> u64 {
        0
    }
}

/// The memory one GPU may touch during a dispatch: every allocation mapped on it.
pub use crate::gpu_memory::GpuMemory;
use crate::gpu_memory::Region;

impl GpuMemory {
    /// The allocations mapped on `gpu_id` now.
    pub fn snapshot(kfd: &EmuKfd, gpu_id: u32) -> GpuMemory {
        GpuMemory::new(
            kfd.allocations()
                .into_iter()
                .filter(|a| a.is_mapped_on(gpu_id))
                .map(|a| Region { va: a.va, len: a.size, host: a.host_addr })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(grid: [u32; 3], xcc: XccShare) -> DispatchState {
        DispatchState {
            arch: "gfx942",
            pgm: 0,
            rsrc1: 0,
            rsrc2: 0,
            rsrc3: 0,
            user_data: [0; 16],
            grid,
            block: [64, 1, 1],
            start: [1, 0, 0],
            wave32: false,
            tmpring_size: 0,
            scratch_base: 0,
            lds_bytes: 0,
            xcc,
            cancel: Cancel::default(),
        }
    }

    #[test]
    fn a_budget_needs_its_wall_clock_and_its_emulated_time_both() {
        let over = |c: &Cancel| matches!(c.check(), Err(DispatchFault::OverBudget { .. }));
        // A whole emulated second at once (a quiet host runs ahead): the wall clock decides.
        let quiet = Cancel::default().with_budget(Duration::from_millis(20));
        quiet.spend(crate::work::NOMINAL_RATE);
        assert!(!over(&quiet));
        std::thread::sleep(Duration::from_millis(25));
        assert!(over(&quiet));
        // The wall clock past, the emulated time not (a loaded host): not yet.
        let loaded = Cancel::default().with_budget(Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(5));
        loaded.spend(crate::work::NOMINAL_RATE / 1000 - 1);
        assert!(!over(&loaded));
        loaded.spend(1);
        assert!(over(&loaded));
    }

    #[test]
    fn xcc_shares_cover_the_grid_once_round_robin_by_chunk() {
        for (grid, chunk, count) in [([7, 3, 2], 1, 8), ([7, 3, 2], 2, 8), ([5, 1, 1], 1, 8), ([9, 4, 1], 3, 4)] {
            let mut runs = std::collections::HashMap::new();
            for index in 0..count {
                let d = state(grid, XccShare { index, count, chunk });
                for n in 0..d.groups() {
                    let id = d.group_id(n);
                    // Chunk c of the flattened grid belongs to XCC c % count.
                    let flat = (id[0] - 1) + grid[0] * (id[1] + grid[1] * id[2]);
                    assert_eq!(flat / chunk % count, index, "{grid:?} chunk {chunk}");
                    *runs.entry(id).or_insert(0) += 1;
                }
            }
            let total = grid.iter().product::<u32>() as usize;
            assert_eq!(runs.len(), total, "{grid:?} chunk {chunk}");
            assert!(runs.values().all(|&r| r == 1));
        }
        // Chunk 0: every XCC that takes the dispatch runs all of it.
        let whole = state([7, 3, 2], XccShare { index: 3, count: 8, chunk: 0 });
        assert_eq!((whole.groups(), whole.group_id(0), whole.group_id(41)), (42, [1, 0, 0], [7, 2, 1]));
    }
}
