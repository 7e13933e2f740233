//! PM4 and SDMA packet decoding, shared by the emulated command processors (which execute what
//! [`parse_pm4`] and [`parse_sdma`] return), by `baregpu decode` and by the runtime's
//! `BAREGPU_TRACE` (which print what [`decode_pm4`] and [`decode_sdma`] list). The length rules live here once, so the decoder and
//! the CP always agree on where a packet ends and on what makes one malformed.

use crate::amd::pm4::Family;
use crate::amd::sdma::SdmaGeneration;
use baregpu_autogen::amd::ip_base;
use baregpu_autogen::amd::regs::{gc_11_0_0 as gc11, gc_12_0_0 as gc12, gc_9_4_3 as gc9, Reg};
use baregpu_autogen::amd::{pm4_nv as nv, sdma_6_0_0 as v6};
use std::fmt::Write as _;

/// One decoded packet: where it starts, how long it is, its name, its fields as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// Byte offset in the stream.
    pub offset: usize,
    pub dwords: usize,
    pub name: String,
    pub fields: String,
}

impl std::fmt::Display for Packet {
    /// `0x0040: RELEASE_MEM [8 dw] event_type=...`: one line of `baregpu decode`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#06x}: {} [{} dw]", self.offset, self.name, self.dwords)?;
        if !self.fields.is_empty() {
            write!(f, " {}", self.fields)?;
        }
        Ok(())
    }
}

/// Decode a file's bytes as `pm4` or `sdma` packets of architecture `arch` (`gfx1100` ...): what
/// `baregpu decode pm4|sdma --arch ARCH FILE` prints, one [`Packet`] a line.
pub fn decode_bytes(kind: &str, arch: &str, bytes: &[u8]) -> Result<Vec<Packet>, String> {
    let words = words_from_bytes(bytes)?;
    match kind {
        "pm4" => {
            let gen = crate::amd::pm4::Pm4Generation::for_arch(arch)
                .ok_or_else(|| format!("no PM4 generation for {arch:?} (gfx942, gfx950, gfx11xx, gfx12xx)"))?;
            Ok(decode_pm4(&words, gen.family))
        }
        "sdma" => {
            let gen = SdmaGeneration::for_arch(arch).ok_or_else(|| format!("no SDMA generation for {arch:?}"))?;
            Ok(decode_sdma(&words, gen))
        }
        k => Err(format!("unknown packet kind {k:?} (pm4 or sdma)")),
    }
}

/// Little-endian dwords of a byte stream (whose length must be a multiple of 4).
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, String> {
    if !bytes.len().is_multiple_of(4) {
        return Err(format!("{} bytes is not a whole number of dwords", bytes.len()));
    }
    Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

// ---------------------------------------------------------------------------------------------
// PM4

/// Name of a type-3 opcode (the same in nvd.h and soc15d.h for everything listed).
pub fn pm4_opcode_name(op: u32) -> Option<&'static str> {
    Some(match op {
        nv::PACKET3_NOP => "NOP",
        nv::PACKET3_SET_BASE => "SET_BASE",
        nv::PACKET3_CLEAR_STATE => "CLEAR_STATE",
        nv::PACKET3_DISPATCH_DIRECT => "DISPATCH_DIRECT",
        nv::PACKET3_DISPATCH_INDIRECT => "DISPATCH_INDIRECT",
        nv::PACKET3_ATOMIC_MEM => "ATOMIC_MEM",
        nv::PACKET3_COND_EXEC => "COND_EXEC",
        nv::PACKET3_PRED_EXEC => "PRED_EXEC",
        nv::PACKET3_WRITE_DATA => "WRITE_DATA",
        nv::PACKET3_MEM_SEMAPHORE => "MEM_SEMAPHORE",
        nv::PACKET3_WAIT_REG_MEM => "WAIT_REG_MEM",
        nv::PACKET3_INDIRECT_BUFFER => "INDIRECT_BUFFER",
        nv::PACKET3_COPY_DATA => "COPY_DATA",
        nv::PACKET3_PFP_SYNC_ME => "PFP_SYNC_ME",
        nv::PACKET3_EVENT_WRITE => "EVENT_WRITE",
        nv::PACKET3_RELEASE_MEM => "RELEASE_MEM",
        nv::PACKET3_DMA_DATA => "DMA_DATA",
        nv::PACKET3_ACQUIRE_MEM => "ACQUIRE_MEM",
        nv::PACKET3_REWIND => "REWIND",
        nv::PACKET3_SET_CONFIG_REG => "SET_CONFIG_REG",
        nv::PACKET3_SET_CONTEXT_REG => "SET_CONTEXT_REG",
        nv::PACKET3_SET_SH_REG => "SET_SH_REG",
        nv::PACKET3_SET_SH_REG_OFFSET => "SET_SH_REG_OFFSET",
        nv::PACKET3_SET_UCONFIG_REG => "SET_UCONFIG_REG",
        nv::PACKET3_WAIT_REG_MEM64 => "WAIT_REG_MEM64",
        _ => return None,
    })
}

/// `NAME (0xNN)`, or `opcode 0xNN` when it has no name.
pub fn pm4_opcode_label(op: u32) -> String {
    match pm4_opcode_name(op) {
        Some(n) => format!("{n} (opcode {op:#04x})"),
        None => format!("unknown opcode {op:#04x}"),
    }
}

/// Total dwords of the PM4 packet that starts with `header`: type 3 is `count + 2` (a NOP with
/// the all-ones count is the one-dword filler `0xffff1000`), type 2 is a one-dword filler.
/// Type 0 and 1 packets are not accepted by a compute ring.
pub fn pm4_packet_len(header: u32) -> Result<usize, String> {
    match nv::CP_PACKET_GET_TYPE(header) {
        3 => {
            let count = nv::CP_PACKET_GET_COUNT(header);
            if nv::CP_PACKET3_GET_OPCODE(header) == nv::PACKET3_NOP && count == 0x3fff {
                Ok(1)
            } else {
                Ok(count as usize + 2)
            }
        }
        2 => Ok(1),
        t => Err(format!("type-{t} packet header {header:#010x}")),
    }
}

/// RELEASE_MEM (end-of-pipe write and interrupt).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReleaseMem {
    pub event_type: u32,
    pub event_index: u32,
    /// Cache-action bits of dword 1 (everything but the event).
    pub cache: u32,
    pub dst_sel: u32,
    /// 0 none, 1 low 32 bits, 2 64 bits, 3 GPU clock counter, 4 system clock counter.
    pub data_sel: u32,
    /// 0 none, 1 interrupt, 2 interrupt after the write is confirmed, 3 data then interrupt.
    pub int_sel: u32,
    pub addr: u64,
    pub data: u64,
    pub ctxid: u32,
}

/// WAIT_REG_MEM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitRegMem {
    pub function: u32,
    /// 1: memory, 0: register.
    pub mem_space: u32,
    /// 0: wait; 1: write `reference` to `reg0` then wait on `reg1`.
    pub operation: u32,
    pub engine: u32,
    /// Memory address (low two bits are the swap field and dropped), or `reg0 | reg1 << 32`.
    pub addr: u64,
    pub reg0: u32,
    pub reg1: u32,
    pub reference: u32,
    pub mask: u32,
    pub poll_interval: u32,
}

/// COPY_DATA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyData {
    /// 0 register, 1/2 memory, 4 perf counters (registers), 5 immediate, 9 GPU clock.
    pub src_sel: u32,
    /// 0 register, 1/2/5 memory.
    pub dst_sel: u32,
    pub count_64: bool,
    pub wr_confirm: bool,
    pub src: u64,
    pub dst: u64,
}

/// A PM4 packet, parsed and checked for length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pm4Packet<'a> {
    /// NOP and the one-dword fillers; the body is skipped.
    Nop {
        body: usize,
    },
    SetShReg {
        reg: u32,
        values: &'a [u32],
    },
    SetUconfigReg {
        reg: u32,
        values: &'a [u32],
    },
    DispatchDirect {
        grid: [u32; 3],
        initiator: u32,
    },
    ReleaseMem(ReleaseMem),
    WaitRegMem(WaitRegMem),
    AcquireMem {
        body: &'a [u32],
    },
    EventWrite {
        event_type: u32,
        event_index: u32,
    },
    IndirectBuffer {
        va: u64,
        dwords: u32,
        valid: bool,
    },
    CopyData(CopyData),
    /// PRED_EXEC: the next `count` dwords run only on the XCCs in `xcc_mask`.
    PredExec {
        xcc_mask: u32,
        count: u32,
    },
    /// ATOMIC_MEM: `op` (a TC_OP) on the memory at `addr` with `src` (and `cmp` for compare-swap).
    AtomicMem {
        op: u32,
        addr: u64,
        src: u64,
        cmp: u64,
    },
    /// A packet of a known length the CP does not execute.
    Other {
        op: u32,
        body: &'a [u32],
    },
}

fn want(name: &dyn std::fmt::Display, body: &[u32], dwords: &[usize]) -> Result<(), String> {
    if dwords.contains(&body.len()) {
        Ok(())
    } else {
        let w: Vec<String> = dwords.iter().map(|d| d.to_string()).collect();
        Err(format!("{name} with {} payload dwords (takes {})", body.len(), w.join(" or ")))
    }
}

/// A PM4 opcode's name, formatted on demand.
struct OpLabel(u32);

impl std::fmt::Display for OpLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&pm4_opcode_label(self.0))
    }
}

/// Parse one whole packet (`pkt.len()` must be what [`pm4_packet_len`] said).
pub fn parse_pm4(pkt: &[u32], family: Family) -> Result<Pm4Packet<'_>, String> {
    let header = pkt[0];
    if nv::CP_PACKET_GET_TYPE(header) == 2 || pkt.len() == 1 {
        return Ok(Pm4Packet::Nop { body: 0 });
    }
    let op = nv::CP_PACKET3_GET_OPCODE(header);
    let body = &pkt[1..];
    // Named only when a message needs it: parsing runs for every packet the emulated CP executes.
    let label = OpLabel(op);
    let q = |lo: u32, hi: u32| lo as u64 | (hi as u64) << 32;
    Ok(match op {
        nv::PACKET3_NOP => Pm4Packet::Nop { body: body.len() },
        nv::PACKET3_SET_SH_REG | nv::PACKET3_SET_UCONFIG_REG => {
            if body.len() < 2 {
                return Err(format!("{label} with {} payload dwords (takes 2 or more)", body.len()));
            }
            let (start, end) = if op == nv::PACKET3_SET_SH_REG {
                (nv::PACKET3_SET_SH_REG_START, nv::PACKET3_SET_SH_REG_END)
            } else {
                (nv::PACKET3_SET_UCONFIG_REG_START, nv::PACKET3_SET_UCONFIG_REG_END)
            };
            let reg = start + (body[0] & 0xffff);
            let values = &body[1..];
            if reg as u64 + values.len() as u64 > end as u64 {
                return Err(format!(
                    "{label} of {} registers at {reg:#x} runs past the window end {end:#x}",
                    values.len()
                ));
            }
            if op == nv::PACKET3_SET_SH_REG {
                Pm4Packet::SetShReg { reg, values }
            } else {
                Pm4Packet::SetUconfigReg { reg, values }
            }
        }
        nv::PACKET3_DISPATCH_DIRECT => {
            want(&label, body, &[4])?;
            Pm4Packet::DispatchDirect { grid: [body[0], body[1], body[2]], initiator: body[3] }
        }
        nv::PACKET3_RELEASE_MEM => {
            want(&label, body, &[7])?;
            Pm4Packet::ReleaseMem(ReleaseMem {
                event_type: body[0] & 0x3f,
                event_index: (body[0] >> 8) & 0xf,
                cache: body[0] & !0xf3f,
                dst_sel: (body[1] >> 16) & 3,
                data_sel: body[1] >> 29,
                int_sel: (body[1] >> 24) & 7,
                addr: q(body[2], body[3]),
                data: q(body[4], body[5]),
                ctxid: body[6],
            })
        }
        nv::PACKET3_WAIT_REG_MEM => {
            want(&label, body, &[6])?;
            Pm4Packet::WaitRegMem(WaitRegMem {
                function: body[0] & 7,
                mem_space: (body[0] >> 4) & 3,
                operation: (body[0] >> 6) & 3,
                engine: (body[0] >> 8) & 3,
                addr: q(body[1] & !3, body[2]),
                reg0: body[1],
                reg1: body[2],
                reference: body[3],
                mask: body[4],
                poll_interval: body[5],
            })
        }
        nv::PACKET3_ACQUIRE_MEM => {
            // gfx9 (soc15d.h): CP_COHER_CNTL + size + base + poll; gfx10+ adds GCR_CNTL.
            want(&label, body, if family == Family::Gfx9 { &[6] } else { &[7] })?;
            Pm4Packet::AcquireMem { body }
        }
        nv::PACKET3_EVENT_WRITE => {
            // One dword, or three with an address for the events that write one.
            want(&label, body, &[1, 3])?;
            Pm4Packet::EventWrite { event_type: body[0] & 0x3f, event_index: (body[0] >> 8) & 0xf }
        }
        nv::PACKET3_INDIRECT_BUFFER => {
            want(&label, body, &[3])?;
            Pm4Packet::IndirectBuffer {
                va: q(body[0] & !3, body[1] & 0xffff),
                dwords: body[2] & 0xfffff,
                valid: body[2] & nv::INDIRECT_BUFFER_VALID != 0,
            }
        }
        nv::PACKET3_COPY_DATA => {
            want(&label, body, &[5])?;
            Pm4Packet::CopyData(CopyData {
                src_sel: body[0] & 0xf,
                dst_sel: (body[0] >> 8) & 0xf,
                count_64: body[0] & (1 << 16) != 0,
                wr_confirm: body[0] & (1 << 20) != 0,
                src: q(body[1], body[2]),
                dst: q(body[3], body[4]),
            })
        }
        nv::PACKET3_PRED_EXEC => {
            want(&label, body, &[1])?;
            Pm4Packet::PredExec { xcc_mask: body[0] >> 24, count: body[0] & 0x3fff }
        }
        nv::PACKET3_ATOMIC_MEM => {
            want(&label, body, &[8])?;
            Pm4Packet::AtomicMem {
                op: body[0] & 0x7f,
                addr: q(body[1] & !3, body[2]),
                src: q(body[3], body[4]),
                cmp: q(body[5], body[6]),
            }
        }
        _ => Pm4Packet::Other { op, body },
    })
}

/// Register names of a family's GC block, by absolute dword address.
fn gc_reg_name(family: Family, addr: u32) -> Option<&'static str> {
    let (regs, bases): (&[Reg], &[[u32; 6]]) = match family {
        Family::Gfx9 => (gc9::REGS, ip_base::vega10::GC_BASE),
        Family::Gfx11 => (gc11::REGS, ip_base::navi10::GC_BASE),
        Family::Gfx12 => (gc12::REGS, ip_base::navi10::GC_BASE),
    };
    regs.iter().find(|r| r.addr(&bases[0]) == Some(addr)).map(|r| r.name)
}

fn hex_list(words: &[u32]) -> String {
    let v: Vec<String> = words.iter().map(|w| format!("{w:#x}")).collect();
    format!("[{}]", v.join(", "))
}

/// The fields of a parsed packet as text.
pub fn pm4_fields(p: &Pm4Packet<'_>, family: Family) -> String {
    match p {
        Pm4Packet::Nop { body } => format!("{body} dwords skipped"),
        Pm4Packet::SetShReg { reg, values } | Pm4Packet::SetUconfigReg { reg, values } => {
            let mut s = String::new();
            for (i, v) in values.iter().enumerate() {
                let a = reg + i as u32;
                if i > 0 {
                    s.push_str(", ");
                }
                match gc_reg_name(family, a) {
                    Some(n) => write!(s, "{n}({a:#x})={v:#x}"),
                    None => write!(s, "{a:#x}={v:#x}"),
                }
                .expect("string write");
            }
            s
        }
        Pm4Packet::DispatchDirect { grid, initiator } => format!(
            "grid={grid:?} initiator={initiator:#x}{}",
            if family != Family::Gfx9 && initiator & (1 << 15) != 0 { " (wave32)" } else { "" }
        ),
        Pm4Packet::ReleaseMem(r) => format!(
            "event_type={:#x} event_index={} cache={:#x} dst_sel={} data_sel={} int_sel={} addr={:#x} data={:#x} ctxid={}",
            r.event_type, r.event_index, r.cache, r.dst_sel, r.data_sel, r.int_sel, r.addr, r.data, r.ctxid
        ),
        Pm4Packet::WaitRegMem(w) => {
            let f = ["always", "<", "<=", "==", "!=", ">=", ">", "reserved"][w.function as usize];
            let target = if w.mem_space == 1 {
                format!("mem {:#x}", w.addr)
            } else if w.operation == 1 {
                format!("write reg {:#x} then poll reg {:#x}", w.reg0, w.reg1)
            } else {
                format!("reg {:#x}", w.reg0)
            };
            format!(
                "{target}: (value & {:#x}) {f} {:#x} operation={} engine={} poll_interval={}",
                w.mask, w.reference, w.operation, w.engine, w.poll_interval
            )
        }
        Pm4Packet::AcquireMem { body } => format!("{} (cache control first, then size, base, poll)", hex_list(body)),
        Pm4Packet::EventWrite { event_type, event_index } => {
            format!("event_type={event_type:#x} event_index={event_index}")
        }
        Pm4Packet::IndirectBuffer { va, dwords, valid } => {
            format!("va={va:#x} dwords={dwords}{}", if *valid { "" } else { " (not VALID)" })
        }
        Pm4Packet::CopyData(c) => format!(
            "src_sel={} dst_sel={} {}-bit src={:#x} dst={:#x}{}",
            c.src_sel,
            c.dst_sel,
            if c.count_64 { 64 } else { 32 },
            c.src,
            c.dst,
            if c.wr_confirm { " wr_confirm" } else { "" }
        ),
        Pm4Packet::PredExec { xcc_mask, count } => format!("xcc_mask={xcc_mask:#010b} next {count} dwords"),
        Pm4Packet::AtomicMem { op, addr, src, cmp } => {
            format!("op={op:#x} addr={addr:#x} src={src:#x} cmp={cmp:#x}")
        }
        Pm4Packet::Other { body, .. } => hex_list(body),
    }
}

/// Decode a PM4 stream. A malformed packet ends the listing with an `INVALID` entry (nothing
/// after it can be framed).
pub fn decode_pm4(words: &[u32], family: Family) -> Vec<Packet> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let h = words[i];
        let invalid =
            |fields: String| Packet { offset: i * 4, dwords: words.len() - i, name: "INVALID".into(), fields };
        let len = match pm4_packet_len(h) {
            Ok(l) => l,
            Err(e) => {
                out.push(invalid(e));
                break;
            }
        };
        let op = nv::CP_PACKET3_GET_OPCODE(h);
        let name = if nv::CP_PACKET_GET_TYPE(h) == 2 {
            "PACKET2".to_string()
        } else {
            pm4_opcode_name(op).map(str::to_string).unwrap_or_else(|| format!("OPCODE_{op:#04X}"))
        };
        if i + len > words.len() {
            out.push(invalid(format!("{name} of {len} dwords runs past the end ({} left)", words.len() - i)));
            break;
        }
        match parse_pm4(&words[i..i + len], family) {
            Ok(p) => out.push(Packet { offset: i * 4, dwords: len, name, fields: pm4_fields(&p, family) }),
            Err(e) => {
                out.push(invalid(e));
                break;
            }
        }
        i += len;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// SDMA

/// An SDMA packet, parsed and checked for length. The layouts are those of SDMA 4.x-7.x.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdmaPacket<'a> {
    Nop {
        body: usize,
    },
    CopyLinear {
        bytes: u64,
        src: u64,
        dst: u64,
    },
    Write {
        dst: u64,
        data: &'a [u32],
    },
    Indirect {
        va: u64,
        dwords: u32,
        vmid: u32,
    },
    Fence {
        va: u64,
        value: u32,
    },
    Trap {
        context: u32,
    },
    PollRegmem {
        mem: bool,
        hdp_flush: bool,
        func: u32,
        addr: u64,
        reference: u32,
        mask: u32,
        interval: u32,
    },
    /// TIMESTAMP GET (1) and GET_GLOBAL (2): 64-bit write; SET (0) carries the new value.
    Timestamp {
        sub_op: u32,
        va: u64,
    },
    /// A packet of a known length with nothing to do here (GCR_REQ, DUMMY_TRAP).
    Skip,
}

pub fn sdma_op_name(op: u32, sub_op: u32) -> Option<&'static str> {
    Some(match (op, sub_op) {
        (v6::SDMA_OP_NOP, _) => "NOP",
        (v6::SDMA_OP_COPY, v6::SDMA_SUBOP_COPY_LINEAR) => "COPY_LINEAR",
        (v6::SDMA_OP_COPY, _) => "COPY",
        (v6::SDMA_OP_WRITE, v6::SDMA_SUBOP_WRITE_LINEAR) => "WRITE_LINEAR",
        (v6::SDMA_OP_WRITE, _) => "WRITE",
        (v6::SDMA_OP_INDIRECT, _) => "INDIRECT",
        (v6::SDMA_OP_FENCE, _) => "FENCE",
        (v6::SDMA_OP_TRAP, _) => "TRAP",
        (v6::SDMA_OP_SEM, _) => "SEM",
        (v6::SDMA_OP_POLL_REGMEM, 0) => "POLL_REGMEM",
        (v6::SDMA_OP_POLL_REGMEM, _) => "POLL_REGMEM(sub-op)",
        (v6::SDMA_OP_COND_EXE, _) => "COND_EXE",
        (v6::SDMA_OP_ATOMIC, _) => "ATOMIC",
        (v6::SDMA_OP_CONST_FILL, _) => "CONST_FILL",
        (v6::SDMA_OP_PTEPDE, _) => "PTEPDE",
        (v6::SDMA_OP_TIMESTAMP, v6::SDMA_SUBOP_TIMESTAMP_SET) => "TIMESTAMP_SET",
        (v6::SDMA_OP_TIMESTAMP, v6::SDMA_SUBOP_TIMESTAMP_GET) => "TIMESTAMP_GET",
        (v6::SDMA_OP_TIMESTAMP, v6::SDMA_SUBOP_TIMESTAMP_GET_GLOBAL) => "TIMESTAMP_GET_GLOBAL",
        (v6::SDMA_OP_SRBM_WRITE, _) => "SRBM_WRITE",
        (v6::SDMA_OP_PRE_EXE, _) => "PRE_EXE",
        (v6::SDMA_OP_GPUVM_INV, _) => "GPUVM_INV",
        (v6::SDMA_OP_GCR_REQ, _) => "GCR_REQ",
        (v6::SDMA_OP_DUMMY_TRAP, _) => "DUMMY_TRAP",
        _ => return None,
    })
}

/// `NAME (op N sub-op M)` or `unknown op N sub-op M`.
pub fn sdma_op_label(header: u32) -> String {
    let (op, sub) = (header & 0xff, (header >> 8) & 0xff);
    match sdma_op_name(op, sub) {
        Some(n) => format!("{n} (op {op} sub-op {sub})"),
        None => format!("unknown op {op} sub-op {sub}"),
    }
}

/// Why an SDMA packet cannot be framed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdmaLenError {
    /// The packet needs more dwords than there are (its length, or `None` when even its length
    /// field is missing).
    Truncated {
        need: Option<usize>,
    },
    Unknown(String),
}

/// Total dwords of the SDMA packet at the start of `words` (not empty). The engine executes
/// only whole packets.
pub fn sdma_packet_len(words: &[u32], gen: &SdmaGeneration) -> Result<usize, SdmaLenError> {
    let h = words[0];
    let (op, sub) = (h & 0xff, (h >> 8) & 0xff);
    let unknown = || SdmaLenError::Unknown(sdma_op_label(h));
    let len = match (op, sub) {
        (v6::SDMA_OP_NOP, _) => 1 + ((h >> 16) & 0x3fff) as usize,
        (v6::SDMA_OP_COPY, v6::SDMA_SUBOP_COPY_LINEAR) => 7,
        (v6::SDMA_OP_WRITE, v6::SDMA_SUBOP_WRITE_LINEAR) => {
            let Some(&count) = words.get(3) else { return Err(SdmaLenError::Truncated { need: None }) };
            5 + (count & 0xfffff) as usize
        }
        (v6::SDMA_OP_INDIRECT, 0) => 6,
        (v6::SDMA_OP_FENCE, 0) => 4,
        (v6::SDMA_OP_TRAP, 0) => 2,
        (v6::SDMA_OP_POLL_REGMEM, 0) => 6,
        (v6::SDMA_OP_TIMESTAMP, 0..=2) => 3,
        (v6::SDMA_OP_GCR_REQ, 0) if gen.major >= 5 => 5,
        (v6::SDMA_OP_DUMMY_TRAP, 0) => 2,
        _ => return Err(unknown()),
    };
    if len > words.len() {
        return Err(SdmaLenError::Truncated { need: Some(len) });
    }
    Ok(len)
}

/// Parse one whole packet (`pkt.len()` must be what [`sdma_packet_len`] said).
pub fn parse_sdma<'a>(pkt: &'a [u32], gen: &SdmaGeneration) -> Result<SdmaPacket<'a>, String> {
    let h = pkt[0];
    let (op, sub) = (h & 0xff, (h >> 8) & 0xff);
    let q = |lo: u32, hi: u32| lo as u64 | (hi as u64) << 32;
    Ok(match (op, sub) {
        (v6::SDMA_OP_NOP, _) => SdmaPacket::Nop { body: pkt.len() - 1 },
        (v6::SDMA_OP_COPY, _) => {
            // Backwards (bit 25) and broadcast (bit 27) copies have other semantics or layouts.
            if h & (1 << 25 | 1 << 27) != 0 {
                return Err(format!("COPY_LINEAR with header {h:#010x}: backwards/broadcast copies are not supported"));
            }
            SdmaPacket::CopyLinear {
                bytes: (pkt[1] & gen.count_mask) as u64 + 1,
                src: q(pkt[3], pkt[4]),
                dst: q(pkt[5], pkt[6]),
            }
        }
        (v6::SDMA_OP_WRITE, _) => SdmaPacket::Write { dst: q(pkt[1] & !3, pkt[2]), data: &pkt[4..] },
        (v6::SDMA_OP_INDIRECT, _) => {
            if pkt[1] & 0x1f != 0 {
                return Err(format!("INDIRECT buffer at {:#x} is not 32-byte aligned", q(pkt[1], pkt[2])));
            }
            SdmaPacket::Indirect { va: q(pkt[1], pkt[2]), dwords: pkt[3] & 0xfffff, vmid: (h >> 16) & 0xf }
        }
        (v6::SDMA_OP_FENCE, _) => SdmaPacket::Fence { va: q(pkt[1] & !3, pkt[2]), value: pkt[3] },
        (v6::SDMA_OP_TRAP, _) => SdmaPacket::Trap { context: pkt[1] & 0x0fff_ffff },
        (v6::SDMA_OP_POLL_REGMEM, _) => SdmaPacket::PollRegmem {
            mem: h >> 31 != 0,
            hdp_flush: (h >> 26) & 1 != 0,
            func: (h >> 28) & 7,
            addr: q(pkt[1] & !3, pkt[2]),
            reference: pkt[3],
            mask: pkt[4],
            interval: pkt[5] & 0xffff,
        },
        (v6::SDMA_OP_TIMESTAMP, _) => {
            if sub != 0 && pkt[1] & 7 != 0 {
                return Err(format!("{} address {:#x} is not 8-byte aligned", sdma_op_label(h), q(pkt[1], pkt[2])));
            }
            SdmaPacket::Timestamp { sub_op: sub, va: q(pkt[1], pkt[2]) }
        }
        _ => SdmaPacket::Skip,
    })
}

pub fn sdma_fields(p: &SdmaPacket<'_>) -> String {
    match p {
        SdmaPacket::Nop { body } => format!("{body} dwords skipped"),
        SdmaPacket::CopyLinear { bytes, src, dst } => format!("{bytes} bytes {src:#x} -> {dst:#x}"),
        SdmaPacket::Write { dst, data } => format!("dst={dst:#x} data={}", hex_list(data)),
        SdmaPacket::Indirect { va, dwords, vmid } => format!("va={va:#x} dwords={dwords} vmid={vmid}"),
        SdmaPacket::Fence { va, value } => format!("va={va:#x} value={value:#x} (32-bit)"),
        SdmaPacket::Trap { context } => format!("int_context={context:#x}"),
        SdmaPacket::PollRegmem { mem, hdp_flush, func, addr, reference, mask, interval } => {
            let f = ["always", "<", "<=", "==", "!=", ">=", ">", "reserved"][*func as usize];
            format!(
                "{} {addr:#x}: (value & {mask:#x}) {f} {reference:#x} interval={interval}{}",
                if *mem { "mem" } else { "reg" },
                if *hdp_flush { " hdp_flush" } else { "" }
            )
        }
        SdmaPacket::Timestamp { va, .. } => format!("va={va:#x}"),
        SdmaPacket::Skip => String::new(),
    }
}

/// Decode an SDMA stream; a malformed packet ends the listing with an `INVALID` entry.
pub fn decode_sdma(words: &[u32], gen: &SdmaGeneration) -> Vec<Packet> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let h = words[i];
        let invalid =
            |fields: String| Packet { offset: i * 4, dwords: words.len() - i, name: "INVALID".into(), fields };
        let len = match sdma_packet_len(&words[i..], gen) {
            Ok(l) => l,
            Err(SdmaLenError::Unknown(e)) => {
                out.push(invalid(e));
                break;
            }
            Err(SdmaLenError::Truncated { need }) => {
                let need = need.map_or("its length field".to_string(), |n| format!("{n} dwords"));
                out.push(invalid(format!("{} needs {need}, {} left", sdma_op_label(h), words.len() - i)));
                break;
            }
        };
        let name = sdma_op_name(h & 0xff, (h >> 8) & 0xff).unwrap_or("?").to_string();
        match parse_sdma(&words[i..i + len], gen) {
            Ok(p) => out.push(Packet { offset: i * 4, dwords: len, name, fields: sdma_fields(&p) }),
            Err(e) => {
                out.push(invalid(e));
                break;
            }
        }
        i += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amd::pm4::{Compare, Pm4, ReleaseData, GFX11, GFX9};
    use crate::amd::sdma::{Sdma, SDMA4, SDMA6};

    #[test]
    fn pm4_from_the_driver_builder_decodes_packet_by_packet() {
        for gen in [&GFX9, &GFX11] {
            let mut q = Pm4::new(gen);
            q.wait_mem(0x1000, 7, 0xffff_ffff, Compare::GreaterEqual);
            q.acquire_mem(true);
            q.set_sh_regs(gen.regs.pgm_lo, &[0x1234, 0]);
            q.release_mem(0x2000, ReleaseData::U32(9), true, Some(3));
            q.indirect_buffer(0x4000, 16);
            q.nop(3);
            let p = decode_pm4(q.words(), gen.family);
            let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(
                names,
                ["WAIT_REG_MEM", "ACQUIRE_MEM", "SET_SH_REG", "RELEASE_MEM", "INDIRECT_BUFFER", "NOP"],
                "{p:#?}"
            );
            assert_eq!(p[0].offset, 0);
            assert_eq!(p[1].offset, 7 * 4);
            assert!(p[0].fields.contains("mem 0x1000") && p[0].fields.contains(">= 0x7"), "{}", p[0].fields);
            assert!(p[2].fields.starts_with("COMPUTE_PGM_LO(0x2e0c)=0x1234"), "{}", p[2].fields);
            assert!(p[3].fields.contains("data_sel=1 int_sel=2 addr=0x2000 data=0x9"), "{}", p[3].fields);
            assert!(p[4].fields.contains("va=0x4000 dwords=16"), "{}", p[4].fields);
        }
    }

    #[test]
    fn malformed_pm4_ends_the_listing() {
        // Unknown opcode decodes (length is known), a type-0 header does not.
        let p = decode_pm4(&[nv::PACKET3(0xEE, 0), 5, 0x0000_1234], Family::Gfx11);
        assert_eq!(p[0].name, "OPCODE_0xEE");
        assert_eq!(p[1].name, "INVALID");
        assert!(p[1].fields.contains("type-0"), "{}", p[1].fields);
        // Truncated.
        let p = decode_pm4(&[nv::PACKET3(nv::PACKET3_RELEASE_MEM, 6), 0, 0], Family::Gfx11);
        assert_eq!(p[0].name, "INVALID");
        assert!(p[0].fields.contains("runs past"), "{}", p[0].fields);
        // Wrong length for the generation.
        let p = decode_pm4(&[nv::PACKET3(nv::PACKET3_ACQUIRE_MEM, 5), 0, 0, 0, 0, 0, 0], Family::Gfx11);
        assert!(p[0].fields.contains("takes 7"), "{}", p[0].fields);
        // The one-dword filler.
        assert_eq!(pm4_packet_len(0xffff_1000), Ok(1));
    }

    #[test]
    fn sdma_from_the_driver_builder_decodes() {
        for gen in [&SDMA4, &SDMA6] {
            let mut q = Sdma::new(gen);
            q.poll_ge(0x1000, 5, 0xffff_ffff);
            q.copy(0x3000, 0x2000, 100);
            q.fence(0x1000, 6);
            q.trap(2);
            q.timestamp(0x1008);
            q.write(0x1010, &[1, 2]);
            q.nop();
            let mut words = q.words().to_vec();
            words.push(0);
            let p = decode_sdma(&words, gen);
            let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(
                names,
                ["POLL_REGMEM", "COPY_LINEAR", "FENCE", "TRAP", "TIMESTAMP_GET_GLOBAL", "WRITE_LINEAR", "NOP", "NOP"]
            );
            assert_eq!(p[1].fields, "100 bytes 0x2000 -> 0x3000");
            assert_eq!(p.iter().map(|p| p.dwords).sum::<usize>(), words.len());
        }
        let p = decode_sdma(&[0x99], &SDMA6);
        assert_eq!(p[0].name, "INVALID");
        assert!(p[0].fields.contains("unknown op 153"), "{}", p[0].fields);
        let p = decode_sdma(&[1, 0, 0], &SDMA6);
        assert!(p[0].fields.contains("needs 7 dwords"), "{}", p[0].fields);
        assert!(words_from_bytes(&[1, 2, 3]).is_err());
    }

    #[test]
    fn decodes_file_bytes_by_arch() {
        let mut q = Pm4::new(&GFX11);
        q.release_mem(0x2000, ReleaseData::U32(9), false, None);
        let bytes: Vec<u8> = q.words().iter().flat_map(|w| w.to_le_bytes()).collect();
        let p = decode_bytes("pm4", "gfx1100", &bytes).unwrap();
        assert!(p[0].to_string().starts_with("0x0000: RELEASE_MEM [8 dw] event_type=0x14"), "{}", p[0]);
        assert!(decode_bytes("pm4", "gfx803", &bytes).is_err());
        assert!(decode_bytes("gpfifo", "gfx1100", &bytes).is_err());
        assert_eq!(decode_bytes("sdma", "gfx942", &[0; 8]).unwrap().len(), 2);
    }
}
