//! The three workgroup tiles, how a tile is split over the four waves, and the register plan
//! that follows from the split.

use crate::isa::builder::{a, s, v, Reg};

/// Waves per workgroup (wave64), arranged 2 x 2 over the tile.
pub const WAVES: u32 = 4;
/// Work-items per workgroup.
pub const WORKGROUP: u32 = WAVES * 64;
/// Elements along K per MFMA (one K step).
pub const K_STEP: u32 = 128;
/// Bytes of a row of A or B per K step (E2M1: two elements a byte).
pub const STEP_BYTES: u32 = K_STEP / 2;
/// MFMA block edge (16 x 16 outputs).
pub const BLOCK: u32 = 16;

/// A workgroup tile of C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tile {
    T256x256,
    T192x256,
    T128x512,
}

impl Tile {
    /// Every tile, in the order the tile rule prefers them.
    pub const ALL: [Tile; 3] = [Tile::T256x256, Tile::T192x256, Tile::T128x512];

    /// Rows of C (along M).
    pub fn m(self) -> u32 {
        match self {
            Tile::T256x256 => 256,
            Tile::T192x256 => 192,
            Tile::T128x512 => 128,
        }
    }

    /// Columns of C (along N).
    pub fn n(self) -> u32 {
        match self {
            Tile::T256x256 | Tile::T192x256 => 256,
            Tile::T128x512 => 512,
        }
    }

    /// `256x256` etc.
    pub fn name(self) -> String {
        format!("{}x{}", self.m(), self.n())
    }

    /// Parses `256x256`, `192x256` or `128x512`.
    pub fn parse(s: &str) -> Option<Tile> {
        Tile::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The kernel symbol of this tile.
    pub fn kernel_name(self) -> String {
        format!("mxfp4_gemm_{}", self.name())
    }

    /// Rows of one wave's part (the waves split the tile 2 x 2).
    pub fn wave_m(self) -> u32 {
        self.m() / 2
    }

    /// Columns of one wave's part.
    pub fn wave_n(self) -> u32 {
        self.n() / 2
    }

    /// 16-row A fragments per wave.
    pub fn frags_a(self) -> u32 {
        self.wave_m() / BLOCK
    }

    /// 16-row B fragments (16 columns of C) per wave.
    pub fn frags_b(self) -> u32 {
        self.wave_n() / BLOCK
    }

    /// MFMAs per wave per K step.
    pub fn mfmas_per_step(self) -> u32 {
        self.frags_a() * self.frags_b()
    }

    /// Workgroups of the grid for an `m` x `n` C: (x along N, y along M).
    pub fn grid(self, m: u32, n: u32) -> (u32, u32) {
        (n.div_ceil(self.n()), m.div_ceil(self.m()))
    }
}

/// The tile for an `m` x `n` C: the first of [`Tile::ALL`] that divides both (the reference's
/// rule); when none does, the one that computes the fewest padded elements
/// (`ceil(m/tm)*tm * ceil(n/tn)*tn`), ties to the earlier.
pub fn choose_tile(m: u32, n: u32) -> Tile {
    if let Some(t) = Tile::ALL.into_iter().find(|t| m.is_multiple_of(t.m()) && n.is_multiple_of(t.n())) {
        return t;
    }
    let padded = |t: Tile| u64::from(m.div_ceil(t.m()) * t.m()) * u64::from(n.div_ceil(t.n()) * t.n());
    Tile::ALL.into_iter().min_by_key(|&t| padded(t)).unwrap_or(Tile::T256x256)
}

/// Where everything lives. SGPRs (s0..s1 kernarg pointer, s2/s3 workgroup id x/y):
///
/// ```text
///   s[4:5] C  s[6:7] A  s[8:9] B  s[10:11] scale A  s[12:13] scale B  s14 M  s15 N  s16 K
///   s[20:23] A  s[24:27] B  s[28:31] scale A  s[32:35] scale B  s[36:39] C   buffer descriptors
///   s40 wave  s41 K steps  s42 step  s43 last step  s44 next step (clamped)
///   s45/s46/s47 soffset of the next step's A / B / scale loads
///   s48 first row of the wave (M)  s49 first column of the wave (N)  s50 K/2  s51 scale row stride
///   s52..s59 temporaries  s62 edge tile flag
/// ```
///
/// VGPRs: v0 work-item id, v1 lane, v2 lane%16, v3 16*(lane/16), then the load addresses
/// (A per fragment, B per fragment, scale A and B per 32-row tile), then two buffers of A and B
/// fragments (4 VGPRs each) and two of scale dwords. AGPRs: the accumulators, 4 per MFMA block.
#[derive(Debug, Clone)]
pub struct Plan {
    pub tile: Tile,
    pub mem: super::memory::Mem,
    pub fa: u32,
    pub fb: u32,
    addr_a: u32,
    addr_b: u32,
    addr_sa: u32,
    addr_sb: u32,
    lds_read: u32,
    data: u32,
    scales: u32,
    /// One past the last VGPR of the plan.
    pub vgprs: u32,
}

/// First VGPR after the fixed ones (v0..v3).
const FIRST_FREE_VGPR: u32 = 4;

impl Plan {
    pub fn new(tile: Tile, mem: super::memory::Mem) -> Plan {
        let (fa, fb) = (tile.frags_a(), tile.frags_b());
        let addr_a = FIRST_FREE_VGPR;
        let addr_b = addr_a + fa;
        let addr_sa = addr_b + fb;
        let addr_sb = addr_sa + fa / 2;
        let lds_read = addr_sb + fb / 2;
        let data = (lds_read + 1).div_ceil(4) * 4;
        let scales = data + 2 * 4 * (fa + fb);
        let vgprs = scales + 2 * (fa / 2 + fb / 2);
        Plan { tile, mem, fa, fb, addr_a, addr_b, addr_sa, addr_sb, lds_read, data, scales, vgprs }
    }

    /// Address of A fragment `i` (byte offset of the lane's 16 bytes of step 0).
    pub fn addr_a(&self, i: u32) -> Reg {
        v(self.addr_a + i)
    }
    pub fn addr_b(&self, j: u32) -> Reg {
        v(self.addr_b + j)
    }
    /// Address of the scale-A tile `t` (32 rows).
    pub fn addr_sa(&self, t: u32) -> Reg {
        v(self.addr_sa + t)
    }
    pub fn addr_sb(&self, t: u32) -> Reg {
        v(self.addr_sb + t)
    }
    /// [`super::Mem::Lds`]: the lane's LDS address of its wave's first A fragment.
    pub fn lds_read(&self) -> Reg {
        v(self.lds_read)
    }
    /// [`super::Mem::Lds`]: A loads to the LDS per wave and step (the workgroup's 16-row
    /// fragments shared out over the four waves).
    pub fn lds_loads(&self) -> u32 {
        self.tile.m() / BLOCK / WAVES
    }
    /// [`super::Mem::Lds`]: bytes of one step's A in the LDS (1 KiB a fragment).
    pub fn lds_step_bytes(&self) -> u32 {
        self.tile.m() / BLOCK * 1024
    }
    /// A fragment `i` of buffer `buf` (4 VGPRs).
    pub fn frag_a(&self, buf: u32, i: u32) -> Reg {
        let at = self.data + buf * 4 * (self.fa + self.fb) + 4 * i;
        v(at..at + 4)
    }
    pub fn frag_b(&self, buf: u32, j: u32) -> Reg {
        let at = self.data + buf * 4 * (self.fa + self.fb) + 4 * (self.fa + j);
        v(at..at + 4)
    }
    /// Scale-A dword of 32-row tile `t` in scale buffer `buf`.
    pub fn scale_a(&self, buf: u32, t: u32) -> Reg {
        v(self.scales + buf * (self.fa / 2 + self.fb / 2) + t)
    }
    pub fn scale_b(&self, buf: u32, t: u32) -> Reg {
        v(self.scales + buf * (self.fa / 2 + self.fb / 2) + self.fa / 2 + t)
    }
    /// The 4 accumulators of block (`i`, `j`).
    pub fn acc(&self, i: u32, j: u32) -> Reg {
        let at = 4 * (i * self.fb + j);
        a(at..at + 4)
    }
    /// AGPRs used.
    pub fn agprs(&self) -> u32 {
        4 * self.fa * self.fb
    }
    /// Epilogue temporaries: the data buffers are free once the loop is done.
    pub fn temp(&self, k: u32) -> Reg {
        v(self.data + k)
    }
    /// Epilogue: the packed bf16 pair `half` (0: columns 0-1, 1: 2-3) of block column `j`.
    pub fn packed(&self, j: u32, half: u32) -> Reg {
        v(self.data + 8 + 2 * j + half)
    }
}

// The SGPRs of the plan (see [`Plan`]).
pub const S_KERNARG: u32 = 0;
pub const S_WG_X: u32 = 2;
pub const S_WG_Y: u32 = 3;
pub fn s_c() -> Reg {
    s(4..6)
}
pub fn s_args() -> Reg {
    s(4..12)
}
pub fn s_args2() -> Reg {
    s(12..16)
}
pub const S_A: u32 = 6;
pub const S_B: u32 = 8;
pub const S_SA: u32 = 10;
pub const S_SB: u32 = 12;
pub const S_M: u32 = 14;
pub const S_N: u32 = 15;
pub const S_K: u32 = 16;
pub const R_A: u32 = 20;
pub const R_B: u32 = 24;
pub const R_SA: u32 = 28;
pub const R_SB: u32 = 32;
pub const R_C: u32 = 36;
pub const S_WAVE: u32 = 40;
pub const S_STEPS: u32 = 41;
pub const S_STEP: u32 = 42;
pub const S_LAST: u32 = 43;
pub const S_NEXT: u32 = 44;
pub const S_OFF_A: u32 = 45;
pub const S_OFF_B: u32 = 46;
pub const S_OFF_S: u32 = 47;
pub const S_ROW0: u32 = 48;
pub const S_COL0: u32 = 49;
pub const S_KB: u32 = 50;
pub const S_SSTRIDE: u32 = 51;
pub const S_T: u32 = 52;
pub const S_EDGE: u32 = 62;
/// [`super::Mem::Lds`]: this wave's LDS offset of its A loads (wave * 1 KiB).
pub const S_LDS_WAVE: u32 = 58;
/// A buffer descriptor (4 SGPRs from `first`).
pub fn rsrc(first: u32) -> Reg {
    s(first..first + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tile_rule() {
        assert_eq!(choose_tile(256, 256), Tile::T256x256);
        assert_eq!(choose_tile(192, 512), Tile::T192x256);
        assert_eq!(choose_tile(128, 512), Tile::T128x512);
        assert_eq!(choose_tile(384, 768), Tile::T192x256);
        // 1000 x 3000: padded 1024*3072 (256x256), 1152*3072, 1024*3072 (128x512) -> the first.
        assert_eq!(choose_tile(1000, 3000), Tile::T256x256);
        // 100 x 1000: 256*1024, 192*1024, 128*1024 -> 128x512.
        assert_eq!(choose_tile(100, 1000), Tile::T128x512);
        assert_eq!(Tile::parse("192x256"), Some(Tile::T192x256));
        assert_eq!(Tile::parse("64x64"), None);
    }

    #[test]
    fn plans_fit_the_register_files() {
        for t in Tile::ALL {
            let p = Plan::new(t, Default::default());
            assert!(p.vgprs <= 256, "{t:?}: {} VGPRs", p.vgprs);
            assert!(p.agprs() <= 256, "{t:?}: {} AGPRs", p.agprs());
            // The epilogue's temporaries and packed pairs stay inside the data buffers.
            assert!(8 + 2 * p.fb <= 2 * 4 * (p.fa + p.fb));
        }
    }
}
