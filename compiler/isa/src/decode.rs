//! Bytes -> typed instructions, driven by the tables' fixed bits.
//!
//! [`Decoder`] holds the architecture's `&'static` [`Tables`] so that a loop over many
//! instructions looks them up once; [`decode_at`] is the one-shot form. Decoding allocates
//! nothing.

use crate::error::{IsaError, Result};
use crate::inst::{get, Instruction};
use crate::tables::Tables;
use crate::Arch;

#[inline(always)]
fn dword(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at.checked_add(4)?).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[inline(always)]
fn bits(words: &[u32; 4], lo: u16, hi: u16) -> u32 {
    get(words, &baregpu_autogen::isa::Field { name: "", lo, hi })
}

/// A decoder for one architecture: a handle on its lookup tables.
#[derive(Clone, Copy)]
pub struct Decoder {
    t: &'static Tables,
}

impl std::fmt::Debug for Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decoder").field("arch", &self.t.arch).finish()
    }
}

impl Decoder {
    pub fn new(arch: Arch) -> Decoder {
        Decoder { t: Tables::get(arch) }
    }

    pub fn arch(&self) -> Arch {
        self.t.arch
    }

    pub fn tables(&self) -> &'static Tables {
        self.t
    }

    /// Decodes one instruction at `offset` of `bytes`.
    #[inline]
    pub fn decode_at(&self, bytes: &[u8], offset: usize) -> Result<Instruction> {
        let t = self.t;
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

    /// Decodes one instruction at the start of `bytes`.
    pub fn decode(&self, bytes: &[u8]) -> Result<Instruction> {
        self.decode_at(bytes, 0)
    }

    /// Decodes a whole stream; the error names the byte offset where decoding stopped.
    pub fn decode_all(&self, bytes: &[u8]) -> Result<Vec<(usize, Instruction)>> {
        let mut out = Vec::with_capacity(bytes.len() / 6);
        let mut at = 0;
        while at < bytes.len() {
            let i = self.decode_at(bytes, at)?;
            out.push((at, i));
            at += i.size();
        }
        Ok(out)
    }
}

/// Decodes one instruction at `offset` of `bytes`.
pub fn decode_at(arch: Arch, bytes: &[u8], offset: usize) -> Result<Instruction> {
    Decoder::new(arch).decode_at(bytes, offset)
}

/// Decodes one instruction at the start of `bytes`.
pub fn decode(arch: Arch, bytes: &[u8]) -> Result<Instruction> {
    decode_at(arch, bytes, 0)
}

/// Decodes a whole stream; the error names the byte offset where decoding stopped.
pub fn decode_all(arch: Arch, bytes: &[u8]) -> Result<Vec<(usize, Instruction)>> {
    Decoder::new(arch).decode_all(bytes)
}
