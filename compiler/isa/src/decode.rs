//! Bytes -> typed instructions, driven by the tables' fixed bits.
//!
//! [`Decoder`] holds the architecture's `&'static` [`Tables`] so that a loop over many
//! instructions looks them up once; [`decode_at`] is the one-shot form. Decoding allocates
//! nothing.

use crate::decode_lut::{DecodeLut, EncLut, Form, Key, OpEntry};
use crate::error::{IsaError, Result};
use crate::inst::Instruction;
use crate::tables::Tables;
use crate::Arch;

#[inline(always)]
fn dword(bytes: &[u8], at: usize) -> Option<u32> {
    bytes.get(at..at.checked_add(4)?).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The first four dwords at `offset` as one little-endian `u128`; only whole dwords that are
/// there are read, the rest is zero.
#[inline(always)]
fn read128(bytes: &[u8], offset: usize, have: usize) -> u128 {
    if have >= 16 {
        let b: &[u8; 16] = bytes[offset..offset + 16].try_into().expect("16 bytes");
        return u128::from_le_bytes(*b);
    }
    let mut w = 0u128;
    for k in 0..have / 4 {
        w |= (dword(bytes, offset + k * 4).unwrap_or(0) as u128) << (32 * k);
    }
    w
}

/// Masks of the low `n` dwords of 128 bits, indexed by `n & 7` (no format has more than 4:
/// `DecodeLut::check_bounds`).
const LOW_DWORDS: [u128; 8] =
    [0, u32::MAX as u128, u64::MAX as u128, (1 << 96) - 1, u128::MAX, u128::MAX, u128::MAX, u128::MAX];

#[inline(always)]
fn to_words(w: u128) -> [u32; 4] {
    [w as u32, (w >> 32) as u32, (w >> 64) as u32, (w >> 96) as u32]
}

#[cold]
fn truncated(offset: usize, need: usize, have: usize) -> IsaError {
    IsaError::Truncated { offset, need, have }
}

#[cold]
fn unknown_encoding(offset: usize, dword: u32) -> IsaError {
    IsaError::UnknownEncoding { offset, dword }
}

#[cold]
fn unknown_opcode(t: &Tables, offset: usize, enc: u16, opcode: u32, dword: u32) -> IsaError {
    IsaError::UnknownOpcode { offset, format: t.format(enc).name, opcode, dword }
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
    #[inline]
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
    #[inline(always)]
    pub fn decode_at(&self, bytes: &[u8], offset: usize) -> Result<Instruction> {
        decode_with(self.t, &self.t.lut, bytes, offset)
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

/// Decodes one instruction at `offset` of `bytes` with the flat tables `lut` (the tables'
/// own, or in the tests one with every fallback forced).
///
/// The answers are those of the generic tables' scans (`decode_ref` in the tests), read from
/// the flat tables of [`crate::decode_lut`] with the instruction's first 128 bits as one `u128`.
///
/// Decoding a stream is a chain: the next offset waits on this instruction's length. The rare
/// cases (a modifier, a literal, VOPD, the scans) are branches, which the CPU predicts, rather
/// than selects: a select puts its tests on that chain, and in this form measured slower by the
/// clock even with fewer instructions.
#[inline(always)]
pub(crate) fn decode_with(t: &Tables, lut: &DecodeLut, bytes: &[u8], offset: usize) -> Result<Instruction> {
    // The common case: 16 bytes there (no encoding is longer) and a key that holds its
    // encoding. The first dword is the low bits of the one read: one bounds test for both.
    // Both paths end in the parts, built into the value once: built on each path, the value
    // went through memory where they join, and the next offset waited on that.
    let head = bytes.get(offset..).and_then(|b| b.first_chunk::<16>()).map(|b| u128::from_le_bytes(*b));
    let p = match head.map(|w| (w, lut.key_of(w as u32))) {
        Some((w, k)) if k.kind == Key::FAST => {
            let (op, form, op_y, has_lit) = reading(t, lut.enc_of(k), w, lut.fast_entry(k, w).1, offset)?;
            // No reading is longer than the 16 bytes there (`DecodeLut::build`): only a
            // literal can be missing. A branch on it: taken or not, the next offset is then a
            // constant step from this one's on each path.
            let literal = match has_lit {
                true => Some(literal_at(bytes, offset, form.ndw())?),
                false => None,
            };
            Parts { op, form, op_y, w, literal }
        }
        _ => decode_short(t, lut, bytes, offset)?,
    };
    Ok(p.instruction(t))
}

/// The literal dword after an instruction of `ndw` dwords at `offset`.
#[inline(always)]
fn literal_at(bytes: &[u8], offset: usize, ndw: usize) -> Result<u32> {
    match dword(bytes, offset + ndw * 4) {
        Some(l) => Ok(l),
        None => Err(truncated_literal(bytes.len(), offset, ndw)),
    }
}

/// The error for a missing literal, with the bytes left worked out here: worked out in line, it
/// was kept (and spilled) on the path that does not fail.
#[cold]
#[inline(never)]
fn truncated_literal(len: usize, offset: usize, ndw: usize) -> IsaError {
    truncated(offset, ndw * 4 + 4, len.saturating_sub(offset))
}

/// What a decoded value is built from.
struct Parts {
    op: u32,
    form: Form,
    op_y: Option<u32>,
    /// The first 128 bits read, the next instruction's perhaps among them.
    w: u128,
    literal: Option<u32>,
}

impl Parts {
    /// The decoded value; only the instruction's own dwords of `w` are kept (what was read
    /// past them belongs to the next one).
    #[inline(always)]
    fn instruction(self, t: &Tables) -> Instruction {
        let ndw = self.form.ndw();
        // The words as the bytes' four little-endian quarters: one 16-byte value to store
        // (built from shifts, the compiler paired its halves with the next fields).
        let b = (self.w & LOW_DWORDS[ndw & 7]).to_le_bytes();
        let words = std::array::from_fn(|k| u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]));
        let (op, fmt, op_y, literal) = (self.op, self.form.fmt(), self.op_y, self.literal);
        Instruction { arch: t.arch, op, fmt, op_y, words, ndwords: ndw as u8, literal }
    }
}

/// The opcode, reading, Y opcode (VOPD) and whether a literal follows, of the instruction's
/// bits `w` in encoding `e` with opcode entry `o`.
#[inline(always)]
fn reading(t: &Tables, e: &EncLut, w: u128, o: OpEntry, offset: usize) -> Result<(u32, Form, Option<u32>, bool)> {
    // One test for the rare entries: an opcode the table lacks, or one the flat tables do not
    // hold (the generic tables' scans answer).
    let (op, form, mut has_lit) = match o.form.plain() {
        true => {
            // The modifier (DPP16, DPP8, SDWA) the select field names, else the layout. A
            // modifier's src0 holds its selector: no literal is looked for there.
            let (is_mod, i) = e.sel.hit(w);
            let mut form = o.form;
            // A branch (predicted), not a select: the length then does not wait on the tests.
            if is_mod {
                form = e.sel.forms[i];
            }
            let src_lit = o.any_255(w) & !is_mod;
            (o.op as u32, form, o.form.has(Form::LITERAL) | src_lit)
        }
        false => rare(t, e, w, (o.op, o.form), offset, w as u32)?,
    };
    let mut op_y = None;
    if form.has(Form::VOPD) {
        op_y = t.vopd_y.and_then(|yi| t.opcode(yi, (w as u32 >> 17) & 0x1f));
        has_lit |= matches!(op_y, Some(y) if t.op_literal[y as usize]);
    }
    Ok((op, form, op_y, has_lit))
}

/// [`decode_with`] where fewer than 16 bytes are left or the key does not hold the encoding:
/// every length is checked.
#[cold]
#[inline(never)]
fn decode_short(t: &Tables, lut: &DecodeLut, bytes: &[u8], offset: usize) -> Result<Parts> {
    let have = bytes.len().saturating_sub(offset);
    // Errors are built out of line: built in place, their fields would be kept live (and
    // spilled) on the path that does not fail.
    let Some(d0) = dword(bytes, offset) else { return Err(truncated(offset, 4, have)) };
    let (e, w, o) = decode_start(t, lut, bytes, offset, d0, have)?;
    let (op, form, op_y, has_lit) = reading(t, e, w, o, offset)?;
    let ndw = form.ndw();
    let total = ndw * 4 + if has_lit { 4 } else { 0 };
    if have < total {
        return Err(truncated(offset, total, have));
    }
    let literal = if has_lit { dword(bytes, offset + ndw * 4) } else { None };
    Ok(Parts { op, form, op_y, w, literal })
}

/// Encoding, bits and opcode entry where the fast path does not hold them: fewer than 16 bytes
/// there, or a key without its encoding.
#[inline(always)]
fn decode_start<'l>(
    t: &Tables,
    lut: &'l DecodeLut,
    bytes: &[u8],
    offset: usize,
    d0: u32,
    have: usize,
) -> Result<(&'l EncLut, u128, OpEntry)> {
    let k = lut.key_of(d0);
    if k.kind != Key::FAST {
        return decode_scanning(t, lut, bytes, offset, d0, have);
    }
    let need = k.bytes as usize;
    if have < need {
        return Err(truncated(offset, need, have));
    }
    let w = read128(bytes, offset, have);
    Ok((lut.enc_of(k), w, lut.fast_entry(k, w).1))
}

/// An opcode entry that is not [`Form::plain`]: the error for a value the table lacks, else the
/// scans' opcode, reading and whether a literal follows.
///
/// The entry comes as its two fields: an [`OpEntry`] is passed by reference, and the hot path
/// would then read its form back through memory.
#[cold]
#[inline(never)]
fn rare(t: &Tables, e: &EncLut, w: u128, o: (u16, Form), offset: usize, d0: u32) -> Result<(u32, Form, bool)> {
    if !o.1.has(Form::KNOWN) {
        return Err(unknown_opcode(t, offset, e.enc, DecodeLut::opcode_value(e, w), d0));
    }
    let (op, form, always_lit, src_lit) = scan(t, e.enc, w, o.0 as u32);
    Ok((op, form, always_lit | (src_lit & !form.has(Form::MODIFIER))))
}

/// Encoding, bits and opcode entry where the key does not hold them: the encoding from the
/// generic scan, the opcode through [`crate::decode_lut::EncLut`].
#[cold]
#[inline(never)]
fn decode_scanning<'l>(
    t: &Tables,
    lut: &'l DecodeLut,
    bytes: &[u8],
    offset: usize,
    d0: u32,
    have: usize,
) -> Result<(&'l EncLut, u128, OpEntry)> {
    let Some(enc) = t.encoding(d0) else { return Err(unknown_encoding(offset, d0)) };
    let e = &lut.encs[enc as usize];
    let need = e.bytes as usize;
    if have < need {
        return Err(truncated(offset, need, have));
    }
    let w = read128(bytes, offset, have);
    match lut.opcode(e, w) {
        Some(o) => Ok((e, w, o)),
        None => Err(unknown_opcode(t, offset, enc, DecodeLut::opcode_value(e, w), d0)),
    }
}

/// The reading where the flat tables do not hold it, from the generic tables: a nested layout
/// selected by fixed bits (gfx950 VOP3PX2, an opcode space of its own), the modifier forms of
/// the opcode's layout (VOP3SD has DPP forms of its own), the literal-capable fields. Returns
/// the opcode, the reading, whether the opcode always carries a literal and whether a source
/// field asks for one.
#[cold]
#[inline(never)]
fn scan(t: &Tables, enc: u16, w: u128, op: u32) -> (u32, Form, bool, bool) {
    let words = to_words(w);
    let enc_bytes = t.finfo[enc as usize].bytes;
    let (op, layout) = match t.nested_opcode(enc, &words) {
        Some(x) => x,
        None => (op, t.layout[op as usize]),
    };
    let fits = |m: u16| t.format(m).select.iter().all(|&(l, h, v)| bits(&words, l, h) == v);
    let fmt = t.mods[layout as usize].iter().copied().find(|&m| fits(m)).unwrap_or(layout);
    let src_lit = t.lit_src[op as usize].iter().any(|&(lo, hi)| bits(&words, lo, hi) == 255);
    (op, Form::new(t, fmt, enc_bytes), t.op_literal[op as usize], src_lit)
}

#[inline(always)]
fn bits(words: &[u32; 4], lo: u16, hi: u16) -> u32 {
    crate::inst::get(words, &baregpu_autogen::isa::Field { name: "", lo, hi })
}

/// Decodes one instruction at `offset` of `bytes`.
#[inline]
pub fn decode_at(arch: Arch, bytes: &[u8], offset: usize) -> Result<Instruction> {
    Decoder::new(arch).decode_at(bytes, offset)
}

/// Decodes one instruction at the start of `bytes`.
#[inline]
pub fn decode(arch: Arch, bytes: &[u8]) -> Result<Instruction> {
    decode_at(arch, bytes, 0)
}

/// Decodes a whole stream; the error names the byte offset where decoding stopped.
pub fn decode_all(arch: Arch, bytes: &[u8]) -> Result<Vec<(usize, Instruction)>> {
    Decoder::new(arch).decode_all(bytes)
}
