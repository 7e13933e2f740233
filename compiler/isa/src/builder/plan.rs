//! Operand plans: what each operand of a candidate encoding does, resolved once per opcode and
//! architecture when the candidate table is built, so that encoding an instruction compares no
//! names and looks up no fields. A [`Put`] is a field's place in the words (a checked write is a
//! shift, a mask and a compare); an [`Act`] says how the operand's value becomes the field's.

use baregpu_autogen::isa::{Field, Operand as TableOperand, OperandKind as K, FLAG_LITERAL};

use super::cands::Shape;
use super::reg::{Reg, RegFile};
use crate::asm::parser::Ext;
use crate::inst::{set, Instruction};
use crate::Arch;

/// A field's place in the instruction words.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Put {
    pub f: &'static Field,
    /// The field's mask before the shift (its width's low bits).
    mask: u32,
    word: u8,
    shift: u8,
    /// The field crosses a dword boundary (the general [`set`] writes it).
    split: bool,
}

impl Put {
    pub fn of(f: &'static Field) -> Put {
        let (lo, hi) = (f.lo as u32, f.hi as u32);
        let split = lo / 32 != hi / 32 || hi >= 128;
        let width = (hi + 1 - lo).min(32);
        Put { f, mask: u32::MAX >> (32 - width), word: (lo / 32).min(3) as u8, shift: (lo % 32) as u8, split }
    }

    pub fn width(&self) -> u32 {
        (self.f.hi - self.f.lo + 1) as u32
    }

    /// Writes `v`; false (nothing written) when it does not fit the field.
    #[inline(always)]
    pub fn write(&self, words: &mut [u32; 4], v: u32) -> bool {
        if self.split {
            return set(words, self.f, v);
        }
        if v & !self.mask != 0 {
            return false;
        }
        let w = &mut words[self.word as usize & 3];
        *w = (*w & !(self.mask << self.shift)) | (v << self.shift);
        true
    }

    /// The field's value.
    #[inline]
    pub fn read(&self, words: &[u32; 4]) -> u32 {
        crate::inst::get(words, self.f)
    }
}

/// How an operand's value becomes its field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Act {
    /// A register the encoding implies (VOP2 `vcc`, `m0`...): the operand must name it.
    Fixed,
    /// `off` only.
    Off,
    /// A register-only scalar field; the register number is shifted right by `shift` (SMEM base:
    /// pairs, buffer resource: quads); `off_ok`: `off` leaves the field as started (null/off).
    Sgpr { shift: u8, off_ok: bool },
    /// A VGPR/AGPR field (`nine`: a 9-bit source field, which holds 256 + n); `agpr`: the table
    /// wants an AGPR here; `off_ok`: a memory address that may be `off`.
    Vreg { nine: bool, agpr: bool, off_ok: bool },
    /// A source: register, named register, inline constant or literal (`nine`: a 9-bit field;
    /// `vsrc`: a vector source).
    Src { nine: bool, vsrc: bool },
    /// The SMEM offset: an immediate or an SGPR.
    SmemOffset,
    /// An immediate field (simm16, hwreg, sendmsg, branch target, memory offset); `float`: a
    /// float operand is taken as its bits.
    Imm { float: bool },
    /// The 32-bit literal constant of v_fmamk-style opcodes (no field).
    Literal,
    /// The operand has no field in this encoding (never encodable).
    NoField,
    /// An LDS parameter (`attr0.x`).
    Attr,
    /// An SDWA source (gfx9): a VGPR's number, or a scalar register or inline constant's code
    /// with the source's `s` bit (`s0`, or `s1` for the second source) set.
    SdwaSrc { second: bool },
    /// The VOPD Y destination: a VGPR whose parity differs from the X destination's; the field
    /// holds its number halved.
    VopdDstY,
}

/// An operand of a candidate, its field and what to do with it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub op: TableOperand,
    pub put: Option<Put>,
    pub act: Act,
    /// The common case, checked first: a plain register run of this file and size.
    pub fast: Option<Fast>,
}

/// A plain register operand of the expected file and size, as a field value: every check of
/// the general path reduced to compares against numbers resolved for the architecture.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fast {
    pub file: RegFile,
    pub count: i16,
    /// The highest first register (file size - count).
    pub last_first: i32,
    /// Alignment mask the first register must clear (tuple alignment, SMEM base pairs,
    /// buffer resource quads).
    pub align: i32,
    /// Added to the register number (256 for a VGPR in a 9-bit source field).
    pub base: u32,
    pub shift: u8,
    /// An SGPR read by a VALU instruction: it counts against the constant bus.
    pub bus: bool,
}

/// Fields the modifiers and operand side effects write, resolved once per candidate.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Extra {
    pub clamp: Option<Put>,
    pub omod: Option<Put>,
    pub opsel: Option<Put>,
    pub acc: Option<Put>,
    pub acc_cd: Option<Put>,
    pub sve: Option<Put>,
    /// SMEM (gfx9): the immediate-offset and second-offset bits, the offset fields.
    pub imm: Option<Put>,
    pub soe: Option<Put>,
    pub offset: Option<Put>,
    pub soffset: Option<Put>,
    /// DS `offset0`/`offset1`; `offset` and `None` elsewhere.
    pub offsets: [Option<Put>; 2],
    /// The one-bit flags, by [`super::Flag`] order.
    pub flags: [Option<Put>; super::operand::FLAGS.len()],
}

fn put(i: &Instruction, name: &str) -> Option<Put> {
    i.field_def(name).map(Put::of)
}

impl Extra {
    pub fn of(i: &Instruction, shape: Shape) -> Extra {
        let offsets = match shape {
            Shape::Ds => [put(i, "offset0"), put(i, "offset1")],
            _ => [put(i, "offset"), None],
        };
        Extra {
            clamp: put(i, "clamp"),
            omod: put(i, "omod"),
            opsel: put(i, "opsel"),
            acc: put(i, "acc"),
            acc_cd: put(i, "acc_cd"),
            sve: put(i, "sve"),
            imm: put(i, "imm"),
            soe: put(i, "soe"),
            offset: put(i, "offset"),
            soffset: put(i, "soffset"),
            offsets,
            flags: super::operand::FLAGS.map(|f| put(i, f.field())),
        }
    }
}

/// The fast path of an operand, where it has one.
fn fast(arch: Arch, act: Act, o: &TableOperand, shape: Shape, t16: bool) -> Option<Fast> {
    let count = o.dwords.max(1) as i16;
    let (file, base, shift, bus) = match act {
        Act::Sgpr { shift, .. } => (RegFile::Sgpr, 0, shift, false),
        Act::Vreg { nine, agpr, .. } => {
            (if agpr { RegFile::Agpr } else { RegFile::Vgpr }, if nine { 256 } else { 0 }, 0, false)
        }
        Act::Src { nine: true, vsrc: true } => (RegFile::Vgpr, 256, 0, false),
        Act::Src { .. } => (RegFile::Sgpr, 0, 0, shape.is_valu()),
        _ => return None,
    };
    // A true16 operand takes a half or a whole register: the general path decides.
    if t16 && file == RegFile::Vgpr {
        return None;
    }
    let size = file.size(arch) as i32;
    if size < count as i32 {
        return None;
    }
    let align = Reg::new(file, 0, count as i64).align(arch).max(1 << shift) - 1;
    Some(Fast { file, count, last_first: size - count as i32, align, base, shift, bus })
}

/// The plan of one operand of `init`'s encoding (`ext`: its DPP16, DPP8 or SDWA form).
pub(crate) fn slot(init: &Instruction, shape: Shape, ext: Ext, o: TableOperand, scalar_vdst: bool, t16: bool) -> Slot {
    let mut s = match ext_slot(init, ext, o) {
        Some(s) => s,
        None => slot_act(init, shape, o, scalar_vdst),
    };
    if s.put.is_some() {
        s.fast = fast(init.arch, s.act, &o, shape, t16);
    }
    s
}

/// The operands a DPP or SDWA form moves: DPP's src0 (a VGPR, in `dpp_src0`); SDWA's sources
/// (`sdwa_src0`, `vsrc1`, each with its scalar bit).
fn ext_slot(init: &Instruction, ext: Ext, o: TableOperand) -> Option<Slot> {
    let (field, act) = match (ext, o.name) {
        (Ext::Dpp16 | Ext::Dpp8, "src0") => ("dpp_src0", Act::Vreg { nine: false, agpr: false, off_ok: false }),
        (Ext::Sdwa, "src0") => ("sdwa_src0", Act::SdwaSrc { second: false }),
        (Ext::Sdwa, "vsrc1") => ("vsrc1", Act::SdwaSrc { second: true }),
        _ => return None,
    };
    Some(Slot { op: o, put: put(init, field), act, fast: None })
}

fn slot_act(init: &Instruction, shape: Shape, o: TableOperand, scalar_vdst: bool) -> Slot {
    let field = init.field_def(o.name);
    let put = field.map(Put::of);
    let nine = field.is_some_and(|f| f.hi - f.lo + 1 == 9);
    let act = match o.kind {
        K::Special => Act::Fixed,
        K::Off => Act::Off,
        K::Attr => Act::Attr,
        K::Offset if shape == Shape::Smem => Act::SmemOffset,
        K::Simm16 | K::Hwreg | K::Sendmsg | K::Label | K::Offset | K::Imm => {
            let float = init.opcode().flags & FLAG_LITERAL != 0 || o.name.starts_with("op");
            if float && o.kind == K::Imm {
                Act::Literal
            } else {
                let put = put.or_else(|| init.field_def("simm16").map(Put::of));
                return Slot { op: o, put, act: Act::Imm { float }, fast: None };
            }
        }
        _ if field.is_none() => Act::NoField,
        K::Sgpr => Act::Sgpr {
            shift: match o.name {
                "sbase" => 1,
                "srsrc" => 2,
                _ => 0,
            },
            off_ok: matches!(o.name, "saddr" | "soffset"),
        },
        K::Vgpr | K::Agpr if scalar_vdst && o.name == "vdst" => Act::Sgpr { shift: 0, off_ok: false },
        K::Vgpr if o.name == "vdsty" => Act::VopdDstY,
        K::Vgpr | K::Agpr => Act::Vreg {
            nine,
            agpr: o.kind == K::Agpr,
            off_ok: o.name.contains("addr") && matches!(shape, Shape::Flat | Shape::Buf),
        },
        K::Vsrc | K::Ssrc => Act::Src { nine, vsrc: o.kind == K::Vsrc },
    };
    Slot { op: o, put, act, fast: None }
}

/// Whether the operands' kinds leave candidate `c` possible: `false` only where filling it
/// would certainly fail (a scalar register, named register or constant in a VGPR-only field),
/// so that the builder need not try it. The count and everything else is left to the fill.
#[inline]
pub(crate) fn admits(c: &super::cands::Cand, ops: &[super::Operand]) -> bool {
    use super::Operand as O;
    // An LDS-DMA buffer load fills other slots (no data operand): left to the fill.
    c.lds_slots.is_some()
        || c.slots.iter().zip(ops).all(|(s, x)| match (s.act, x) {
            (Act::Vreg { .. }, O::Reg { reg, .. }) => matches!(reg.file, RegFile::Vgpr | RegFile::Agpr),
            (Act::Vreg { .. }, O::Special { .. } | O::Int(_) | O::F32(_) | O::F64(_)) => false,
            _ => true,
        })
}
