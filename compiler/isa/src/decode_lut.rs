//! Flat per-architecture tables for the decoder's hot path, precomputed from [`Tables`].
//!
//! The generic tables answer each question of decoding with a scan (encoding alternatives, the
//! modifier formats of an encoding, the literal-capable source fields of an opcode). Those scans
//! cost more than the rest of decoding, and decoding a stream is a chain: the next instruction's
//! offset waits for this one's length. Here every question is an indexed load plus a fixed amount
//! of branch-free arithmetic on the instruction's bits (one `u128`), and the chain to the length
//! is two loads (the decoder branches on the rare answers, a modifier or a literal, so that the
//! CPU predicts them instead of waiting on them):
//!
//! - encoding: a [`Key`] indexed by the first dword's top 9 bits and the few lower bits some
//!   encodings' masks also test (FLAT/GLOBAL/SCRATCH share their top bits), which also says where
//!   the encoding's opcode field and opcode table are;
//! - opcode: a direct-index table per encoding, padded to the opcode field's full range, whose
//!   [`OpEntry`] also holds the layout, its length and the opcode's literal field set;
//! - DPP/SDWA modifier: the layout, replaced by the modifier its select field's value names; an
//!   encoding's modifiers all test one field (src0, or MIMG's NSA bit), so one read of it answers
//!   all of them ([`Sel::hit`]);
//! - literal: whether any literal-capable field holds 255, all fields at once, with the field set
//!   held in the opcode entry itself (see [`OpEntry::any_255`]).
//!
//! Everything is derived from [`Tables`] at first use, so the decoder's answers stay those of the
//! scans: the tests here check the dispatch over every encoding bucket, and `decode_ref` holds the
//! whole decoder to the scanning one over golden vectors, rewritten fields and random bytes, with
//! the flat tables and with every fallback forced. What does not fit the flat form (modifier
//! selects on more than one field or values too far apart, literal fields of mixed widths or
//! beyond the first 64 bits, a wide first-dword key, indices past a field's range) falls back to
//! the scans, flagged per entry.

use crate::tables::Tables;

/// Select values one encoding's modifier table spans, from its lowest; the last slot is the
/// "no modifier" answer that every other value is clamped to. gfx11/gfx12 VALU selects are
/// 0xe9, 0xea (DPP8) and 0xfa (DPP16); gfx9's 0xf9 (SDWA) and 0xfa: 18 values.
pub(crate) const SEL_SPAN: usize = 19;

/// A mask/value pair no bits satisfy.
const NEVER: (u128, u128) = (0, 1);

/// Widest set of lower first-dword bits the encodings' masks may test (beyond the top 9) for the
/// one-load dispatch; wider sets scan the alternatives.
const MAX_KEY_BITS: u32 = 4;
/// Widest opcode field padded to its full range.
const MAX_PAD_BITS: u32 = 12;

/// How the dwords of an instruction are read: its format, length and kind, packed in one `u32`
/// (format index, dwords, flags from the low byte up) so that choosing between the layout and a
/// modifier is one conditional move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Form(u32);

impl Form {
    /// The VOPD layout: the Y opcode is read from dword0.
    pub const VOPD: u8 = 1;
    /// A DPP/SDWA modifier format: its src0 holds the selector, so no literal is looked for.
    pub const MODIFIER: u8 = 2;
    /// An opcode entry of a defined opcode (the table's gaps have 0).
    pub const KNOWN: u8 = 4;
    /// An opcode entry of an opcode that always carries a literal.
    pub const LITERAL: u8 = 8;
    /// An opcode entry whose modifiers or literal fields the flat tables do not hold: the
    /// decoder scans the generic tables for them.
    pub const SCAN: u8 = 16;
    /// `KNOWN` without `SCAN`: the decoder's common case, in one bit so that it is one test
    /// (`check_bounds` holds the three flags to this).
    pub const PLAIN: u8 = 32;

    /// The reading of format `fmt` within an encoding of `enc_bytes`.
    pub(crate) fn new(t: &Tables, fmt: u16, enc_bytes: u16) -> Form {
        let fi = &t.finfo[fmt as usize];
        let flags = if fi.vopd { Form::VOPD } else { 0 } | if fi.modifier { Form::MODIFIER } else { 0 };
        Form(fmt as u32 | ((fi.bytes.max(enc_bytes) / 4) as u32) << 16 | (flags as u32) << 24)
    }

    /// The format index whose fields describe the dwords.
    #[inline(always)]
    pub fn fmt(self) -> u16 {
        self.0 as u16
    }

    /// Dwords without literal: the longer of the format and its encoding.
    #[inline(always)]
    pub fn ndw(self) -> usize {
        (self.0 >> 16) as u8 as usize
    }

    #[inline(always)]
    pub fn has(self, flag: u8) -> bool {
        (self.0 >> 24) as u8 & flag != 0
    }

    /// A known opcode whose entry the flat tables hold in full ([`Form::PLAIN`]).
    #[inline(always)]
    pub fn plain(self) -> bool {
        self.has(Form::PLAIN)
    }

    fn with(self, flag: u8) -> Form {
        Form(self.0 | (flag as u32) << 24)
    }
}

/// Per top-level encoding: what finds its opcode and modifier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EncLut {
    /// Its format index.
    pub enc: u16,
    /// Length without literal, in bytes.
    pub bytes: u8,
    /// The opcode field as a shift and mask (mask 0: no opcode field, value 0).
    pub op_shift: u8,
    /// The opcode field lies beyond the first 64 bits, or is too wide for its table to be
    /// padded to its whole range: read and bounds-checked in full.
    pub op_slow: bool,
    pub op_mask: u32,
    /// This encoding's opcode values in [`DecodeLut::opmap`].
    pub op_base: u32,
    pub op_len: u32,
    /// The encoding's modifiers.
    pub sel: Sel,
}

/// An encoding's modifiers by the value of the one field all their selects test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sel {
    /// The field as a shift and mask in the first 64 bits, and the lowest value a select names.
    pub shift: u8,
    pub mask: u16,
    pub base: u16,
    /// Bit `i`: value `base + i` selects a modifier (the decoder's branch on it waits on no
    /// second load).
    pub bits: u32,
    /// Per select value from `base`: the modifier it chooses; `Form(0)` (no format has it:
    /// every format has dwords) where none, the last slot always.
    pub forms: [Form; SEL_SPAN],
}

impl Sel {
    /// Whether the instruction's bits `w` select a modifier, and its index in `forms`.
    #[inline(always)]
    pub fn hit(&self, w: u128) -> (bool, usize) {
        let v = (w as u64 >> self.shift) as u32 & self.mask as u32;
        // Values below the base wrap past the span and are clamped to its last slot too.
        let i = v.wrapping_sub(self.base as u32).min(SEL_SPAN as u32 - 1);
        (self.bits >> i & 1 != 0, i as usize)
    }

    /// Whether the instruction's bits `w` select a modifier, and its form (`Form(0)` where
    /// none).
    #[cfg(test)]
    pub fn modifier(&self, w: u128) -> (bool, Form) {
        let (hit, i) = self.hit(w);
        (hit, self.forms[i])
    }
}

/// What the first dword's key says, in one 8-byte load: the encoding and where its opcode is,
/// so that the opcode entry's load depends on this one alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Key {
    /// This encoding's opcode values in [`DecodeLut::opmap`].
    pub op_base: u16,
    /// The opcode field as a shift and mask in the first 64 bits (mask 0: no opcode field).
    pub op_mask: u16,
    pub op_shift: u8,
    /// The encoding format index.
    pub enc: u8,
    /// Length without literal, in bytes.
    pub bytes: u8,
    /// `NONE`, `FAST` or `SCAN`.
    pub kind: u8,
}

impl Key {
    /// No encoding has these bits.
    pub const NONE: u8 = 0;
    /// The fields above hold.
    pub const FAST: u8 = 1;
    /// What this key does not hold (the encoding's alternatives test more lower bits than a key
    /// has, an opcode field out of the first 64 bits or wider than 16 bits, indices past the
    /// fields' range): the decoder asks [`Tables::encoding`] and [`EncLut`].
    pub const SCAN: u8 = 2;
}

/// Per (encoding, opcode value): what decoding needs of the opcode, in one 16-byte load.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OpEntry {
    /// The opcode's literal-capable source fields: bit `i` set for a field starting at bit `i`
    /// of the first 64 bits, all of one width: 9 bits where bit 63 ([`NINE`]) is set, else 8.
    /// No field starts there (a field's test reads its bits, all in the first 64).
    pub lits: u64,
    /// The opcode index.
    pub op: u16,
    /// The opcode's layout, used when no modifier matches; its flags also say `KNOWN` and
    /// `LITERAL`.
    pub form: Form,
}

impl OpEntry {
    /// Whether a literal field holds 255, all fields at once: bit `i` of `ones8` is set when
    /// bits `i..i+8` are all ones (an 8-bit 255); a 9-bit 255 also needs bit `i + 8` clear.
    #[inline(always)]
    pub fn any_255(&self, w: u128) -> bool {
        let x = w as u64;
        let a = x & (x >> 1);
        let b = a & (a >> 2);
        let ones8 = b & (b >> 4);
        // The fields' ninth bits, where they are 9 bits wide: bit 63 spread to a mask of all or
        // none (one arithmetic shift, no branch). Bit 63 itself is never set in `ones8`.
        let nine = self.lits & ((self.lits as i64 >> 63) as u64);
        // The starts whose ninth bit is clear: `nine` lies within `lits`, so clearing is an xor.
        ones8 & (self.lits ^ ((x >> 8) & nine)) != 0
    }
}

/// [`OpEntry::lits`]'s flag of 9-bit fields.
pub(crate) const NINE: u64 = 1 << 63;

/// An opcode's literal-capable source fields as [`OpEntry::lits`] holds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LitFields {
    /// Bit `i`: a field starts at bit `i`.
    pub starts: u64,
    /// The fields are 9 bits wide (else 8).
    pub nine: bool,
    /// Fields of mixed or other widths, or past the first 64 bits: scan [`Tables::lit_src`]
    /// instead.
    pub scan: bool,
}

/// The decoder's flat tables of one architecture.
#[derive(Debug, Default)]
pub(crate) struct DecodeLut {
    /// The first dword's lower bits (`(d0 >> key_shift) & key_mask`) that, with its top 9 bits,
    /// index `keys`.
    pub key_shift: u8,
    pub key_bits: u8,
    pub key_mask: u32,
    pub keys: Vec<Key>,
    /// Per format index (meaningful for top-level encodings).
    pub encs: Vec<EncLut>,
    /// By encoding range and opcode value.
    pub opmap: Vec<OpEntry>,
}

/// The `u32` read of bits `lo..=hi` as `(shift, mask)` (fields wider than 32 bits read their low 32,
/// as [`crate::inst::get`] does).
fn field_mask(lo: u16, hi: u16) -> (u8, u32) {
    let width = (hi - lo + 1) as u32;
    (lo as u8, if width >= 32 { u32::MAX } else { (1 << width) - 1 })
}

/// The `(lo, hi, value)` conditions of a select as one mask/value pair; [`NEVER`] when they
/// cannot all hold (a value wider than its field, or two conditions disagreeing on a bit).
fn select_mask(select: &[(u16, u16, u32)]) -> (u128, u128) {
    let (mut mask, mut value) = (0u128, 0u128);
    for &(lo, hi, v) in select {
        let (sh, m) = field_mask(lo, hi);
        if v & !m != 0 {
            return NEVER;
        }
        let (cm, cv) = ((m as u128) << sh, (v as u128) << sh);
        if (mask & cm) & (value ^ cv) != 0 {
            return NEVER;
        }
        mask |= cm;
        value |= cv;
    }
    (mask, value)
}

/// The literal field set of bit ranges.
fn lit_fields(fields: &[(u16, u16)]) -> LitFields {
    let nine = fields.first().is_some_and(|&(lo, hi)| hi - lo + 1 == 9);
    let mut l = LitFields { nine, ..LitFields::default() };
    let want = if nine { 9 } else { 8 };
    for &(lo, hi) in fields {
        // A field's test reads its own bits (a 9-bit one's ninth too): all in the first 64.
        l.scan |= hi - lo + 1 != want || lo + want > 64;
        l.starts |= 1u64.checked_shl(lo as u32).unwrap_or(0);
    }
    if nine {
        l.starts |= NINE;
    }
    l
}

/// The modifiers `mods` of an encoding as its select field and table, or `None` where they do
/// not fit (selects of more than one condition, on different fields, past the first 64 bits, or
/// values farther apart than the table spans).
fn modifier_table(t: &Tables, mods: &[u16], enc_bytes: u16) -> Option<Sel> {
    let mut forms = [Form::default(); SEL_SPAN];
    let Some(&first) = mods.first() else { return Some(Sel::default()) };
    let &[(lo, hi, _)] = t.format(first).select else { return None };
    let (shift, mask) = field_mask(lo, hi);
    if hi >= 64 || mask > u16::MAX as u32 {
        return None;
    }
    let mut base = u32::MAX;
    for &m in mods {
        match t.format(m).select {
            &[(l, h, v)] if (l, h) == (lo, hi) => base = base.min(v),
            _ => return None,
        }
    }
    // In reverse table order, so that the first modifier of a value is the one left.
    for &m in mods.iter().rev() {
        let v = t.format(m).select[0].2;
        // A value wider than its field never matches: no slot.
        if v & !mask != 0 {
            continue;
        }
        let i = (v - base) as usize;
        if i >= SEL_SPAN - 1 {
            return None;
        }
        forms[i] = Form::new(t, m, enc_bytes);
    }
    let bits = forms.iter().enumerate().filter(|(_, f)| f.0 != 0).fold(0, |b, (i, _)| b | 1 << i);
    Some(Sel { shift, mask: mask as u16, base: base.min(u16::MAX as u32) as u16, bits, forms })
}

impl DecodeLut {
    pub(crate) fn build(t: &Tables) -> DecodeLut {
        let nfmt = t.table.formats.len();
        assert!(t.table.opcodes.len() <= u16::MAX as usize, "opcode indices must fit the decoder's u16");

        let mut opmap = Vec::new();
        let mut encs = Vec::with_capacity(nfmt);
        for f in 0..nfmt {
            let fi = &t.finfo[f];
            let (op_shift, op_mask) = fi.opcode.map_or((0, 0), |(lo, hi)| field_mask(lo, hi));
            let op_base = opmap.len() as u32;
            // Padded to the field's range, every value of the field has an entry.
            let padded = op_mask.count_ones() <= MAX_PAD_BITS;
            let len = if padded { op_mask + 1 } else { t.opcode_values(f as u16) as u32 };
            let sel = modifier_table(t, &t.mods[f], fi.bytes);
            let mods_scan = sel.is_none();
            // The nested layouts' selects as mask/value pairs (gfx950 VOP3PX2: one, which fixes
            // the encoding's own opcode field).
            let nests: Vec<(u128, u128)> = t.nested[f].iter().map(|&l| select_mask(t.format(l).select)).collect();
            let op_bits = (op_mask as u128) << op_shift;
            for v in 0..len {
                let Some(o) = t.opcode(f as u16, v) else {
                    opmap.push(OpEntry::default());
                    continue;
                };
                let l = lit_fields(&t.lit_src[o as usize]);
                let literal = if t.op_literal[o as usize] { Form::LITERAL } else { 0 };
                // Decoded by the scanning decoder: what the entry cannot hold, a layout with
                // modifier forms other than its encoding's, or an encoding with nested layouts.
                let layout = t.layout[o as usize] as usize;
                let own_mods = layout != f && t.mods[layout] != t.mods[f];
                // Only the opcode values a nested layout's select admits are scanned for it.
                let v_bits = (v as u128) << op_shift;
                let nest = nests.iter().any(|&(m, x)| (m & op_bits) & (x ^ v_bits) == 0);
                let scan = if mods_scan || l.scan || own_mods || nest { Form::SCAN } else { Form::PLAIN };
                let form = Form::new(t, t.layout[o as usize], fi.bytes).with(Form::KNOWN | literal | scan);
                opmap.push(OpEntry { op: o as u16, lits: l.starts, form });
            }
            encs.push(EncLut {
                enc: f as u16,
                bytes: fi.bytes as u8,
                op_shift,
                op_slow: op_shift as u32 + op_mask.count_ones() > 64 || !padded,
                op_mask,
                op_base,
                op_len: len,
                sel: sel.unwrap_or_default(),
            });
        }

        // Every reading, scanned ones too, then has at most 4 dwords (`Form::new` takes the
        // longer of two formats): the decoder's 16-byte path checks the length only where a
        // literal follows.
        assert!(t.finfo.iter().all(|f| f.bytes <= 16), "no format longer than 16 bytes");
        let mut lut = DecodeLut { encs, opmap, ..DecodeLut::default() };
        // After the encodings: a key holds its encoding's opcode range.
        lut.build_keys(t);
        lut.check_bounds();
        lut
    }

    /// The bounds the unchecked loads of the hot path rely on: every index a key, an opcode
    /// entry or a masked first dword can form lies within its table. Checked once per build,
    /// so that a table built wrong fails here and never reads out of bounds.
    fn check_bounds(&self) {
        assert_eq!(self.keys.len(), 512 << self.key_bits, "keys cover every top-9-bits and key-bits value");
        assert_eq!(self.key_mask, (1u32 << self.key_bits) - 1, "key mask and width agree");
        for k in self.keys.iter().filter(|k| k.kind == Key::FAST) {
            assert!(usize::from(k.enc) < self.encs.len(), "key encoding in range");
            assert!(
                usize::from(k.op_base) + usize::from(k.op_mask) < self.opmap.len(),
                "key opcode range in the table"
            );
        }
        // The decoder's masks of an instruction's own dwords cover up to 4 (of the 16 bytes read).
        let plain = |f: Form| f.has(Form::KNOWN) && !f.has(Form::SCAN);
        assert!(self.opmap.iter().all(|o| o.form.plain() == plain(o.form)), "PLAIN is KNOWN without SCAN");
        let mut forms = self.opmap.iter().map(|o| o.form).chain(self.encs.iter().flat_map(|e| e.sel.forms));
        assert!(forms.all(|f| f.ndw() <= 4), "no reading longer than 4 dwords");
    }

    /// The key's opcode entry for the instruction's bits `w` (the key is [`Key::FAST`]).
    #[inline(always)]
    pub(crate) fn fast_entry(&self, k: Key, w: u128) -> (u32, OpEntry) {
        debug_assert_eq!(k.kind, Key::FAST);
        let v = (w as u64 >> k.op_shift) as u32 & k.op_mask as u32;
        let i = k.op_base as usize + v as usize;
        // SAFETY: `v <= k.op_mask` and a FAST key's `op_base + op_mask < opmap.len()`
        // (`check_bounds`, after every change of the tables).
        (v, unsafe { *self.opmap.get_unchecked(i) })
    }

    /// The top-level encoding `enc` of a FAST key.
    #[inline(always)]
    pub(crate) fn enc_of(&self, k: Key) -> &EncLut {
        debug_assert_eq!(k.kind, Key::FAST);
        // SAFETY: a FAST key's `enc < encs.len()` (`check_bounds`).
        unsafe { self.encs.get_unchecked(k.enc as usize) }
    }

    /// The first-dword dispatch: the top 9 bits and the lower bits any encoding's mask tests
    /// (FLAT/GLOBAL/SCRATCH: two) index the scan's answer.
    fn build_keys(&mut self, t: &Tables) {
        let low = (0..512).flat_map(|b| t.bucket(b)).fold(0u32, |acc, &(m, _, _)| acc | (m & 0x007f_ffff));
        let (shift, width) = match low {
            0 => (0, 0),
            _ => (low.trailing_zeros(), 32 - low.leading_zeros() - low.trailing_zeros()),
        };
        if width > MAX_KEY_BITS {
            self.keys = vec![Key { kind: Key::SCAN, ..Key::default() }; 512];
            return;
        }
        (self.key_shift, self.key_bits, self.key_mask) = (shift as u8, width as u8, (1 << width) - 1);
        self.keys = (0..512u32 << width)
            .map(|k| {
                // Every bit the masks test is set here, so the scan's answer holds for every dword
                // with these bits.
                let d = ((k >> width) << 23) | ((k & ((1 << width) - 1)) << shift);
                match t.encoding(d) {
                    None => Key { kind: Key::NONE, ..Key::default() },
                    Some(enc) => self.key(enc),
                }
            })
            .collect();
    }

    /// The key of an encoding, [`Key::SCAN`] where its numbers do not fit.
    fn key(&self, enc: u16) -> Key {
        let e = &self.encs[enc as usize];
        let fits = |v: u32, max: u32| v <= max;
        match !e.op_slow && fits(enc as u32, 255) && fits(e.op_base, 65535) && fits(e.op_mask, 65535) {
            true => Key {
                op_base: e.op_base as u16,
                op_mask: e.op_mask as u16,
                op_shift: e.op_shift,
                enc: enc as u8,
                bytes: e.bytes,
                kind: Key::FAST,
            },
            false => Key { kind: Key::SCAN, ..Key::default() },
        }
    }

    /// Sends every question to the generic scans (the fallbacks the real tables do not need),
    /// for the tests to hold those paths to the reference too.
    #[cfg(test)]
    pub(crate) fn force_scans(&mut self) {
        (self.key_shift, self.key_bits, self.key_mask) = (0, 0, 0);
        self.keys = vec![Key { kind: Key::SCAN, ..Key::default() }; 512];
        for e in &mut self.encs {
            e.op_slow = true;
        }
        for o in self.opmap.iter_mut().filter(|o| o.form.has(Form::KNOWN)) {
            o.form = Form(o.form.0 & !((Form::PLAIN as u32) << 24)).with(Form::SCAN);
        }
        self.check_bounds();
    }

    /// The key of a first dword.
    #[inline(always)]
    pub(crate) fn key_of(&self, d0: u32) -> Key {
        let low = (d0 >> self.key_shift) & self.key_mask;
        let i = (((d0 >> 23) << self.key_bits) | low) as usize;
        // SAFETY: `d0 >> 23 < 512` and `low <= key_mask = 2^key_bits - 1`, so `i < 512 <<
        // key_bits = keys.len()` (`check_bounds`, after every change of the tables).
        unsafe { *self.keys.get_unchecked(i) }
    }

    /// The top-level encoding format index of a first dword.
    #[cfg(test)]
    pub(crate) fn encoding(&self, t: &Tables, d0: u32) -> Option<u16> {
        let k = self.key_of(d0);
        match k.kind {
            Key::FAST => Some(k.enc as u16),
            Key::NONE => None,
            _ => t.encoding(d0),
        }
    }

    /// The opcode value of an instruction's bits in an encoding.
    pub(crate) fn opcode_value(e: &EncLut, w: u128) -> u32 {
        (w >> e.op_shift) as u32 & e.op_mask
    }

    /// The opcode entry of an instruction's bits in an encoding, when defined.
    #[inline(always)]
    pub(crate) fn opcode(&self, e: &EncLut, w: u128) -> Option<OpEntry> {
        if e.op_slow {
            return self.entry(e, Self::opcode_value(e, w));
        }
        // Padded: every value the mask lets through has an entry.
        let v = (w as u64 >> e.op_shift) as u32 & e.op_mask;
        match self.opmap.get(e.op_base as usize + v as usize) {
            Some(o) if o.form.has(Form::KNOWN) => Some(*o),
            _ => None,
        }
    }

    /// The opcode entry of an opcode value within an encoding.
    #[cold]
    pub(crate) fn entry(&self, e: &EncLut, value: u32) -> Option<OpEntry> {
        if value >= e.op_len {
            return None;
        }
        self.opmap.get(e.op_base as usize + value as usize).filter(|o| o.form.has(Form::KNOWN)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Arch;

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn dispatch_matches_the_scan() {
        for arch in Arch::ALL {
            let t = Tables::get(arch);
            let lut = &t.lut;
            assert!(
                lut.keys.iter().all(|k| k.kind != Key::SCAN),
                "{}: the dispatch fell back to scanning",
                arch.name()
            );
            // Every bucket with every lower-bit pattern of the key, and random dwords.
            for b in 0..512u32 {
                for k in 0..1u32 << lut.key_bits {
                    let d = (b << 23) | (k << lut.key_shift);
                    assert_eq!(lut.encoding(t, d), t.encoding(d), "{} {d:#010x}", arch.name());
                }
            }
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..200_000 {
                let d = xorshift(&mut x) as u32;
                assert_eq!(lut.encoding(t, d), t.encoding(d), "{} {d:#010x}", arch.name());
            }
        }
    }

    /// Every encoding's modifier selects fit its table: none is sent to the scans for them (the
    /// scans are for the rare layouts, not for whole encodings).
    #[test]
    fn modifiers_fit_inline() {
        for arch in Arch::ALL {
            let t = Tables::get(arch);
            for (f, m) in t.mods.iter().enumerate() {
                let fits = modifier_table(t, m, t.finfo[f].bytes).is_some();
                assert!(fits, "{} {}: modifier selects do not fit one table", arch.name(), t.format(f as u16).name);
            }
        }
    }

    /// Every opcode's literal fields fit its entry but those of nested layouts (gfx950
    /// VOP3PX2, scanned for their opcode space anyway): no other opcode is sent to the scans
    /// for them.
    #[test]
    fn literal_fields_fit_inline() {
        for arch in Arch::ALL {
            let t = Tables::get(arch);
            let nested: Vec<u16> = t.nested.iter().flatten().copied().collect();
            for (o, fields) in t.lit_src.iter().enumerate() {
                let fits = !lit_fields(fields).scan || nested.contains(&t.layout[o]);
                assert!(fits, "{} {}: literal fields {fields:?}", arch.name(), t.op(o as u32).mnemonic);
            }
        }
    }

    /// The select table answers as the selects do, first match first, for every value of the
    /// field: the modifier's own reading, or none.
    #[test]
    fn modifier_table_matches_the_selects() {
        for arch in Arch::ALL {
            let t = Tables::get(arch);
            for (f, m) in t.mods.iter().enumerate().filter(|(_, m)| !m.is_empty()) {
                let e = &t.lut.encs[f];
                let &[(lo, hi, _)] = t.format(m[0]).select else { panic!("one condition") };
                for v in 0..1u128 << (hi - lo + 1) {
                    let w = v << lo;
                    let want = m.iter().find(|&&mf| {
                        let (mask, value) = select_mask(t.format(mf).select);
                        w & mask == value
                    });
                    let want = want.map_or(Form::default(), |&mf| Form::new(t, mf, t.finfo[f].bytes));
                    let got = e.sel.modifier(w);
                    assert_eq!(got, (want.0 != 0, want), "{} {} value {v}", arch.name(), t.format(f as u16).name);
                }
            }
        }
    }

    /// An encoding's modifiers as a table: clamped values, first match first, refusals.
    #[test]
    fn modifier_tables() {
        let t = Tables::get(Arch::Gfx1100);
        let vop1 = t.format_index("VOP1").expect("VOP1");
        let s = modifier_table(t, &t.mods[vop1 as usize], 4).expect("fits");
        assert_eq!((s.shift, s.mask, s.base), (0, 0x1ff, 0xe9));
        assert_eq!(s.forms.iter().filter(|f| f.0 != 0).count(), 3);
        assert_eq!(s.bits, 1 | 2 | 1 << (0xfa - 0xe9));
        assert_eq!(s.forms[SEL_SPAN - 1], Form::default());
        let mimg = t.format_index("MIMG").expect("MIMG");
        let s = modifier_table(t, &t.mods[mimg as usize], 8).expect("fits");
        assert_eq!((s.shift, s.mask, s.base, s.bits), (0, 1, 1, 1));
        assert_ne!(s.forms[0], Form::default());
        // VOP1's and VOP3's modifiers test different fields.
        let vop3 = t.format_index("VOP3").expect("VOP3");
        let mixed: Vec<u16> = t.mods[vop1 as usize].iter().chain(&t.mods[vop3 as usize]).copied().collect();
        assert!(modifier_table(t, &mixed, 8).is_none());
        assert_eq!(modifier_table(t, &[], 4), Some(Sel::default()));
    }

    /// Of an encoding with a nested layout only the opcodes its select admits are sent to the
    /// scans (gfx950 VOP3P: every packed-math instruction was).
    #[test]
    fn nested_selects_fit_inline() {
        for arch in Arch::ALL {
            let t = Tables::get(arch);
            for (f, n) in t.nested.iter().enumerate().filter(|(_, n)| !n.is_empty()) {
                let name = t.format(f as u16).name;
                let e = &t.lut.encs[f];
                let scanned = (0..e.op_len).filter_map(|v| t.lut.entry(e, v)).filter(|o| o.form.has(Form::SCAN));
                assert_eq!(scanned.count(), n.len(), "{} {name}: opcodes scanned for nesting", arch.name());
            }
        }
    }

    #[test]
    fn opcode_lookup_matches() {
        for arch in Arch::ALL {
            let t = Tables::get(arch);
            for (f, e) in t.lut.encs.iter().enumerate() {
                for v in 0..=e.op_mask.min(1 << 14) {
                    let fast = t.lut.entry(e, v).map(|o| o.op as u32);
                    if v <= e.op_mask && !e.op_slow {
                        let w = (v as u128) << e.op_shift;
                        assert_eq!(DecodeLut::opcode_value(e, w), v);
                        assert_eq!(t.lut.opcode(e, w).map(|o| o.op as u32), fast);
                    }
                    assert_eq!(fast, t.opcode(f as u16, v), "{} format {f} value {v}", arch.name());
                }
            }
        }
    }

    fn entry(fields: &[(u16, u16)]) -> OpEntry {
        let l = lit_fields(fields);
        assert!(!l.scan, "{fields:?} fit an entry");
        OpEntry { lits: l.starts, op: 0, form: Form::default() }
    }

    #[test]
    fn literal_fields_at_once() {
        let l = lit_fields(&[(0, 8), (9, 17), (32, 40)]);
        assert_eq!((l.starts, l.nine, l.scan), (1 | 1 << 9 | 1 << 32 | NINE, true, false));
        assert_eq!(lit_fields(&[(0, 7), (8, 15)]).starts, 1 | 1 << 8);
        assert!(lit_fields(&[(0, 9)]).scan);
        assert!(lit_fields(&[(0, 8), (9, 16)]).scan, "mixed widths");
        assert!(lit_fields(&[(0, 8), (56, 64)]).scan, "a ninth bit past 64");
        assert!(!lit_fields(&[(0, 8), (55, 63)]).scan);
        assert!(!lit_fields(&[(0, 7), (56, 63)]).scan);
        assert!(lit_fields(&[(64, 72)]).scan);
        let v = entry(&[(0, 8), (9, 17), (32, 40)]);
        let w = |src0: u128, vsrc1: u128, d1: u128| src0 | vsrc1 << 9 | d1 << 32;
        assert!(v.any_255(w(255, 0, 0)));
        assert!(!v.any_255(w(255 | 256, 0, 0)));
        assert!(!v.any_255(w(254, 0x7f, 0)));
        assert!(v.any_255(w(0, 255, 0)));
        assert!(v.any_255(w(0x1fe, 0, 255)));
        assert!(!v.any_255(w(0x1fe, 0xfe, 0x1ff)));
        // Ones across field boundaries are not a field's 255.
        assert!(!v.any_255(w(0x1f0, 0xff >> 4, 0xf0)));
        // 8-bit fields side by side: a 255 with ones above it is still a 255.
        let s = entry(&[(0, 7), (8, 15)]);
        assert!(s.any_255(0xffff));
        assert!(s.any_255(0x01ff));
        assert!(s.any_255(0xff00));
        assert!(!s.any_255(0x7ffe));
        assert!(!s.any_255(0xff << 16));
    }

    #[test]
    fn selects_as_masks() {
        assert_eq!(select_mask(&[(0, 8, 250)]), (0x1ff, 250));
        assert_eq!(select_mask(&[(32, 40, 233)]), (0x1ff << 32, 233 << 32));
        assert_eq!(select_mask(&[(0, 3, 16)]), NEVER);
        assert_eq!(select_mask(&[(0, 3, 1), (0, 0, 0)]), NEVER);
        assert_eq!(select_mask(&[(0, 3, 1), (0, 0, 1), (8, 9, 2)]), (0x30f, 0x201));
    }
}
