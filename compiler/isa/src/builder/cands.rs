//! The encodings each constructor can choose from, per architecture, built once: for a name
//! without an encoding suffix (`v_add_f32`) its `_e32` opcodes first, then `_e64`, then the
//! plain name (VOP3-only opcodes), the order in which llvm-mc tries them. Each candidate holds
//! its started instruction (fixed bits, opcode, llvm-mc's defaults) and the field of every
//! operand, so that encoding looks nothing up by name on the common path.

use std::sync::OnceLock;

use baregpu_autogen::isa::ctors::NAMES;
use baregpu_autogen::isa::Operand as TableOperand;

use super::fast::FastPlan;
use super::plan::{self, Extra, Slot};
use crate::asm::parser::{start, Ext};
use crate::inst::Instruction;
use crate::tables::Tables;
use crate::Arch;

/// How an encoding treats its operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Shape {
    /// SOP1, SOP2, SOPK, SOPC, SOPP: a literal may follow.
    Salu,
    Smem,
    /// VOP1, VOP2, VOPC and the VOPD halves: no source modifiers; one literal.
    E32,
    /// VOP3, VOP3SD: source modifiers; a literal on gfx10+.
    Vop3,
    Vop3p,
    /// MFMA (gfx9) and WMMA (gfx11) layouts inside VOP3P: no literal.
    Matrix,
    Ds,
    /// FLAT, GLOBAL, SCRATCH.
    Flat,
    /// MUBUF, MTBUF, VBUFFER.
    Buf,
    Other,
}

impl Shape {
    fn of(format: &str) -> Shape {
        match format {
            "SOP1" | "SOP2" | "SOPK" | "SOPC" | "SOPP" => Shape::Salu,
            "SMEM" => Shape::Smem,
            "VOP1" | "VOP2" | "VOPC" | "VOPD" | "VOPD_Y" => Shape::E32,
            "VOP3" | "VOP3SD" => Shape::Vop3,
            "VOP3P" => Shape::Vop3p,
            "MFMA" | "WMMA" | "VOP3PX2" => Shape::Matrix,
            "DS" => Shape::Ds,
            "FLAT" | "GLOBAL" | "SCRATCH" => Shape::Flat,
            "MUBUF" | "MTBUF" | "VBUFFER" => Shape::Buf,
            _ => Shape::Other,
        }
    }

    pub fn is_valu(self) -> bool {
        matches!(self, Shape::E32 | Shape::Vop3 | Shape::Vop3p | Shape::Matrix)
    }
}

/// One encoding a constructor may choose.
pub(crate) struct Cand {
    /// The instruction before its operands are filled in.
    pub init: Instruction,
    pub shape: Shape,
    /// Each operand with its field, side by side: encoding reads one array, not two.
    pub slots: Box<[Slot]>,
    /// gfx9 MUBUF loads with the `lds` modifier (LDS DMA): the operands without `vdata`.
    pub lds_slots: Option<Box<[Slot]>>,
    /// MFMA: the operand indices of `vdst` and `src2`, which share the `acc_cd` bit.
    pub cd_pair: Option<(u8, u8)>,
    /// The fields modifiers and operand side effects write, resolved once.
    pub extra: Extra,
    /// Operands that are 16-bit register halves (true16, gfx1100), bit mask by position.
    pub t16: u8,
    /// Its mnemonic carries the `_e32`/`_e64` suffix the constructor's name left out.
    pub suffixed: bool,
    /// The layout's name (`VOP2`, `MFMA`, `SCRATCH`...).
    pub format: &'static str,
    /// A gfx950 `_f8f6f4` matrix op: its A and B sizes depend on the formats chosen.
    pub f8f6f4: bool,
    /// The DPP16, DPP8 or SDWA form, or `Ext::None`.
    pub ext: Ext,
    /// The fast path's plan, where the encoding has one.
    pub fast: Option<FastPlan>,
}

/// Every constructor's candidates of one architecture, by constructor id.
pub(crate) struct CtorTable {
    pub cands: Vec<Box<[Cand]>>,
}

impl std::fmt::Debug for CtorTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CtorTable({} constructors)", self.cands.len())
    }
}

/// The forms a table is built for, by index: plain, DPP16, DPP8, SDWA.
const EXTS: [Ext; 4] = [Ext::None, Ext::Dpp16, Ext::Dpp8, Ext::Sdwa];

impl CtorTable {
    /// The candidates of the plain encodings (`Ext::None`) or of one DPP/SDWA form, built on
    /// first use.
    pub fn get(arch: Arch, ext: Ext) -> &'static CtorTable {
        static T: [[OnceLock<CtorTable>; 4]; 4] = [const { [const { OnceLock::new() }; 4] }; 4];
        let e = EXTS.iter().position(|&x| x == ext).unwrap_or(0);
        T[arch as usize][e].get_or_init(|| CtorTable::build(arch, EXTS[e]))
    }

    fn build(arch: Arch, ext: Ext) -> CtorTable {
        let t = Tables::get(arch);
        let cands = NAMES
            .iter()
            .map(|&name| {
                // A name that is an alias here (`v_ffbh_u32` for `v_clz_i32_u32` on gfx11)
                // takes the candidates of the name it stands for.
                let name = match t.by_mnemonic.contains_key(name) {
                    true => name.to_string(),
                    false => crate::alias::resolve(arch, name).unwrap_or_else(|| name.to_string()),
                };
                let mut v = Vec::new();
                for (m, suffixed) in
                    [(format!("{name}_e32"), true), (format!("{name}_e64"), true), (name.clone(), false)]
                {
                    for &op in t.by_mnemonic.get(m.as_str()).map(|v| &v[..]).unwrap_or(&[]) {
                        // VOPD halves are made in pairs by `Builder::dual` only, exports by
                        // `Builder::export_to`.
                        if t.op(op).format.starts_with("VOPD") || t.op(op).format == "EXP" {
                            continue;
                        }
                        if let Some(c) = cand(arch, op, suffixed, ext) {
                            v.push(c);
                        }
                    }
                }
                v.into_boxed_slice()
            })
            .collect();
        CtorTable { cands }
    }
}

/// The candidate of opcode `op` in form `ext`; `None` where the opcode has no such form.
pub(crate) fn cand(arch: Arch, op: u32, suffixed: bool, ext: Ext) -> Option<Cand> {
    let t = Tables::get(arch);
    let mut init = start(arch, op, ext)?;
    if crate::ext_forms::refusal(&init).is_some() {
        return None;
    }
    // GWS operations require gds (asm::gws), which the builder has no modifier for: always set.
    if crate::asm::gws::applies(&init) {
        init.set_field("gds", 1);
    }
    let operands: &'static [TableOperand] = &t.operands[op as usize];
    let m = t.op(op).mnemonic;
    let f = init.format();
    // A DPP or SDWA form treats its operands as the encoding it extends.
    let shape = Shape::of(if ext == Ext::None { f.name } else { f.parent.unwrap_or(f.name) });
    // Its `vdst` field holds a scalar register (VOP3 compares, v_readlane, v_readfirstlane).
    let scalar_vdst = m.starts_with("v_cmp") && shape == Shape::Vop3
        || m.starts_with("v_readlane")
        || m.starts_with("v_readfirstlane");
    let t16 = t.t16[op as usize];
    let slots: Box<[Slot]> = operands
        .iter()
        .enumerate()
        .map(|(k, &o)| plan::slot(&init, shape, ext, o, scalar_vdst, t16 >> k & 1 != 0))
        .collect();
    let lds_dma = init.format().name == "MUBUF" && lds_dma(arch, m);
    let lds_slots = lds_dma.then(|| slots.iter().copied().filter(|s| s.op.name != "vdata").collect());
    let (format, f8f6f4) = (init.format().name, m.ends_with("_f8f6f4"));
    let extra = Extra::of(&init, shape);
    let index = |name: &str| slots.iter().position(|s| s.op.name == name).map(|k| k as u8);
    let cd_pair = extra.acc_cd.and_then(|_| Some((index("vdst")?, index("src2")?)));
    let mut c = Cand { init, shape, slots, lds_slots, cd_pair, extra, t16, suffixed, format, f8f6f4, ext, fast: None };
    c.fast = FastPlan::of(&c);
    Some(c)
}

/// The gfx9 buffer loads that take `lds` (LDS DMA), as llvm-mc 22 accepts them: gfx950 adds the
/// 96- and 128-bit loads.
fn lds_dma(arch: Arch, m: &str) -> bool {
    let Some(kind) = m.strip_prefix("buffer_load_") else { return false };
    matches!(kind, "dword" | "ubyte" | "sbyte" | "ushort" | "sshort" | "format_x")
        || arch == Arch::Gfx950 && matches!(kind, "dwordx3" | "dwordx4")
}

/// A constructor's id by name.
pub fn ctor_id(name: &str) -> Option<u16> {
    NAMES.binary_search(&name).ok().map(|i| i as u16)
}
