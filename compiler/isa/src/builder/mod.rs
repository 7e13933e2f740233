//! A typed instruction builder for hand-written kernels.
//!
//! Registers, immediates and modifiers are values ([`reg`], [`operand`]); each instruction is
//! rendered to llvm-mc's syntax and encoded by the crate's assembler at once, so its size is known
//! when it is emitted. Branches to [`Label`]s are encoded with offset 0 and patched by
//! [`Builder::finish`] (range-checked). The bytes are llvm-mc's for the same text (the tests
//! compare with `llvm-mc-22 -show-encoding`).
//!
//! Automatic choices, made as llvm-mc makes them:
//! - a VALU mnemonic without an encoding suffix tries `_e32` first, then `_e64`, then the plain
//!   VOP3/VOP3P name: the first encoding that can hold the operands and modifiers wins (an SGPR in
//!   `src1`, `clamp`, `-x`/`|x|` or a non-VCC carry force `_e64`);
//! - an integer or float immediate is an inline constant when it is one, else a 32-bit literal.
//!
//! ```
//! use baregpu_isa::builder::*;
//! use baregpu_isa::{ops, Arch};
//! let mut b = Builder::new(Arch::Gfx1100);
//! let top = b.here("top");
//! b.op("v_add_f32", ops![v(1), v(2), s(3)]) // -> v_add_f32_e64 (SGPR in src1)
//!     .op("v_mul_f32", ops![v(1), 0.5f32, v(1)]) // -> v_mul_f32_e32, inline 0.5
//!     .op_mods("v_fma_f32", ops![v(4), neg(v(1)), abs(v(2)), 3.0f32], &[clamp()])
//!     .op("s_add_i32", ops![s(4), s(4), -1])
//!     .op("s_cmp_lg_u32", ops![s(4), 0])
//!     .branch("s_cbranch_scc1", top)
//!     .op("s_endpgm", ops![]);
//! let code = b.finish().unwrap();
//! assert_eq!(code.len(), b.size());
//! assert_eq!(b.usage().vgprs, 5);
//! ```

pub mod label;
pub mod operand;
pub mod reg;
pub mod resources;

use std::panic::{catch_unwind, AssertUnwindSafe};

pub use label::{branch_offset, Label};
pub use operand::{abs, clamp, lit, neg, off, offset, op_sel, raw, Mod, Omod, Operand};
pub use reg::{
    a, a_range, exec, exec_hi, exec_lo, m0, null, s, s_range, scc, ttmp, v, v_range, vcc, vcc_hi, vcc_lo, Half, Reg,
    RegFile, RegIndex, Special,
};
pub use resources::{ResourceTracker, ResourceUsage};

use crate::asm::assemble_inst;
use crate::error::{IsaError, Result};
use crate::inst::Instruction;
use crate::Arch;
use label::LabelDef;
use operand::{render, IntStyle, INT_STYLES};

/// One emitted instruction.
#[derive(Debug, Clone)]
pub struct Emitted {
    /// Byte offset from the start of the code.
    pub at: usize,
    /// The text that was encoded, with the encoding suffix chosen and the branch target by name.
    pub text: String,
    /// The same instruction as the caller wrote it (mnemonic without the chosen suffix).
    pub written: String,
    pub inst: Instruction,
    /// The branch target, patched at [`Builder::finish`].
    pub target: Option<Label>,
}

/// The instruction builder of one kernel.
#[derive(Debug, Clone)]
pub struct Builder {
    arch: Arch,
    items: Vec<Emitted>,
    labels: Vec<LabelDef>,
    size: usize,
    tracker: ResourceTracker,
    first_error: Option<IsaError>,
}

fn is_valu_mnemonic(m: &str) -> bool {
    m.starts_with("v_")
        && !m.starts_with("v_dual_")
        && !["_e32", "_e64", "_dpp", "_sdwa", "_dpp8"].iter().any(|s| m.ends_with(s))
}

fn permutations(mods: &[Mod]) -> Vec<Vec<Mod>> {
    if mods.len() <= 1 || mods.len() > 4 {
        return vec![mods.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..mods.len() {
        let mut rest = mods.to_vec();
        let m = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, m.clone());
            out.push(p);
        }
    }
    out
}

impl Builder {
    pub fn new(arch: Arch) -> Builder {
        Builder {
            arch,
            items: Vec::new(),
            labels: Vec::new(),
            size: 0,
            tracker: ResourceTracker::new(),
            first_error: None,
        }
    }

    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Code size so far, in bytes (literals included).
    pub fn size(&self) -> usize {
        self.size
    }

    /// Number of instructions emitted.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The emitted instructions, in order.
    pub fn instructions(&self) -> &[Emitted] {
        &self.items
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
        let mut base: String =
            name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '.' { c } else { '_' }).collect();
        if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
            base.insert(0, 'L');
        }
        let mut name = base.clone();
        let mut n = 0;
        while self.labels.iter().any(|l| l.name == name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.labels.push(LabelDef { name, at: None });
        Label(self.labels.len() as u32 - 1)
    }

    /// The label's (unique) name.
    pub fn label_name(&self, l: Label) -> Option<&str> {
        self.labels.get(l.0 as usize).map(|d| d.name.as_str())
    }

    /// Binds a label to the current position; binding twice is an error.
    pub fn try_bind(&mut self, l: Label) -> Result<()> {
        let (at, idx) = (self.size, self.items.len());
        let e = self.err(format!("label {} is not from this builder", l.0));
        let def = self.labels.get_mut(l.0 as usize).ok_or(e)?;
        if def.at.is_some() {
            let name = def.name.clone();
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

    fn check_operands(&self, ops: &[Operand]) -> Result<()> {
        let mut labels = 0;
        for (i, o) in ops.iter().enumerate() {
            let bad = |m: String| self.err(format!("operand {}: {m}", i + 1));
            match o {
                Operand::Reg { reg, .. } => reg.check(self.arch).map_err(bad)?,
                Operand::Special { reg, .. } => reg.check(self.arch).map_err(bad)?,
                Operand::Int(v) => {
                    if !(i32::MIN as i64..=u32::MAX as i64).contains(v) {
                        return Err(bad(format!("immediate {v} does not fit in 32 bits")));
                    }
                }
                Operand::F32(_) | Operand::Off => {}
                Operand::Label(l) => {
                    labels += 1;
                    if l.0 as usize >= self.labels.len() {
                        return Err(bad(format!("label {} is not from this builder", l.0)));
                    }
                }
                Operand::Raw(t) => {
                    if t.is_empty() || t.contains(['\n', ';']) || t.contains("//") {
                        return Err(bad(format!("bad operand text '{t}'")));
                    }
                }
            }
        }
        if labels > 1 {
            return Err(self.err("more than one label operand"));
        }
        Ok(())
    }

    fn line(m: &str, ops: &[Operand], mods: &[Mod], style: IntStyle, label: &str) -> String {
        let mut s = m.to_string();
        for (i, o) in ops.iter().enumerate() {
            s.push_str(if i == 0 { " " } else { ", " });
            s.push_str(&render(o, style, label));
        }
        for md in mods {
            s.push(' ');
            s.push_str(&md.render());
        }
        s
    }

    fn assemble(&self, text: &str) -> Result<Instruction> {
        let arch = self.arch;
        match catch_unwind(AssertUnwindSafe(|| assemble_inst(arch, text, 1, 1))) {
            Ok(r) => r,
            Err(_) => Err(IsaError::Encode(format!("internal assembler error on '{text}'"))),
        }
    }

    /// Emits one instruction; returns its size in bytes. Nothing is emitted on error.
    pub fn try_op_mods(&mut self, mnemonic: &str, ops: &[Operand], mods: &[Mod]) -> Result<usize> {
        let m = mnemonic.trim().to_ascii_lowercase();
        if m.is_empty() || !m.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(self.err(format!("bad mnemonic '{mnemonic}'")));
        }
        self.check_operands(ops)?;
        for md in mods {
            if let Mod::Raw(t) = md {
                if t.is_empty() || t.contains(['\n', ';', ',']) || t.contains("//") {
                    return Err(self.err(format!("bad modifier text '{t}'")));
                }
            }
        }
        let names: Vec<String> = if is_valu_mnemonic(&m) {
            // Only the suffixes the tables list: the assembler also takes `_e64` on a VOP3-only
            // mnemonic, which llvm-mc prints without it.
            let known =
                |n: &String| n == &m || crate::tables::Tables::get(self.arch).by_mnemonic.contains_key(n.as_str());
            [format!("{m}_e32"), format!("{m}_e64"), m.clone()].into_iter().filter(known).collect()
        } else {
            vec![m.clone()]
        };
        let mut mod_sets = permutations(mods);
        // true16 halves in a VOP3 encoding need the matching op_sel (sources, then destination).
        let halves: Vec<u8> = ops
            .iter()
            .skip(1)
            .chain(ops.first())
            .map(|o| u8::from(matches!(o, Operand::Reg { reg: Reg { half: Some(Half::Hi), .. }, .. })))
            .collect();
        if halves.contains(&1) && !mods.iter().any(|md| matches!(md, Mod::OpSel(_))) {
            let mut with = mods.to_vec();
            with.push(Mod::OpSel(halves));
            mod_sets.extend(permutations(&with));
        }
        let has_int = ops.iter().any(|o| matches!(o, Operand::Int(_)));
        let styles: &[IntStyle] = if has_int { &INT_STYLES } else { &INT_STYLES[..1] };
        let label = ops.iter().find_map(|o| if let Operand::Label(l) = o { Some(*l) } else { None });
        let mut best: Option<IsaError> = None;
        for name in &names {
            let mut name_err: Option<IsaError> = None;
            for ms in &mod_sets {
                for &style in styles {
                    let text = Builder::line(name, ops, ms, style, "0");
                    match self.assemble(&text) {
                        Ok(inst) => {
                            if label.is_some()
                                && !inst.operands().iter().any(|o| o.kind == baregpu_autogen::isa::OperandKind::Label)
                            {
                                return Err(self.err(format!("'{name}' does not take a label operand")));
                            }
                            let lname = label.and_then(|l| self.label_name(l)).unwrap_or("0").to_string();
                            let item = Emitted {
                                at: self.size,
                                // The assembler takes many spellings of one instruction; the
                                // listing shows the one llvm-mc prints.
                                text: if label.is_some() {
                                    Builder::line(name, ops, ms, style, &lname)
                                } else {
                                    crate::disasm::disassemble(&inst)
                                },
                                written: Builder::line(&m, ops, ms, style, &lname),
                                inst,
                                target: label,
                            };
                            for o in ops {
                                self.tracker.note(o);
                            }
                            let size = inst.size();
                            self.size += size;
                            self.items.push(item);
                            return Ok(size);
                        }
                        Err(e) => {
                            if name_err.is_none() {
                                name_err = Some(e);
                            }
                        }
                    }
                }
            }
            if let Some(e) = name_err {
                let unknown = e.to_string().contains("unknown mnemonic");
                if !unknown || best.is_none() {
                    best = Some(e);
                }
            }
        }
        let e = best.map(|e| e.to_string()).unwrap_or_default();
        Err(self.err(format!("'{}': {e}", Builder::line(&m, ops, mods, IntStyle::Canonical, "<label>"))))
    }

    /// [`Builder::try_op_mods`] without modifiers.
    pub fn try_op(&mut self, mnemonic: &str, ops: &[Operand]) -> Result<usize> {
        self.try_op_mods(mnemonic, ops, &[])
    }

    /// Emits one instruction; an error is recorded and returned by [`Builder::finish`].
    pub fn op(&mut self, mnemonic: &str, ops: impl AsRef<[Operand]>) -> &mut Self {
        let r = self.try_op_mods(mnemonic, ops.as_ref(), &[]);
        self.record(r)
    }

    /// Emits one instruction with modifiers (`clamp`, `offset:`, `op_sel`...).
    pub fn op_mods(&mut self, mnemonic: &str, ops: impl AsRef<[Operand]>, mods: &[Mod]) -> &mut Self {
        let r = self.try_op_mods(mnemonic, ops.as_ref(), mods);
        self.record(r)
    }

    /// A branch (`s_branch`, `s_cbranch_scc0`, `s_cbranch_execz`...) to a label.
    pub fn branch(&mut self, mnemonic: &str, target: Label) -> &mut Self {
        let r = self.try_op_mods(mnemonic, &[Operand::Label(target)], &[]);
        self.record(r)
    }

    /// One instruction written as llvm-mc text (no label operands). Registers it names are not
    /// counted by the resource tracker: reserve them.
    pub fn try_raw(&mut self, text: &str) -> Result<usize> {
        if text.contains(['\n', ';']) || text.contains("//") {
            return Err(self.err(format!("one instruction per call: '{text}'")));
        }
        let inst = self.assemble(text).map_err(|e| self.err(e.to_string()))?;
        let item = Emitted {
            at: self.size,
            text: text.trim().to_string(),
            written: text.trim().to_string(),
            inst,
            target: None,
        };
        self.size += inst.size();
        self.items.push(item);
        Ok(inst.size())
    }

    /// [`Builder::try_raw`], recording an error for [`Builder::finish`].
    pub fn raw(&mut self, text: &str) -> &mut Self {
        let r = self.try_raw(text);
        self.record(r)
    }

    /// The code: every branch patched with its label's offset. Errors: the first recorded error,
    /// an unbound label, a branch out of range.
    pub fn finish(&self) -> Result<Vec<u8>> {
        if let Some(e) = &self.first_error {
            return Err(e.clone());
        }
        let mut out = Vec::with_capacity(self.size);
        for (n, it) in self.items.iter().enumerate() {
            let mut inst = it.inst;
            if let Some(l) = it.target {
                let def = &self.labels[l.0 as usize];
                let (target, _) = def.at.ok_or_else(|| {
                    IsaError::Encode(format!("instruction {n} '{}': label '{}' is never bound", it.text, def.name))
                })?;
                let d = branch_offset(it.at, inst.size(), target)
                    .map_err(|e| IsaError::Encode(format!("instruction {n} '{}': {e}", it.text)))?;
                if !inst.set_field("simm16", d as u16 as u32) {
                    return Err(IsaError::Encode(format!("instruction {n} '{}': no simm16 field", it.text)));
                }
            }
            inst.encode_into(&mut out);
        }
        Ok(out)
    }

    fn listing_with(&self, written: bool) -> String {
        let mut s = String::new();
        for (n, it) in self.items.iter().enumerate() {
            for l in &self.labels {
                if l.at.map(|(_, i)| i) == Some(n) {
                    s.push_str(&l.name);
                    s.push_str(":\n");
                }
            }
            s.push('\t');
            s.push_str(if written { &it.written } else { &it.text });
            s.push('\n');
        }
        for l in &self.labels {
            if l.at.map(|(_, i)| i) == Some(self.items.len()) {
                s.push_str(&l.name);
                s.push_str(":\n");
            }
        }
        s
    }

    /// The code as llvm-mc text (labels included, encoding suffixes as chosen): assembling it
    /// with llvm-mc gives the bytes of [`Builder::finish`].
    pub fn listing(&self) -> String {
        self.listing_with(false)
    }

    /// The code as the caller wrote it (mnemonics without the chosen suffixes): llvm-mc's own
    /// automatic choices on this text must give the same bytes.
    pub fn listing_as_written(&self) -> String {
        self.listing_with(true)
    }
}
