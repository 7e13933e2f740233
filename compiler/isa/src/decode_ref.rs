//! The scanning decoder: every question answered by a scan of the generic tables (nested
//! layouts such as gfx950's VOP3PX2 and per-layout modifier forms included). The tests hold the
//! fast decoder to its answers, errors included.

use crate::error::{IsaError, Result};
use crate::inst::{get, Instruction};
use crate::tables::Tables;

fn dword(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at.checked_add(4)?).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn bits(words: &[u32; 4], lo: u16, hi: u16) -> u32 {
    get(words, &baregpu_autogen::isa::Field { name: "", lo, hi })
}

/// Decodes one instruction at `offset` of `bytes` by scanning the tables.
pub(crate) fn decode_at(t: &Tables, bytes: &[u8], offset: usize) -> Result<Instruction> {
    let have = bytes.len().saturating_sub(offset);
    let d0 = dword(bytes, offset).ok_or(IsaError::Truncated { offset, need: 4, have })?;
    let enc = t.encoding(d0).ok_or(IsaError::UnknownEncoding { offset, dword: d0 })?;
    let info = &t.finfo[enc as usize];
    let need = info.bytes as usize;
    if have < need {
        return Err(IsaError::Truncated { offset, need, have });
    }
    let mut words = [d0, 0, 0, 0];
    // Read as many dwords as the longest reading might need (what is there); the length is
    // checked once the layout is known.
    if let Some(rest) = bytes.get(offset + 4..) {
        let mut k = 1;
        while k < 4 && rest.len() >= k * 4 {
            let b = &rest[(k - 1) * 4..k * 4];
            words[k] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            k += 1;
        }
    }
    let opv = match info.opcode {
        Some((lo, hi)) => bits(&words, lo, hi),
        None => 0,
    };
    // A nested layout (gfx950 VOP3PX2) takes precedence over its encoding's own opcode.
    let nested = if t.nested[enc as usize].is_empty() { None } else { t.nested_opcode(enc, &words) };
    let (op, mut fmt) = match nested {
        Some(x) => x,
        None => {
            let op = t.opcode(enc, opv).ok_or_else(|| IsaError::UnknownOpcode {
                offset,
                format: t.format(enc).name,
                opcode: opv,
                dword: d0,
            })?;
            (op, t.layout[op as usize])
        }
    };
    // DPP / SDWA modifiers of the opcode's layout (VOP3SD has DPP forms of its own).
    for &m in &t.mods[fmt as usize] {
        let sel = t.format(m).select;
        let mut all = true;
        for &(l, h, v) in sel {
            all &= bits(&words, l, h) == v;
        }
        if all {
            fmt = m;
            break;
        }
    }
    let finfo = &t.finfo[fmt as usize];
    // gfx950 VOP3PX2 and similar: layouts longer than their encoding.
    let ndw = (finfo.bytes as usize).max(need) / 4;
    let mut op_y = None;
    if finfo.vopd {
        op_y = t.vopd_y.and_then(|yi| t.opcode(yi, (d0 >> 17) & 0x1f));
    }
    let mut has_lit = t.op_literal[op as usize];
    if !has_lit && !finfo.modifier {
        for &(lo, hi) in t.lit_src[op as usize].iter() {
            has_lit |= bits(&words, lo, hi) == 255;
        }
    }
    if !has_lit {
        if let Some(y) = op_y {
            has_lit = t.op_literal[y as usize];
        }
    }
    let total = ndw * 4 + if has_lit { 4 } else { 0 };
    if have < total {
        return Err(IsaError::Truncated { offset, need: total, have });
    }
    for w in words.iter_mut().skip(ndw) {
        *w = 0;
    }
    let literal = if has_lit { dword(bytes, offset + ndw * 4) } else { None };
    Ok(Instruction { arch: t.arch, op, fmt, op_y, words, ndwords: ndw as u8, literal })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode_with;
    use crate::decode_lut::DecodeLut;
    use crate::{Arch, Decoder};
    use std::sync::OnceLock;

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    fn golden_bytes(arch: Arch) -> Vec<Vec<u8>> {
        crate::golden_vectors::golden(arch).into_iter().map(|(_, b)| b).collect()
    }

    /// The flat tables of every architecture with every fallback forced.
    fn forced(arch: Arch) -> &'static DecodeLut {
        static F: [OnceLock<DecodeLut>; 4] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        F[arch as usize].get_or_init(|| {
            let mut l = DecodeLut::build(Tables::get(arch));
            l.force_scans();
            l
        })
    }

    /// The decoder, and the decoder through its fallbacks, against the reference.
    fn same(d: &Decoder, bytes: &[u8], offset: usize) {
        let t = d.tables();
        let want = decode_at(t, bytes, offset);
        assert_eq!(d.decode_at(bytes, offset), want, "{} {:02x?} at {offset}", d.arch().name(), bytes);
        let scans = decode_with(t, forced(d.arch()), bytes, offset);
        assert_eq!(scans, want, "{} {:02x?} at {offset}, fallbacks", d.arch().name(), bytes);
    }

    #[test]
    fn golden_vectors_decode_as_before() {
        for arch in Arch::ALL {
            let d = Decoder::new(arch);
            let all = golden_bytes(arch);
            assert!(all.len() > 1000, "{}: {} vectors", arch.name(), all.len());
            let mut stream = Vec::new();
            for b in &all {
                // Alone, cut short at every length, and followed by the next vector's bytes.
                for n in 0..=b.len() {
                    same(&d, &b[..n], 0);
                }
                stream.extend_from_slice(b);
            }
            for at in (0..stream.len()).step_by(4) {
                same(&d, &stream, at);
            }
            // Unaligned offsets and past the end.
            for at in (1..stream.len() + 8).step_by(97) {
                same(&d, &stream, at);
            }
        }
    }

    /// Golden vectors with their literal-capable source fields and modifier selects rewritten to the
    /// values that change the reading (255: a literal follows; DPP16, DPP8 and SDWA selectors).
    #[test]
    fn rewritten_fields_decode_as_before() {
        let specials = [0xff, 0xfa, 0xe9, 0xea, 0xf9, 0x1ff, 0x7f, 0];
        let mut x = 0x5555_1234_aaaa_4321u64;
        for arch in Arch::ALL {
            let d = Decoder::new(arch);
            let t = d.tables();
            for v in golden_bytes(arch) {
                let Ok(i) = decode_at(t, &v, 0) else { continue };
                let Some(enc) = t.encoding(i.words[0]) else { continue };
                let mut fields: Vec<(u16, u16)> = t.lit_src[i.op as usize].to_vec();
                for &m in &t.mods[enc as usize] {
                    fields.extend(t.format(m).select.iter().map(|&(l, h, _)| (l, h)));
                }
                for _ in 0..40 {
                    let mut words = [0u32; 4];
                    for (k, c) in v.chunks(4).take(4).enumerate() {
                        words[k] = dword(c, 0).unwrap_or(0);
                    }
                    for _ in 0..2 {
                        let (lo, hi) = fields[xorshift(&mut x) as usize % fields.len().max(1)..]
                            .first()
                            .copied()
                            .unwrap_or((0, 8));
                        let val = specials[xorshift(&mut x) as usize % specials.len()] & ((1u32 << (hi - lo + 1)) - 1);
                        crate::inst::set(&mut words, &baregpu_autogen::isa::Field { name: "", lo, hi }, val);
                    }
                    let mut b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                    b.extend_from_slice(&xorshift(&mut x).to_le_bytes());
                    let n = (xorshift(&mut x) as usize % 8) * 4 + 4;
                    same(&d, &b, 0);
                    same(&d, &b[..n.min(b.len())], 0);
                }
            }
        }
    }

    #[test]
    fn random_bytes_decode_as_before() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for arch in Arch::ALL {
            let d = Decoder::new(arch);
            let t = d.tables();
            let mut buf = [0u8; 24];
            for i in 0..300_000 {
                for c in buf.chunks_mut(8) {
                    c.copy_from_slice(&xorshift(&mut x).to_le_bytes());
                }
                // Steer some first dwords to known encodings, and src0 fields to literal/DPP/SDWA values.
                if i % 2 == 0 {
                    let alts = t.bucket((buf[3] as u32) << 1 | (buf[2] as u32) >> 7);
                    if let Some(&(m, v, _)) = alts.first() {
                        let d0 = u32::from_le_bytes(buf[..4].try_into().unwrap()) & !m | v;
                        buf[..4].copy_from_slice(&d0.to_le_bytes());
                    }
                }
                if i % 3 == 0 {
                    let special = [0xff, 0xfa, 0xe9, 0xea, 0xf9][(x % 5) as usize];
                    let at = [0, 4, 8][(x >> 8) as usize % 3];
                    buf[at] = special;
                    buf[at + 1] &= 0xfe;
                }
                let n = (x >> 16) as usize % (buf.len() + 1);
                same(&d, &buf[..n], 0);
                same(&d, &buf, (x >> 24) as usize % 8);
            }
        }
    }
}
