//! [`Backend`] for NVIDIA: memory through RM, constant bank 0 and the QMD, GPFIFO submission,
//! and RM's channel errors (with the SM fault report) between signal polls. A stopped channel
//! cannot be restarted: the device must be reopened.

use super::device::{Buffer, Nv, NvIsa, Program, TIMESTAMP_HZ};
use super::encode::{NvCompute, NvCopy};
use super::gpfifo::GpFifoError;
use super::launch;
use super::program::{self, NvCode, NvKernel};
use crate::core::{memory_copy_into, ArgsBlock, Backend, Device, Mem, Queue, SubmitError};
use crate::program::{ArgValue, Launch};
use crate::signal::{Signal, Width};
use crate::trace::Trace;
use crate::{Error, Result};
use baregpu_drivers::nv::device::NvMemKind;
use baregpu_drivers::nv::methods::ComputeCmds;
use baregpu_drivers::nv::qmd::Qmd;
use std::time::Duration;

/// The ring of constant banks and QMDs.
const ARGS_BYTES: u64 = 4 << 20;
/// Constant bank 0 starts each block; the QMD follows at the next 256-byte boundary.
const CB0_ALIGN: u64 = 256;

impl Backend for Nv {
    type Buffer = Buffer;
    type Code = NvCode;
    type Program = Program;
    type Compute = NvCompute;
    type Copy = NvCopy;

    const WIDTH: Width = Width::Bits64;
    const TIMESTAMP_HZ: u64 = TIMESTAMP_HZ;
    const ARGS_BYTES: u64 = ARGS_BYTES;
    const QUEUE_NAMES: [&'static str; 2] = ["compute", "copy"];
    const COPY_WHAT: &'static str = "copies";
    const DRAIN_ON_CLOSE: bool = true;

    fn alloc(&self, size: u64, mem: Mem) -> Result<Buffer> {
        let mem = match mem {
            Mem::Device => self.rm.alloc(size, NvMemKind::Vram { cpu_visible: true })?,
            Mem::Host => self.rm.alloc(size, NvMemKind::Host)?,
            Mem::Signals => self.rm.alloc_internal(size, NvMemKind::Host)?,
            Mem::Args => self.rm.alloc_internal(size, NvMemKind::Vram { cpu_visible: true })?,
        };
        Ok(Buffer { mem })
    }

    fn free(&self, b: Buffer) -> Result<()> {
        Ok(self.rm.free(b.mem)?)
    }

    fn map_for_peer(&self, b: &Buffer, peer: &Nv) -> std::result::Result<(), String> {
        self.rm.map_for_peer(&b.mem, &peer.rm).map_err(|e| e.to_string())
    }

    /// A cubin for a real GPU, PTX for the emulated one. Its image goes to device memory,
    /// relocated for where it lands, with a 4 KiB tail against instruction prefetch past the end.
    fn load(&self, label: &str, code: NvCode) -> Result<Program> {
        self.check_code(label, &code)?;
        let (image, kernels) = program::layout(&code, self.sm).map_err(Error::Program)?;
        let mem = self.rm.alloc_internal(image.len() as u64 + 0x1000, NvMemKind::Vram { cpu_visible: true })?;
        let buf = Buffer { mem };
        let bytes = match &code {
            NvCode::Cubin(c) => c.relocated(buf.va()),
            NvCode::Ptx(_) => image,
        };
        memory_copy_into(label, self.port(), &buf, 0, &bytes)?;
        Ok(Program { code, kernels, image: buf })
    }

    fn unload(&self, p: Program) -> Result<()> {
        self.free(p.image)
    }

    /// Local memory for the program's kernels.
    fn prepare(dev: &Device<Nv>, p: &Program) -> Result<()> {
        match p.kernels.iter().map(|k| k.local_bytes).max().unwrap_or(0) {
            0 => Ok(()),
            need => dev.ensure_local_memory(need),
        }
    }

    fn compute_encoder(&self) -> NvCompute {
        NvCompute::new(self.hopper_or_later)
    }

    fn copy_encoder(&self) -> Option<NvCopy> {
        Some(NvCopy::new(self.hopper_or_later))
    }

    /// Constant bank 0, with room for the QMD after it.
    fn args_block(&self, prog: &Program, kernel: &str, args: &[ArgValue], shape: &Launch) -> Result<ArgsBlock> {
        let k = prog.kernel(kernel)?;
        check_shape(k, shape)?;
        let cb0 = launch::constant_bank0(k, args, shape, self.sm).map_err(Error::Program)?;
        let span = (cb0.len() as u64).div_ceil(CB0_ALIGN) * CB0_ALIGN;
        let base = k.param_base as u64;
        let args = k.params.iter().map(|p| (base + p.offset as u64, p.size as u64)).collect();
        Ok(ArgsBlock { size: span + self.qmd.bytes() as u64, bytes: cb0, align: CB0_ALIGN, args })
    }

    /// The QMD after bank 0; SEND_PCAS_A / SEND_SIGNALING_PCAS2_B schedule it.
    fn encode_dispatch(
        &self,
        enc: &mut NvCompute,
        prog: &Program,
        kernel: &str,
        shape: &Launch,
        args_va: u64,
        _drain: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
        let k = prog.kernel(kernel)?;
        let cb0_len = launch::constant_bank0_len(k);
        let qmd_va = args_va + (cb0_len as u64).div_ceil(CB0_ALIGN) * CB0_ALIGN;
        let desc = launch::descriptor(k, prog.base(), args_va, cb0_len, shape, self.sm);
        let q = Qmd::launch(self.qmd, &desc).map_err(|e| Error::Program(format!("kernel `{kernel}`: {e}")))?;
        let qb = q.to_bytes();
        // SAFETY: the QMD's part of the launch's argument block (args_block reserved it), which
        // is CPU-visible and mapped at its GPU address.
        unsafe { std::ptr::copy_nonoverlapping(qb.as_ptr(), qmd_va as *mut u8, qb.len()) };
        enc.m.record(|pb| ComputeCmds::launch(pb, qmd_va));
        Ok(())
    }

    fn submit(
        &self,
        queue: Queue,
        words: &[u32],
        _packets: &[usize],
        done: (&Signal, u64),
        timeout: Duration,
        wait: &mut dyn FnMut(u64) -> Result<()>,
    ) -> std::result::Result<(), SubmitError> {
        let name = Self::QUEUE_NAMES[queue as usize];
        let mut fifos = self.fifos();
        let fifo = &mut fifos[queue as usize];
        fifo.submit(&self.rm, words, done.1, done.0, timeout, &mut |_, v| wait(v)).map_err(|e| match e {
            GpFifoError::TooLarge { bytes } => {
                SubmitError::Refused(format!("{bytes} bytes of methods do not fit the {name} ring"))
            }
            GpFifoError::Stalled { gp_get, put } => SubmitError::Stalled { reached: gp_get as u64, wanted: put as u64 },
            GpFifoError::Wait(e) => SubmitError::Failed(e),
        })
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
        // The segment's entry is published with the tail's (one GPPut, one doorbell).
        self.fifos()[queue as usize].queue_segment(&self.rm, va, dwords, timeout).map_err(|e| match e {
            GpFifoError::Stalled { gp_get, put } => SubmitError::Stalled { reached: gp_get as u64, wanted: put as u64 },
            GpFifoError::TooLarge { bytes } => SubmitError::Refused(format!("{bytes} bytes of methods")),
            GpFifoError::Wait(e) => SubmitError::Failed(e),
        })?;
        let r = self.submit(queue, tail, tail_packets, done, timeout, wait);
        if r.is_err() {
            // Never published: a later submission must not publish it either.
            self.fifos()[queue as usize].retract_segment();
        }
        r
    }

    /// Poll RM's channel errors, then sleep a short slice.
    fn sleep(&self, d: Duration) -> std::result::Result<(), String> {
        if let Some(e) = self.channel_error() {
            return Err(e);
        }
        // Every release raises a non-stall interrupt: sleep until the next one. The slice is
        // capped so that channel errors, which raise none, are still seen within 1 ms; an event
        // file RM will not poll falls back to the short sleep it replaces.
        if let Err(e) = self.rm.wait_nonstall(d.min(Duration::from_millis(1))) {
            log::debug!("non-stall interrupt wait: {e}");
            std::thread::sleep(d.min(Duration::from_micros(100)));
        }
        Ok(())
    }

    /// RM stops a faulted channel; a hung one still runs what it was given. Neither takes
    /// more work, and neither can be restarted here.
    fn recover(&self) -> Result<bool> {
        Ok(false)
    }

    fn broken_message(why: &str) -> String {
        format!("unusable after: {why}; reopen the device")
    }

    fn trace(&self, t: &Trace, label: &str, queue: Queue, what: &str, words: &[u32]) {
        let name = Self::QUEUE_NAMES[queue as usize];
        t.pushbuf(&format!("{label} {name} channel: {what}"), words);
    }

    fn close(&mut self) {
        let local = self.local.get_mut().unwrap_or_else(|e| e.into_inner()).take().map(|(_, m)| m);
        for m in local.into_iter().chain(self.pushbufs.take()) {
            if let Err(e) = self.rm.free(m) {
                log::warn!("freeing device memory: {e}");
            }
        }
    }
}

impl Nv {
    /// A code object this device can run, or why not.
    fn check_code(&self, label: &str, code: &NvCode) -> Result<()> {
        let arch = format!("sm_{}", self.sm);
        let refuse = |m: String| Err(Error::Program(m));
        match (code, self.isa) {
            (NvCode::Cubin(c), NvIsa::Sass) if c.sm != self.sm => {
                refuse(format!("the cubin is for sm_{}, but {label} is {arch}", c.sm))
            }
            (NvCode::Cubin(_), NvIsa::Ptx) => {
                refuse(format!("{label} executes PTX, not SASS: give it the PTX the cubin was built from"))
            }
            (NvCode::Ptx(p), NvIsa::Ptx) if p.sm > self.sm => {
                refuse(format!("the PTX targets sm_{}, which {label} ({arch}) cannot run", p.sm))
            }
            (NvCode::Ptx(_), NvIsa::Sass) => {
                refuse(format!("{label} runs SASS: compile the PTX with ptxas -arch={arch} first"))
            }
            (NvCode::Ptx(p), NvIsa::Ptx) => match self.ptx_check.lock().unwrap_or_else(|e| e.into_inner()).clone() {
                Some(check) => check(&p.text).map_err(Error::Program),
                None => Ok(()),
            },
            _ => Ok(()),
        }
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
}

/// Launch limits: at most 1024 threads, and what the kernel declares (`.reqntid`/`.maxntid`).
fn check_shape(k: &NvKernel, shape: &Launch) -> Result<()> {
    let threads: u64 = shape.block.iter().map(|&d| d as u64).product();
    let fail = |m: String| Err(Error::Program(format!("kernel `{}`: {m}", k.name)));
    if shape.grid.contains(&0) || shape.block.contains(&0) {
        return fail(format!("grid {:?} block {:?} has a zero dimension", shape.grid, shape.block));
    }
    if threads > 1024 || shape.block[2] > 64 {
        return fail(format!("block {:?} exceeds 1024 threads (or 64 in z)", shape.block));
    }
    if shape.grid[1] > 65535 || shape.grid[2] > 65535 || shape.grid[0] > i32::MAX as u32 {
        return fail(format!("grid {:?} exceeds (2^31-1, 65535, 65535)", shape.grid));
    }
    if let Some(r) = k.required_block.filter(|r| *r != shape.block) {
        return fail(format!("requires block {r:?} (.reqntid), {:?} given", shape.block));
    }
    if let Some(m) = k.max_block.filter(|m| threads > m.iter().map(|&d| d as u64).product()) {
        return fail(format!("allows at most block {m:?} (.maxntid), {:?} given", shape.block));
    }
    Ok(())
}
