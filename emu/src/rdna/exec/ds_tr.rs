//! gfx950's transposing LDS reads (`ds_read_b64_tr_b{4,8,16}`, `ds_read_b96_tr_b6`): each
//! lane reads 8 (12) bytes at its address; in each block of 16 lanes the 16 × E elements read
//! (E = 64/b or 96/6; lane-major, element e at bits [e·b, e·b + b) of the lane's data) are
//! taken as E rows of 16, and lane r receives column r: its element j is the block's
//! element 16·j + r. So tr_b4 and tr_b6 are a plain 16 × 16 transpose (lane r gets element
//! r of every lane), tr_b8 two interleaved 8 × 8 ones (even and odd lanes), tr_b16 gives
//! lane 4a + b element b of lanes a, a + 4, a + 8, a + 12.
//!
//! Sources (docs/cdna-narrow-formats.md, "Transposing LDS reads"): Triton's lowering of dot operands
//! to `ds_read_tr` on gfx950 (chooseDsReadB64TrLayout, its LinearLayoutConversions test
//! mfma16_dot_op_lhs_trans: lane bits 0–1 step M by 4, bits 2–3 step K; 16 lanes share the
//! shuffle), Modular's ds_read_tr8_b64 ("two interleaved 8x8 byte transposes" per 16-lane
//! row) and the CDNA4 ISA guide §11.4 (each lane ends with consecutive K of one M).
//! Inactive lanes read nothing (their elements count as 0) and are not written.

use super::*;

impl<const W: usize> Wave<W> {
    pub(super) fn ds_transpose(&mut self, vdst: usize, raw: &[[u8; 12]], bytes: u8, bits: u8, exec: u64) {
        let bits = bits as u32;
        let per = bytes as u32 * 8 / bits;
        let lane = |l: usize| -> u128 {
            let mut w = [0u8; 16];
            w[..12].copy_from_slice(&raw[l]);
            u128::from_le_bytes(w)
        };
        let mask = (1u128 << bits) - 1;
        for block in (0..W).step_by(16) {
            let data: Vec<u128> = (block..block + 16).map(lane).collect();
            for r in 0..16 {
                let l = block + r;
                if exec >> l & 1 == 0 {
                    continue;
                }
                let mut out = 0u128;
                for j in 0..per {
                    let flat = 16 * j + r as u32;
                    let (src, e) = ((flat / per) as usize, flat % per);
                    out |= (data[src] >> (e * bits) & mask) << (j * bits);
                }
                for k in 0..bytes as usize / 4 {
                    self.v[vdst + k][l] = (out >> (32 * k)) as u32;
                }
            }
        }
    }
}
