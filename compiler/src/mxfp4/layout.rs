//! The pre-shuffled layouts the gfx950 GEMM kernel reads, and their inverses.
//!
//! # B data: 16-row x 32-byte tiles
//!
//! B (`rows` x `kb` bytes, `kb = K/2` a multiple of 32) is cut into tiles of 16 rows x 32 bytes,
//! tile (`r/16`, `c/32`) at byte `(r/16) * 16 * kb + (c/32) * 512`; inside a tile the two 16-byte
//! halves come one after the other, each as 16 rows of 16 bytes:
//!
//! ```text
//! index(r, c) = (r/16)*16*kb + (c/32)*512 + ((c/16)%2)*256 + (r%16)*16 + c%16
//! ```
//!
//! So the 1 KiB of one K step (128 elements = 64 bytes) of 16 rows is contiguous, and lane `l`
//! of a wave reading 16 bytes at `16*l` gets row `l%16`, bytes `16*(l/16)..` of the step: the
//! MFMA's operand layout. Rows are padded with zeros to a multiple of 16.
//!
//! # Scales: 256-byte tiles of 32 rows x 8 scale columns
//!
//! Scales (`rows` x `kc` E8M0 codes, `kc = K/32`) are cut into tiles of 32 rows x 8 columns,
//! tile (`r/32`, `c/8`) at byte `((r/32) * ceil(kc/8) + c/8) * 256`, and inside it
//!
//! ```text
//! offset(r, c) = (c%4)*64 + (r%16)*4 + ((c/4)%2)*2 + (r/16)%2
//! ```
//!
//! so the dword at `4*l` of a tile holds, for lane `l`'s row `l%16` and scale column `l/16` of a
//! K step, the scales of both 16-row halves (bit 0 of the byte index) for two consecutive K steps
//! (bit 1). Rows are padded to a multiple of 32 and columns to a multiple of 8 with the code 127
//! (1.0); the kernel never uses the padding for an element it stores.

use super::MxError;

/// Rows of a B tile.
pub const B_TILE_ROWS: usize = 16;
/// Bytes (along K) of a B tile.
pub const B_TILE_BYTES: usize = 32;
/// Rows of a scale tile.
pub const S_TILE_ROWS: usize = 32;
/// Scale columns of a scale tile.
pub const S_TILE_COLS: usize = 8;
/// The code written into padding scales (1.0).
pub const SCALE_PAD: u8 = 127;

fn round_up(x: usize, m: usize) -> usize {
    x.div_ceil(m) * m
}

/// The byte of the shuffled B holding natural byte (`r`, `c`), `kb` bytes a row.
pub fn b_index(r: usize, c: usize, kb: usize) -> usize {
    (r / 16) * 16 * kb + (c / 32) * 512 + ((c / 16) % 2) * 256 + (r % 16) * 16 + c % 16
}

/// Size of the shuffled B of `rows` rows of `kb` bytes.
pub fn b_shuffled_len(rows: usize, kb: usize) -> usize {
    round_up(rows, B_TILE_ROWS) * kb
}

/// Shuffles B data (`rows` x `kb` bytes, row-major) into 16 x 32-byte tiles.
pub fn shuffle_b(data: &[u8], rows: usize, kb: usize) -> Result<Vec<u8>, MxError> {
    if !kb.is_multiple_of(B_TILE_BYTES) || data.len() != rows * kb {
        return Err(MxError::Shape(format!(
            "B data of {} bytes as {rows} rows of {kb} bytes (a multiple of {B_TILE_BYTES})",
            data.len()
        )));
    }
    let mut out = vec![0u8; b_shuffled_len(rows, kb)];
    for r in 0..rows {
        for c in 0..kb {
            out[b_index(r, c, kb)] = data[r * kb + c];
        }
    }
    Ok(out)
}

/// The inverse of [`shuffle_b`] (padding rows dropped).
pub fn unshuffle_b(shuffled: &[u8], rows: usize, kb: usize) -> Result<Vec<u8>, MxError> {
    if !kb.is_multiple_of(B_TILE_BYTES) || shuffled.len() != b_shuffled_len(rows, kb) {
        return Err(MxError::Shape(format!("shuffled B of {} bytes for {rows} rows of {kb} bytes", shuffled.len())));
    }
    let mut out = vec![0u8; rows * kb];
    for r in 0..rows {
        for c in 0..kb {
            out[r * kb + c] = shuffled[b_index(r, c, kb)];
        }
    }
    Ok(out)
}

/// Scale tiles per row of tiles for `kc` scale columns.
pub fn scale_tiles_per_row(kc: usize) -> usize {
    kc.div_ceil(S_TILE_COLS)
}

/// The byte of the shuffled scales holding scale (`r`, `c`), `kc` scale columns.
pub fn scale_index(r: usize, c: usize, kc: usize) -> usize {
    let tile = (r / 32) * scale_tiles_per_row(kc) + c / 8;
    (tile << 8) | (c % 4) << 6 | (r % 16) << 2 | ((c / 4) % 2) << 1 | ((r / 16) % 2)
}

/// Size of the shuffled scales of `rows` x `kc`.
pub fn scales_shuffled_len(rows: usize, kc: usize) -> usize {
    round_up(rows, S_TILE_ROWS) * scale_tiles_per_row(kc) * S_TILE_COLS
}

/// Shuffles E8M0 scales (`rows` x `kc`, row-major) into 32 x 8 tiles.
pub fn shuffle_scales(scales: &[u8], rows: usize, kc: usize) -> Result<Vec<u8>, MxError> {
    if scales.len() != rows * kc {
        return Err(MxError::Shape(format!("{} scale bytes as {rows} x {kc}", scales.len())));
    }
    let mut out = vec![SCALE_PAD; scales_shuffled_len(rows, kc)];
    for r in 0..rows {
        for c in 0..kc {
            out[scale_index(r, c, kc)] = scales[r * kc + c];
        }
    }
    Ok(out)
}

/// The inverse of [`shuffle_scales`] (padding dropped).
pub fn unshuffle_scales(shuffled: &[u8], rows: usize, kc: usize) -> Result<Vec<u8>, MxError> {
    if shuffled.len() != scales_shuffled_len(rows, kc) {
        return Err(MxError::Shape(format!("shuffled scales of {} bytes for {rows} x {kc}", shuffled.len())));
    }
    let mut out = vec![0u8; rows * kc];
    for r in 0..rows {
        for c in 0..kc {
            out[r * kc + c] = shuffled[scale_index(r, c, kc)];
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize, seed: u64) -> Vec<u8> {
        (0..n as u64).map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed) >> 7) as u8).collect()
    }

    #[test]
    fn b_shuffle_is_a_bijection_and_inverts() {
        for (rows, kb) in [(16, 32), (48, 64), (21, 96), (1, 32)] {
            let d = bytes(rows * kb, rows as u64);
            let s = shuffle_b(&d, rows, kb).unwrap();
            assert_eq!(s.len(), rows.div_ceil(16) * 16 * kb);
            assert_eq!(unshuffle_b(&s, rows, kb).unwrap(), d);
            let mut seen = vec![false; s.len()];
            for r in 0..rows {
                for c in 0..kb {
                    let i = b_index(r, c, kb);
                    assert!(!seen[i], "({r},{c}) collides");
                    seen[i] = true;
                }
            }
        }
        assert!(shuffle_b(&[0; 16 * 48], 16, 48).is_err());
    }

    #[test]
    fn one_k_step_of_16_rows_is_the_mfma_lane_order() {
        // Lane l's 16 bytes at 16*l of step s: row l%16, bytes 64*s + 16*(l/16) ...
        let kb = 128;
        for s in 0..2 {
            for l in 0..64 {
                for j in 0..16 {
                    let (r, c) = (l % 16, 64 * s + 16 * (l / 16) + j);
                    assert_eq!(b_index(r, c, kb), 1024 * s + 16 * l + j);
                }
            }
        }
    }

    #[test]
    fn scale_shuffle_matches_the_tile_rule_and_inverts() {
        // The rule of the reference layout, tile (r/32, c/8) in a grid of kc/8 tiles a row.
        let (rows, kc) = (64, 16);
        for r in 0..rows {
            for c in 0..kc {
                let tile = ((r >> 5) * (kc >> 3) + (c >> 3)) << 8;
                let off = ((c & 3) << 6) + ((r & 15) << 2) + (((c >> 2) & 1) << 1) + ((r >> 4) & 1);
                assert_eq!(scale_index(r, c, kc), tile + off);
            }
        }
        for (rows, kc) in [(32, 8), (40, 4), (33, 12), (1, 4)] {
            let d = bytes(rows * kc, kc as u64);
            let s = shuffle_scales(&d, rows, kc).unwrap();
            assert_eq!(unshuffle_scales(&s, rows, kc).unwrap(), d);
            assert_eq!(s.len(), rows.div_ceil(32) * 32 * kc.div_ceil(8) * 8);
        }
    }

    #[test]
    fn a_lane_dword_holds_both_halves_of_two_steps() {
        // Dword 4*l of tile (t, p): lane row l%16, column l/16 of K step 2p (bit 1 = 0) and 2p+1.
        let kc = 16;
        for l in 0..64 {
            for half in 0..2 {
                for odd in 0..2 {
                    let (r, c) = (16 * half + l % 16, 8 + 4 * odd + l / 16);
                    assert_eq!(scale_index(r, c, kc), 256 + 4 * l + 2 * odd + half);
                }
            }
        }
    }
}
