//! GPFIFO channel processors: one thread per scheduled channel. A doorbell write wakes the
//! channel whose work-submit token it carries (see [`crate::doorbell`]); each compares GPPut (USERD +0x8c) with its GPGet, fetches the GP entries
//! from its ring, the push-buffer segments they point at, decodes the methods (incrementing,
//! non-incrementing, immediate, increment-once) per subchannel and executes them: host methods
//! (semaphore acquire/release, non-stall interrupt), the copy class (LAUNCH_DMA: pitch copies,
//! semaphore releases) and the compute class (SEND_PCAS_A / SEND_SIGNALING_PCAS2_B launch a
//! QMD, which runs on the PTX interpreter). GPGet (USERD +0x88) advances as entries complete.
//! A fault stops the channel and is recorded (see `EmuRm::faults`); a kernel's fault also in the
//! form RM's SM debugger reports it (see [`super::fault`]).

use super::events::Engine;
use super::ptx::{Launch, LaunchError, Module};
use super::{program, qmd, read_u32, write_u32, ChannelInfo, Inner};
use crate::doorbell::{Bell, Idle};
use crate::memory_wait::{MemoryWait, WaitCounters};
use baregpu_drivers::nv::cbank0;
use baregpu_drivers::nv::methods::{compute, copy};
use baregpu_drivers::nv::pushbuf::{host, GpEntry, MethodHeader, SecOp, USERD_GP_GET, USERD_GP_PUT};
use baregpu_drivers::nv::rm::classes::{COMPUTE_CLASSES, COPY_CLASSES};
use baregpu_drivers::nv::rm::common::Handle;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the doorbell watcher looks at the doorbell words.
const WATCH_PERIOD: Duration = Duration::from_millis(10);

pub(crate) struct ChannelCtl {
    /// The channel's work-submit token: what its doorbell write carries.
    pub token: u32,
    /// Doorbell rings (and stop requests) so far.
    kicks: AtomicU64,
    pub bell: Bell,
    /// What this channel's semaphore acquires did.
    pub waits: WaitCounters,
    stop: AtomicBool,
    /// Why the channel was stopped from outside, reported as its fault (None: a quiet teardown).
    reason: Mutex<Option<String>>,
    /// Inside a busy window (see [`super::teardown`]).
    pub busy: AtomicBool,
    /// The memory objects the processor reaches without translation: USERD, the error notifier.
    pub pins: [Handle; 2],
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl ChannelCtl {
    pub fn kick(&self) {
        self.kicks.fetch_add(1, Ordering::AcqRel);
        self.bell.ring();
    }

    /// Ask the processor to stop (a running kernel is cancelled); `why` becomes its fault.
    pub fn stop(&self, why: Option<String>) {
        if why.is_some() {
            *self.reason.lock().unwrap_or_else(|e| e.into_inner()) = why;
        }
        self.stop.store(true, Ordering::Release);
        self.kick();
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Wait for the stopped processor to leave (at once if it already has).
    pub fn join(&self) {
        let mut t = self.thread.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = t.take() {
            if h.join().is_err() {
                log::error!("emulated NV GPU: a channel processor panicked");
            }
        }
    }
}

pub(crate) fn start(inner: &Arc<Inner>, info: ChannelInfo, engines: Vec<u32>) -> std::io::Result<Arc<ChannelCtl>> {
    let ctl = Arc::new(ChannelCtl {
        token: info.token,
        kicks: AtomicU64::new(0),
        bell: Bell::default(),
        waits: WaitCounters::default(),
        stop: AtomicBool::new(false),
        reason: Mutex::new(None),
        busy: AtomicBool::new(false),
        pins: info.pins,
        thread: Mutex::new(None),
    });
    let (i2, c2) = (inner.clone(), ctl.clone());
    let h = crate::engine_thread::spawn(format!("emu-nv channel {}", info.token), move || {
        Channel::new(i2, c2, info, engines).run()
    })?;
    *ctl.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
    Ok(ctl)
}

/// Watch the doorbell words of every usermode page; a ring (any value but idle) kicks every
/// channel, which then looks at its own GPPut. Only a plain store lands here, bypassing
/// `Os::ring_doorbell` (which wakes its channel at once): a safety net, so it polls slowly.
pub(crate) fn watch_doorbells(inner: &Arc<Inner>) {
    while !inner.stop.load(Ordering::Acquire) {
        let mut rung = false;
        {
            // Read under the list's lock: freeing a usermode object removes its bell under it
            // before the view goes.
            let bells = inner.doorbells.lock().unwrap_or_else(|e| e.into_inner());
            for &b in bells.iter() {
                // SAFETY: the doorbell word of a usermode page view that is in the list, hence
                // live while we hold its lock (see above).
                let v = unsafe {
                    (*(b as *const std::sync::atomic::AtomicU32)).swap(super::DOORBELL_IDLE, Ordering::AcqRel)
                };
                rung |= v != super::DOORBELL_IDLE;
            }
        }
        if rung {
            inner.watched_rings.fetch_add(1, Ordering::Relaxed);
            inner.kick_all();
        }
        // Teardown unparks it.
        std::thread::park_timeout(WATCH_PERIOD);
    }
}

struct Channel {
    inner: Arc<Inner>,
    ctl: Arc<ChannelCtl>,
    info: ChannelInfo,
    /// Class bound to each subchannel (SET_OBJECT).
    subch: [u32; 8],
    engines: Vec<u32>,
    /// Method state per subchannel (byte offset → value).
    regs: Vec<std::collections::HashMap<u32, u32>>,
    gp_get: u32,
}

/// Why a segment stopped.
enum Stop {
    /// The front end, the host or the copy engine failed (bad push buffer, unmapped address).
    Fault(String),
    /// A kernel faulted.
    Kernel(String, Box<LaunchError>),
    Shutdown,
}

impl Channel {
    fn new(inner: Arc<Inner>, ctl: Arc<ChannelCtl>, info: ChannelInfo, engines: Vec<u32>) -> Channel {
        Channel { inner, ctl, info, subch: [0; 8], engines, regs: vec![Default::default(); 8], gp_get: 0 }
    }

    fn stopping(&self) -> bool {
        self.ctl.stop.load(Ordering::Acquire) || self.inner.stop.load(Ordering::Acquire)
    }

    fn run(mut self) {
        self.ctl.bell.attach_current();
        let mut seen = 0u64;
        let mut idle = Idle::default();
        loop {
            let kicks = self.ctl.kicks.load(Ordering::Acquire);
            if kicks == seen && !self.stopping() {
                idle.wait(&self.ctl.bell);
                continue;
            }
            seen = kicks;
            idle.reset();
            if !self.inner.begin_work(&self.ctl) {
                return;
            }
            let stopped = self.work();
            self.inner.end_work(&self.ctl);
            if stopped {
                return;
            }
        }
    }

    /// Drain the ring inside a busy window; true when the channel stopped.
    fn work(&mut self) -> bool {
        match self.drain() {
            Ok(()) => false,
            Err(Stop::Shutdown) => {
                let why = self.ctl.reason.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some(why) = why {
                    self.notify_error(XID_MMU_FAULT);
                    self.inner.fault(self.info.token, why);
                }
                true
            }
            Err(Stop::Fault(m)) => {
                // Xid 31: an MMU fault; 32: a bad push-buffer stream (`nverror.h`).
                self.notify_error(if m.contains("unmapped") { XID_MMU_FAULT } else { 32 });
                self.inner.fault(self.info.token, m);
                true
            }
            Err(Stop::Kernel(m, e)) => {
                // What RM's SM debugger will say about it, recorded before the notifier
                // tells the host to ask.
                self.inner.record_kernel_fault(self.info.token, self.info.gpu, &e);
                // Xid 31 for a global access the MMU cannot translate; Xid 13 (graphics
                // engine exception) for what the SM itself raises (`nverror.h`).
                let mmu = matches!(e.fault, super::ptx::Fault::Memory { space: "global", .. });
                self.notify_error(if mmu { XID_MMU_FAULT } else { 13 });
                self.inner.fault(self.info.token, m);
                true
            }
        }
    }

    /// What RM does when a channel faults: NvNotification[NOTIFIERS_RC] in the channel's error
    /// notifier gets the time, the error (an Xid) in info32 and a non-zero status.
    fn notify_error(&self, xid: u32) {
        let n = self.info.error_notifier;
        // SAFETY: called inside a busy window; freeing the notifier's memory stops this channel
        // and its view is unmapped only after the window closes (see `teardown`); it is at least
        // 16 bytes (checked at channel creation).
        unsafe {
            (*(n as *const AtomicU64)).store(timestamp(), Ordering::Release);
            write_u32(n + 8, xid);
            write_u32(n + 12, (NOTIFICATION_STATUS_ERROR as u32) << 16);
        }
    }

    fn drain(&mut self) -> Result<(), Stop> {
        loop {
            // SAFETY: USERD lies in a memory object's view (checked at channel creation) that
            // stays mapped while this busy window is open (see `teardown`).
            let put = unsafe { read_u32(self.info.userd + USERD_GP_PUT) } % self.info.entries;
            if put == self.gp_get {
                return Ok(());
            }
            let entry_va = self.info.ring_va + self.gp_get as u64 * 8;
            // A control entry (LENGTH 0) fetches nothing.
            let e = GpEntry(self.read64(entry_va).map_err(Stop::Fault)?);
            if e.length() != 0 {
                self.segment(e.address(), e.length())?;
            }
            self.gp_get = (self.gp_get + 1) % self.info.entries;
            // SAFETY: as above.
            unsafe { write_u32(self.info.userd + USERD_GP_GET, self.gp_get) };
        }
    }

    fn host(&self, va: u64, len: u64) -> Result<usize, String> {
        self.inner.translate(va, len).ok_or_else(|| format!("GPU access of {len} bytes at {va:#x}: unmapped"))
    }

    fn read32(&self, va: u64) -> Result<u32, String> {
        if !va.is_multiple_of(4) {
            return Err(format!("misaligned 4-byte access at {va:#x}"));
        }
        // SAFETY: translated, aligned.
        Ok(unsafe { read_u32(self.host(va, 4)?) })
    }

    fn read64(&self, va: u64) -> Result<u64, String> {
        if !va.is_multiple_of(8) {
            return Err(format!("misaligned 8-byte access at {va:#x}"));
        }
        // SAFETY: translated, aligned.
        Ok(unsafe { (*(self.host(va, 8)? as *const AtomicU64)).load(Ordering::Acquire) })
    }

    fn write32(&self, va: u64, v: u32) -> Result<(), String> {
        if !va.is_multiple_of(4) {
            return Err(format!("misaligned 4-byte access at {va:#x}"));
        }
        // SAFETY: translated, aligned.
        unsafe { write_u32(self.host(va, 4)?, v) };
        self.inner.writes.wrote();
        Ok(())
    }

    fn write64(&self, va: u64, v: u64) -> Result<(), String> {
        if !va.is_multiple_of(8) {
            return Err(format!("misaligned 8-byte access at {va:#x}"));
        }
        // SAFETY: translated, aligned.
        unsafe { (*(self.host(va, 8)? as *const AtomicU64)).store(v, Ordering::Release) };
        self.inner.writes.wrote();
        Ok(())
    }

    fn segment(&mut self, addr: u64, dwords: u32) -> Result<(), Stop> {
        let f = Stop::Fault;
        let mut i = 0u64;
        let n = dwords as u64;
        while i < n {
            let word = self.read32(addr + 4 * i).map_err(f)?;
            i += 1;
            let h = MethodHeader::decode(word);
            let (sub, method, count) = (h.subchannel, h.method, h.count);
            match h.op {
                SecOp::Inc | SecOp::NonInc | SecOp::OneInc => {
                    for k in 0..count {
                        if i >= n {
                            return Err(Stop::Fault(format!(
                                "push buffer at {addr:#x}: method {method:#x} wants {count} data words past the segment end"
                            )));
                        }
                        let data = self.read32(addr + 4 * i).map_err(f)?;
                        i += 1;
                        let m = match h.op {
                            SecOp::Inc => method + 4 * k,
                            SecOp::NonInc => method,
                            _ => method + if k == 0 { 0 } else { 4 },
                        };
                        self.method(sub, m, data)?;
                    }
                }
                SecOp::Immediate => self.method(sub, method, count)?,
                SecOp::EndPbSegment => return Ok(()),
                op => {
                    return Err(Stop::Fault(format!(
                        "push buffer at {:#x}: header {word:#010x} has SEC_OP {op:?}, which is not modelled",
                        addr + 4 * (i - 1)
                    )))
                }
            }
        }
        Ok(())
    }

    fn reg(&self, sub: u32, m: u32) -> u32 {
        self.regs[sub as usize].get(&m).copied().unwrap_or(0)
    }

    fn method(&mut self, sub: u32, m: u32, data: u32) -> Result<(), Stop> {
        self.regs[sub as usize].insert(m, data);
        if m == host::SET_OBJECT {
            if !self.engines.contains(&data) && data != 0 {
                return Err(Stop::Fault(format!(
                    "SET_OBJECT of class {data:#x}, which is not allocated on this channel"
                )));
            }
            self.subch[sub as usize] = data;
            return Ok(());
        }
        if m < host::HOST_METHODS_END {
            return self.host_method(sub, m, data);
        }
        let class = self.subch[sub as usize];
        if class == 0 {
            return Err(Stop::Fault(format!("method {m:#x} on subchannel {sub}, which has no object")));
        }
        if COPY_CLASSES.contains(&class) {
            return self.copy_method(sub, m, data);
        }
        if COMPUTE_CLASSES.contains(&class) {
            return self.compute_method(sub, m, data);
        }
        Ok(())
    }

    fn host_method(&mut self, sub: u32, m: u32, data: u32) -> Result<(), Stop> {
        match m {
            host::NON_STALL_INTERRUPT => {
                // The channel's engine raises it: graphics (compute) unless it is a copy channel.
                let copy_only = self.engines.iter().all(|c| COPY_CLASSES.contains(c));
                let engine = if copy_only { Engine::Copy } else { Engine::Graphics };
                self.inner.nonstall_interrupt(self.info.gpu, engine);
            }
            host::SEM_EXECUTE => {
                let hi = self.reg(sub, host::SEM_ADDR_HI) & host::SEM_ADDR_HI_MASK;
                let addr = self.reg(sub, host::SEM_ADDR_LO) as u64 | (hi as u64) << 32;
                let payload =
                    self.reg(sub, host::SEM_PAYLOAD_LO) as u64 | (self.reg(sub, host::SEM_PAYLOAD_HI) as u64) << 32;
                let wide = data & host::SEM_EXECUTE_PAYLOAD_SIZE_64BIT != 0;
                match data & host::SEM_EXECUTE_OPERATION_MASK {
                    host::SEM_EXECUTE_OPERATION_RELEASE => {
                        let stamp = data & host::SEM_EXECUTE_RELEASE_TIMESTAMP != 0;
                        self.release(addr, payload, wide, stamp)?
                    }
                    op if acquired(op, wide, 0, 0).is_some() => self.acquire(op, addr, payload, wide)?,
                    op => return Err(Stop::Fault(format!("SEM_EXECUTE operation {op} is not modelled"))),
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A semaphore release: the time (when `stamp`) goes to +8 before the payload, so a host
    /// that sees the payload also sees the time.
    fn release(&self, addr: u64, payload: u64, wide: bool, stamp: bool) -> Result<(), Stop> {
        if stamp {
            self.write64(addr + 8, timestamp()).map_err(Stop::Fault)?;
        }
        if wide {
            self.write64(addr, payload).map_err(Stop::Fault)
        } else {
            self.write32(addr, payload as u32).map_err(Stop::Fault)
        }
    }

    /// Wait until the semaphore at `addr` satisfies acquire operation `op` against `payload`:
    /// an engine's write wakes the wait, a host write is seen by its poll (see
    /// [`crate::memory_wait`]); a stop unparks the thread.
    fn acquire(&self, op: u32, addr: u64, payload: u64, wide: bool) -> Result<(), Stop> {
        let mut wait = MemoryWait::new(&self.inner.writes, &self.ctl.waits);
        loop {
            let cur = if wide {
                self.read64(addr).map_err(Stop::Fault)?
            } else {
                self.read32(addr).map_err(Stop::Fault)? as u64
            };
            if acquired(op, wide, cur, payload) == Some(true) {
                return Ok(());
            }
            if self.stopping() {
                return Err(Stop::Shutdown);
            }
            wait.step();
        }
    }

    fn copy_method(&mut self, sub: u32, m: u32, data: u32) -> Result<(), Stop> {
        if m != copy::LAUNCH_DMA {
            return Ok(());
        }
        let r = |x| self.reg(sub, x) as u64;
        let upper = |x| (self.reg(sub, x) & copy::UPPER_ADDRESS_MASK) as u64;
        if data & copy::DATA_TRANSFER_TYPE_MASK != copy::DATA_TRANSFER_TYPE_NONE {
            let src = r(copy::OFFSET_IN_LOWER) | upper(copy::OFFSET_IN_UPPER) << 32;
            let dst = r(copy::OFFSET_OUT_LOWER) | upper(copy::OFFSET_OUT_UPPER) << 32;
            let len = r(copy::LINE_LENGTH_IN);
            let multi = data & copy::MULTI_LINE_ENABLE != 0;
            let lines = if multi { r(copy::LINE_COUNT).max(1) } else { 1 };
            let (pin, pout) = if multi { (r(copy::PITCH_IN), r(copy::PITCH_OUT)) } else { (0, 0) };
            for line in 0..lines {
                let (s, d) = (src + line * pin, dst + line * pout);
                let hs = self.host(s, len).map_err(Stop::Fault)?;
                let hd = self.host(d, len).map_err(Stop::Fault)?;
                // SAFETY: both ranges translated; `copy` tolerates overlap.
                unsafe { std::ptr::copy(hs as *const u8, hd as *mut u8, len as usize) };
            }
            self.inner.writes.wrote();
        }
        let sem = data & copy::SEMAPHORE_TYPE_MASK;
        if sem != 0 {
            let addr = r(copy::SET_SEMAPHORE_B) | upper(copy::SET_SEMAPHORE_A) << 32;
            let payload = r(copy::SET_SEMAPHORE_PAYLOAD) | r(copy::SET_SEMAPHORE_PAYLOAD_UPPER) << 32;
            let wide = data & copy::SEMAPHORE_PAYLOAD_SIZE_64 != 0;
            self.release(addr, payload, wide, sem == copy::SEMAPHORE_TYPE_RELEASE_FOUR_WORD)?;
        }
        if data & copy::INTERRUPT_TYPE_MASK != 0 {
            self.inner.nonstall_interrupt(self.info.gpu, Engine::Copy);
        }
        Ok(())
    }

    fn compute_method(&mut self, sub: u32, m: u32, data: u32) -> Result<(), Stop> {
        if m != compute::SEND_SIGNALING_PCAS2_B {
            return Ok(());
        }
        if !compute::PCAS_SCHEDULING_ACTIONS.contains(&(data & compute::PCAS_ACTION_MASK)) {
            return Ok(());
        }
        let mut qmd_va = (self.reg(sub, compute::SEND_PCAS_A) as u64) << compute::SEND_PCAS_A_QMD_ADDRESS_SHIFT;
        for _ in 0..1024 {
            match self.launch(sub, qmd_va)? {
                Some(next) => qmd_va = next,
                None => return Ok(()),
            }
        }
        Err(Stop::Fault("more than 1024 chained QMDs".into()))
    }

    /// Run the QMD at `qmd_va`; returns the dependent QMD to run next.
    fn launch(&mut self, sub: u32, qmd_va: u64) -> Result<Option<u64>, Stop> {
        let gpu = &self.inner.gpus[self.info.gpu].spec;
        let version = gpu.qmd_version();
        let size = qmd::size(version) as u64;
        let hq = self.host(qmd_va, size).map_err(Stop::Fault)?;
        // SAFETY: translated for `size` bytes; copied out before use.
        let q = unsafe { std::slice::from_raw_parts(hq as *const u8, size as usize) }.to_vec();
        let l = qmd::decode(&q, version).map_err(|e| Stop::Fault(format!("QMD at {qmd_va:#x}: {e}")))?;
        // A program the SM cannot run is the kernel's fault (an illegal instruction), not the
        // push buffer's.
        let module = self.program(l.program).map_err(|e| {
            let fault = super::ptx::Fault::Illegal(e.clone());
            let le = LaunchError { kernel: "?".into(), cta: [0; 3], thread: [0; 3], line: 0, fault };
            Stop::Kernel(format!("QMD at {qmd_va:#x}: {e}"), Box::new(le))
        })?;
        let (module, entry) = module;
        let f = module.entry(&entry).ok_or_else(|| Stop::Fault(format!("the PTX image has no kernel `{entry}`")))?;
        let (cb0, cb0_size) =
            l.cbufs[0].ok_or_else(|| Stop::Fault(format!("QMD at {qmd_va:#x}: constant bank 0 is not valid")))?;
        let poff = gpu.cbank_param_offset();
        let psize = f.formal_param_size();
        if poff + psize as u64 > cb0_size as u64 {
            return Err(Stop::Fault(format!(
                "kernel {entry}: {psize} bytes of parameters at constant bank 0 offset {poff:#x} exceed its {cb0_size} bytes"
            )));
        }
        let hp = self.host(cb0 + poff, psize as u64).map_err(Stop::Fault)?;
        // SAFETY: translated.
        let params = unsafe { std::slice::from_raw_parts(hp as *const u8, psize as usize) }.to_vec();
        // %ntid and %nctaid read the driver's slots in bank 0, as compiled code does on a GPU.
        let hs = self.host(cb0, poff).map_err(Stop::Fault)?;
        // SAFETY: translated for `poff` bytes (bank 0 holds at least the parameters' offset).
        let slots = unsafe { std::slice::from_raw_parts(hs as *const u8, poff as usize) };
        let (ntid, nctaid) = cbank0::launch_sizes(slots, gpu.sm())
            .ok_or_else(|| Stop::Fault(format!("QMD at {qmd_va:#x}: bank 0 holds no launch sizes")))?;
        let dynamic = l.shared_bytes.saturating_sub(module.shared_size);
        let launch = Launch {
            entry: &entry,
            grid: l.grid,
            block: l.block,
            ntid,
            nctaid,
            params: &params,
            dynamic_shared: dynamic,
            sm_count: gpu.sm_count,
            cancel: Some(&self.ctl.stop),
            retired: Some(&self.inner.work),
        };
        let regions = self.inner.gpu_regions();
        let ran = module.launch(&launch, &regions);
        // Whatever the kernel wrote (before a fault too) is visible to memory waits.
        self.inner.writes.wrote();
        ran.map_err(|e| {
            if self.stopping() {
                Stop::Shutdown
            } else {
                Stop::Kernel(format!("kernel {entry}: {e}"), Box::new(e))
            }
        })?;
        for &(addr, payload, p64, one_word) in &l.releases {
            self.release(addr, payload, p64, !one_word)?;
        }
        let _ = sub;
        Ok(l.dependent)
    }

    /// The parsed module and entry name of the image at `va`.
    fn program(&self, va: u64) -> Result<(Arc<Module>, String), String> {
        let hh = self.host(va, program::HEADER as u64)?;
        // SAFETY: translated.
        let head = unsafe { std::slice::from_raw_parts(hh as *const u8, program::HEADER) }.to_vec();
        let (n, m) = program::header(&head)?;
        let hb = self.host(va + program::HEADER as u64, (n + m) as u64)?;
        // SAFETY: translated.
        let body = unsafe { std::slice::from_raw_parts(hb as *const u8, n + m) }.to_vec();
        let entry = String::from_utf8(body[..n].to_vec()).map_err(|_| "the entry name is not UTF-8".to_string())?;
        let text = std::str::from_utf8(&body[n..]).map_err(|_| "the PTX text is not UTF-8".to_string())?;
        let key = fnv(&body);
        let mut cache = self.inner.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = cache.get(&key) {
            return Ok((m.clone(), entry));
        }
        let module = Arc::new(Module::parse(text).map_err(|e| format!("PTX of kernel {entry}: {e}"))?);
        cache.insert(key, module.clone());
        Ok((module, entry))
    }
}

/// Whether SEM_EXECUTE acquire operation `op` is satisfied by `cur`; None: not an acquire.
fn acquired(op: u32, wide: bool, cur: u64, payload: u64) -> Option<bool> {
    Some(match op {
        host::SEM_EXECUTE_OPERATION_ACQUIRE => cur == payload,
        host::SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ => cur >= payload,
        host::SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ if wide => cur.wrapping_sub(payload) as i64 >= 0,
        host::SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ => (cur as u32).wrapping_sub(payload as u32) as i32 >= 0,
        host::SEM_EXECUTE_OPERATION_ACQ_AND => cur & payload != 0,
        host::SEM_EXECUTE_OPERATION_ACQ_NOR => cur & payload == 0,
        _ => return None,
    })
}

/// `ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT` (`nverror.h`).
const XID_MMU_FAULT: u32 = 31;

/// The status RM leaves in a notifier it filled because of an error.
pub(crate) const NOTIFICATION_STATUS_ERROR: u16 = 0xffff;

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| (h ^ *x as u64).wrapping_mul(0x100_0000_01b3))
}

/// PTIMER: what semaphore releases stamp.
fn timestamp() -> u64 {
    crate::clock::nv_timestamp()
}
