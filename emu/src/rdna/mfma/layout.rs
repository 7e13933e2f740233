//! Where each matrix element of an MFMA lives in the wave's registers: the one definition of
//! the layouts, used by the execution and by the tests. docs/cdna-mfma.md explains them and
//! names the sources (AMD's Matrix Instruction Calculator for CDNA3, checked element by
//! element in the tests; AMD's CDNA4 matrix-core blog for the gfx950 f8f6f4 forms).

/// The operand geometry of one MFMA: `blocks` independent products of an M×K A by a K×M B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geom {
    pub m: u8,
    /// K as the registers hold it (for sparse A: the compressed K, half the logical one).
    pub k: u8,
    pub blocks: u8,
    /// Bits of one element.
    pub bits: u32,
}

impl Geom {
    /// Lane groups that split K (64 lanes over M rows and the blocks).
    fn groups(self) -> usize {
        (64 / (self.m as usize * self.blocks as usize)).max(1)
    }

    /// Elements each lane holds.
    pub fn per_lane(self) -> usize {
        self.k as usize / self.groups()
    }

    /// 32-bit registers each lane's elements fill.
    pub fn regs(self) -> usize {
        (self.per_lane() * self.bits as usize).div_ceil(32)
    }

    /// Where A[b][i][k] (and B[b][k][i]) lives: (lane, element index within the lane's
    /// registers, element e at bits e·bits upwards). A lane holds K in chunks of at most 128
    /// bits (16 FP8 elements): chunk c of the lane group g covers K from c·G·E + g·E, E elements
    /// long. Every CDNA3 form fits one chunk; gfx950's FP8 f8f6f4 operands take two (FP6, which
    /// 128 bits do not divide, is taken as one chunk of 32).
    pub fn slot(self, b: usize, i: usize, k: usize) -> (usize, usize) {
        let (g, p) = (self.groups(), self.per_lane());
        let e = if 128 % self.bits == 0 { p.min(128 / self.bits as usize) } else { p };
        let (chunk, r) = (k / (g * e), k % (g * e));
        let m = self.m as usize;
        (i + m * b + m * self.blocks as usize * (r / e), chunk * e + r % e)
    }
}

/// Where D[b][i][j] (and C) of an f32/i32 result lives: (lane, register).
pub fn d_slot_blocks(m: u8, b: usize, i: usize, j: usize) -> (usize, usize) {
    let (lane, reg) = d_slot(m, i, j);
    let per_block = m as usize * m as usize / 64;
    if per_block == 0 {
        // 4×4: the 16 blocks share the registers, block b in lanes 4b..4b+3.
        (lane + m as usize * b, reg)
    } else {
        (lane, reg + per_block * b)
    }
}

/// Where D[i][j] (and C) of one f32/i32 block lives: (lane, register).
pub fn d_slot(m: u8, row: usize, col: usize) -> (usize, usize) {
    let groups = 64 / m as usize;
    let (g, r) = ((row % (4 * groups)) / 4, (row / (4 * groups)) * 4 + row % 4);
    (col + m as usize * g, r)
}

/// Where D[b][i][j] (and C) of an f64 result lives: (lane, first register of the pair).
pub fn d_slot_f64(m: u8, b: usize, i: usize, j: usize) -> (usize, usize) {
    (j + m as usize * b + 16 * (i % 4), 2 * (i / 4))
}

/// The lane B's logical lane `l` reads under BLGP (CDNA3 ISA §7.1, the MFMA broadcast
/// controls; the Matrix Instruction Calculator's `--blgp`).
pub fn blgp_lane(blgp: u32, l: usize) -> usize {
    match blgp {
        1 => l % 32,
        2 => l % 32 + 32,
        3 => (l + 16) % 64,
        4..=7 => l % 16 + 16 * (blgp as usize - 4),
        _ => l,
    }
}

/// The block whose A block `b` reads under CBSZ/ABID: blocks in groups of 2^CBSZ all read
/// block ABID of their group.
pub fn cbsz_block(cbsz: u32, abid: u32, b: usize) -> usize {
    if cbsz == 0 {
        b
    } else {
        (b >> cbsz << cbsz) + abid as usize
    }
}
