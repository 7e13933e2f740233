//! PM4 type-3 packets for compute queues. Each method appends one packet (or the dispatch
//! sequence) and returns the dword index of the value a caller may patch later (signal values,
//! wait references), so that a bound command buffer is re-submitted by rewriting a few words.

use super::generation::{AcquireMem, Pm4Generation};
use baregpu_autogen::amd::pm4_nv as nv;

/// `PACKET3(op, n)`, where `n` is the payload length minus one (identical in nvd.h and soc15d.h).
pub fn header(op: u32, payload_dwords: usize) -> u32 {
    nv::PACKET3(op, payload_dwords as u32 - 1)
}

/// WAIT_REG_MEM compare functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Always = 0,
    Less = 1,
    LessEqual = 2,
    Equal = 3,
    NotEqual = 4,
    GreaterEqual = 5,
    Greater = 6,
}

/// What RELEASE_MEM writes at end of pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseData {
    /// Nothing (an end-of-pipe drain, or an interrupt alone).
    None,
    /// The low 32 bits of the value.
    U32(u32),
    U64(u64),
    /// The 64-bit GPU clock counter (100 MHz).
    Timestamp,
}

impl ReleaseData {
    fn data_sel(self) -> u32 {
        match self {
            ReleaseData::None => 0,
            ReleaseData::U32(_) => 1,
            ReleaseData::U64(_) => 2,
            ReleaseData::Timestamp => 3,
        }
    }

    fn value(self) -> u64 {
        match self {
            ReleaseData::U32(v) => v as u64,
            ReleaseData::U64(v) => v,
            _ => 0,
        }
    }
}

/// A kernel dispatch: the register state DISPATCH_DIRECT launches with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// Address of the kernel's first instruction (256-byte aligned).
    pub entry: u64,
    pub rsrc1: u32,
    pub rsrc2: u32,
    pub rsrc3: u32,
    pub tmpring_size: u32,
    /// Architected flat-scratch base (gfx11+, gfx9.4.3+), when the kernel uses scratch.
    pub scratch_base: Option<u64>,
    /// COMPUTE_USER_DATA_0.. (at most 16).
    pub user_data: Vec<u32>,
    /// On a multi-XCC device, the bytes of scratch each XCC gets: XCC i uses
    /// `scratch_base + i * scratch_per_xcc`.
    pub scratch_per_xcc: u64,
    /// Workgroups per dimension.
    pub grid: [u32; 3],
    /// Work-items per workgroup.
    pub block: [u32; 3],
    pub wave32: bool,
}

/// PRED_EXEC's XCC select: bits 24..31 of its one payload dword, the execute count in the low bits.
const PRED_EXEC_XCC_SHIFT: u32 = 24;
/// The largest body a PRED_EXEC covers here (the count shares its dword with the XCC mask).
pub const PRED_EXEC_MAX_DWORDS: usize = 0x3fff;
/// ATOMIC_MEM's operation: TC_OP_ATOMIC_ADD_RTN_32 (vega10_enum.h).
const TC_OP_ATOMIC_ADD_RTN_32: u32 = 0xf;

/// A PM4 command stream under construction, for a queue whose packets `xccs` XCCs execute.
#[derive(Debug, Clone)]
pub struct Pm4 {
    pub gen: &'static Pm4Generation,
    xccs: u32,
    /// The two counters of [`Pm4::xcc_barrier`] (multi-XCC streams).
    barrier: u64,
    words: Vec<u32>,
}

impl Pm4 {
    /// A stream for a single-XCC device.
    pub fn new(gen: &'static Pm4Generation) -> Self {
        Pm4 { gen, xccs: 1, barrier: 0, words: Vec::new() }
    }

    /// A stream every one of `xccs` XCCs executes (the KFD node's `num_xcc`): per-XCC packets go
    /// under PRED_EXEC, and a dispatch is split across them. Such a stream must run from an
    /// indirect buffer (PRED_EXEC works only there). `barrier` is device memory for the two
    /// counters of [`Pm4::xcc_barrier`] (zero when first used), shared by every stream of the queue.
    pub fn for_xccs(gen: &'static Pm4Generation, xccs: u32, barrier: u64) -> Self {
        assert!((1..=8).contains(&xccs), "{xccs} XCCs: PRED_EXEC selects among 8");
        // The barrier counts modulo the XCC count with a bit mask.
        assert!(xccs.is_power_of_two(), "{xccs} XCCs: only powers of two are supported");
        assert!(xccs == 1 || gen.xcc_split.is_some(), "{:?} has no multi-XCC partitions", gen.family);
        Pm4 { gen, xccs, barrier, words: Vec::new() }
    }

    pub fn xccs(&self) -> u32 {
        self.xccs
    }

    pub fn words(&self) -> &[u32] {
        &self.words
    }

    pub fn into_words(self) -> Vec<u32> {
        self.words
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Append a packet; returns the index of its first payload dword.
    fn packet(&mut self, op: u32, payload: &[u32]) -> usize {
        assert!(!payload.is_empty() && payload.len() <= 0x4000, "PM4 payload of {} dwords", payload.len());
        self.words.push(header(op, payload.len()));
        let at = self.words.len();
        self.words.extend_from_slice(payload);
        at
    }

    /// PRED_EXEC: the packets `body` appends run only on the XCCs in `xcc_mask` (bit i: XCC i).
    /// The count is fixed here, once the body is written, so a patched value never changes it.
    pub fn pred_exec<R>(&mut self, xcc_mask: u8, body: impl FnOnce(&mut Pm4) -> R) -> R {
        let at = self.packet(nv::PACKET3_PRED_EXEC, &[(xcc_mask as u32) << PRED_EXEC_XCC_SHIFT]);
        let r = body(self);
        let count = self.words.len() - at - 1;
        assert!(count <= PRED_EXEC_MAX_DWORDS, "a PRED_EXEC body of {count} dwords");
        self.words[at] |= count as u32;
        r
    }

    /// Packets that one XCC must execute once for the whole device (a signal, a timestamp, an
    /// interrupt): under PRED_EXEC for XCC 0 where several XCCs execute the stream, plain
    /// otherwise.
    pub fn once<R>(&mut self, body: impl FnOnce(&mut Pm4) -> R) -> R {
        if self.xccs > 1 {
            self.pred_exec(1, body)
        } else {
            body(self)
        }
    }

    /// What reports the work before it done (a signal, a timestamp): once every XCC got this
    /// far ([`Pm4::xcc_barrier`]), by XCC 0 alone. Without the barrier XCC 0 would report what
    /// only it finished, and the host could reuse memory (a command buffer, arguments) that a
    /// slower XCC has still to read.
    pub fn once_after_all<R>(&mut self, body: impl FnOnce(&mut Pm4) -> R) -> R {
        self.xcc_barrier();
        self.once(body)
    }

    /// ATOMIC_MEM: add `value` to the 32-bit word at `addr` (in L2, returning the old value,
    /// which is not used).
    pub fn atomic_add_u32(&mut self, addr: u64, value: u32) {
        assert!(addr.is_multiple_of(4), "atomic at {addr:#x}");
        self.packet(
            nv::PACKET3_ATOMIC_MEM,
            &[TC_OP_ATOMIC_ADD_RTN_32, addr as u32, (addr >> 32) as u32, value, 0, 0, 0, 0x10],
        );
    }

    /// Hold every XCC here until all of them got here, through the stream's two counters of 32
    /// bits (zero mod the XCC count between barriers): each XCC adds one and waits for the sum to
    /// come round to a multiple of the count. Two counters in turn, so that a fast XCC reaching
    /// the next barrier cannot move the first one before a slow one saw it complete. Nothing on
    /// a single-XCC stream.
    pub fn xcc_barrier(&mut self) {
        if self.xccs == 1 {
            return;
        }
        for c in [self.barrier, self.barrier + XCC_BARRIER_STRIDE] {
            self.atomic_add_u32(c, 1);
            self.wait_mem(c, 0, self.xccs - 1, Compare::Equal);
        }
    }

    /// NOP with `payload` dwords of zero (padding; the CP skips the body).
    pub fn nop(&mut self, payload: usize) {
        self.packet(nv::PACKET3_NOP, &vec![0; payload.max(1)]);
    }

    /// Write consecutive SH registers starting at absolute dword address `reg`.
    pub fn set_sh_regs(&mut self, reg: u32, values: &[u32]) {
        assert!(
            reg >= nv::PACKET3_SET_SH_REG_START && reg + values.len() as u32 <= nv::PACKET3_SET_SH_REG_END,
            "register {reg:#x} is outside the SH window"
        );
        let mut payload = Vec::with_capacity(values.len() + 1);
        payload.push(reg - nv::PACKET3_SET_SH_REG_START);
        payload.extend_from_slice(values);
        self.packet(nv::PACKET3_SET_SH_REG, &payload);
    }

    /// Write consecutive UCONFIG registers starting at absolute dword address `reg`.
    pub fn set_uconfig_regs(&mut self, reg: u32, values: &[u32]) {
        assert!(
            reg >= nv::PACKET3_SET_UCONFIG_REG_START && reg + values.len() as u32 <= nv::PACKET3_SET_UCONFIG_REG_END,
            "register {reg:#x} is outside the UCONFIG window"
        );
        let mut payload = Vec::with_capacity(values.len() + 1);
        payload.push(reg - nv::PACKET3_SET_UCONFIG_REG_START);
        payload.extend_from_slice(values);
        self.packet(nv::PACKET3_SET_UCONFIG_REG, &payload);
    }

    /// Invalidate caches before later work reads memory: `full` also writes back and invalidates
    /// L2 and the instruction cache; otherwise only the shader caches a dispatch reads through.
    pub fn acquire_mem(&mut self, full: bool) {
        match self.gen.acquire_mem {
            AcquireMem::CoherCntl { full: f, shader: s } => {
                let cntl = if full { f } else { s };
                self.packet(nv::PACKET3_ACQUIRE_MEM, &[cntl, 0xffff_ffff, 0x00ff_ffff, 0, 0, 0xa]);
            }
            AcquireMem::GcrCntl { full: f, shader: s } => {
                let gcr = if full { f } else { s };
                self.packet(nv::PACKET3_ACQUIRE_MEM, &[0, 0xffff_ffff, 0x00ff_ffff, 0, 0, 0xa, gcr]);
            }
        }
    }

    /// End-of-pipe RELEASE_MEM: after all prior work, write `data` to `addr` (with caches
    /// written back when `flush`), and raise an interrupt with `ctxid` when `interrupt` (how KFD
    /// wakes a host sleeping on an event). Returns the index of the data's low dword.
    pub fn release_mem(&mut self, addr: u64, data: ReleaseData, flush: bool, interrupt: Option<u32>) -> usize {
        let event = nv::EVENT_TYPE(self.gen.cache_flush_and_inv_ts) | nv::EVENT_INDEX(5);
        let dw1 = event | if flush { self.gen.release_cache_flush } else { 0 };
        let dw2 = nv::PACKET3_RELEASE_MEM_DATA_SEL(data.data_sel())
            | nv::PACKET3_RELEASE_MEM_INT_SEL(if interrupt.is_some() { 2 } else { 0 });
        let v = data.value();
        self.packet(
            nv::PACKET3_RELEASE_MEM,
            &[dw1, dw2, addr as u32, (addr >> 32) as u32, v as u32, (v >> 32) as u32, interrupt.unwrap_or(0)],
        ) + 4
    }

    /// Stall the queue until `(*addr & mask) <compare> reference` (a 32-bit memory poll).
    /// Returns the index of the reference dword.
    pub fn wait_mem(&mut self, addr: u64, reference: u32, mask: u32, compare: Compare) -> usize {
        let info = nv::WAIT_REG_MEM_FUNCTION(compare as u32) | nv::WAIT_REG_MEM_MEM_SPACE(1);
        self.packet(nv::PACKET3_WAIT_REG_MEM, &[info, addr as u32, (addr >> 32) as u32, reference, mask, 4]) + 3
    }

    /// Write `reference` to register `req`, then poll register `done` until `(done & mask)
    /// <compare> reference`: the HDP flush handshake (BIF_BX_PF*_GPU_HDP_FLUSH_REQ/DONE), which
    /// makes CPU writes through the BAR visible to the GPU. Poll interval 0x20, as the kernel.
    pub fn write_then_wait_reg(&mut self, req: u32, done: u32, reference: u32, mask: u32, compare: Compare) {
        let info =
            nv::WAIT_REG_MEM_FUNCTION(compare as u32) | nv::WAIT_REG_MEM_MEM_SPACE(0) | nv::WAIT_REG_MEM_OPERATION(1);
        self.packet(nv::PACKET3_WAIT_REG_MEM, &[info, req, done, reference, mask, 0x20]);
    }

    pub fn event_write(&mut self, event_type: u32, event_index: u32) {
        self.packet(nv::PACKET3_EVENT_WRITE, &[nv::EVENT_TYPE(event_type) | nv::EVENT_INDEX(event_index)]);
    }

    /// Run `dwords` dwords of commands at `addr` (4-byte aligned).
    pub fn indirect_buffer(&mut self, addr: u64, dwords: u32) {
        assert!(addr.is_multiple_of(4) && dwords < (1 << 20), "indirect buffer at {addr:#x} of {dwords} dwords");
        self.packet(
            nv::PACKET3_INDIRECT_BUFFER,
            &[addr as u32, (addr >> 32) as u32, dwords | nv::INDIRECT_BUFFER_VALID],
        );
    }

    /// The whole dispatch: shader caches, program and resource registers, user data, launch,
    /// then a CS partial flush so later packets see the dispatch finished.
    pub fn dispatch(&mut self, d: &Dispatch) {
        assert!(d.entry.is_multiple_of(256), "kernel entry {:#x} is not 256-byte aligned", d.entry);
        assert!(d.user_data.len() <= 16, "{} user SGPRs", d.user_data.len());
        let r = self.gen.regs;
        self.acquire_mem(false);
        let pgm = d.entry >> 8;
        self.set_sh_regs(r.pgm_lo, &[pgm as u32, (pgm >> 32) as u32]);
        self.set_sh_regs(r.pgm_rsrc1, &[d.rsrc1, d.rsrc2]);
        self.set_sh_regs(r.pgm_rsrc3, &[d.rsrc3]);
        self.set_sh_regs(r.tmpring_size, &[d.tmpring_size]);
        if let Some(base) = d.scratch_base {
            for xcc in 0..self.xccs {
                let b = (base + xcc as u64 * d.scratch_per_xcc) >> 8;
                let set = |q: &mut Pm4| q.set_sh_regs(r.dispatch_scratch_base_lo, &[b as u32, (b >> 32) as u32]);
                if self.xccs > 1 {
                    self.pred_exec(1 << xcc, set);
                } else {
                    set(self);
                }
            }
        }
        self.split_across_xccs();
        self.set_sh_regs(r.restart_x, &[0, 0, 0]);
        if !d.user_data.is_empty() {
            self.set_sh_regs(r.user_data_0, &d.user_data);
        }
        self.set_sh_regs(r.resource_limits, &[0]);
        // START_X/Y/Z, NUM_THREAD_X/Y/Z, PIPELINESTAT_ENABLE, PERFCOUNT_ENABLE.
        self.set_sh_regs(r.start_x, &[0, 0, 0, d.block[0], d.block[1], d.block[2], 0, 0]);
        // COMPUTE_SHADER_EN | FORCE_START_AT_000, plus wave32 where the generation has it.
        let initiator = 1 | 1 << 2 | if d.wave32 { self.gen.dispatch_wave32 } else { 0 };
        self.packet(nv::PACKET3_DISPATCH_DIRECT, &[d.grid[0], d.grid[1], d.grid[2], initiator]);
        self.event_write(self.gen.cs_partial_flush, 4);
        if self.xccs > 1 {
            // A partial flush waits for this XCC's share only: write this XCC's results back to
            // memory (ACQUIRE_MEM's write-back completes before the CP goes on; each XCC has its
            // own L2), then wait for the other XCCs, so that what follows (a signal, a dependent
            // dispatch) sees the whole grid done. tinygrad's ops_amd.py does the same.
            self.release_mem(0, ReleaseData::None, true, None);
            self.acquire_mem(true);
            self.xcc_barrier();
        }
    }

    /// Each XCC takes every xccs-th workgroup, starting at its own index (chunks of one
    /// workgroup): the registers every dispatch of a multi-XCC stream sets, since KFD leaves a
    /// PM4 queue's chunk size at 0 (the whole grid on every XCC).
    fn split_across_xccs(&mut self) {
        let Some(x) = self.gen.xcc_split.filter(|_| self.xccs > 1) else { return };
        self.set_sh_regs(x.tg_chunk_size, &[1]);
        for xcc in 0..self.xccs {
            self.pred_exec(1 << xcc, |q| q.set_sh_regs(x.current_logic_xcc_id, &[xcc]));
        }
    }
}

/// Bytes between the two counters of [`Pm4::xcc_barrier`] (apart, so that they do not share a
/// cache line).
pub const XCC_BARRIER_STRIDE: u64 = 256;
