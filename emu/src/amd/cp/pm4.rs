//! The PM4 executor of a compute queue (gfx9 through soc15d.h encodings, gfx10+ through nvd.h;
//! the opcodes are the same): register writes into the queue's register file, dispatches handed
//! to the wave engine, end-of-pipe writes and interrupts, waits, indirect buffers.

use super::decode::{parse_pm4, pm4_fields, pm4_opcode_label, pm4_packet_len, Pm4Packet, ReleaseMem, WaitRegMem};
use super::poll::Backoff;
use super::regs::RegFile;
use super::{gpu_clock, Cx, Executor, Loc, Stop, MAX_IB_DEPTH};
use crate::amd::dispatch::WaveEngine;
use baregpu_autogen::amd::pm4_nv as nv;
use baregpu_drivers::amd::pm4::{Family, Pm4Generation};
use std::sync::Arc;
use std::time::Duration;

pub(crate) struct Pm4Exec {
    family: Family,
    arch: &'static str,
    /// The XCC whose CP this is, of `xccs` in the GPU's partition.
    xcc: u32,
    xccs: u32,
    regs: RegFile,
    engine: Arc<dyn WaveEngine>,
}

/// The budget of one dispatch: `BAREGPU_EMU_DISPATCH_MS`, by default 120 s, of wall clock and
/// of emulated time both (see `Cancel::with_budget`). It bounds grids too large to finish (2^32
/// tiny workgroups retire steadily, so no no-progress watchdog fires); a hang, where nothing
/// retires, is the runtime's no-progress timeout's to report.
pub const DEFAULT_DISPATCH_BUDGET: Duration = Duration::from_secs(120);

pub(crate) fn dispatch_budget() -> Duration {
    baregpu_drivers::env::millis("BAREGPU_EMU_DISPATCH_MS", DEFAULT_DISPATCH_BUDGET)
}

/// ATOMIC_MEM operation TC_OP_ATOMIC_ADD_RTN_32 (vega10_enum.h): the one the driver uses.
const TC_OP_ATOMIC_ADD_RTN_32: u32 = 0xf;

/// `(value & mask) <function> reference`, the CP's compare (function 7 is reserved).
pub(crate) fn compare(function: u32, value: u32, reference: u32) -> bool {
    match function {
        0 => true,
        1 => value < reference,
        2 => value <= reference,
        3 => value == reference,
        4 => value != reference,
        5 => value >= reference,
        6 => value > reference,
        _ => false,
    }
}

impl Pm4Exec {
    /// The CP of XCC `xcc` of `xccs`.
    pub fn new(arch: &'static str, engine: Arc<dyn WaveEngine>, xcc: u32, xccs: u32) -> Option<Pm4Exec> {
        let family = Pm4Generation::for_arch(arch)?.family;
        Some(Pm4Exec { family, arch, xcc, xccs, regs: RegFile::new(family), engine })
    }

    /// PRED_EXEC: how many of the following dwords this XCC skips. The CP honours it only in an
    /// indirect buffer (what the hardware does; tinygrad's ops_amd.py works around the same).
    fn pred_exec(&self, xcc_mask: u32, count: u32, depth: u32, what: &dyn std::fmt::Display) -> Result<usize, Stop> {
        if depth == 0 {
            return Err(Stop::Bad(format!("{what}: PRED_EXEC works only in an indirect buffer, not in the ring")));
        }
        Ok(if xcc_mask & (1 << self.xcc) != 0 { 0 } else { count as usize })
    }

    fn atomic_mem(
        &mut self,
        cx: &mut Cx<'_>,
        op: u32,
        addr: u64,
        src: u64,
        what: &dyn std::fmt::Display,
    ) -> Result<(), Stop> {
        match op {
            TC_OP_ATOMIC_ADD_RTN_32 => cx.mem.add_u32(cx.host, addr, src as u32, what).map(|_| ()),
            op => Err(Stop::Bad(format!("{what}: atomic operation {op:#x} is not supported"))),
        }
    }

    fn release_mem(&mut self, cx: &mut Cx<'_>, r: &ReleaseMem, what: &dyn std::fmt::Display) -> Result<(), Stop> {
        // DST_SEL 0 (memory) and 1 (TC L2) both land in memory here; there are no caches.
        if r.data_sel != 0 && r.dst_sel > 1 {
            return Err(Stop::Bad(format!("{what}: DST_SEL {} is not supported", r.dst_sel)));
        }
        if r.data_sel != 0 {
            cx.ctl.eop_writes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        match r.data_sel {
            0 => {}
            1 => cx.mem.write_u32(cx.host, r.addr, r.data as u32, what)?,
            2 => cx.mem.write_u64(cx.host, r.addr, r.data, what)?,
            3 | 4 => cx.mem.write_u64(cx.host, r.addr, gpu_clock(), what)?,
            s => return Err(Stop::Bad(format!("{what}: DATA_SEL {s} is not supported"))),
        }
        if matches!(r.int_sel, 1..=3) {
            cx.host.interrupt(cx.q.gpu_id, Some(r.ctxid));
        }
        Ok(())
    }

    /// A register read: the host's bus register at `reg`, else the queue's register file.
    fn reg_read(&self, cx: &Cx<'_>, reg: u32) -> u32 {
        cx.host.bus_register(reg, None).unwrap_or_else(|| self.regs.read(reg))
    }

    fn reg_write(&mut self, cx: &Cx<'_>, reg: u32, v: u32) {
        if cx.host.bus_register(reg, Some(v)).is_none() {
            self.regs.write(reg, v);
        }
    }

    fn wait_reg_mem(&mut self, cx: &mut Cx<'_>, w: &WaitRegMem, what: &dyn std::fmt::Display) -> Result<(), Stop> {
        if w.function == 7 {
            return Err(Stop::Bad(format!("{what}: reserved compare function 7")));
        }
        let mut backoff = Backoff::new(cx.ctl);
        match (w.mem_space, w.operation) {
            (1, 0) => loop {
                let v = cx.mem.read_u32(cx.host, w.addr, what)?;
                if compare(w.function, v & w.mask, w.reference) {
                    return Ok(());
                }
                backoff.wait(cx.ctl, true)?;
            },
            (0, 0) | (0, 1) => {
                let reg = if w.operation == 1 {
                    self.reg_write(cx, w.reg0, w.reference);
                    w.reg1
                } else {
                    w.reg0
                };
                // Only this queue writes its registers: an unmet register wait hangs the queue
                // (as the hardware would) until it is destroyed.
                loop {
                    if compare(w.function, self.reg_read(cx, reg) & w.mask, w.reference) {
                        return Ok(());
                    }
                    backoff.wait(cx.ctl, true)?;
                }
            }
            (s, o) => Err(Stop::Bad(format!("{what}: MEM_SPACE {s} with OPERATION {o} is not supported"))),
        }
    }

    fn copy_data(
        &mut self,
        cx: &mut Cx<'_>,
        c: &super::decode::CopyData,
        what: &dyn std::fmt::Display,
    ) -> Result<(), Stop> {
        let v: u64 = match c.src_sel {
            0 | 4 => {
                let r = c.src as u32;
                self.reg_read(cx, r) as u64 | if c.count_64 { (self.reg_read(cx, r + 1) as u64) << 32 } else { 0 }
            }
            1 | 2 => {
                if c.count_64 {
                    cx.mem.read_u64(cx.host, c.src, what)?
                } else {
                    cx.mem.read_u32(cx.host, c.src, what)? as u64
                }
            }
            5 => c.src,
            9 | 10 => gpu_clock(),
            s => return Err(Stop::Bad(format!("{what}: SRC_SEL {s} is not supported"))),
        };
        match c.dst_sel {
            0 | 4 => {
                let r = c.dst as u32;
                self.reg_write(cx, r, v as u32);
                if c.count_64 {
                    self.reg_write(cx, r + 1, (v >> 32) as u32);
                }
            }
            1 | 2 | 5 => {
                if c.count_64 {
                    cx.mem.write_u64(cx.host, c.dst, v, what)?
                } else {
                    cx.mem.write_u32(cx.host, c.dst, v as u32, what)?
                }
            }
            s => return Err(Stop::Bad(format!("{what}: DST_SEL {s} is not supported"))),
        }
        Ok(())
    }

    fn packet(
        &mut self,
        cx: &mut Cx<'_>,
        p: Pm4Packet<'_>,
        op: u32,
        what: &dyn std::fmt::Display,
        depth: u32,
    ) -> Result<usize, Stop> {
        match p {
            Pm4Packet::PredExec { xcc_mask, count } => return self.pred_exec(xcc_mask, count, depth, what),
            Pm4Packet::AtomicMem { op, addr, src, .. } => self.atomic_mem(cx, op, addr, src, what)?,
            Pm4Packet::Nop { .. } | Pm4Packet::AcquireMem { .. } | Pm4Packet::EventWrite { .. } => {}
            Pm4Packet::SetShReg { reg, values } | Pm4Packet::SetUconfigReg { reg, values } => {
                self.regs.write_many(reg, values)
            }
            Pm4Packet::DispatchDirect { grid, initiator } => {
                match self.regs.dispatch_state(self.arch, grid, initiator, self.xccs) {
                    Some(mut d) => {
                        d.cancel = super::super::dispatch::Cancel::new(cx.ctl.stop.clone())
                            .with_budget(cx.ctl.dispatch_budget());
                        let mem = cx.mem.fresh(cx.host);
                        cx.ctl.waves.store(true, std::sync::atomic::Ordering::Release);
                        let r = self.engine.dispatch(&d, mem);
                        cx.ctl.waves.store(false, std::sync::atomic::Ordering::Release);
                        // Whatever the waves wrote (before a fault too) is visible to memory waits.
                        cx.mem.wrote();
                        match r {
                            Ok(()) => {}
                            Err(super::super::dispatch::DispatchFault::Cancelled) => return Err(Stop::Destroyed),
                            Err(f) => return Err(Stop::Dispatch(f)),
                        }
                    }
                    None => log::debug!("{what}: COMPUTE_SHADER_EN is clear, nothing to launch"),
                }
            }
            Pm4Packet::ReleaseMem(r) => self.release_mem(cx, &r, what)?,
            Pm4Packet::WaitRegMem(w) => self.wait_reg_mem(cx, &w, what)?,
            Pm4Packet::IndirectBuffer { va, dwords, valid } => {
                if !valid {
                    log::debug!("{what}: INDIRECT_BUFFER without VALID skipped");
                    return Ok(0);
                }
                if depth >= MAX_IB_DEPTH {
                    return Err(Stop::Bad(format!("{what}: indirect buffers nested deeper than {MAX_IB_DEPTH}")));
                }
                let words = cx.mem.read_words(cx.host, va, dwords, what)?;
                self.run(cx, &words, Loc::Ib { va }, depth + 1, &mut |_| {})?;
            }
            Pm4Packet::CopyData(c) => self.copy_data(cx, &c, what)?,
            Pm4Packet::Other { .. } => {
                return Err(Stop::Bad(format!("{what}: not supported by the emulated CP ({})", pm4_opcode_label(op))))
            }
        }
        Ok(0)
    }
}

impl Executor for Pm4Exec {
    fn run(
        &mut self,
        cx: &mut Cx<'_>,
        words: &[u32],
        at: Loc,
        depth: u32,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(), Stop> {
        let mut i = 0;
        while i < words.len() {
            let h = words[i];
            let len = pm4_packet_len(h).map_err(|e| Stop::Bad(format!("bad PM4 packet at {}: {e}", at.describe(i))))?;
            let op = nv::CP_PACKET3_GET_OPCODE(h);
            let what = super::What { pm4: true, header: h, at, i };
            if i + len > words.len() {
                return Err(Stop::Bad(format!(
                    "{what}: {len} dwords run past the {} written (header {h:#010x})",
                    words.len() - i
                )));
            }
            let pkt = &words[i..i + len];
            let p = parse_pm4(pkt, self.family).map_err(|e| Stop::Bad(format!("malformed {what}: {e}")))?;
            if log::log_enabled!(log::Level::Trace) {
                log::trace!("{what}: {}", pm4_fields(&p, self.family));
            }
            let skip = self.packet(cx, p, op, &what, depth)?;
            i = (i + len + skip).min(words.len());
            progress(i);
        }
        Ok(())
    }
}
