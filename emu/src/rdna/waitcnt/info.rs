//! What each decoded instruction means to the memory counters: the registers it reads and
//! writes, the counters it increments, the counts it waits for. Computed once per instruction
//! when a segment is decoded ([`info`]).

use super::super::gfx9::is_gfx9;
use super::super::ops::*;
use super::{Class, Cnt, Kind};
use baregpu_isa::{Arch, Instruction};

/// A register range in the pre-decoded form's numbering: SGPR `reg` (`vector` false), VGPR
/// `reg` or AGPR `reg - gfx9::ACC` (`vector` true). `n == 0`: a lane mask (one SGPR in wave32,
/// a pair in wave64).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub reg: u16,
    pub n: u8,
    pub vector: bool,
}

const MAX_USES: usize = 8;
const MAX_DEFS: usize = 3;

/// One instruction's registers and counter events.
#[derive(Clone, Copy, Debug, Default)]
pub struct Info {
    pub kind: Kind,
    uses: [Span; MAX_USES],
    defs: [Span; MAX_DEFS],
    nuses: u8,
    ndefs: u8,
}

impl Info {
    pub fn uses(&self) -> &[Span] {
        &self.uses[..self.nuses as usize]
    }
    pub fn defs(&self) -> &[Span] {
        &self.defs[..self.ndefs as usize]
    }
    /// The registers a memory operation writes when it completes (its first destination).
    pub fn dest(&self) -> Option<Span> {
        self.defs().first().copied()
    }
    fn rd(&mut self, s: Span) {
        // SGPRs past the file (inline constants never get here), NULL and EXEC are not tracked.
        if s.n == 0 && s.reg as usize >= 124 && !s.vector {
            return;
        }
        if (self.nuses as usize) < MAX_USES {
            self.uses[self.nuses as usize] = s;
            self.nuses += 1;
        }
    }
    fn wr(&mut self, s: Span) {
        if !s.vector && s.reg >= 124 {
            return;
        }
        if (self.ndefs as usize) < MAX_DEFS {
            self.defs[self.ndefs as usize] = s;
            self.ndefs += 1;
        }
    }
    fn v(&mut self, r: u16, n: u8, write: bool) {
        let s = Span { reg: r, n, vector: true };
        if write {
            self.wr(s)
        } else {
            self.rd(s)
        }
    }
    fn s(&mut self, r: u8, n: u8, write: bool) {
        let s = Span { reg: r as u16, n, vector: false };
        if write {
            self.wr(s)
        } else {
            self.rd(s)
        }
    }
    fn ss(&mut self, s: Ss, n: u8) {
        if let Ss::R(r) = s {
            self.s(r, n, false);
        }
    }
    fn vs(&mut self, s: Vs, ty: Ty) {
        let n = match ty {
            Ty::Mask => 0,
            t if t.is64() => 2,
            _ => 1,
        };
        match s {
            Vs::V(r) => self.v(r, n.max(1), false),
            Vs::S(s) => self.ss(s, n),
        }
    }
}

/// The counters of an architecture: which one each kind of operation increments.
struct Counters {
    load: Cnt,
    store: Cnt,
    lds: Cnt,
    smem: Cnt,
}

fn counters(arch: Arch) -> Counters {
    match arch {
        // gfx9: VM_CNT counts loads and stores; LGKM_CNT the LDS and scalar memory.
        a if is_gfx9(a) => Counters { load: Cnt::Vm, store: Cnt::Vm, lds: Cnt::Lgkm, smem: Cnt::Lgkm },
        // gfx12: one counter for each (LOADcnt, STOREcnt, DScnt, KMcnt).
        Arch::Gfx1201 => Counters { load: Cnt::Vm, store: Cnt::Vs, lds: Cnt::Lgkm, smem: Cnt::Km },
        // gfx10/gfx11: stores moved to VS_CNT.
        _ => Counters { load: Cnt::Vm, store: Cnt::Vs, lds: Cnt::Lgkm, smem: Cnt::Lgkm },
    }
}

/// The instruction's registers and events. `i`: the ISA decoder's form (absent for VOPD).
pub fn info(arch: Arch, i: Option<&Instruction>, op: Option<&Op>) -> Info {
    let mut x = Info::default();
    let Some(op) = op else { return x };
    let c = counters(arch);
    let m = i.map_or("", |i| i.mnemonic());
    match op {
        Op::Nop => x.kind = wait(arch, m, i),
        Op::Valu(v) => valu(&mut x, v),
        Op::Sdwa(s) => valu(&mut x, &s.v),
        Op::ScalarValu(v) => {
            for k in 0..v.nsrc as usize {
                x.vs(v.src[k], v.tys[k]);
            }
            x.s(v.dst as u8, 1, true);
        }
        Op::Vopd(pair) => {
            valu(&mut x, &pair[0]);
            valu(&mut x, &pair[1]);
        }
        Op::Salu { dst, a, b, wide, .. } => {
            let n = if *wide { 2 } else { 1 };
            x.ss(*a, n);
            x.ss(*b, 1);
            x.s(*dst, n, true);
        }
        Op::Smem { dst, n, base, soff, buffer, .. } => {
            x.s(*base, if *buffer { 4 } else { 2 }, false);
            x.ss(*soff, 1);
            x.s(*dst, if *n > 16 { 1 } else { *n }, true);
            x.kind = Kind::Issue { cnt: [Some(c.smem), None], class: Class::Smem, flat: false };
        }
        Op::SmemWrite(w) => {
            x.s(w.base, if w.buffer { 4 } else { 2 }, false);
            x.ss(w.soff, 1);
            match w.kind {
                SmemWriteKind::Store { n } => x.s(w.data, n, false),
                SmemWriteKind::Scratch { n, store } => x.s(w.data, n, !store),
                SmemWriteKind::Atomic { op, wide, ret } => {
                    let n = if wide { 2 } else { 1 };
                    x.s(w.data, n * if two_operands(op) { 2 } else { 1 }, false);
                    if ret {
                        x.s(w.data, n, true);
                    }
                }
            }
            x.kind = Kind::Issue { cnt: [Some(c.smem), None], class: Class::Smem, flat: false };
        }
        // s_memtime / s_memrealtime are scalar memory reads.
        Op::Clock { dst, .. } => {
            x.s(*dst, 2, true);
            x.kind = Kind::Issue { cnt: [Some(c.smem), None], class: Class::Smem, flat: false };
        }
        Op::Mem(v) | Op::MemLds(v) => vmem(&mut x, v, matches!(op, Op::MemLds(_)), &c),
        Op::Buf(b) => buffer(&mut x, b, &c),
        Op::Ds(d) => ds(&mut x, d, c.lds),
        Op::AccMove { dst, src } => {
            x.vs(*src, Ty::B32);
            x.v(*dst, 1, true);
        }
        Op::VSwap { a, b } | Op::PermlaneSwap { vdst: a, src: b, .. } => {
            for w in [false, true] {
                x.v(*a, 1, w);
                x.v(*b, 1, w);
            }
        }
        Op::Cvt8(k) => {
            for s in &k.src[..k.srcs as usize] {
                match *s {
                    Vs::V(r) => x.v(r, k.regs, false),
                    s => x.vs(s, Ty::B32),
                }
            }
            for s in [k.rand, k.scale].into_iter().flatten() {
                x.vs(s, Ty::B32);
            }
            x.v(k.dst, k.dst_regs, false);
            x.v(k.dst, k.dst_regs, true);
        }
        Op::Mfma(f) => {
            // The widths are the operand table's (llvm-mc's register ranges).
            let w = |name: &str| {
                i.and_then(|i| i.operands().iter().find(|o| o.name == name)).map_or(1, |o| o.dwords.max(1))
            };
            // f8f6f4: the table's ranges are FP8's; FP6 and FP4 operands take 6/8 and 4/8 of them.
            let narrow = |n: u8, fmt: super::super::mfma::Fmt| {
                if f.v.f8f6f4 {
                    (n as u32 * fmt.bits() / 8).max(1) as u8
                } else {
                    n
                }
            };
            x.v(f.a, narrow(w("src0"), f.fa), false);
            x.v(f.b, narrow(w("src1"), f.fb), false);
            if let Vs::V(r) = f.c {
                x.v(r, w("src2"), false);
            }
            if f.v.sparse {
                x.v(f.idx, 1, false);
            }
            if let Some(s) = &f.scales {
                x.v(s.a, 1, false);
                x.v(s.b, 1, false);
            }
            x.v(f.d, w("vdst"), true);
        }
        Op::GetPc { dst } | Op::CallImm { dst, .. } => x.s(*dst, 2, true),
        Op::SetPc { src } => x.s(*src, 2, false),
        Op::SwapPc { dst, src } => {
            x.s(*src, 2, false);
            x.s(*dst, 2, true);
        }
        Op::GprIdxOn { src, .. } => x.ss(*src, 1),
        _ => {}
    }
    x
}

fn valu(x: &mut Info, v: &Valu) {
    for k in 0..(v.nsrc as usize).min(3) {
        x.vs(v.src[k], v.tys[k]);
    }
    let n = if v.dty.is64() { 2 } else { 1 };
    match v.op {
        VOp::Cmp if v.cmpx => {}
        VOp::Cmp => x.s(v.dst as u8, 0, true),
        VOp::ReadLane | VOp::ReadFirstLane => x.s(v.dst as u8, 1, true),
        _ => x.v(v.dst, n, true),
    }
    if v.sdst != 124 && v.op != VOp::Cmp {
        x.s(v.sdst, 0, true);
    }
}

fn two_operands(op: AtomicOp) -> bool {
    matches!(op, AtomicOp::Cmpswap | AtomicOp::CmpswapF | AtomicOp::Mskor | AtomicOp::Wrap)
}

fn dwords(bytes: u8) -> u8 {
    bytes.div_ceil(4).max(1)
}

/// The class and counter of a vector memory access: loads and returning atomics count as
/// loads, stores and atomics without return as stores.
fn vmem_kind(op: MemOp, c: &Counters) -> Kind {
    let load = match op {
        MemOp::Load { .. } => true,
        MemOp::Store { .. } => false,
        MemOp::Atomic { ret, .. } => ret,
    };
    // gfx9 counts both on VM_CNT, in order between them (one class, as LLVM's VMEM_ACCESS).
    let (cnt, class) = match (load, c.store == c.load) {
        (true, _) | (false, true) => (c.load, Class::Load),
        (false, false) => (c.store, Class::Store),
    };
    Kind::Issue { cnt: [Some(cnt), None], class, flat: false }
}

/// The data registers a store or atomic reads, and what a load or returning atomic writes.
fn data_regs(x: &mut Info, op: MemOp, vdst: u16, data: u16) {
    match op {
        MemOp::Load { bytes, .. } => x.v(vdst, dwords(bytes), true),
        MemOp::Store { bytes, .. } => x.v(data, dwords(bytes), false),
        MemOp::Atomic { op, wide, ret } => {
            let n = if wide { 2 } else { 1 };
            x.v(data, n * if two_operands(op) { 2 } else { 1 }, false);
            if ret {
                x.v(vdst, n, true);
            }
        }
    }
}

fn vmem(x: &mut Info, v: &VMem, to_lds: bool, c: &Counters) {
    let wide_addr = v.kind != MemKind::Scratch && v.saddr.is_none();
    if v.kind != MemKind::Scratch || v.use_vaddr {
        x.v(v.addr, if wide_addr { 2 } else { 1 }, false);
    }
    if let Some(s) = v.saddr {
        x.s(s, if v.kind == MemKind::Scratch { 1 } else { 2 }, false);
    }
    if to_lds {
        x.s(125, 1, false);
    } else {
        data_regs(x, v.op, v.vdst, v.data);
    }
    x.kind = vmem_kind(v.op, c);
    // FLAT may reach the LDS instead: the addresses decide at run time.
    if let (MemKind::Flat, Kind::Issue { cnt, flat, .. }) = (v.kind, &mut x.kind) {
        cnt[1] = Some(c.lds);
        *flat = true;
    }
}

fn buffer(x: &mut Info, b: &BufAccess, c: &Counters) {
    let naddr = b.offen as u8 + b.idxen as u8;
    if naddr > 0 {
        x.v(b.vaddr, naddr, false);
    }
    x.s(b.srsrc, 4, false);
    x.ss(b.soffset, 1);
    let op = match (b.fmt, b.op) {
        (Some(f), MemOp::Load { sign, .. }) => {
            let n = if f.d16 { f.comps.div_ceil(2) } else { f.comps };
            MemOp::Load { bytes: 4 * n, sign, d16: (f.d16 && f.comps == 1) as u8 }
        }
        (Some(f), MemOp::Store { d16hi, .. }) => {
            let n = if f.d16 { f.comps.div_ceil(2) } else { f.comps };
            MemOp::Store { bytes: 4 * n, d16hi }
        }
        (_, op) => op,
    };
    if b.lds {
        x.s(125, 1, false);
    } else {
        data_regs(x, op, b.vdata, b.vdata);
    }
    x.kind = vmem_kind(b.op, c);
}

fn ds(x: &mut Info, d: &Ds, cnt: Cnt) {
    use DsOp::*;
    if !matches!(d.op, LoadTid | StoreTid | Append { .. } | Nop) {
        x.v(d.addr, 1, false);
    }
    match d.op {
        Load { bytes, .. } => x.v(d.vdst, dwords(bytes), true),
        LoadTr { bytes, .. } => x.v(d.vdst, dwords(bytes), true),
        Load2 { bytes } => x.v(d.vdst, 2 * dwords(bytes), true),
        LoadTid => x.v(d.vdst, 1, true),
        Store { bytes, .. } => x.v(d.data0, dwords(bytes), false),
        StoreTid => x.v(d.data0, 1, false),
        Store2 { bytes } => {
            x.v(d.data0, dwords(bytes), false);
            x.v(d.data1, dwords(bytes), false);
        }
        Xchg2 { bytes } => {
            x.v(d.data0, dwords(bytes), false);
            x.v(d.data1, dwords(bytes), false);
            x.v(d.vdst, 2 * dwords(bytes), true);
        }
        Atomic { op, wide, ret } => {
            let n = if wide { 2 } else { 1 };
            x.v(d.data0, n, false);
            if two_operands(op) {
                x.v(d.data1, n, false);
            }
            if ret {
                x.v(d.vdst, n, true);
            }
        }
        Append { .. } => x.v(d.vdst, 1, true),
        Bpermute | Permute | Swizzle => {
            if d.op != Swizzle {
                x.v(d.data0, 1, false);
            } else {
                x.v(d.addr, 1, false);
            }
            x.v(d.vdst, 1, true)
        }
        Nop => return,
    }
    x.kind = Kind::Issue { cnt: [Some(cnt), None], class: Class::Lds, flat: false };
}

/// The counts a wait instruction waits for (none: not a wait).
fn wait(arch: Arch, m: &str, i: Option<&Instruction>) -> Kind {
    let Some(i) = i else { return Kind::Plain };
    let imm = i.field("simm16").unwrap_or(0);
    let mut n = [None; super::NCNT];
    let mut set = |c: Cnt, v: u32| n[c as usize] = Some(v.min(255) as u8);
    match m {
        "s_waitcnt" if is_gfx9(arch) => {
            set(Cnt::Vm, (imm & 0xf) | (imm >> 14 & 3) << 4);
            set(Cnt::Exp, imm >> 4 & 7);
            set(Cnt::Lgkm, imm >> 8 & 0xf);
        }
        "s_waitcnt" => {
            set(Cnt::Vm, imm >> 10 & 0x3f);
            set(Cnt::Exp, imm & 7);
            set(Cnt::Lgkm, imm >> 4 & 0x3f);
        }
        // gfx10/gfx11 single counters; with an SGPR other than NULL the count would be read at
        // run time: then no wait is assumed.
        "s_waitcnt_vscnt" | "s_waitcnt_vmcnt" | "s_waitcnt_expcnt" | "s_waitcnt_lgkmcnt" => {
            if i.field("sdst") == Some(124) {
                let c = match m {
                    "s_waitcnt_vscnt" => Cnt::Vs,
                    "s_waitcnt_vmcnt" => Cnt::Vm,
                    "s_waitcnt_expcnt" => Cnt::Exp,
                    _ => Cnt::Lgkm,
                };
                set(c, imm & 0x3f);
            }
        }
        "s_wait_loadcnt" => set(Cnt::Vm, imm & 0x3f),
        "s_wait_storecnt" => set(Cnt::Vs, imm & 0x3f),
        "s_wait_samplecnt" => set(Cnt::Sample, imm & 0x3f),
        "s_wait_bvhcnt" => set(Cnt::Bvh, imm & 7),
        "s_wait_expcnt" => set(Cnt::Exp, imm & 7),
        "s_wait_dscnt" => set(Cnt::Lgkm, imm & 0x3f),
        "s_wait_kmcnt" => set(Cnt::Km, imm & 0x1f),
        // gfx12 pairs: LOADcnt/STOREcnt in [13:8], DScnt in [5:0].
        "s_wait_loadcnt_dscnt" => {
            set(Cnt::Vm, imm >> 8 & 0x3f);
            set(Cnt::Lgkm, imm & 0x3f);
        }
        "s_wait_storecnt_dscnt" => {
            set(Cnt::Vs, imm >> 8 & 0x3f);
            set(Cnt::Lgkm, imm & 0x3f);
        }
        "s_wait_idle" => n = [Some(0); super::NCNT],
        _ => return Kind::Plain,
    }
    Kind::Wait(n)
}
