//! [`Backend`] for AMD: memory through the driver interface, kernargs and dispatch registers,
//! PM4/SDMA rings, the interface's sleep (with its fault and engine-reset reports) between
//! signal polls, and recovery by rebuilding the queues.

use super::device::{Amd, Buffer, Program, COMPUTE_RING, SDMA_RING, TIMESTAMP_HZ};
use super::encode::{AmdCompute, AmdCopy};
use super::iface::{MemKind, QueueKind};
use super::launch;
use super::ring::{HwRing, RingError};
use crate::core::{memory_copy_into, ArgsBlock, Backend, Mem, Queue, SubmitError};
use crate::program::{kernargs, ArgValue, CodeObject, Launch};
use crate::signal::{Signal, Width};
use crate::trace::Trace;
use crate::{Error, Result};
use baregpu_drivers::amd::pm4::Dispatch;
use baregpu_drivers::va_window::Placement;
use std::time::Duration;

/// Bytes of the kernarg ring.
const KERNARG_BYTES: u64 = 1 << 20;
/// The HSA dispatch packet some kernels read through their dispatch pointer.
const PACKET_BYTES: u64 = 64;

impl Backend for Amd {
    type Buffer = Buffer;
    type Code = CodeObject;
    type Program = Program;
    type Compute = AmdCompute;
    type Copy = AmdCopy;

    const WIDTH: Width = Width::Bits32;
    const TIMESTAMP_HZ: u64 = TIMESTAMP_HZ;
    const ARGS_BYTES: u64 = KERNARG_BYTES;
    const QUEUE_NAMES: [&'static str; 2] = ["compute", "SDMA"];
    const COPY_WHAT: &'static str = "SDMA copies";
    const DRAIN_ON_CLOSE: bool = false;

    fn alloc(&self, size: u64, mem: Mem) -> Result<Buffer> {
        let (kind, placement) = match mem {
            Mem::Device => (MemKind::Vram { cpu_visible: true }, Placement::User),
            Mem::Host => (MemKind::Host, Placement::User),
            Mem::Signals | Mem::Args => (MemKind::Uncached, Placement::Internal),
        };
        Ok(Buffer { mem: self.iface.alloc(size, kind, placement)? })
    }

    fn free(&self, b: Buffer) -> Result<()> {
        self.iface.free(b.mem)
    }

    fn port(&self) -> &crate::port::Port {
        &self.port
    }

    fn map_for_peer(&self, b: &Buffer, peer: &Amd) -> std::result::Result<(), String> {
        self.iface.map_for_peer(&b.mem, &*peer.iface)
    }

    /// Its image, relocated for where it lands, in device memory.
    fn load(&self, label: &str, code: CodeObject) -> Result<Program> {
        let arch = &self.iface.info().arch;
        if &code.arch != arch {
            return Err(Error::Program(format!("the code object is for {}, but {label} is {arch}", code.arch)));
        }
        let mem =
            self.iface.alloc(code.image.len() as u64, MemKind::Vram { cpu_visible: true }, Placement::Internal)?;
        let image = Buffer { mem };
        let bytes = code.relocated(image.va());
        memory_copy_into(label, &self.port, &image, 0, &bytes)?;
        Ok(Program { code, image })
    }

    fn unload(&self, p: Program) -> Result<()> {
        self.free(p.image)
    }

    fn compute_encoder(&self) -> AmdCompute {
        AmdCompute::new(self.pm4, self.hdp, self.wake, self.xccs)
    }

    fn copy_encoder(&self) -> Option<AmdCopy> {
        self.rings().copy.is_some().then(|| AmdCopy::new(self.sdma, self.wake))
    }

    /// The kernargs, with room for the dispatch packet after them where the kernel reads it.
    fn args_block(&self, prog: &Program, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<ArgsBlock> {
        let k = prog.code.kernel(kernel).map_err(Error::Program)?;
        launch::check_shape(k, shape)?;
        launch::rsrc2(k, shape, self.lds_limit)?;
        let bytes = kernargs::build(&k.meta, args, shape).map_err(Error::Program)?;
        let packet = if launch::wants_dispatch_packet(k) { PACKET_BYTES } else { 0 };
        let args = k.meta.args.iter().filter(|a| a.is_explicit()).map(|a| (a.offset as u64, a.size as u64)).collect();
        debug_assert_eq!(bytes.len() as u64, k.meta.kernarg_segment_size as u64);
        Ok(ArgsBlock {
            size: kernarg_bytes(k) + packet,
            bytes,
            align: k.meta.kernarg_segment_align.max(16) as u64,
            args,
        })
    }

    fn encode_dispatch(
        &self,
        enc: &mut AmdCompute,
        prog: &Program,
        kernel: &str,
        shape: &Launch,
        args_va: u64,
        drain: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
        let k = prog.code.kernel(kernel).map_err(Error::Program)?;
        let rsrc2 = launch::rsrc2(k, shape, self.lds_limit)?;
        let packet_va = if launch::wants_dispatch_packet(k) {
            let at = args_va + kernarg_bytes(k);
            let pkt = launch::dispatch_packet(k, shape, prog.base() + k.descriptor_offset, args_va);
            // SAFETY: the last 64 bytes of the launch's argument block (args_block reserved them),
            // reached through the port at its GPU address; the GPU does not read it yet.
            unsafe { self.port.write(at, &pkt)? };
            at
        } else {
            args_va
        };
        let (queue, dispatch_id) = {
            let mut r = self.rings();
            r.dispatches += 1;
            (r.compute.as_ref().map_or(0, |c| c.queue.queue_va), r.dispatches)
        };
        let ptrs = launch::Pointers { kernargs: args_va, dispatch_packet: packet_va, queue, dispatch_id };
        let user_data = launch::user_sgprs(k, &ptrs)?;
        let (scratch_base, tmpring_size, scratch_per_xcc) = match k.descriptor.private_segment_fixed_size {
            0 => (None, 0, 0),
            n => {
                let wave = if launch::wave32(k) { 32 } else { 64 };
                let per_group = shape.block.iter().map(|&b| b as u64).product::<u64>().div_ceil(wave);
                let groups = shape.grid.iter().map(|&g| g as u64).product::<u64>();
                let s = self.scratch(n, per_group.saturating_mul(groups), drain)?;
                (Some(s.base), s.tmpring, s.per_xcc)
            }
        };
        enc.q.dispatch(&Dispatch {
            entry: prog.base() + k.entry_offset,
            rsrc1: k.descriptor.compute_pgm_rsrc1,
            rsrc2,
            rsrc3: k.descriptor.compute_pgm_rsrc3,
            tmpring_size,
            scratch_base,
            scratch_per_xcc,
            user_data,
            grid: shape.grid,
            block: shape.block,
            wave32: launch::wave32(k),
        });
        Ok(())
    }

    fn submit(
        &self,
        queue: Queue,
        words: &[u32],
        packets: &[usize],
        _done: (&Signal, u64),
        timeout: Duration,
        _wait: &mut dyn FnMut(u64) -> Result<()>,
    ) -> std::result::Result<(), SubmitError> {
        let mut r = self.rings();
        let (ring, name) = match queue {
            Queue::Compute => (r.compute.as_mut(), "compute"),
            Queue::Copy => (r.copy.as_mut(), "SDMA"),
        };
        let ring = ring.ok_or_else(|| SubmitError::Refused(format!("no {name} queue")))?;
        ring.submit(&[], words, packets, timeout).map_err(|e| ring_error(e, name))
    }

    fn submit_indirect(
        &self,
        queue: Queue,
        (va, dwords): (u64, u32),
        tail: &[u32],
        tail_packets: &[usize],
        done: (&Signal, u64),
        timeout: Duration,
        wait: &mut dyn FnMut(u64) -> Result<()>,
    ) -> std::result::Result<(), SubmitError> {
        match queue {
            Queue::Compute => {
                // The INDIRECT_BUFFER goes on the ring as it is (no PRED_EXEC in it, and an IB
                // is not nested in another), the tail wrapped where several XCCs run the ring.
                let mut head = self.compute_encoder();
                head.indirect(va, dwords);
                let _ = (done, wait);
                let mut r = self.rings();
                let ring = r.compute.as_mut().ok_or_else(|| SubmitError::Refused("no compute queue".into()))?;
                ring.submit(head.q.words(), tail, &[], timeout).map_err(|e| ring_error(e, "compute"))
            }
            Queue::Copy => {
                let mut head = AmdCopy::new(self.sdma, self.wake);
                head.indirect(va, dwords);
                let words = [head.q.words(), tail].concat();
                let packets = [head.q.packets(), tail_packets].concat();
                self.submit(queue, &words, &packets, done, timeout, wait)
            }
        }
    }

    /// Sleep through the interface; a memory fault or engine reset it reports ends the wait.
    fn sleep(&self, d: Duration) -> std::result::Result<(), String> {
        let stopped = match self.iface.sleep(d) {
            Ok(()) => return Ok(()),
            Err(s) => s,
        };
        if !stopped.engine_reset {
            return Err(stopped.why);
        }
        // The reset says only that the engine stopped; the queue's exception says why.
        let queue = self.rings().compute.as_ref().map(|r| r.queue.id);
        match queue.and_then(|q| self.iface.queue_exception(q)) {
            Some(why) => Err(format!("{why}; the engine was reset")),
            None => Err(stopped.why),
        }
    }

    fn recover(&self) -> Result<bool> {
        let mut r = self.rings();
        for ring in [r.compute.take(), r.copy.take()].into_iter().flatten() {
            if let Err(e) = self.iface.destroy_queue(ring.queue) {
                log::warn!("{}: destroying a faulted queue: {e}", self.label);
            }
        }
        if !self.iface.recover()? {
            return Ok(false);
        }
        // A reset may have stopped an XCC inside a barrier: start the counters over.
        super::device::reset_barrier(&self.xccs, &self.port);
        let ring = |q| HwRing::new(q, self.port.clone());
        r.compute = Some(ring(self.iface.create_queue(QueueKind::Compute, COMPUTE_RING)?));
        r.copy = self.iface.create_queue(QueueKind::Sdma, SDMA_RING).ok().map(ring);
        Ok(true)
    }

    fn broken_message(why: &str) -> String {
        format!("needs recovery after: {why}")
    }

    fn trace(&self, t: &Trace, label: &str, queue: Queue, what: &str, words: &[u32]) {
        match queue {
            Queue::Compute => t.pm4(&format!("{label} compute queue: {what}"), self.pm4, words),
            Queue::Copy => t.sdma(&format!("{label} SDMA queue: {what}"), self.sdma, words),
        }
    }

    /// Give back the queues, the interface's own resources (KFD: events) and scratch, so that
    /// an emulated device (or a long-lived process sharing /dev/kfd) sees a clean state.
    fn close(&mut self) {
        let r = self.rings.get_mut().unwrap_or_else(|e| e.into_inner());
        for ring in [r.compute.take(), r.copy.take()].into_iter().flatten() {
            if let Err(e) = self.iface.destroy_queue(ring.queue) {
                log::warn!("{}: destroying a queue: {e}", self.label);
            }
        }
        self.iface.close();
        let scratch: Vec<_> =
            r.scratch.take().into_iter().chain(r.retired_scratch.drain(..)).chain(self.xcc_barrier.take()).collect();
        for m in scratch {
            if let Err(e) = self.iface.free(m) {
                log::warn!("{}: freeing scratch: {e}", self.label);
            }
        }
    }
}

fn ring_error(e: RingError, name: &str) -> SubmitError {
    match e {
        RingError::TooLarge { dwords, ring_dwords } => {
            SubmitError::Refused(format!("{dwords} dwords do not fit the {ring_dwords}-dword {name} ring"))
        }
        RingError::Stalled { in_flight } => SubmitError::Stalled { reached: in_flight, wanted: 0 },
        RingError::Link(e) => SubmitError::Failed(e),
    }
}

/// Where a dispatch's scratch lies: XCC i of a multi-XCC device uses `base + i * per_xcc`.
struct Scratch {
    base: u64,
    per_xcc: u64,
    tmpring: u32,
}

/// The kernarg segment's span in the block (the dispatch packet follows it).
fn kernarg_bytes(k: &crate::program::hsaco::Kernel) -> u64 {
    (k.meta.kernarg_segment_size as u64).max(16)
}

impl Amd {
    /// Scratch for `per_lane` private bytes and `waves` waves of a dispatch: its address and the
    /// COMPUTE_TMPRING_SIZE value. Sized for the waves that can be resident at once or that the
    /// dispatch has, whichever is fewer (the hardware reuses a slot when a wave ends); grown
    /// when a later dispatch needs more (after `drain`: earlier dispatches may use the old
    /// buffer), never shrunk.
    fn scratch(&self, per_lane: u32, waves: u64, drain: &mut dyn FnMut() -> Result<()>) -> Result<Scratch> {
        // Architected flat scratch: per-wave size in 256-byte units, for a wave of 64 lanes.
        // TMPRING_SIZE describes one XCC's waves; each XCC gets a region of its own.
        let per_wave = (per_lane as u64 * 64).div_ceil(256) * 256;
        let xccs = self.xccs.count as u64;
        let info = self.iface.info();
        let cus = info.compute_units as u64 / xccs;
        let slots = info.scratch_slots_per_cu;
        let waves = (cus * slots).min(0xfff).min(waves).max(1);
        let per_xcc = per_wave * waves;
        let need = per_xcc * xccs;
        let tmpring = (waves as u32) | (((per_wave / 256) as u32) << 12);
        let have = self.rings().scratch.as_ref().map(|m| (m.va, m.size));
        match have {
            Some((va, size)) if size >= need => return Ok(Scratch { base: va, per_xcc, tmpring }),
            Some(_) => drain()?,
            None => {}
        }
        // A compiled graph may still point at the old buffer: keep it until close.
        let mut rings = self.rings();
        if let Some(m) = rings.scratch.take() {
            rings.retired_scratch.push(m);
        }
        drop(rings);
        let mem = self.iface.alloc(need, MemKind::Vram { cpu_visible: false }, Placement::Internal).map_err(|e| {
            crate::core::dev_err(
                &self.label,
                format!("scratch of {per_lane} bytes per work-item for {waves} waves: {e}"),
            )
        })?;
        let va = mem.va;
        self.rings().scratch = Some(mem);
        Ok(Scratch { base: va, per_xcc, tmpring })
    }
}
