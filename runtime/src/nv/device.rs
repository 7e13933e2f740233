//! An NVIDIA GPU driven through RM: memory, 64-bit signals, the device timeline, the compute and
//! copy GPFIFO channels, programs and kernel launches — the same model as the AMD device, over
//! `drivers::nv`. The same code drives a real GPU (host OS) and the emulated one (the emulated
//! RM behind the same OS boundary).

use super::gpfifo::{GpFifo, GpFifoError};
use super::launch::{LOCAL_WINDOW, SHARED_WINDOW};
use super::program::{self, NvCode, NvKernel};
use super::queue::{Channel, ComputeQueue, CopyQueue, Methods};
use crate::alloc::Ring;
use crate::program::{ArgValue, Launch};
use crate::signal::{Signal, WaitError, Width, SIGNAL_BYTES};
use crate::timeline::Timeline;
use crate::timeout::{progressed, ProgressProbe};
use crate::trace::Trace;
use crate::{Error, Result};
use baregpu_drivers::nv::device::{NvDevice as RmDevice, NvMemKind, NvMemory};
use baregpu_drivers::nv::methods::{ComputeCmds, COMPUTE_SUBCHANNEL, COPY_SUBCHANNEL};
use baregpu_drivers::nv::qmd::QmdVersion;
use baregpu_drivers::os::Os;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Push-buffer ring per channel, and the ring of constant banks and QMDs.
const PUSHBUF_BYTES: u64 = 2 << 20;
const ARGS_BYTES: u64 = 4 << 20;
const SIGNAL_PAGE: u64 = 0x1000;
/// GPU timestamps (semaphore releases) count nanoseconds.
pub const TIMESTAMP_HZ: u64 = 1_000_000_000;
/// What a program address must point at on this device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvIsa {
    /// SASS from a cubin: a real GPU.
    Sass,
    /// A `drivers::nv::ptx_image`: the emulated GPU interprets PTX.
    Ptx,
}

/// What checks a PTX module as a whole when it is loaded, where a real GPU's would be ptxas: the
/// emulated GPU's own parser, so that malformed PTX is refused at load, naming its line, rather
/// than when a kernel of it is launched.
pub type PtxCheck = Arc<dyn Fn(&str) -> std::result::Result<(), String> + Send + Sync>;

/// Device memory at one address for the CPU (when mapped) and the GPU.
#[derive(Debug)]
pub struct Buffer {
    mem: NvMemory,
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
    pub code: NvCode,
    pub kernels: Vec<NvKernel>,
    image: Buffer,
}

impl Program {
    pub fn base(&self) -> u64 {
        self.image.va()
    }

    pub fn kernel(&self, name: &str) -> Result<&NvKernel> {
        self.kernels.iter().find(|k| k.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.kernels.iter().map(|k| k.name.as_str()).collect();
            Error::Program(format!("no kernel `{name}` (the program has: {})", names.join(", ")))
        })
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
    pub(crate) compute: GpFifo,
    pub(crate) copy: GpFifo,
    pub(crate) timeline: Timeline,
    pub(crate) compute_done: Timeline,
    pub(crate) copy_done: Timeline,
    pub(crate) args_base: u64,
    pub(crate) args: Ring,
    pub(crate) free_signals: Vec<Signal>,
    /// Per-thread local memory the channel is set up for, and its backing.
    pub(crate) local: Option<(u32, NvMemory)>,
    /// What the last submission was, for error reports.
    pub(crate) last: String,
    /// Set once a channel reported an error: RM has stopped it.
    pub(crate) broken: Option<String>,
}

pub struct NvDevice {
    rm: RmDevice,
    pub label: String,
    /// `sm_90`.
    pub arch: String,
    /// 90.
    pub sm: u32,
    pub qmd: QmdVersion,
    pub(crate) hopper_or_later: bool,
    pub isa: NvIsa,
    /// How long a wait may go without progress.
    pub timeout: Duration,
    state: Mutex<State>,
    /// Pages the device itself holds (signals, push buffers, arguments), freed when it closes.
    owned: Vec<NvMemory>,
    aids: Box<Aids>,
}

/// What the device does beside driving the GPU (boxed: `Device`'s vendor variants stay close in
/// size).
struct Aids {
    ptx_check: Option<PtxCheck>,
    /// `BAREGPU_TRACE`: every push buffer submitted, decoded.
    trace: Option<Trace>,
    /// Work retired inside a kernel, where the device can count it (see [`ProgressProbe`]).
    progress: Option<ProgressProbe>,
}

fn dev_err(label: &str, msg: impl Into<String>) -> Error {
    Error::Device { device: label.to_string(), msg: msg.into() }
}

impl NvDevice {
    /// Open NVIDIA GPU `index` of the RM behind `os`; `label` names it in errors (`nv:0`,
    /// `emu-nv:sm_90`); `isa` says what its program addresses point at.
    pub fn open(os: Arc<dyn Os>, index: usize, label: &str, isa: NvIsa) -> Result<NvDevice> {
        let rm = RmDevice::open(os, index)?;
        let arch = rm.gr.arch();
        let sm: u32 = arch.trim_start_matches("sm_").parse().map_err(|_| dev_err(label, format!("odd arch {arch}")))?;
        let qmd = QmdVersion::for_compute_class(rm.classes.compute)
            .ok_or_else(|| dev_err(label, format!("no QMD layout for compute class {:#x}", rm.classes.compute)))?;
        let hopper_or_later = qmd != QmdVersion::V3;
        let alloc = |size, kind| rm.alloc_internal(size, kind);
        let signal_page = alloc(SIGNAL_PAGE, NvMemKind::Host)?;
        let pushbufs = alloc(2 * PUSHBUF_BYTES, NvMemKind::Vram { cpu_visible: true })?;
        let args = alloc(ARGS_BYTES, NvMemKind::Vram { cpu_visible: true })?;
        let mut free_signals: Vec<Signal> = (0..SIGNAL_PAGE as usize / SIGNAL_BYTES)
            // SAFETY: slots of the signal page, which lives as long as the device.
            .map(|i| unsafe { Signal::from_addr(signal_page.va as usize + i * SIGNAL_BYTES, Width::Bits64) })
            .rev()
            .collect();
        let mut slot = || free_signals.pop().expect("a fresh signal page has slots");
        let (timeline, compute_done, copy_done) =
            (Timeline::new(slot(), slot()), Timeline::new(slot(), slot()), Timeline::new(slot(), slot()));
        let state = State {
            compute: GpFifo::new(0, pushbufs.va, PUSHBUF_BYTES),
            copy: GpFifo::new(1, pushbufs.va + PUSHBUF_BYTES, PUSHBUF_BYTES),
            timeline,
            compute_done,
            copy_done,
            args_base: args.va,
            args: Ring::new(ARGS_BYTES),
            free_signals,
            local: None,
            last: "nothing".into(),
            broken: None,
        };
        let dev = NvDevice {
            label: label.to_string(),
            arch,
            sm,
            qmd,
            hopper_or_later,
            isa,
            timeout: crate::timeout::no_progress_timeout(),
            state: Mutex::new(state),
            owned: vec![signal_page, pushbufs, args],
            aids: Box::new(Aids { ptx_check: None, trace: Trace::from_env(), progress: None }),
            rm,
        };
        dev.setup_channels()?;
        log::info!("{label}: {} ({}) open, QMD {:?}", dev.rm.gpu.model, dev.arch, dev.qmd);
        Ok(dev)
    }

    /// Bind the engine objects to their subchannels and point the compute engine at its
    /// shared- and local-memory windows.
    fn setup_channels(&self) -> Result<()> {
        let mut q = self.compute_queue()?;
        let r = (|| {
            q.m.pb.set_object(COMPUTE_SUBCHANNEL, self.rm.classes.compute)?;
            ComputeCmds::shared_memory_window(&mut q.m.pb, SHARED_WINDOW)?;
            ComputeCmds::local_memory_window(&mut q.m.pb, LOCAL_WINDOW)
        })();
        r.map_err(Error::Driver)?;
        q.what.push("channel setup".into());
        q.submit()?;
        let mut c = self.copy_queue()?;
        c.m.pb.set_object(COPY_SUBCHANNEL, self.rm.classes.copy).map_err(Error::Driver)?;
        c.submit()?;
        self.synchronize()
    }

    /// Check every PTX module with `check` when it is loaded (see [`PtxCheck`]).
    pub fn with_ptx_check(mut self, check: PtxCheck) -> NvDevice {
        self.aids.ptx_check = Some(check);
        self
    }

    /// Count a kernel's retired CTAs as progress in waits (an emulated GPU; see [`ProgressProbe`]).
    pub fn with_progress(mut self, probe: ProgressProbe) -> NvDevice {
        self.aids.progress = Some(probe);
        self.timeout = crate::timeout::measured_timeout();
        self
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn err(&self, msg: impl Into<String>) -> Error {
        dev_err(&self.label, msg)
    }

    /// The driver-level device (RM objects, channels), for tools and tests.
    pub fn rm_device(&self) -> &RmDevice {
        &self.rm
    }

    /// Device memory the CPU can also map (through BAR1 on a real GPU).
    pub fn alloc(&self, size: u64) -> Result<Buffer> {
        Ok(Buffer { mem: self.rm.alloc(size, NvMemKind::Vram { cpu_visible: true })? })
    }

    /// Host memory the GPU maps.
    pub fn alloc_host(&self, size: u64) -> Result<Buffer> {
        Ok(Buffer { mem: self.rm.alloc(size, NvMemKind::Host)? })
    }

    pub fn free(&self, b: Buffer) -> Result<()> {
        Ok(self.rm.free(b.mem)?)
    }

    fn check_range(&self, b: &Buffer, offset: u64, len: usize) -> Result<*mut u8> {
        if !b.mem.cpu_mapped {
            return Err(self.err(format!("buffer at {:#x} is not CPU-visible", b.va())));
        }
        if offset.checked_add(len as u64).is_none_or(|end| end > b.size()) {
            return Err(self.err(format!("{len} bytes at offset {offset} exceed a {}-byte buffer", b.size())));
        }
        Ok((b.va() + offset) as *mut u8)
    }

    /// Copy host bytes into a buffer. The device must not be using that range.
    pub fn write(&self, b: &Buffer, offset: u64, data: &[u8]) -> Result<()> {
        let dst = self.check_range(b, offset, data.len())?;
        // SAFETY: in bounds, CPU-mapped, not in use by the GPU (the caller's contract).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) };
        Ok(())
    }

    /// Copy buffer bytes to the host, after the work that wrote them completed.
    pub fn read(&self, b: &Buffer, offset: u64, out: &mut [u8]) -> Result<()> {
        let src = self.check_range(b, offset, out.len())?;
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        // SAFETY: in bounds and CPU-mapped; the GPU finished writing (synchronize before read).
        unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Load a code object: a cubin for a real GPU, PTX for the emulated one. Its image goes to
    /// device memory, relocated for where it lands, with a 4 KiB tail against instruction
    /// prefetch past the end.
    pub fn load(&self, code: NvCode) -> Result<Program> {
        match (&code, self.isa) {
            (NvCode::Cubin(c), NvIsa::Sass) if c.sm != self.sm => {
                return Err(Error::Program(format!(
                    "the cubin is for sm_{}, but {} is {}",
                    c.sm, self.label, self.arch
                )))
            }
            (NvCode::Cubin(_), NvIsa::Ptx) => {
                return Err(Error::Program(format!(
                    "{} executes PTX, not SASS: give it the PTX the cubin was built from",
                    self.label
                )))
            }
            (NvCode::Ptx(p), NvIsa::Ptx) if p.sm > self.sm => {
                return Err(Error::Program(format!(
                    "the PTX targets sm_{}, which {} ({}) cannot run",
                    p.sm, self.label, self.arch
                )))
            }
            (NvCode::Ptx(_), NvIsa::Sass) => {
                return Err(Error::Program(format!(
                    "{} runs SASS: compile the PTX with ptxas -arch={} first",
                    self.label, self.arch
                )))
            }
            (NvCode::Ptx(p), NvIsa::Ptx) => {
                if let Some(check) = &self.aids.ptx_check {
                    check(&p.text).map_err(Error::Program)?;
                }
            }
            _ => {}
        }
        let (image, kernels) = program::layout(&code, self.sm).map_err(Error::Program)?;
        let buf =
            Buffer { mem: self.rm.alloc_internal(image.len() as u64 + 0x1000, NvMemKind::Vram { cpu_visible: true })? };
        let bytes = match &code {
            NvCode::Cubin(c) => c.relocated(buf.va()),
            NvCode::Ptx(_) => image,
        };
        self.write(&buf, 0, &bytes)?;
        let need = kernels.iter().map(|k| k.local_bytes).max().unwrap_or(0);
        if need > 0 {
            self.ensure_local_memory(need)?;
        }
        Ok(Program { code, kernels, image: buf })
    }

    pub fn unload(&self, p: Program) -> Result<()> {
        self.free(p.image)
    }

    /// Size the local-memory backing for `per_thread` bytes (tinygrad's formula, [3rd-party]):
    /// per TPC, every warp slot of its SMs at 32 threads; then every TPC of the GPU.
    fn ensure_local_memory(&self, per_thread: u32) -> Result<()> {
        if self.state().local.as_ref().is_some_and(|(have, _)| *have >= per_thread) {
            return Ok(());
        }
        self.synchronize()?;
        let gr = self.rm.gr;
        let per_warp = (per_thread as u64 * 32).div_ceil(0x200) * 0x200;
        let per_tpc =
            (per_warp * gr.max_warps_per_sm.max(1) as u64 * gr.sm_per_tpc.max(1) as u64).div_ceil(0x8000) * 0x8000;
        let total = (per_tpc * gr.tpc_per_gpc.max(1) as u64 * gr.gpcs.max(1) as u64).div_ceil(0x2_0000) * 0x2_0000;
        let mem = self.rm.alloc_internal(total, NvMemKind::Vram { cpu_visible: false })?;
        let mut q = self.compute_queue()?;
        ComputeCmds::local_memory(&mut q.m.pb, mem.va, per_tpc, self.hopper_or_later).map_err(Error::Driver)?;
        q.what.push(format!("local memory {per_thread} bytes per thread"));
        let old = q.st.local.replace((per_thread, mem));
        q.submit()?;
        self.synchronize()?;
        if let Some((_, m)) = old {
            self.rm.free(m)?;
        }
        Ok(())
    }

    fn take_signal(st: &mut State, label: &str) -> Result<Signal> {
        let s = st.free_signals.pop().ok_or_else(|| dev_err(label, "out of signal slots"))?;
        s.set(0);
        s.set_timestamp(0);
        Ok(s)
    }

    /// A 64-bit signal slot of the device's signal page, value and timestamp zeroed.
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

    fn usable(&self, st: &State) -> Result<()> {
        match &st.broken {
            Some(why) => Err(self.err(format!("unusable after: {why}; reopen the device"))),
            None => Ok(()),
        }
    }

    /// A compute-channel builder. It holds the device until submitted (or dropped).
    pub fn compute_queue(&self) -> Result<ComputeQueue<'_>> {
        let st = self.state();
        self.usable(&st)?;
        let done = st.compute_done.last() + 1;
        Ok(ComputeQueue { dev: self, st, m: Methods::default(), done, what: Vec::new() })
    }

    /// A copy-engine builder.
    pub fn copy_queue(&self) -> Result<CopyQueue<'_>> {
        let st = self.state();
        self.usable(&st)?;
        let done = st.copy_done.last() + 1;
        Ok(CopyQueue { dev: self, st, m: Methods::default(), done, bytes: 0 })
    }

    pub(crate) fn submit_on(&self, st: &mut State, which: Channel, words: &[u32], done: u64) -> Result<()> {
        let (name, done_sig) = match which {
            Channel::Compute => ("compute", st.compute_done.signal()),
            Channel::Copy => ("copy", st.copy_done.signal()),
        };
        let last = st.last.clone();
        if let Some(t) = &self.aids.trace {
            t.pushbuf(&format!("{} {name} channel: {last}", self.label), words);
        }
        let timeout = self.timeout;
        let mut fifo = match which {
            Channel::Compute => std::mem::replace(&mut st.compute, GpFifo::new(0, 0, 1)),
            Channel::Copy => std::mem::replace(&mut st.copy, GpFifo::new(1, 0, 1)),
        };
        let r = {
            let st_ref: &State = st;
            let mut wait = |sig: Signal, v: u64| self.wait_signal(st_ref, sig, v, name);
            fifo.submit(&self.rm, words, done, done_sig, timeout, &mut wait)
        };
        match which {
            Channel::Compute => st.compute = fifo,
            Channel::Copy => st.copy = fifo,
        }
        r.map_err(|e| match e {
            GpFifoError::TooLarge { bytes } => self.err(format!("{bytes} bytes of methods do not fit the {name} ring")),
            GpFifoError::Stalled { gp_get, put } => Error::Timeout {
                device: self.label.clone(),
                queue: name,
                secs: timeout.as_secs_f64(),
                reached: gp_get as u64,
                wanted: put as u64,
                last,
            },
            GpFifoError::Wait(e) => e,
        })
    }

    /// A channel error RM reported, as text.
    fn channel_error(&self) -> Option<String> {
        self.rm.channels.iter().zip(["compute", "copy"]).find_map(|(ch, name)| {
            let e = self.rm.channel_error(ch)?;
            let mut msg = format!("{name} channel stopped by RM: {}", e.describe());
            // Where the kernel went wrong, from RM's SM debugger (compute channels only).
            if ch.engine_class == self.rm.classes.compute {
                match self.rm.fault_report(ch) {
                    Ok(r) if r.is_empty() => {}
                    Ok(r) => msg += &format!("; {r}"),
                    Err(e) => msg += &format!("; no fault report: {e}"),
                }
            }
            Some(msg)
        })
    }

    /// Poll `sig` until it reaches `value`; a channel error ends the wait.
    pub(crate) fn wait_signal(&self, st: &State, sig: Signal, value: u64, queue: &'static str) -> Result<()> {
        let probe = self.aids.progress.as_ref();
        let mut seen = probe.map_or(0, |p| p());
        let mut sleep = |d: Duration| -> std::result::Result<bool, WaitError> {
            if let Some(e) = self.channel_error() {
                return Err(WaitError::Fault(e));
            }
            std::thread::sleep(d.min(Duration::from_micros(100)));
            Ok(progressed(probe, &mut seen))
        };
        sig.wait(value, self.timeout, &mut sleep).map_err(|e| match e {
            WaitError::Timeout { last } => Error::Timeout {
                device: self.label.clone(),
                queue,
                secs: self.timeout.as_secs_f64(),
                reached: last,
                wanted: value,
                last: st.last.clone(),
            },
            WaitError::Fault(fault) => Error::Fault { device: self.label.clone(), queue, fault, last: st.last.clone() },
        })
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
        if let Err(e) = q.exec(prog, kernel, args, shape) {
            q.st.timeline.jump_to(value);
            drop(q);
            for s in [start, end].into_iter().flatten() {
                self.free_signal(s);
            }
            return Err(e);
        }
        if let Some(s) = end {
            q.timestamp(s);
        }
        q.signal(timeline, value);
        q.submit()?;
        Ok(Submitted { value, start, end })
    }

    /// A signal-only submission on the timeline (wait for the last value, release the next): its
    /// completion means everything before it is done. Returns its timeline value.
    pub fn marker(&self) -> Result<u64> {
        let mut q = self.compute_queue()?;
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal();
        q.wait(timeline, value - 1).signal(timeline, value);
        q.submit()?;
        Ok(value)
    }

    /// Copy `bytes` between buffers on the copy engine, ordered on the device timeline.
    pub fn copy(&self, dst: &Buffer, dst_off: u64, src: &Buffer, src_off: u64, bytes: u64) -> Result<()> {
        for (b, o) in [(dst, dst_off), (src, src_off)] {
            if o.checked_add(bytes).is_none_or(|e| e > b.size()) {
                return Err(self.err(format!("copy of {bytes} bytes at {o} exceeds a {}-byte buffer", b.size())));
            }
        }
        let mut q = self.copy_queue()?;
        let value = q.st.timeline.advance();
        let timeline = q.st.timeline.signal();
        q.wait(timeline, value - 1).copy(dst.va() + dst_off, src.va() + src_off, bytes).signal(timeline, value);
        q.submit().map(|_| ())
    }

    /// Wait for everything submitted so far on both channels.
    pub fn synchronize(&self) -> Result<()> {
        let mut st = self.state();
        self.usable(&st)?;
        let waits = [
            (st.compute_done.signal(), st.compute_done.last(), "compute"),
            (st.copy_done.signal(), st.copy_done.last(), "copy"),
        ];
        for (sig, value, queue) in waits {
            if let Err(e) = self.wait_signal(&st, sig, value, queue) {
                // A faulted channel is stopped by RM; a hung one still runs what it was given.
                // Neither takes more work.
                if matches!(e, Error::Fault { .. } | Error::Timeout { .. }) {
                    st.broken = Some(e.to_string());
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Wait until the device timeline reaches `value`.
    pub fn wait_value(&self, value: u64) -> Result<()> {
        self.wait(self.timeline().0, value)
    }

    /// Wait until `signal` reaches `value`.
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

    /// Continue the device timeline from `value` once everything submitted has finished (the
    /// 64-bit semaphores compare circularly, so this can cross 2^32 and 2^63 in a test).
    pub fn jump_timeline(&self, value: u64) -> Result<()> {
        self.synchronize()?;
        if value == 0 {
            return Err(self.err("the timeline starts at 1"));
        }
        let mut st = self.state();
        st.timeline.signal().set(value - 1);
        st.timeline.jump_to(value);
        Ok(())
    }
}

impl Drop for NvDevice {
    fn drop(&mut self) {
        // Let the channels drain before their memory goes; a faulted one never will.
        if self.state().broken.is_none() {
            if let Err(e) = self.synchronize() {
                log::warn!("{}: closing with work in flight: {e}", self.label);
            }
        }
        let st = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        let local = st.local.take().map(|(_, m)| m);
        for m in local.into_iter().chain(self.owned.drain(..)) {
            if let Err(e) = self.rm.free(m) {
                log::warn!("{}: freeing device memory: {e}", self.label);
            }
        }
    }
}
