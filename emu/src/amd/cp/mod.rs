//! The emulated command processors: one thread per user-mode queue that watches the queue's
//! write pointer, executes what the driver wrote (PM4 on compute queues, SDMA on copy queues),
//! and writes the read pointer back as the hardware does (monotonic 64-bit: dwords for PM4,
//! bytes for SDMA). Kernel dispatches go to a [`WaveEngine`]; every memory access is checked
//! against the allocations the GPU maps; a bad packet or a fault stops the queue and is reported
//! through the emulated KFD's events, as the kernel driver reports a GPU's errors.
//!
//! [`machine`] builds an emulated KFD with its command processors attached.

pub use crate::doorbell::BellStats;
pub use crate::memory_wait::MemoryWaitStats;
use crate::memory_wait::{WaitCounters, Writes};
/// The packet decoder lives with the packet builders, in the drivers crate.
pub use baregpu_drivers::amd::decode;
mod mem;
mod pm4;
mod poll;
pub(crate) mod queue;
mod regs;
mod sdma;

use super::dispatch::{DispatchFault, GpuMemory, WaveEngine};
use super::{EmuKfd, EmuQueue, HwExceptionReport, MemoryFaultReport, QueueKind, QueueObserver};
use baregpu_autogen::amd::kfd as abi;
use baregpu_drivers::Result;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;

/// An emulated machine: an [`EmuKfd`] with one GPU per entry of `archs` and command processors
/// that run dispatches on `engine`.
pub fn machine(archs: &[&str], engine: Arc<dyn WaveEngine>) -> Result<Arc<EmuKfd>> {
    let kfd = EmuKfd::new(archs)?;
    let cp = Arc::new(CommandProcessors::new(Arc::downgrade(&kfd), engine));
    kfd.set_queue_observer(Some(cp));
    Ok(kfd)
}

/// The GPU timestamp clock: 100 MHz, from the host's monotonic clock (the same clock the
/// emulated GET_CLOCK_COUNTERS reports as `gpu_clock_counter`).
pub fn gpu_clock() -> u64 {
    crate::clock::amd_timestamp()
}

/// Why a queue stopped executing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The queue is being destroyed (or the machine is gone).
    Destroyed,
    /// An access outside every allocation mapped on the GPU.
    Fault { va: u64, write: bool, what: String },
    /// A packet the CP cannot execute: the message names it and where it is.
    Bad(String),
    /// The wave engine failed a dispatch.
    Dispatch(DispatchFault),
}

/// What a command processor runs against: the memory one GPU maps, its interrupts, and where
/// a stopped queue is reported. The emulated KFD and the emulated PCI GPU each provide it, so
/// both run this one CP.
pub(crate) trait CpHost: Send + Sync {
    /// Changes whenever the GPU's mappings change (a view then rebuilds its snapshot).
    fn memory_epoch(&self) -> u64;
    /// Every mapping of GPU `gpu_id` now.
    fn memory(&self, gpu_id: u32) -> GpuMemory;
    /// The first unmapped byte at or after `va` (the address a fault names).
    fn fault_va(&self, gpu_id: u32, va: u64) -> u64;
    /// An end-of-pipe or trap interrupt with its context id.
    fn interrupt(&self, gpu_id: u32, context_id: Option<u32>);
    /// The queue stopped executing, and why.
    fn stopped(&self, q: &EmuQueue, label: &str, why: Stop);
    /// A register the host answers on the bus rather than the queue's register file (the PCI
    /// GPU's HDP flush pair at its NBIO base): its value, written first when `write` is
    /// `Some`; `None` where the host has no register at `reg` (the register file keeps it).
    fn bus_register(&self, _reg: u32, _write: Option<u32>) -> Option<u32> {
        None
    }
}

impl CpHost for EmuKfd {
    fn memory_epoch(&self) -> u64 {
        EmuKfd::memory_epoch(self)
    }
    fn memory(&self, gpu_id: u32) -> GpuMemory {
        GpuMemory::snapshot(self, gpu_id)
    }
    fn fault_va(&self, gpu_id: u32, va: u64) -> u64 {
        self.mapped_allocation(gpu_id, va).map_or(va, |a| a.end())
    }
    fn interrupt(&self, gpu_id: u32, context_id: Option<u32>) {
        self.signal_interrupt(gpu_id, context_id);
    }
    fn stopped(&self, q: &EmuQueue, label: &str, why: Stop) {
        report(self, q, label, why)
    }
}

/// Control of one queue's thread.
pub(crate) struct Ctl {
    /// Shared with running dispatches (their cancellation flag).
    stop: Arc<AtomicBool>,
    host: Weak<dyn CpHost>,
    /// The queue's doorbell.
    pub bell: crate::doorbell::Bell,
    /// The machine's engine writes (which end memory waits), shared by every queue.
    pub writes: Arc<Writes>,
    /// What this queue's memory waits did.
    pub waits: WaitCounters,
    /// End-of-pipe writes (RELEASE_MEM with data) this queue's CP made.
    pub eop_writes: std::sync::atomic::AtomicU64,
    /// A dispatch of this queue has waves running (what a drain dequeue waits for).
    pub waves: AtomicBool,
    /// How long one dispatch may run, in ms, before the CP calls it a hang (see
    /// [`pm4::dispatch_budget`]); a device may set its own.
    budget_ms: std::sync::atomic::AtomicU64,
}

impl Ctl {
    /// The budget of this queue's next dispatch (wall clock and emulated time).
    pub fn dispatch_budget(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.budget_ms.load(Ordering::Relaxed))
    }

    /// Whether to stop: the queue is being destroyed, or nobody but us holds the machine.
    pub fn should_stop(&self, holding: bool) -> bool {
        self.stop.load(Ordering::Acquire) || self.host.strong_count() <= holding as usize
    }
}

/// Where a packet sits, for error messages.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Loc {
    /// In the ring: `first` is the monotonic dword index of the batch's first dword.
    Ring {
        first: u64,
        ring_dwords: u64,
    },
    Ib {
        va: u64,
    },
}

impl Loc {
    pub fn describe(&self, i: usize) -> String {
        match *self {
            Loc::Ring { first, ring_dwords } => {
                format!("ring offset {:#x}", ((first + i as u64) % ring_dwords) * 4)
            }
            Loc::Ib { va } => format!("IB {va:#x} offset {:#x}", i * 4),
        }
    }
}

/// The packet being executed, for messages: formatted only when one is needed (an error or a
/// trace line), not for every packet.
#[derive(Clone, Copy)]
pub(crate) struct What {
    pub pm4: bool,
    pub header: u32,
    pub at: Loc,
    pub i: usize,
}

impl std::fmt::Display for What {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pm4 {
            let op = baregpu_autogen::amd::pm4_nv::CP_PACKET3_GET_OPCODE(self.header);
            write!(f, "PM4 {} at {}", decode::pm4_opcode_label(op), self.at.describe(self.i))
        } else {
            write!(f, "SDMA {} at {}", decode::sdma_op_label(self.header), self.at.describe(self.i))
        }
    }
}

/// What an executor works with while running a batch.
pub(crate) struct Cx<'a> {
    pub host: &'a dyn CpHost,
    pub q: &'a EmuQueue,
    pub ctl: &'a Ctl,
    pub mem: &'a mut mem::GpuView,
}

/// A packet language's executor, with the state it keeps between batches (registers).
pub(crate) trait Executor: Send {
    /// Run the whole packets of `words`; `progress(n)` after each, with the dwords consumed.
    fn run(
        &mut self,
        cx: &mut Cx<'_>,
        words: &[u32],
        at: Loc,
        depth: u32,
        progress: &mut dyn FnMut(usize),
    ) -> std::result::Result<(), Stop>;
}

/// Indirect buffers may nest this deep (ring → IB → IB ...).
pub(crate) const MAX_IB_DEPTH: u32 = 4;

/// The thread of one queue's command processor.
pub(crate) struct Running {
    pub(crate) ctl: Arc<Ctl>,
    thread: JoinHandle<()>,
}

impl Running {
    /// Start executing `q` against `host`: PM4 on a compute queue, SDMA on a copy queue.
    pub(crate) fn start(
        host: Weak<dyn CpHost>,
        q: EmuQueue,
        engine: Arc<dyn WaveEngine>,
        arch: &'static str,
        xcc: queue::Xcc,
        writes: Arc<Writes>,
        label: String,
    ) -> std::io::Result<Running> {
        let ctl = Arc::new(Ctl {
            stop: Arc::new(AtomicBool::new(false)),
            host,
            bell: crate::doorbell::Bell::default(),
            writes,
            waits: WaitCounters::default(),
            eop_writes: Default::default(),
            waves: AtomicBool::new(false),
            budget_ms: (pm4::dispatch_budget().as_millis() as u64).into(),
        });
        let c = ctl.clone();
        let thread = crate::engine_thread::spawn(format!("emu-cp-q{}", q.queue_id), move || {
            queue::run(c, q, engine, arch, xcc, label)
        })?;
        Ok(Running { ctl, thread })
    }

    /// Gives the queue's dispatches from the next one on `budget` each (wall clock and emulated time).
    pub(crate) fn set_dispatch_budget(&self, budget: std::time::Duration) {
        self.ctl.budget_ms.store(budget.as_millis() as u64, Ordering::Relaxed);
    }

    /// Whether a dispatch of the queue still has waves running.
    pub(crate) fn waves_running(&self) -> bool {
        self.ctl.waves.load(Ordering::Acquire)
    }

    /// Stop the thread and wait for it (it stops using the queue's memory before this returns).
    pub(crate) fn stop(self) {
        self.ctl.stop.store(true, Ordering::Release);
        self.ctl.bell.ring();
        self.thread.thread().unpark();
        if self.thread.thread().id() != std::thread::current().id() && self.thread.join().is_err() {
            log::error!("emulated GPU: the thread of a queue panicked");
        }
    }
}

/// The command processors of every GPU of one emulated KFD: the [`QueueObserver`] that starts
/// a thread per queue and stops it before the queue goes away.
pub struct CommandProcessors {
    kfd: Weak<EmuKfd>,
    engine: Arc<dyn WaveEngine>,
    running: Mutex<HashMap<u32, Running>>,
    /// Every engine write of the machine (all its GPUs: one KFD is one machine).
    writes: Arc<Writes>,
}

impl CommandProcessors {
    pub fn new(kfd: Weak<EmuKfd>, engine: Arc<dyn WaveEngine>) -> CommandProcessors {
        CommandProcessors { kfd, engine, running: Mutex::new(HashMap::new()), writes: Arc::default() }
    }

    /// The machine's engine writes (see [`crate::memory_wait`]).
    pub fn memory_writes(&self) -> &Writes {
        &self.writes
    }
}

impl std::fmt::Debug for CommandProcessors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.running.lock().map(|r| r.len()).unwrap_or(0);
        f.debug_struct("CommandProcessors").field("queues", &n).finish_non_exhaustive()
    }
}

impl CommandProcessors {
    /// What the doorbell of queue `queue_id` did so far (None: no thread runs it).
    pub fn bell_stats(&self, queue_id: u32) -> Option<BellStats> {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).get(&queue_id).map(|r| r.ctl.bell.stats())
    }

    /// End-of-pipe writes (signals, timestamps, mailbox writes) the CP of queue `queue_id` made
    /// so far (None: no thread runs it). Where several XCCs execute one ring, each XCC's queue
    /// counts its own: a signal the driver did not keep to one XCC is counted by every one.
    pub fn eop_writes(&self, queue_id: u32) -> Option<u64> {
        let r = self.running.lock().unwrap_or_else(|e| e.into_inner());
        r.get(&queue_id).map(|r| r.ctl.eop_writes.load(Ordering::Relaxed))
    }

    /// What the memory waits of queue `queue_id` did so far (None: no thread runs it).
    pub fn wait_stats(&self, queue_id: u32) -> Option<MemoryWaitStats> {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).get(&queue_id).map(|r| r.ctl.waits.stats())
    }
}

impl QueueObserver for CommandProcessors {
    fn queue_created(&self, kfd: &EmuKfd, q: &EmuQueue) {
        if q.kind == QueueKind::ComputeAql {
            log::warn!("emulated GPU {}: AQL queue {} is not executed (PM4 queues only)", q.gpu_id, q.queue_id);
            return;
        }
        let Some(gpu) = kfd.gpu(q.gpu_id) else { return };
        let label = format!(
            "emulated {} (gpu {}) {} queue {}",
            gpu.spec.arch,
            q.gpu_id,
            if q.kind.is_sdma() { "SDMA" } else { "compute" },
            q.queue_id
        );
        // On a partition of several XCCs a PM4 queue is executed by the CP of its target XCC.
        let xccs = gpu.spec.num_xcc.max(1);
        let xcc = queue::Xcc { index: if xccs > 1 { q.pm4_target_xcc } else { 0 }, count: xccs };
        let host: Weak<dyn CpHost> = self.kfd.clone();
        match Running::start(host, q.clone(), self.engine.clone(), gpu.spec.arch, xcc, self.writes.clone(), label) {
            Ok(r) => {
                self.running.lock().unwrap_or_else(|e| e.into_inner()).insert(q.queue_id, r);
            }
            Err(e) => log::error!("emulated GPU {}: no thread for queue {}: {e}", q.gpu_id, q.queue_id),
        }
    }

    fn doorbell_rung(&self, queue_id: u32) {
        if let Some(r) = self.running.lock().unwrap_or_else(|e| e.into_inner()).get(&queue_id) {
            r.ctl.bell.ring();
        }
    }

    fn queue_destroyed(&self, _kfd: &EmuKfd, q: &EmuQueue) {
        let Some(r) = self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(&q.queue_id) else { return };
        r.stop();
    }
}

/// Report why a queue stopped, as the kernel driver would. The reason goes to the log at debug
/// level where the report carries it: the runtime's error is the line a user sees.
pub(crate) fn report(kfd: &EmuKfd, q: &EmuQueue, label: &str, why: Stop) {
    let fault = |va: u64| MemoryFaultReport { va, not_present: true, ..Default::default() };
    let hang = HwExceptionReport { whole_gpu_reset: false, ecc: false, memory_lost: false };
    match why {
        Stop::Destroyed => {}
        Stop::Fault { va, write, what } => {
            log::debug!(
                "{label}: memory fault: {} VA {va:#x} is not mapped on the GPU: {what}; queue stopped",
                if write { "write to" } else { "read of" }
            );
            kfd.report_memory_fault(q.gpu_id, fault(va));
        }
        Stop::Bad(msg) => {
            log::debug!("{label}: {msg}; queue stopped");
            kfd.report_hw_exception(q.gpu_id, hang);
        }
        Stop::Dispatch(f) => {
            // KFD's reports carry no PC or instruction: a wave exception stays visible by
            // default, as the kernel's own log would show the wave's state.
            let exception = match f {
                DispatchFault::Illegal { .. } => Some(abi::EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION),
                DispatchFault::Trap { .. } => Some(abi::EC_QUEUE_WAVE_TRAP),
                _ => None,
            };
            match exception {
                Some(code) => {
                    log::warn!("{label}: {f}; queue stopped");
                    // The SQ interrupt records the wave's exception; the halted queue then
                    // hangs until the CP's hang detection resets the engine.
                    kfd.report_queue_exception(q.queue_id, code);
                }
                None => log::debug!("{label}: dispatch failed: {f}; queue stopped"),
            }
            match f {
                DispatchFault::Memory { va, .. } => kfd.report_memory_fault(q.gpu_id, fault(va)),
                DispatchFault::Illegal { .. } | DispatchFault::Trap { .. } | DispatchFault::OverBudget { .. } => {
                    kfd.report_hw_exception(q.gpu_id, hang)
                }
                // Only the queue's own teardown cancels, and that reports nothing.
                DispatchFault::Cancelled => {}
            }
        }
    }
}
