//! Bits of a decoded word that no instruction line writes, though llvm-mc 22 decodes the word:
//! bits outside every field of its format (gfx12 SMEM bits llvm-mc prints as `nv` and
//! `scale_offset` but refuses to read on gfx1201; EXP's unused bits, which it drops), the nv bit
//! (gfx9 SMEM: no modifier names it; gfx12 images: llvm-mc refuses `nv`), a FLAT-segment offset
//! above 4095 (gfx9, gfx11: llvm-mc refuses it), a gfx12 `buffer_*` format other than the
//! default (only `tbuffer_*` names one), a gfx9 saddr of 0x7d (llvm-mc's `null`, which gfx9
//! refuses), a gfx9 SMEM word with `soe` but not `imm` (its text writes `soe` clear), an image
//! resource or sampler that is no SGPR tuple (gfx12's 9-bit fields), an image word whose data
//! or printed address llvm-mc's assembler does not take (crate::image_taken), export lanes
//! that are `off` but name a register, VOPD pairs whose sources share a VGPR bank (both
//! assemblers refuse them), gfx9 fp8/bf8 SDWA words with a destination selector llvm-mc does
//! not write (asm::sdwa_dst), memory words with a modifier field set that the opcode has no
//! operand for (asm::mem_mods), and gfx950 scaled MFMAs with a third scale selector set.
//! Such words print as `.long` (disasm::raw).

use crate::inst::Instruction;

/// Whether the word holds bits [`super::raw`] must print as data.
pub(super) fn unwritten(i: &Instruction) -> bool {
    stray_bits(i)
        || unwritten_field(i)
        || buffer_format_unwritten(i)
        || gfx9_saddr_0x7d(i)
        || super::image::is_image(i.format().name) && (super::image::resource_unnamed(i) || super::image::unwritable(i))
        || off_lane_named(i)
        || crate::vopd_banks::check(i).is_err()
        || crate::asm::sdwa_dst::unwritten(i)
        || scale_third_selector(i)
}

/// gfx950 scaled MFMA (VOP3PX2): the scale word's third op_sel or op_sel_hi bit (13, 14).
/// llvm-mc 22 prints such words as the word without it and drops a third entry written (ours
/// refuses it: asm::modifier), so no line writes them (the assembler's decoded read-back asks too).
pub(crate) fn scale_third_selector(i: &Instruction) -> bool {
    i.field("scale_opsel").is_some_and(|v| v & 4 != 0) || i.field("scale_opsel_hi2").is_some_and(|v| v != 0)
}

/// Whether the nv bit is set, a FLAT-segment offset is above what the assembler takes, a gfx9
/// SMEM word has `soe` without `imm`, or a memory word sets a modifier's field the opcode has
/// no operand for (asm::mem_mods) (the assembler's decoded read-back asks too).
pub(crate) fn unwritten_field(i: &Instruction) -> bool {
    i.field("nv").is_some_and(|v| v != 0)
        || crate::asm::mem_mods::word_refused(i)
        || gfx9_smem_soe_without_imm(i)
        || crate::asm::modifier::flat_segment_max(i).is_some_and(|m| i64::from(i.f("offset")) > m)
}

/// A gfx12 `buffer_*` (not `tbuffer_*`) word whose format field is not the default: no modifier
/// names it there, and both assemblers write the default (asm::decoded::buf prints `format:`
/// only where the opcode takes it).
pub(crate) fn buffer_format_unwritten(i: &Instruction) -> bool {
    i.format().name == "VBUFFER"
        && !i.mnemonic().starts_with("tbuffer")
        && i.field("format").is_some_and(|v| v != crate::names::buf_fmt::DEFAULT_UFMT)
}

/// The bits of a format's fields and select ranges (`Tables::held` keeps it per format).
pub(crate) fn held_bits(f: &baregpu_autogen::isa::Format) -> u128 {
    let span = |lo: u16, hi: u16| {
        let width = u32::from(hi.saturating_sub(lo)) + 1;
        let ones = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
        ones.checked_shl(u32::from(lo)).unwrap_or(0)
    };
    let held = f.fields.iter().fold(0u128, |a, fd| a | span(fd.lo, fd.hi));
    held | f.select.iter().fold(0u128, |a, &(lo, hi, _)| a | span(lo, hi))
}

/// Whether a bit outside the format's fields (and outside its fixed encoding bits) is set.
fn stray_bits(i: &Instruction) -> bool {
    let f = i.format();
    let mut held = i.tables().held[i.fmt as usize];
    // The encoding's fixed bits (those of the alternative the first dword matches).
    held |= u128::from(f.encoding.iter().filter(|&&(m, v)| i.words[0] & m == v).fold(0, |a, &(m, _)| a | m));
    let n = usize::from(i.ndwords).min(4);
    let word = i.words[..n].iter().enumerate().fold(0u128, |a, (k, &w)| a | u128::from(w) << (32 * k));
    word & !held != 0
}

/// gfx9 GLOBAL/SCRATCH saddr 0x7d: llvm-mc prints it as `null`, which gfx9 refuses ("'null'
/// operand is not supported"), and `off` writes 0x7f (as do both assemblers), so no line writes it.
fn gfx9_saddr_0x7d(i: &Instruction) -> bool {
    crate::operand::is_gfx9(i.arch) && matches!(i.format().name, "GLOBAL" | "SCRATCH") && i.field("saddr") == Some(0x7d)
}

/// gfx9 SMEM with `soe` set and `imm` clear: llvm-mc prints only the soffset register, and
/// both assemblers write that text with `soe` clear (the register in the offset field), so no
/// line writes the word.
fn gfx9_smem_soe_without_imm(i: &Instruction) -> bool {
    crate::operand::is_gfx9(i.arch)
        && i.format().name == "SMEM"
        && i.field("soe") == Some(1)
        && i.field("imm") == Some(0)
}

/// EXP: a lane whose enable bit is clear but whose register field is not 0 (`off` writes 0).
fn off_lane_named(i: &Instruction) -> bool {
    let Some(en) = i.field("en").filter(|_| i.format().name == "EXP") else { return false };
    ["vsrc0", "vsrc1", "vsrc2", "vsrc3"].iter().enumerate().any(|(k, f)| en >> k & 1 == 0 && i.f(f) != 0)
}
