//! A typed instruction builder for hand-written kernels and code generators.
//!
//! Every instruction has a constructor generated from the instruction tables
//! ([`Ctors`], autogen/src/isa/ctors.rs): `b.s_mov_b32(s(47), s(2))`, `b.v_add_f32(v(1), v(2),
//! v(3))`. Operands are values ([`reg`], [`operand`]); they are checked against the operand
//! kinds of the encoding when the instruction is built (a VGPR where an SGPR is required, an
//! immediate that does not fit, a misaligned range: an error naming the operand) and written
//! straight into the instruction words ([`Instruction`]): no text is made or parsed. Modifiers
//! for the next instruction are given first: `b.mods([clamp()]).v_add_f32(..)`.
//!
//! Encodings are chosen as llvm-mc chooses them: a name without an encoding suffix tries `_e32`
//! first, then `_e64`, then the plain VOP3/VOP3P opcode, and the first encoding that can hold the
//! operands and modifiers wins (an SGPR in `src1`, `clamp`, `-x`/`|x|` or a non-VCC carry force
//! `_e64`); an integer or float immediate is an inline constant when it is one, else a literal.
//! DPP16, DPP8 and SDWA forms are chosen by their modifiers ([`dpp`]: `row_shl(1)`,
//! `dpp8([..])`, `dst_sel(SdwaSel::Word1)`...); VOPD pairs are built with [`Builder::dual`] and
//! exports with [`Builder::export_to`] ([`export`]).
//! Branches to [`Label`]s are encoded with offset 0 and patched by [`Builder::finish`]
//! (range-checked). [`Builder::listing`] prints the code with the disassembler, for people and
//! for llvm-mc (the tests assemble it and compare the bytes).
//!
//! ```
//! use baregpu_isa::builder::*;
//! use baregpu_isa::Arch;
//! let mut b = Builder::new(Arch::Gfx1100);
//! let top = b.here("top");
//! b.v_add_f32(v(1), v(2), s(3)) // -> v_add_f32_e64 (SGPR in src1)
//!     .v_mul_f32(v(1), 0.5f32, v(1)) // -> v_mul_f32_e32, inline 0.5
//!     .mods([clamp()])
//!     .v_fma_f32(v(4), neg(v(1)), abs(v(2)), 3.0f32)
//!     .s_add_i32(s(4), s(4), -1)
//!     .s_cmp_lg_u32(s(4), 0)
//!     .s_cbranch_scc1(top)
//!     .s_endpgm();
//! let code = b.finish().unwrap();
//! assert_eq!(code.len(), b.size());
//! assert_eq!(b.usage().vgprs, 5);
//! ```

mod cands;
pub mod dpp;
mod encode;
pub mod export;
mod fast;
#[cfg(test)]
mod fast_check;
mod finish;
pub mod intern;
pub mod label;
mod modified;
mod mods;
pub mod operand;
mod plan;
pub mod reg;
pub mod resources;
pub mod speed;
pub mod symbolic;
pub mod vopd;

pub use baregpu_autogen::isa::ctors::Ctors;
pub use cands::ctor_id;
pub use dpp::{
    bank_mask, bound_ctrl, dpp16_form, dpp8, dst_sel, dst_unused, fi, quad_perm, row_half_mirror, row_mask, row_mirror,
    row_newbcast, row_ror, row_share, row_shl, row_shr, row_xmask, sdwa_form, src0_sel, src1_sel, DppCtrl, DstUnused,
    SdwaSel,
};
pub use export::{ExpTarget, Export};
pub use intern::Interned;
pub use label::{branch_offset, Label};
pub use operand::{
    abid, abs, attr, blgp, cbsz, clamp, expcnt, fabs, field, flag, fneg, lgkmcnt, lit, neg, off, offset, op_sel,
    op_sel_hi, sext, vmcnt, Attr, Base, BitList, Flag, Mod, Omod, Operand, Waitcnt,
};
pub use reg::{
    a, a_range, exec, exec_hi, exec_lo, m0, null, s, s_range, scc, ttmp, v, v_range, vcc, vcc_hi, vcc_lo, Half, Reg,
    RegFile, RegIndex, Special,
};
pub use resources::{ResourceTracker, ResourceUsage};
pub use symbolic::{hwreg, hwreg_bits, sendmsg, sendmsg_op, Hwreg, Sendmsg, Sym};
pub use vopd::DualHalf;

use std::collections::{HashMap, HashSet};

use baregpu_autogen::isa::ctors::NAMES;

use crate::asm::parser::Ext;
use crate::disasm::disassemble;
use crate::error::{IsaError, Result};
use crate::inst::Instruction;
use crate::Arch;
use cands::{Cand, CtorTable};
use encode::{describe, Fail, Fill};
use fast::{FastPlan, Verdict};
use label::{FnvBuild, LabelDef};

/// One emitted instruction.
#[derive(Debug, Clone, Copy)]
pub struct Emitted {
    /// Byte offset from the start of the code.
    pub at: usize,
    /// The encoded instruction (a branch with offset 0 until [`Builder::finish`]).
    pub inst: Instruction,
    /// The branch target, patched at [`Builder::finish`].
    pub target: Option<Label>,
    /// The constructor's name left out the `_e32`/`_e64` suffix the chosen encoding has.
    pub suffix_chosen: bool,
}

/// What the builder keeps of an emitted instruction besides its words: 12 bytes, since a code
/// generator emits millions (the rare VOPD Y opcode and branch target are kept aside).
#[derive(Debug, Clone, Copy)]
struct Item {
    /// Index of its first word in `Builder::code`.
    word: u32,
    op: u32,
    fmt: u16,
    ndwords: u8,
    /// `LITERAL`, `SUFFIX_CHOSEN`.
    flags: u8,
}

/// [`Item::flags`]: a literal dword follows the instruction's words.
const LITERAL: u8 = 1;
/// [`Item::flags`]: the constructor's name left out the `_e32`/`_e64` suffix chosen.
const SUFFIX_CHOSEN: u8 = 2;

/// The instruction builder of one kernel.
#[derive(Debug, Clone)]
pub struct Builder {
    arch: Arch,
    /// Every instruction's words (literals included), in order: the code before branch fixups.
    code: Vec<u32>,
    items: Vec<Item>,
    /// (item, label) of the items that branch to a label, in item order.
    branches: Vec<(u32, u32)>,
    /// (item, Y opcode) of the VOPD items, in item order.
    vopd_y: Vec<(u32, u32)>,
    /// The plain encodings' candidates of this architecture (the common case), looked up once.
    plain: &'static CtorTable,
    labels: Vec<LabelDef>,
    /// The labels' names' hashes ([`label::name_hash`]), kept unique.
    label_names: HashSet<u64, label::HashBuild>,
    /// Every label's name, one after the other ([`LabelDef::name`]).
    label_text: String,
    label_next: HashMap<String, u32, FnvBuild>,
    tracker: ResourceTracker,
    first_error: Option<IsaError>,
    /// Modifiers for the next instruction ([`Builder::mods`]).
    pending: Vec<Mod>,
}

impl Ctors for Builder {
    type Op = Operand;

    // One copy, out of line, with the fast path inlined: the generated constructors stay small
    // enough to inline into the caller, and a built instruction makes one call, not two.
    #[inline(never)]
    fn ctor(&mut self, id: u16, ops: &[Operand]) -> &mut Self {
        if self.pending.len() > 1 {
            return self.ctor_mods(id, ops);
        }
        // No modifier or one (a DS `offset:`, say): taken out by copy, so that one inlined
        // `emit` serves both, the common cases.
        let one = self.pending.pop();
        let mods = one.as_slice();
        if self.emit(id, ops, mods).is_none() {
            let e = self.why_not(id, ops, mods);
            return self.record::<()>(Err(e));
        }
        self
    }
}

impl Builder {
    /// [`Ctors::ctor`] with two or more modifiers of [`Builder::mods`].
    #[inline(never)]
    fn ctor_mods(&mut self, id: u16, ops: &[Operand]) -> &mut Self {
        let mut mods = std::mem::take(&mut self.pending);
        let r = match self.emit(id, ops, &mods) {
            Some(_) => Ok(()),
            None => Err(self.why_not(id, ops, &mods)),
        };
        // The vector goes back for the next instruction's modifiers: no allocation per call.
        mods.clear();
        self.pending = mods;
        self.record(r)
    }
}

impl Builder {
    pub fn new(arch: Arch) -> Builder {
        Builder {
            arch,
            code: Vec::new(),
            items: Vec::new(),
            branches: Vec::new(),
            vopd_y: Vec::new(),
            plain: CtorTable::get(arch, Ext::None),
            labels: Vec::new(),
            label_names: HashSet::default(),
            label_text: String::new(),
            label_next: HashMap::default(),
            tracker: ResourceTracker::new(),
            first_error: None,
            pending: Vec::new(),
        }
    }

    /// Room for `instructions` more instructions (words and bookkeeping), for a caller that
    /// knows its size: a growing code vector is reallocated and copied, and its new pages are
    /// touched again, about log2(n) times.
    pub fn reserve(&mut self, instructions: usize) {
        // Two words an instruction: most are one or two dwords, some carry a literal.
        self.code.reserve(instructions.saturating_mul(2));
        self.items.reserve(instructions);
    }

    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Code size so far, in bytes (literals included): every word is in `code`.
    pub fn size(&self) -> usize {
        self.code.len() * 4
    }

    /// Number of instructions emitted.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The emitted instructions, in order.
    pub fn instructions(&self) -> Vec<Emitted> {
        (0..self.items.len()).map(|n| self.emitted(n)).collect()
    }

    /// Instruction `n` as emitted (branch offsets 0).
    fn emitted(&self, n: usize) -> Emitted {
        let it = &self.items[n];
        let w = it.word as usize;
        let mut words = [0; 4];
        words[..it.ndwords as usize].copy_from_slice(&self.code[w..w + it.ndwords as usize]);
        let aside = |v: &[(u32, u32)]| v.binary_search_by_key(&(n as u32), |e| e.0).ok().map(|k| v[k].1);
        let inst = Instruction {
            words,
            op: it.op,
            op_y: aside(&self.vopd_y),
            literal: (it.flags & LITERAL != 0).then(|| self.code[w + it.ndwords as usize]),
            fmt: it.fmt,
            ndwords: it.ndwords,
            arch: self.arch,
        };
        let target = aside(&self.branches).map(Label);
        Emitted { at: w * 4, inst, target, suffix_chosen: it.flags & SUFFIX_CHOSEN != 0 }
    }

    /// Registers used so far (plus the reservations).
    pub fn usage(&self) -> ResourceUsage {
        self.tracker.usage()
    }

    /// The tracker, for reservations (`reserve_sgprs`, `reserve_vgprs`, `note_vcc`).
    pub fn tracker_mut(&mut self) -> &mut ResourceTracker {
        &mut self.tracker
    }

    /// The first error any chained call recorded.
    pub fn error(&self) -> Option<&IsaError> {
        self.first_error.as_ref()
    }

    fn err(&self, msg: impl Into<String>) -> IsaError {
        IsaError::Encode(format!("{} instruction {}: {}", self.arch.name(), self.items.len(), msg.into()))
    }

    fn record<T>(&mut self, r: Result<T>) -> &mut Self {
        if let Err(e) = r {
            if self.first_error.is_none() {
                self.first_error = Some(e);
            }
        }
        self
    }

    /// A new, unbound label. Names are made unique (`loop`, `loop_1`...) and must be usable as
    /// assembler labels: other characters are replaced by `_`.
    pub fn label(&mut self, name: &str) -> Label {
        // A valid name (the common case) is used as it is: no copy to check it against.
        let mut base = label::base_name(name);
        // Per base name, the next suffix to try: a code generator makes thousands of `loop`s.
        let slot = self.label_next.get_mut(base.as_ref());
        let mut next = slot.as_ref().map_or(0, |n| **n);
        let start = self.label_text.len();
        // The names taken, by hash: a name whose hash is taken (another name's, in the rare
        // collision) counts as taken too, so names stay unique with no copy of each kept.
        loop {
            self.label_text.truncate(start);
            self.label_text.push_str(&base);
            if next != 0 {
                label::push_suffix(&mut self.label_text, next);
            }
            if self.label_names.insert(label::name_hash(&self.label_text[start..])) {
                break;
            }
            next += 1;
        }
        match slot {
            Some(n) => *n = next + 1,
            None => {
                self.label_next.insert(std::mem::take(base.to_mut()), next + 1);
            }
        }
        let name = (start as u32, self.label_text.len() as u32);
        self.labels.push(LabelDef { name, at: None });
        Label(self.labels.len() as u32 - 1)
    }

    fn def_name(&self, d: &LabelDef) -> &str {
        self.label_text.get(d.name.0 as usize..d.name.1 as usize).unwrap_or("?")
    }

    /// The label's (unique) name.
    pub fn label_name(&self, l: Label) -> Option<&str> {
        self.labels.get(l.0 as usize).map(|d| self.def_name(d))
    }

    /// Binds a label to the current position; binding twice is an error.
    pub fn try_bind(&mut self, l: Label) -> Result<()> {
        let (at, idx) = (self.size(), self.items.len());
        if l.0 as usize >= self.labels.len() {
            return Err(self.err(format!("label {} is not from this builder", l.0)));
        }
        let def = &mut self.labels[l.0 as usize];
        if def.at.is_some() {
            let name = self.label_text.get(def.name.0 as usize..def.name.1 as usize).unwrap_or("?").to_string();
            return Err(self.err(format!("label '{name}' bound twice")));
        }
        def.at = Some((at, idx));
        Ok(())
    }

    /// [`Builder::try_bind`], recording an error for [`Builder::finish`].
    pub fn bind(&mut self, l: Label) -> &mut Self {
        let r = self.try_bind(l);
        self.record(r)
    }

    /// A new label bound here.
    pub fn here(&mut self, name: &str) -> Label {
        let l = self.label(name);
        self.bind(l);
        l
    }

    /// Modifiers (`clamp`, `offset:`, `op_sel`...) for the next instruction only.
    pub fn mods(&mut self, mods: impl IntoIterator<Item = Mod>) -> &mut Self {
        self.pending.clear();
        self.pending.extend(mods);
        self
    }

    /// Emits instruction `NAMES[id]` (see [`Ctors`]); returns its size in bytes. Nothing is
    /// emitted on error.
    pub fn try_emit(&mut self, id: u16, ops: &[Operand], mods: &[Mod]) -> Result<usize> {
        match self.emit(id, ops, mods) {
            Some(size) => Ok(size),
            None => Err(self.why_not(id, ops, mods)),
        }
    }

    /// Emits the instruction with the first encoding that holds it; `None` (nothing emitted)
    /// when none does. The common path: the fast fill of the first candidate, no message made.
    #[inline(always)]
    fn emit(&mut self, id: u16, ops: &[Operand], mods: &[Mod]) -> Option<usize> {
        let (cands, words) = (self.cands(id, mods), self.code.len());
        let tried = match cands.first().map(|c| (c, &c.fast)) {
            Some((c, Some(plan))) => match self.emit_fast(c, plan, ops, mods) {
                Verdict::Fits => return Some((self.code.len() - words) * 4),
                Verdict::No => return self.emit_next(&cands[1..], ops, mods),
                Verdict::Unsure => true,
            },
            _ => false,
        };
        self.emit_general(cands, tried, ops, mods)
    }

    /// [`Builder::emit`] from the second candidate, the first ruled out (`_e32` with an SGPR
    /// in `vsrc1`): the fast paths, then the general fill from the first they leave to it.
    /// Inlined into the one `ctor`: a common case (an SGPR `src1` forces VOP3), and a call here
    /// cost more than the code it adds.
    #[inline(always)]
    fn emit_next(&mut self, cands: &'static [Cand], ops: &[Operand], mods: &[Mod]) -> Option<usize> {
        let words = self.code.len();
        for (k, c) in cands.iter().enumerate() {
            if let Some(plan) = &c.fast {
                match self.emit_fast(c, plan, ops, mods) {
                    Verdict::Fits => return Some((self.code.len() - words) * 4),
                    Verdict::No => continue,
                    Verdict::Unsure => {}
                }
            }
            return self.emit_general(&cands[k..], c.fast.is_some(), ops, mods);
        }
        None
    }

    /// [`Builder::emit`] past the fast path of the first candidate (`tried`: it was tried and
    /// left the candidate to the general fill). Out of line: the common path stays small.
    #[inline(never)]
    fn emit_general(&mut self, cands: &'static [Cand], tried: bool, ops: &[Operand], mods: &[Mod]) -> Option<usize> {
        for (k, c) in cands.iter().enumerate() {
            if let (Some(plan), false) = (&c.fast, k == 0 && tried) {
                let words = self.code.len();
                match self.emit_fast(c, plan, ops, mods) {
                    Verdict::Fits => return Some((self.code.len() - words) * 4),
                    Verdict::No => continue,
                    Verdict::Unsure => {}
                }
            }
            // An encoding the operands' kinds rule out is not tried (`_e32` with an SGPR in a
            // VGPR-only field); `why_not` tries every one for the error.
            if !plan::admits(c, ops) {
                continue;
            }
            let lds = !mods.is_empty() && mods.contains(&Mod::Flag(Flag::Lds));
            let mut f = Fill::new(c, self.arch, lds);
            f.quiet = true;
            if f.operands(ops).is_ok() && (mods.is_empty() || f.mods(mods).is_ok()) && f.finish().is_ok() {
                if f.target.is_some_and(|l| l.0 as usize >= self.labels.len()) {
                    return None;
                }
                self.tracker.note_used(f.used, f.vcc);
                self.push(&f.i, f.target, c.suffixed);
                return Some(f.i.size());
            }
        }
        None
    }

    /// Why [`Builder::emit`] found no encoding, naming the operand where one is at fault.
    #[cold]
    #[inline(never)]
    fn why_not(&self, id: u16, ops: &[Operand], mods: &[Mod]) -> IsaError {
        let cands = self.cands(id, mods);
        let name = NAMES.get(id as usize).copied().unwrap_or("?");
        if cands.is_empty() {
            if name.starts_with("v_dual_") {
                return self.err(format!("{name} is half of a VOPD pair: emit it with Builder::dual"));
            }
            if matches!(name, "exp" | "export") {
                return self.err(format!("{name}: emit exports with Builder::export_to"));
            }
            let form = match dpp::ext_of(mods) {
                Ext::Dpp16 => " in a DPP16 form",
                Ext::Dpp8 => " in a DPP8 form",
                Ext::Sdwa => " in an SDWA form",
                _ => "",
            };
            return self.err(format!("{name} is not an instruction of {}{form}", self.arch.name()));
        }
        if let Some(l) = ops.iter().find_map(|o| match o {
            Operand::Label(l) if l.0 as usize >= self.labels.len() => Some(l),
            _ => None,
        }) {
            return self.err(format!("{name}: label {} is not from this builder", l.0));
        }
        // Every encoding failed: the reason of the one that got furthest, as (rank, error) with
        // rank 0 for a wrong operand count, k + 1 for operand k, and the most for a modifier.
        let mut best: Option<(usize, Fail)> = None;
        let lds = mods.contains(&Mod::Flag(Flag::Lds));
        for c in cands {
            let mut f = Fill::new(c, self.arch, lds);
            let r = f.operands(ops).map_err(|e| (e.operand().map_or(0, |k| k + 1), e)).and_then(|()| {
                f.mods(mods).map_err(|e| (usize::MAX, e))?;
                f.finish().map_err(|e| (usize::MAX, e))
            });
            if let Err((rank, e)) = r {
                if best.as_ref().is_none_or(|(r, _)| rank > *r) {
                    best = Some((rank, e));
                }
            }
        }
        let e = best.map_or(Fail::new(None, "no encoding"), |(_, e)| e).why();
        let msg = match e.operand {
            Some(k) => format!("{name} operand {} ({}): {}", k + 1, describe(&ops[k]), e.msg),
            None => format!("{name}: {}", e.msg),
        };
        self.err(msg)
    }

    /// The candidates of constructor `id` in the form the modifiers select (see [`dpp`]).
    #[inline]
    fn cands(&self, id: u16, mods: &[Mod]) -> &'static [Cand] {
        // No modifier or a memory offset alone (the common cases): the plain encodings.
        let ext = match mods {
            [] | [Mod::Offset(_)] => Ext::None,
            _ => dpp::ext_of(mods),
        };
        let get = |ext| {
            let t = if ext == Ext::None { self.plain } else { CtorTable::get(self.arch, ext) };
            t.cands.get(id as usize).map_or(&[][..], |c| &c[..])
        };
        let c = get(ext);
        // gfx950 v_permlane*_swap take `fi` and `bound_ctrl` without being DPP.
        if c.is_empty()
            && ext == Ext::Dpp16
            && mods.iter().all(|m| !matches!(m, Mod::Dpp(_) | Mod::DppForm | Mod::RowMask(_) | Mod::BankMask(_)))
        {
            return get(Ext::None);
        }
        c
    }

    /// The fast path of candidate `c` (see [`Builder::emit`]): on [`Verdict::Fits`] the words
    /// are emitted straight into the code, no [`Instruction`] made; otherwise nothing changes.
    #[inline(always)]
    fn emit_fast(&mut self, c: &Cand, plan: &FastPlan, ops: &[Operand], mods: &[Mod]) -> Verdict {
        let mut f = plan.start();
        // The fill notes registers in the tracker as it goes: put back unless it fits.
        let used = self.tracker.used;
        let mut v = plan.fill(&mut f, ops, mods, &mut self.tracker.used);
        if v == Verdict::Fits && f.target.is_some_and(|l| l.0 as usize >= self.labels.len()) {
            // (A label from another builder: the general path makes the error.)
            v = Verdict::Unsure;
        }
        if v != Verdict::Fits {
            self.tracker.used = used;
            return v;
        }
        self.tracker.set_vcc(f.vcc);
        let n = self.items.len() as u32;
        if let Some(l) = f.target {
            self.branches.push((n, l.0));
        }
        let word = self.code.len();
        let nd = c.init.ndwords;
        // One fixed-size copy of the four words, cut back (a variable one is a call to memcpy).
        self.code.extend_from_slice(&f.words);
        self.code.truncate(word + nd as usize);
        let mut flags = if c.suffixed { SUFFIX_CHOSEN } else { 0 };
        if let Some(l) = f.lit {
            self.code.push(l);
            flags |= LITERAL;
        }
        self.items.push(Item { word: word as u32, op: c.init.op, fmt: c.init.fmt, ndwords: nd, flags });
        Verdict::Fits
    }

    #[inline]
    fn push(&mut self, inst: &Instruction, target: Option<Label>, suffix_chosen: bool) {
        let word = self.code.len() as u32;
        // Fixed-size copies (a variable one is a call to memcpy).
        match inst.ndwords {
            1 => self.code.push(inst.words[0]),
            2 => self.code.extend_from_slice(&inst.words[..2]),
            3 => self.code.extend_from_slice(&inst.words[..3]),
            _ => self.code.extend_from_slice(&inst.words),
        }
        if let Some(l) = inst.literal {
            self.code.push(l);
        }
        let n = self.items.len() as u32;
        if let Some(l) = target {
            self.branches.push((n, l.0));
        }
        if let Some(y) = inst.op_y {
            self.vopd_y.push((n, y));
        }
        let flags = if inst.literal.is_some() { LITERAL } else { 0 } | if suffix_chosen { SUFFIX_CHOSEN } else { 0 };
        self.items.push(Item { word, op: inst.op, fmt: inst.fmt, ndwords: inst.ndwords, flags });
    }

    /// [`Builder::try_emit`] by instruction name (a constructor's name: a mnemonic, or one
    /// without its `_e32`/`_e64` suffix), for callers that choose instructions at run time.
    pub fn try_op_mods(&mut self, name: &str, ops: &[Operand], mods: &[Mod]) -> Result<usize> {
        match ctor_id(name) {
            Some(id) => self.try_emit(id, ops, mods),
            None => Err(self.err(format!("unknown instruction '{name}'"))),
        }
    }

    /// [`Builder::try_op_mods`] without modifiers.
    pub fn try_op(&mut self, name: &str, ops: &[Operand]) -> Result<usize> {
        self.try_op_mods(name, ops, &[])
    }

    /// [`Builder::try_op_mods`], recording an error for [`Builder::finish`].
    pub fn op_mods(&mut self, name: &str, ops: impl AsRef<[Operand]>, mods: &[Mod]) -> &mut Self {
        let r = self.try_op_mods(name, ops.as_ref(), mods);
        self.record(r)
    }

    /// [`Builder::op_mods`] without modifiers.
    pub fn op(&mut self, name: &str, ops: impl AsRef<[Operand]>) -> &mut Self {
        self.op_mods(name, ops, &[])
    }

    /// The instruction at `n` with its branch patched.
    fn resolved(&self, n: usize) -> Result<Instruction> {
        let it = self.emitted(n);
        match it.target {
            Some(l) => self.patched(n, l.0),
            None => Ok(it.inst),
        }
    }

    fn listing_with(&self, written: bool) -> String {
        let items = self.instructions();
        let insts: Vec<Instruction> = (0..items.len()).map(|n| self.resolved(n).unwrap_or(items[n].inst)).collect();
        let mut s = String::new();
        let labels_at = |s: &mut String, n: usize| {
            for l in self.labels.iter().filter(|l| l.at.map(|(_, i)| i) == Some(n)) {
                s.push_str(self.def_name(l));
                s.push_str(":\n");
            }
        };
        for (n, (it, inst)) in items.iter().zip(&insts).enumerate() {
            labels_at(&mut s, n);
            let mut text = disassemble(inst);
            if let Some(name) = it.target.and_then(|l| self.label_name(l)) {
                // The branch offset printed as a number, shown as its label.
                let cut = text.rfind([' ', ',']).map_or(text.len(), |p| p + 1);
                text.truncate(cut);
                text.push_str(name);
            }
            if written && it.suffix_chosen {
                let m = text.split(' ').next().unwrap_or("").len();
                if text[..m].ends_with("_e32") || text[..m].ends_with("_e64") {
                    text.replace_range(m - 4..m, "");
                }
            }
            s.push('\t');
            s.push_str(&text);
            s.push('\n');
        }
        labels_at(&mut s, self.items.len());
        s
    }

    /// The code as llvm-mc text printed by the disassembler from the words (labels included,
    /// encoding suffixes as chosen): assembling it with llvm-mc gives the bytes of
    /// [`Builder::finish`]. For people and tests; never used for encoding.
    pub fn listing(&self) -> String {
        self.listing_with(false)
    }

    /// [`Builder::listing`] without the `_e32`/`_e64` suffixes the builder chose: llvm-mc's own
    /// automatic choices on this text must give the same bytes.
    pub fn listing_as_written(&self) -> String {
        self.listing_with(true)
    }
}
