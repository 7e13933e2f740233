//! An AMD GPU driven through KFD: memory, signals, the device timeline, a PM4 compute queue and
//! an SDMA copy queue, programs and kernel launches. The same code drives a real GPU (host OS)
//! and the emulated one (the emulated KFD behind the same OS boundary).

use super::hdp::{self, HdpFlush};
use super::launch;
use super::ring::{HwRing, RingError};
use crate::alloc::{Ring, RingAlloc};
use crate::program::{kernargs, ArgValue, CodeObject, Launch};
use crate::signal::{Signal, WaitError, Width, SIGNAL_BYTES};
use crate::timeline::Timeline;
use crate::{Error, Result};
use baregpu_drivers::amd::kfd::{EventKind, Kfd, KfdDevice, KfdEvent, KfdMemory, MemKind, QueueKind};
use baregpu_drivers::amd::pm4::{Compare, Dispatch, Pm4, Pm4Generation, ReleaseData};
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

struct State {
    /// Always present; an Option so that drop and recovery can take it out.
    compute: Option<HwRing>,
    copy: Option<HwRing>,
    timeline: Timeline,
    kernarg_base: u64,
    kernargs: Ring,
    /// Pages the device itself holds (signals, events, kernargs), freed when it closes.
    owned: Vec<KfdMemory>,
    free_signals: Vec<Signal>,
    scratch: Option<(KfdMemory, u32)>,
    dispatches: u64,
    /// What the last submission was, for error reports.
    last: String,
    /// Set after a fault or hang until the queues are rebuilt.
    broken: Option<String>,
}

pub struct AmdDevice {
    dev: KfdDevice,
    pub label: String,
    pub arch: String,
    pm4: &'static Pm4Generation,
    sdma: &'static SdmaGeneration,
    hdp: Option<HdpFlush>,
    lds_limit: u32,
    /// The queue event's slot in the KFD event page: the GPU writes it, then interrupts.
    mailbox: u64,
    events: [KfdEvent; 3],
    /// How long a wait may go without progress.
    pub timeout: Duration,
    state: Mutex<State>,
}

fn dev_err(label: &str, msg: impl Into<String>) -> Error {
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
        let dev = KfdDevice::open(kfd, gpu)?;
        let lds_limit = dev.props.get("lds_size_in_kb").unwrap_or(64) as u32 * 1024;

        let signal_page = dev.alloc(SIGNAL_PAGE, MemKind::Uncached)?;
        let event_page = dev.alloc(EVENT_PAGE, MemKind::Uncached)?;
        let queue_event = dev.create_event(EventKind::Signal, true, Some(event_page.handle))?;
        let fault_event = dev.create_event(EventKind::MemoryFault, false, None)?;
        let hw_event = dev.create_event(EventKind::HwException, false, None)?;

        let mut free_signals: Vec<Signal> = (0..SIGNAL_PAGE as usize / SIGNAL_BYTES)
            // SAFETY: slots of the signal page, which lives as long as the device.
            .map(|i| unsafe { Signal::from_addr(signal_page.va as usize + i * SIGNAL_BYTES, Width::Bits32) })
            .rev()
            .collect();
        let (a, b) = (free_signals.pop().expect("slots"), free_signals.pop().expect("slots"));
        let compute = HwRing::new(dev.create_queue(QueueKind::Compute, COMPUTE_RING)?);
        let copy = match dev.create_queue(QueueKind::Sdma, SDMA_RING) {
            Ok(q) => Some(HwRing::new(q)),
            Err(e) => {
                log::warn!("{label}: no SDMA queue ({e}); copies go through the CPU");
                None
            }
        };
        let kernarg_mem = dev.alloc(KERNARG_BYTES, MemKind::Uncached)?;
        let mailbox = event_page.va + queue_event.slot as u64 * 8;
        let state = State {
            compute: Some(compute),
            copy,
            timeline: Timeline::new(a, b),
            kernarg_base: kernarg_mem.va,
            kernargs: Ring::new(KERNARG_BYTES),
            owned: vec![signal_page, event_page, kernarg_mem],
            free_signals,
            scratch: None,
            dispatches: 0,
            last: "nothing".into(),
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
            timeout: Duration::from_secs(30),
            state: Mutex::new(state),
        })
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
        let image = self.alloc(code.image.len() as u64)?;
        let bytes = code.relocated(image.va());
        self.write(&image, 0, &bytes)?;
        Ok(Program { code, image })
    }

    pub fn unload(&self, p: Program) -> Result<()> {
        self.free(p.image)
    }

    fn memory_barrier(&self, q: &mut Pm4) {
        if let Some(h) = self.hdp {
            q.write_then_wait_reg(h.req, h.done, 0xffff_ffff, 0xffff_ffff, Compare::GreaterEqual);
        }
        q.acquire_mem(true);
    }

    /// Signal the timeline at `value`, and the KFD event that wakes a sleeping host.
    fn signal_timeline(&self, q: &mut Pm4, timeline: Signal, value: u64) {
        q.release_mem(timeline.value_addr() as u64, ReleaseData::U32(value as u32), true, None);
        q.release_mem(self.mailbox, ReleaseData::U32(self.events[0].id), false, Some(self.events[0].id));
    }

    fn take_signal(st: &mut State, label: &str) -> Result<Signal> {
        let s = st.free_signals.pop().ok_or_else(|| dev_err(label, "out of signal slots"))?;
        s.set(0);
        s.set_timestamp(0);
        Ok(s)
    }

    /// Scratch for `per_lane` private bytes: the buffer and the COMPUTE_TMPRING_SIZE value.
    fn scratch(&self, st: &mut State, per_lane: u32) -> Result<(u64, u32)> {
        // Architected flat scratch: per-wave size in 256-byte units, for a wave of 64 lanes.
        let per_wave = (per_lane as u64 * 64).div_ceil(256) * 256;
        let cus = self.dev.gpu.compute_units as u64;
        let slots = self.dev.props.get("max_slots_scratch_cu").unwrap_or(32).max(1);
        let waves = (cus * slots).min(0xfff);
        let need = per_wave * waves;
        if st.scratch.as_ref().is_none_or(|(m, _)| m.size < need) {
            if let Some((m, _)) = st.scratch.take() {
                self.dev.free(m)?;
            }
            let m = self.dev.alloc(need, MemKind::Vram { cpu_visible: false })?;
            st.scratch = Some((m, 0));
        }
        let (m, _) = st.scratch.as_ref().expect("just allocated");
        Ok((m.va, (waves as u32) | (((per_wave / 256) as u32) << 12)))
    }

    /// Launch `kernel` of `prog`. With `profile` the launch is bracketed by GPU timestamps.
    pub fn launch(
        &self,
        prog: &Program,
        kernel: &str,
        args: &[ArgValue],
        shape: &Launch,
        profile: bool,
    ) -> Result<Submitted> {
        let k = prog.code.kernel(kernel).map_err(Error::Program)?;
        launch::check_shape(k, shape)?;
        let kernarg_bytes = kernargs::build(&k.meta, args, shape).map_err(Error::Program)?;
        let rsrc2 = launch::rsrc2(k, shape, self.lds_limit)?;
        let mut st = self.state();
        if let Some(why) = &st.broken {
            return Err(dev_err(&self.label, format!("needs recovery after: {why}")));
        }
        let wants_packet = launch::wants_dispatch_packet(k);
        let size = kernarg_bytes.len().max(16) as u64 + if wants_packet { 64 } else { 0 };
        let align = k.meta.kernarg_segment_align.max(16) as u64;
        let value = st.timeline.advance();
        let off = loop {
            let completed = st.timeline.signal().value();
            match st.kernargs.alloc(size, align, value, completed) {
                RingAlloc::Ok(o) => break o,
                RingAlloc::Wait(v) => self.wait_signal(&st, st.timeline.signal(), v, "compute")?,
                RingAlloc::TooLarge => {
                    return Err(Error::Program(format!("kernel `{kernel}`: {size} bytes of kernel arguments")))
                }
            }
        };
        let kernarg_va = st.kernarg_base + off;
        // SAFETY: inside the kernarg allocation; the ring allocator guarantees the GPU is done with it.
        unsafe { std::ptr::copy_nonoverlapping(kernarg_bytes.as_ptr(), kernarg_va as *mut u8, kernarg_bytes.len()) };
        let packet_va = kernarg_va + size - 64;
        if wants_packet {
            let kd_va = prog.base() + k.descriptor_offset;
            let pkt = launch::dispatch_packet(k, shape, kd_va, kernarg_va);
            // SAFETY: the last 64 bytes of this kernarg allocation.
            unsafe { std::ptr::copy_nonoverlapping(pkt.as_ptr(), packet_va as *mut u8, 64) };
        }
        st.dispatches += 1;
        let ptrs = launch::Pointers {
            kernargs: kernarg_va,
            dispatch_packet: packet_va,
            queue: st.compute.as_ref().map_or(0, |c| c.queue.pointers.va),
            dispatch_id: st.dispatches,
        };
        let user_data = launch::user_sgprs(k, &ptrs)?;
        let (scratch_base, tmpring) = match k.descriptor.private_segment_fixed_size {
            0 => (None, 0),
            n => {
                let (base, tmpring) = self.scratch(&mut st, n)?;
                (Some(base), tmpring)
            }
        };
        let (start, end) = if profile {
            (Some(Self::take_signal(&mut st, &self.label)?), Some(Self::take_signal(&mut st, &self.label)?))
        } else {
            (None, None)
        };
        let timeline = st.timeline.signal();
        let mut q = Pm4::new(self.pm4);
        q.wait_mem(timeline.value_addr() as u64, (value - 1) as u32, 0xffff_ffff, Compare::GreaterEqual);
        self.memory_barrier(&mut q);
        if let Some(s) = start {
            q.release_mem(s.timestamp_addr() as u64, ReleaseData::Timestamp, false, None);
        }
        q.dispatch(&Dispatch {
            entry: prog.base() + k.entry_offset,
            rsrc1: k.descriptor.compute_pgm_rsrc1,
            rsrc2,
            rsrc3: k.descriptor.compute_pgm_rsrc3,
            tmpring_size: tmpring,
            scratch_base,
            user_data,
            grid: shape.grid,
            block: shape.block,
            wave32: launch::wave32(k),
        });
        if let Some(s) = end {
            q.release_mem(s.timestamp_addr() as u64, ReleaseData::Timestamp, false, None);
        }
        self.signal_timeline(&mut q, timeline, value);
        st.last = format!("kernel `{kernel}` grid {:?} block {:?} (timeline {value})", shape.grid, shape.block);
        let timeout = self.timeout;
        let last = st.last.clone();
        let ring = st.compute.as_mut().ok_or_else(|| dev_err(&self.label, "no compute queue"))?;
        ring.submit(q.words(), &[], timeout).map_err(|e| self.ring_error("compute", e, &last))?;
        Ok(Submitted { value, start, end })
    }

    fn ring_error(&self, queue: &'static str, e: RingError, last: &str) -> Error {
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
    fn wait_signal(&self, st: &State, sig: Signal, value: u64, queue: &'static str) -> Result<()> {
        let kfd = self.dev.kfd().clone();
        let events = self.events;
        let mut sleep = |d: Duration| -> std::result::Result<(), WaitError> {
            let ms = d.as_millis().clamp(1, 200) as u32;
            match kfd.wait_events(&events, ms) {
                Ok(out) => match (out.memory_fault, out.hw_exception) {
                    (Some(f), _) => Err(WaitError::Fault(f.to_string())),
                    (_, Some(h)) => Err(WaitError::Fault(h.to_string())),
                    _ => Ok(()),
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
                last: st.last.clone(),
            },
            WaitError::Fault(fault) => Error::Fault { device: self.label.clone(), queue, fault, last: st.last.clone() },
        })
    }

    /// Wait for everything submitted so far. A fault or timeout leaves the device marked for
    /// recovery, which [`AmdDevice::recover`] performs.
    pub fn synchronize(&self) -> Result<()> {
        let mut st = self.state();
        if let Some(why) = &st.broken {
            return Err(dev_err(&self.label, format!("needs recovery after: {why}")));
        }
        let (sig, last) = (st.timeline.signal(), st.timeline.last());
        if let Err(e) = self.wait_signal(&st, sig, last, "compute") {
            st.broken = Some(e.to_string());
            drop(st);
            self.recover()?;
            return Err(e);
        }
        st.timeline.maybe_wrap();
        Ok(())
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
        // The old timeline may never reach its last value: start a fresh one.
        let (a, b) = (Self::take_signal(&mut st, &self.label)?, Self::take_signal(&mut st, &self.label)?);
        let old = std::mem::replace(&mut st.timeline, Timeline::new(a, b));
        st.free_signals.push(old.signal());
        st.kernargs = Ring::new(KERNARG_BYTES);
        st.broken = None;
        log::warn!("{}: queues rebuilt after a fault", self.label);
        Ok(())
    }

    /// Copy `bytes` between device buffers on the SDMA engine (or the CPU when there is none),
    /// ordered after all earlier work.
    pub fn copy(&self, dst: &Buffer, dst_off: u64, src: &Buffer, src_off: u64, bytes: u64) -> Result<()> {
        for (b, o) in [(dst, dst_off), (src, src_off)] {
            if o.checked_add(bytes).is_none_or(|e| e > b.size()) {
                return Err(dev_err(
                    &self.label,
                    format!("copy of {bytes} bytes at {o} exceeds a {}-byte buffer", b.size()),
                ));
            }
        }
        let mut st = self.state();
        if st.copy.is_none() {
            drop(st);
            self.synchronize()?;
            let mut tmp = vec![0u8; bytes as usize];
            self.read(src, src_off, &mut tmp)?;
            return self.write(dst, dst_off, &tmp);
        }
        let value = st.timeline.advance();
        let timeline = st.timeline.signal();
        let mut q = Sdma::new(self.sdma);
        q.poll_ge(timeline.value_addr() as u64, (value - 1) as u32, 0xffff_ffff);
        q.copy(dst.va() + dst_off, src.va() + src_off, bytes);
        q.fence(timeline.value_addr() as u64, value as u32);
        q.fence(self.mailbox, self.events[0].id);
        q.trap(self.events[0].id);
        st.last = format!("SDMA copy of {bytes} bytes (timeline {value})");
        let (words, packets) = (q.words().to_vec(), q.packets().to_vec());
        let timeout = self.timeout;
        let last = st.last.clone();
        let ring = st.copy.as_mut().expect("checked above");
        ring.submit(&words, &packets, timeout).map_err(|e| self.ring_error("SDMA", e, &last))
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
        let mems: Vec<KfdMemory> = st.scratch.take().map(|(m, _)| m).into_iter().chain(st.owned.drain(..)).collect();
        for m in mems {
            if let Err(e) = self.dev.free(m) {
                log::warn!("{}: freeing device memory: {e}", self.label);
            }
        }
    }
}
