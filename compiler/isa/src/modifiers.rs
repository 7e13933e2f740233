//! Which modifier bits of a VOP3, VOP3P or VINTERP word llvm-mc 22's assembler writes for an
//! opcode, and whether it takes the `_e64` suffix: the generated table
//! `baregpu_autogen::isa::modifiers` (probed per opcode by adding each modifier to a golden line,
//! autogen/gen/src/isa/modifiers.rs). llvm-mc refuses neg/abs on gfx1100 `v_readlane_b32`'s lane
//! select, `op_sel` on gfx9 `v_add_f32_e64`, `op_sel_hi` on gfx950 `v_dot2_f32_f16`, `_e64` on
//! gfx1100 `v_readlane_b32`, though its disassembler prints such words.
//!
//! One rule for the assembler and the builder (an instruction setting a bit no modifier writes
//! is refused, naming the modifier) and for the disassembler (such a word prints as `.long`).
//! Where an opcode is in the table, its VOP3 neg/abs bits are judged here rather than by the
//! disassembler-derived flags of `src_mods`.

use baregpu_autogen::isa::modifier_bits::{
    layout_mask, pack, word_bit, NAME_ABID, NAME_BLGP, NAME_CBSZ, NAME_CLAMP, NAME_E64, NAME_NEG, NAME_NEG_HI,
    NAME_NEG_LO, NAME_OMOD, NAME_OP_SEL, NAME_OP_SEL_HI, NAME_OP_SEL_WHOLE,
};
use baregpu_autogen::isa::modifiers as gen;

use crate::inst::Instruction;
use crate::op_table::PerArch;
use crate::Arch;

/// One probed opcode: the modifier bits of a word no modifier changes, those some modifier
/// changes (both packed), and the modifiers llvm-mc takes at all (`NAME_*`).
#[derive(Clone, Copy)]
struct Entry {
    default: u16,
    writable: u16,
    names: u16,
}

/// Per opcode index of `arch`, its entry where it was probed.
fn entries(arch: Arch) -> &'static [Option<Entry>] {
    static M: PerArch<Entry> = PerArch::new();
    // By mnemonic and format: VOP1 `v_nop` shares the name of the VOP3 one probed.
    let probed = |o: &baregpu_autogen::isa::Opcode| matches!(o.format, "VOP3" | "VOP3P" | "VINTERP");
    M.get(arch, probed, || {
        let list = match arch {
            Arch::Gfx1100 => gen::GFX1100,
            Arch::Gfx1201 => gen::GFX1201,
            Arch::Gfx942 => gen::GFX942,
            Arch::Gfx950 => gen::GFX950,
        };
        list.iter().map(|&(m, default, writable, names)| (m, Entry { default, writable, names })).collect()
    })
}

/// Whether opcode `op` (an index into `arch`'s table) was probed: its VOP3 neg/abs are judged
/// here.
pub(crate) fn probed(arch: Arch, op: u32) -> bool {
    entries(arch).get(op as usize).is_some_and(Option::is_some)
}

/// Whether llvm-mc refuses opcode `op` of `arch` written with `_e64` (gfx1100 `v_readlane_b32`).
pub(crate) fn e64_refused(arch: Arch, op: u32) -> bool {
    entries(arch).get(op as usize).copied().flatten().is_some_and(|e| e.names & NAME_E64 == 0)
}

/// Whether llvm-mc refuses `op_sel` on `i` written with whole registers in its 16-bit operands
/// (gfx11 `v_add_f16_e64 v1, v2, v3 op_sel:[0,0,0]`: its fake16 form has no op_sel).
pub(crate) fn whole_op_sel_refused(i: &Instruction) -> bool {
    entries(i.arch).get(i.op as usize).copied().flatten().is_some_and(|e| e.names & NAME_OP_SEL_WHOLE == 0)
}

/// What sets a refused bit: a source's `-x`/`|x|`, or a named modifier (`op_sel`, `clamp`...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Culprit {
    Src(usize),
    Mod(&'static str),
}

/// The packed modifier bits `i` sets that no modifier of its opcode writes (0: none).
fn refused_bits(i: &Instruction) -> u16 {
    let Some(e) = entries(i.arch).get(i.op as usize).copied().flatten() else { return swap_refused_bits(i) };
    let q = u64::from(i.words[0]) | u64::from(i.words[1]) << 32;
    // The layout's mask (a match on its name) only where some bit differs, rarely.
    let bad = (pack(q) ^ e.default) & !e.writable;
    if bad == 0 {
        return 0;
    }
    bad & layout_mask(i.opcode().layout)
}

/// gfx950 `v_permlane*_swap_e64` (not probed: its op_sel bits 0 and 1 are `fi` and
/// `bound_ctrl`): llvm-mc refuses every other modifier on it (`clamp`, `mul:2`, `|x|`, `-x`,
/// `op_sel`), so any other packed bit is one no line writes.
fn swap_refused_bits(i: &Instruction) -> u16 {
    const FI_BOUND_CTRL: u16 = 0x18;
    let m = i.mnemonic();
    if i.format().name != "VOP3" || !(m.starts_with("v_permlane") && m.contains("_swap")) {
        return 0;
    }
    pack(u64::from(i.words[0]) | u64::from(i.words[1]) << 32) & !FI_BOUND_CTRL
}

/// Whether `i` sets a modifier bit llvm-mc's assembler writes for no line of its opcode.
pub(crate) fn refused(i: &Instruction) -> bool {
    refused_bits(i) != 0
}

/// Why llvm-mc refuses `i`'s modifiers (what sets the first refused bit, and a message), or
/// `Ok` where it takes them.
pub(crate) fn check(i: &Instruction) -> Result<(), (Culprit, String)> {
    let bad = refused_bits(i);
    if bad == 0 {
        return Ok(());
    }
    let k = bad.trailing_zeros();
    let (culprit, what) = name(i.opcode().layout, i.mnemonic(), k);
    let m = i.mnemonic();
    // llvm-mc refuses most such modifiers; a few it takes and writes no bit for (a compare's
    // destination op_sel entry), which ours refuses rather than drop.
    Err((culprit, format!("{what}: {m} takes no such modifier on {} (llvm-mc 22 refuses or drops it)", i.arch.name())))
}

/// The name bit of a modifier the probes try.
fn name_bit(name: &str) -> u16 {
    match name {
        "op_sel" => NAME_OP_SEL,
        "op_sel_hi" => NAME_OP_SEL_HI,
        "neg_lo" => NAME_NEG_LO,
        "neg_hi" => NAME_NEG_HI,
        "clamp" => NAME_CLAMP,
        "mul" | "div" => NAME_OMOD,
        "cbsz" => NAME_CBSZ,
        "abid" => NAME_ABID,
        "blgp" => NAME_BLGP,
        "neg" => NAME_NEG,
        _ => 0,
    }
}

/// Why modifier `name` cannot be written on `i` at all: its opcode was probed and llvm-mc
/// refuses the modifier whatever its value (`op_sel` on gfx9 `v_trunc_f32_e64`).
pub(crate) fn name_refusal(i: &Instruction, name: &str) -> Option<String> {
    let e = entries(i.arch).get(i.op as usize).copied().flatten()?;
    let bit = name_bit(name);
    (bit != 0 && e.names & bit == 0)
        .then(|| format!("{name}: {} takes no {name} on {} (llvm-mc 22 refuses it)", i.mnemonic(), i.arch.name()))
}

/// What writes packed bit `k` of `layout`, and its name in a message.
fn name(layout: &str, m: &str, k: u32) -> (Culprit, String) {
    let bit = word_bit(k);
    // WMMA keeps VOP3P's modifier fields.
    let layout = if layout == "WMMA" { "VOP3P" } else { layout };
    let src = |k: u32| k as usize;
    match (layout, k) {
        ("MFMA", 0..=2) => (Culprit::Mod("cbsz"), "cbsz".into()),
        ("MFMA", 3..=6) => (Culprit::Mod("abid"), "abid".into()),
        ("MFMA", 10..=12) if m.starts_with("v_mfma_f64") => (Culprit::Mod("neg"), "neg".into()),
        ("MFMA", 10..=12) => (Culprit::Mod("blgp"), "blgp".into()),
        ("VOP3P", 0..=2) if m.contains("_mix") => (Culprit::Src(src(k)), format!("|x| on source {k}")),
        ("VOP3P", 10..=12) if m.contains("_mix") => (Culprit::Src(src(k - 10)), format!("-x on source {}", k - 10)),
        ("VOP3P", 0..=2) => (Culprit::Mod("neg_hi"), format!("neg_hi entry {k}")),
        ("VOP3P", 3..=5) => (Culprit::Mod("op_sel"), format!("op_sel entry {}", k - 3)),
        ("VOP3P", 6) => (Culprit::Mod("op_sel_hi"), "op_sel_hi entry 2".into()),
        ("VOP3P", 8..=9) => (Culprit::Mod("op_sel_hi"), format!("op_sel_hi entry {}", k - 8)),
        ("VOP3P", 10..=12) => (Culprit::Mod("neg_lo"), format!("neg_lo entry {}", k - 10)),
        (_, 0..=2) => (Culprit::Src(src(k)), format!("|x| on source {k}")),
        (_, 3..=6) => (Culprit::Mod("op_sel"), format!("op_sel bit {} (or a .h operand)", k - 3)),
        (_, 7) => (Culprit::Mod("clamp"), "clamp".into()),
        (_, 8..=9) => (Culprit::Mod("mul"), "an output modifier (mul:/div:)".into()),
        (_, 10..=12) => (Culprit::Src(src(k - 10)), format!("-x on source {}", k - 10)),
        _ => (Culprit::Mod(""), format!("modifier bit {bit}")),
    }
}
