//! The RDNA3 (gfx1100), RDNA4 (gfx1201), CDNA3 (gfx942) and CDNA4 (gfx950) wave interpreter
//! (what the gfx9 encodings of CDNA differ in is in [`gfx9`]): a [`WaveEngine`] that decodes a
//! kernel's code once into a compact pre-decoded form ([`ops`]), then runs the dispatch's
//! workgroups in parallel on worker threads, each workgroup's waves interleaving at barriers.
//!
//! Layout choices the hardware leaves to the driver: flat addresses in
//! [`decode::SHARED_BASE`]/[`decode::PRIVATE_BASE`] (4 GiB apertures, the KFD's gfx9+ layout)
//! reach the LDS and scratch. Scratch: each running wave owns a slot of
//! `COMPUTE_TMPRING_SIZE.WAVESIZE` × 256 bytes at `scratch_base`; lane `l` of a wave owns
//! `slot / 64` contiguous bytes at `l × slot / 64` (not the hardware's swizzle: private memory is
//! only reachable through the wave itself). LDS accesses out of the workgroup's allocation fault
//! with the shared-aperture address.

pub mod decode;
pub mod exec;
pub mod fp;
pub mod gfx9;
pub mod mfma;
pub mod ops;
mod retire;
pub mod waitcnt;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use crate::work::WorkCounter;
use baregpu_isa::Arch;
use exec::{Ctx, Stop, Wave};
use ops::{Inst, Op, Tgt};

/// A decoded instruction before branch targets are resolved: pc, size, operation.
type Raw = (u64, u32, Result<Op, String>, Option<u64>);

/// Longest stretch of code decoded from one entry point.
const MAX_SEGMENT_BYTES: u64 = 1 << 20;

/// Code decoded linearly from an entry point to the end of the code (s_code_end, undecodable
/// bytes or a zero dword past the last s_endpgm, or the end of the allocation).
pub struct Segment {
    pub start: u64,
    pub insts: Vec<Inst>,
    /// Byte offset / 4 -> instruction index + 1 (0: not an instruction boundary).
    index: Vec<u32>,
    /// The bytes decoded, to notice code that changed under the cache.
    bytes: Vec<u8>,
    /// Each instruction's registers and memory-counter events (the wait checker's).
    pub wc: Vec<waitcnt::Info>,
}

impl Segment {
    pub fn index_of(&self, pc: u64) -> Option<usize> {
        let off = pc.checked_sub(self.start)?;
        if off % 4 != 0 {
            return None;
        }
        match self.index.get((off / 4) as usize) {
            Some(&i) if i != 0 => Some(i as usize - 1),
            _ => None,
        }
    }

    fn still_valid(&self, mem: &GpuMemory) -> bool {
        match mem.translate(self.start, self.bytes.len() as u64) {
            // SAFETY: translate checked the range lies in one allocation.
            Some(p) => (unsafe { std::slice::from_raw_parts(p, self.bytes.len()) }) == self.bytes.as_slice(),
            None => false,
        }
    }

    fn decode(arch: Arch, start: u64, mem: &GpuMemory) -> Result<Segment, DispatchFault> {
        // The readable code: from `start` to the end of its allocation (bounded).
        let mut len = 0u64;
        let mut step = MAX_SEGMENT_BYTES;
        while step >= 4 {
            if mem.translate(start, len + step).is_some() {
                len += step;
                if len >= MAX_SEGMENT_BYTES {
                    break;
                }
            } else {
                step /= 2;
            }
        }
        let len = len.min(MAX_SEGMENT_BYTES) & !3;
        let p = mem.translate(start, len.max(1)).ok_or(DispatchFault::Memory { va: start, write: false, pc: start })?;
        // SAFETY: translate checked the range.
        let bytes = unsafe { std::slice::from_raw_parts(p, len as usize) };
        let mut raw: Vec<Raw> = Vec::new();
        let mut wc: Vec<waitcnt::Info> = Vec::new();
        let mut at = 0usize;
        let mut saw_end = false;
        // VOPD exists from gfx11 on; on gfx9 its first-dword pattern is no instruction at all.
        let vopd = !gfx9::is_gfx9(arch);
        while at + 4 <= bytes.len() {
            let pc = start + at as u64;
            let w = |k: usize| -> u32 {
                bytes.get(at + 4 * k..at + 4 * k + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            };
            // A zero dword right after an s_endpgm (and its s_nop padding) is the rest of the
            // code's allocation, or memory next to it where VRAM allocations adjoin (AM): zero
            // decodes as an instruction on every generation, and decoding on would take in (and
            // be invalidated by) whatever data follows. Code that does run there is decoded
            // from its own pc when reached.
            let after_end = saw_end && raw.last().is_some_and(|r| matches!(r.2, Ok(Op::End) | Ok(Op::Nop)));
            if w(0) == 0 && after_end {
                break;
            }
            if let Some(size) = decode::vopd_size(w(0), w(1)).filter(|_| vopd) {
                if at + size > bytes.len() {
                    break;
                }
                let lit = (size == 12).then(|| w(2));
                let op = decode::lower_vopd(w(0), w(1), lit);
                wc.push(waitcnt::info(arch, None, op.as_ref().ok()));
                raw.push((pc, size as u32, op, None));
                at += size;
                continue;
            }
            match baregpu_isa::decode_at(arch, bytes, at) {
                Ok(i) => {
                    let size = i.size();
                    let m = i.mnemonic();
                    // Branch targets are resolved after the whole segment is known.
                    let op = decode::lower(arch, &i, pc, &|t| Tgt::Pc(t));
                    wc.push(waitcnt::info(arch, Some(&i), op.as_ref().ok()));
                    raw.push((pc, size as u32, op, None));
                    at += size;
                    if m == "s_code_end" {
                        break;
                    }
                    if m == "s_endpgm" {
                        saw_end = true;
                    }
                }
                Err(e) => {
                    // Data or padding after the code ends; inside the code, an illegal instruction.
                    if after_end {
                        // Keep decoding: kernels follow each other in .text; stop at the first
                        // undecodable dword after an s_endpgm.
                        raw.push((pc, 4, Err(format!("undecodable instruction: {e}")), None));
                        wc.push(waitcnt::Info::default());
                        break;
                    }
                    raw.push((pc, 4, Err(format!("undecodable instruction: {e}")), None));
                    wc.push(waitcnt::Info::default());
                    at += 4;
                }
            }
        }
        let mut index = vec![0u32; bytes.len() / 4 + 1];
        for (k, r) in raw.iter().enumerate() {
            index[((r.0 - start) / 4) as usize] = k as u32 + 1;
        }
        let idx = |t: Tgt| -> Tgt {
            match t {
                Tgt::Pc(pc) => match pc.checked_sub(start) {
                    Some(off) if off % 4 == 0 => match index.get((off / 4) as usize) {
                        Some(&i) if i != 0 => Tgt::Idx(i - 1),
                        _ => t,
                    },
                    _ => t,
                },
                t => t,
            }
        };
        let insts = raw
            .into_iter()
            .zip(&wc)
            .map(|((pc, size, op, _), wc)| {
                let op = match op {
                    Ok(Op::Branch(t)) => Op::Branch(idx(t)),
                    Ok(Op::CBranch(c, t)) => Op::CBranch(c, idx(t)),
                    Ok(Op::CallImm { dst, tgt }) => Op::CallImm { dst, tgt: idx(tgt) },
                    Ok(op) => op,
                    Err(what) => Op::Illegal(what),
                };
                Inst { pc, size, op, counters: wc.kind != waitcnt::Kind::Plain }
            })
            .collect();
        let used = at.min(bytes.len());
        Ok(Segment { start, insts, index, bytes: bytes[..used].to_vec(), wc })
    }
}

/// The RDNA wave interpreter.
pub struct Interpreter {
    arch: Arch,
    segments: Mutex<HashMap<u64, Arc<Segment>>>,
    /// Workgroups retired and wave instructions executed, over every dispatch.
    work: WorkCounter,
    /// Segments decoded, over every dispatch: a dispatch of cached code decodes nothing.
    decodes: AtomicU64,
}

impl Interpreter {
    /// `arch`: gfx1100, gfx1201, gfx942 or gfx950 (others are refused at dispatch with an Illegal fault).
    pub fn new(arch: &str) -> Interpreter {
        let arch = Arch::from_name(arch).unwrap_or(Arch::Gfx942);
        Interpreter {
            arch,
            segments: Mutex::new(HashMap::new()),
            work: WorkCounter::default(),
            decodes: AtomicU64::new(0),
        }
    }

    /// Code segments decoded so far (each decode walks its code to the end once).
    pub fn decodes(&self) -> u64 {
        self.decodes.load(Ordering::Relaxed)
    }

    /// Wave instructions executed so far (those of a running dispatch in batches).
    pub fn instructions(&self) -> u64 {
        self.work.executed()
    }

    /// What the interpreter counts of its work (hang detection reads it; tests pace it).
    pub fn work(&self) -> &WorkCounter {
        &self.work
    }

    /// The instructions of the code at `pc` (decoded as a dispatch would) that the interpreter
    /// cannot run, as (PC, reason); the padding after the code is not reported.
    pub fn unsupported(&self, pc: u64, mem: &GpuMemory) -> Result<Vec<(u64, String)>, DispatchFault> {
        let (seg, _) = self.segment(pc, mem)?;
        let last_end = seg.insts.iter().rposition(|i| matches!(i.op, Op::End)).unwrap_or(0);
        Ok(seg
            .insts
            .iter()
            .take(last_end)
            .filter_map(|i| match &i.op {
                Op::Illegal(w) => Some((i.pc, w.clone())),
                _ => None,
            })
            .collect())
    }

    /// The decoded code containing `pc`: a cached segment, or a new one starting there.
    fn segment(&self, pc: u64, mem: &GpuMemory) -> Result<(Arc<Segment>, usize), DispatchFault> {
        let mut segs = self.segments.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = segs.get(&pc) {
            if s.still_valid(mem) {
                return Ok((s.clone(), 0));
            }
        }
        for s in segs.values() {
            if let Some(i) = s.index_of(pc) {
                if s.still_valid(mem) {
                    return Ok((s.clone(), i));
                }
            }
        }
        let s = self.decode(pc, mem)?;
        segs.insert(pc, s.clone());
        Ok((s, 0))
    }

    /// Decodes the code from `pc` on (counted: see [`Interpreter::decodes`]).
    fn decode(&self, pc: u64, mem: &GpuMemory) -> Result<Arc<Segment>, DispatchFault> {
        self.decodes.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new(Segment::decode(self.arch, pc, mem)?))
    }

    fn run<const W: usize>(
        &self,
        d: &DispatchState,
        mem: &GpuMemory,
        entry: Arc<Segment>,
        first: usize,
    ) -> Result<(), DispatchFault> {
        // This XCC's workgroups (the whole grid but on a split multi-XCC dispatch).
        let groups = d.groups();
        let threads = d.block[0] as usize * d.block[1] as usize * d.block[2] as usize;
        if groups == 0 || threads == 0 {
            return Ok(());
        }
        let nwaves = threads.div_ceil(W);
        let wave_bytes = (((d.tmpring_size >> 12) & 0x3_ffff) as u64) * 256;
        let slots = (d.tmpring_size & 0xfff).max(1) as usize;
        let mut workers = crate::host_cores::host_cores().min(groups as usize).max(1);
        if wave_bytes != 0 {
            workers = workers.min((slots / nwaves).max(1));
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let fault: Mutex<Option<DispatchFault>> = Mutex::new(None);
        let code = |pc: u64| self.segment(pc, mem);
        let worker = |wi: usize| {
            let tally = retire::Unpublished::new(&self.work, &d.cancel);
            let ctx = Ctx { mem, cancel: &d.cancel, tally: &tally, code: &code };
            let mut waves: Vec<Wave<W>> = (0..nwaves).map(|_| Wave::new(entry.clone())).collect();
            let mut lds = vec![0u8; d.lds_bytes as usize];
            let executed = |waves: &[Wave<W>]| waves.iter().map(|w| w.count).sum::<u64>();
            loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let g = next.fetch_add(1, Ordering::Relaxed) as u64;
                if g >= groups {
                    break;
                }
                // Short workgroups never reach the wave's own check: look between them too.
                let checked = if g & 0xff == 0 { d.cancel.check() } else { Ok(()) };
                if let Err(f) = checked {
                    stop.store(true, Ordering::Relaxed);
                    fault.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(f);
                    break;
                }
                let gid = d.group_id(g);
                lds.fill(0);
                for (w, wave) in waves.iter_mut().enumerate() {
                    self.init_wave(wave, d, (&entry, first), gid, w, nwaves, threads);
                    let slot = ((wi * nwaves + w) % slots) as u64;
                    wave.scratch = d.scratch_base + slot * wave_bytes;
                    wave.lane_bytes = wave_bytes / 64;
                }
                if let Err(f) = run_group(&mut waves, &ctx, &mut lds) {
                    stop.store(true, Ordering::Relaxed);
                    let mut g = fault.lock().unwrap_or_else(|e| e.into_inner());
                    g.get_or_insert(f);
                    break;
                }
                // Published in batches bounded by work (retire.rs): a host wait's progress.
                tally.retire(executed(&waves));
            }
            tally.publish(executed(&waves));
        };
        if workers == 1 {
            worker(0);
        } else {
            std::thread::scope(|s| {
                for wi in 0..workers {
                    let worker = &worker;
                    s.spawn(move || worker(wi));
                }
            });
        }
        match fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn init_wave<const W: usize>(
        &self,
        wave: &mut Wave<W>,
        d: &DispatchState,
        (entry, first): (&Arc<Segment>, usize),
        gid: [u32; 3],
        w: usize,
        nwaves: usize,
        threads: usize,
    ) {
        let count = wave.count;
        wave.s = [0; exec::NSGPR];
        wave.count = count;
        wave.scc = false;
        wave.done = false;
        wave.mode = 0;
        wave.seg = entry.clone();
        wave.ip = first;
        wave.gpr_idx = false;
        wave.accum = if gfx9::is_gfx9(self.arch) { gfx9::accum_offset(d.rsrc3) } else { exec::NVGPR };
        wave.wc.reset(self.arch, wave.accum);
        let nuser = (((d.rsrc2 >> 1) & 0x1f) as usize).min(16);
        wave.s[..nuser].copy_from_slice(&d.user_data[..nuser]);
        let mut n = nuser;
        for (k, bit) in [7u32, 8, 9].into_iter().enumerate() {
            if d.rsrc2 >> bit & 1 != 0 {
                wave.s[n] = gid[k];
                n += 1;
            }
        }
        if d.rsrc2 >> 10 & 1 != 0 {
            // Workgroup info: wave id in the group, number of waves, first wave.
            wave.s[n] = (w as u32 & 0x1f) | ((nwaves as u32 & 0x3f) << 6) | if w == 0 { 1 << 31 } else { 0 };
        }
        if self.arch == Arch::Gfx1201 {
            // Architected workgroup ids: ttmp9 = x, ttmp7 = y | z << 16.
            wave.s[108 + 9] = gid[0];
            wave.s[108 + 7] = (gid[1] & 0xffff) | (gid[2] << 16);
        }
        let (bx, by) = (d.block[0] as usize, d.block[1] as usize);
        let mut exec = 0u64;
        // The work-item ids counted up lane by lane (no divisions per lane).
        let t0 = w * W;
        let (mut x, mut y, mut z) = (t0 % bx, (t0 / bx) % by, t0 / (bx * by));
        for (l, v0) in wave.v[0].iter_mut().enumerate() {
            if t0 + l < threads {
                exec |= 1 << l;
                *v0 = (x as u32) | ((y as u32) << 10) | ((z as u32) << 20);
            }
            x += 1;
            if x == bx {
                x = 0;
                y += 1;
                if y == by {
                    y = 0;
                    z += 1;
                }
            }
        }
        wave.s[126] = exec as u32;
        wave.s[127] = (exec >> 32) as u32;
    }
}

/// Runs one workgroup: every wave until it ends or reaches a barrier, then releases the barrier.
fn run_group<const W: usize>(waves: &mut [Wave<W>], ctx: &Ctx, lds: &mut [u8]) -> Result<(), DispatchFault> {
    loop {
        let mut live = 0;
        for w in waves.iter_mut() {
            if w.done {
                continue;
            }
            match w.run(ctx, lds)? {
                Stop::End => {}
                Stop::Barrier => live += 1,
            }
        }
        if live == 0 {
            return Ok(());
        }
    }
}

impl WaveEngine for Interpreter {
    fn workgroups_retired(&self) -> u64 {
        self.work.retired()
    }

    fn instructions_executed(&self) -> u64 {
        self.work.executed()
    }

    fn dispatch(&self, d: &DispatchState, mem: &GpuMemory) -> Result<(), DispatchFault> {
        if !matches!(self.arch, Arch::Gfx1100 | Arch::Gfx1201 | Arch::Gfx942 | Arch::Gfx950)
            || d.arch != self.arch.name()
        {
            return Err(DispatchFault::Illegal {
                pc: d.pgm,
                what: format!("{}: the wave interpreter runs gfx1100, gfx1201, gfx942 and gfx950 only", d.arch),
            });
        }
        if d.wave32 && gfx9::is_gfx9(self.arch) {
            return Err(DispatchFault::Illegal {
                pc: d.pgm,
                what: format!("{}: wave32 dispatch on a wave64-only GPU", d.arch),
            });
        }
        let threads = d.block.iter().map(|&b| b as u64).product::<u64>();
        let lds_limit = gfx9::lds_limit(self.arch);
        if threads > 1024 || d.lds_bytes > lds_limit {
            return Err(DispatchFault::Illegal {
                pc: d.pgm,
                what: format!(
                    "dispatch of {threads} work-items per workgroup with {} bytes of LDS exceeds the hardware's 1024 and {} KiB",
                    d.lds_bytes,
                    lds_limit >> 10
                ),
            });
        }
        // A kernel inside code decoded for an earlier entry starts at its index there.
        let (entry, first) = self.segment(d.pgm, mem)?;
        if d.wave32 {
            self.run::<32>(d, mem, entry, first)
        } else {
            self.run::<64>(d, mem, entry, first)
        }
    }
}
