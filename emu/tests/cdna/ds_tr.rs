//! gfx950's transposing LDS reads on the CDNA wave interpreter. The property they exist for
//! (CDNA4 ISA guide §11.4: an M-contiguous, "column major" A operand read so that each lane
//! holds consecutive K of one M; Triton's gfx950 lowering reads it with lane L at byte 8·L
//! of a 16-row tile): 16 lanes reading a column-major 16 × E tile (element (m, k) at index
//! 16·k + m) chunk after chunk end with lane m holding row m, k = 0..E. Every element's
//! value encodes (tile, m, k), and each 16-lane block reads another tile, so a wrong lane,
//! element or block shows.

use crate::asm::run;

/// The element (m, k) of tile `t`, `bits` wide: distinct per (m, k) where the bits allow.
fn value(t: u32, m: u32, k: u32, bits: u32) -> u32 {
    let v = match bits {
        16 => t << 8 | k << 4 | m,
        8 => (t & 1) << 7 | k << 4 | m,
        _ => m * 5 + k * 11 + t * 13 + m * k,
    };
    v & ((1 << bits) - 1)
}

fn check(op: &str, bits: u32, chunk: u32) {
    let per = chunk * 8 / bits;
    let tile = 16 * chunk;
    // The LDS image: 4 tiles, column-major, elements packed little-endian.
    let mut lds = vec![0u8; 4 * tile as usize];
    for t in 0..4 {
        for k in 0..per {
            for m in 0..16 {
                let bit = (t * tile * 8 + (16 * k + m) * bits) as usize;
                let v = value(t, m, k, bits) as u64;
                for b in 0..bits as usize {
                    lds[(bit + b) / 8] |= ((v >> b & 1) as u8) << ((bit + b) % 8);
                }
            }
        }
    }
    let mut buf: Vec<u32> = lds.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    buf.resize(1024 + 64 * 4, 0);
    let regs = chunk / 4;
    let last = 8 + regs - 1;
    // Lane l writes LDS dwords 3l..3l+2 (all 768 bytes), then reads tile 3 - l/16 at chunk
    // l%16 (the address 64 below, the offset field adding it back).
    let src = format!(
        "v_mul_u32_u24 v1, 12, v0\nglobal_load_dwordx3 v[4:6], v1, s[0:1]\ns_waitcnt vmcnt(0)\n\
         ds_write_b96 v1, v[4:6]\ns_waitcnt lgkmcnt(0)\ns_barrier\n\
         v_lshrrev_b32 v2, 4, v0\nv_sub_u32 v2, 3, v2\nv_mul_u32_u24 v2, {tile}, v2\n\
         v_and_b32 v3, 15, v0\nv_mad_u32_u24 v2, {chunk}, v3, v2\nv_subrev_u32 v2, 64, v2\n\
         {op} v[8:{last}], v2 offset:64\ns_waitcnt lgkmcnt(0)\n\
         v_lshlrev_b32 v7, 4, v0\nv_add_u32 v7, 4096, v7\n\
         global_store_dwordx{regs} v7, v[8:{last}], s[0:1]\ns_endpgm\n"
    );
    run("gfx950", &src, &mut buf, 1024);
    for l in 0..64u32 {
        let (t, m) = (3 - l / 16, l % 16);
        let base = (1024 + 4 * l) as usize;
        let got = buf[base] as u128 | (buf[base + 1] as u128) << 32 | (buf[base + 2] as u128) << 64;
        for k in 0..per {
            let e = (got >> (k * bits)) as u32 & ((1 << bits) - 1);
            assert_eq!(e, value(t, m, k, bits), "{op}: lane {l} element {k}");
        }
    }
}

#[test]
fn ds_read_tr_gives_each_lane_a_row_of_a_column_major_tile() {
    check("ds_read_b64_tr_b16", 16, 8);
    check("ds_read_b64_tr_b8", 8, 8);
    check("ds_read_b64_tr_b4", 4, 8);
    check("ds_read_b96_tr_b6", 6, 12);
}
