//! The SDMA executor of a copy queue (SDMA 4.x for gfx9, 6.x/7.x for gfx11/gfx12: the packets
//! the driver uses have one layout): linear copies and writes, fences, traps, memory polls,
//! global timestamps, indirect buffers and NOPs (zero dwords fill the ring's tail).

use super::decode::{parse_sdma, sdma_fields, sdma_packet_len, SdmaLenError, SdmaPacket};
use super::pm4::compare;
use super::poll::Backoff;
use super::{gpu_clock, Cx, Executor, Loc, Stop, MAX_IB_DEPTH};
use baregpu_drivers::amd::sdma::SdmaGeneration;

pub(crate) struct SdmaExec {
    gen: &'static SdmaGeneration,
}

impl SdmaExec {
    pub fn new(arch: &str) -> Option<SdmaExec> {
        Some(SdmaExec { gen: SdmaGeneration::for_arch(arch)? })
    }

    fn packet(
        &mut self,
        cx: &mut Cx<'_>,
        p: SdmaPacket<'_>,
        what: &dyn std::fmt::Display,
        depth: u32,
    ) -> Result<(), Stop> {
        let host = cx.host;
        match p {
            SdmaPacket::Nop { .. } | SdmaPacket::Skip => {}
            SdmaPacket::CopyLinear { bytes, src, dst } => cx.mem.copy(host, dst, src, bytes, what)?,
            SdmaPacket::Write { dst, data } => {
                // Check the whole destination first: a faulting write changes nothing.
                cx.mem.host(host, dst, data.len() as u64 * 4, true, what)?;
                for (i, &w) in data.iter().enumerate() {
                    cx.mem.write_u32(host, dst + i as u64 * 4, w, what)?;
                }
            }
            SdmaPacket::Indirect { va, dwords, .. } => {
                if depth >= MAX_IB_DEPTH {
                    return Err(Stop::Bad(format!("{what}: indirect buffers nested deeper than {MAX_IB_DEPTH}")));
                }
                let words = cx.mem.read_words(host, va, dwords, what)?;
                self.run(cx, &words, Loc::Ib { va }, depth + 1, &mut |_| {})?;
            }
            // The hardware writes 32 bits.
            SdmaPacket::Fence { va, value } => cx.mem.write_u32(host, va, value, what)?,
            SdmaPacket::Trap { context } => {
                host.interrupt(cx.q.gpu_id, Some(context));
            }
            SdmaPacket::PollRegmem { mem, hdp_flush, func, addr, reference, mask, .. } => {
                if func == 7 {
                    return Err(Stop::Bad(format!("{what}: reserved compare function 7")));
                }
                if !mem {
                    if hdp_flush {
                        return Ok(()); // the emulated HDP flush completes at once
                    }
                    return Err(Stop::Bad(format!("{what}: register polls are not emulated")));
                }
                let mut backoff = Backoff::new(cx.ctl);
                loop {
                    let v = cx.mem.read_u32(host, addr, what)?;
                    if compare(func, v & mask, reference) {
                        break;
                    }
                    backoff.wait(cx.ctl, true)?;
                }
            }
            SdmaPacket::Timestamp { sub_op, va } => {
                if sub_op != 0 {
                    cx.mem.write_u64(host, va, gpu_clock(), what)?;
                }
            }
        }
        Ok(())
    }
}

impl Executor for SdmaExec {
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
            let what = super::What { pm4: false, header: h, at, i };
            let len = match sdma_packet_len(&words[i..], self.gen) {
                Ok(l) => l,
                Err(SdmaLenError::Unknown(_)) => {
                    return Err(Stop::Bad(format!(
                        "{what}: not supported by the emulated SDMA engine (header {h:#010x})"
                    )))
                }
                Err(SdmaLenError::Truncated { need }) => {
                    let need = need.map_or("its length field".to_string(), |n| format!("{n} dwords"));
                    return Err(Stop::Bad(format!("{what}: needs {need}, only {} written", words.len() - i)));
                }
            };
            let p =
                parse_sdma(&words[i..i + len], self.gen).map_err(|e| Stop::Bad(format!("malformed {what}: {e}")))?;
            if log::log_enabled!(log::Level::Trace) {
                log::trace!("{what}: {}", sdma_fields(&p));
            }
            self.packet(cx, p, &what, depth)?;
            i += len;
            progress(i);
        }
        Ok(())
    }
}
