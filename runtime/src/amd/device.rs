//! An AMD GPU driven through KFD: memory, signals, the device timeline, a PM4 compute queue and
//! an SDMA copy queue, programs and kernel launches. The same code drives a real GPU (host OS)
//! and the emulated one (the emulated KFD behind the same OS boundary).

use super::bound::BoundCommands;
use super::hdp::{self, HdpFlush};
use super::queue::{ComputeQueue, CopyQueue};
use super::ring::{HwRing, RingError};
use crate::alloc::Ring;
use crate::program::{ArgValue, CodeObject, Launch};
use crate::signal::{Signal, WaitError, Width, SIGNAL_BYTES};
use crate::timeline::Timeline;
use crate::timeout::{progressed, ProgressProbe};
use crate::{Error, Result};
use baregpu_drivers::amd::kfd::{EventKind, Kfd, KfdDevice, KfdEvent, KfdMemory, MemKind, QueueKind};
use baregpu_drivers::amd::pm4::{Compare, Pm4, Pm4Generation, ReleaseData};
use baregpu_drivers::amd::sdma::{Sdma, SdmaGeneration};
use baregpu_drivers::amd::topology;
use baregpu_drivers::os::Os;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

const COMPUTE_RING: u64 = 1 << 18;
const SDMA_RING: u64 = 1 << 18;
const KERNARG_BYTES: u64 = 1 << 20;
const EVENT_PAGE: u64 = 0x8000;
const SIGNAL_PAGE: u64 = 0x1000;
/// GPU timestamps count at 100 MHz.
pub const TIMESTAMP_HZ: u64 = 100_000_000;

/// Device memory with a GPU virtual address (equal to its CPU address where it is CPU-mapped).
#[derive(Debug)]
pub struct Buffer {
    mem: KfdMemory,
}

impl Buffer {
    pub fn va(&self) -> u64 {
        self.mem.va
    }
    pub fn size(&self) -> u64 {
        self.mem.size
    }
    pub fn host_visible(&self) -> bool {
        self.mem.cpu_mapped
    }
}

/// A code object loaded into device memory.
#[derive(Debug)]
pub struct Program {
    pub code: CodeObject,
    image: Buffer,
}

impl Program {
    pub fn base(&self) -> u64 {
        self.image.va()
    }
}

/// The host-side record of a submitted launch.
#[derive(Debug, Clone, Copy)]
pub struct Submitted {
    /// Timeline value that marks its completion.
    pub value: u64,
    start: Option<Signal>,
    end: Option<Signal>,
}

pub(crate) struct State {
    /// Always present; an Option so that drop and recovery can take it out.
    pub(crate) compute: Option<HwRing>,
    pub(crate) copy: Option<HwRing>,
    /// The HCQ timeline: launches and copies wait for the previous value and signal the next.
    pub(crate) timeline: Timeline,
    /// Per hardware queue, the value each submission signals at its end (in-order per queue):
    /// what frees kernarg memory and what synchronize waits for.
    pub(crate) compute_done: Timeline,
    pub(crate) copy_done: Timeline,
    pub(crate) kernarg_base: u64,
    pub(crate) kernargs: Ring,
    /// Pages the device itself holds (signals, events, kernargs), freed when it closes.
    pub(crate) owned: Vec<KfdMemory>,
    pub(crate) free_signals: Vec<Signal>,
    pub(crate) scratch: Option<KfdMemory>,
    pub(crate) dispatches: u64,
    /// What the last submission was, for error reports.
    pub(crate) last: super::queue::Last,
    /// Set after a fault or hang until the queues are rebuilt.
    pub(crate) broken: Option<String>,
}

pub struct AmdDevice {
    dev: KfdDevice,
    pub label: String,
    pub arch: String,
    pub(crate) pm4: &'static Pm4Generation,
    pub(crate) sdma: &'static SdmaGeneration,
    hdp: Option<HdpFlush>,
    pub(crate) lds_limit: u32,
    /// The queue event's slot in the KFD event page: the GPU writes it, then interrupts.
    mailbox: u64,
    events: [KfdEvent; 3],
    /// How long a wait may go without progress.
    pub timeout: Duration,
    /// `BAREGPU_TRACE`: where submitted command streams are logged, decoded.
    pub(crate) trace: Option<super::trace::Trace>,
    /// Work retired inside a dispatch, where the device can count it (see [`ProgressProbe`]).
    progress: Option<ProgressProbe>,
    state: Mutex<State>,
}

pub(crate) fn dev_err(label: &str, msg: impl Into<String>) -> Error {
    Error::Device { device: label.to_string(), msg: msg.into() }
}

impl AmdDevice {
    /// Open AMD GPU `index` of the KFD behind `os`; `label` names it in errors (`amd:0`, `emu:gfx1100`).
    pub fn open(os: Arc<dyn Os>, index: usize, label: &str) -> Result<AmdDevice> {
        let gpus = topology::discover(&*os)?;
        let gpu = gpus.into_iter().nth(index).ok_or_else(|| dev_err(label, format!("no AMD GPU {index}")))?;
        let arch = gpu.arch.clone();
        let pm4 = Pm4Generation::for_arch(&arch).ok_or_else(|| dev_err(label, format!("{arch} is not supported")))?;
        let sdma =
            SdmaGeneration::for_arch(&arch).ok_or_else(|| dev_err(label, format!("{arch} has no SDMA support")))?;
        let hdp = hdp::discover(&*os, gpu.render_minor);
        let kfd = Kfd::open(os)?;
        let dev = KfdDevice::open(kfd, gpu)?.named(label);
        let lds_limit = dev.props.get("lds_size_in_kb").unwrap_or(64) as u32 * 1024;

        let signal_page = dev.alloc_internal(SIGNAL_PAGE, MemKind::Uncached)?;
        let event_page = dev.alloc_internal(EVENT_PAGE, MemKind::Uncached)?;
        let queue_event = dev.create_event(EventKind::Signal, true, Some(event_page.handle))?;
        // Auto-reset: a fault is reported to one wait, not to every wait after recovery.
        let fault_event = dev.create_event(EventKind::MemoryFault, true, None)?;
        let hw_event = dev.create_event(EventKind::HwException, true, None)?;

        let mut free_signals: Vec<Signal> = (0..SIGNAL_PAGE as usize / SIGNAL_BYTES)
            // SAFETY: slots of the signal page, which lives as long as the device.
            .map(|i| unsafe { Signal::from_addr(signal_page.va as usize + i * SIGNAL_BYTES, Width::Bits32) })
            .rev()
            .collect();
        let mut slot = || free_signals.pop().expect("a fresh signal page has slots");
        let (timeline, compute_done, copy_done) =
            (Timeline::new(slot(), slot()), Timeline::new(slot(), slot()), Timeline::new(slot(), slot()));
        let compute = HwRing::new(dev.create_queue(QueueKind::Compute, COMPUTE_RING)?);
        let copy = match dev.create_queue(QueueKind::Sdma, SDMA_RING) {
            Ok(q) => Some(HwRing::new(q)),
            Err(e) => {
                log::warn!("{label}: no SDMA queue ({e}); copies go through the CPU");
                None
            }
        };
        let kernarg_mem = dev.alloc_internal(KERNARG_BYTES, MemKind::Uncached)?;
        let mailbox = event_page.va + queue_event.slot as u64 * 8;
        let state = State {
            compute: Some(compute),
            copy,
            timeline,
            compute_done,
            copy_done,
            kernarg_base: kernarg_mem.va,
            kernargs: Ring::new(KERNARG_BYTES),
            // Not the event page: KFD refuses to free it (EPERM) while the process lives.
            owned: vec![signal_page, kernarg_mem],
            free_signals,
            scratch: None,
            dispatches: 0,
            last: Default::default(),
            broken: None,
        };
        log::info!("{label}: {arch} open (hdp flush {hdp:?})");
        Ok(AmdDevice {
            dev,
            label: label.to_string(),
            arch,
            pm4,
            sdma,
            hdp,
            lds_limit,
            mailbox,
            events: [queue_event, fault_event, hw_event],
            timeout: crate::timeout::no_progress_timeout(),
            trace: super::trace::Trace::from_env(),
            progress: None,
            state: Mutex::new(state),
        })
    }

    /// Count a dispatch's retired workgroups as progress in waits (an emulated GPU; see
    /// [`ProgressProbe`]).
    pub fn with_progress(mut self, probe: ProgressProbe) -> AmdDevice {
        self.progress = Some(probe);
        self.timeout = crate::timeout::measured_timeout();
        self
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn kfd_device(&self) -> &KfdDevice {
        &self.dev
    }

    /// Device memory the CPU can also map (through the BAR on a real GPU).
    pub fn alloc(&self, size: u64) -> Result<Buffer> {
        Ok(Buffer { mem: self.dev.alloc(size, MemKind::Vram { cpu_visible: true })? })
    }

    pub(crate) fn alloc_kind(&self, size: u64, kind: MemKind) -> Result<Buffer> {
        Ok(Buffer { mem: self.dev.alloc(size, kind)? })
    }

    /// `len` bytes at `offset` lie inside `b`.
    pub(crate) fn check_span(&self, b: &Buffer, offset: u64, len: u64) -> Result<()> {
        if offset.checked_add(len).is_none_or(|end| end > b.size()) {
            return Err(dev_err(
                &self.label,
                format!("{len} bytes at offset {offset} exceed a {}-byte buffer", b.size()),
            ));
        }
        Ok(())
    }

    /// Cacheable host memory the GPU maps.
    pub fn alloc_host(&self, size: u64) -> Result<Buffer> {
        Ok(Buffer { mem: self.dev.alloc(size, MemKind::Host)? })
    }

    pub fn free(&self, b: Buffer) -> Result<()> {
        Ok(self.dev.free(b.mem)?)
    }

    fn check_range(&self, b: &Buffer, offset: u64, len: usize) -> Result<*mut u8> {
        if !b.mem.cpu_mapped {
            return Err(dev_err(&self.label, format!("buffer at {:#x} is not CPU-visible", b.va())));
        }
        if offset.checked_add(len as u64).is_none_or(|end| end > b.size()) {
            return Err(dev_err(
                &self.label,
                format!("{len} bytes at offset {offset} exceed a {}-byte buffer", b.size()),
            ));
        }
        Ok((b.va() + offset) as *mut u8)
    }

    /// Copy host bytes into a buffer. The device must not be using that range.
    pub fn write(&self, b: &Buffer, offset: u64, data: &[u8]) -> Result<()> {
        let dst = self.check_range(b, offset, data.len())?;
        // SAFETY: in-bounds, CPU-mapped, and not in use by the GPU (the caller's contract).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
        Ok(())
    }

    /// Copy buffer bytes to the host, after the work that wrote them completed.
    pub fn read(&self, b: &Buffer, offset: u64, out: &mut [u8]) -> Result<()> {
        let src = self.check_range(b, offset, out.len())?;
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        // SAFETY: in-bounds and CPU-mapped; the GPU finished writing (synchronize before read).
        unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Load a code object: its image, relocated for where it lands, in device memory.
    pub fn load(&self, code: CodeObject) -> Result<Program> {
        if code.arch != self.arch {
            return Err(Error::Program(format!(
                "the code object is for {}, but {} is {}",
                code.arch, self.label, self.arch
            )));
        }
        let image =
            Buffer { mem: self.dev.alloc_internal(code.image.len() as u64, MemKind::Vram { cpu_visible: true })? };
        let bytes = code.relocated(image.va());
        self.write(&image, 0, &bytes)?;
        Ok(Program { code, image })
    }

    pub fn unload(&self, p: Program) -> Result<()> {
        self.free(p.image)
    }

    pub(crate) fn memory_barrier(&self, q: &mut Pm4) {
        if let Some(h) = self.hdp {
            q.write_then_wait_reg(h.req, h.done, 0xffff_ffff, 0xffff_ffff, Compare::GreaterEqual);
        }
        q.acquire_mem(true);
    }

    /// Write the queue event's mailbox and interrupt: KFD then wakes a host in WAIT_EVENTS.
    pub(crate) fn interrupt(&self, q: &mut Pm4) {
        let ev = self.events[0].id;
        q.release_mem(self.mailbox, ReleaseData::U32(ev), false, Some(ev));
    }

    pub(crate) fn interrupt_sdma(&self, q: &mut Sdma) {
        let ev = self.events[0].id;
        q.fence(self.mailbox, ev);
        q.trap(ev);
    }

    fn take_signal(st: &mut State, label: &str) -> Result<Signal> {
        let s = st.free_signals.pop().ok_or_else(|| dev_err(label, "out of signal slots"))?;
        s.set(0);
        s.set_timestamp(0);
        Ok(s)
    }

    /// A signal slot of the device's signal page, value and timestamp zeroed.
    pub fn new_signal(&self) -> Result<Signal> {
        Self::take_signal(&mut self.state(), &self.label)
    }

    pub fn free_signal(&self, s: Signal) {
        self.state().free_signals.push(s);
    }

    /// The device timeline's signal and the last value submitted on it.
    pub fn timeline(&self) -> (Signal, u64) {
        let st = self.state();
        (st.timeline.signal(), st.timeline.last())
    }

    /// Scratch for `per_lane` private bytes and `waves` waves of a dispatch: the buffer and the
    /// COMPUTE_TMPRING_SIZE value. Sized for the waves that can be resident at once or that the
    /// dispatch has, whichever is fewer (the hardware reuses a slot when a wave ends); grown
    /// when a later dispatch needs more, never shrunk.
    pub(crate) fn scratch(&self, st: &mut State, per_lane: u32, waves: u64) -> Result<(u64, u32)> {
        // Architected flat scratch: per-wave size in 256-byte units, for a wave of 64 lanes.
        let per_wave = (per_lane as u64 * 64).div_ceil(256) * 256;
        let cus = self.dev.gpu.compute_units as u64;
        let slots = self.dev.props.get("max_slots_scratch_cu").unwrap_or(32).max(1);
        let waves = (cus * slots).min(0xfff).min(waves).max(1);
        let need = per_wave * waves;
        if st.scratch.as_ref().is_none_or(|m| m.size < need) {
            if st.scratch.is_some() {
                // Earlier dispatches may still use the old buffer: let them finish first.
                let (sig, last) = (st.compute_done.signal(), st.compute_done.last());
                self.wait_signal(st, sig, last, "compute")?;
            }
            if let Some(m) = st.scratch.take() {
                self.dev.free(m)?;
            }
            let mem = self.dev.alloc_internal(need, MemKind::Vram { cpu_visible: false }).map_err(|e| {
                dev_err(&self.label, format!("scratch of {per_lane} bytes per work-item for {waves} waves: {e}"))
            })?;
            st.scratch = Some(mem);
        }
        let m = st.scratch.as_ref().expect("just allocated");
        Ok((m.va, (waves as u32) | (((per_wave / 256) as u32) << 12)))
    }

    fn usable(&self, st: &State) -> Result<()> {
        match &st.broken {
            Some(why) => Err(dev_err(&self.label, format!("needs recovery after: {why}"))),
            None => Ok(()),
        }
    }

    /// A compute-queue builder. It holds the device until submitted (or dropped).
    pub fn compute_queue(&self) -> Result<ComputeQueue<'_>> {
        let st = self.state();
        self.usable(&st)?;
        let done = st.compute_done.last() + 1;
        Ok(ComputeQueue { dev: self, st, q: Pm4::new(self.pm4), done, what: Vec::new() })
    }

    /// A copy-queue builder (SDMA). Errors when the device has no SDMA queue.
    pub fn copy_queue(&self) -> Result<CopyQueue<'_>> {
        let st = self.state();
        self.usable(&st)?;
        if st.copy.is_none() {
            return Err(dev_err(&self.label, "no SDMA queue"));
        }
        let done = st.copy_done.last() + 1;
        Ok(CopyQueue { dev: self, st, q: Sdma::new(self.sdma), done, bytes: 0 })
    }

    /// Launch `kernel` of `prog`, ordered on the device timeline. With `profile` the launch is
    /// bracketed by GPU timestamps.
    pub fn launch(
        &self,
        prog: &Program,
        kernel: &str,
        args: &[ArgValue],
        shape: &Launch,
        profile: bool,
    ) -> Result<Submitted> {
        let (start, end) = if profile { (Some(self.new_signal()?), Some(self.new_signal()?)) } else { (None, None) };
        let mut q = self.compute_queue()?;
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal();
        q.wait(timeline, value - 1).memory_barrier();
        if let Some(s) = start {
            q.timestamp(s);
        }
        let launched = q.exec(prog, kernel, args, shape);
        if let Err(e) = launched {
            // Nothing reached the ring: take the timeline value back.
            q.st.timeline.jump_to(value);
            return Err(e);
        }
        if let Some(s) = end {
            q.timestamp(s);
        }
        q.signal(timeline, value);
        q.submit()?;
        Ok(Submitted { value, start, end })
    }

    pub(crate) fn ring_error(&self, queue: &'static str, e: RingError, last: &str) -> Error {
        match e {
            RingError::TooLarge { dwords, ring_dwords } => {
                dev_err(&self.label, format!("{dwords} dwords do not fit the {ring_dwords}-dword {queue} ring"))
            }
            RingError::Stalled { in_flight } => Error::Timeout {
                device: self.label.clone(),
                queue,
                secs: self.timeout.as_secs_f64(),
                reached: in_flight,
                wanted: 0,
                last: last.to_string(),
            },
        }
    }

    /// Sleep on the KFD events between polls; a reported fault ends the wait.
    pub(crate) fn wait_signal(&self, st: &State, sig: Signal, value: u64, queue: &'static str) -> Result<()> {
        let kfd = self.dev.kfd().clone();
        let events = self.events;
        let compute_queue = st.compute.as_ref().map(|r| r.queue.id);
        let probe = self.progress.as_ref();
        let mut seen = probe.map_or(0, |p| p());
        let mut sleep = |d: Duration| -> std::result::Result<bool, WaitError> {
            let ms = d.as_millis().clamp(1, 200) as u32;
            match kfd.wait_events(&events, ms) {
                Ok(out) => match (out.memory_fault, out.hw_exception) {
                    (Some(f), _) => Err(WaitError::Fault(f.to_string())),
                    // The reset says only that the engine stopped; the queue's exception says why.
                    (_, Some(h)) => match compute_queue.and_then(|q| self.dev.queue_exception(q)) {
                        Some(why) => Err(WaitError::Fault(format!("{why}; the engine was reset"))),
                        None => Err(WaitError::Fault(h.to_string())),
                    },
                    _ => Ok(progressed(probe, &mut seen)),
                },
                Err(e) => Err(WaitError::Fault(format!("waiting on KFD events: {e}"))),
            }
        };
        sig.wait(value, self.timeout, &mut sleep).map_err(|e| match e {
            WaitError::Timeout { last } => Error::Timeout {
                device: self.label.clone(),
                queue,
                secs: self.timeout.as_secs_f64(),
                reached: last,
                wanted: value,
                last: st.last.to_string(),
            },
            WaitError::Fault(fault) => {
                Error::Fault { device: self.label.clone(), queue, fault, last: st.last.to_string() }
            }
        })
    }

    /// Wait for everything submitted so far on both queues. A fault or timeout rebuilds the
    /// queues (the device stays usable) and is returned.
    pub fn synchronize(&self) -> Result<()> {
        let mut st = self.state();
        self.usable(&st)?;
        let waits = [
            (st.compute_done.signal(), st.compute_done.last(), "compute"),
            (st.copy_done.signal(), st.copy_done.last(), "SDMA"),
        ];
        for (sig, value, queue) in waits {
            if let Err(e) = self.wait_signal(&st, sig, value, queue) {
                st.broken = Some(e.to_string());
                drop(st);
                self.recover()?;
                return Err(e);
            }
        }
        // Idle: the counters may rewind before the GPU's 32-bit compares wrap.
        st.timeline.maybe_wrap();
        st.copy_done.maybe_wrap();
        if st.compute_done.maybe_wrap() {
            st.kernargs = Ring::new(KERNARG_BYTES);
        }
        Ok(())
    }

    /// Continue the device timeline from `value` once everything submitted has finished: a
    /// bring-up and test hook that reaches the 32-bit wrap without 2^31 submissions.
    pub fn jump_timeline(&self, value: u64) -> Result<()> {
        self.synchronize()?;
        let mut st = self.state();
        if value == 0 {
            return Err(dev_err(&self.label, "the timeline starts at 1"));
        }
        st.timeline.signal().set(value - 1);
        st.timeline.jump_to(value);
        Ok(())
    }

    /// Wait until the device timeline reaches `value`.
    pub fn wait_value(&self, value: u64) -> Result<()> {
        self.wait(self.timeline().0, value)
    }

    /// Wait until `signal` reaches `value`, sleeping on the device's events.
    pub fn wait(&self, signal: Signal, value: u64) -> Result<()> {
        let st = self.state();
        self.wait_signal(&st, signal, value, "compute")
    }

    /// GPU time of a profiled launch, in microseconds (after synchronize).
    pub fn elapsed_us(&self, s: &Submitted) -> Option<f64> {
        let (a, b) = (s.start?.timestamp(), s.end?.timestamp());
        (b >= a && a != 0).then(|| (b - a) as f64 * 1e6 / TIMESTAMP_HZ as f64)
    }

    /// Return a launch's timestamp signals to the pool.
    pub fn release(&self, s: Submitted) {
        let mut st = self.state();
        st.free_signals.extend(s.start);
        st.free_signals.extend(s.end);
    }

    /// Rebuild the queues after a fault or hang so the device is usable again.
    pub fn recover(&self) -> Result<()> {
        let mut st = self.state();
        for ring in [st.compute.take(), st.copy.take()].into_iter().flatten() {
            if let Err(e) = self.dev.destroy_queue(ring.queue) {
                log::warn!("{}: destroying a faulted queue: {e}", self.label);
            }
        }
        st.compute = Some(HwRing::new(self.dev.create_queue(QueueKind::Compute, COMPUTE_RING)?));
        st.copy = self.dev.create_queue(QueueKind::Sdma, SDMA_RING).ok().map(HwRing::new);
        // The old counters may never reach their last values: start fresh ones.
        for which in 0..3 {
            let (a, b) = (Self::take_signal(&mut st, &self.label)?, Self::take_signal(&mut st, &self.label)?);
            let fresh = Timeline::new(a, b);
            let old = match which {
                0 => std::mem::replace(&mut st.timeline, fresh),
                1 => std::mem::replace(&mut st.compute_done, fresh),
                _ => std::mem::replace(&mut st.copy_done, fresh),
            };
            let (x, y) = old.slots();
            st.free_signals.extend([x, y]);
        }
        st.kernargs = Ring::new(KERNARG_BYTES);
        st.broken = None;
        log::debug!("{}: queues rebuilt after a fault", self.label);
        Ok(())
    }

    /// Copy `bytes` between device buffers on the SDMA engine (or the CPU when there is none),
    /// ordered on the device timeline.
    pub fn copy(&self, dst: &Buffer, dst_off: u64, src: &Buffer, src_off: u64, bytes: u64) -> Result<()> {
        for (b, o) in [(dst, dst_off), (src, src_off)] {
            if o.checked_add(bytes).is_none_or(|e| e > b.size()) {
                return Err(dev_err(
                    &self.label,
                    format!("copy of {bytes} bytes at {o} exceeds a {}-byte buffer", b.size()),
                ));
            }
        }
        let mut q = match self.copy_queue() {
            Ok(q) => q,
            Err(_) => {
                self.synchronize()?;
                let mut tmp = vec![0u8; bytes as usize];
                self.read(src, src_off, &mut tmp)?;
                return self.write(dst, dst_off, &tmp);
            }
        };
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal();
        q.wait(timeline, value - 1).copy(dst.va() + dst_off, src.va() + src_off, bytes).signal(timeline, value);
        q.submit().map(|_| ())
    }

    /// Submit a bound buffer with new values for its patch points: the host cost is a few word
    /// stores and one INDIRECT_BUFFER packet. Returns the timeline value that marks completion.
    pub fn submit_bound(&self, b: &mut BoundCommands, values: &[u32]) -> Result<u64> {
        if values.len() != b.patches.len() {
            return Err(dev_err(
                &self.label,
                format!("{} patch values for {} patch points", values.len(), b.patches.len()),
            ));
        }
        if b.last > 0 && !self.state().timeline.signal().reached(b.last) {
            self.wait_value(b.last)?;
        }
        let mut q = self.compute_queue()?;
        let value = q.st.timeline.advance();
        // The timeline moves to its other slot when it wraps or after recovery: re-point the
        // wait and the signal (their address is the two words before each patched value).
        let addr = q.st.timeline.signal().value_addr() as u64;
        if addr != b.timeline_addr {
            for at in [b.wait_at, b.signal_at] {
                b.store(at - 2, addr as u32);
                b.store(at - 1, (addr >> 32) as u32);
            }
            b.timeline_addr = addr;
        }
        b.store(b.wait_at, (value - 1) as u32);
        b.store(b.signal_at, value as u32);
        for (&at, &v) in b.patches.iter().zip(values) {
            b.store(at, v);
        }
        b.last = value;
        q.q.indirect_buffer(b.ib.va, b.dwords);
        q.what.push(super::queue::Work::Bound { dwords: b.dwords, timeline: value });
        q.submit()?;
        Ok(value)
    }

    /// The command stream of a bound buffer: timeline wait, `body`, timeline signal and the
    /// KFD interrupt. Returns it with the wait, signal and caller patch indices.
    pub(crate) fn encode_bound(&self, body: impl FnOnce(&mut Pm4) -> Vec<usize>) -> (Pm4, usize, usize, Vec<usize>) {
        let timeline = self.state().timeline.signal();
        let mut q = Pm4::new(self.pm4);
        let wait_at = q.wait_mem(timeline.value_addr() as u64, 0, 0xffff_ffff, Compare::GreaterEqual);
        let patches = body(&mut q);
        let signal_at = q.release_mem(timeline.value_addr() as u64, ReleaseData::U32(0), true, None);
        self.interrupt(&mut q);
        (q, wait_at, signal_at, patches)
    }
}

impl Drop for AmdDevice {
    /// Give back what the device holds, so that an emulated KFD (or a long-lived process sharing
    /// /dev/kfd) sees a clean state; the kernel would also reclaim it when the file closes.
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        for ring in [st.compute.take(), st.copy.take()].into_iter().flatten() {
            if let Err(e) = self.dev.destroy_queue(ring.queue) {
                log::warn!("{}: destroying a queue: {e}", self.label);
            }
        }
        for e in self.events {
            let _ = self.dev.destroy_event(e);
        }
        let mems: Vec<KfdMemory> = st.scratch.take().into_iter().chain(st.owned.drain(..)).collect();
        for m in mems {
            if let Err(e) = self.dev.free(m) {
                log::warn!("{}: freeing device memory: {e}", self.label);
            }
        }
    }
}
