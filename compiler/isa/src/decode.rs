//! Bytes -> typed instructions, driven by the tables' fixed bits.

use baregpu_autogen::isa::FLAG_LITERAL;

use crate::error::{IsaError, Result};
use crate::inst::{get, Instruction};
use crate::tables::Tables;
use crate::Arch;

fn dword(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Decodes one instruction at `offset` of `bytes`.
pub fn decode_at(arch: Arch, bytes: &[u8], offset: usize) -> Result<Instruction> {
    let t = Tables::get(arch);
    let have = bytes.len().saturating_sub(offset);
    let d0 = dword(bytes, offset).ok_or(IsaError::Truncated { offset, need: 4, have })?;
    let enc = t.encoding(d0).ok_or(IsaError::UnknownEncoding { offset, dword: d0 })?;
    let ef = t.format(enc);
    let need = ef.bits as usize / 8;
    let mut words = [0u32; 4];
    words[0] = d0;
    // Read as many dwords as the longest reading might need; check the length later.
    for (i, w) in words.iter_mut().enumerate().skip(1) {
        *w = dword(bytes, offset + i * 4).unwrap_or(0);
    }
    if have < need {
        return Err(IsaError::Truncated { offset, need, have });
    }
    let (lo, hi) = ef.opcode.unwrap_or((0, 0));
    let opv = if ef.opcode.is_some() { get(&words, &baregpu_autogen::isa::Field { name: "op", lo, hi }) } else { 0 };
    let op = t.opcode(enc, opv).ok_or(IsaError::UnknownOpcode { offset, format: ef.name, opcode: opv, dword: d0 })?;
    let mut fmt = t.layout[op as usize];
    // DPP / SDWA modifiers of the encoding.
    for &m in &t.mods[enc as usize] {
        let mf = t.format(m);
        if mf.select.iter().all(|&(l, h, v)| get(&words, &baregpu_autogen::isa::Field { name: "", lo: l, hi: h }) == v)
        {
            fmt = m;
            break;
        }
    }
    let f = t.format(fmt);
    let mut ndw = f.bits as usize / 32;
    // gfx950 VOP3PX2 and similar: layouts longer than their encoding.
    ndw = ndw.max(need / 4);
    let mut op_y = None;
    if f.name == "VOPD" {
        let y = t.format_index("VOPD_Y").and_then(|yi| t.opcode(yi, (d0 >> 17) & 0x1f));
        op_y = y;
    }
    let mut literal = None;
    let opc = t.op(op);
    let mut has_lit = opc.flags & FLAG_LITERAL != 0;
    if !has_lit && f.role != baregpu_autogen::isa::FormatRole::Modifier {
        has_lit = t.lit_fields[op as usize].iter().any(|fl| get(&words, fl) == 255);
    }
    if !has_lit {
        if let Some(y) = op_y {
            has_lit = t.op(y).flags & FLAG_LITERAL != 0;
        }
    }
    let total = ndw * 4 + if has_lit { 4 } else { 0 };
    if have < total {
        return Err(IsaError::Truncated { offset, need: total, have });
    }
    for w in words.iter_mut().skip(ndw) {
        *w = 0;
    }
    if has_lit {
        literal = dword(bytes, offset + ndw * 4);
    }
    Ok(Instruction { arch, op, fmt, op_y, words, ndwords: ndw as u8, literal })
}

/// Decodes one instruction at the start of `bytes`.
pub fn decode(arch: Arch, bytes: &[u8]) -> Result<Instruction> {
    decode_at(arch, bytes, 0)
}

/// Decodes a whole stream; the error names the byte offset where decoding stopped.
pub fn decode_all(arch: Arch, bytes: &[u8]) -> Result<Vec<(usize, Instruction)>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let i = decode_at(arch, bytes, at)?;
        out.push((at, i));
        at += i.size();
    }
    Ok(out)
}
