//! Per-architecture lookup structures built once over the generated tables.

use std::collections::HashMap;
use std::sync::OnceLock;

use baregpu_autogen::isa::{self, Field, Format, FormatRole, Opcode, Operand, OperandKind};

use crate::decode_lut::DecodeLut;
use crate::Arch;

/// `Opcode::flags` bits 4-6 (gfx9): source 0/1/2 takes no neg/abs modifiers, llvm-mc ignores
/// those bits (written by the isa generator, autogen/gen/src/isa.rs `source_modifiers`).
pub const FLAG_NO_MODS_SHIFT: u8 = 4;

/// `Opcode::flags` bit 7 (gfx9): the source literal is 16 bits; llvm-mc prints its low half.
pub const FLAG_LIT16: u8 = 0x80;

/// Whether source `si` of an opcode takes neg/abs modifiers.
pub fn takes_mods(op: &Opcode, si: usize) -> bool {
    si > 2 || op.flags >> (FLAG_NO_MODS_SHIFT as usize + si) & 1 == 0
}

/// Lookup tables of one architecture, built on first use.
pub struct Tables {
    pub arch: Arch,
    pub table: &'static isa::Arch,
    /// Per top 9 bits of the first dword: the range of `top_alts` to try.
    top_start: Vec<u32>,
    /// `(mask, value, format)` encoding alternatives, in table order within each bucket.
    top_alts: Vec<(u32, u32, u16)>,
    /// Per format index: opcode value -> opcode index + 1 (0: none).
    opmap: Vec<Vec<u32>>,
    /// Per format index: its modifier formats (DPP16, DPP8, SDWA) with their select.
    pub mods: Vec<Vec<u16>>,
    /// Per opcode index: the layout format index.
    pub layout: Vec<u16>,
    /// Per opcode index: the source fields (scalar or vector sources) that may hold a literal.
    pub lit_fields: Vec<Vec<Field>>,
    /// Mnemonic -> opcode indices.
    pub by_mnemonic: HashMap<&'static str, Vec<u32>>,
    /// Per opcode index: operand indices printed as 16-bit register halves (true16), bit mask.
    pub t16: Vec<u8>,
    /// Per opcode index: the operands, table gaps filled (see `fixup`).
    pub operands: Vec<Vec<Operand>>,
    /// Per format index: what decoding needs at hand.
    pub finfo: Vec<FormatInfo>,
    /// The VOPD_Y format (gfx11+).
    pub vopd_y: Option<u16>,
    /// Per opcode index: `lit_fields` as bit ranges.
    pub lit_src: Vec<Box<[(u16, u16)]>>,
    /// Per opcode index: the opcode always carries a literal (FLAG_LITERAL).
    pub op_literal: Vec<bool>,
    /// Per encoding format index: layouts nested in it with an opcode space of their own,
    /// selected by fixed bits (gfx950 VOP3PX2 inside VOP3P). Empty for almost every format.
    pub nested: Vec<Vec<u16>>,
    /// The decoder's flat tables, derived from the ones above.
    pub(crate) lut: DecodeLut,
    /// Per format index: its fields by name (`Instruction::field_def`).
    pub(crate) field_index: Vec<crate::field_index::FieldIndex>,
    /// Per format index: how a VALU instruction's dwords are read (`disasm::valu::shape`).
    pub(crate) shapes: Vec<(crate::disasm::valu::Shape, crate::disasm::valu::Ext)>,
    /// Per opcode index: [`MNEM_ATOMIC`] and [`MNEM_TWO_OFFSETS`], read off the mnemonic once.
    pub(crate) mnem: Vec<u8>,
    /// Per format index: its cache-policy flag fields in llvm-mc's order (`names::cpol::set`).
    pub(crate) cpol: Vec<Box<[&'static Field]>>,
    /// Per format index: the bits its fields and selects hold (`disasm::unwritten::held_bits`).
    pub(crate) held: Vec<u128>,
}

/// The mnemonic names an atomic (`_atomic_`).
pub(crate) const MNEM_ATOMIC: u8 = 1;
/// A DS opcode with two offsets (`disasm::mem::two_offsets`).
pub(crate) const MNEM_TWO_OFFSETS: u8 = 2;

/// Per-format facts the decoder reads on every instruction.
#[derive(Clone, Copy, Debug)]
pub struct FormatInfo {
    /// Length without literal, in bytes.
    pub bytes: u16,
    /// The opcode bit range.
    pub opcode: Option<(u16, u16)>,
    /// The VOPD layout.
    pub vopd: bool,
    /// A DPP/SDWA modifier format.
    pub modifier: bool,
}

impl Tables {
    #[inline]
    pub fn get(arch: Arch) -> &'static Tables {
        static T: [OnceLock<Tables>; 4] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        T[arch as usize].get_or_init(|| Tables::build(arch))
    }

    fn build(arch: Arch) -> Tables {
        let table = isa::ARCHS.iter().copied().find(|a| a.name == arch.name()).expect("arch table");
        let fidx = |name: &str| table.formats.iter().position(|f| f.name == name).expect("format") as u16;
        let mut top_start = Vec::with_capacity(513);
        let mut top_alts = Vec::new();
        for t in 0..512u32 {
            top_start.push(top_alts.len() as u32);
            let d = t << 23;
            for (i, f) in table.formats.iter().enumerate() {
                if f.role != FormatRole::Encoding {
                    continue;
                }
                for &(m, v) in f.encoding {
                    if (d & m & 0xff80_0000) == (v & m & 0xff80_0000) {
                        top_alts.push((m, v, i as u16));
                    }
                }
            }
        }
        top_start.push(top_alts.len() as u32);
        let mut opmap = vec![Vec::new(); table.formats.len()];
        let mut layout = Vec::with_capacity(table.opcodes.len());
        let mut lit_fields = Vec::with_capacity(table.opcodes.len());
        let mut by_mnemonic: HashMap<&'static str, Vec<u32>> = HashMap::new();
        for (i, op) in table.opcodes.iter().enumerate() {
            let f = fidx(op.format) as usize;
            let m = &mut opmap[f];
            if m.len() <= op.opcode as usize {
                m.resize(op.opcode as usize + 1, 0);
            }
            if m[op.opcode as usize] == 0 {
                m[op.opcode as usize] = i as u32 + 1;
            }
            let l = table.formats.iter().position(|x| x.name == op.layout).unwrap_or(f) as u16;
            layout.push(l);
            let lf = &table.formats[l as usize];
            let mut lits = Vec::new();
            let no_lit = crate::operand::takes_no_literal(arch, lf.name);
            for o in crate::fixup::operands(arch, op).iter().filter(|_| !no_lit) {
                if matches!(o.kind, OperandKind::Ssrc | OperandKind::Vsrc) {
                    if let Some(fl) = lf.field(o.name) {
                        if fl.hi - fl.lo >= 7 && !lits.iter().any(|x: &Field| x.name == fl.name) {
                            lits.push(*fl);
                        }
                    }
                }
            }
            if lf.name == "VOPD" || lf.name == "VOPD_Y" {
                for n in ["src0x", "src0y"] {
                    if let Some(fl) = lf.field(n) {
                        lits.push(*fl);
                    }
                }
            }
            lit_fields.push(lits);
            by_mnemonic.entry(op.mnemonic).or_default().push(i as u32);
        }
        let mut mods = vec![Vec::new(); table.formats.len()];
        for (i, f) in table.formats.iter().enumerate() {
            if f.role == FormatRole::Modifier {
                if let Some(p) = f.parent {
                    mods[fidx(p) as usize].push(i as u16);
                }
            }
        }
        let t16 = table.opcodes.iter().map(|op| crate::t16::mask(arch, op)).collect();
        let operands = table.opcodes.iter().map(|op| crate::fixup::operands(arch, op)).collect();
        let finfo = table
            .formats
            .iter()
            .map(|f| FormatInfo {
                bytes: f.bits / 8,
                opcode: f.opcode,
                vopd: f.name == "VOPD",
                modifier: f.role == FormatRole::Modifier,
            })
            .collect();
        let vopd_y = table.formats.iter().position(|f| f.name == "VOPD_Y").map(|i| i as u16);
        let lit_src = lit_fields.iter().map(|v: &Vec<Field>| v.iter().map(|f| (f.lo, f.hi)).collect()).collect();
        let op_literal = table.opcodes.iter().map(|op| op.flags & isa::FLAG_LITERAL != 0).collect();
        let mut nested = vec![Vec::new(); table.formats.len()];
        for (i, f) in table.formats.iter().enumerate() {
            if let (FormatRole::Layout, Some(p)) = (f.role, f.parent) {
                let pi = fidx(p) as usize;
                if f.opcode.is_some() && f.opcode != table.formats[pi].opcode && !f.select.is_empty() {
                    nested[pi].push(i as u16);
                }
            }
        }
        let mut t = Tables {
            arch,
            table,
            top_start,
            top_alts,
            opmap,
            mods,
            layout,
            lit_fields,
            by_mnemonic,
            t16,
            operands,
            finfo,
            vopd_y,
            op_literal,
            lit_src,
            nested,
            lut: DecodeLut::default(),
            field_index: table.formats.iter().map(crate::field_index::FieldIndex::build).collect(),
            shapes: table.formats.iter().map(crate::disasm::valu::format_shape).collect(),
            held: table.formats.iter().map(crate::disasm::unwritten::held_bits).collect(),
            cpol: table
                .formats
                .iter()
                .map(|f| crate::names::cpol::flags(arch).iter().filter_map(|n| crate::inst::find_field(f, n)).collect())
                .collect(),
            mnem: table
                .opcodes
                .iter()
                .map(|op| {
                    let atomic = if crate::substr::has(op.mnemonic, "_atomic_") { MNEM_ATOMIC } else { 0 };
                    let two = if crate::disasm::mem::two_offsets(op.mnemonic) { MNEM_TWO_OFFSETS } else { 0 };
                    atomic | two
                })
                .collect(),
        };
        t.lut = DecodeLut::build(&t);
        t
    }

    /// The opcode and layout of a nested layout whose fixed bits match `words` (see `nested`).
    pub fn nested_opcode(&self, enc: u16, words: &[u32; 4]) -> Option<(u32, u16)> {
        self.nested[enc as usize].iter().find_map(|&l| {
            let f = self.format(l);
            let get = |lo: u16, hi: u16| crate::inst::get(words, &Field { name: "", lo, hi });
            if !f.select.iter().all(|&(lo, hi, v)| get(lo, hi) == v) {
                return None;
            }
            let (lo, hi) = f.opcode?;
            self.opcode(l, get(lo, hi)).map(|op| (op, l))
        })
    }

    /// The top-level encoding format index of a first dword.
    #[inline]
    pub fn encoding(&self, d0: u32) -> Option<u16> {
        let t = (d0 >> 23) as usize;
        let (a, b) = (self.top_start[t] as usize, self.top_start[t + 1] as usize);
        self.top_alts[a..b].iter().find(|&&(m, v, _)| d0 & m == v).map(|x| x.2)
    }

    /// The `(mask, value, format)` encoding alternatives whose fixed top 9 bits admit `top`.
    pub(crate) fn bucket(&self, top: u32) -> &[(u32, u32, u16)] {
        &self.top_alts[self.top_start[top as usize] as usize..self.top_start[top as usize + 1] as usize]
    }

    /// One past the largest opcode value of a format.
    pub(crate) fn opcode_values(&self, fmt: u16) -> usize {
        self.opmap[fmt as usize].len()
    }

    /// The opcode index for an opcode value within a format.
    #[inline]
    pub fn opcode(&self, fmt: u16, value: u32) -> Option<u32> {
        match self.opmap[fmt as usize].get(value as usize) {
            Some(&v) if v != 0 => Some(v - 1),
            _ => None,
        }
    }

    pub fn format(&self, i: u16) -> &'static Format {
        &self.table.formats[i as usize]
    }

    pub fn format_index(&self, name: &str) -> Option<u16> {
        self.table.formats.iter().position(|f| f.name == name).map(|i| i as u16)
    }

    pub fn op(&self, i: u32) -> &'static Opcode {
        &self.table.opcodes[i as usize]
    }
}
