//! The runtime core: ONE device, generic over a vendor [`Backend`] that only encodes and submits
//! commands. Memory checks, the signal pool, the device timeline, the per-queue completion
//! counters, the argument ring, the last-submitted record, launch, copy, synchronize, waits with
//! their timeouts and fault reports, and recovery are written here once, for AMD and NVIDIA.

pub mod backend;
mod close;
mod last;
mod launch;
mod memory;
mod pool;
mod queue;
mod signals;
mod sync;
mod wait;

pub use backend::{
    ArgsBlock, Backend, ComputeEncoder, CopyEncoder, DeviceBuffer, Encoder, Mem, Patch, PatchWidth, Queue, SubmitError,
};
pub use launch::Submitted;
pub(crate) use memory::copy_into as memory_copy_into;
pub use queue::{ComputeQueue, CopyQueue};

use crate::alloc::Ring;
use crate::signal::Signal;
use crate::timeline::Timeline;
use crate::timeout::ProgressProbe;
use crate::trace::Trace;
use crate::{Error, Result};
use last::Last;
use pool::{Pages, PeerCell};
use std::mem::ManuallyDrop;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// What the device lock guards: everything a submission reads and advances.
pub(crate) struct State {
    /// The HCQ timeline: launches and copies wait for the previous value and signal the next.
    pub(crate) timeline: Timeline,
    /// Per hardware queue, the value each submission signals at its end (in order per queue):
    /// what frees argument memory and what synchronize waits for.
    pub(crate) compute_done: Timeline,
    pub(crate) copy_done: Timeline,
    /// Argument blocks of eager launches.
    pub(crate) args: Ring,
    pub(crate) free_signals: Vec<Signal>,
    /// What the last submission was, for error reports.
    pub(crate) last: Last,
    /// Set after a fault or hang until recovery (or for good where the backend cannot recover).
    pub(crate) broken: Option<String>,
}

/// A GPU of either vendor: see the module doc.
pub struct Device<B: Backend> {
    /// `amd:0`, `emu-nv:sm_90`: what errors call it.
    pub label: String,
    /// `gfx1100`, `sm_90`.
    pub arch: String,
    /// How long a wait may go without progress.
    pub timeout: Duration,
    /// Shared: a device closed while its signals live hands it to their pages (close.rs), and
    /// peers map new signal pages for it (pool.rs).
    backend: Arc<B>,
    /// Work retired inside a dispatch, where the device can count it (see [`ProgressProbe`]).
    progress: Option<ProgressProbe>,
    /// `BAREGPU_TRACE`: where submitted command streams are logged, decoded.
    trace: Option<Trace>,
    args_mem: Option<B::Buffer>,
    /// The signal pool's pages (pool.rs); see the drop in `close.rs`.
    pages: Mutex<Pages<B>>,
    /// This device's backend as the pools of devices that share signals with it see it.
    as_peer: PeerCell<B>,
    /// ManuallyDrop: the signals it holds go before the page is freed.
    state: ManuallyDrop<Mutex<State>>,
    /// Names this device among the others of the process (peer mappings record it).
    id: u64,
    /// This device's memory mapped for peers: `(va, bytes, peer id)`, until freed.
    peer_maps: Mutex<Vec<(u64, u64, u64)>>,
}

/// The next [`Device::id`].
static NEXT_DEVICE_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(crate) fn dev_err(label: &str, msg: impl Into<String>) -> Error {
    Error::Device { device: label.to_string(), msg: msg.into() }
}

impl<B: Backend> Device<B> {
    /// The device over `backend`: its signal page, timelines and argument ring.
    pub fn new(backend: B, label: &str, arch: &str) -> Result<Device<B>> {
        let first = pool::alloc_page(&backend)?;
        let args_mem = match backend.alloc(B::ARGS_BYTES, Mem::Args) {
            Ok(m) => m,
            Err(e) => {
                drop(first.page);
                backend.free(first.mem)?;
                return Err(e);
            }
        };
        let mut free_signals = first.page.slots(B::WIDTH);
        free_signals.reverse();
        let mut slot = || free_signals.pop().expect("a fresh signal page has slots");
        let (timeline, compute_done, copy_done) =
            (Timeline::new(slot(), slot()), Timeline::new(slot(), slot()), Timeline::new(slot(), slot()));
        let state = State {
            timeline,
            compute_done,
            copy_done,
            args: Ring::new(B::ARGS_BYTES),
            free_signals,
            last: Last::Nothing,
            broken: None,
        };
        Ok(Device {
            label: label.to_string(),
            arch: arch.to_string(),
            timeout: crate::timeout::no_progress_timeout(),
            backend: Arc::new(backend),
            progress: None,
            trace: Trace::from_env(),
            args_mem: Some(args_mem),
            pages: Mutex::new(Pages::new(first)),
            as_peer: Arc::new(Mutex::new(None)),
            state: ManuallyDrop::new(Mutex::new(state)),
            id: NEXT_DEVICE_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            peer_maps: Mutex::new(Vec::new()),
        })
    }

    /// Count work the device retires inside a dispatch as progress in waits, and hold the
    /// timeout against the work it runs too (an emulated GPU; see [`ProgressProbe`]).
    pub fn with_progress(mut self, probe: ProgressProbe) -> Self {
        self.progress = Some(probe);
        self.timeout = crate::timeout::measured_timeout();
        self
    }

    /// The vendor half: its encoders and vendor-only state.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn err(&self, msg: impl Into<String>) -> Error {
        dev_err(&self.label, msg)
    }

    pub(crate) fn trace(&self) -> Option<&Trace> {
        self.trace.as_ref()
    }

    /// See [`Backend::port`].
    pub(crate) fn port(&self) -> &crate::port::Port {
        self.backend.port()
    }

    fn args_base(&self) -> u64 {
        self.args_mem.as_ref().map_or(0, |m| m.va())
    }

    pub(crate) fn queue_name(q: Queue) -> &'static str {
        B::QUEUE_NAMES[q as usize]
    }

    pub(crate) fn usable(&self, st: &State) -> Result<()> {
        match &st.broken {
            Some(why) => Err(self.err(B::broken_message(why))),
            None => Ok(()),
        }
    }
}
