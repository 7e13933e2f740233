//! One wave's state and its register access; the instruction families run in the submodules.

#![allow(clippy::needless_range_loop)]

// First: its loop macros serve the VALU modules after it.
#[macro_use]
mod lanes;

mod arith;
mod buffer;
mod buffer_fmt;
mod cdna4;
mod cmp;
mod cvt8;
mod dpp;
mod ds;
mod ds_tr;
mod fast;
mod packed;
mod run;
mod salu;
mod sdwa;
mod smem;
mod trig_preop;
mod valu;
mod valu_float;
mod valu_gfx9;
mod valu_int;
mod valu_special;
mod vmem;

use std::sync::Arc;

use super::decode::{APERTURE_SIZE, PRIVATE_BASE, SHARED_BASE};
use super::fp::*;
use super::gfx9::ACC;
use super::ops::*;
use super::Segment;
use crate::amd::dispatch::{DispatchFault, GpuMemory};
use arith::*;
pub use cdna4::int_dot;
use cmp::*;
pub use fast::fast;
use lanes::{Arm, Lanes};
pub use packed::packed;
use valu::Out;
use vmem::{atomic_new, atomic_rmw};

/// Enough SGPRs past 127 that wide loads and pairs never index out of bounds.
pub const NSGPR: usize = 144;
/// 256 addressable VGPRs plus slack for wide accesses starting at v255.
pub const NVGPR: usize = 260;
/// The register file: gfx9's unified file holds 512 (AGPRs from ACCUM_OFFSET on), plus slack.
const NREGS: usize = 520;

/// Why a wave stopped running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Barrier,
    End,
}

/// What the wave needs from the dispatch.
pub struct Ctx<'a> {
    pub mem: &'a GpuMemory,
    pub cancel: &'a crate::amd::dispatch::Cancel,
    /// Where the wave publishes the instructions it runs inside a long workgroup.
    pub tally: &'a super::retire::Unpublished<'a>,
    pub code: &'a dyn Fn(u64) -> Result<(Arc<Segment>, usize), DispatchFault>,
}

pub struct Wave<const W: usize> {
    pub s: [u32; NSGPR],
    pub scc: bool,
    pub v: Vec<[u32; W]>,
    pub seg: Arc<Segment>,
    pub ip: usize,
    /// VA of this wave's scratch and the bytes each lane owns there.
    pub scratch: u64,
    pub lane_bytes: u64,
    /// gfx9: the VGPR index of a0 in the unified file (ACCUM_OFFSET).
    pub accum: usize,
    /// gfx9: VGPR indexing by M0 (`s_set_gpr_idx_on`) is on.
    pub gpr_idx: bool,
    pub mode: u32,
    /// Wave instructions executed.
    pub count: u64,
    pub done: bool,
    /// The outstanding memory operations, for the wait checker.
    pub wc: super::waitcnt::Tracker,
}

const VCC: usize = 106;
const EXEC: usize = 126;
const NULL: usize = 124;
/// M0 (the SGPR file index the hardware gives it on gfx11 and gfx12).
const M0_REG: usize = 125;

impl<const W: usize> Wave<W> {
    pub fn new(seg: Arc<Segment>) -> Self {
        Wave {
            s: [0; NSGPR],
            scc: false,
            v: vec![[0u32; W]; NREGS],
            seg,
            ip: 0,
            scratch: 0,
            lane_bytes: 0,
            accum: NVGPR,
            gpr_idx: false,
            mode: 0,
            count: 0,
            done: false,
            wc: Default::default(),
        }
    }

    #[inline(always)]
    fn lane_mask() -> u64 {
        if W == 64 {
            u64::MAX
        } else {
            (1u64 << W) - 1
        }
    }
    #[inline(always)]
    pub fn exec(&self) -> u64 {
        (self.s[EXEC] as u64 | ((self.s[EXEC + 1] as u64) << 32)) & Self::lane_mask()
    }
    #[inline(always)]
    fn set_exec(&mut self, m: u64) {
        self.s[EXEC] = m as u32;
        if W == 64 {
            self.s[EXEC + 1] = (m >> 32) as u32;
        }
    }
    #[inline(always)]
    fn vcc(&self) -> u64 {
        (self.s[VCC] as u64 | ((self.s[VCC + 1] as u64) << 32)) & Self::lane_mask()
    }
    #[inline(always)]
    fn s64(&self, n: u8) -> u64 {
        let n = n as usize;
        self.s[n] as u64 | ((self.s[n + 1] as u64) << 32)
    }
    #[inline(always)]
    fn ws(&mut self, n: usize, v: u32) {
        if n != NULL && n < NSGPR {
            self.s[n] = v;
        }
    }
    #[inline(always)]
    fn ws64(&mut self, n: usize, v: u64) {
        self.ws(n, v as u32);
        self.ws(n + 1, (v >> 32) as u32);
    }
    /// A lane mask write: one SGPR in wave32, a pair in wave64.
    #[inline(always)]
    fn wmask(&mut self, n: usize, m: u64) {
        if n == EXEC {
            self.set_exec(m);
        } else if W == 64 {
            self.ws64(n, m)
        } else {
            self.ws(n, m as u32)
        }
    }

    #[inline(always)]
    fn sval(&self, s: Ss, ty: Ty) -> u64 {
        match s {
            Ss::R(n) => {
                if ty.is64() || (ty == Ty::Mask && W == 64) {
                    self.s64(n)
                } else if ty.is16() {
                    (self.s[n as usize] & 0xffff) as u64
                } else {
                    self.s[n as usize] as u64
                }
            }
            Ss::K(k) => k,
            Ss::Scc => self.scc as u64,
            Ss::Vccz => (self.vcc() == 0) as u64,
            Ss::Execz => (self.exec() == 0) as u64,
        }
    }

    #[inline(always)]
    fn vsrc(&self, s: Vs, ty: Ty, hi: bool) -> [u64; W] {
        let mut out = [0u64; W];
        self.vsrc_into(s, ty, hi, &mut out);
        out
    }

    /// A vector source's lanes, typed, into `out` (every lane written).
    #[inline(always)]
    fn vsrc_into(&self, s: Vs, ty: Ty, hi: bool, out: &mut [u64; W]) {
        match s {
            Vs::V(r) => {
                let r = r as usize;
                let a = &self.v[r];
                if ty.is64() {
                    let b = &self.v[r + 1];
                    for i in 0..W {
                        out[i] = a[i] as u64 | ((b[i] as u64) << 32);
                    }
                } else if ty.is16() {
                    let sh = if hi { 16 } else { 0 };
                    for i in 0..W {
                        out[i] = ((a[i] >> sh) & 0xffff) as u64;
                    }
                } else {
                    for i in 0..W {
                        out[i] = a[i] as u64;
                    }
                }
            }
            Vs::S(ss) => {
                let mut x = self.sval(ss, ty);
                if hi && ty.is16() {
                    if let Ss::R(n) = ss {
                        x = (self.s[n as usize] >> 16) as u64;
                    }
                }
                *out = [x; W];
            }
        }
    }

    /// A pre-decoded VGPR index in the unified file: AGPR `ACC + k` is VGPR `ACCUM_OFFSET + k`.
    #[inline]
    pub(super) fn unified(&self, r: u16) -> u16 {
        if r >= ACC {
            (self.accum + (r - ACC) as usize) as u16
        } else {
            r
        }
    }
}
